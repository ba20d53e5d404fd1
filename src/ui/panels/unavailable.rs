//! What is unavailable, with the fix for each, as a section of the overview with room to
//! spare (the header names them in short).

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::ui::theme::Theme;
use crate::ui::widgets::{Titled, dim, raw};

pub struct Unavailable;

impl Section for Unavailable {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        let t = cx.t;
        let lines = lines(&cx.app.shown, t);
        if lines.is_empty() {
            return None;
        }
        Some(Part::Spare {
            block: Titled {
                theme: *t,
                title: Line::from(Span::styled("Unavailable", t.warn())),
                right: None,
                bar: None,
                lines,
                min_lines: 0,
            },
            at_top: Vec::new(),
        })
    }
}

/// One line per unavailable item, with its fix.
fn lines(s: &Snapshot, t: &Theme) -> Vec<Line<'static>> {
    f::unavailable(s)
        .iter()
        .map(|m| {
            let mut l = vec![
                Span::styled("  ! ", t.warn()),
                raw(format!("{}: {}", m.label(), m.reason.text())),
            ];
            if let Some(fix) = m.reason.fix() {
                l.push(dim(t, " — to get it: "));
                l.push(raw(fix));
            }
            Line::from(l)
        })
        .collect()
}
