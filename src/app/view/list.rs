//! The keys of the views that are lists (processes, cgroups): sort by the next column (`s`, `>`)
//! or the one before (`<`), reverse (`r`, `I`), open the filter prompt (`/`). What the prompt's
//! keys type is the app's (the prompt is open over any list).

use ratatui::crossterm::event::KeyCode;

use crate::app::{Action, App};

pub(super) use crate::app::lists::KEYS as HELP;

pub(super) fn keys(code: KeyCode) -> Option<Action> {
    Some(match code {
        KeyCode::Char('s' | '>') => Action::SortNext,
        KeyCode::Char('<') => Action::SortPrev,
        KeyCode::Char('r' | 'I') => Action::SortReverse,
        KeyCode::Char('/') => Action::FilterOpen,
        _ => return None,
    })
}

/// Change the list shown: its sort, or open its filter prompt.
pub(super) fn act(app: &mut App, a: Action) -> bool {
    match a {
        Action::SortNext => app.edit_list(|l| l.sort_by_next(true)),
        Action::SortPrev => app.edit_list(|l| l.sort_by_next(false)),
        Action::SortReverse => app.edit_list(|l| l.reverse()),
        Action::FilterOpen => app.prompt = app.list().is_some(),
        _ => return false,
    }
    true
}
