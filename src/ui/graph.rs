//! Line graphs over the history ring, drawn straight into the buffer (no point vectors).
//!
//! x is time relative to the newest sample, across the zoom window; y runs from 0 to a rounded
//! maximum of what the window holds. Consecutive samples are joined; a missing value (`None`)
//! or a stretch with no samples breaks the line, so gaps show as gaps. With colour the lines
//! are braille dots (2×4 per cell); without colour, or in ASCII, each series has its own letter.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::kept::{Kept, Panel};
use super::theme::Theme;
use super::widgets;
use crate::app::App;
use crate::display as f;
use crate::history::History;
use crate::model::metrics::{self, GraphId, Metric, Series, Unit};

/// Rows a graph needs to be worth drawing (title + 4 rows of plot).
pub const GRAPH_MIN: u16 = 5;

/// A graph: its titles; its series are the registry's figures on it ([`metrics::in_graph`]).
pub struct Graph {
    pub id: GraphId,
    pub title: &'static str,
    pub short_title: &'static str,
}

pub const POOL: Graph = Graph {
    id: GraphId::Pool,
    title: "zswap pool & stored",
    short_title: "zswap pool",
};

pub const RATIO: Graph = Graph {
    id: GraphId::Ratio,
    title: "compression ratio",
    short_title: "ratio",
};

pub const TRAFFIC: Graph = Graph {
    id: GraphId::Traffic,
    title: "swap traffic per second",
    short_title: "swap/s",
};

pub const PSI: Graph = Graph {
    id: GraphId::Psi,
    title: "memory pressure (PSI, % of time stalled)",
    short_title: "PSI",
};

impl Graph {
    fn series(
        &self,
    ) -> impl DoubleEndedIterator<Item = (&'static Metric, Series)> + ExactSizeIterator + '_ {
        metrics::in_graph(self.id)
            .filter_map(|m| Some((m, m.series?)))
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// The unit all its series share (the registry's tests hold them to one).
    fn unit(&self) -> Unit {
        metrics::in_graph(self.id)
            .next()
            .map_or(Unit::Ratio, Metric::shown_unit)
    }
}

fn label(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Bytes | Unit::BytesPerSec | Unit::Pages => f::bytes_short(v.max(0.0) as u64),
        Unit::Ratio => format!("{v:.1}"),
        Unit::Share => format!("{:.0}%", v * 100.0),
        Unit::Percent => format!("{v:.0}%"),
        Unit::Seconds => f::duration_secs(Some(v)),
        Unit::Milliseconds | Unit::Microseconds | Unit::Events | Unit::Number => format!("{v:.0}"),
    }
}

/// The current value of a series, as its legend shows it.
fn current(unit: Unit, app: &App, m: &Metric) -> String {
    let v = m.value(&app.shown);
    let known = app.shown.rates.is_some();
    match unit {
        Unit::BytesPerSec => f::rate_short(known, v),
        Unit::Bytes | Unit::Pages => f::bytes_short_opt(v.map(|v| v as u64)),
        Unit::Ratio => f::ratio(v),
        Unit::Percent => f::percent_rate(known, v),
        Unit::Share | Unit::Seconds | Unit::Milliseconds | Unit::Number => {
            f::metric_value(m, &app.shown)
        }
        Unit::Microseconds | Unit::Events => f::per_sec(v),
    }
}

/// The widest value [`current`] shows in `unit`: `999.9M/s`, `999.9M`, `99.99:1`, `pending`.
fn value_room(unit: Unit) -> usize {
    match unit {
        Unit::BytesPerSec => "999.9M/s".len(),
        Unit::Bytes | Unit::Pages => "999.9M".len(),
        Unit::Ratio => "99.99:1".len(),
        Unit::Percent => f::PENDING.len(),
        Unit::Share | Unit::Seconds | Unit::Milliseconds | Unit::Number => "999.9 ms".len(),
        Unit::Microseconds | Unit::Events => "99999/s".len(),
    }
}

/// The top of the y axis: the window's maximum rounded up to a readable value.
pub(crate) fn nice_max(max: Option<f64>, unit: Unit) -> f64 {
    let m = max.filter(|m| m.is_finite() && *m > 0.0);
    match unit {
        Unit::Bytes | Unit::BytesPerSec | Unit::Pages => {
            let floor = if unit == Unit::Bytes {
                1024.0 * 1024.0
            } else {
                1024.0
            };
            let m = m.unwrap_or(0.0).max(floor);
            // A power of two in the largest binary unit below it: 512M, 1G, 2G...
            let mut p = 1.0;
            while p < m {
                p *= 2.0;
            }
            p
        }
        Unit::Ratio => (m.unwrap_or(1.0).max(1.0) * 2.0).ceil() / 2.0,
        Unit::Share => 1.0,
        Unit::Seconds | Unit::Milliseconds | Unit::Number => {
            // 1, 2, 5 times a power of ten: the first at or above the maximum.
            let m = m.unwrap_or(0.0).clamp(1.0, 1e15);
            let mut decade = 1.0;
            loop {
                if let Some(top) = [1.0, 2.0, 5.0]
                    .map(|k| k * decade)
                    .into_iter()
                    .find(|&t| t >= m)
                {
                    return top;
                }
                decade *= 10.0;
            }
        }
        Unit::Percent | Unit::Microseconds | Unit::Events => {
            let m = m.unwrap_or(0.0);
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
                .into_iter()
                .find(|&s| s >= m)
                .unwrap_or(100.0)
        }
    }
}

const BRAILLE_BITS: [[u8; 2]; 4] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]];

