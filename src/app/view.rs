//! The dashboard's views as the app knows them: the list of views, in the order of the tabs,
//! Tab's and the number keys' (the first view is 1), and what the app needs of each, in the
//! view's own file here (`view/NAME.rs`, its [`About`]) — its name, the panes that scroll in it,
//! the list its sort and filter keys change, the scans the sampler runs while it is shown, and
//! its own keys: what they ask for, their help, and what they change. The app's own keys (quit,
//! help, the views, pause, the interval, scrolling, the prompt, the replay's) are
//! [`super::keys`]'. How a view draws and lays itself out is the ui's (`crate::ui::views`, one
//! file a view, each a `Tab`); `View::tab` there matches every view listed here, so a view
//! listed without its drawing does not compile.
//!
//! A new view is its file here and its line in [`views!`]' list below, and its drawing in
//! `crate::ui::views` (a file and a line in `View::tab`).
//!
//! The app keeps which view is shown and changes it on keys; it never draws. That is why the
//! list is here and not beside the drawing: the state sits below the ui (`crate::layers`).

mod cgroups;
mod devices;
mod diagnostics;
mod graphs;
mod list;
mod overview;
mod processes;

use ratatui::crossterm::event::KeyCode;

use super::lists::List;
use super::{Action, App};
use crate::sources::Extras;

/// What the app knows of a view.
pub struct About {
    /// Its name, in the bottom line's tabs, the help, and the configuration.
    pub name: &'static str,
    /// What each of its panes that scroll holds, by pane (none: the view does not scroll).
    /// With more than one, Left and Right move the focus between them.
    pub panes: &'static [&'static str],
    /// The list the sort and filter keys change while it is shown, if the view is one.
    pub list: Option<List>,
    /// The scans the sampler runs while the view is shown, beyond the fast reads.
    pub scans: fn(&App) -> Extras,
    /// What a key asks for while the view is shown, when it is none of the app's own keys.
    pub keys: fn(KeyCode) -> Option<Action>,
    /// Its own keys for the help: (keys, what they do). A line two views share is listed once,
    /// naming both.
    pub help: &'static [(&'static str, &'static str)],
    /// Apply an action of its own keys to the app; `false` for an action that is not its own.
    pub act: fn(&mut App, Action) -> bool,
}

fn fast_reads(_: &App) -> Extras {
    Extras::default()
}

fn no_keys(_: KeyCode) -> Option<Action> {
    None
}

fn no_actions(_: &mut App, _: Action) -> bool {
    false
}

/// The registry: `Name: About { … },` a view each, in the order of the tabs.
macro_rules! views {
    ($($(#[$doc:meta])* $view:ident: $about:expr,)+) => {
        /// The dashboard's views, as the registry lists them (Tab and the number keys switch);
        /// the configuration file names them in lower case (`view = "graphs"`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum View {
            $($(#[$doc])* $view,)+
        }

        impl View {
            /// Every view, in the registry's order.
            pub const ALL: [View; [$(stringify!($view)),+].len()] = [$(View::$view),+];

            /// What the app knows of the view.
            pub(crate) fn about(self) -> &'static About {
                match self {
                    $(View::$view => {
                        const ABOUT: About = $about;
                        &ABOUT
                    })+
                }
            }
        }
    };
}

views! {
    /// Everything at a glance.
    Overview: overview::ABOUT,
    /// The four graphs, large.
    Graphs: graphs::ABOUT,
    /// Swap devices (with their I/O) and zram devices in full.
    Devices: devices::ABOUT,
    /// Every finding in full, and the tunables (read while shown).
    Diagnostics: diagnostics::ABOUT,
    /// The processes with the most swap (scanned only while shown).
    Processes: processes::ABOUT,
    /// Memory, swap and zswap per cgroup, v1 without zswap (the tree is walked only while shown).
    Cgroups: cgroups::ABOUT,
}

impl View {
    pub fn name(self) -> &'static str {
        self.about().name
    }

    /// The panes that scroll in it.
    pub(crate) fn panes(self) -> &'static [&'static str] {
        self.about().panes
    }

    /// The list its sort and filter keys change, if it is one.
    pub(crate) fn list(self) -> Option<List> {
        self.about().list
    }

    /// The scans the sampler runs while it is shown.
    pub(crate) fn scans(self, app: &App) -> Extras {
        (self.about().scans)(app)
    }

    /// What `code` asks for as one of the view's own keys.
    pub(crate) fn key(self, code: KeyCode) -> Option<Action> {
        (self.about().keys)(code)
    }

    /// Its own keys for the help.
    pub(crate) fn help(self) -> &'static [(&'static str, &'static str)] {
        self.about().help
    }

    /// Its place in the registry, from 0.
    pub(crate) fn index(self) -> usize {
        View::ALL.iter().position(|&v| v == self).unwrap_or(0)
    }

    /// Its number in the bottom line, from 1: the key that shows it, up to 9.
    pub(crate) fn number(self) -> usize {
        self.index() + 1
    }

    /// The view a number key shows.
    pub(crate) fn numbered(key: char) -> Option<View> {
        let n = key.to_digit(10)? as usize;
        n.checked_sub(1).and_then(|i| View::ALL.get(i)).copied()
    }

    /// The next view (or the one before), wrapping around.
    pub(crate) fn next(self, forward: bool) -> View {
        let n = View::ALL.len();
        let i = if forward {
            self.index() + 1
        } else {
            self.index() + n - 1
        };
        View::ALL[i % n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_come_from_the_registry() {
        for (i, v) in View::ALL.into_iter().enumerate() {
            assert_eq!(v.index(), i);
            assert_eq!(View::numbered(char::from(b'1' + i as u8)), Some(v));
            assert_eq!(v.next(true).next(false), v);
        }
        assert_eq!(View::numbered('0'), None);
        assert_eq!(View::numbered('x'), None);
        assert_eq!(View::Cgroups.next(true), View::Overview, "Tab wraps around");
        let names: Vec<&str> = View::ALL.iter().map(|v| v.name()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(names.len(), unique.len(), "{names:?}");
    }

    /// The configuration file names a view as the tabs do.
    #[test]
    fn the_configuration_spells_views_as_the_tabs() {
        for v in View::ALL {
            let named: View = serde_json::from_value(serde_json::json!(v.name())).unwrap();
            assert_eq!(named, v);
        }
    }
}
