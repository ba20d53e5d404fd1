//! What the dashboard is told: by the command line (`zswaptop [FLAGS]`), or by `zswaptop replay`
//! (validated in [`crate::cli`]), over the configuration file's defaults ([`crate::config`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::lists::{CgroupSort, ProcSort};
use super::{View, Views};
use crate::diagnostics::Thresholds;
use crate::sources::Extras;

/// The dashboard's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The sampling interval; `None`: [`DEFAULT_INTERVAL`](crate::sources::sampler::DEFAULT_INTERVAL).
    pub interval: Option<Duration>,
    pub color: bool,
    /// The colours, when there are colours (`--theme`, the configuration's `theme`).
    pub theme: Palette,
    /// ASCII symbols only (`--ascii`, or a locale that is not UTF-8).
    pub ascii: bool,
    /// How much history the graphs keep.
    pub history: Duration,
    /// Capture the mouse (not with --no-mouse).
    pub mouse: bool,
    /// The scans the command line asks for (`--top N`: how many processes the processes view
    /// keeps).
    pub extras: Extras,
    /// The view shown first.
    pub view: View,
    /// The processes view's first sort column.
    pub proc_sort: ProcSort,
    /// The cgroups view's first sort column.
    pub cgroup_sort: CgroupSort,
    /// What the rules judge by (the configuration's `[thresholds]`).
    pub thresholds: Thresholds,
    /// The views, handed down by the front end (the ui's table, by [`View::index`]).
    pub views: Views,
}

/// The dashboard's colour themes. Each keeps every figure readable (a test draws the dashboard
/// in each and compares every cell's foreground with its background).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Palette {
    /// The terminal's 16 colours as accents on its default foreground.
    #[default]
    Default,
    /// For a light background: the pale (bright) colours and grey replaced by their darker
    /// kin.
    Light,
    /// No colour at all: bold, dim, reverse and underline only.
    Mono,
}

impl Palette {
    pub const ALL: [Palette; 3] = [Palette::Default, Palette::Light, Palette::Mono];

    /// Its name, as `--theme` and the configuration file spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Palette::Default => "default",
            Palette::Light => "light",
            Palette::Mono => "mono",
        }
    }

    /// The theme named `name`.
    pub(crate) fn named(name: &str) -> Option<Palette> {
        Palette::ALL.into_iter().find(|p| p.name() == name)
    }
}
