//! The overview: everything at a glance. Its graphs zoom with the graphs view's keys.

use super::{About, fast_reads, graphs};

pub(super) const ABOUT: About = About {
    name: "overview",
    panes: &[],
    list: None,
    scans: fast_reads,
    keys: graphs::keys,
    help: graphs::HELP,
    act: graphs::act,
};
