//! The dashboard's views, one file each: the view's state, its keys and its drawing. Each file
//! has the view's type (named as in the registry), a [`Kind`] (what the app asks of it: panes,
//! scans, keys, its [`State`](crate::app::State)) and a [`Tab`] (how it draws the body of the
//! screen and how far its panes scroll).
//!
//! The registry of views is the app's (`crate::app::view`, a line a view): it expands here into
//! the module of each view and the table ([`VIEWS`]) the front end hands the app. A new view is
//! its file here and its line in the registry.
//!
//! Everything that goes through the views asks the registry: the footer's tabs and the mouse
//! clicks on them, the number keys, the help, the scroll limits the loop measures, the scans the
//! sampler runs.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::kept::Kept;
use super::theme::Theme;
pub use crate::app::View;
use crate::app::keys;
use crate::app::{App, Kind, Laid, Views};

/// How a view of the dashboard draws itself. What the app asks of it is its [`Kind`].
pub trait Tab: Kind {
    /// Draw the view into `body`, the rows between the header and the bottom line. A part of it
    /// that is a kept panel goes through `kept`.
    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, kept: &mut Kept);

    /// How far each pane scrolls in `body`, and how far PgUp/PgDn move it (one [`Laid`] a pane,
    /// measured only while the view is shown).
    fn lay_out(&self, _app: &App, _body: Rect, _panes: &mut [Laid]) {}
}

/// The registry's views: a module each (`file`, holding the type `View`), and the tables.
macro_rules! tabs {
    ($($(#[$doc:meta])* $view:ident($file:ident),)+) => {
        $(pub mod $file;)+

        /// How each view draws, by [`View::index`].
        static TABS: [&dyn Tab; View::ALL.len()] = [$(&$file::$view),+];

        /// What the app asks of each view, by [`View::index`]: what the front end hands down.
        pub static VIEWS: Views = Views(&[$(&$file::$view),+]);
    };
}

crate::app::view::registry!(tabs);

impl View {
    /// How the view draws (and what the app asks of it).
    pub(crate) fn tab(self) -> &'static dyn Tab {
        TABS[self.index()]
    }
}

/// Every key of the dashboard as the help lists them, in groups: the app's own keys; the views
/// by number; the focus of the views with several panes, and scrolling; each view's own keys
/// (a line shared by views once, naming them); the rest.
pub(crate) fn help() -> Vec<(String, String)> {
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
        for &(k, what) in v.tab().help() {
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
