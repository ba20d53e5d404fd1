//! The processes view: the top processes by swap, with the share probably in zswap. The list
//! is read only while the view is shown, sorted and filtered by the app (`app::lists`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{Tab, View};
use crate::app::lists;
use crate::app::lists::{ProcSort, Ordered, Rows};
use crate::app::{App, Kind, Laid, Settings, State};
use crate::model::Snapshot;
use crate::model::owners::ProcessRank;
use crate::sources::Extras;
use crate::display as f;
use crate::model::status::CMDLINE;
use crate::ui::kept::Kept;
use crate::ui::theme::Theme;
use crate::ui::widgets::list::{self as frame, MIN_NAME, PAUSED};
use crate::ui::widgets::{self, Col, bold, dim};

pub struct Processes;

/// A list its keys sort and filter ([`lists::keys`]). The processes are scanned only while it is
/// shown: every process's status, the top ones kept (`--top N`, else
/// [`TOP_PROCESSES`](crate::app::TOP_PROCESSES)).
impl Kind for Processes {
    fn panes(&self) -> &'static [&'static str] {
        &["processes"]
    }

    fn scans(&self, app: &App) -> Extras {
        let top = app.settings.extras.top_processes;
        Extras {
            top_processes: Some(top.unwrap_or(crate::app::TOP_PROCESSES)),
            // smaps_rollup walks every listed process's page tables: read only while the list
            // is sorted by what it gives.
            smaps: rows(app).list.sort == ProcSort::ShmSwap,
            ..Extras::default()
        }
    }

    fn is_list(&self) -> bool {
        true
    }

    fn state(&self, settings: &Settings) -> Box<dyn State> {
        Box::new(Rows::new(settings.proc_sort))
    }
}

/// The rows shown: the processes scanned, sorted and filtered.
impl Ordered for ProcSort {
    fn order(rows: &mut Rows<ProcSort>, shown: &Snapshot) {
        let Some(p) = &shown.processes else {
            rows.order = Vec::new();
            return;
        };
        if !rows.list.chosen {
            // Who is faulting now leads while anything faults; else who holds the most swap.
            rows.list.sort = match p.sorted_by {
                ProcessRank::MajorFaultsPerSec => ProcSort::Faults,
                ProcessRank::SwapBytes => ProcSort::Swap,
            };
        }
        rows.order = lists::process_order(&p.top, &rows.list);
    }
}

/// The view's state as the app keeps it.
fn rows(app: &App) -> &Rows<ProcSort> {
    static NONE: Rows<ProcSort> = Rows::new(ProcSort::Swap);
    app.state::<Rows<ProcSort>>().unwrap_or(&NONE)
}

impl Tab for Processes {
    fn lay_out(&self, app: &App, body: Rect, panes: &mut [Laid]) {
        let note = frame::note_lines(&note(app), usize::from(body.width), app.settings.ascii).len();
        if let Some(p) = panes.first_mut() {
            *p = frame::laid(rows(app).order.len(), body, note);
        }
    }

    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, _kept: &mut Kept) {
        processes(buf, body, app, t);
    }
}

/// pid, name, user, rss, swap, footprint, ~in zswap, ~compr, from, shm swap, faults/s, cgroup,
/// command.
const COLS: [Col; 13] = [
    Col::new("pid", 7, true),
    // A process name (comm) is at most 15 bytes.
    Col::new("name", 16, false),
    Col::new("user", 8, false),
    Col::new("rss", 10, true),
    Col::new("swap", 10, true),
    Col::new("footprint", 10, true),
    Col::new("~in zswap", 10, true),
    Col::new("~compr", 10, true),
    Col::new("from", 6, false),
    Col::new("shm swap", 10, true),
    Col::new("faults/s", 8, true),
    Col::new("cgroup", 20, false),
    Col::new("command", 0, false),
];
/// Kept first to last when the width is short (indices into `COLS`); the sort column is kept
/// just after pid and name ([`keep_order`]).
const KEEP: [usize; 13] = [0, 1, 4, 5, 10, 6, 3, 12, 11, 8, 2, 7, 9];

/// [`KEEP`] with the column sorted by moved up to third: a list sorted by a column shows it.
fn keep_order(sort_col: usize) -> [usize; 13] {
    let mut keep = KEEP;
    if let Some(at) = keep.iter().position(|&i| i == sort_col) {
        keep[2..=at.max(2)].rotate_right(usize::from(at > 2));
    }
    keep
}

const NOTE: &str = "footprint = rss + swap. ~in zswap and ~compr (the RAM its swap takes \
                    compressed) are estimates: swap × Zswapped, × (zswap pool + zram RAM), ÷ \
                    swap used, of its cgroup (v2) or global: no per-process figure exists. \
                    faults/s: major faults (swap-ins and file reads)";

/// The note while sorted by shm swap: what it is, and why a row's is unknown.
const SHM_NOTE: &str =
    "shm swap = smaps_rollup Swap − VmSwap (swapped shmem it maps), read while sorted by it";

