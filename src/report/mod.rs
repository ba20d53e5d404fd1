//! `--once` output: pure writers over a [`Snapshot`], for any `Write`, one file per
//! [`Format`].

pub mod json;
pub mod lines;
pub mod summary;
pub mod text;

use std::io::{self, Write};

use crate::model::Snapshot;

/// The formats `--once` writes (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For a person: one 80×24 screen, or with --full the complete report in aligned sections.
    Text,
    /// The snapshot itself, as one JSON object with a schema_version.
    Json,
}

/// Write `snap` as `format`; `color` applies to the text format only, and so does `full` (the
/// complete report rather than the one-screen summary).
pub fn write(
    format: Format,
    snap: &Snapshot,
    out: &mut impl Write,
    color: bool,
    full: bool,
) -> io::Result<()> {
    match format {
        Format::Text if full => text::write(snap, out, text::Style { color }),
        Format::Text => summary::write(snap, out, text::Style { color }),
        Format::Json => json::write(snap, out),
    }
}
