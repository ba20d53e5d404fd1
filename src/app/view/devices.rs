//! The devices view: swap devices (with their I/O) and zram devices in full, a pane each (Left
//! and Right move the focus, as in every view with more than one pane).

use super::{About, fast_reads, no_actions, no_keys};

pub(super) const ABOUT: About = About {
    name: "devices",
    panes: &["swap", "zram"],
    list: None,
    scans: fast_reads,
    keys: no_keys,
    help: &[],
    act: no_actions,
};
