//! The overview's graphs: the rows the text sections leave, when there are at least enough for
//! one graph. By priority: swap traffic, the pool, the ratio, PSI; two side by side from 100
//! columns.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{Cx, Part, Section};
use crate::ui::graph::{self, GRAPH_MIN};
use crate::ui::kept::Kept;

pub(crate) struct Graphs;

impl Section for Graphs {
    fn describe(&self, _cx: &Cx) -> Option<Part> {
        Some(Part::Fill {
            min: GRAPH_MIN,
            // Two rows of graphs before any spare section takes rows.
            keep: 2 * GRAPH_MIN,
            draw,
        })
    }
}

fn draw(buf: &mut Buffer, area: Rect, cx: &Cx, kept: &mut Kept) {
    let order = [&graph::TRAFFIC, &graph::POOL, &graph::RATIO, &graph::PSI];
    let (app, t) = (cx.app, cx.t);
    if area.width >= 100 {
        let rows = if area.height >= 2 * GRAPH_MIN { 2 } else { 1 };
        graph::grid(buf, area, app, t, &order[..2 * rows], 2, kept);
    } else {
        let n = usize::from(area.height / GRAPH_MIN).clamp(1, order.len());
        graph::grid(buf, area, app, t, &order[..n], 1, kept);
    }
}
