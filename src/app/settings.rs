//! What the dashboard is told: by the command line (`zswaptop [FLAGS]`), or by `zswaptop replay`
//! (validated in [`crate::cli`]).

use std::time::Duration;

use crate::sources::Extras;

/// The dashboard's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The sampling interval; `None`: [`DEFAULT_INTERVAL`](crate::sources::sampler::DEFAULT_INTERVAL).
    pub interval: Option<Duration>,
    pub color: bool,
    /// ASCII symbols only (`--ascii`, or a locale that is not UTF-8).
    pub ascii: bool,
    /// How much history the graphs keep.
    pub history: Duration,
    /// Capture the mouse (not with --no-mouse).
    pub mouse: bool,
    /// The scans the command line asks for (`--top N`: how many processes the processes view
    /// keeps).
    pub extras: Extras,
}
