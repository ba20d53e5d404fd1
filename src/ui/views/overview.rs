//! The overview: everything at a glance, as a list of sections (`ui::panels`), one file each,
//! laid out top to bottom in the list's order: the real-memory bar, the zswap panel with its
//! counters, the graphs, the swap split, the zram devices, the processes and the cgroups (where
//! they were read); the swap-in latency, the findings and what is unavailable where there is
//! room to spare.
//!
//! How the rows are shared ([`stack`]): every text section gets its lines; the graphs (the
//! fill) get what is left, while that is enough for one graph. Sections shown only with room to
//! spare take rows from the graphs while two rows of graphs remain; a finding that must be seen
//! goes at the top instead. With no room for a graph, the zswap section shows the traffic
//! figures as text, and when even the text does not fit the sections give way in turn (the
//! device lines first, the legend last), each down to its minimum.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::Tab;
use crate::app::App;
use crate::ui::kept::Kept;
use crate::ui::panels::{
    CGROUPS, Cx, Findings, Graphs, Latency, Memory, PROCESSES, Part, Section, Swap, Unavailable, Zram, Zswap,
};
use crate::ui::theme::Theme;
use crate::ui::widgets::{Lines, Titled};

/// The sections, top to bottom.
const SECTIONS: &[&dyn Section] = &[
    &Memory,
    &Zswap,
    &Graphs,
    &Swap,
    &Zram,
    &PROCESSES,
    &CGROUPS,
    &Findings,
    &Latency,
    &Unavailable,
];

pub struct Overview;

impl crate::app::Kind for Overview {}

impl Tab for Overview {
    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, kept: &mut Kept) {
        let cx = Cx {
            app,
            t,
            width: usize::from(body.width),
        };
        let parts = SECTIONS.iter().filter_map(|s| s.describe(&cx)).collect();
        let mut y = body.y;
        let end = body.y + body.height;
        for (rows, placed) in stack(parts, body.height, &cx) {
            let rows = rows.min(end - y);
            if rows == 0 {
                continue;
            }
            let area = Rect {
                y,
                height: rows,
                ..body
            };
            match placed {
                Placed::Top(lines) => kept.region(buf, area, &Lines(&lines)),
                Placed::Block(block) => kept.region(buf, area, &block),
                Placed::Fill(draw) => draw(buf, area, &cx, kept),
            }
            y += rows;
        }
    }
}

