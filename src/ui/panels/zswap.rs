//! The zswap section of the overview: the pool gauge, what is stored and how well it
//! compresses, the debugfs counters, and the swap traffic as text when the overview has no room
//! for its graphs. It gives way after the swap and zram sections.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::metrics::{self, GraphId};
use crate::model::status::DEBUGFS;
use crate::ui::theme::Theme;
use crate::ui::widgets::{self, Titled, bold, dim, raw};

pub struct Zswap;

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
        let why = z
            .unavailable
            .first()
            .map(|m| m.reason.text())
            .unwrap_or_default();
        return Titled {
            theme: *t,
            title,
            right: None,
            bar: None,
            lines: vec![Line::from(vec![
                Span::styled("zswap is not available: ", t.warn()),
                raw(why),
            ])],
            min_lines: 1,
        };
    }
    let mut right = forecast_spans(s.forecast.zswap_pool.as_ref(), "pool ", t);
    right.extend([
        dim(t, "limit used "),
        bold(t, f::percent(z.pool_limit_used_percent)),
    ]);
    let right = Line::from(right);
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
    let mut lines = vec![Line::from(g)];

    let mut stored = vec![dim(t, "stored "), bold(t, f::bytes(z.stored_bytes))];
    if width >= 100 {
        stored.push(dim(t, format!(" ({} pages)", f::num(z.stored_pages))));
    }
    let mut facts = vec![
        stored,
        vec![dim(t, "saves "), bold(t, f::bytes_signed(z.saved_bytes))],
        vec![
            dim(t, "ratio "),
            bold(t, f::ratio(z.compression_ratio)),
            dim(t, if width >= 100 { " effective (" } else { " (" }),
            bold(t, f::ratio(z.compressor_ratio)),
            dim(t, " compressor only)"),
        ],
        vec![
            dim(t, "incompressible "),
            bold(t, f::bytes(z.incompressible_bytes)),
            dim(
                t,
                format!(
                    " ({} of stored)",
                    f::percent(f::share(z.incompressible_bytes, z.stored_bytes))
                ),
            ),
        ],
    ];
    // Is zswap helping: of the swap-ins over the interval, the share it served.
    if s.rates.is_some() {
        facts.push(match z.swapin_hit_ratio {
            Some(h) => vec![
                dim(t, "swap-ins "),
                bold(t, format!("{:.0}%", h * 100.0)),
                dim(t, " from zswap"),
            ],
            None => vec![dim(t, f::no_hit_ratio(s))],
        });
    }
    // Same-filled pages are zswap entries only up to 6.11; later kernels keep no such count.
    if z.same_filled_bytes.is_some() {
        facts.push(vec![
            dim(t, "same-filled "),
            bold(t, f::bytes(z.same_filled_bytes)),
        ]);
    }
    lines.extend(widgets::flow(facts, width, t.sep(), 0));
    let min_lines = lines.len();

    match &z.debugfs {
        Some(d) => {
            let rates = s.rates.as_ref();
            let mut keys: Vec<&str> = d.keys().filter(|k| !metrics::debugfs_is_gauge(k)).collect();
            keys.sort_by_key(|k| (metrics::debugfs_rank(k), *k));
            let mut first_reject = true;
            let items: Vec<Vec<Span<'static>>> = keys
                .into_iter()
                .map(|k| {
                    let total = d.get(k).copied().unwrap_or(0);
                    let rate = match rates {
                        None => f::PENDING.to_string(),
                        Some(r) => f::per_sec(r.debugfs_per_sec.get(k).copied()),
                    };
                    let hot = total > 0 && k != "written_back_pages";
                    // The reject_* counters as one group: "rejects: alloc_fail 0 0.0/s · …".
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
                .collect();
            lines.extend(widgets::flow(items, width, t.sep(), 0));
        }
        None => {
            let m = z
                .unavailable
                .iter()
                .find(|m| m.path.as_deref() == Some(DEBUGFS));
            // Writeback is in vmstat (zswpwb, 6.8+), which anyone can read: only the rest
            // needs debugfs. The reason and its fix flow onto a second line rather than be cut.
            let mut items = Vec::new();
            let what = match metrics::ZSWPWB.raw(s).map(|p| (metrics::ZSWPWB, p)) {
                Some((wb, pages)) => {
                    items.push(vec![
                        dim(t, "written back "),
                        bold(
                            t,
                            f::bytes(Some((pages as u64).saturating_mul(s.page_size.bytes))),
                        ),
                        dim(
                            t,
                            format!(" {}", f::rate_short(s.rates.is_some(), wb.value(s))),
                        ),
                    ]);
                    "pool_limit_hit, rejects: "
                }
                None => "written_back, pool_limit_hit, rejects: ",
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
            lines.extend(flowed);
        }
    }
    Titled {
        theme: *t,
        title,
        right: Some(right),
        bar: None,
        lines,
        min_lines,
    }
}

/// A forecast for a panel's title, short, with its basis: "pool full in ~4 min (5m rate) · ",
/// "pool not filling · ", or nothing before two samples.
pub fn forecast_spans(
    f: Option<&crate::model::forecast::Forecast>,
    what: &str,
    t: &Theme,
) -> Vec<Span<'static>> {
    use crate::model::forecast::ForecastState;
    let Some(f) = f else {
        return Vec::new();
    };
    let basis = f::window(f.window_seconds);
    let said = match (&f.state, f.seconds) {
        (ForecastState::Filling, Some(secs)) => vec![
            dim(t, format!("{what}full in ")),
            Span::styled(f::about(secs), t.warn()),
            dim(t, format!(" ({basis} rate)")),
        ],
        (ForecastState::Full, _) => vec![Span::styled(format!("{what}full"), t.warn())],
        (ForecastState::NotFilling, _) => vec![dim(t, format!("{what}not filling"))],
        _ => return Vec::new(),
    };
    let mut out = said;
    out.push(dim(t, t.sep()));
    out
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
