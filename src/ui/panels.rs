//! The text panels: header, real memory, zswap, swap and zram, footer and help. Each builds a
//! [`Section`] (a titled block of lines) from the snapshot; the layout decides what fits.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::theme::Theme;
use super::widgets::{self, Segment};
use crate::app::{App, View, keys};
use crate::format::{self as f, BUCKETS};
use crate::model::{Severity, Snapshot};

/// A titled block: a rule with the title, an optional bar, then lines.
pub struct Section {
    pub title: Line<'static>,
    pub right: Option<Line<'static>>,
    pub bar: Option<Vec<Segment>>,
    pub lines: Vec<Line<'static>>,
    /// The section may be cut to this many lines when space is short.
    pub min_lines: usize,
}

impl Section {
    pub fn height(&self) -> u16 {
        (1 + usize::from(self.bar.is_some()) + self.lines.len()) as u16
    }

    pub fn min_height(&self) -> u16 {
        (1 + usize::from(self.bar.is_some()) + self.lines.len().min(self.min_lines)) as u16
    }

    /// Cut the lines so the section takes at most `h` rows (never below its minimum).
    pub fn shrink_to(&mut self, h: u16) {
        let fixed = 1 + usize::from(self.bar.is_some());
        let keep = usize::from(h).saturating_sub(fixed).max(self.min_lines);
        self.lines.truncate(keep);
    }

    pub fn draw(&self, buf: &mut Buffer, area: Rect, t: &Theme) {
        if area.height == 0 {
            return;
        }
        widgets::rule(
            buf,
            Rect { height: 1, ..area },
            self.title.clone(),
            self.right.clone(),
            t,
        );
        let mut y = 1;
        if let Some(segs) = &self.bar {
            if y < area.height {
                widgets::stacked_bar(
                    buf,
                    Rect {
                        y: area.y + y,
                        height: 1,
                        ..area
                    },
                    segs,
                    t,
                );
            }
            y += 1;
        }
        for l in &self.lines {
            widgets::put(buf, area, y, l);
            y += 1;
        }
    }
}

pub(super) fn dim(t: &Theme, s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), t.dim())
}

pub(super) fn bold(t: &Theme, s: impl Into<String>) -> Span<'static> {
    Span::styled(s.into(), t.bold())
}

pub(super) fn raw(s: impl Into<String>) -> Span<'static> {
    Span::raw(s.into())
}

pub(super) fn sep(t: &Theme) -> Span<'static> {
    Span::styled(t.sep(), t.dim())
}

/// Join groups of spans with the theme's separator.
fn joined(t: &Theme, groups: Vec<Vec<Span<'static>>>) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, g) in groups.into_iter().enumerate() {
        if i > 0 {
            spans.push(sep(t));
        }
        spans.extend(g);
    }
    Line::from(spans)
}

// ---- header -----------------------------------------------------------------------------

/// The header's three lines, and the detail lines layouts with room to spare show below.
pub struct Header {
    pub lines: Vec<Line<'static>>,
    /// One line per unavailable item, with its fix.
    pub unavailable: Vec<Line<'static>>,
    /// One line per diagnostic finding, most severe first.
    pub findings: Vec<Line<'static>>,
}

