//! The key map: a pure function from a key event to what it asks for. Only presses count
//! (terminals that report releases and repeats would otherwise act twice).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::View;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// q, Ctrl-C.
    Quit,
    /// Esc: close the help, or quit.
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
}

/// What `key` asks for, if anything.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if key.modifiers.contains(KeyModifiers::ALT) {
        return None;
    }
    let a = match key.code {
        KeyCode::Char('c' | 'C') if ctrl => Action::Quit,
        KeyCode::Char('l' | 'L') if ctrl => Action::Redraw,
        _ if ctrl => return None,
        KeyCode::Char('q' | 'Q') => Action::Quit,
        KeyCode::Esc => Action::Back,
        KeyCode::Char('?' | 'h') | KeyCode::F(1) => Action::ToggleHelp,
        KeyCode::Char(' ' | 'p') => Action::TogglePause,
        KeyCode::Char('+' | '=') => Action::LongerInterval,
        KeyCode::Char('-' | '_') => Action::ShorterInterval,
        KeyCode::Tab => Action::NextView,
        KeyCode::BackTab => Action::PrevView,
        KeyCode::Char('1') => Action::Show(View::Overview),
        KeyCode::Char('2') => Action::Show(View::Graphs),
        KeyCode::Char('3') => Action::Show(View::Devices),
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
        _ => return None,
    };
    Some(a)
}

/// Every key the dashboard knows, as the help overlay lists it: (keys, what they do).
pub const HELP: [(&str, &str); 13] = [
    ("q  Ctrl-C", "quit"),
    ("Esc", "close this help, or quit"),
    ("?  F1  h", "show / hide this help"),
    ("space  p", "pause the display (sampling goes on)"),
    ("+  -", "sample less / more often (0.1 s minimum)"),
    ("Tab  Shift-Tab", "next / previous view"),
    ("1  2  3", "overview / graphs / devices"),
    ("Left  Right", "move focus: swap table, zram table"),
    ("Up  Down  j  k", "scroll the focused table"),
    ("PgUp  PgDn", "scroll a page"),
    ("Home  End  g  G", "top / bottom of the table"),
    ("[  ]", "graphs: shorter / longer time window"),
    ("Ctrl-L", "repaint the screen"),
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

    #[test]
    fn quit_keys() {
        assert_eq!(action_for(press(KeyCode::Char('q'))), Some(Action::Quit));
        assert_eq!(action_for(press(KeyCode::Char('Q'))), Some(Action::Quit));
        assert_eq!(
            action_for(with(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(action_for(press(KeyCode::Esc)), Some(Action::Back));
        // A plain c is not Ctrl-C.
        assert_eq!(action_for(press(KeyCode::Char('c'))), None);
    }

    #[test]
    fn help_pause_interval() {
        assert_eq!(
            action_for(press(KeyCode::Char('?'))),
            Some(Action::ToggleHelp)
        );
        assert_eq!(
            action_for(with(KeyCode::Char('?'), KeyModifiers::SHIFT)),
            Some(Action::ToggleHelp)
        );
        assert_eq!(action_for(press(KeyCode::F(1))), Some(Action::ToggleHelp));
        assert_eq!(
            action_for(press(KeyCode::Char(' '))),
            Some(Action::TogglePause)
        );
        assert_eq!(
            action_for(with(KeyCode::Char('+'), KeyModifiers::SHIFT)),
            Some(Action::LongerInterval)
        );
        assert_eq!(
            action_for(press(KeyCode::Char('='))),
            Some(Action::LongerInterval)
        );
        assert_eq!(
            action_for(press(KeyCode::Char('-'))),
            Some(Action::ShorterInterval)
        );
    }

    #[test]
    fn views_focus_scroll_zoom() {
        assert_eq!(action_for(press(KeyCode::Tab)), Some(Action::NextView));
        assert_eq!(
            action_for(with(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Action::PrevView)
        );
        assert_eq!(
            action_for(press(KeyCode::Char('1'))),
            Some(Action::Show(View::Overview))
        );
        assert_eq!(
            action_for(press(KeyCode::Char('2'))),
            Some(Action::Show(View::Graphs))
        );
        assert_eq!(
            action_for(press(KeyCode::Char('3'))),
            Some(Action::Show(View::Devices))
        );
        assert_eq!(action_for(press(KeyCode::Char('4'))), None);
        assert_eq!(action_for(press(KeyCode::Right)), Some(Action::FocusNext));
        assert_eq!(action_for(press(KeyCode::Left)), Some(Action::FocusPrev));
        assert_eq!(action_for(press(KeyCode::Up)), Some(Action::ScrollUp));
        assert_eq!(action_for(press(KeyCode::Down)), Some(Action::ScrollDown));
        assert_eq!(action_for(press(KeyCode::PageUp)), Some(Action::PageUp));
        assert_eq!(action_for(press(KeyCode::PageDown)), Some(Action::PageDown));
        assert_eq!(action_for(press(KeyCode::Home)), Some(Action::Top));
        assert_eq!(action_for(press(KeyCode::End)), Some(Action::Bottom));
        assert_eq!(action_for(press(KeyCode::Char('['))), Some(Action::ZoomIn));
        assert_eq!(action_for(press(KeyCode::Char(']'))), Some(Action::ZoomOut));
        assert_eq!(
            action_for(with(KeyCode::Char('l'), KeyModifiers::CONTROL)),
            Some(Action::Redraw)
        );
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
            assert_eq!(action_for(k), None, "{kind:?}");
        }
    }

    #[test]
    fn other_modifiers_and_keys_do_nothing() {
        assert_eq!(
            action_for(with(KeyCode::Char('q'), KeyModifiers::ALT)),
            None
        );
        assert_eq!(
            action_for(with(KeyCode::Char('x'), KeyModifiers::CONTROL)),
            None
        );
        assert_eq!(action_for(press(KeyCode::Char('x'))), None);
        assert_eq!(action_for(press(KeyCode::Insert)), None);
    }

    #[test]
    fn help_lists_every_mapped_key() {
        let text: String = HELP.iter().map(|(k, _)| format!("{k} ")).collect();
        for k in [
            "q",
            "Ctrl-C",
            "Esc",
            "?",
            "F1",
            "space",
            "+",
            "-",
            "Tab",
            "Shift-Tab",
            "1",
            "2",
            "3",
            "Left",
            "Right",
        ] {
            assert!(text.contains(k), "help lacks {k}");
        }
        for k in [
            "Up", "Down", "PgUp", "PgDn", "Home", "End", "[", "]", "Ctrl-L", "j", "k", "g", "G",
            "p", "h",
        ] {
            assert!(text.contains(k), "help lacks {k}");
        }
    }
}
