//! The processes view: the processes with the most swap, a list its keys sort and filter
//! ([`super::list`]). They are scanned only while it is shown: every process's status, the top
//! ones kept (`--top N`, else [`TOP_PROCESSES`]).

use super::{About, list};
use crate::app::TOP_PROCESSES;
use crate::app::lists::List;
use crate::sources::Extras;

pub(super) const ABOUT: About = About {
    name: "processes",
    panes: &["processes"],
    list: Some(List::Processes),
    scans: |app| Extras {
        top_processes: Some(app.settings.extras.top_processes.unwrap_or(TOP_PROCESSES)),
        ..Extras::default()
    },
    keys: list::keys,
    help: list::HELP,
    act: list::act,
};
