//! The footer: the keys and the views.

use ratatui::text::{Line, Span};

use crate::app::{App, View};
use crate::format as f;
use crate::ui::theme::Theme;
use crate::ui::widgets::{bold, dim, raw};

pub fn footer(app: &App, t: &Theme, width: usize) -> Line<'static> {
    let mut spans = vec![
        bold(t, " q"),
        dim(t, " quit  "),
        bold(t, "?"),
        dim(t, " help  "),
        bold(t, "space"),
        dim(t, if app.paused { " resume  " } else { " pause  " }),
        bold(t, "+/-"),
        dim(t, format!(" {}  ", f::interval(app.interval))),
        bold(t, "[ ]"),
        dim(t, format!(" {}  ", f::span(app.window))),
    ];
    let used: usize = spans.iter().map(Span::width).sum();
    // Every view by number and name where that fits, else the numbers with the current
    // view's name.
    let full: usize = View::ALL.iter().map(|v| v.name().chars().count() + 3).sum();
    let named = |v: View| used + full <= width || v == app.view;
    for (i, v) in View::ALL.iter().enumerate() {
        let label = if named(*v) {
            format!("{} {}", i + 1, v.name())
        } else {
            format!("{}", i + 1)
        };
        if *v == app.view {
            spans.push(Span::styled(label, t.badge()));
        } else {
            spans.push(dim(t, label));
        }
        spans.push(raw(" "));
    }
    Line::from(spans)
}