/// The header: who and where, the zswap state, PSI, the findings and what is unavailable.
pub fn header(app: &App, t: &Theme, width: usize) -> Header {
    let s = &app.latest;
    let miss = t.missing();
    let host = s.host.hostname.clone().unwrap_or_else(|| miss.into());
    let kernel = s.host.kernel.clone().unwrap_or_else(|| miss.into());
    let mut l1 = vec![
        vec![bold(t, "zswaptop"), dim(t, format!(" {}", s.tool.version))],
        vec![dim(t, "host "), raw(host)],
        vec![dim(t, "kernel "), raw(kernel)],
        vec![dim(t, "up "), raw(f::duration_secs(s.host.uptime_seconds))],
        vec![if s.host.privileged {
            Span::styled("root", t.good())
        } else {
            Span::styled("not root", t.warn())
        }],
        vec![dim(t, "every "), raw(f::interval(app.interval))],
    ];
    if s.host.root != "/" {
        l1.push(vec![dim(t, "tree "), raw(s.host.root.clone())]);
    }
    let mut l1 = joined(t, l1);
    if app.paused {
        l1.spans.insert(0, raw(" "));
        l1.spans.insert(0, Span::styled(" PAUSED ", t.badge()));
    }

    let l2 = zswap_state(s, t);

    let mut l3 = match &s.psi {
        Some(p) => vec![
            dim(t, "PSI memory avg10 "),
            dim(t, "some "),
            bold(t, format!("{:.2}%", p.some_avg10)),
            dim(t, " full "),
            bold(t, format!("{:.2}%", p.full_avg10)),
        ],
        None => vec![dim(t, "PSI memory "), raw(miss)],
    };
    let mut findings = Vec::new();
    if !s.diagnostics.is_empty() {
        let (crit, warn, info) = crate::diagnostics::counts(&s.diagnostics);
        l3.push(sep(t));
        l3.push(dim(t, "findings "));
        let mut first = true;
        for (n, word, style) in [
            (crit, "crit", t.bad()),
            (warn, "warn", t.warn()),
            (info, "info", t.plain()),
        ] {
            if n == 0 {
                continue;
            }
            if !first {
                l3.push(dim(t, ", "));
            }
            first = false;
            l3.push(Span::styled(format!("{n} {word}"), style));
        }
        let mut sorted: Vec<&crate::model::Finding> = s.diagnostics.iter().collect();
        sorted.sort_by_key(|d| std::cmp::Reverse(d.severity));
        for d in sorted {
            let (word, style) = match d.severity {
                Severity::Crit => ("CRIT", t.bad()),
                Severity::Warn => ("WARN", t.warn()),
                Severity::Info => ("INFO", t.dim()),
            };
            findings.push(Line::from(vec![
                Span::styled(format!("  {word} "), style),
                bold(t, format!("{}: ", d.id)),
                raw(d.summary.clone()),
            ]));
        }
    }
    let items = f::unavailable(s);
    let mut details = Vec::new();
    if !items.is_empty() {
        l3.push(sep(t));
        l3.push(Span::styled("unavailable: ", t.warn()));
        let used: usize = l3.iter().map(Span::width).sum();
        let mut text = String::new();
        let mut shown = 0;
        for m in &items {
            let short = m.item.split(" (").next().unwrap_or(&m.item);
            let piece = format!(
                "{}{short} ({})",
                if shown > 0 { "; " } else { "" },
                m.reason
            );
            let more = items.len() - shown - 1;
            let tail = if more > 0 { 12 } else { 0 };
            if shown > 0 && used + text.chars().count() + piece.chars().count() + tail > width {
                break;
            }
            text.push_str(&piece);
            shown += 1;
        }
        if shown < items.len() {
            text.push_str(&format!("; +{} more", items.len() - shown));
        }
        l3.push(raw(text));
        for m in &items {
            let mut l = vec![
                Span::styled("  ! ", t.warn()),
                raw(format!("{}: {}", m.item, m.reason)),
            ];
            if let Some(fix) = &m.fix {
                l.push(dim(t, " — to get it: "));
                l.push(raw(fix.clone()));
            }
            details.push(Line::from(l));
        }
    }
    Header {
        lines: vec![l1, l2, Line::from(l3)],
        unavailable: details,
        findings,
    }
}

fn zswap_state(s: &Snapshot, t: &Theme) -> Line<'static> {
    let z = &s.zswap;
    if !z.available {
        let why = z
            .unavailable
            .first()
            .map(|m| format!(" ({})", m.reason))
            .unwrap_or_default();
        return Line::from(vec![
            bold(t, "zswap "),
            Span::styled(format!("not available{why}"), t.warn()),
        ]);
    }
    let state = match z.enabled {
        Some(true) => Span::styled("enabled", t.good()),
        Some(false) => Span::styled("disabled", t.warn()),
        None => raw(t.missing()),
    };
    let mut comp = z.compressor.clone().unwrap_or_else(|| t.missing().into());
    if let Some(zp) = z.parameters.get("zpool") {
        comp.push('/');
        comp.push_str(zp);
    }
    let pct = |v: Option<u64>| {
        v.map(|v| format!("{v}%"))
            .unwrap_or_else(|| t.missing().into())
    };
    joined(
        t,
        vec![
            vec![bold(t, "zswap "), state],
            vec![dim(t, "compressor "), raw(comp)],
            vec![dim(t, "max_pool "), raw(pct(z.max_pool_percent))],
            vec![dim(t, "accept "), raw(pct(z.accept_threshold_percent))],
            vec![dim(t, "shrinker "), raw(f::on_off(z.shrinker_enabled))],
        ],
    )
}

