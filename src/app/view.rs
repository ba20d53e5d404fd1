//! The dashboard's views as the app knows them: the registry ([`registry!`], a line a view, in
//! the order of the tabs, Tab's and the number keys' — the first view is 1), and what the app
//! asks of a view ([`Kind`]: its panes, scans and keys) and of its state ([`State`]: what its
//! own keys change, its list, what it derives from the snapshot shown).
//!
//! A view is one file, `crate::ui::views::NAME`: its state, its keys and its drawing. The app
//! never names it (the app sits below the ui, `crate::layers`): the front end hands the app the
//! views' table ([`Views`], in [`super::Settings`]), and the app keeps each view's state as a
//! [`State`] made by its [`Kind`]. The ui expands the same registry into its module list and
//! that table, so a new view is its file and its line here.
//!
//! The app keeps which view is shown and changes it on keys; it never draws.

use std::any::Any;
use std::fmt;

use ratatui::crossterm::event::KeyCode;

use super::lists::SortFilter;
use super::{Action, App, Settings};
use crate::model::Snapshot;
use crate::sources::Extras;

/// The registry: `Name(file),` a view each, in the order of the tabs; `file` is its file in the
/// ui's views and its name (in the bottom line's tabs, the help, and the configuration). Expands
/// into `$then! { … }`: the app's [`View`] here, the ui's modules and table there.
macro_rules! registry {
    ($then:ident) => {
        $then! {
            /// Everything at a glance.
            Overview(overview),
            /// The four graphs, large.
            Graphs(graphs),
            /// Swap devices (with their I/O) and zram devices in full.
            Devices(devices),
            /// Every finding in full, and the tunables (read while shown).
            Diagnostics(diagnostics),
            /// The processes with the most swap (scanned only while shown).
            Processes(processes),
            /// Memory, swap and zswap per cgroup, v1 without zswap (the tree is walked only while
            /// shown).
            Cgroups(cgroups),
        }
    };
}
pub(crate) use registry;

macro_rules! views {
    ($($(#[$doc:meta])* $view:ident($file:ident),)+) => {
        /// The dashboard's views, as the registry lists them (Tab and the number keys switch);
        /// the configuration file names them as the tabs do (`view = "graphs"`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum View {
            $($(#[$doc])* $view,)+
        }

        impl View {
            /// Every view, in the registry's order.
            pub const ALL: [View; [$(stringify!($view)),+].len()] = [$(View::$view),+];

            pub fn name(self) -> &'static str {
                match self {
                    $(View::$view => stringify!($file),)+
                }
            }
        }
    };
}

registry!(views);

/// What the app asks of a view (its file in the ui implements it).
pub trait Kind: Sync {
    /// What each of its panes that scroll holds, by pane (none: the view does not scroll).
    /// With more than one, Left and Right move the focus between them.
    fn panes(&self) -> &'static [&'static str] {
        &[]
    }

    /// The scans the sampler runs while the view is shown, beyond the fast reads.
    fn scans(&self, _app: &App) -> Extras {
        Extras::default()
    }

    /// Whether it is a list (sorted, filtered, reversed): a list view has the lists' keys
    /// ([`super::lists::keys`]) and their help without saying so twice.
    fn is_list(&self) -> bool {
        false
    }

    /// What a key asks for while the view is shown, when it is none of the app's own keys.
    fn key(&self, code: KeyCode) -> Option<Action> {
        if self.is_list() {
            super::lists::keys(code)
        } else {
            None
        }
    }

    /// Its own keys for the help: (keys, what they do). A line two views share is listed once,
    /// naming both.
    fn help(&self) -> &'static [(&'static str, &'static str)] {
        if self.is_list() {
            super::lists::KEYS
        } else {
            &[]
        }
    }

    /// Its state as the dashboard starts.
    fn state(&self, _settings: &Settings) -> Box<dyn State> {
        Box::new(Stateless)
    }
}

/// A view's own state, kept by the app from one tick to the next, whether it is shown or not.
/// The view's drawing reads it back with [`App::state`].
pub trait State: Any + fmt::Debug + Send + CloneState {
    /// Apply an action of its own keys.
    fn act(&mut self, _a: Action) -> Acted {
        Acted::Not
    }

    /// Its list's sort and filter, if it is a list (the prompt's keys type into the filter).
    fn list(&self) -> Option<&dyn SortFilter> {
        None
    }

    fn list_mut(&mut self) -> Option<&mut dyn SortFilter> {
        None
    }

    /// The snapshot shown changed, or its list's sort or filter: derive what it shows again.
    fn refresh(&mut self, _shown: &Snapshot) {}

    /// Rows it holds from one tick to the next (their capacity), for [`super::Footprint`].
    fn rows(&self) -> usize {
        0
    }
}

/// A copy of a view's state (the app is cloned whole: a test's base screen, a bench's).
pub trait CloneState {
    fn clone_state(&self) -> Box<dyn State>;
}

impl<T: State + Clone> CloneState for T {
    fn clone_state(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn State> {
    fn clone(&self) -> Box<dyn State> {
        self.clone_state()
    }
}

/// What an action of a view's own keys asks of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acted {
    /// Not one of its actions.
    Not,
    /// Its list changed (sort or filter): back to the top, derived again.
    ListChanged,
    /// Open the filter prompt over its list.
    Prompt,
}

/// A view with nothing of its own to keep.
#[derive(Debug, Clone)]
pub struct Stateless;

impl State for Stateless {}

/// The views' table the front end hands down, by [`View::index`].
#[derive(Clone, Copy)]
pub struct Views(pub &'static [&'static dyn Kind]);

impl Views {
    pub(crate) fn of(self, v: View) -> &'static dyn Kind {
        self.0[v.index()]
    }
}

impl fmt::Debug for Views {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Views({})", self.0.len())
    }
}

/// One table is handed down for the whole dashboard: two are the same when they hold the same
/// views.
impl PartialEq for Views {
    fn eq(&self, other: &Views) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(other.0)
                .all(|(a, b)| std::ptr::addr_eq(*a, *b))
    }
}

impl View {
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
