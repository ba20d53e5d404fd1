//! The dashboard's views, one file each, every one a [`Tab`]: its name, how it draws the body of
//! the screen, the panes that scroll in it and how far, the scans it needs, its keys. The
//! registry below lists them once, in order: that order is the tabs' in the bottom line, Tab's,
//! and the number keys' (the first view is 1). It makes [`View`], the name of a view that the
//! app keeps and the keys carry; [`View::tab`] is what the view does.
//!
//! Everything that goes through the views asks the registry: the footer's tabs and the mouse
//! clicks on them, the number keys, the help, the scroll limits the loop measures, the scans the
//! sampler runs. A new view is a file here and a line in the registry.

pub mod cgroups;
pub mod devices;
pub mod diagnostics;
pub mod graphs;
pub mod overview;
pub mod processes;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::kept::Kept;
use super::theme::Theme;
use crate::app::keys;
use crate::app::lists::List;
use crate::app::{App, Laid};
use crate::sources::Extras;

/// A view of the dashboard.
pub trait Tab: Sync {
    /// Its name, in the bottom line's tabs and in the help.
    fn name(&self) -> &'static str;

    /// Draw the view into `body`, the rows between the header and the bottom line. A part of it
    /// that is a kept panel goes through `kept`.
    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, kept: &mut Kept);

    /// What each of its panes that scroll holds, by pane (none: the view does not scroll).
    /// With more than one, Left and Right move the focus between them.
    fn panes(&self) -> &'static [&'static str] {
        &[]
    }

    /// How far each pane scrolls in `body`, and how far PgUp/PgDn move it (one [`Laid`] a pane,
    /// measured only while the view is shown).
    fn lay_out(&self, _app: &App, _body: Rect, _panes: &mut [Laid]) {}

    /// The scans the sampler runs while the view is shown (none but the fast reads by default).
    fn scans(&self, _app: &App) -> Extras {
        Extras::default()
    }

    /// The list the sort and filter keys change while it is shown, if the view is one.
    fn list(&self) -> Option<List> {
        None
    }

    /// Keys of its own for the help: (keys, what they do). A line two views share is listed
    /// once, naming both.
    fn keys(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
}

/// The registry: `View::Name: the view's Tab,` a line each, in the order of the tabs.
macro_rules! registry {
    ($($(#[$doc:meta])* $view:ident: $tab:expr,)+) => {
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

            /// What the view is and does.
            pub fn tab(self) -> &'static dyn Tab {
                match self {
                    $(View::$view => &$tab,)+
                }
            }
        }
    };
}

registry! {
    /// Everything at a glance.
    Overview: overview::Overview,
    /// The four graphs, large.
    Graphs: graphs::Graphs,
    /// Swap devices (with their I/O) and zram devices in full.
    Devices: devices::Devices,
    /// Every finding in full, and the tunables.
    Diagnostics: diagnostics::Diagnostics,
    /// The processes with the most swap (scanned only while shown).
    Processes: processes::Processes,
    /// Memory, swap and zswap per cgroup, v1 without zswap (the tree is walked only while shown).
    Cgroups: cgroups::Cgroups,
}

impl View {
    pub fn name(self) -> &'static str {
        self.tab().name()
    }

    /// Its place in the registry, from 0.
    pub fn index(self) -> usize {
        View::ALL.iter().position(|&v| v == self).unwrap_or(0)
    }

    /// Its number in the bottom line, from 1: the key that shows it, up to 9.
    pub fn number(self) -> usize {
        self.index() + 1
    }

    /// The view a number key shows.
    pub fn numbered(key: char) -> Option<View> {
        let n = key.to_digit(10)? as usize;
        n.checked_sub(1).and_then(|i| View::ALL.get(i)).copied()
    }

    /// The next view (or the one before), wrapping around.
    pub fn next(self, forward: bool) -> View {
        let n = View::ALL.len();
        let i = if forward {
            self.index() + 1
        } else {
            self.index() + n - 1
        };
        View::ALL[i % n]
    }
}

/// Every key of the dashboard as the help lists them, in groups: the app's own keys; the views
/// by number; the focus of the views with several panes, and scrolling; each view's own keys
/// (a line shared by views once, naming them); the rest.
pub fn help() -> Vec<(String, String)> {
    let line = |(k, what): &(&str, &str)| (k.to_string(), what.to_string());
    let mut out: Vec<(String, String)> = keys::HELP_APP.iter().map(line).collect();
    // Three views a line: "1 2 3  overview / graphs / devices".
    for row in View::ALL.chunks(3) {
        let numbers: Vec<String> = row.iter().map(|v| v.number().to_string()).collect();
        let names: Vec<&str> = row.iter().map(|v| v.name()).collect();
        out.push((numbers.join(" "), names.join(" / ")));
    }
    for v in View::ALL {
        let panes = v.tab().panes();
        if panes.len() > 1 {
            out.push((
                "Left  Right".to_string(),
                format!("{}: focus the {} table", v.name(), panes.join(" or the ")),
            ));
        }
    }
    out.extend(keys::HELP_SCROLL.iter().map(line));
    let mut own: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for v in View::ALL {
        for &(k, what) in v.tab().keys() {
            match own.iter_mut().find(|o| o.0 == k && o.1 == what) {
                Some(o) => o.2.push(v.name()),
                None => own.push((k, what, vec![v.name()])),
            }
        }
    }
    out.extend(
        own.into_iter()
            .map(|(k, what, names)| (k.to_string(), format!("{}: {what}", names.join(", ")))),
    );
    out.extend(keys::HELP_END.iter().map(line));
    out
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

    /// Each view's panes are measured while it is shown, one limit a pane, a page at least a
    /// row; the scans follow the view.
    #[test]
    fn every_view_lays_out_its_own_panes() {
        use crate::app::{Action, Msg};
        let first =
            crate::sources::collect(&crate::root::Root::at("tests/fixtures/linux-6.18-loaded"));
        let mut app = App::new(crate::app::test_settings(&[]), first);
        app.update(Msg::Resize(100, 30));
        for v in View::ALL {
            app.update(Msg::Key(Action::Show(v)));
            let Msg::Laid { view, panes } = crate::ui::lay_out(&app) else {
                panic!("not a layout");
            };
            assert_eq!(view, v);
            assert_eq!(panes.len(), v.tab().panes().len(), "{v:?}");
            assert!(panes.iter().all(|p| p.page >= 1), "{v:?}: {panes:?}");
            assert_eq!(app.extras(), v.tab().scans(&app), "{v:?}");
        }
    }

    #[test]
    fn the_help_lists_every_mapped_key() {
        let text: String = help().iter().map(|(k, _)| format!("{k} ")).collect();
        for k in [
            "q",
            "F10",
            "Ctrl-C",
            "Esc",
            "?",
            "F1",
            "space",
            "+",
            "-",
            "Tab",
            "Shift-Tab",
            "Left",
            "Right",
            "Up",
            "Down",
            "PgUp",
            "PgDn",
            "Home",
            "End",
            "[",
            "]",
            "Ctrl-L",
            "j",
            "k",
            "g",
            "G",
            "p",
            "h",
            "s",
            ">",
            "<",
            "r",
            "I",
            "/",
            "Backspace",
            "Ctrl-U",
        ] {
            assert!(text.contains(k), "help lacks {k}");
        }
        for v in View::ALL {
            assert!(
                text.contains(&v.number().to_string()),
                "help lacks {v:?}'s key"
            );
        }
    }
}
