//! The diagnostics view: every finding in full, and the tunables (read while it is shown).

use super::{About, no_actions, no_keys};
use crate::sources::Extras;

pub(super) const ABOUT: About = About {
    name: "diagnostics",
    panes: &["diagnostics"],
    list: None,
    scans: |_| Extras {
        settings: true,
        ..Extras::default()
    },
    keys: no_keys,
    help: &[],
    act: no_actions,
};
