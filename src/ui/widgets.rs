//! Small drawing helpers that write straight into the buffer: section rules, wrapped rows of
//! items, the stacked bar, the gauge, plain tables, and the ASCII pass.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::theme::Theme;

/// Draw `line` at the start of row `y` of `area`, clipped to its width.
pub fn put(buf: &mut Buffer, area: Rect, y: u16, line: &Line<'_>) {
    if y < area.height && area.width > 0 {
        buf.set_line(area.x, area.y + y, line, area.width);
    }
}

/// A section heading: `── title ─────────── right ─`.
pub fn rule(buf: &mut Buffer, row: Rect, title: Line<'_>, right: Option<Line<'_>>, t: &Theme) {
    if row.width == 0 || row.height == 0 {
        return;
    }
    let h = t.hline();
    for x in row.x..row.x + row.width {
        buf[(x, row.y)].set_symbol(h).set_style(t.dim());
    }
    let mut x = row.x;
    if row.width > 4 {
        x += 2;
        let w = title.width().min(usize::from(row.width - 4)) as u16;
        buf[(x - 1, row.y)].set_symbol(" ").set_style(Style::new());
        buf.set_line(x, row.y, &title, w);
        if x + w < row.x + row.width {
            buf[(x + w, row.y)].set_symbol(" ").set_style(Style::new());
        }
        x += w + 1;
    }
    if let Some(r) = right {
        let rw = r.width() as u16;
        let end = row.x + row.width;
        if end >= x + rw + 3 {
            let rx = end - rw - 2;
            buf[(rx - 1, row.y)].set_symbol(" ").set_style(Style::new());
            buf.set_line(rx, row.y, &r, rw);
            buf[(rx + rw, row.y)]
                .set_symbol(" ")
                .set_style(Style::new());
        }
    }
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

/// `s` cut to `max` columns, with `…` (or `~` in ASCII) in the middle so both ends stay.
pub fn fit(s: &str, max: usize, ascii: bool) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if max < 4 {
        return s.chars().take(max).collect();
    }
    let keep = max - 1;
    let head = keep / 2;
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push(if ascii { '~' } else { '…' });
    out.extend(s.chars().skip(n - tail));
    out
}

/// Segments of a stacked bar: (cells, glyph, background colour, emphasised).
pub struct Segment {
    pub cells: usize,
    pub glyph: char,
    pub bg: Option<Color>,
    pub strong: bool,
}

/// A one-row stacked bar. With colour each segment is its background colour (the emphasised
/// ones also carry their glyph); without colour each cell is the segment's glyph.
pub fn stacked_bar(buf: &mut Buffer, row: Rect, segs: &[Segment], t: &Theme) {
    let mut x = row.x;
    let end = row.x + row.width;
    for s in segs {
        for _ in 0..s.cells {
            if x >= end {
                return;
            }
            let cell = &mut buf[(x, row.y)];
            match s.bg {
                Some(bg) => {
                    let glyph = if s.strong { s.glyph } else { ' ' };
                    cell.set_char(glyph).set_style(
                        Style::new()
                            .bg(bg)
                            .fg(Color::Black)
                            .add_modifier(Modifier::BOLD),
                    );
                }
                None => {
                    let style = if s.strong { t.badge() } else { t.plain() };
                    cell.set_char(s.glyph).set_style(style);
                }
            }
            x += 1;
        }
    }
}

/// A gauge of `width` cells filled to `pct` with a mark at `mark_pct`.
pub fn gauge(
    pct: Option<f64>,
    mark_pct: Option<u64>,
    width: usize,
    t: &Theme,
    fill: Style,
) -> Vec<Span<'static>> {
    let filled = pct
        .filter(|p| p.is_finite())
        .map(|p| ((p.clamp(0.0, 100.0) / 100.0) * width as f64).round() as usize)
        .unwrap_or(0);
    let mark = mark_pct.map(|m| (((m.min(100) as f64) / 100.0) * width as f64).round() as usize);
    let mark = mark.map(|m| m.min(width.saturating_sub(1)));
    let (full, empty, bar) = if t.ascii {
        ("#", ".", "|")
    } else {
        ("█", "░", "│")
    };
    let mut spans = Vec::with_capacity(5);
    if t.ascii {
        spans.push(Span::raw("["));
    }
    let mut run = String::new();
    let mut run_style = fill;
    for i in 0..width {
        let (sym, style) = if Some(i) == mark {
            (bar, t.bold())
        } else if i < filled {
            (full, fill)
        } else {
            (empty, t.dim())
        };
        if style != run_style && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), run_style));
        }
        run_style = style;
        run.push_str(sym);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, run_style));
    }
    if t.ascii {
        spans.push(Span::raw("]"));
    }
    spans
}

