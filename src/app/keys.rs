//! The key map: a pure function from a key event (whether the filter prompt is open, and the
//! view shown) to what it asks for. The app's own keys are here: quit, help, the views, pause,
//! the interval, the graphs' window, the focus and scrolling of the panes, the prompt's and the
//! replay's keys; a key
//! that is none of them is the view's to map ([`Kind::key`], in the view's own file). Only
//! presses count (terminals that report releases and repeats would otherwise act twice). While
//! the prompt is open, printable keys are text.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::{Kind, View};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// q, F10, Ctrl-C.
    Quit,
    /// Esc: close the help, or clear the filter; never quits.
    Back,
    ToggleHelp,
    TogglePause,
    /// `+`: sample less often.
    LongerInterval,
    /// `-`: sample more often.
    ShorterInterval,
    NextView,
    PrevView,
    Show(View),
    FocusNext,
    FocusPrev,
    ScrollUp,
    ScrollDown,
    /// The mouse wheel: a few rows at a time.
    WheelUp,
    WheelDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// `[`: show a shorter stretch of time in the graphs.
    ZoomIn,
    /// `]`: show a longer stretch of time.
    ZoomOut,
    /// Ctrl-L: repaint everything.
    Redraw,
    /// `s`, `>`: sort the list by the next column.
    SortNext,
    /// `<`: sort by the previous column.
    SortPrev,
    /// `r`, `I`: reverse the sort.
    SortReverse,
    /// `/`: open the filter prompt.
    FilterOpen,
    /// A character typed into the prompt.
    FilterInput(char),
    /// Backspace in the prompt.
    FilterBackspace,
    /// Ctrl-U in the prompt: empty it.
    FilterClear,
    /// Enter: close the prompt, keep the filter.
    FilterDone,
    /// Esc in the prompt: clear the filter and close the prompt.
    FilterCancel,
    /// Replay, `,` `.`: one sample back or forward.
    ReplayStep(isize),
    /// Replay, `b` `f` `B` `F`: this many seconds of recorded time back or forward.
    ReplayJump(i64),
    /// Replay, `g`: open the go-to-a-time prompt.
    ReplayGoto,
}

/// Which key map applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// The filter prompt (or replay's go-to prompt) is open: keys type text.
    Prompt,
    /// Replaying a recording: the normal keys, and those of the time cursor.
    Replay,
}

/// What `key` asks for in `mode` while `view` is shown, if anything.
pub(crate) fn action_for(key: KeyEvent, mode: Mode, view: &dyn Kind) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if key.modifiers.contains(KeyModifiers::ALT) {
        return None;
    }
    if mode == Mode::Prompt {
        return prompt_action(key.code, ctrl);
    }
    if mode == Mode::Replay && !ctrl {
        let a = match key.code {
            KeyCode::Char(',') => Some(Action::ReplayStep(-1)),
            KeyCode::Char('.') => Some(Action::ReplayStep(1)),
            KeyCode::Char('b') => Some(Action::ReplayJump(-60)),
            KeyCode::Char('f') => Some(Action::ReplayJump(60)),
            KeyCode::Char('B') => Some(Action::ReplayJump(-600)),
            KeyCode::Char('F') => Some(Action::ReplayJump(600)),
            KeyCode::Char('g') => Some(Action::ReplayGoto),
            _ => None,
        };
        if a.is_some() {
            return a;
        }
    }
    let a = match key.code {
        KeyCode::Char('c' | 'C') if ctrl => Action::Quit,
        KeyCode::Char('l' | 'L') if ctrl => Action::Redraw,
        _ if ctrl => return None,
        KeyCode::Char('q' | 'Q') | KeyCode::F(10) => Action::Quit,
        KeyCode::Esc => Action::Back,
        KeyCode::Char('?' | 'h') | KeyCode::F(1) => Action::ToggleHelp,
        KeyCode::Char(' ' | 'p') => Action::TogglePause,
        KeyCode::Char('+' | '=') => Action::LongerInterval,
        KeyCode::Char('-' | '_') => Action::ShorterInterval,
        KeyCode::Tab => Action::NextView,
        KeyCode::BackTab => Action::PrevView,
        KeyCode::Char(c @ '1'..='9') => return View::numbered(c).map(Action::Show),
        KeyCode::Right => Action::FocusNext,
        KeyCode::Left => Action::FocusPrev,
        KeyCode::Up | KeyCode::Char('k') => Action::ScrollUp,
        KeyCode::Down | KeyCode::Char('j') => Action::ScrollDown,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Home | KeyCode::Char('g') => Action::Top,
        KeyCode::End | KeyCode::Char('G') => Action::Bottom,
        KeyCode::Char('[') => Action::ZoomIn,
        KeyCode::Char(']') => Action::ZoomOut,
        code => return view.key(code),
    };
    Some(a)
}

