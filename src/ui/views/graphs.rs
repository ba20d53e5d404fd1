//! The graphs view: all four graphs, large, in a 2×2 grid where it fits, else stacked.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::Tab;
use crate::app::App;
use crate::ui::graph::{self, GRAPH_MIN};
use crate::ui::kept::Kept;
use crate::ui::theme::Theme;

pub struct Graphs;

/// Their window of time is the app's (`[` `]` change it on every view, and the bottom line shows
/// it), so the view lists those keys in the help and has none of its own.
impl crate::app::Kind for Graphs {
    fn help(&self) -> &'static [(&'static str, &'static str)] {
        &[("[  ]", "shorter / longer time window")]
    }
}

impl Tab for Graphs {
    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, kept: &mut Kept) {
        let order = [&graph::POOL, &graph::TRAFFIC, &graph::RATIO, &graph::PSI];
        let cols = if body.width >= 80 || body.height < 4 * GRAPH_MIN {
            2
        } else {
            1
        };
        graph::grid(buf, body, app, t, &order, cols, kept);
    }
}