/// What goes in a stretch of rows.
enum Placed {
    /// The lines spare sections put at the top when they have no room of their own.
    Top(Vec<Line<'static>>),
    Block(Titled),
    Fill(fn(&mut Buffer, Rect, &Cx, &mut Kept)),
}

/// Share `rows` among the parts, top to bottom (see the module's doc): the rows each gets, in
/// the order drawn. Their sum may pass `rows` when the sections' minimums do; what passes is
/// cut from the last.
fn stack(mut parts: Vec<Part>, rows: u16, cx: &Cx) -> Vec<(u16, Placed)> {
    let text = |parts: &[Part]| -> u16 {
        parts
            .iter()
            .map(|p| match p {
                Part::Text { block, .. } => block.height(),
                _ => 0,
            })
            .sum()
    };
    let room = rows.saturating_sub(text(&parts));
    let (min, keep) = parts
        .iter()
        .find_map(|p| match p {
            Part::Fill { min, keep, .. } => Some((*min, *keep)),
            _ => None,
        })
        .unwrap_or_default();
    // The spare sections, in order, while the fill keeps its rows; the others' lines that must
    // be seen go at the top.
    let mut top = Vec::new();
    let mut left = room;
    let mut shown = vec![false; parts.len()];
    for (i, p) in parts.iter_mut().enumerate() {
        if let Part::Spare { block, at_top } = p {
            // Whole, or its first lines (the most urgent: they come first) where the rows free
            // hold its title and at least as many lines as it would put at the top.
            let free = left.saturating_sub(keep);
            let part = 1 + u16::try_from(at_top.len().max(1)).unwrap_or(u16::MAX);
            if free < block.height() && free >= part {
                block.shrink_to(free);
            }
            if left >= keep + block.height() {
                left -= block.height();
                shown[i] = true;
            } else {
                top.extend(at_top.iter().cloned());
                left = left.saturating_sub(at_top.len() as u16);
            }
        }
    }
    let mut top_h = top.len() as u16;
    let fill = if room.saturating_sub(top_h) >= min {
        left
    } else {
        // No fill: its figures go in the text that stands in for it, then the text gives way.
        for p in &mut parts {
            if let Part::Text {
                block,
                without_fill: Some(lines),
                ..
            } = p
            {
                let at = block.min_lines.min(block.lines.len());
                let extra = lines(cx);
                block.min_lines += extra.len();
                block.lines.splice(at..at, extra);
            }
        }
        let mut over = (text(&parts) + top_h).saturating_sub(rows);
        let mut order: Vec<&mut Part> = parts.iter_mut().collect();
        order.sort_by_key(|p| match p {
            Part::Text { gives_way, .. } => *gives_way,
            _ => u8::MAX,
        });
        for p in order {
            if let Part::Text { block, .. } = p {
                let before = block.height();
                block.shrink_to(before.saturating_sub(over));
                over -= before - block.height();
            }
        }
        // The rows the fill would have had are free: the spare sections not shown take them,
        // whole or their first lines, their lines at the top going back into them.
        let mut free = rows.saturating_sub(text(&parts) + top_h);
        for (i, p) in parts.iter_mut().enumerate() {
            if let Part::Spare { block, at_top } = p
                && !shown[i]
            {
                let room = free + at_top.len() as u16;
                let part = 1 + u16::try_from(at_top.len().max(1)).unwrap_or(u16::MAX);
                if room >= part {
                    block.shrink_to(room);
                    if block.height() <= room {
                        free = room - block.height();
                        shown[i] = true;
                    }
                }
            }
        }
        top = parts
            .iter()
            .zip(&shown)
            .filter_map(|(p, &shown)| match p {
                Part::Spare { at_top, .. } if !shown => Some(at_top.iter().cloned()),
                _ => None,
            })
            .flatten()
            .collect();
        top_h = top.len() as u16;
        0
    };
    let mut out = Vec::with_capacity(parts.len() + 1);
    if top_h > 0 {
        out.push((top_h, Placed::Top(top)));
    }
    for (p, shown) in parts.into_iter().zip(shown) {
        match p {
            Part::Text { block, .. } => out.push((block.height(), Placed::Block(block))),
            Part::Fill { draw, .. } if fill > 0 => out.push((fill, Placed::Fill(draw))),
            Part::Spare { block, .. } if shown => out.push((block.height(), Placed::Block(block))),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;

    fn block(title: &'static str, lines: usize, min_lines: usize) -> Titled {
        Titled {
            theme: Theme::new(false, false),
            title: Line::from(title),
            right: None,
            bar: None,
            lines: (0..lines)
                .map(|i| Line::from(format!("{title}{i}")))
                .collect(),
            min_lines,
        }
    }

    fn nothing(_: &mut Buffer, _: Rect, _: &Cx, _: &mut Kept) {}

    /// Two text blocks around the fill, two spare blocks: (what, rows) as stacked in `rows`.
    fn stacked(rows: u16, cx: &Cx) -> Vec<(String, u16)> {
        let parts = vec![
            Part::Text {
                block: block("a", 4, 2),
                gives_way: 1,
                without_fill: Some(|_| vec![Line::from("instead"), Line::from("of fill")]),
            },
            Part::Fill {
                min: 5,
                keep: 10,
                draw: nothing,
            },
            Part::Text {
                block: block("b", 3, 1),
                gives_way: 0,
                without_fill: None,
            },
            Part::Spare {
                block: block("spare", 2, 0),
                at_top: vec![Line::from("urgent")],
            },
            Part::Spare {
                block: block("more", 1, 0),
                at_top: Vec::new(),
            },
        ];
        stack(parts, rows, cx)
            .into_iter()
            .map(|(h, p)| {
                let what = match p {
                    Placed::Top(l) => format!("top {}", l.len()),
                    Placed::Block(b) => format!("{} {}", b.title, b.lines.len()),
                    Placed::Fill(_) => "fill".to_string(),
                };
                (what, h)
            })
            .collect()
    }

    #[test]
    fn rows_go_to_the_text_then_the_fill_then_what_is_spare() {
        let app = App::new(
            crate::app::test_settings(&[]),
            crate::sources::collect(&Root::at("tests/fixtures/linux-6.18-idle")),
        );
        let t = Theme::new(false, false);
        let cx = Cx {
            app: &app,
            t: &t,
            width: 80,
        };
        let s = |v: &[(&str, u16)]| -> Vec<(String, u16)> {
            v.iter().map(|(w, h)| (w.to_string(), *h)).collect()
        };
        // Room for all: the spare blocks take rows from the fill while it keeps 10.
        let all = [
            ("a 4", 5),
            ("fill", 26),
            ("b 3", 4),
            ("spare 2", 3),
            ("more 1", 2),
        ];
        assert_eq!(stacked(40, &cx), s(&all));
        let one = [("a 4", 5), ("fill", 10), ("b 3", 4), ("spare 2", 3)];
        assert_eq!(stacked(22, &cx), s(&one));
        // No room to spare: the line that must be seen goes at the top.
        let top = [("top 1", 1), ("a 4", 5), ("fill", 10), ("b 3", 4)];
        assert_eq!(stacked(20, &cx), s(&top));
        // No room for the fill: its stand-in lines join the first block's minimum...
        let no_fill = [("top 1", 1), ("a 6", 7), ("b 3", 4)];
        assert_eq!(stacked(12, &cx), s(&no_fill));
        // ...and the blocks give way in turn, each down to its minimum.
        assert_eq!(stacked(9, &cx), s(&[("top 1", 1), ("a 5", 6), ("b 1", 2)]));
        assert_eq!(stacked(5, &cx), s(&[("top 1", 1), ("a 4", 5), ("b 1", 2)]));
    }
}
