//! The panels, one per file: the frame's (header, footer, help) and the overview's sections
//! (real memory, zswap, the graphs, swap, zram, the swap-in latency, the processes and cgroups, the findings, what is unavailable). A section
//! says what it shows and how it takes rows ([`Section`], [`Part`]); the overview lists them in
//! order and lays them out (`views::overview`).

mod findings;
mod footer;
mod graphs;
mod header;
mod help;
mod latency;
mod memory;
mod owners;
mod swap;
mod unavailable;
mod zram;
mod zswap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::kept::Kept;
use super::theme::Theme;
use super::widgets::{Titled, bold, dim, raw};
use crate::app::App;
use crate::present::Fact;

pub(crate) use findings::Findings;
pub(crate) use footer::footer;
pub(crate) use graphs::Graphs;
pub(crate) use header::{finding_counts, header};
pub(crate) use help::help;
pub(crate) use latency::Latency;
pub(crate) use memory::Memory;
pub(crate) use owners::{CGROUPS, PROCESSES};
pub(crate) use swap::{Swap, split_line};
pub(crate) use unavailable::Unavailable;
pub(crate) use zram::Zram;
pub(crate) use zswap::Zswap;

/// What a section is drawn from: the app, the theme, and the overview's width.
pub(crate) struct Cx<'a> {
    pub app: &'a App,
    pub t: &'a Theme,
    pub width: usize,
}

/// A section of the overview.
pub(crate) trait Section: Sync {
    /// What it shows on this frame and how it takes rows; nothing when it has nothing to show.
    fn describe(&self, cx: &Cx) -> Option<Part>;
}

/// How a section takes rows, and what it draws in them.
pub(crate) enum Part {
    /// A block of lines, always shown. When rows are short the blocks give way one after the
    /// other, lowest `gives_way` first, each down to its minimum lines
    /// ([`Titled::min_lines`]).
    Text {
        block: Titled,
        gives_way: u8,
        /// Lines it adds when the overview has no room for its fill (the figures the fill
        /// would have shown), placed after its minimum lines and kept with them.
        without_fill: Option<fn(&Cx) -> Vec<Line<'static>>>,
    },
    /// The rows the blocks leave, shown when at least `min` (else the rows go to the blocks):
    /// drawn by `draw` into the rows it gets.
    Fill {
        min: u16,
        /// What the fill keeps for itself before any spare section takes rows from it.
        keep: u16,
        draw: fn(&mut Buffer, Rect, &Cx, &mut Kept),
    },
    /// A block shown only with room to spare: taken from the fill's rows while the fill keeps
    /// its `keep`. Without the room, its `at_top` lines (if any) go above everything else.
    Spare {
        block: Titled,
        at_top: Vec<Line<'static>>,
    },
}

/// A fact as spans: its words dim and its value set apart (where its long phrase begins or
/// ends with the value), else the phrase as it is.
pub(crate) fn said(fact: &Fact, t: &Theme) -> Vec<Span<'static>> {
    let (long, v) = (fact.long.as_str(), fact.value.as_str());
    if let Some(words) = long.strip_suffix(v) {
        vec![dim(t, words.to_string()), raw(v.to_string())]
    } else if let Some(rest) = long.strip_prefix(v) {
        vec![bold(t, v.to_string()), dim(t, rest.to_string())]
    } else {
        vec![raw(long.to_string())]
    }
}
