//! The zswap section of the overview: the pool gauge, what is stored and how well it
//! compresses, the debugfs counters, and the swap traffic as text when the overview has no room
//! for its graphs. It gives way after the swap and zram sections.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::metrics::{self, GraphId};
use crate::model::status::DEBUGFS;
use crate::present::{self, Depth, Tone};
use crate::sources::zswap::DebugfsMap;
use crate::ui::theme::Theme;
use crate::ui::widgets::{self, Titled, bold, dim, raw};

pub(crate) struct Zswap;

impl Section for Zswap {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        Some(Part::Text {
            block: block(&cx.app.shown, cx.t, cx.width),
            gives_way: 2,
            without_fill: Some(|cx| traffic_lines(&cx.app.shown, cx.t, cx.width)),
        })
    }
}

fn block(s: &Snapshot, t: &Theme, width: usize) -> Titled {
    let z = &s.zswap;
    let title = Line::from(bold(t, "zswap"));
    if !z.available {
        return unavailable(s, t, title);
    }
    let mut outlook = present::outlook::facts(s);
    outlook.retain(|f| f.at(Depth::Dashboard));
    let mut right = forecast_spans(present::find(&outlook, "outlook.pool"), t);
    right.extend([
        dim(t, "limit used "),
        bold(t, f::percent(z.pool_limit_used_percent)),
    ]);
    let mut facts = present::zswap::facts(s);
    facts.retain(|f| f.at(Depth::Dashboard));
    let mut lines = vec![gauge_line(s, t, width)];
    lines.extend(widgets::flow(
        fact_items(s, &facts, &outlook, t, width),
        width,
        t.sep(),
        0,
    ));
    let min_lines = lines.len();
    // The facts the lines above do not hold (what zswap wrote back, …) lead the counters,
    // which give way first.
    let mut rest: Vec<_> = facts
        .iter()
        .filter(|f| !MAIN.contains(&f.key))
        // Without debugfs, what zswap wrote back is known only through vmstat.
        .filter(|f| f.key != "zswap.written_back" || z.debugfs.is_some() || written_known(s))
        .map(|f| match f.key {
            "zswap.written_back" => written_spans(s, f, t),
            _ => fact_spans(f, t),
        })
        .collect();
    match &z.debugfs {
        Some(d) => {
            let written = facts.iter().any(|f| f.key == "zswap.written_back");
            rest.extend(debugfs_items(s, d, written, t));
            lines.extend(widgets::flow(rest, width, t.sep(), 0));
        }
        None => lines.extend(no_debugfs_lines(s, rest, t, width)),
    }
    Titled {
        theme: *t,
        title,
        right: Some(Line::from(right)),
        bar: None,
        lines,
        min_lines,
    }
}

/// The section of a kernel without zswap: why.
fn unavailable(s: &Snapshot, t: &Theme, title: Line<'static>) -> Titled {
    let why = s
        .zswap
        .unavailable
        .first()
        .map(|m| m.reason.text())
        .unwrap_or_default();
    Titled {
        theme: *t,
        title,
        right: None,
        bar: None,
        lines: vec![Line::from(vec![
            Span::styled("zswap is not available: ", t.warn()),
            raw(why),
        ])],
        min_lines: 1,
    }
}

/// The facts the section's first lines hold (the state is the header's, the pool the gauge's,
/// then what is stored and how well); the others lead the counters.
const MAIN: [&str; 4] = ["zswap.state", "zswap.pool", "zswap.stored", "zswap.ratio"];

/// The pool against its limit, with the accept threshold marked.
fn gauge_line(s: &Snapshot, t: &Theme, width: usize) -> Line<'static> {
    let z = &s.zswap;
    let gauge_w = (width / 4).clamp(10, 40);
    let mut g = vec![dim(t, "pool ")];
    g.extend(widgets::gauge(
        z.pool_limit_used_percent,
        z.accept_threshold_percent,
        gauge_w,
        t,
        t.pool(),
    ));
    g.push(raw(" "));
    g.push(Span::styled(f::bytes(z.pool_bytes), t.pool()));
    g.push(dim(t, " of "));
    g.push(raw(f::bytes(z.pool_limit_bytes)));
    g.push(dim(t, " limit"));
    if let Some(a) = z.accept_threshold_percent {
        let mark = if t.ascii { "|" } else { "│" };
        g.push(dim(t, format!("  ({mark} accept threshold ")));
        g.push(raw(format!("{a}%")));
        g.push(dim(t, ")"));
    }
    Line::from(g)
}

