//! Text pieces: styled spans, lines placed in the buffer, wrapped rows of items, and a section
//! rule as a line of text.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};

use crate::ui::kept::Panel;
use crate::ui::theme::Theme;

/// Lines of text, one a row from the top of the area (those below it are left out).
#[derive(Hash)]
pub struct Lines<'a>(pub &'a [Line<'static>]);

impl Panel for Lines<'_> {
    fn draw(&self, buf: &mut Buffer, area: Rect) {
        for (y, l) in (0..area.height).zip(self.0) {
            put(buf, area, y, l);
        }
    }
}

/// Draw `line` at the start of row `y` of `area`, clipped to its width; a line cut short ends
/// with "…" (trailing blanks cut off are no loss).
pub(crate) fn put(buf: &mut Buffer, area: Rect, y: u16, line: &Line<'_>) {
    if y < area.height && area.width > 0 {
        let row = area.y + y;
        set_line(buf, area.x, row, line, area.width);
        if cut_short(line, usize::from(area.width))
            && let Some(cell) = buf.cell_mut((area.x + area.width - 1, row))
        {
            cell.set_symbol("…");
        }
    }
}

/// Whether `line`, its trailing blanks aside, is wider than `width`. The spans' widths add up
/// to the line's unless a span begins with a character that joins the one before (a variation
/// selector, a joiner, a combining mark: never ASCII), so a line within the width by that sum
/// is measured no further.
fn cut_short(line: &Line<'_>, width: usize) -> bool {
    let additive = line
        .spans
        .iter()
        .skip(1)
        .all(|s| s.content.bytes().next().is_none_or(|b| b.is_ascii()));
    if additive && line.width() <= width {
        return false;
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    Span::raw(text.trim_end()).width() > width
}

/// [`Buffer::set_line`], cell for cell, but a span of printable ASCII is written a byte to a
/// cell (each such byte is a grapheme one cell wide) rather than through grapheme
/// segmentation and width lookups; any other span goes to [`Buffer::set_stringn`] as there.
pub(crate) fn set_line(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    line: &Line<'_>,
    max_width: u16,
) -> (u16, u16) {
    let mut remaining_width = max_width;
    let mut x = x;
    for span in line {
        if remaining_width == 0 {
            break;
        }
        let style = line.style.patch(span.style);
        let text = span.content.as_ref();
        let end = if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            let room = buf.area.right().saturating_sub(x).min(remaining_width);
            let n = u16::try_from(text.len()).unwrap_or(u16::MAX).min(room);
            let area = buf.area;
            if area.contains(Position::new(x, y)) {
                let start =
                    usize::from(y - area.y) * usize::from(area.width) + usize::from(x - area.x);
                let cells = buf.content.iter_mut().skip(start).take(usize::from(n));
                for (cell, b) in cells.zip(text.bytes()) {
                    cell.set_char(char::from(b)).set_style(style);
                }
            }
            x + n
        } else {
            buf.set_stringn(x, y, text, usize::from(remaining_width), style)
                .0
        };
        remaining_width = remaining_width.saturating_sub(end.saturating_sub(x));
        x = end;
    }
    (x, y)
}

pub(crate) fn dim(t: &Theme, s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), t.dim())
}

pub(crate) fn bold(t: &Theme, s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), t.bold())
}

pub(crate) fn raw(s: impl Into<String>) -> Span<'static> {
    Span::raw(s.into())
}

pub(crate) fn sep(t: &Theme) -> Span<'static> {
    Span::styled(t.sep(), t.dim())
}

/// Join groups of spans with the theme's separator.
pub(crate) fn joined(t: &Theme, groups: Vec<Vec<Span<'static>>>) -> Line<'static> {
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
pub(crate) fn flow<'a>(
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
pub(crate) fn rule_line(
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
    use proptest::prelude::*;
    use ratatui::style::{Color, Modifier, Style};

    fn style_of(n: u8) -> Style {
        match n % 4 {
            0 => Style::new(),
            1 => Style::new().fg(Color::Red),
            2 => Style::new().bg(Color::Blue).add_modifier(Modifier::BOLD),
            _ => Style::new()
                .fg(Color::Green)
                .remove_modifier(Modifier::BOLD),
        }
    }

    /// Spans of printable ASCII, and of what is not: box drawing, combining marks, wide
    /// characters, joiners and selectors (also at a span's start), tabs, DEL and ESC.
    fn line() -> impl Strategy<Value = Line<'static>> {
        let piece = proptest::sample::select(vec![
            "a",
            "Zz 9",
            " ",
            "  ",
            "~!",
            "─",
            "…",
            "é",
            "e\u{301}",
            "\u{301}",
            "中文",
            "\u{fe0f}",
            "\u{200d}",
            "\t",
            "x\u{7f}",
            "\u{1b}[1m",
            "👩\u{200d}🔬",
            "#",
            "☺",
        ]);
        let span = (proptest::collection::vec(piece, 0..4), any::<u8>())
            .prop_map(|(parts, st)| Span::styled(parts.concat(), style_of(st)));
        (proptest::collection::vec(span, 0..6), any::<u8>())
            .prop_map(|(spans, st)| Line::from(spans).style(style_of(st)))
    }

    proptest! {
        /// Cell for cell what ratatui's own `set_line` writes, and where it stops.
        #[test]
        fn set_line_writes_what_ratatui_does(
            line in line(),
            x in 2u16..26,
            y in 1u16..3,
            max in 0u16..40,
        ) {
            let mut theirs = Buffer::empty(Rect::new(2, 1, 20, 2));
            let mut ours = theirs.clone();
            let end = theirs.set_line(x, y, &line, max);
            prop_assert_eq!(set_line(&mut ours, x, y, &line, max), end);
            prop_assert_eq!(ours, theirs);
        }

        /// `put` marks a line cut short exactly as measuring the whole text does.
        #[test]
        fn put_marks_what_is_cut_short(line in line(), width in 1u16..24) {
            let area = Rect::new(1, 0, width, 1);
            let mut ours = Buffer::empty(Rect::new(0, 0, 26, 1));
            let mut theirs = ours.clone();
            put(&mut ours, area, 0, &line);
            theirs.set_line(area.x, 0, &line, area.width);
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            if Span::raw(text.trim_end()).width() > usize::from(width) {
                theirs[(area.x + width - 1, 0)].set_symbol("…");
            }
            prop_assert_eq!(ours, theirs);
        }
    }

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
