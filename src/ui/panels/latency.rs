//! The swap-in latency section of the overview (BPF, `model::swapin`): a row a tier with its
//! percentiles, swap-ins a second and a histogram on one axis for all tiers, then the store
//! side's tiers the same way under their own heading, or why nothing is measured. Shown with room to spare, like the findings: at 80×24 the outlook line carries
//! each busy tier's p50/p99. The table is laid out by `present::swapin`, as `--full` lays it.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::present::swapin::{self, Row, Side, TIER_WIDTH};
use crate::ui::theme::Theme;
use crate::ui::widgets::{Titled, bold, dim, raw};

pub(crate) struct Latency;

impl Section for Latency {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        Some(Part::Spare {
            block: block(&cx.app.shown, cx.t, cx.width),
            at_top: Vec::new(),
        })
    }
}

const TITLE: &str = "Swap-in latency";

fn block(s: &Snapshot, t: &Theme, width: usize) -> Titled {
    let l = &s.swapin_latency;
    let titled = |title: Span<'static>, right: Option<&str>, lines| Titled {
        theme: *t,
        title: Line::from(title),
        right: right.map(|r| Line::from(dim(t, r.to_string()))),
        bar: None,
        lines,
        min_lines: 1,
    };
    if !l.running {
        // Not loaded (refused, switched off, not built): why, and what would allow it, as
        // the other unavailable sources say it.
        let why = swapin::unavailable(s).unwrap_or_default();
        let lines = f::wrap(&why, width, 4, 4)
            .into_iter()
            .enumerate()
            .map(|(i, part)| {
                let head = if i == 0 {
                    Span::styled("  ! ", t.warn())
                } else {
                    raw("    ")
                };
                Line::from(vec![head, raw(part)])
            })
            .collect();
        return titled(Span::styled(TITLE, t.warn()), None, lines);
    }
    // The swap-ins' measure; the stores' rows say theirs ("stored to").
    let right = "fault to page mapped, this interval";
    if let Some(why) = swapin::unavailable(s) {
        // Loaded, the interval not measured yet (loading, one sample, a new load).
        return titled(bold(t, TITLE), Some(right), vec![Line::from(dim(t, why))]);
    }
    let (cols, hist) = swapin::layout(width);
    let mut lines = Vec::new();
    // The swap-ins' tiers, then the stores' under a heading and an axis of their own.
    for part in [Side::Swapins, Side::Stores] {
        let tiers = part.tiers(s);
        if tiers.is_empty() {
            continue;
        }
        let span = swapin::span(tiers).filter(|_| hist > 0);
        lines.push(Line::from(dim(
            t,
            swapin::heading_of(part, &cols, span.map(swapin::axis), hist),
        )));
        for tier in tiers {
            let name = bold(t, format!("{:<TIER_WIDTH$}", tier.tier));
            let spans = match swapin::row(tier, &cols) {
                Row::Busy(cells) => {
                    let mut spans = vec![name, raw(swapin::figures(&cells))];
                    if let Some(span) = span {
                        spans.push(raw("  "));
                        spans.push(Span::styled(
                            swapin::histogram(&tier.buckets, span, hist, t.ascii),
                            t.pool(),
                        ));
                    }
                    spans
                }
                Row::Idle => vec![name, dim(t, " none")],
                Row::Unknown(why) => {
                    // The whole reason, wrapped under the figures' columns.
                    for (i, part) in swapin::wrapped(&why, width).into_iter().enumerate() {
                        let head = if i == 0 {
                            name.clone()
                        } else {
                            raw(" ".repeat(TIER_WIDTH))
                        };
                        lines.push(Line::from(vec![head, dim(t, part)]));
                    }
                    continue;
                }
            };
            lines.push(Line::from(spans));
        }
    }
    titled(bold(t, TITLE), Some(right), lines)
}
