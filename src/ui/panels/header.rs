//! The header: who and where, the zswap state, PSI, the findings and what is unavailable.

use ratatui::text::{Line, Span};

use crate::app::App;
use crate::display as f;
use crate::model::{Finding, Severity, Snapshot};
use crate::present::{self, Tone};
use crate::ui::theme::Theme;
use crate::ui::widgets::{bold, dim, joined, raw, sep};

/// The header's three lines: who and where, the zswap state, PSI, the findings and what is
/// unavailable.
pub(crate) fn header(app: &App, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let s = &app.shown;
    let mut l1 = badge(app, t);
    let room = width.saturating_sub(l1.iter().map(Span::width).sum());
    l1.extend(who_and_where(app, t, room).spans);
    vec![Line::from(l1), zswap_state(s, t), pressure(s, t, width)]
}

/// Line 1 without its badge, in `room` columns. Too wide: whole fields go, never half of one —
/// live, the tree, then the interval, the uptime, the host; in a replay, whose badge is wide,
/// the tree, the uptime, the kernel and the tool's name, so the recorded host stays.
fn who_and_where(app: &App, t: &Theme, room: usize) -> Line<'static> {
    let s = &app.shown;
    let facts = present::header::facts(s);
    let fact = |key| present::find(&facts, key);
    let labelled = |key| {
        fact(key).map_or_else(Vec::new, |x| {
            vec![dim(t, format!("{} ", x.label)), raw(x.value.clone())]
        })
    };
    let mut l1 = vec![
        fact("header.tool").map_or_else(Vec::new, |x| {
            vec![bold(t, x.label), dim(t, format!(" {}", x.value))]
        }),
        labelled("header.host"),
        labelled("header.kernel"),
        labelled("header.uptime"),
        fact("header.who").map_or_else(Vec::new, |x| {
            vec![Span::styled(x.value.clone(), tone(t, x.tone))]
        }),
    ];
    if app.replay.is_none() {
        l1.push(vec![dim(t, "every "), raw(f::interval(app.interval))]);
    }
    if fact("header.tree").is_some() {
        l1.push(labelled("header.tree"));
    }
    let order = if app.replay.is_some() {
        [5, 3, 2, 0]
    } else {
        [6, 5, 3, 1]
    };
    for drop in order {
        if joined(t, l1.clone()).width() <= room {
            break;
        }
        if drop < l1.len() {
            l1.remove(drop);
        }
    }
    joined(t, l1)
}

/// The badge of a replay (its time, state and place) or a pause, which goes first.
fn badge(app: &App, t: &Theme) -> Vec<Span<'static>> {
    match &app.replay {
        Some(c) => {
            let shown = c.shown.unwrap_or(c.target);
            let time = c
                .time_of(shown)
                .and_then(crate::record::time::rfc3339_utc)
                .unwrap_or_else(|| t.missing().into());
            let state = if c.playing {
                format!(" {} x{}", if t.ascii { ">" } else { "▶" }, c.speed())
            } else {
                format!(" paused x{}", c.speed())
            };
            vec![
                Span::styled(" REPLAY ", t.badge()),
                raw(" "),
                bold(t, time),
                dim(t, format!("{state}  {}/{}", shown + 1, c.len())),
                sep(t),
            ]
        }
        None if app.paused => vec![Span::styled(" PAUSED ", t.badge()), raw(" ")],
        None => Vec::new(),
    }
}

/// Line 3: memory pressure, the findings counted, and what could not be read.
fn pressure(s: &Snapshot, t: &Theme, width: usize) -> Line<'static> {
    let facts = present::header::facts(s);
    let mut l3 = match present::find(&facts, "header.pressure") {
        Some(p) if s.psi.is_some() => vec![dim(t, "PSI memory avg10 "), bold(t, p.value.clone())],
        _ => vec![dim(t, "PSI memory "), raw(t.missing())],
    };
    if !s.diagnostics.is_empty() {
        l3.push(sep(t));
        l3.push(dim(t, "findings "));
        l3.extend(finding_counts(&s.diagnostics, t));
    }
    let used: usize = l3.iter().map(Span::width).sum();
    l3.extend(unavailable(s, t, width.saturating_sub(used)));
    Line::from(l3)
}

/// What could not be read, in `room` columns: each item with its reason while they fit, then
/// how many more; when not even the first fits, its name alone, else only how many; when that
/// does not fit either, nothing (the overview's section lists them). Never half an item.
fn unavailable(s: &Snapshot, t: &Theme, room: usize) -> Vec<Span<'static>> {
    let items = f::unavailable(s);
    if items.is_empty() {
        return Vec::new();
    }
    let head = sep(t).width() + "unavailable: ".len();
    let mut text = String::new();
    let mut shown = 0;
    for m in &items {
        let piece = format!(
            "{}{} ({})",
            if shown > 0 { "; " } else { "" },
            m.item,
            m.reason.text()
        );
        let more = items.len() - shown - 1;
        let tail = if more > 0 { 12 } else { 0 };
        if head + text.chars().count() + piece.chars().count() + tail > room {
            break;
        }
        text.push_str(&piece);
        shown += 1;
    }
    text = match shown {
        // The first name alone, else how many.
        0 => {
            let first = match items.len() - 1 {
                0 => items[0].item.clone(),
                more => format!("{}; +{more} more", items[0].item),
            };
            if head + first.chars().count() <= room {
                first
            } else {
                items.len().to_string()
            }
        }
        n if n < items.len() => format!("{text}; +{} more", items.len() - n),
        _ => text,
    };
    if head + text.chars().count() > room {
        return Vec::new();
    }
    vec![sep(t), Span::styled("unavailable: ", t.warn()), raw(text)]
}

/// The findings counted by severity (`2 crit, 1 warn`), each count in its severity's style.
pub(crate) fn finding_counts(findings: &[Finding], t: &Theme) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    for (sev, count) in f::severity_counts(findings) {
        if !out.is_empty() {
            out.push(dim(t, ", "));
        }
        // An info count stays plain: only its tag is dimmed.
        let style = match sev {
            Severity::Info => t.plain(),
            _ => t.severity(sev),
        };
        out.push(Span::styled(count, style));
    }
    out
}

fn zswap_state(s: &Snapshot, t: &Theme) -> Line<'static> {
    let z = &s.zswap;
    if !z.available {
        let why = z
            .unavailable
            .first()
            .map(|m| format!(" ({})", m.reason.text()))
            .unwrap_or_default();
        return Line::from(vec![
            bold(t, "zswap "),
            Span::styled(format!("not available{why}"), t.warn()),
        ]);
    }
    let state = match z.enabled {
        Some(true) => Span::styled(f::on_off(z.enabled), t.good()),
        Some(false) => Span::styled(f::on_off(z.enabled), t.warn()),
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
            vec![
                dim(t, "shrinker "),
                raw(f::setting(z.shrinker_enabled, z.lacks("shrinker_enabled"))),
            ],
        ],
    )
}

/// Who read the figures: root in the good colour, anyone else in the warning one.
fn tone(t: &Theme, tone: Tone) -> ratatui::style::Style {
    match tone {
        Tone::Ok => t.good(),
        Tone::Dim => t.dim(),
        Tone::Warn | Tone::Crit => t.warn(),
    }
}