/// The plot's cells, row after row: what the dots drawn so far put in each, as the series
/// that drew there last (from 1; 0: no dot) in the high byte and the braille bits set there in
/// the low byte (none when each series has its own letter).
///
/// A panel is kept from one frame to the next by comparing its description ([`Kept`]), so the
/// description is the plot as it will be painted, one `u16` a cell: its size is the plot's area
/// whatever the samples do. A list of the dots drawn (as this once was) grew with how much the
/// lines move: a spiky window drew the same cells many times over, and the description buffers
/// that `Kept` reuses kept the largest size they had ever held (a dashboard at 0.1 s over a busy
/// machine gained ~200 KiB of heap in a few minutes once its graphs turned spiky, and kept it).
struct Plot {
    area: Rect,
    braille: bool,
    cols: i64,
    rows: i64,
    cells: Vec<u16>,
}

impl Plot {
    fn new(area: Rect, braille: bool) -> Plot {
        let (xr, yr) = if braille { (2, 4) } else { (1, 1) };
        Plot {
            area,
            braille,
            cols: i64::from(area.width) * xr,
            rows: i64::from(area.height) * yr,
            cells: vec![0; usize::from(area.width) * usize::from(area.height)],
        }
    }

    /// The dot at `x`, `y` of series number `s`.
    fn dot(&mut self, x: i64, y: i64, s: u8) {
        if x < 0 || y < 0 || x >= self.cols || y >= self.rows {
            return;
        }
        let from_top = self.rows - 1 - y;
        let (xr, yr) = if self.braille { (2, 4) } else { (1, 1) };
        // Both within the area: x < cols and from_top < rows.
        let i = (from_top / yr) as usize * usize::from(self.area.width) + (x / xr) as usize;
        let bit = if self.braille {
            BRAILLE_BITS[(from_top % 4) as usize][(x % 2) as usize]
        } else {
            0
        };
        if let Some(c) = self.cells.get_mut(i) {
            *c = (u16::from(s) + 1) << 8 | (*c & 0xff) | u16::from(bit);
        }
    }

    fn line(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), s: u8) {
        let n = (x1 - x0).abs().max((y1 - y0).abs());
        if n == 0 {
            self.dot(x1, y1, s);
            return;
        }
        for i in 0..=n {
            let x = x0 + ((x1 - x0) * i + n / 2 * (x1 - x0).signum()) / n;
            let y = y0 + ((y1 - y0) * i + n / 2 * (y1 - y0).signum()) / n;
            self.dot(x, y, s);
        }
    }
}

