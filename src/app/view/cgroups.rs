//! The cgroups view: memory, swap and zswap per cgroup (v1 without zswap), a list its keys sort
//! and filter ([`super::list`]). The tree is walked only while it is shown.

use super::{About, list};
use crate::app::lists::List;
use crate::sources::Extras;

pub(super) const ABOUT: About = About {
    name: "cgroups",
    panes: &["cgroups"],
    list: Some(List::Cgroups),
    scans: |_| Extras {
        cgroups: true,
        ..Extras::default()
    },
    keys: list::keys,
    help: list::HELP,
    act: list::act,
};
