//! Drawing: `draw(frame, &App)` is a pure function of the app's state. It reads the snapshot and
//! the history and writes the frame; nothing here samples, sleeps or changes the app.
//!
//! The layout adapts to the terminal: at 80×24 the overview shows the header, the real-memory
//! bar, the zswap panel with its counters, the swap split and one graph; taller and wider
//! terminals get all four graphs, device lines and the details of what is unavailable. Below
//! [`MIN_WIDTH`]×[`MIN_HEIGHT`] a single line says the terminal is too small.

pub mod advice;
pub mod devices;
pub mod graph;
pub mod kept;
pub mod owners;
pub mod panels;
pub mod theme;
pub mod widgets;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::{App, Pane, View};
pub use kept::Kept;
pub use theme::{Theme, locale_is_utf8};

pub const MIN_WIDTH: u16 = 50;
pub const MIN_HEIGHT: u16 = 12;

/// Rows a graph needs to be worth drawing (title + 4 rows of plot).
const GRAPH_MIN: u16 = 5;

/// Draw the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    render(frame.buffer_mut(), area, app);
}

/// Draw into a buffer (what `draw` does, without a terminal).
pub fn render(buf: &mut Buffer, area: Rect, app: &App) {
    render_kept(buf, area, app, &mut Kept::off());
}

/// Draw into a buffer, leaving out the panels `kept` says the terminal shows already (the
/// dashboard's frames; see [`kept`]).
pub fn render_kept(buf: &mut Buffer, area: Rect, app: &App, kept: &mut Kept) {
    let t = Theme::new(app.settings.color, app.settings.ascii);
    // The help is drawn over the panels: nothing is kept under it.
    kept.begin(!app.help);
    if area.width == 0 || area.height == 0 {
        return;
    }
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(buf, area, &t);
    } else {
        let header = panels::header(app, &t, usize::from(area.width));
        let top = Rect {
            height: HEADER_ROWS.min(area.height),
            ..area
        };
        kept.region(buf, top, &widgets::Lines(&header.lines));
        let body = body(area);
        match app.view {
            View::Overview => overview(buf, body, app, &t, header, kept),
            View::Graphs => graphs(buf, body, app, &t, kept),
            View::Devices => devices::draw(buf, body, app, &t),
            View::Diagnostics => advice::draw(buf, body, app, &t),
            View::Processes => owners::processes(buf, body, app, &t),
            View::Cgroups => owners::cgroups(buf, body, app, &t),
        }
        let footer = panels::footer(app, &t, usize::from(area.width));
        let bottom = Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        };
        kept.region(buf, bottom, &widgets::Lines(std::slice::from_ref(&footer)));
        if app.help {
            panels::help(buf, area, app, &t);
        }
    }
    if t.ascii {
        widgets::ascii_only(buf, area);
    }
}

/// The header's rows, above the body.
const HEADER_ROWS: u16 = 3;

/// Below the header's three rows and above the footer.
fn body(area: Rect) -> Rect {
    Rect {
        y: area.y + HEADER_ROWS,
        height: area.height.saturating_sub(HEADER_ROWS + 1),
        ..area
    }
}

/// How far each pane scrolls on the terminal the app last saw, by [`Pane::index`]: what the
/// loop tells the app ([`crate::app::Msg::Laid`]) before each draw.
///
/// Only the panes of the view shown are measured (laying out a list or the diagnostics text
/// costs a frame's worth of work); the others keep what they were last measured at (a pane
/// scrolls only while shown, so never past it), and the loop measures them again when their
/// view comes up.
pub fn max_scrolls(app: &App) -> [usize; 5] {
    Pane::ALL.map(|p| {
        if p.view() == app.view {
            max_scroll(app, p)
        } else {
            app.laid(p).0
        }
    })
}

/// How far PgUp/PgDn move each pane (by [`Pane::index`]) on the terminal the app last saw: the
/// rows it shows less one, so the last row of a page is the first of the next. Measured for the
/// panes of the view shown, as [`max_scrolls`].
pub fn pages(app: &App) -> [usize; 5] {
    let (w, h) = app.size;
    let body = body(Rect::new(0, 0, w, h));
    let less_one = |rows: usize| rows.saturating_sub(1).max(1);
    // Both device tables are measured in one layout, and only on their view.
    let devices = if app.view == View::Devices {
        devices::pages(&app.shown, app.settings.ascii, body)
    } else {
        (0, 0)
    };
    Pane::ALL.map(|p| match p {
        _ if p.view() != app.view => app.laid(p).1,
        Pane::Swap => devices.0,
        Pane::Zram => devices.1,
        Pane::Diagnostics => less_one(advice::text_rows(body.height)),
        Pane::Processes => less_one(owners::visible_rows(app, View::Processes, body)),
        Pane::Cgroups => less_one(owners::visible_rows(app, View::Cgroups, body)),
    })
}

/// Which view's name in the bottom line covers the cell at `column`, `row` on the terminal the
/// app last saw (what a mouse click there switches to).
pub fn view_at(app: &App, column: u16, row: u16) -> Option<View> {
    let (w, h) = app.size;
    if w < MIN_WIDTH || h < MIN_HEIGHT || row != h - 1 {
        return None;
    }
    let t = Theme::new(false, app.settings.ascii);
    let line = panels::footer(app, &t, usize::from(w));
    // The footer ends with each view's label followed by a space.
    let tabs_from = line.spans.len().checked_sub(2 * View::ALL.len())?;
    let mut x = 0usize;
    for (i, span) in line.spans.iter().enumerate() {
        let width = span.width();
        let col = usize::from(column);
        if i >= tabs_from && (i - tabs_from) % 2 == 0 && (x..x + width).contains(&col) {
            return View::ALL.get((i - tabs_from) / 2).copied();
        }
        x += width;
    }
    None
}