/// Put the plot's cells (see [`Plot`]) in the buffer at `area`: braille bits join the ones
/// already in the cell. `series`: the letter and style of each series, by number.
fn paint(buf: &mut Buffer, area: Rect, cells: &[u16], series: &[(char, Style)]) {
    let width = usize::from(area.width.max(1));
    for (i, &c) in cells.iter().enumerate() {
        let Some(&(glyph, style)) = usize::from(c >> 8)
            .checked_sub(1)
            .and_then(|s| series.get(s))
        else {
            continue;
        };
        // Within the area: `cells` has one entry a cell of it.
        let (x, y) = (area.x + (i % width) as u16, area.y + (i / width) as u16);
        let cell = &mut buf[(x, y)];
        let bits = u32::from(c & 0xff);
        if bits == 0 {
            cell.set_char(glyph).set_style(style);
            continue;
        }
        let old = cell.symbol().chars().next().map(u32::from).unwrap_or(0);
        let old = if (0x2800..=0x28ff).contains(&old) {
            old - 0x2800
        } else {
            0
        };
        let c = char::from_u32(0x2800 + (old | bits)).unwrap_or('*');
        cell.set_char(c).set_style(style);
    }
}

/// What a graph draws below its title and legend: the y axis with its labels, the window's
/// age, and the plot.
#[derive(Hash)]
struct Axis {
    body: Rect,
    top_label: String,
    lw: u16,
    age: Option<String>,
    /// Where the plot is, and its cells ([`Plot`]).
    plot: Rect,
    cells: Vec<u16>,
}

/// A graph as it is drawn: the title row (with the legend when it fits there), the legend rows
/// otherwise, the axis and plot, and each series' letter and style. A kept panel: drawn from
/// this value alone.
#[derive(Hash)]
struct Drawn {
    theme: Theme,
    title: Line<'static>,
    legend: Vec<Line<'static>>,
    axis: Option<Axis>,
    /// The letter and style of each series, by number.
    series: Vec<(char, Style)>,
}

impl Panel for Drawn {
    fn draw(&self, buf: &mut Buffer, area: Rect) {
        let t = &self.theme;
        widgets::rule(buf, Rect { height: 1, ..area }, self.title.clone(), None, t);
        for (y, l) in (area.y + 1..).zip(&self.legend) {
            widgets::set_line(buf, area.x, y, l, area.width);
        }
        if let Some(a) = &self.axis {
            paint_axis(buf, a, &self.series, t);
        }
    }
}

/// Draw one graph in `area`: a title row (with the legend when it fits there), legend rows
/// otherwise, then the plot with its y axis. Described first, so that `kept` can tell whether
/// the terminal shows it already.
pub(crate) fn draw(buf: &mut Buffer, area: Rect, g: &Graph, app: &App, t: &Theme, kept: &mut Kept) {
    if area.height == 0 || area.width < 8 {
        return;
    }
    let (title, legend) = heading(g, app, t, usize::from(area.width), area.height);
    let axis = axis(area, legend.len(), g, app, t);
    let series = g
        .series()
        .map(|(_, s)| (s.glyph, t.series(s.hue)))
        .collect();
    let drawn = Drawn {
        theme: *t,
        title,
        legend,
        axis,
        series,
    };
    kept.region(buf, area, &drawn);
}

/// The axis and plot below `legend` rows of legend, `None` where they do not fit.
fn axis(area: Rect, legend: usize, g: &Graph, app: &App, t: &Theme) -> Option<Axis> {
    let y = area.y + 1 + legend as u16;
    if y >= area.y + area.height {
        return None;
    }
    let body = Rect {
        y,
        height: area.y + area.height - y,
        ..area
    };
    let hist = app.shown_history();
    let span = app.window;
    let shown: Vec<&Metric> = g.series().map(|(m, _)| m).collect();
    let max = hist.max_in_window(&shown, span);
    let unit = g.unit();
    let top = nice_max(max, unit);
    let top_label = label(unit, top);
    let lw = top_label.chars().count().max(1) as u16;
    if body.width <= lw + 2 {
        return None;
    }
    let plot = Rect {
        x: body.x + lw + 1,
        width: body.width - lw - 1,
        ..body
    };
    // The oldest edge of the window, under the plot's first column.
    let age = (body.height >= 3).then(|| format!("-{}", f::span(span)));
    let mut p = Plot::new(plot, t.color && !t.ascii);
    draw_series(&mut p, g, hist, span, top, app);
    Some(Axis {
        body,
        top_label,
        lw,
        age,
        plot,
        cells: p.cells,
    })
}

