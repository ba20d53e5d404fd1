//! Whose memory is swapped: the processes view (top processes by swap, with the share probably
//! in zswap) and the cgroups view (cgroup v2 memory, swap and zswap; v1 memory and swap). Both
//! are lists the app sorts and filters (`app::lists`); the rows come in that order, and only the
//! visible ones are formatted.
//!
//! Layout of both: a rule with the totals, a status line (sort, filter or the prompt), the
//! table, and a note at the bottom saying what the figures are.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::theme::Theme;
use super::widgets::{self, Col};
use super::widgets::{bold, dim, raw};
use crate::app::{App, Pane, View};
use crate::display as f;
use crate::error::Reason;
use crate::model::status::CMDLINE;

const fn col(title: &'static str, width: u16, right: bool) -> Col {
    Col {
        title,
        width,
        right,
    }
}

/// pid, name, user, rss, swap, ~in zswap, from, cgroup.
const PROC_COLS: [Col; 9] = [
    col("pid", 7, true),
    // A process name (comm) is at most 15 bytes.
    col("name", 16, false),
    col("user", 9, false),
    col("rss", 10, true),
    col("swap", 10, true),
    col("~in zswap", 10, true),
    col("from", 6, false),
    col("cgroup", 24, false),
    col("command", 0, false),
];
/// Kept first to last when the width is short (indices into `PROC_COLS`).
const PROC_KEEP: [usize; 9] = [0, 1, 4, 5, 3, 8, 2, 6, 7];

const CG_COLS: [Col; 11] = [
    col("cgroup", 0, false),
    col("memory", 7, true),
    col("swap", 7, true),
    col("zswap", 7, true),
    col("zswapped", 8, true),
    col("ratio", 6, true),
    col("zswpin/s", 8, true),
    col("zswpout/s", 9, true),
    col("zswpwb/s", 8, true),
    col("zswap.max", 9, true),
    col("writeback", 9, false),
];
const CG_KEEP: [usize; 11] = [0, 3, 4, 5, 2, 1, 7, 6, 8, 9, 10];

/// The narrowest the name columns get before other columns make way.
const MIN_NAME: u16 = 16;

const PROC_NOTE: &str = "~in zswap is an estimate: swap × Zswapped ÷ swap used, of the \
                         process's cgroup (v2) or of the whole system (global); the kernel has \
                         no per-process figure";
const CG_NOTE: &str = "zswap: compressed bytes charged to the cgroup · zswapped: those pages' \
                       original size · ratio: zswapped ÷ zswap · rates per second";

/// What the figures of a cgroup v1 tree are (src/sources/cgroups.rs).
const CG_NOTE_V1: &str = "memory: memory.usage_in_bytes · swap: memory.stat total_swap";

fn note_for(app: &App, view: View) -> Cow<'static, str> {
    if view != View::Cgroups {
        return Cow::Borrowed(PROC_NOTE);
    }
    match &app.shown.cgroups {
        Some(c) if c.is_v1() => {
            let mut parts = c.v1_notes();
            parts.push(CG_NOTE_V1.to_string());
            Cow::Owned(parts.join(" · "))
        }
        _ => Cow::Borrowed(CG_NOTE),
    }
}

/// The note's lines at this width (at most two).
fn note_lines(app: &App, view: View, width: usize, ascii: bool) -> Vec<String> {
    let note = note_for(app, view);
    let text = if ascii {
        Cow::Owned(note.replace('×', "x").replace('÷', "/"))
    } else {
        note
    };
    let mut l = f::wrap(&text, width, 0, 0);
    l.truncate(2);
    l
}

/// The parts of a list view: rule, status line, table (header + rows), note.
struct Parts {
    rule: Rect,
    status: Rect,
    table: Rect,
    note: Rect,
}

fn parts(area: Rect, note: u16) -> Parts {
    let row = |y: u16, h: u16| Rect {
        y: area.y + y.min(area.height),
        height: h.min(area.height.saturating_sub(y)),
        ..area
    };
    let table_h = area.height.saturating_sub(2 + note);
    Parts {
        rule: row(0, 1),
        status: row(1, 1),
        table: row(2, table_h),
        note: row(2 + table_h, note),
    }
}

/// Rows of the list that fit in `body` (the table's header taken off).
pub fn visible_rows(app: &App, view: View, body: Rect) -> usize {
    let note = note_lines(app, view, usize::from(body.width), app.settings.ascii).len() as u16;
    usize::from(parts(body, note).table.height.saturating_sub(1))
}

