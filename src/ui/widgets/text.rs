//! Text pieces: styled spans, lines placed in the buffer, wrapped rows of items, and a section
//! rule as a line of text.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::ui::theme::Theme;

/// Draw `line` at the start of row `y` of `area`, clipped to its width; a line cut short ends
/// with "…" (trailing blanks cut off are no loss).
pub fn put(buf: &mut Buffer, area: Rect, y: u16, line: &Line<'_>) {
    if y < area.height && area.width > 0 {
        let row = area.y + y;
        buf.set_line(area.x, row, line, area.width);
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        if Span::raw(text.trim_end()).width() > usize::from(area.width)
            && let Some(cell) = buf.cell_mut((area.x + area.width - 1, row))
        {
            cell.set_symbol("…");
        }
    }
}

pub fn dim(t: &Theme, s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), t.dim())
}

pub fn bold(t: &Theme, s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), t.bold())
}

pub fn raw(s: impl Into<String>) -> Span<'static> {
    Span::raw(s.into())
}

pub fn sep(t: &Theme) -> Span<'static> {
    Span::styled(t.sep(), t.dim())
}

/// Join groups of spans with the theme's separator.
pub fn joined(t: &Theme, groups: Vec<Vec<Span<'static>>>) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, g) in groups.into_iter().enumerate() {
        if i > 0 {
            spans.push(sep(t));
        }
        spans.extend(g);
    }
    Line::from(spans)
}

/// Lay items out left to right, `sep` between them, wrapping to new lines at `width`. An item
/// wider than the width gets a line of its own (and is clipped when drawn).
pub fn flow<'a>(
    items: Vec<Vec<Span<'a>>>,
    width: usize,
    sep: &'a str,
    indent: usize,
) -> Vec<Line<'a>> {
    let mut lines: Vec<Line<'a>> = Vec::new();
    let mut cur: Vec<Span<'a>> = Vec::new();
    let mut used = 0usize;
    let sep_w = sep.chars().count();
    for item in items {
        let w: usize = item.iter().map(Span::width).sum();
        if !cur.is_empty() && used + sep_w + w > width {
            lines.push(Line::from(std::mem::take(&mut cur)));
            used = 0;
        }
        if cur.is_empty() {
            if indent > 0 {
                cur.push(Span::raw(" ".repeat(indent)));
                used = indent;
            }
        } else {
            cur.push(Span::raw(sep));
            used += sep_w;
        }
        used += w;
        cur.extend(item);
    }
    if !cur.is_empty() {
        lines.push(Line::from(cur));
    }
    lines
}

/// A section heading as a line of text (for scrolled text): `── title ─────── right ─`.
pub fn rule_line(
    title: Vec<Span<'static>>,
    right: Vec<Span<'static>>,
    width: usize,
    t: &Theme,
) -> Line<'static> {
    let h = t.hline();
    let tw: usize = title.iter().map(Span::width).sum();
    let rw: usize = right.iter().map(Span::width).sum();
    let mut spans = vec![Span::styled(format!("{h} "), t.dim())];
    spans.extend(title);
    let used = 2 + tw + 1 + if rw > 0 { rw + 3 } else { 0 };
    let fill = width.saturating_sub(used).max(1);
    spans.push(Span::styled(format!(" {}", h.repeat(fill)), t.dim()));
    if rw > 0 {
        spans.push(Span::raw(" "));
        spans.extend(right);
        spans.push(Span::styled(format!(" {h}"), t.dim()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_wraps() {
        let items = vec![
            vec![Span::raw("aaaa")],
            vec![Span::raw("bbbb")],
            vec![Span::raw("cc")],
        ];
        let lines = flow(items, 10, " | ", 0);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text.len(), 2);
        assert_eq!(text[0], "aaaa");
        assert_eq!(text[1], "bbbb | cc");
    }

    #[test]
    fn rule_lines_fill_the_width() {
        let t = Theme::new(false, false);
        let l = rule_line(vec![Span::raw("Title")], vec![Span::raw("right")], 30, &t);
        assert_eq!(l.width(), 30);
        assert_eq!(l.to_string(), "─ Title ────────────── right ─");
    }
}