/// A column of a plain table.
pub struct Col {
    pub title: &'static str,
    /// 0: takes the width left over.
    pub width: u16,
    pub right: bool,
}

/// The columns to keep at `width`: all of them when they fit (the flexible ones at `min_flex`
/// columns at least), else without the ones named last in `drop_order` (indices into `cols`),
/// one at a time until they fit. In display order.
pub fn fit_columns(cols: &[Col], drop_order: &[usize], min_flex: u16, width: u16) -> Vec<usize> {
    let mut keep: Vec<usize> = (0..cols.len()).collect();
    let need = |keep: &[usize]| -> u16 {
        let w: u16 = keep
            .iter()
            .map(|&i| match cols[i].width {
                0 => min_flex,
                w => w,
            })
            .sum();
        w + keep.len().saturating_sub(1) as u16
    };
    let mut drops = drop_order.iter().rev();
    while need(&keep) > width {
        let Some(d) = drops.next() else { break };
        keep.retain(|i| i != d);
    }
    keep
}

/// A table: a header row, then `rows` starting at `offset`. Returns how many rows fit.
pub fn table(
    buf: &mut Buffer,
    area: Rect,
    cols: &[Col],
    rows: &[Vec<String>],
    offset: usize,
    t: &Theme,
) -> usize {
    sorted_table(buf, area, cols, rows, offset, None, t)
}

/// A table whose column `sorted.0` is the sort key, largest first when `sorted.1`: its title
/// carries an arrow and stands out.
pub fn sorted_table(
    buf: &mut Buffer,
    area: Rect,
    cols: &[Col],
    rows: &[Vec<String>],
    offset: usize,
    sorted: Option<(usize, bool)>,
    t: &Theme,
) -> usize {
    if area.height == 0 || area.width == 0 {
        return 0;
    }
    let fixed: u16 =
        cols.iter().map(|c| c.width).sum::<u16>() + cols.len().saturating_sub(1) as u16;
    let flexible = cols.iter().filter(|c| c.width == 0).count().max(1) as u16;
    let flex = (area.width.saturating_sub(fixed) / flexible).max(4);
    let widths: Vec<u16> = cols
        .iter()
        .map(|c| if c.width == 0 { flex } else { c.width })
        .collect();
    let draw_row =
        |buf: &mut Buffer, y: u16, cells: &mut dyn Iterator<Item = &str>, style: Style| {
            let mut x = area.x;
            for (i, cell) in cells.enumerate() {
                let (Some(&w), Some(c)) = (widths.get(i), cols.get(i)) else {
                    break;
                };
                if x >= area.x + area.width {
                    break;
                }
                let s = fit(cell, usize::from(w), t.ascii);
                let sw = s.chars().count() as u16;
                let cx = if c.right { x + w.saturating_sub(sw) } else { x };
                let room = (area.x + area.width).saturating_sub(cx);
                buf.set_stringn(cx, y, &s, usize::from(room), style);
                x += w + 1;
            }
        };
    draw_row(
        buf,
        area.y,
        &mut cols.iter().map(|c| c.title),
        t.dim().add_modifier(Modifier::UNDERLINED),
    );
    if let Some((i, desc)) = sorted
        && let (Some(c), Some(&w)) = (cols.get(i), widths.get(i))
    {
        let x = area.x + widths[..i].iter().map(|w| w + 1).sum::<u16>();
        if x < area.x + area.width {
            let title = format!("{}{}", c.title, t.arrow(desc));
            let s = fit(&title, usize::from(w), t.ascii);
            let sw = s.chars().count() as u16;
            let cx = if c.right { x + w.saturating_sub(sw) } else { x };
            let room = (area.x + area.width).saturating_sub(x);
            buf.set_stringn(
                x,
                area.y,
                " ".repeat(usize::from(w)),
                usize::from(room),
                t.plain(),
            );
            let room = (area.x + area.width).saturating_sub(cx);
            buf.set_stringn(
                cx,
                area.y,
                &s,
                usize::from(room),
                t.bold().add_modifier(Modifier::UNDERLINED),
            );
        }
    }
    let visible = usize::from(area.height - 1);
    for (i, r) in rows.iter().skip(offset).take(visible).enumerate() {
        draw_row(
            buf,
            area.y + 1 + i as u16,
            &mut r.iter().map(String::as_str),
            t.plain(),
        );
    }
    visible.min(rows.len().saturating_sub(offset))
}

