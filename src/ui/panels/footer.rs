//! The footer: the keys and the views.

use ratatui::text::{Line, Span};

use crate::app::{App, View};
use crate::display as f;
use crate::ui::theme::Theme;
use crate::ui::widgets::{bold, dim, raw};

pub(crate) fn footer(app: &App, t: &Theme, width: usize) -> Line<'static> {
    if let Some(c) = &app.replay {
        if let Some(text) = &c.goto {
            return Line::from(vec![
                bold(t, " go to (12:34, -10m, RFC 3339; Enter, Esc): "),
                raw(format!("{text}_")),
            ]);
        }
        if let Some(m) = &c.message {
            return Line::from(Span::styled(format!(" {m}"), t.warn()));
        }
    }
    let mut spans = match &app.replay {
        Some(c) => vec![
            bold(t, " q"),
            dim(t, " quit  "),
            bold(t, "?"),
            dim(t, " help  "),
            bold(t, "space"),
            dim(t, if c.playing { " pause  " } else { " play  " }),
            bold(t, "+/-"),
            dim(t, format!(" x{}  ", c.speed())),
            bold(t, ", ."),
            dim(t, " step  "),
            bold(t, "b f B F"),
            dim(t, " 1/10 min  "),
            bold(t, "g"),
            dim(t, " go to  "),
        ],
        None => live_keys(app, t),
    };
    views(app, t, width, &mut spans);
    Line::from(spans)
}

fn live_keys(app: &App, t: &Theme) -> Vec<Span<'static>> {
    vec![
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
    ]
}

/// The views, after the keys.
fn views(app: &App, t: &Theme, width: usize, spans: &mut Vec<Span<'static>>) {
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
}
