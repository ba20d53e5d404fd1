//! The overview: everything at a glance. The real-memory bar, the zswap panel with its
//! counters, the graphs, the swap split and the zram devices; the findings and what is
//! unavailable where there is room to spare.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{Tab, View};
use crate::app::App;
use crate::ui::graph;
use crate::ui::kept::Kept;
use crate::ui::panels;
use crate::ui::theme::Theme;
use crate::ui::widgets;

pub struct Overview;

impl Tab for Overview {
    fn name(&self) -> &'static str {
        "overview"
    }

    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, kept: &mut Kept) {
        overview(buf, body, app, t, kept);
    }
}

fn overview(buf: &mut Buffer, body: Rect, app: &App, t: &Theme, kept: &mut Kept) {
    let s = &app.shown;
    let findings = panels::finding_lines(s, t);
    let unavailable = panels::unavailable_lines(s, t);
    let w = usize::from(body.width);
    let mut mem = panels::memory(s, t, w);
    let mut zsw = panels::zswap(s, t, w);
    let mut swp = panels::swap(s, t, w);
    let mut zr = panels::zram(s, t);
    let total = |m: &widgets::Titled,
                 z: &widgets::Titled,
                 sw: &widgets::Titled,
                 zr: &Option<widgets::Titled>| {
        m.height() + z.height() + sw.height() + zr.as_ref().map_or(0, widgets::Titled::height)
    };
    // A warn or crit finding is always on the overview: listed with the others at the bottom
    // when there is room for them all, else its line goes at the top, before everything else.
    let (crit, warn, _) = crate::diagnostics::counts(&s.diagnostics);
    let urgent_n = (crit + warn).min(2);
    let strip_h = 1 + findings.len() as u16;
    let room = body.height.saturating_sub(total(&mem, &zsw, &swp, &zr));
    let urgent: Vec<Line<'static>> = if urgent_n > 0 && room < 2 * graph::GRAPH_MIN + strip_h {
        findings.iter().take(urgent_n).cloned().collect()
    } else {
        Vec::new()
    };
    let urgent_h = urgent.len() as u16;
    let total = |m: &widgets::Titled,
                 z: &widgets::Titled,
                 sw: &widgets::Titled,
                 zr: &Option<widgets::Titled>| { total(m, z, sw, zr) + urgent_h };
    let mut graph_h = body.height.saturating_sub(total(&mem, &zsw, &swp, &zr));
    if graph_h < graph::GRAPH_MIN {
        graph_h = 0;
        // No graph: the traffic figures go in the zswap panel instead, then whatever is least
        // essential gives way: device lines, zram lines, counters, the legend.
        let at = zsw.min_lines.min(zsw.lines.len());
        let traffic = panels::traffic_lines(s, t, w);
        zsw.min_lines += traffic.len();
        for (i, l) in traffic.into_iter().enumerate() {
            zsw.lines.insert(at + i, l);
        }
        let mut over = total(&mem, &zsw, &swp, &zr).saturating_sub(body.height);
        for step in 0..4 {
            if over == 0 {
                break;
            }
            let sec: &mut widgets::Titled = match step {
                0 => &mut swp,
                1 => match zr.as_mut() {
                    Some(z) => z,
                    None => continue,
                },
                2 => &mut zsw,
                _ => &mut mem,
            };
            let before = sec.height();
            sec.shrink_to(before.saturating_sub(over));
            over -= before - sec.height();
        }
    }
    // Room to spare: the findings, then what is unavailable with the fixes, while the graphs
    // keep two rows of their own.
    let mut extra = Vec::new();
    for (title, style, lines, note) in [
        (
            "Findings",
            t.bold(),
            findings,
            Some(format!(
                "details and fixes: press {}",
                View::Diagnostics.number()
            )),
        ),
        ("Unavailable", t.warn(), unavailable, None),
    ] {
        if lines.is_empty() {
            continue;
        }
        let h = 1 + lines.len() as u16;
        if graph_h < 2 * graph::GRAPH_MIN + h || (title == "Findings" && !urgent.is_empty()) {
            continue;
        }
        graph_h -= h;
        extra.push(widgets::Titled {
            theme: *t,
            title: Line::from(Span::styled(title, style)),
            right: note.map(|n| Line::from(Span::styled(n, t.dim()))),
            bar: None,
            lines,
            min_lines: 0,
        });
    }

    let mut y = body.y;
    let end = body.y + body.height;
    let mut place = |buf: &mut Buffer, h: u16, f: &mut dyn FnMut(&mut Buffer, Rect)| {
        let h = h.min(end.saturating_sub(y));
        if h > 0 {
            f(
                buf,
                Rect {
                    y,
                    height: h,
                    ..body
                },
            );
        }
        y += h;
    };
    place(buf, urgent_h, &mut |b, r| {
        for (i, l) in urgent.iter().enumerate() {
            widgets::put(b, r, i as u16, l);
        }
    });
    place(buf, mem.height(), &mut |b, r| section(b, r, &mem, kept));
    place(buf, zsw.height(), &mut |b, r| section(b, r, &zsw, kept));
    if graph_h > 0 {
        place(buf, graph_h, &mut |b, r| {
            overview_graphs(b, r, app, t, kept)
        });
    }
    place(buf, swp.height(), &mut |b, r| section(b, r, &swp, kept));
    if let Some(z) = &zr {
        place(buf, z.height(), &mut |b, r| section(b, r, z, kept));
    }
    for e in &extra {
        place(buf, e.height(), &mut |b, r| section(b, r, e, kept));
    }
}

/// A section of the overview in `r`: a region of its own, kept while it reads the same.
fn section(buf: &mut Buffer, r: Rect, s: &widgets::Titled, kept: &mut Kept) {
    kept.region(buf, r, s);
}

/// The overview's graphs, by priority: swap traffic, pool, ratio, PSI.
fn overview_graphs(buf: &mut Buffer, area: Rect, app: &App, t: &Theme, kept: &mut Kept) {
    let order = [&graph::TRAFFIC, &graph::POOL, &graph::RATIO, &graph::PSI];
    if area.width >= 100 {
        let rows = if area.height >= 2 * graph::GRAPH_MIN {
            2
        } else {
            1
        };
        graph::grid(buf, area, app, t, &order[..2 * rows], 2, kept);
    } else {
        let n = usize::from(area.height / graph::GRAPH_MIN).clamp(1, 4);
        graph::grid(buf, area, app, t, &order[..n], 1, kept);
    }
}