/// The note under the table: what the figures are, and where the estimates rest on the
/// global ratio; while sorted by shm swap, what that is and why a row's is unknown.
fn note(app: &App) -> String {
    let Some(p) = app.shown.processes.as_ref() else {
        return NOTE.to_string();
    };
    if rows(app).list.sort == ProcSort::ShmSwap {
        return match p.top.iter().find_map(|r| r.smaps_missing.as_deref()) {
            Some(why) => format!("{SHM_NOTE}. —: {why}"),
            None => SHM_NOTE.to_string(),
        };
    }
    let global = p.top.iter().any(|r| {
        [&r.estimate_from, &r.compressed_estimate_from]
            .iter()
            .any(|f| f.as_deref() == Some("global ratio"))
    });
    if global {
        format!(
            "{NOTE}. global: {}",
            crate::model::owners::GLOBAL_ESTIMATE_NOTE
        )
    } else {
        NOTE.to_string()
    }
}

/// Where a row's estimates come from: "cgroup", "global", or both when the two differ
/// ("cg/gl": ~in zswap from the cgroup, ~compr from the global ratio, on a system with zram swap).
fn from(zswap: Option<&str>, compressed: Option<&str>, t: &Theme) -> String {
    let short = |f: &str| if f == "global ratio" { "global" } else { "cgroup" };
    match (zswap, compressed) {
        (Some(a), Some(b)) if a != b => format!("{}/{}", &short(a)[..2], &short(b)[..2]),
        (Some(a), _) | (None, Some(a)) => short(a).into(),
        (None, None) => t.missing().into(),
    }
}

/// The processes view.
fn processes(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let s = &app.shown;
    let note = frame::note_lines(&note(app), usize::from(area.width), t.ascii);
    let p = frame::parts(area, note.len() as u16);
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
        if let Some(n) = p.faulting {
            r.push(dim(t, format!("{}{n} faulting", t.sep())));
        }
        Line::from(r)
    });
    widgets::rule(
        buf,
        p.rule,
        Line::from(bold(
            t,
            match rows(app).list.sort {
                lists::ProcSort::Faults => "Processes by major faults",
                _ => "Processes by swap",
            },
        )),
        right,
        t,
    );
    let st = &rows(app).list;
    let sort_col = match st.sort {
        lists::ProcSort::Pid => 0,
        lists::ProcSort::Name => 1,
        lists::ProcSort::Rss => 3,
        lists::ProcSort::Swap => 4,
        lists::ProcSort::Footprint => 5,
        lists::ProcSort::Zswap => 6,
        lists::ProcSort::ShmSwap => 9,
        lists::ProcSort::Faults => 10,
    };
    let desc = st.sort.descending() != st.reverse;
    let total = s.processes.as_ref().map_or(0, |p| p.top.len());
    widgets::put(
        buf,
        p.status,
        0,
        &frame::status(
            app,
            t,
            (st.sort.label(), desc),
            rows(app).order.len(),
            total,
            app.scan_every
                .map(|d| format!("list read every {} (scan capped at 2% CPU)", f::interval(d))),
            usize::from(area.width),
        ),
    );
    frame::draw_note(buf, &p, note, t);
    let Some(procs) = &s.processes else {
        let text = if app.replay.is_some() {
            "the recording holds no process list at this moment (zswaptop record --top N keeps one)"
                .to_string()
        } else if app.paused {
            format!("processes are read while this view is shown; {PAUSED}")
        } else {
            "reading every process's status…".to_string()
        };
        frame::message(buf, p.table, t, &text);
        return;
    };
    if procs.top.is_empty() {
        frame::message(buf, p.table, t, "no process has swapped memory");
        return;
    }
    if rows(app).order.is_empty() {
        frame::message(
            buf,
            p.table,
            t,
            "no process matches the filter (Esc clears)",
        );
        return;
    }
    let keep = widgets::fit_columns(&COLS, &keep_order(sort_col), MIN_NAME, area.width);
    let cols: Vec<Col> = keep
        .iter()
        .map(|&i| Col::new(COLS[i].title, COLS[i].width, COLS[i].right))
        .collect();
    // A recording made without command lines says so in their column.
    let no_command = if s.sources.iter().any(|x| x.source == CMDLINE && !x.is_ok()) {
        "not recorded"
    } else {
        t.missing()
    };
    let visible = usize::from(p.table.height.saturating_sub(1));
    let max = rows(app).order.len().saturating_sub(visible);
    let offset = app.scroll(View::Processes).min(max);
    let rows: Vec<Vec<String>> = rows(app)
        .order
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
                f::bytes(r.footprint_bytes),
                f::bytes(r.zswap_estimate_bytes),
                f::bytes(r.compressed_estimate_bytes),
                from(r.estimate_from.as_deref(), r.compressed_estimate_from.as_deref(), t),
                f::bytes(r.shmem_swap_bytes),
                r.major_faults_per_sec
                    .map_or_else(|| t.missing().into(), |v| format!("{v:.1}")),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sort_column_is_kept_after_pid_and_name() {
        assert_eq!(keep_order(4), KEEP, "swap is third already");
        assert_eq!(keep_order(0), KEEP);
        let shm = keep_order(9);
        assert_eq!(&shm[..4], &[0, 1, 9, 4]);
        let mut sorted = shm;
        sorted.sort_unstable();
        assert_eq!(sorted, std::array::from_fn(|i| i), "every column once");
    }
}