/// The prompt's key map: text editing, with the keys that move and quit still working.
fn prompt_action(code: KeyCode, ctrl: bool) -> Option<Action> {
    let a = match code {
        KeyCode::Char('c' | 'C') if ctrl => Action::Quit,
        KeyCode::Char('l' | 'L') if ctrl => Action::Redraw,
        KeyCode::Char('u' | 'U') if ctrl => Action::FilterClear,
        _ if ctrl => return None,
        KeyCode::F(10) => Action::Quit,
        KeyCode::Esc => Action::FilterCancel,
        KeyCode::Enter => Action::FilterDone,
        KeyCode::Backspace => Action::FilterBackspace,
        KeyCode::Char(c) if !c.is_control() => Action::FilterInput(c),
        KeyCode::Tab => Action::NextView,
        KeyCode::BackTab => Action::PrevView,
        KeyCode::Up => Action::ScrollUp,
        KeyCode::Down => Action::ScrollDown,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Home => Action::Top,
        KeyCode::End => Action::Bottom,
        _ => return None,
    };
    Some(a)
}

/// What a mouse event asks for: a left click on a view's tab (`tab_at` says which tab, if any,
/// is under a cell) shows that view, the wheel scrolls.
pub fn mouse_action(m: MouseEvent, tab_at: impl Fn(u16, u16) -> Option<View>) -> Option<Action> {
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) => tab_at(m.column, m.row).map(Action::Show),
        MouseEventKind::ScrollUp => Some(Action::WheelUp),
        MouseEventKind::ScrollDown => Some(Action::WheelDown),
        _ => None,
    }
}

/// The keys of the app itself, first in the help (the views' keys follow: `ui::views::help`).
pub const HELP_APP: &[(&str, &str)] = &[
    ("q  F10  Ctrl-C", "quit"),
    ("Esc", "close this help, clear the filter"),
    ("?  F1  h", "show / hide this help"),
    ("space  p", "pause the display (sampling goes on)"),
    ("+  -", "sample less / more often (0.1 s minimum)"),
    ("Tab  Shift-Tab", "next / previous view"),
];

/// The keys that scroll the pane in focus.
pub const HELP_SCROLL: &[(&str, &str)] = &[
    ("Up  Down  j  k", "scroll"),
    ("PgUp  PgDn", "scroll a page"),
    ("Home  End  g  G", "top / bottom"),
];

/// The keys of the prompts, the screen and the mouse, last in the help.
pub const HELP_END: &[(&str, &str)] = &[
    ("Backspace", "in the filter: delete a character"),
    ("Ctrl-U", "in the filter: clear it"),
    ("Ctrl-L", "repaint the screen"),
    ("mouse", "click a view's name; the wheel scrolls"),
];

