//! The cgroups view: memory, swap and zswap per cgroup (cgroup v2), memory and swap (v1). The
//! tree is walked only while the view is shown; the app sorts and filters the rows
//! (`app::lists`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{Tab, View};
use crate::app::lists;
use crate::app::lists::{CgroupSort, Ordered, Rows};
use crate::app::{App, Kind, Laid, Settings, State};
use crate::model::Snapshot;
use crate::model::cgroup_events::{CgroupEventRates, CgroupEvents, CgroupPressure};
use crate::sources::Extras;
use crate::display as f;
use crate::error::Reason;
use crate::ui::kept::Kept;
use crate::ui::theme::Theme;
use crate::ui::widgets::list::{self as frame, MIN_NAME, PAUSED};
use crate::ui::widgets::{self, Col, bold, dim, raw};

pub struct Cgroups;

/// A list its keys sort and filter ([`lists::keys`]). The tree is walked only while it is shown.
impl Kind for Cgroups {
    fn panes(&self) -> &'static [&'static str] {
        &["cgroups"]
    }

    fn scans(&self, _app: &App) -> Extras {
        Extras {
            cgroups: true,
            ..Extras::default()
        }
    }

    fn is_list(&self) -> bool {
        true
    }

    fn state(&self, settings: &Settings) -> Box<dyn State> {
        Box::new(Rows::new(settings.cgroup_sort))
    }
}

/// The rows shown: the cgroups read, sorted and filtered.
impl Ordered for CgroupSort {
    fn order(rows: &mut Rows<CgroupSort>, shown: &Snapshot) {
        rows.order = match &shown.cgroups {
            Some(c) => lists::cgroup_order(&c.list, &rows.list, c.is_v1()),
            None => Vec::new(),
        };
    }
}

/// The view's state as the app keeps it.
fn rows(app: &App) -> &Rows<CgroupSort> {
    static NONE: Rows<CgroupSort> = Rows::new(CgroupSort::Tree);
    app.state::<Rows<CgroupSort>>().unwrap_or(&NONE)
}

impl Tab for Cgroups {
    fn lay_out(&self, app: &App, body: Rect, panes: &mut [Laid]) {
        let note = note_lines(app, usize::from(body.width), app.settings.ascii).len();
        if let Some(p) = panes.first_mut() {
            *p = frame::laid(rows(app).order.len(), body, note);
        }
    }

    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, _kept: &mut Kept) {
        cgroups(buf, body, app, t);
    }
}

const COLS: [Col; 22] = [
    Col::new("cgroup", 0, false),
    Col::new("memory", 7, true),
    Col::new("swap", 7, true),
    Col::new("zswap", 7, true),
    Col::new("zswapped", 8, true),
    Col::new("ratio", 6, true),
    Col::new("zswpin/s", 8, true),
    Col::new("pswpin/s", 8, true),
    Col::new("zswpout/s", 9, true),
    Col::new("zswpwb/s", 8, true),
    Col::new("majflt/s", 8, true),
    Col::new("zswap.max", 9, true),
    Col::new("writeback", 9, false),
    Col::new("footprint", 9, true),
    Col::new("oom kill", 8, true),
    Col::new("high", 7, true),
    Col::new("high/s", 6, true),
    Col::new("max", 7, true),
    Col::new("max/s", 6, true),
    Col::new("psi some", 8, true),
    Col::new("psi full", 8, true),
    Col::new("headroom", 11, true),
];
/// The columns kept as the terminal narrows, most wanted first: the zswap figures, then the
/// footprint, OOM kills and the tightest limit's headroom, then the other rates and settings,
/// pressure and the events.
const KEEP: [usize; 22] = [
    0, 3, 4, 5, 2, 1, 8, 13, 14, 21, 6, 7, 10, 9, 11, 12, 19, 15, 17, 20, 16, 18,
];

/// "wider: a b c +N": the hidden columns' names that fit in `room` characters, and how many more.
fn wider_hint(hidden: &[&str], room: usize) -> String {
    let mut hint = "wider:".to_string();
    for (i, name) in hidden.iter().enumerate() {
        let left = hidden.len() - i - 1;
        let tail = if left > 0 { format!(" +{left}").len() } else { 0 };
        if hint.chars().count() + 1 + name.chars().count() + tail > room {
            return format!("{hint} +{}", hidden.len() - i);
        }
        hint.push(' ');
        hint.push_str(name);
    }
    hint
}

const NOTE: &str = "zswap: compressed bytes charged to the cgroup · zswapped: those pages' \
                       original size · ratio: zswapped ÷ zswap · swap-ins: zswpin/s from zswap, \
                       pswpin/s from a swap device · majflt/s: major faults (swap-ins and file \
                       reads) · rates per second · footprint: memory + swap + zswap, each \
                       byte once · oom kill, high, max: memory.events counts (+ this window's) \
                       · psi: memory.pressure avg10 · headroom: the tightest limit's (high, \
                       max, swap, zswap) limit − usage";