// ---- real memory --------------------------------------------------------------------------

pub fn memory(s: &Snapshot, t: &Theme, width: usize) -> Section {
    let m = &s.memory;
    let title = Line::from(bold(t, "Real memory"));
    let right = Line::from(vec![
        dim(t, "total "),
        raw(f::bytes(m.total_bytes)),
        dim(t, "  available "),
        raw(f::bytes(m.available_bytes)),
    ]);
    let Some(b) = &m.breakdown else {
        return Section {
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
    let values: Vec<u64> = buckets
        .iter()
        .map(|(_, v)| v.unwrap_or(0).max(0).unsigned_abs())
        .collect();
    let cells = f::proportional_cells(&values, width);
    let is_pool = |k: &str| matches!(k, "zswap_pool" | "zram_pool");
    let bar = cells
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
        .collect();
    let zram_in_use = s.zram.iter().any(|z| z.initialized == Some(true));
    let mut items = Vec::new();
    for (i, (key, v)) in buckets.iter().enumerate() {
        let info = &BUCKETS[i];
        let show = match *key {
            "zswap_pool" => true,
            "zram_pool" => zram_in_use || v.unwrap_or(0) > 0,
            _ => v.is_some_and(|v| v != 0),
        };
        if !show {
            continue;
        }
        // Narrow screens get the short sizes so the legend stays on two lines.
        let size = match (*key == "unaccounted", width < 100) {
            (true, false) => f::bytes_signed(*v),
            (false, false) => f::bytes(v.map(i64::unsigned_abs)),
            (neg, true) => match v {
                Some(v) if neg && *v < 0 => format!("-{}", f::bytes_short(v.unsigned_abs())),
                Some(v) => f::bytes_short(v.unsigned_abs()),
                None => t.missing().to_string(),
            },
        };
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
        items.push(vec![
            swatch,
            raw(" "),
            Span::styled(info.label, label_style),
            raw(" "),
            if is_pool(key) {
                Span::styled(size, t.pool())
            } else {
                bold(t, size)
            },
        ]);
    }
    let legend = widgets::flow(items, width, "  ", 0);
    let hidden = f::bytes(m.hidden_in_used_bytes);
    // The same sentence as format::free_says, with the pool figure emphasised.
    let says = f::free_says(m.free_cmd_used_bytes, m.hidden_in_used_bytes);
    let free_line = match says.split_once(&format!("— {hidden}")) {
        Some((a, b)) => Line::from(vec![
            raw(a.to_string()),
            raw("— "),
            Span::styled(hidden, t.pool()),
            raw(b.to_string()),
        ]),
        _ => Line::from(says),
    };
    let mut lines = vec![free_line];
    lines.extend(legend);
    Section {
        title,
        right: Some(right),
        bar: Some(bar),
        lines,
        min_lines: 1,
    }
}

// ---- zswap ----------------------------------------------------------------------------------

/// debugfs values that are levels, not event counters.
fn is_gauge(k: &str) -> bool {
    matches!(
        k,
        "pool_total_size"
            | "stored_pages"
            | "same_filled_pages"
            | "stored_incompressible_pages"
            | "pool_pages"
    )
}

pub fn zswap(s: &Snapshot, t: &Theme, width: usize) -> Section {
    let z = &s.zswap;
    let title = Line::from(bold(t, "zswap"));
    if !z.available {
        let why = z
            .unavailable
            .first()
            .map(|m| m.reason.clone())
            .unwrap_or_default();
        return Section {
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
    let right = Line::from(vec![
        dim(t, "pool limit used "),
        bold(t, f::percent(z.pool_limit_used_percent)),
    ]);
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
            let mut keys: Vec<&String> = d.keys().filter(|k| !is_gauge(k)).collect();
            let rank = |k: &str| match k {
                "written_back_pages" => 0,
                "pool_limit_hit" => 1,
                k if k.starts_with("reject_") => 3,
                _ => 2,
            };
            keys.sort_by_key(|k| (rank(k), k.as_str()));
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
                        None => k.as_str(),
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
            let m = z.unavailable.iter().find(|m| m.item.starts_with("debugfs"));
            let mut l = vec![dim(t, "written_back, pool_limit_hit, rejects: ")];
            match m {
                Some(m) => {
                    l.push(Span::styled(m.reason.clone(), t.warn()));
                    if let Some(fix) = &m.fix {
                        l.push(dim(t, format!(" ({fix})")));
                    }
                }
                None => l.push(raw(t.missing())),
            }
            lines.push(Line::from(l));
        }
    }
    Section {
        title,
        right: Some(right),
        bar: None,
        lines,
        min_lines,
    }
}

/// The swap-traffic figures as text, for layouts without the traffic graph.
pub fn traffic_lines(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let known = s.rates.is_some();
    let r = s.rates.as_ref();
    let items = [
        ("zswpout", r.and_then(|r| r.zswpout_bytes_per_sec)),
        ("zswpin", r.and_then(|r| r.zswpin_bytes_per_sec)),
        ("zswpwb", r.and_then(|r| r.zswpwb_bytes_per_sec)),
        ("pswpout", r.and_then(|r| r.pswpout_bytes_per_sec)),
        ("pswpin", r.and_then(|r| r.pswpin_bytes_per_sec)),
        ("bypassed", r.and_then(|r| r.bypassed_zswap_bytes_per_sec)),
    ]
    .into_iter()
    .map(|(k, v)| vec![dim(t, format!("{k} ")), bold(t, f::rate_short(known, v))])
    .collect();
    let mut lines = widgets::flow(items, width.saturating_sub(7), t.sep(), 0);
    if let Some(first) = lines.first_mut() {
        first.spans.insert(0, dim(t, "swap/s "));
    }
    lines
}

// ---- swap and zram ----------------------------------------------------------------------------

/// Whether the kernel's global zswap figures can be put on one device: one swap device that
/// is not zram holds all of them.
pub(super) fn single_disk(s: &Snapshot) -> Option<usize> {
    let mut disks = s
        .swap
        .devices
        .iter()
        .enumerate()
        .filter(|(_, d)| !d.is_zram);
    match (disks.next(), disks.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

pub(super) fn split_line(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let w = &s.swap;
    let mut items = vec![
        vec![
            dim(t, "in zswap "),
            Span::styled(f::bytes(w.in_zswap_bytes), t.pool()),
        ],
        vec![
            dim(t, "in swap cache "),
            bold(t, f::bytes(w.in_swap_cache_bytes)),
        ],
    ];
    if s.swap.devices.iter().any(|d| d.is_zram) {
        items.push(vec![dim(t, "in zram "), bold(t, f::bytes(w.in_zram_bytes))]);
    }
    items.push(vec![
        dim(t, "on disk or zero-filled "),
        bold(t, f::bytes(w.not_in_ram_bytes)),
    ]);
    widgets::flow(items, width, t.sep(), 0)
}

/// The swap section of the overview: the split of used swap, then one line per device.
pub fn swap(s: &Snapshot, t: &Theme, width: usize) -> Section {
    let w = &s.swap;
    let right = Line::from(vec![
        bold(t, f::bytes(w.used_bytes)),
        dim(t, " used of "),
        raw(f::bytes(w.total_bytes)),
    ]);
    let mut lines = split_line(s, t, width);
    let min_lines = lines.len();
    if w.devices.is_empty() {
        lines.push(Line::from(dim(t, "no active swap devices")));
    }
    for d in &w.devices {
        let kind = if d.is_zram { "zram" } else { d.kind.as_str() };
        lines.push(Line::from(vec![
            raw(widgets::fit(&d.path, (width / 3).max(12), t.ascii)),
            dim(t, format!("  {kind}  size ")),
            raw(f::bytes_raw(d.size_bytes)),
            dim(t, "  used "),
            bold(t, f::bytes_raw(d.used_bytes)),
            dim(t, format!("  prio {}", d.priority)),
        ]));
    }
    Section {
        title: Line::from(bold(t, "Swap")),
        right: Some(right),
        bar: None,
        lines,
        min_lines,
    }
}

/// The zram section of the overview (only devices in use).
pub fn zram(s: &Snapshot, t: &Theme) -> Option<Section> {
    let used: Vec<_> = s
        .zram
        .iter()
        .filter(|z| z.initialized == Some(true))
        .collect();
    if used.is_empty() {
        return None;
    }
    let lines = used
        .iter()
        .map(|z| {
            Line::from(vec![
                bold(t, z.device.clone()),
                raw(format!(
                    " {}",
                    z.algorithm.clone().unwrap_or_else(|| t.missing().into())
                )),
                dim(t, "  orig "),
                raw(f::bytes(z.orig_data_bytes)),
                dim(t, "  compr "),
                raw(f::bytes(z.compr_data_bytes)),
                dim(t, "  mem used "),
                Span::styled(f::bytes(z.mem_used_bytes), t.pool()),
                dim(t, "  ratio "),
                bold(t, f::ratio(z.effective_ratio)),
            ])
        })
        .collect();
    Some(Section {
        title: Line::from(bold(t, "zram")),
        right: None,
        bar: None,
        lines,
        min_lines: 1,
    })
}

// ---- footer and help --------------------------------------------------------------------------

pub fn footer(app: &App, t: &Theme, width: usize) -> Line<'static> {
    let mut spans = vec![
        bold(t, " q"),
        dim(t, " quit  "),
        bold(t, "?"),
        dim(t, " help  "),
        bold(t, "space"),
        dim(t, if app.paused { " resume  " } else { " pause  " }),
        bold(t, "+/-"),
        dim(t, format!(" {}  ", f::interval(app.interval))),
        bold(t, "[ ]"),
        dim(t, format!(" {}  ", f::span(app.window))),
    ];
    let used: usize = spans.iter().map(Span::width).sum();
    // Every view by number and name where that fits, else the numbers with the current
    // view's name.
    let full: usize = View::ALL.iter().map(|v| v.name().chars().count() + 3).sum();
    let named = |v: View| used + full <= width || v == app.view;
    for (i, v) in View::ALL.iter().enumerate() {
        let label = if named(*v) {
            format!("{} {}", i + 1, v.name())
        } else {
            format!("{}", i + 1)
        };
        if *v == app.view {
            spans.push(Span::styled(label, t.badge()));
        } else {
            spans.push(dim(t, label));
        }
        spans.push(raw(" "));
    }
    Line::from(spans)
}

/// The help overlay: every key, centred over the screen.
pub fn help(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let mut lines: Vec<Line<'static>> = keys::HELP
        .iter()
        .map(|(k, what)| Line::from(vec![bold(t, format!(" {k:<16}")), raw(what.to_string())]))
        .collect();
    // A blank line before the settings where the screen has the room (keys, blank, two
    // settings lines and the border).
    if usize::from(area.height) >= lines.len() + 5 {
        lines.push(Line::from(""));
    }
    lines.push(Line::from(dim(
        t,
        format!(
            " now: every {}, graphs show {} of {} kept{}",
            f::interval(app.interval),
            f::span(app.window),
            f::span(app.history.max_age()),
            if app.paused { ", paused" } else { "" }
        ),
    )));
    lines.push(Line::from(dim(
        t,
        " rates are per second over the last interval",
    )));
    let w = (lines.iter().map(Line::width).max().unwrap_or(0) as u16 + 3).min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let x = area.x + (area.width - w) / 2;
    let y = area.y + (area.height - h) / 2;
    let r = Rect {
        x,
        y,
        width: w,
        height: h,
    };
    Clear.render(r, buf);
    let (hz, vt, tl, tr, bl, br) = if t.ascii {
        ("-", "|", "+", "+", "+", "+")
    } else {
        ("─", "│", "┌", "┐", "└", "┘")
    };
    for xx in r.x..r.x + r.width {
        buf[(xx, r.y)].set_symbol(hz);
        buf[(xx, r.y + r.height - 1)].set_symbol(hz);
    }
    for yy in r.y..r.y + r.height {
        buf[(r.x, yy)].set_symbol(vt);
        buf[(r.x + r.width - 1, yy)].set_symbol(vt);
    }
    buf[(r.x, r.y)].set_symbol(tl);
    buf[(r.x + r.width - 1, r.y)].set_symbol(tr);
    buf[(r.x, r.y + r.height - 1)].set_symbol(bl);
    buf[(r.x + r.width - 1, r.y + r.height - 1)].set_symbol(br);
    if r.width > 8 {
        buf.set_string(r.x + 2, r.y, " Keys ", t.title());
    }
    let inner = Rect {
        x: r.x + 1,
        y: r.y + 1,
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    };
    for (i, l) in lines.iter().enumerate() {
        widgets::put(buf, inner, i as u16, l);
    }
}