/// Replace every symbol outside 7-bit ASCII with a stand-in: the guarantee behind `--ascii`
/// and non-UTF-8 locales, whatever a widget or a kernel string put there.
pub fn ascii_only(buf: &mut Buffer, area: Rect) {
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            let cell = &mut buf[(x, y)];
            let sym = cell.symbol();
            if sym.is_ascii() {
                continue;
            }
            let c = sym.chars().next().unwrap_or(' ');
            let r = match c {
                '─' | '━' | '—' | '–' => '-',
                '│' | '┃' => '|',
                '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' => '+',
                '…' => '~',
                '·' | '•' => '.',
                '█' | '▇' | '▆' | '▅' | '▄' | '▃' | '▂' | '▁' => '#',
                '░' | '▒' | '▓' => '.',
                '×' => 'x',
                '↓' => 'v',
                '↑' => '^',
                '÷' => '/',
                '≤' => '<',
                '≥' => '>',
                '\u{2800}'..='\u{28ff}' => '*',
                _ => '?',
            };
            cell.set_char(r);
        }
    }
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
    fn fit_keeps_both_ends() {
        assert_eq!(
            fit("/very/long/path/to/swapfile", 12, false),
            "/very…apfile"
        );
        assert_eq!(fit("/very/long/path/to/swapfile", 12, true), "/very~apfile");
        assert_eq!(fit("short", 12, false), "short");
        assert_eq!(fit("abcdef", 2, false), "ab");
    }

    #[test]
    fn gauge_marks_the_threshold() {
        let t = Theme::new(false, true);
        let s: String = gauge(Some(50.0), Some(90), 10, &t, t.bold())
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert_eq!(s, "[#####....|]");
        let s: String = gauge(None, None, 4, &t, t.bold())
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert_eq!(s, "[....]");
    }

    fn cols(ws: &[u16]) -> Vec<Col> {
        ws.iter()
            .map(|&width| Col {
                title: "x",
                width,
                right: false,
            })
            .collect()
    }

    #[test]
    fn columns_drop_in_order_until_they_fit() {
        let c = cols(&[0, 10, 10, 10]);
        assert_eq!(fit_columns(&c, &[0, 1, 2, 3], 10, 43), [0, 1, 2, 3]);
        assert_eq!(fit_columns(&c, &[0, 1, 2, 3], 10, 42), [0, 1, 2]);
        assert_eq!(fit_columns(&c, &[0, 3, 1, 2], 10, 21), [0, 3]);
        // Nothing more to drop: what is left, even if it does not fit.
        assert_eq!(fit_columns(&c, &[1], 10, 5), [0, 2, 3]);
    }

    #[test]
    fn the_sorted_column_has_an_arrow() {
        let area = Rect::new(0, 0, 20, 3);
        let mut buf = Buffer::empty(area);
        let c = vec![
            Col {
                title: "pid",
                width: 5,
                right: true,
            },
            Col {
                title: "name",
                width: 0,
                right: false,
            },
        ];
        let rows = vec![vec!["1".to_string(), "init".to_string()]];
        let t = Theme::new(false, true);
        sorted_table(&mut buf, area, &c, &rows, 0, Some((0, true)), &t);
        let head: String = (0..20).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert_eq!(head, " pidv name          ");
    }

    #[test]
    fn rule_lines_fill_the_width() {
        let t = Theme::new(false, false);
        let l = rule_line(vec![Span::raw("Title")], vec![Span::raw("right")], 30, &t);
        assert_eq!(l.width(), 30);
        assert_eq!(l.to_string(), "─ Title ────────────── right ─");
    }

    #[test]
    fn ascii_pass_leaves_only_ascii() {
        let area = Rect::new(0, 0, 6, 1);
        let mut buf = Buffer::empty(area);
        buf.set_string(0, 0, "─│…⣿é", Style::new());
        ascii_only(&mut buf, area);
        let s: String = (0..6).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert_eq!(s, "-|~*? ");
    }
}