/// A fact as the panels show it: its label dim, its value bold (or in its tone).
pub(crate) fn fact_spans(fact: &present::Fact, t: &Theme) -> Vec<Span<'static>> {
    vec![
        dim(t, format!("{} ", fact.label)),
        Span::styled(fact.value.clone(), tone(fact, t)),
    ]
}

/// How a fact's tone is painted.
pub(super) fn tone(fact: &present::Fact, t: &Theme) -> ratatui::style::Style {
    match fact.tone {
        Tone::Ok => t.bold(),
        Tone::Warn => t.warn(),
        Tone::Crit => t.bad(),
        Tone::Dim => t.dim(),
    }
}

/// What zswap wrote back, with its rate over the interval.
fn written_spans(s: &Snapshot, fact: &present::Fact, t: &Theme) -> Vec<Span<'static>> {
    let mut item = fact_spans(fact, t);
    let rate = f::rate_short(s.rates.is_some(), metrics::ZSWPWB.value(s));
    item.push(dim(t, format!(" {rate}")));
    item
}

/// What zswap stores and how well it compresses, what it wrote back, and (with an interval)
/// the share of swap-ins it served.
fn fact_items(
    s: &Snapshot,
    facts: &[present::Fact],
    outlook: &[present::Fact],
    t: &Theme,
    width: usize,
) -> Vec<Vec<Span<'static>>> {
    let z = &s.zswap;
    let mut items = Vec::new();
    for fact in facts.iter().filter(|f| MAIN[2..].contains(&f.key)) {
        let mut item = fact_spans(fact, t);
        match fact.key {
            "zswap.stored" if width >= 100 => {
                item.push(dim(t, format!(" ({} pages)", f::num(z.stored_pages))));
            }
            "zswap.ratio" if let Err(why) = present::zswap::ratio(s) => {
                item.push(dim(t, format!(" ({why})")));
            }
            "zswap.ratio" => item.extend([
                dim(t, if width >= 100 { " effective (" } else { " (" }),
                bold(t, f::ratio(z.compressor_ratio)),
                dim(t, " compressor only)"),
            ]),
            _ => {}
        }
        items.push(item);
        if fact.key == "zswap.stored" {
            items.push(vec![
                dim(t, "saves "),
                bold(t, f::bytes_signed(z.saved_bytes)),
            ]);
        }
    }
    items.push(vec![
        dim(t, "incompressible "),
        bold(t, f::bytes(z.incompressible_bytes)),
        dim(
            t,
            format!(
                " ({} of stored)",
                f::percent(f::share(z.incompressible_bytes, z.stored_bytes))
            ),
        ),
    ]);
    // Is zswap helping: of the swap-ins over the interval, the share it served, what a read
    // from the disk costs instead, and (BPF) each busy tier's p99 wait: the latency section's
    // figures in short where it has no room.
    for key in ["outlook.hit", "outlook.disk_read", "outlook.swapin_latency"] {
        items.extend(present::find(outlook, key).map(|f| {
            // The wait's long form (p50 and p99) where it fits the line.
            let long = key == "outlook.swapin_latency" && f.long.chars().count() <= width;
            let said = if long { &f.long } else { &f.short };
            vec![Span::styled(said.clone(), tone(f, t))]
        }));
    }
    // Same-filled pages are zswap entries only up to 6.11; later kernels keep no such count.
    if z.same_filled_bytes.is_some() {
        items.push(vec![
            dim(t, "same-filled "),
            bold(t, f::bytes(z.same_filled_bytes)),
        ]);
    }
    items
}

