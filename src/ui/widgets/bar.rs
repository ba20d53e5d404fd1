//! The stacked bar (the real-memory buckets).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use crate::ui::theme::Theme;

/// Segments of a stacked bar: (cells, glyph, background colour, emphasised).
#[derive(Hash)]
pub struct Segment {
    pub cells: usize,
    pub glyph: char,
    pub bg: Option<Color>,
    pub strong: bool,
}

/// A one-row stacked bar. With colour each segment is its background colour (the emphasised
/// ones also carry their glyph); without colour each cell is the segment's glyph.
pub(crate) fn stacked_bar(buf: &mut Buffer, row: Rect, segs: &[Segment], t: &Theme) {
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
