//! What is unavailable, with the fix for each, as a section of the overview with room to
//! spare (the header names them in short).

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::ui::theme::Theme;
use crate::ui::widgets::{Titled, dim, raw};

pub(crate) struct Unavailable;

impl Section for Unavailable {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        let t = cx.t;
        let lines = lines(&cx.app.shown, t, cx.width);
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

/// One line per unavailable item, with its fix on the same line when it fits the width, else on
/// lines of its own below (a command broken only where the shell reads on: it is copied).
fn lines(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    const FIX: &str = "to get it: ";
    let mut out = Vec::new();
    for m in f::unavailable(s) {
        let what = format!("{}: {}", m.label(), m.reason.text());
        let mut l = vec![Span::styled("  ! ", t.warn()), raw(what.clone())];
        let Some(fix) = m.reason.fix() else {
            out.push(Line::from(l));
            continue;
        };
        let sep = format!(" {} ", t.missing());
        if 4 + what.chars().count() + sep.chars().count() + FIX.len() + fix.chars().count() <= width
        {
            l.push(dim(t, format!("{sep}{FIX}")));
            l.push(raw(fix));
            out.push(Line::from(l));
            continue;
        }
        out.push(Line::from(l));
        for (i, line) in f::wrap_commands(fix, width, 4 + FIX.len(), 4 + FIX.len())
            .into_iter()
            .enumerate()
        {
            let head = if i == 0 { FIX } else { "" };
            out.push(Line::from(vec![
                dim(t, format!("    {head:<w$}", w = FIX.len())),
                raw(line),
            ]));
        }
    }
    out
}
