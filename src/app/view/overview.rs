//! The overview: everything at a glance.

use super::{About, fast_reads, no_actions, no_keys};

pub(super) const ABOUT: About = About {
    name: "overview",
    panes: &[],
    list: None,
    scans: fast_reads,
    keys: no_keys,
    help: &[],
    act: no_actions,
};