/// The keys of a replay, shown first in its help (they take the place of `space` and `+ -`).
pub const REPLAY_HELP: [(&str, &str); 6] = [
    ("space  p", "replay: play / pause"),
    ("+  -", "replay: faster / slower (x1 to x60)"),
    (",  .", "replay: one sample back / forward"),
    ("b  f", "replay: one minute back / forward"),
    ("B  F", "replay: ten minutes back / forward"),
    ("g", "replay: go to a time (12:34, -10m, RFC 3339)"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn with(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    fn action(k: KeyEvent) -> Option<Action> {
        action_for(k, Mode::Normal, View::Overview.tab())
    }

    /// On the processes view, a list.
    fn listed(k: KeyEvent) -> Option<Action> {
        action_for(k, Mode::Normal, View::Processes.tab())
    }

    fn typed(k: KeyEvent) -> Option<Action> {
        action_for(k, Mode::Prompt, View::Processes.tab())
    }

    #[test]
    fn quit_keys() {
        assert_eq!(action(press(KeyCode::Char('q'))), Some(Action::Quit));
        assert_eq!(action(press(KeyCode::Char('Q'))), Some(Action::Quit));
        assert_eq!(
            action(with(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(
            action(press(KeyCode::F(10))),
            Some(Action::Quit),
            "htop's F10"
        );
        assert_eq!(typed(press(KeyCode::F(10))), Some(Action::Quit));
        assert_eq!(action(press(KeyCode::Esc)), Some(Action::Back));
        // A plain c is not Ctrl-C.
        assert_eq!(action(press(KeyCode::Char('c'))), None);
    }

    #[test]
    fn help_pause_interval() {
        assert_eq!(action(press(KeyCode::Char('?'))), Some(Action::ToggleHelp));
        assert_eq!(
            action(with(KeyCode::Char('?'), KeyModifiers::SHIFT)),
            Some(Action::ToggleHelp)
        );
        assert_eq!(action(press(KeyCode::F(1))), Some(Action::ToggleHelp));
        assert_eq!(action(press(KeyCode::Char(' '))), Some(Action::TogglePause));
        assert_eq!(
            action(with(KeyCode::Char('+'), KeyModifiers::SHIFT)),
            Some(Action::LongerInterval)
        );
        assert_eq!(
            action(press(KeyCode::Char('='))),
            Some(Action::LongerInterval)
        );
        assert_eq!(
            action(press(KeyCode::Char('-'))),
            Some(Action::ShorterInterval)
        );
    }

    #[test]
    fn views_focus_scroll_zoom() {
        assert_eq!(action(press(KeyCode::Tab)), Some(Action::NextView));
        assert_eq!(
            action(with(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Action::PrevView)
        );
        assert_eq!(
            action(press(KeyCode::Char('1'))),
            Some(Action::Show(View::Overview))
        );
        assert_eq!(
            action(press(KeyCode::Char('2'))),
            Some(Action::Show(View::Graphs))
        );
        assert_eq!(
            action(press(KeyCode::Char('3'))),
            Some(Action::Show(View::Devices))
        );
        assert_eq!(
            action(press(KeyCode::Char('4'))),
            Some(Action::Show(View::Diagnostics))
        );
        assert_eq!(
            action(press(KeyCode::Char('5'))),
            Some(Action::Show(View::Processes))
        );
        assert_eq!(
            action(press(KeyCode::Char('6'))),
            Some(Action::Show(View::Cgroups))
        );
        assert_eq!(action(press(KeyCode::Char('7'))), None);
        assert_eq!(action(press(KeyCode::Right)), Some(Action::FocusNext));
        assert_eq!(action(press(KeyCode::Left)), Some(Action::FocusPrev));
        assert_eq!(action(press(KeyCode::Up)), Some(Action::ScrollUp));
        assert_eq!(action(press(KeyCode::Down)), Some(Action::ScrollDown));
        assert_eq!(action(press(KeyCode::PageUp)), Some(Action::PageUp));
        assert_eq!(action(press(KeyCode::PageDown)), Some(Action::PageDown));
        assert_eq!(action(press(KeyCode::Home)), Some(Action::Top));
        assert_eq!(action(press(KeyCode::End)), Some(Action::Bottom));
        assert_eq!(action(press(KeyCode::Char('['))), Some(Action::ZoomIn));
        assert_eq!(action(press(KeyCode::Char(']'))), Some(Action::ZoomOut));
        assert_eq!(
            action(with(KeyCode::Char('l'), KeyModifiers::CONTROL)),
            Some(Action::Redraw)
        );
    }

    /// The sort and filter keys are the list views' own: on another view they ask for nothing.
    #[test]
    fn sort_and_filter_keys() {
        assert_eq!(listed(press(KeyCode::Char('s'))), Some(Action::SortNext));
        assert_eq!(listed(press(KeyCode::Char('>'))), Some(Action::SortNext));
        assert_eq!(listed(press(KeyCode::Char('<'))), Some(Action::SortPrev));
        assert_eq!(listed(press(KeyCode::Char('r'))), Some(Action::SortReverse));
        assert_eq!(listed(press(KeyCode::Char('I'))), Some(Action::SortReverse));
        assert_eq!(listed(press(KeyCode::Char('/'))), Some(Action::FilterOpen));
        let cgroups = |k| action_for(k, Mode::Normal, View::Cgroups.tab());
        assert_eq!(cgroups(press(KeyCode::Char('s'))), Some(Action::SortNext));
        for v in [
            View::Overview,
            View::Graphs,
            View::Devices,
            View::Diagnostics,
        ] {
            let k = press(KeyCode::Char('s'));
            assert_eq!(action_for(k, Mode::Normal, v.tab()), None, "{v:?}");
            let k = press(KeyCode::Char('/'));
            assert_eq!(action_for(k, Mode::Normal, v.tab()), None, "{v:?}");
        }
        assert_eq!(listed(press(KeyCode::Char('['))), Some(Action::ZoomIn));
    }

    #[test]
    fn in_the_prompt_keys_are_text() {
        for c in ['q', 's', '?', '1', ' ', '/', 'é'] {
            assert_eq!(typed(press(KeyCode::Char(c))), Some(Action::FilterInput(c)));
        }
        assert_eq!(typed(press(KeyCode::Esc)), Some(Action::FilterCancel));
        assert_eq!(typed(press(KeyCode::Enter)), Some(Action::FilterDone));
        assert_eq!(
            typed(press(KeyCode::Backspace)),
            Some(Action::FilterBackspace)
        );
        assert_eq!(
            typed(with(KeyCode::Char('u'), KeyModifiers::CONTROL)),
            Some(Action::FilterClear)
        );
        assert_eq!(
            typed(with(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(typed(press(KeyCode::Down)), Some(Action::ScrollDown));
        assert_eq!(typed(press(KeyCode::PageDown)), Some(Action::PageDown));
        assert_eq!(typed(press(KeyCode::Tab)), Some(Action::NextView));
        assert_eq!(typed(press(KeyCode::F(1))), None);
        assert_eq!(
            typed(with(KeyCode::Char('q'), KeyModifiers::ALT)),
            None,
            "Alt is never text"
        );
    }

    #[test]
    fn mouse_clicks_tabs_and_the_wheel_scrolls() {
        use ratatui::crossterm::event::MouseEvent;
        let at = |kind, column, row| MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        };
        let tab = |c: u16, r: u16| (r == 9 && c >= 40).then_some(View::Devices);
        let left = MouseEventKind::Down(MouseButton::Left);
        assert_eq!(
            mouse_action(at(left, 41, 9), tab),
            Some(Action::Show(View::Devices))
        );
        assert_eq!(mouse_action(at(left, 3, 9), tab), None, "not on a tab");
        assert_eq!(
            mouse_action(at(MouseEventKind::Down(MouseButton::Right), 41, 9), tab),
            None
        );
        assert_eq!(
            mouse_action(at(MouseEventKind::Up(MouseButton::Left), 41, 9), tab),
            None
        );
        assert_eq!(
            mouse_action(at(MouseEventKind::ScrollDown, 0, 0), tab),
            Some(Action::WheelDown)
        );
        assert_eq!(
            mouse_action(at(MouseEventKind::ScrollUp, 0, 0), tab),
            Some(Action::WheelUp)
        );
        assert_eq!(mouse_action(at(MouseEventKind::Moved, 41, 9), tab), None);
    }

    #[test]
    fn only_presses_count() {
        for kind in [KeyEventKind::Release, KeyEventKind::Repeat] {
            let k = KeyEvent::new_with_kind_and_state(
                KeyCode::Char('q'),
                KeyModifiers::NONE,
                kind,
                KeyEventState::NONE,
            );
            assert_eq!(action(k), None, "{kind:?}");
        }
    }

    #[test]
    fn other_modifiers_and_keys_do_nothing() {
        assert_eq!(action(with(KeyCode::Char('q'), KeyModifiers::ALT)), None);
        assert_eq!(
            action(with(KeyCode::Char('x'), KeyModifiers::CONTROL)),
            None
        );
        assert_eq!(action(press(KeyCode::Char('x'))), None);
        assert_eq!(action(press(KeyCode::Insert)), None);
    }
}
