//! The graphs view: the four graphs, large, over a window of time its keys change (`[` `]`, in
//! steps, at most the history kept).

use std::time::Duration;

use ratatui::crossterm::event::KeyCode;

use super::{About, fast_reads};
use crate::app::{Action, App};

pub(super) const ABOUT: About = About {
    name: "graphs",
    panes: &[],
    list: None,
    scans: fast_reads,
    keys,
    help: HELP,
    act,
};

/// Graph window steps for `[`/`]` (capped at the history kept).
const WINDOW_STEPS_S: [u64; 14] = [
    15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 86_400,
];

pub(super) const HELP: &[(&str, &str)] = &[("[  ]", "shorter / longer time window")];

/// `[` shows a shorter stretch of time, `]` a longer one.
pub(super) fn keys(code: KeyCode) -> Option<Action> {
    match code {
        KeyCode::Char('[') => Some(Action::ZoomIn),
        KeyCode::Char(']') => Some(Action::ZoomOut),
        _ => None,
    }
}

/// The window one step shorter or longer, never longer than the history kept.
pub(super) fn act(app: &mut App, a: Action) -> bool {
    let now = app.window.as_secs_f64();
    match a {
        Action::ZoomIn => {
            let next = WINDOW_STEPS_S
                .iter()
                .rev()
                .find(|&&s| (s as f64) < now - 1e-9);
            if let Some(&s) = next {
                app.window = Duration::from_secs(s);
            }
        }
        Action::ZoomOut => {
            let max = app.history.max_age();
            let next = WINDOW_STEPS_S.iter().find(|&&s| (s as f64) > now + 1e-9);
            app.window = next.map_or(max, |&s| Duration::from_secs(s)).min(max);
        }
        _ => return false,
    }
    true
}
