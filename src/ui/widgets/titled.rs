//! A titled block of lines: a rule with the title, an optional bar, then lines. The overview's
//! sections are made of them; its layout decides how much of each fits.

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use super::{Segment, put, stacked_bar};
use crate::ui::kept::Panel;
use crate::ui::theme::Theme;

/// A titled block: a rule with the title, an optional bar, then lines.
#[derive(Hash)]
pub struct Titled {
    pub theme: Theme,
    pub title: Line<'static>,
    pub right: Option<Line<'static>>,
    pub bar: Option<Vec<Segment>>,
    pub lines: Vec<Line<'static>>,
    /// The section may be cut to this many lines when space is short.
    pub min_lines: usize,
}

impl Titled {
    pub(crate) fn height(&self) -> u16 {
        (1 + usize::from(self.bar.is_some()) + self.lines.len()) as u16
    }

    /// Cut the lines so the section takes at most `h` rows (never below its minimum).
    pub(crate) fn shrink_to(&mut self, h: u16) {
        let fixed = 1 + usize::from(self.bar.is_some());
        let keep = usize::from(h).saturating_sub(fixed).max(self.min_lines);
        self.lines.truncate(keep);
    }
}

impl Panel for Titled {
    fn draw(&self, buf: &mut Buffer, area: Rect) {
        let t = &self.theme;
        if area.height == 0 {
            return;
        }
        rule(
            buf,
            Rect { height: 1, ..area },
            self.title.clone(),
            self.right.clone(),
            t,
        );
        let mut y = 1;
        if let Some(segs) = &self.bar {
            if y < area.height {
                stacked_bar(
                    buf,
                    Rect {
                        y: area.y + y,
                        height: 1,
                        ..area
                    },
                    segs,
                    t,
                );
            }
            y += 1;
        }
        for l in &self.lines {
            put(buf, area, y, l);
            y += 1;
        }
    }
}

/// A section heading: `── title ─────────── right ─`.
pub(crate) fn rule(
    buf: &mut Buffer,
    row: Rect,
    title: Line<'_>,
    right: Option<Line<'_>>,
    t: &Theme,
) {
    if row.width == 0 || row.height == 0 {
        return;
    }
    let h = t.hline();
    // One cell made, then copied along the row (where the row is blank, as it is when a panel
    // starts: a copy is what drawing it there would give).
    let mut line = Cell::EMPTY;
    line.set_symbol(h).set_style(t.dim());
    let fill = row.intersection(buf.area);
    if !fill.is_empty() {
        let width = usize::from(buf.area.width);
        let start = usize::from(fill.y - buf.area.y) * width + usize::from(fill.x - buf.area.x);
        for cell in &mut buf.content[start..start + usize::from(fill.width)] {
            if *cell == Cell::EMPTY {
                cell.clone_from(&line);
            } else {
                cell.set_symbol(h).set_style(t.dim());
            }
        }
    }
    let mut x = row.x;
    if row.width > 4 {
        x += 2;
        let w = title.width().min(usize::from(row.width - 4)) as u16;
        buf[(x - 1, row.y)].set_symbol(" ").set_style(Style::new());
        super::set_line(buf, x, row.y, &title, w);
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
            super::set_line(buf, rx, row.y, &r, rw);
            buf[(rx + rw, row.y)]
                .set_symbol(" ")
                .set_style(Style::new());
        }
    }
}
