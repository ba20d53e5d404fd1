//! Plain tables: columns that drop out when the width is short, and a sorted column's arrow.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use super::fit;
use crate::ui::theme::Theme;

/// A column of a plain table.
pub struct Col {
    pub title: &'static str,
    /// 0: takes the width left over.
    pub width: u16,
    pub right: bool,
}

impl Col {
    pub(crate) const fn new(title: &'static str, width: u16, right: bool) -> Col {
        Col {
            title,
            width,
            right,
        }
    }
}

/// The columns to keep at `width`: all of them when they fit (the flexible ones at `min_flex`
/// columns at least), else without the ones named last in `drop_order` (indices into `cols`),
/// one at a time until they fit. In display order.
pub(crate) fn fit_columns(
    cols: &[Col],
    drop_order: &[usize],
    min_flex: u16,
    width: u16,
) -> Vec<usize> {
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
pub(crate) fn table(
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
pub(crate) fn sorted_table(
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

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;

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
}