/// `sort swap↓ · / filter`, the filter, or the open prompt; then `extra` and the sort keys
/// where they fit in `width`.
fn status(
    app: &App,
    t: &Theme,
    sort: (&str, bool),
    shown: usize,
    total: usize,
    extra: Option<String>,
    width: usize,
) -> Line<'static> {
    let mut l = vec![
        dim(t, "sort "),
        bold(t, format!("{}{}", sort.0, t.arrow(sort.1))),
        Span::styled(t.sep(), t.dim()),
    ];
    let filter = app.filter().unwrap_or("");
    if app.prompt {
        l.push(dim(t, "filter: "));
        l.push(Span::styled(format!("{filter}{}", t.cursor()), t.badge()));
        l.push(dim(t, " Enter keeps it, Esc clears"));
        return Line::from(l);
    }
    if filter.is_empty() {
        l.push(dim(t, "/ filter"));
    } else {
        l.push(dim(t, "filter "));
        l.push(Span::styled(format!("\"{filter}\""), t.warn()));
        l.push(dim(t, format!(": {shown} of {total} · Esc clears")));
    }
    for part in [extra, Some("s < > column · r reverse".to_string())]
        .into_iter()
        .flatten()
    {
        let used: usize = l.iter().map(Span::width).sum();
        if used + t.sep().chars().count() + part.chars().count() <= width {
            l.push(Span::styled(t.sep(), t.dim()));
            l.push(dim(t, part));
        }
    }
    Line::from(l)
}

/// A message where the table would be.
fn message(buf: &mut Buffer, area: Rect, t: &Theme, text: &str) {
    for (i, l) in f::wrap(text, usize::from(area.width), 0, 0)
        .into_iter()
        .enumerate()
    {
        widgets::put(buf, area, i as u16, &Line::from(dim(t, l)));
    }
}

fn draw_note(buf: &mut Buffer, p: &Parts, app: &App, view: View, t: &Theme) {
    for (i, l) in note_lines(app, view, usize::from(p.note.width), t.ascii)
        .into_iter()
        .enumerate()
    {
        widgets::put(buf, p.note, i as u16, &Line::from(dim(t, l)));
    }
}

const PAUSED: &str = "paused: resume (space) to read them";

/// The processes view.
pub fn processes(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let s = &app.shown;
    let note = note_lines(app, View::Processes, usize::from(area.width), t.ascii).len() as u16;
    let p = parts(area, note);
    let right = s.processes.as_ref().map(|p| {
        if let Some(why) = &p.unreadable {
            return Line::from(dim(t, format!("unknown: {why}")));
        }
        let mut r = vec![
            bold(t, p.with_swap.to_string()),
            dim(t, format!(" of {} have swap, ", p.scanned)),
            bold(t, f::bytes_raw(p.total_swap_bytes)),
            dim(t, " in all"),
        ];
        if p.with_swap > p.top.len() {
            r.push(dim(t, format!("{}top {} kept", t.sep(), p.top.len())));
        }
        Line::from(r)
    });
    widgets::rule(
        buf,
        p.rule,
        Line::from(bold(t, "Processes by swap")),
        right,
        t,
    );
    let st = &app.procs;
    let sort_col = match st.sort {
        crate::app::lists::ProcSort::Pid => 0,
        crate::app::lists::ProcSort::Name => 1,
        crate::app::lists::ProcSort::Rss => 3,
        crate::app::lists::ProcSort::Swap => 4,
        crate::app::lists::ProcSort::Zswap => 5,
    };
    let desc = st.sort.descending() != st.reverse;
    let total = s.processes.as_ref().map_or(0, |p| p.top.len());
    widgets::put(
        buf,
        p.status,
        0,
        &status(
            app,
            t,
            (st.sort.label(), desc),
            app.proc_order.len(),
            total,
            app.scan_every
                .map(|d| format!("list read every {} (scan capped at 2% CPU)", f::interval(d))),
            usize::from(area.width),
        ),
    );
    draw_note(buf, &p, app, View::Processes, t);
    let Some(procs) = &s.processes else {
        let text = if app.replay.is_some() {
            "the recording holds no process list at this moment (zswaptop record --top N keeps one)"
                .to_string()
        } else if app.paused {
            format!("processes are read while this view is shown; {PAUSED}")
        } else {
            "reading every process's status…".to_string()
        };
        message(buf, p.table, t, &text);
        return;
    };
    if procs.top.is_empty() {
        message(buf, p.table, t, "no process has swapped memory");
        return;
    }
    if app.proc_order.is_empty() {
        message(
            buf,
            p.table,
            t,
            "no process matches the filter (Esc clears)",
        );
        return;
    }
    let keep = widgets::fit_columns(&PROC_COLS, &PROC_KEEP, MIN_NAME, area.width);
    let cols: Vec<Col> = keep
        .iter()
        .map(|&i| col(PROC_COLS[i].title, PROC_COLS[i].width, PROC_COLS[i].right))
        .collect();
    // A recording made without command lines says so in their column.
    let no_command = if s.sources.iter().any(|x| x.source == CMDLINE && !x.is_ok()) {
        "not recorded"
    } else {
        t.missing()
    };
    let visible = usize::from(p.table.height.saturating_sub(1));
    let max = app.proc_order.len().saturating_sub(visible);
    let offset = app.scroll(Pane::Processes).min(max);
    let rows: Vec<Vec<String>> = app
        .proc_order
        .iter()
        .skip(offset)
        .take(visible)
        .filter_map(|&i| procs.top.get(i))
        .map(|r| {
            let cells = [
                r.pid.to_string(),
                r.name.clone(),
                r.user.clone().unwrap_or_else(|| t.missing().into()),
                f::bytes(r.rss_bytes),
                f::bytes_raw(r.swap_bytes),
                f::bytes(r.zswap_estimate_bytes),
                match r.estimate_from.as_deref() {
                    Some("global ratio") => "global".into(),
                    Some(other) => other.into(),
                    None => t.missing().into(),
                },
                r.cgroup
                    .as_deref()
                    .map(|c| {
                        crate::sources::cgroups::unit_name(c)
                            .unwrap_or(c)
                            .to_string()
                    })
                    .unwrap_or_else(|| t.missing().into()),
                r.command.clone().unwrap_or_else(|| no_command.into()),
            ];
            keep.iter().map(|&i| cells[i].clone()).collect()
        })
        .collect();
    let sorted = keep.iter().position(|&i| i == sort_col).map(|i| (i, desc));
    widgets::sorted_table(buf, p.table, &cols, &rows, 0, sorted, t);
}