/// The debugfs event counters, each with its rate; the reject_* counters as one group:
/// "rejects: alloc_fail 0 0.0/s · …".
fn debugfs_items(
    s: &Snapshot,
    d: &DebugfsMap<u64>,
    written: bool,
    t: &Theme,
) -> Vec<Vec<Span<'static>>> {
    let rates = s.rates.as_ref();
    // written_back_pages is said above, in bytes.
    let mut keys: Vec<&str> = d
        .keys()
        .filter(|k| !metrics::debugfs_is_gauge(k))
        .filter(|k| !written || *k != "written_back_pages")
        .collect();
    keys.sort_by_key(|k| (metrics::debugfs_rank(k), *k));
    let mut first_reject = true;
    keys.into_iter()
        .map(|k| {
            let total = d.get(k).copied().unwrap_or(0);
            let rate = match rates {
                None => f::PENDING.to_string(),
                Some(r) => f::per_sec(r.debugfs_per_sec.get(k).copied()),
            };
            let hot = total > 0 && k != "written_back_pages";
            let mut item = Vec::with_capacity(4);
            let name = match k.strip_prefix("reject_") {
                Some(rest) => {
                    if first_reject {
                        item.push(Span::styled("rejects: ", t.title()));
                        first_reject = false;
                    }
                    rest
                }
                None => k,
            };
            item.push(dim(t, format!("{name} ")));
            item.push(Span::styled(
                total.to_string(),
                if hot { t.warn() } else { t.bold() },
            ));
            item.push(dim(t, format!(" {rate}")));
            item
        })
        .collect()
}

/// Without debugfs: what it would give, why it could not be read and the command that reads it.
/// Writeback is in vmstat (zswpwb, 6.8+), which anyone can read: only the rest needs debugfs.
/// The reason and its fix flow onto a second line rather than be cut.
fn no_debugfs_lines(
    s: &Snapshot,
    rest: Vec<Vec<Span<'static>>>,
    t: &Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let m = s
        .zswap
        .unavailable
        .iter()
        .find(|m| m.path.as_deref() == Some(DEBUGFS));
    let what = if written_known(s) {
        "pool_limit_hit, rejects: "
    } else {
        "written_back, pool_limit_hit, rejects: "
    };
    let mut reason = vec![dim(t, what)];
    let mut fix = None;
    match m {
        Some(m) => {
            reason.push(Span::styled(m.reason.text(), t.warn()));
            fix = m.reason.fix().map(|x| vec![dim(t, format!("({x})"))]);
        }
        None => reason.push(raw(t.missing())),
    }
    let mut items = rest;
    items.push(reason);
    let mut flowed = widgets::flow(items, width, t.sep(), 0);
    if let Some(fix) = fix {
        // The fix after the reason when it fits there, else on its own line.
        let last = flowed.last_mut().map(|l| l.width()).unwrap_or(0);
        let w: usize = fix.iter().map(Span::width).sum();
        match flowed.last_mut() {
            Some(l) if last + 1 + w <= width => {
                l.spans.push(raw(" "));
                l.spans.extend(fix);
            }
            _ => flowed.push(Line::from(fix)),
        }
    }
    flowed
}

/// Whether what zswap wrote back is known without debugfs (vmstat zswpwb, 6.8+).
fn written_known(s: &Snapshot) -> bool {
    metrics::ZSWPWB.raw(s).is_some()
}

/// A forecast for a panel's title, its short wording in its tone, then a separator: "pool full
/// in ~4 min (5m's rate) · ", "pool not filling · ", or nothing without one.
pub(crate) fn forecast_spans(fact: Option<&present::Fact>, t: &Theme) -> Vec<Span<'static>> {
    let Some(fact) = fact else {
        return Vec::new();
    };
    let style = match fact.tone {
        Tone::Warn | Tone::Crit => t.warn(),
        _ => t.dim(),
    };
    vec![Span::styled(fact.short.clone(), style), dim(t, t.sep())]
}

/// The swap-traffic figures as text, for layouts without the traffic graph.
fn traffic_lines(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let known = s.rates.is_some();
    let items = metrics::in_graph(GraphId::Traffic)
        .map(|m| {
            vec![
                dim(t, format!("{} ", m.label)),
                bold(t, f::rate_short(known, m.value(s))),
            ]
        })
        .collect();
    let mut lines = widgets::flow(items, width.saturating_sub(7), t.sep(), 0);
    if let Some(first) = lines.first_mut() {
        first.spans.insert(0, dim(t, "swap/s "));
    }
    lines
}