/// What the figures of a cgroup v1 tree are (src/sources/cgroups.rs), and what v1 lacks.
const NOTE_V1: &str = "memory: memory.usage_in_bytes · swap: memory.stat total_swap · \
                       majflt/s: total_pgmajfault · oom kill: memory.oom_control oom_kill \
                       (4.13+); v1 has no memory.events, memory.pressure, memory.high nor swap \
                       limits · headroom: memory.limit_in_bytes − usage";

/// What the figures are: v2's, or a v1 tree's with what v1 lacks.
fn note_lines(app: &App, width: usize, ascii: bool) -> Vec<String> {
    match &app.shown.cgroups {
        Some(c) if c.is_v1() => {
            let mut parts = c.v1_notes();
            parts.push(NOTE_V1.to_string());
            parts.push(crate::model::faults::V1_SWAPINS.to_string());
            frame::note_lines(&parts.join(" · "), width, ascii)
        }
        _ => frame::note_lines(NOTE, width, ascii),
    }
}

/// The cgroups view.
fn cgroups(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let s = &app.shown;
    let Some(cg) = &s.cgroups else {
        return unread(buf, area, app, t);
    };
    if !cg.available {
        return unavailable(buf, area, cg, t);
    }
    let note = note_lines(app, usize::from(area.width), t.ascii);
    let p = frame::parts(area, note.len() as u16);
    let mut right = vec![
        bold(t, cg.list.len().to_string()),
        dim(t, " cgroups with memory accounting"),
    ];
    // A large tree is read less often than every tick: say how old the list is.
    if let Some(age) = app.cgroup_list_age().filter(|a| *a >= app.interval) {
        right.push(dim(t, format!(" · read {} ago", f::interval(age))));
    }
    let right = Line::from(right);
    let v1 = cg.is_v1();
    let title = if v1 {
        "cgroups (v1 memory controller)"
    } else {
        "cgroups (v2)"
    };
    widgets::rule(buf, p.rule, Line::from(bold(t, title)), Some(right), t);
    let st = &rows(app).list;
    use lists::CgroupSort as S;
    let sort = if v1 { st.sort.on_v1() } else { st.sort };
    let sort_col = match sort {
        S::Tree => 0,
        S::Memory => 1,
        S::Swap => 2,
        S::Zswap => 3,
        S::Zswapped => 4,
        S::Zswpout => 8,
        S::Footprint => 13,
    };
    let desc = sort.descending() != st.reverse;
    let keep = widgets::fit_columns(&COLS, &KEEP, MIN_NAME, area.width);
    let hidden: Vec<&str> = (0..COLS.len())
        .filter(|i| !keep.contains(i))
        .map(|i| COLS[i].title)
        .collect();
    let line = frame::status(
        app,
        t,
        (sort.label(), desc),
        rows(app).order.len(),
        cg.list.len(),
        // On v1 the columns a wider terminal adds are zswap figures, all missing there.
        // The status line's start: "sort LABEL↓ · / filter · ".
        (!hidden.is_empty() && !v1).then(|| {
            wider_hint(
                &hidden,
                usize::from(area.width).saturating_sub(sort.label().chars().count() + 20),
            )
        }),
        usize::from(area.width),
    );
    widgets::put(buf, p.status, 0, &line);
    frame::draw_note(buf, &p, note, t);
    if rows(app).order.is_empty() {
        let text = if cg.list.is_empty() {
            "no cgroup has memory accounting"
        } else {
            "no cgroup matches the filter (Esc clears)"
        };
        frame::message(buf, p.table, t, text);
        return;
    }
    let cols: Vec<Col> = keep
        .iter()
        .map(|&i| Col::new(COLS[i].title, COLS[i].width, COLS[i].right))
        .collect();
    let visible = usize::from(p.table.height.saturating_sub(1));
    let max = rows(app).order.len().saturating_sub(visible);
    let offset = app.scroll(View::Cgroups).min(max);
    let known = s.rates.is_some() && !app.cgroup_rates_pending;
    let tree = st.sort == S::Tree;
    let rows: Vec<Vec<String>> = rows(app)
        .order
        .iter()
        .skip(offset)
        .take(visible)
        .filter_map(|&i| cg.list.get(i))
        .map(|r| {
            let cells = cells(r, tree, v1, known);
            keep.iter().map(|&i| cells[i].clone()).collect()
        })
        .collect();
    let sorted = keep.iter().position(|&i| i == sort_col).map(|i| (i, desc));
    widgets::sorted_table(buf, p.table, &cols, &rows, 0, sorted, t);
}