/// The cgroups view.
pub fn cgroups(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let s = &app.shown;
    let Some(cg) = &s.cgroups else {
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
        message(buf, rest, t, &text);
        return;
    };
    if !cg.available {
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
            "{reason}. The processes view (5) estimates each process's share of zswap from \
             the system-wide ratio instead."
        );
        for (y, l) in (1u16..).zip(f::wrap(&text, usize::from(area.width), 0, 0)) {
            widgets::put(buf, area, y, &Line::from(raw(l)));
        }
        return;
    }
    let note = note_lines(app, View::Cgroups, usize::from(area.width), t.ascii).len() as u16;
    let p = parts(area, note);
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
    let st = &app.cgroups;
    use crate::app::lists::CgroupSort as S;
    let sort = if v1 { st.sort.on_v1() } else { st.sort };
    let sort_col = match sort {
        S::Tree => 0,
        S::Memory => 1,
        S::Swap => 2,
        S::Zswap => 3,
        S::Zswapped => 4,
        S::Zswpout => 7,
    };
    let desc = sort.descending() != st.reverse;
    let keep = widgets::fit_columns(&CG_COLS, &CG_KEEP, MIN_NAME, area.width);
    let hidden: Vec<&str> = (0..CG_COLS.len())
        .filter(|i| !keep.contains(i))
        .map(|i| CG_COLS[i].title)
        .collect();
    let line = status(
        app,
        t,
        (sort.label(), desc),
        app.cgroup_order.len(),
        cg.list.len(),
        // On v1 the columns a wider terminal adds are zswap figures, all missing there.
        (!hidden.is_empty() && !v1).then(|| format!("wider: {}", hidden.join(" "))),
        usize::from(area.width),
    );
    widgets::put(buf, p.status, 0, &line);
    draw_note(buf, &p, app, View::Cgroups, t);
    if app.cgroup_order.is_empty() {
        let text = if cg.list.is_empty() {
            "no cgroup has memory accounting"
        } else {
            "no cgroup matches the filter (Esc clears)"
        };
        message(buf, p.table, t, text);
        return;
    }
    let cols: Vec<Col> = keep
        .iter()
        .map(|&i| col(CG_COLS[i].title, CG_COLS[i].width, CG_COLS[i].right))
        .collect();
    let visible = usize::from(p.table.height.saturating_sub(1));
    let max = app.cgroup_order.len().saturating_sub(visible);
    let offset = app.scroll(Pane::Cgroups).min(max);
    let known = s.rates.is_some() && !app.cgroup_rates_pending;
    let tree = st.sort == S::Tree;
    let rows: Vec<Vec<String>> = app
        .cgroup_order
        .iter()
        .skip(offset)
        .take(visible)
        .filter_map(|&i| cg.list.get(i))
        .map(|r| {
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
            let cells = [
                name,
                f::bytes_short_opt(r.memory_current_bytes),
                f::bytes_short_opt(r.swap_current_bytes),
                f::bytes_short_opt(r.zswap_bytes),
                f::bytes_short_opt(r.zswapped_bytes),
                f::ratio(r.compression_ratio),
                rate(r.zswpin_bytes_per_sec),
                rate(r.zswpout_bytes_per_sec),
                rate(r.zswpwb_bytes_per_sec),
                f::zswap_max(r.zswap_max_bytes, charged),
                f::on_off(r.zswap_writeback).to_string(),
            ];
            keep.iter().map(|&i| cells[i].clone()).collect()
        })
        .collect();
    let sorted = keep.iter().position(|&i| i == sort_col).map(|i| (i, desc));
    widgets::sorted_table(buf, p.table, &cols, &rows, 0, sorted, t);
}
