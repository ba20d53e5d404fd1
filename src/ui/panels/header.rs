//! The header: who and where, the zswap state, PSI, the findings and what is unavailable.

use ratatui::text::{Line, Span};

use crate::app::App;
use crate::display as f;
use crate::model::{Finding, Severity, Snapshot};
use crate::ui::theme::Theme;
use crate::ui::widgets::{bold, dim, joined, raw, sep};

/// The header's three lines: who and where, the zswap state, PSI, the findings and what is
/// unavailable.
pub fn header(app: &App, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let s = &app.shown;
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
    ];
    if app.replay.is_none() {
        l1.push(vec![dim(t, "every "), raw(f::interval(app.interval))]);
    }
    if s.host.root != "/" {
        l1.push(vec![dim(t, "tree "), raw(s.host.root.clone())]);
    }
    // The badge of a replay or a pause goes first.
    let mut badge = match &app.replay {
        Some(c) => {
            let shown = c.shown.unwrap_or(c.target);
            let time = c
                .time_of(shown)
                .and_then(crate::record::time::rfc3339_utc)
                .unwrap_or_else(|| miss.into());
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
    };
    // Too wide: whole fields go, never half of one (in the room the badge leaves) — live, the
    // tree, then the interval, the uptime, the host; in a replay, whose badge is wide, the tree,
    // the uptime, the kernel and the tool's name, so the recorded host stays.
    let room = width.saturating_sub(badge.iter().map(Span::width).sum());
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
    let mut l1 = joined(t, l1);
    badge.append(&mut l1.spans);
    l1.spans = badge;

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
    if !s.diagnostics.is_empty() {
        l3.push(sep(t));
        l3.push(dim(t, "findings "));
        l3.extend(finding_counts(&s.diagnostics, t));
    }
    let items = f::unavailable(s);
    if !items.is_empty() {
        l3.push(sep(t));
        l3.push(Span::styled("unavailable: ", t.warn()));
        let used: usize = l3.iter().map(Span::width).sum();
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
    }
    vec![l1, l2, Line::from(l3)]
}

/// The findings counted by severity (`2 crit, 1 warn`), each count in its severity's style.
pub fn finding_counts(findings: &[Finding], t: &Theme) -> Vec<Span<'static>> {
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
