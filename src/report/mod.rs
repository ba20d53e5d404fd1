//! Output: pure writers over a [`Snapshot`], for any `Write`, one file per [`OutputFormat`]
//! (`--once`), [`lines`] for `--watch`, and the one JSON writer ([`json`]).

pub mod csv;
pub mod json;
pub mod lines;
pub mod openmetrics;
pub mod summary;
pub mod text;
pub mod textfile;

use std::io::{self, Write};

use crate::model::Snapshot;

/// The formats `--once` writes (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// For a person: one 80×24 screen, or with --full the complete report in aligned sections.
    Text,
    /// The snapshot itself, as one JSON object with a schema_version.
    Json,
    /// The metrics a Prometheus scrapes, in OpenMetrics 1.0.0 text.
    Openmetrics,
    /// The same in the Prometheus text format 0.0.4.
    Prometheus,
}

impl OutputFormat {
    /// Whether this is a metrics exposition (which needs the cgroup scan, for the top cgroups).
    pub(crate) fn is_exposition(self) -> bool {
        matches!(self, OutputFormat::Openmetrics | OutputFormat::Prometheus)
    }
}

/// The scans an exposition needs besides `extras`: the cgroup tree, for the top cgroups by zswap.
pub fn metrics_extras(extras: crate::sources::Extras) -> crate::sources::Extras {
    crate::sources::Extras {
        cgroups: true,
        ..extras
    }
}

/// Write `snap` as `format`; `color` applies to the text format only, and so does `full` (the
/// complete report rather than the one-screen summary).
pub fn write(
    format: OutputFormat,
    snap: &Snapshot,
    out: &mut impl Write,
    color: bool,
    full: bool,
) -> io::Result<()> {
    match format {
        OutputFormat::Text if full => text::write(snap, out, text::Style { color }),
        OutputFormat::Text => summary::write(snap, out, text::Style { color }),
        OutputFormat::Json => json::write(snap, out),
        OutputFormat::Openmetrics => {
            openmetrics::write(snap, openmetrics::Flavor::OpenMetrics, out)
        }
        OutputFormat::Prometheus => openmetrics::write(snap, openmetrics::Flavor::Prometheus, out),
    }
}