/// How far `pane` scrolls on the terminal the app last saw: the lists and the diagnostics
/// text until their last row is at the bottom, the device tables until their last row is at
/// the top.
pub fn max_scroll(app: &App, pane: Pane) -> usize {
    let (w, h) = app.size;
    let body = body(Rect::new(0, 0, w, h));
    match pane {
        Pane::Swap => app.shown.swap.devices.len().saturating_sub(1),
        Pane::Zram => app.shown.zram.len().saturating_sub(1),
        Pane::Diagnostics => {
            let t = Theme::new(false, app.settings.ascii);
            advice::lines(&app.shown, &t, usize::from(body.width))
                .len()
                .saturating_sub(advice::text_rows(body.height))
        }
        Pane::Processes => {
            app.proc_order
                .len()
                .saturating_sub(owners::visible_rows(app, View::Processes, body))
        }
        Pane::Cgroups => {
            app.cgroup_order
                .len()
                .saturating_sub(owners::visible_rows(app, View::Cgroups, body))
        }
    }
}

fn too_small(buf: &mut Buffer, area: Rect, t: &Theme) {
    let x = if t.ascii { "x" } else { "×" };
    let (w, h) = (area.width, area.height);
    // The longest that fits: shorter forms drop whole words, never cut a size.
    let msg = [
        format!("terminal too small: {w}{x}{h}, need {MIN_WIDTH}{x}{MIN_HEIGHT} (q quits)"),
        format!("too small: {w}{x}{h}, need {MIN_WIDTH}{x}{MIN_HEIGHT}"),
        format!("need {MIN_WIDTH}{x}{MIN_HEIGHT}"),
        format!("{MIN_WIDTH}{x}{MIN_HEIGHT}"),
    ]
    .into_iter()
    .find(|m| m.chars().count() <= usize::from(w))
    .unwrap_or_default();
    widgets::put(buf, area, 0, &Line::from(Span::styled(msg, t.warn())));
}

fn overview(
    buf: &mut Buffer,
    body: Rect,
    app: &App,
    t: &Theme,
    header: panels::Header,
    kept: &mut Kept,
) {
    let s = &app.shown;
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
    let strip_h = 1 + header.findings.len() as u16;
    let room = body.height.saturating_sub(total(&mem, &zsw, &swp, &zr));
    let urgent: Vec<Line<'static>> = if urgent_n > 0 && room < 2 * GRAPH_MIN + strip_h {
        header.findings.iter().take(urgent_n).cloned().collect()
    } else {
        Vec::new()
    };
    let urgent_h = urgent.len() as u16;
    let total = |m: &widgets::Titled,
                 z: &widgets::Titled,
                 sw: &widgets::Titled,
                 zr: &Option<widgets::Titled>| { total(m, z, sw, zr) + urgent_h };
    let mut graph_h = body.height.saturating_sub(total(&mem, &zsw, &swp, &zr));
    if graph_h < GRAPH_MIN {
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
            header.findings,
            Some("details and fixes: press 4"),
        ),
        ("Unavailable", t.warn(), header.unavailable, None),
    ] {
        if lines.is_empty() {
            continue;
        }
        let h = 1 + lines.len() as u16;
        if graph_h < 2 * GRAPH_MIN + h || (title == "Findings" && !urgent.is_empty()) {
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
        let rows = if area.height >= 2 * GRAPH_MIN { 2 } else { 1 };
        grid(buf, area, app, t, &order[..2 * rows], 2, kept);
    } else {
        let n = usize::from(area.height / GRAPH_MIN).clamp(1, 4);
        grid(buf, area, app, t, &order[..n], 1, kept);
    }
}

/// The graphs view: all four, in a 2×2 grid where it fits, else stacked.
fn graphs(buf: &mut Buffer, body: Rect, app: &App, t: &Theme, kept: &mut Kept) {
    let order = [&graph::POOL, &graph::TRAFFIC, &graph::RATIO, &graph::PSI];
    if body.width >= 80 || body.height < 4 * GRAPH_MIN {
        grid(buf, body, app, t, &order, 2, kept);
    } else {
        grid(buf, body, app, t, &order, 1, kept);
    }
}

/// Lay graphs out row by row in `cols` columns, sharing the area evenly.
fn grid(
    buf: &mut Buffer,
    area: Rect,
    app: &App,
    t: &Theme,
    gs: &[&graph::Graph],
    cols: usize,
    kept: &mut Kept,
) {
    if gs.is_empty() || cols == 0 {
        return;
    }
    let rows = gs.len().div_ceil(cols) as u16;
    let cols = cols as u16;
    for (i, g) in gs.iter().enumerate() {
        let (r, c) = (i as u16 / cols, i as u16 % cols);
        let y0 = area.y + area.height * r / rows;
        let y1 = area.y + area.height * (r + 1) / rows;
        let x0 = area.x + area.width * c / cols;
        let x1 = area.x + area.width * (c + 1) / cols;
        // A column of space between graphs side by side.
        let gap = u16::from(c + 1 < cols);
        let cell = Rect {
            x: x0,
            y: y0,
            width: (x1 - x0).saturating_sub(gap),
            height: y1 - y0,
        };
        graph::draw(buf, cell, g, app, t, kept);
    }
}
