//! The frame of a list view (the processes, the cgroups): a rule with the totals, a status line
//! (sort, filter or the prompt), the table, and a note at the bottom saying what the figures
//! are. The rows come in the order the app keeps (`app::lists`), and only the visible ones are
//! formatted.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{bold, dim, put};
use crate::app::{App, Laid};
use crate::display as f;
use crate::ui::theme::Theme;

/// The narrowest the name columns get before other columns make way.
pub const MIN_NAME: u16 = 16;

/// What a list shows while paused before its first reading.
pub const PAUSED: &str = "paused: resume (space) to read them";

/// The note's lines at this width (at most two).
pub(crate) fn note_lines(note: &str, width: usize, ascii: bool) -> Vec<String> {
    let text = if ascii {
        note.replace('×', "x").replace('÷', "/")
    } else {
        note.to_string()
    };
    let mut l = f::wrap(&text, width, 0, 0);
    l.truncate(2);
    l
}

/// The parts of a list view: rule, status line, table (header + rows), note.
pub struct Parts {
    pub rule: Rect,
    pub status: Rect,
    pub table: Rect,
    pub note: Rect,
}

/// The parts of a list view in `area`, with `note` rows of note.
pub(crate) fn parts(area: Rect, note: u16) -> Parts {
    let row = |y: u16, h: u16| Rect {
        y: area.y + y.min(area.height),
        height: h.min(area.height.saturating_sub(y)),
        ..area
    };
    let table_h = area.height.saturating_sub(2 + note);
    Parts {
        rule: row(0, 1),
        status: row(1, 1),
        table: row(2, table_h),
        note: row(2 + table_h, note),
    }
}

/// How far a list of `rows` scrolls in `body` with `note` rows of note (until its last row is
/// at the bottom), and a page: the rows shown less one.
pub(crate) fn laid(rows: usize, body: Rect, note: usize) -> Laid {
    let visible = usize::from(parts(body, note as u16).table.height.saturating_sub(1));
    Laid {
        max: rows.saturating_sub(visible),
        page: visible.saturating_sub(1).max(1),
    }
}

/// `sort swap↓ · / filter`, the filter, or the open prompt; then `extra` and the sort keys
/// where they fit in `width`.
pub(crate) fn status(
    app: &App,
    t: &Theme,
    sort: (&str, bool),
    shown: usize,
    total: usize,
    extra: Option<String>,
    width: usize,
) -> Line<'static> {
    let mut l = vec![
        dim(t, "sort "),
        bold(t, format!("{}{}", sort.0, t.arrow(sort.1))),
        Span::styled(t.sep(), t.dim()),
    ];
    let filter = app.filter().unwrap_or("");
    if app.prompt {
        l.push(dim(t, "filter: "));
        l.push(Span::styled(format!("{filter}{}", t.cursor()), t.badge()));
        l.push(dim(t, " Enter keeps it, Esc clears"));
        return Line::from(l);
    }
    if filter.is_empty() {
        l.push(dim(t, "/ filter"));
    } else {
        l.push(dim(t, "filter "));
        l.push(Span::styled(format!("\"{filter}\""), t.warn()));
        l.push(dim(t, format!(": {shown} of {total} · Esc clears")));
    }
    for part in [extra, Some("s < > column · r reverse".to_string())]
        .into_iter()
        .flatten()
    {
        let used: usize = l.iter().map(Span::width).sum();
        if used + t.sep().chars().count() + part.chars().count() <= width {
            l.push(Span::styled(t.sep(), t.dim()));
            l.push(dim(t, part));
        }
    }
    Line::from(l)
}

/// A message where the table would be.
pub(crate) fn message(buf: &mut Buffer, area: Rect, t: &Theme, text: &str) {
    for (i, l) in f::wrap(text, usize::from(area.width), 0, 0)
        .into_iter()
        .enumerate()
    {
        put(buf, area, i as u16, &Line::from(dim(t, l)));
    }
}

/// The note's lines at the bottom of the list.
pub(crate) fn draw_note(buf: &mut Buffer, p: &Parts, lines: Vec<String>, t: &Theme) {
    for (i, l) in lines.into_iter().enumerate() {
        put(buf, p.note, i as u16, &Line::from(dim(t, l)));
    }
}
