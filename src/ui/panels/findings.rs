//! The findings section of the overview: one line per diagnostic finding, most severe first,
//! with room to spare. Without the room, the warn and crit findings (two at most) go at the top
//! of the overview instead: one of them is always on it.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::app::View;
use crate::model::Snapshot;
use crate::present;
use crate::ui::theme::Theme;
use crate::ui::widgets::{Titled, bold, dim, raw};

pub(crate) struct Findings;

impl Section for Findings {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        let (s, t) = (&cx.app.shown, cx.t);
        if s.diagnostics.is_empty() {
            return None;
        }
        let lines = lines(s, t);
        let (crit, warn, _) = crate::diagnostics::counts(&s.diagnostics);
        let at_top = lines.iter().take((crit + warn).min(2)).cloned().collect();
        let note = format!("details and fixes: press {}", View::Diagnostics.number());
        Some(Part::Spare {
            block: Titled {
                theme: *t,
                title: Line::from(Span::styled("Findings", t.bold())),
                right: Some(Line::from(dim(t, note))),
                bar: None,
                lines,
                min_lines: 0,
            },
            at_top,
        })
    }
}

/// One line per diagnostic finding, most severe first.
fn lines(s: &Snapshot, t: &Theme) -> Vec<Line<'static>> {
    present::findings::facts(s)
        .into_iter()
        .filter(|f| f.key == "findings.finding")
        .zip(present::findings::sorted(s))
        .map(|(fact, d)| {
            Line::from(vec![
                Span::styled(format!("  {} ", fact.label), t.severity(d.severity)),
                bold(t, format!("{}: ", fact.value)),
                raw(d.summary.clone()),
            ])
        })
        .collect()
}
