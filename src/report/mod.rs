//! `--once` output: pure writers over a [`Snapshot`], for any `Write`, one file per
//! [`Format`].

pub mod json;
pub mod openmetrics;
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
    /// The metrics a Prometheus scrapes, in OpenMetrics 1.0.0 text.
    Openmetrics,
    /// The same in the Prometheus text format 0.0.4.
    Prometheus,
}

impl Format {
    /// Whether this is a metrics exposition (which needs the cgroup scan, for the top cgroups).
    pub fn is_exposition(self) -> bool {
        matches!(self, Format::Openmetrics | Format::Prometheus)
    }
}

/// Write `snap` as `format`; `color` applies to the text format only.
pub fn write(format: Format, snap: &Snapshot, out: &mut impl Write, color: bool) -> io::Result<()> {
    match format {
        Format::Text => text::write(snap, out, text::Style { color }),
        Format::Json => json::write(snap, out),
        Format::Openmetrics => openmetrics::write(snap, openmetrics::Flavor::OpenMetrics, out),
        Format::Prometheus => openmetrics::write(snap, openmetrics::Flavor::Prometheus, out),
    }
}
