//! The swap section of the overview: the split of used swap, then one line per device. It
//! gives way first when rows are short (the device lines go).

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::present::{self, Depth};
use crate::ui::theme::Theme;
use crate::ui::widgets::{self, Titled, bold, dim, raw};

pub(crate) struct Swap;

impl Section for Swap {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        Some(Part::Text {
            block: block(&cx.app.shown, cx.t, cx.width),
            gives_way: 0,
            without_fill: None,
        })
    }
}

/// The split of used swap: in zswap, in the swap cache, in zram, on disk (the devices view
/// shows it too).
pub(crate) fn split_line(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let facts = present::swap::facts(s);
    let items = present::swap::split(&facts)
        .filter(|f| f.at(Depth::Dashboard))
        .map(|f| {
            let value = if f.value == crate::display::MISSING {
                t.missing().to_string()
            } else {
                f.value.clone()
            };
            let value = if f.key == "swap.in_zswap" {
                Span::styled(value, t.pool())
            } else {
                bold(t, value)
            };
            vec![dim(t, format!("{} ", f.label)), value]
        })
        .collect();
    widgets::flow(items, width, t.sep(), 0)
}

/// The split of used swap, then one line per device.
fn block(s: &Snapshot, t: &Theme, width: usize) -> Titled {
    let w = &s.swap;
    let outlook = crate::present::outlook::facts(s);
    let mut right = super::zswap::forecast_spans(crate::present::find(&outlook, "outlook.swap"), t);
    let facts = present::swap::facts(s);
    match present::find(&facts, "swap.used") {
        Some(used) => right.extend(super::said(used, t)),
        None => right.push(dim(t, "none")),
    }
    let right = Line::from(right);
    let mut lines = split_line(s, t, width);
    let min_lines = lines.len();
    if w.devices.is_empty() {
        lines.push(Line::from(dim(t, "no active swap devices")));
    }
    for d in &w.devices {
        let kind = if d.is_zram { "zram" } else { d.kind.as_str() };
        let mut spans = vec![
            raw(widgets::fit(&d.path, (width / 3).max(12), t.ascii)),
            dim(t, format!("  {kind}  size ")),
            raw(f::bytes_raw(d.size_bytes)),
            dim(t, "  used "),
            bold(t, f::bytes_raw(d.used_bytes)),
            dim(t, format!("  prio {}", d.priority)),
        ];
        // The device's average per request over the interval (all its I/O, not per fault).
        for (what, ms) in [("read", d.read_latency_ms), ("write", d.write_latency_ms)] {
            if let Some(ms) = ms {
                spans.push(dim(t, format!("  {what} ")));
                spans.push(raw(format!("{ms:.1} ms")));
            }
        }
        lines.push(Line::from(spans));
    }
    Titled {
        theme: *t,
        title: Line::from(bold(t, "Swap")),
        right: Some(right),
        bar: None,
        lines,
        min_lines,
    }
}
