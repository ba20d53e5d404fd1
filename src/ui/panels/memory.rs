//! The real-memory section of the overview: the bucket bar, the `free` sentence and the
//! legend. It gives way last when rows are short.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::memory::BUCKETS;
use crate::present::{self, Fact};
use crate::ui::theme::Theme;
use crate::ui::widgets::{self, Segment, Titled, bold, dim, raw};

pub(crate) struct Memory;

impl Section for Memory {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        Some(Part::Text {
            block: block(&cx.app.shown, cx.t, cx.width),
            gives_way: 3,
            without_fill: None,
        })
    }
}

fn block(s: &Snapshot, t: &Theme, width: usize) -> Titled {
    let m = &s.memory;
    let facts = present::memory::facts(s);
    let title = Line::from(bold(t, "Real memory"));
    let mut right = Vec::new();
    for key in ["memory.total", "memory.available"] {
        if let Some(fact) = present::find(&facts, key) {
            if !right.is_empty() {
                right.push(raw("  "));
            }
            right.extend(super::said(fact, t));
        }
    }
    let right = Line::from(right);
    let Some(b) = &m.breakdown else {
        return Titled {
            theme: *t,
            title,
            right: Some(right),
            bar: None,
            lines: vec![Line::from(Span::styled(
                "/proc/meminfo could not be read (see the header)",
                t.warn(),
            ))],
            min_lines: 1,
        };
    };
    let buckets = b.buckets();
    let mut lines = vec![free_line(s, b.pcp_free, t, width)];
    lines.extend(widgets::flow(legend(s, &facts, t, width), width, "  ", 0));
    Titled {
        theme: *t,
        title,
        right: Some(right),
        bar: Some(bar(&buckets, t, width)),
        lines,
        min_lines: 1,
    }
}

fn is_pool(key: &str) -> bool {
    matches!(key, "zswap_pool" | "zram_pool")
}

/// The real-memory bar: each bucket's share of the total in its glyph and colour.
fn bar(buckets: &[(&'static str, Option<i64>)], t: &Theme, width: usize) -> Vec<Segment> {
    let values: Vec<u64> = buckets
        .iter()
        .map(|(_, v)| v.unwrap_or(0).max(0).unsigned_abs())
        .collect();
    f::proportional_cells(&values, width)
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let key = BUCKETS[i].key;
            let free = key == "free";
            Segment {
                cells: n,
                glyph: if free && t.color {
                    if t.ascii { '.' } else { '·' }
                } else {
                    BUCKETS[i].glyph
                },
                bg: if free { None } else { t.bucket_bg(i) },
                strong: is_pool(key),
            }
        })
        .collect()
}

/// The bar's legend: each bucket that holds something (the pools always, zram's where a device
/// is in use), its swatch, name and size (the short size on a narrow screen, so the legend
/// stays on two lines).
fn legend(s: &Snapshot, facts: &[Fact], t: &Theme, width: usize) -> Vec<Vec<Span<'static>>> {
    let zram_in_use = s.zram.iter().any(|z| z.initialized == Some(true));
    let Some(b) = &s.memory.breakdown else {
        return Vec::new();
    };
    let mut items = Vec::new();
    let buckets = b.buckets();
    for (i, ((key, v), (fact, info))) in buckets
        .iter()
        .zip(present::memory::buckets(facts))
        .enumerate()
    {
        let show = match *key {
            "zswap_pool" => true,
            "zram_pool" => zram_in_use || v.unwrap_or(0) > 0,
            _ => v.is_some_and(|v| v != 0),
        };
        if !show {
            continue;
        }
        let swatch = match t.bucket_bg(i) {
            Some(bg) if *key != "free" => Span::styled(
                info.glyph.to_string(),
                ratatui::style::Style::new()
                    .bg(bg)
                    .fg(ratatui::style::Color::Black),
            ),
            _ => raw(info.glyph.to_string()),
        };
        let label_style = if is_pool(key) { t.pool() } else { t.plain() };
        let size = match (fact.value.as_str(), width < 100) {
            (f::MISSING, _) => t.missing().to_string(),
            (_, true) => fact.value_short.clone(),
            (_, false) => fact.value.clone(),
        };
        let mut item = vec![
            swatch,
            raw(" "),
            Span::styled(fact.label, label_style),
            raw(" "),
            if is_pool(key) {
                Span::styled(size, t.pool())
            } else {
                bold(t, size)
            },
        ];
        if *key == "pcp_free"
            && let Some(age) = f::age_note(s.memory.pcp_free_age_ms)
        {
            item.push(dim(t, format!(" ({age})")));
        }
        items.push(item);
    }
    items
}

/// What free calls used, and how much of it is the compressed pools; the per-CPU lists join
/// the sentence where it fits (the legend shows them anyway).
fn free_line(s: &Snapshot, pcp_free: Option<u64>, t: &Theme, width: usize) -> Line<'static> {
    let [before, pools, after] = present::memory::free_says(s);
    let mut free_line = vec![raw(before), Span::styled(pools, t.pool()), raw(after)];
    if let Some(pcp) = present::memory::free_says_pcp(pcp_free) {
        let pcp = format!(", {pcp}");
        let used: usize = free_line.iter().map(Span::width).sum();
        if used + pcp.chars().count() <= width {
            free_line.push(raw(pcp));
        }
    }
    Line::from(free_line)
}