/// No cgroup tree to show yet: the recording holds none, the view is paused, or it is being
/// read.
fn unread(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    widgets::rule(
        buf,
        Rect { height: 1, ..area },
        Line::from(bold(t, "cgroups")),
        None,
        t,
    );
    let text = if app.replay.is_some() {
        "the recording holds no cgroup tree at this moment (the dashboard's --record keeps \
         one while its cgroups view is shown)"
            .to_string()
    } else if app.paused {
        format!("the cgroup tree is read while this view is shown; {PAUSED}")
    } else {
        "reading the cgroup tree…".to_string()
    };
    let rest = Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(1),
        ..area
    };
    frame::message(buf, rest, t, &text);
}

/// The cgroup tree could not be read: why, and where the processes view estimates instead.
fn unavailable(buf: &mut Buffer, area: Rect, cg: &crate::model::owners::Cgroups, t: &Theme) {
    widgets::rule(
        buf,
        Rect { height: 1, ..area },
        Line::from(bold(t, "cgroups")),
        Some(Line::from(Span::styled("not available", t.warn()))),
        t,
    );
    let reason = cg
        .reason
        .as_ref()
        .map_or("unavailable".into(), Reason::text);
    let text = format!(
        "{reason}. The processes view ({}) estimates each process's share of zswap \
         from the system-wide ratio instead.",
        View::Processes.number()
    );
    for (y, l) in (1u16..).zip(f::wrap(&text, usize::from(area.width), 0, 0)) {
        widgets::put(buf, area, y, &Line::from(raw(l)));
    }
}

/// One cgroup's cells, in [`COLS`]' order.
fn cells(r: &crate::model::owners::CgroupRow, tree: bool, v1: bool, known: bool) -> [String; COLS.len()] {
    let name = if tree {
        let leaf = r.path.rsplit('/').next().filter(|l| !l.is_empty());
        format!("{}{}", "  ".repeat(r.depth.min(8)), leaf.unwrap_or("/"))
    } else {
        r.unit.clone().unwrap_or_else(|| r.path.clone())
    };
    let charged = r.zswap_bytes.is_some();
    // v1 has no zswap figure: missing, not a rate pending.
    let rate = |v| {
        if v1 {
            f::MISSING.to_string()
        } else {
            f::rate_short(known, v)
        }
    };
    let event = |k: fn(&CgroupEvents) -> Option<u64>| {
        f::event_count(r.events.as_ref().and_then(k), r.events_new.as_ref().and_then(k))
    };
    let event_rate = |k: fn(&CgroupEventRates) -> Option<f64>| match &r.events {
        Some(e) if e.high.is_some() => {
            f::iops(known, r.events_per_sec.as_ref().and_then(k))
        }
        // v1 (oom_kill alone) or no memory.events: no rate to wait for.
        _ => f::MISSING.to_string(),
    };
    let pressure = |k: fn(&CgroupPressure) -> f64| {
        r.pressure
            .as_ref()
            .map_or(f::MISSING.to_string(), |p| format!("{:.1}", k(p)))
    };
    [
        name,
        f::bytes_short_opt(r.memory_current_bytes),
        f::bytes_short_opt(r.swap_current_bytes),
        f::bytes_short_opt(r.zswap_bytes),
        f::bytes_short_opt(r.zswapped_bytes),
        f::ratio(r.compression_ratio),
        rate(r.zswpin_bytes_per_sec),
        rate(r.pswpin_bytes_per_sec),
        rate(r.zswpout_bytes_per_sec),
        rate(r.zswpwb_bytes_per_sec),
        match r.major_faults_per_sec {
            Some(v) if known => format!("{v:.1}"),
            Some(_) => f::PENDING.to_string(),
            None => f::MISSING.to_string(),
        },
        f::zswap_max(r.zswap_max_bytes, charged),
        f::on_off(r.zswap_writeback).to_string(),
        f::bytes_short_opt(r.footprint_bytes()),
        event(|e| e.oom_kill),
        event(|e| e.high),
        event_rate(|e| e.high),
        event(|e| e.max),
        event_rate(|e| e.max),
        pressure(|p| p.some_avg10),
        pressure(|p| p.full_avg10),
        f::headroom_short(&r.limits),
    ]
}

#[cfg(test)]
mod tests {
    use super::wider_hint;

    #[test]
    fn the_hint_names_what_fits_and_counts_the_rest() {
        let cols = ["pswpin/s", "zswpwb/s", "majflt/s", "zswap.max"];
        assert_eq!(wider_hint(&cols, 80), "wider: pswpin/s zswpwb/s majflt/s zswap.max");
        assert_eq!(wider_hint(&cols, 30), "wider: pswpin/s zswpwb/s +2");
        assert_eq!(wider_hint(&cols, 5), "wider: +4");
    }
}
