//! `--once` output: pure writers over a [`Snapshot`], for any `Write`, one file per
//! [`Format`].

pub mod json;
pub mod text;

use std::io::{self, Write};

use crate::model::Snapshot;

/// The formats `--once` writes (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned sections for a person, 80 columns.
    Text,
    /// The snapshot itself, as one JSON object with a schema_version.
    Json,
}

/// Write `snap` as `format`; `color` applies to the text format only.
pub fn write(format: Format, snap: &Snapshot, out: &mut impl Write, color: bool) -> io::Result<()> {
    match format {
        Format::Text => text::write(snap, out, text::Style { color }),
        Format::Json => json::write(snap, out),
    }
}