fn paint_axis(buf: &mut Buffer, a: &Axis, series: &[(char, Style)], t: &Theme) {
    let (body, lw) = (a.body, a.lw);
    buf.set_string(
        body.x,
        body.y,
        format!("{:>w$}", a.top_label, w = usize::from(lw)),
        t.dim(),
    );
    if body.height >= 2 {
        buf.set_string(
            body.x,
            body.y + body.height - 1,
            format!("{:>w$}", "0", w = usize::from(lw)),
            t.dim(),
        );
    }
    let axis = if t.ascii { "|" } else { "│" };
    for yy in body.y..body.y + body.height {
        buf[(body.x + lw, yy)].set_symbol(axis).set_style(t.dim());
    }
    if let Some(age) = &a.age {
        buf.set_string(body.x + lw + 1, body.y + body.height - 1, age, t.dim());
    }
    paint(buf, a.plot, &a.cells, series);
}

fn draw_series(p: &mut Plot, g: &Graph, hist: &History, span: Duration, top: f64, app: &App) {
    let span_s = span.as_secs_f64().max(1e-3);
    let x_scale = (p.cols - 1) as f64 / span_s;
    let y_max = (p.rows - 1) as f64;
    let y_scale = y_max / top;
    // Samples further apart than this are not joined: the sampler was not running in between.
    let max_gap = 3.0 * app.interval.as_secs_f64() + 1.0;
    // Samples are gathered per x column (a long window puts many in one): each column is drawn
    // once as the span of its values, joined to the column before when the samples are.
    struct Col {
        x: i64,
        lo: i64,
        hi: i64,
        last: i64,
        t_last: f64,
    }
    // The first series last, so it stays on top where lines cross.
    for (n, (m, _)) in g.series().enumerate().rev() {
        // At most a handful of series a graph (the catalogue's tests hold them to few).
        let s = n as u8;
        let mut col: Option<Col> = None;
        let flush = |p: &mut Plot, c: &Col| {
            for y in c.lo..=c.hi {
                p.dot(c.x, y, s);
            }
        };
        for (tr, v) in hist.window(m, span) {
            let Some(v) = v else {
                if let Some(c) = col.take() {
                    flush(p, &c);
                }
                continue;
            };
            // Both are ≥ 0 (tr ≥ -span), so adding ½ and truncating rounds, without a libm call.
            let x = ((tr + span_s) * x_scale + 0.5) as i64;
            let y = ((v * y_scale).clamp(0.0, y_max) + 0.5) as i64;
            match col.as_mut() {
                Some(c) if c.x == x && tr - c.t_last <= max_gap => {
                    c.lo = c.lo.min(y);
                    c.hi = c.hi.max(y);
                    c.last = y;
                    c.t_last = tr;
                    continue;
                }
                _ => {}
            }
            if let Some(c) = col.take() {
                flush(p, &c);
                if tr - c.t_last <= max_gap {
                    p.line((c.x, c.last), (x, y), s);
                }
            }
            col = Some(Col {
                x,
                lo: y,
                hi: y,
                last: y,
                t_last: tr,
            });
        }
        if let Some(c) = col.take() {
            flush(p, &c);
        }
    }
}

