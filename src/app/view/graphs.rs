//! The graphs view: the four graphs, large. Their window of time is the app's (`[` `]` change
//! it on every view, and the bottom line shows it), so the view lists those keys in the help
//! and has none of its own.

use super::{About, fast_reads, no_actions, no_keys};

pub(super) const ABOUT: About = About {
    name: "graphs",
    panes: &[],
    list: None,
    scans: fast_reads,
    keys: no_keys,
    help: &[("[  ]", "shorter / longer time window")],
    act: no_actions,
};