/// The title row, and the legend rows that did not fit on it. Each series has its swatch,
/// name and current value; the names get shorter before the legend takes a second row, and the
/// legend is dropped where the plot would have fewer than two rows left. Which names, and where
/// the legend goes, are chosen for the widest value the unit can show ([`value_room`]), so they
/// depend on the graph's width and height only, never on the values of a frame.
fn heading(
    g: &Graph,
    app: &App,
    t: &Theme,
    width: usize,
    height: u16,
) -> (Line<'static>, Vec<Line<'static>>) {
    let window = format!(" last {}", f::span(app.window));
    let swatch = |s: &Series| -> Span<'static> {
        if t.color && !t.ascii {
            Span::styled("━", t.series(s.hue))
        } else {
            Span::styled(s.glyph.to_string(), t.series(s.hue))
        }
    };
    // `padded`: each value as wide as the widest the unit shows, for measuring.
    let room = value_room(g.unit());
    let items = |long: bool, padded: bool| -> Vec<Vec<Span<'static>>> {
        g.series()
            .map(|(m, s)| {
                let value = current(g.unit(), app, m);
                let value = if padded {
                    format!("{value:<room$}")
                } else {
                    value
                };
                vec![
                    swatch(&s),
                    Span::raw(format!(" {} ", if long { m.label } else { s.short })),
                    Span::styled(value, t.bold()),
                ]
            })
            .collect()
    };
    let title = |name: &'static str| {
        vec![
            Span::styled(name, t.title()),
            Span::styled(window.clone(), t.dim()),
        ]
    };
    let width_of = |v: &[Span<'_>]| v.iter().map(Span::width).sum::<usize>();
    // On the title row: the rule needs 2 columns on each side.
    // Each form's items are formatted once, and measured before any line is built of them.
    let (long_items, short_items) = (items(true, false), items(false, false));
    let (long_room, short_room) = (items(true, true), items(false, true));
    for (name, its, measured) in [
        (g.title, &long_items, &long_room),
        (g.title, &short_items, &short_room),
        (g.short_title, &long_items, &long_room),
        (g.short_title, &short_items, &short_room),
    ] {
        let w = width_of(&title(name)) + measured.iter().map(|it| 2 + width_of(it)).sum::<usize>();
        if w + 4 <= width {
            let mut line = title(name);
            for it in its {
                line.push(Span::raw("  "));
                line.extend(it.iter().cloned());
            }
            return (Line::from(line), Vec::new());
        }
    }
    let rows_left = usize::from(height).saturating_sub(3);
    let long = widgets::flow(long_room, width, "  ", 0).len();
    let short = widgets::flow(short_room, width, "  ", 0).len();
    // A short graph keeps its plot: one row of short names beats two of long ones. (The values
    // as they are take no more rows than at their widest.)
    let (rows, chosen) = if long <= 1 || (long <= 2 && (short > 1 || height >= 8)) {
        (long, long_items)
    } else {
        (short, short_items)
    };
    let rows = if rows <= rows_left {
        widgets::flow(chosen, width, "  ", 0)
    } else {
        Vec::new()
    };
    let name = if width_of(&title(g.title)) + 4 <= width {
        g.title
    } else {
        g.short_title
    };
    (Line::from(title(name)), rows)
}

/// Lay graphs out row by row in `cols` columns, sharing the area evenly: a row or column left
/// over goes to the last graphs.
///
/// Not ratatui's `Layout`: its `Fill` and `Ratio` give the row left over to the first graphs
/// (for 2 to 4 rows, 766 of 1,600 heights split otherwise than these frames do), and without
/// its layout cache (this build has none) a split of three parts costs ~0.4 ms on this machine,
/// of seven ~1.4 ms, against ~50 µs for a whole unchanged overview frame (measured in release
/// with `Layout::vertical(..).split(area)` in a loop, 20,000 splits).
pub(crate) fn grid(
    buf: &mut Buffer,
    area: Rect,
    app: &App,
    t: &Theme,
    gs: &[&Graph],
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
        draw(buf, cell, g, app, t, kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_tops_are_round() {
        assert_eq!(nice_max(Some(522_948_608.0), Unit::Bytes), 536_870_912.0);
        assert_eq!(nice_max(None, Unit::Bytes), 1_048_576.0);
        assert_eq!(nice_max(Some(0.0), Unit::BytesPerSec), 1024.0);
        assert_eq!(nice_max(Some(1.95), Unit::Ratio), 2.0);
        assert_eq!(nice_max(Some(2.38), Unit::Ratio), 2.5);
        assert_eq!(nice_max(None, Unit::Ratio), 1.0);
        assert_eq!(nice_max(Some(20.39), Unit::Percent), 50.0);
        assert_eq!(nice_max(Some(0.0), Unit::Percent), 1.0);
        assert_eq!(nice_max(Some(0.3), Unit::Share), 1.0);
        assert_eq!(nice_max(None, Unit::Seconds), 1.0);
        assert_eq!(nice_max(Some(1.5), Unit::Seconds), 2.0);
        assert_eq!(nice_max(Some(3_601.0), Unit::Seconds), 5_000.0);
        assert_eq!(nice_max(Some(f64::MAX), Unit::Milliseconds), 1e15);
    }
}
