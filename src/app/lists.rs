//! Sorting and filtering the processes and cgroups lists, as pure functions over the rows: the
//! result is the order in which to show them (indices into the rows), the rows left alone.
//!
//! Like htop: one column is the sort key (`s` moves to the next, `<`/`>` either way, `r`
//! reverses); sizes sort largest first, pids and names ascending. A row whose key is unknown
//! goes last whichever the direction, and ties keep a stable order (by pid, or by path). The
//! filter keeps rows where any of the named fields contains the text, case-insensitively.

use std::cmp::Ordering;
use std::fmt;

use ratatui::crossterm::event::KeyCode;

use super::Action;
use super::view::{Acted, State};
use crate::model::Snapshot;
use crate::model::owners::{CgroupRow, ProcessRow};

/// The processes view's sort keys, in the order `s` cycles through them (the configuration
/// file names them in lower case: `processes_sort = "rss"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcSort {
    /// Major faults per second: the default while any process faults (until a sort is chosen).
    Faults,
    Swap,
    /// Resident + swapped.
    Footprint,
    Rss,
    Zswap,
    /// Swapped shmem (smaps_rollup, read only while the list is sorted by it).
    #[serde(rename = "shm_swap")]
    ShmSwap,
    Pid,
    Name,
}

impl ProcSort {
    pub const ALL: [ProcSort; 8] = [
        ProcSort::Faults,
        ProcSort::Swap,
        ProcSort::Footprint,
        ProcSort::Rss,
        ProcSort::Zswap,
        ProcSort::ShmSwap,
        ProcSort::Pid,
        ProcSort::Name,
    ];

    pub(crate) fn label(self) -> &'static str {
        match self {
            ProcSort::Faults => "faults/s",
            ProcSort::Swap => "swap",
            ProcSort::Footprint => "footprint",
            ProcSort::Rss => "rss",
            ProcSort::Zswap => "~in zswap",
            ProcSort::ShmSwap => "shm swap",
            ProcSort::Pid => "pid",
            ProcSort::Name => "name",
        }
    }

    /// Sizes read best largest first; pids and names in ascending order.
    pub(crate) fn descending(self) -> bool {
        matches!(
            self,
            ProcSort::Faults
                | ProcSort::Swap
                | ProcSort::Footprint
                | ProcSort::Rss
                | ProcSort::Zswap
                | ProcSort::ShmSwap
        )
    }
}

/// The cgroups view's sort keys: the tree (path order, indented), or a column, largest first
/// (the configuration file names them in lower case: `cgroups_sort = "tree"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CgroupSort {
    Zswap,
    Zswapped,
    Swap,
    Memory,
    Zswpout,
    /// memory + swap + zswap, each byte once ([`CgroupRow::footprint_bytes`]).
    Footprint,
    Tree,
}

impl CgroupSort {
    pub const ALL: [CgroupSort; 7] = [
        CgroupSort::Zswap,
        CgroupSort::Zswapped,
        CgroupSort::Swap,
        CgroupSort::Memory,
        CgroupSort::Zswpout,
        CgroupSort::Footprint,
        CgroupSort::Tree,
    ];

    pub(crate) fn label(self) -> &'static str {
        match self {
            CgroupSort::Zswap => "zswap",
            CgroupSort::Zswapped => "zswapped",
            CgroupSort::Swap => "swap",
            CgroupSort::Memory => "memory",
            CgroupSort::Zswpout => "zswpout/s",
            CgroupSort::Footprint => "footprint",
            CgroupSort::Tree => "tree",
        }
    }

    pub(crate) fn descending(self) -> bool {
        self != CgroupSort::Tree
    }

    /// The key a cgroup v1 tree is sorted by: it has no zswap figures, so the zswap keys sort
    /// by memory.
    pub(crate) fn on_v1(self) -> CgroupSort {
        match self {
            CgroupSort::Zswap | CgroupSort::Zswapped | CgroupSort::Zswpout => CgroupSort::Memory,
            other => other,
        }
    }
}

/// The keys of a list view, for the help.
pub const KEYS: &[(&str, &str)] = &[
    ("s  >  <", "next / previous sort column"),
    ("r  I", "reverse the sort"),
    ("/", "filter (Enter keeps it)"),
];

/// A list's sort keys, in the order `s` cycles through them.
pub trait SortKey: Copy + PartialEq + 'static {
    const KEYS: &'static [Self];
}

impl SortKey for ProcSort {
    const KEYS: &'static [Self] = &ProcSort::ALL;
}

impl SortKey for CgroupSort {
    const KEYS: &'static [Self] = &CgroupSort::ALL;
}

/// What the list keys change, whatever the list's sort keys.
pub trait SortFilter {
    /// Sort by the next column (or the one before), in its own direction.
    fn sort_by_next(&mut self, forward: bool);
    /// Flip the sort's direction.
    fn reverse(&mut self);
    fn filter(&self) -> &str;
    fn filter_mut(&mut self) -> &mut String;
}

impl<S: SortKey> SortFilter for ListState<S> {
    fn sort_by_next(&mut self, forward: bool) {
        self.sort = cycle(S::KEYS, self.sort, forward);
        self.reverse = false;
        self.chosen = true;
    }

    fn reverse(&mut self) {
        self.reverse = !self.reverse;
        self.chosen = true;
    }

    fn filter(&self) -> &str {
        &self.filter
    }

    fn filter_mut(&mut self) -> &mut String {
        &mut self.filter
    }
}

/// The next (or previous) key of `all` after `now`, wrapping around.
pub(crate) fn cycle<T: Copy + PartialEq>(all: &[T], now: T, forward: bool) -> T {
    let i = all.iter().position(|&x| x == now).unwrap_or(0);
    let n = all.len().max(1);
    let j = if forward {
        (i + 1) % n
    } else {
        (i + n - 1) % n
    };
    all.get(j).copied().unwrap_or(now)
}

/// What the keys of a list view ask for: sort by the next column (`s`, `>`) or the one before
/// (`<`), reverse (`r`, `I`), open the filter prompt (`/`). What the prompt's keys type is the
/// app's (the prompt is open over any list).
pub(crate) fn keys(code: KeyCode) -> Option<Action> {
    Some(match code {
        KeyCode::Char('s' | '>') => Action::SortNext,
        KeyCode::Char('<') => Action::SortPrev,
        KeyCode::Char('r' | 'I') => Action::SortReverse,
        KeyCode::Char('/') => Action::FilterOpen,
        _ => return None,
    })
}

/// Apply a list key's action to `list`.
pub(crate) fn act(list: &mut dyn SortFilter, a: Action) -> Acted {
    match a {
        Action::SortNext => list.sort_by_next(true),
        Action::SortPrev => list.sort_by_next(false),
        Action::SortReverse => list.reverse(),
        Action::FilterOpen => return Acted::Prompt,
        _ => return Acted::Not,
    }
    Acted::ListChanged
}

/// A list view's own state: its sort and filter, and the rows it shows.
#[derive(Debug, Clone)]
pub struct Rows<S> {
    pub list: ListState<S>,
    /// The rows shown, in order (indices into the snapshot's list).
    pub order: Vec<usize>,
}

impl<S> Rows<S> {
    pub(crate) const fn new(sort: S) -> Rows<S> {
        Rows {
            list: ListState::new(sort),
            order: Vec::new(),
        }
    }
}

/// The rows of a list view, in order: what its sort keys derive from the snapshot shown (the
/// view's file says it).
pub trait Ordered: SortKey + fmt::Debug + Send {
    fn order(rows: &mut Rows<Self>, shown: &Snapshot);
}

impl<S: Ordered + Clone> State for Rows<S> {
    fn act(&mut self, a: Action) -> Acted {
        act(&mut self.list, a)
    }

    fn list(&self) -> Option<&dyn SortFilter> {
        Some(&self.list)
    }

    fn list_mut(&mut self) -> Option<&mut dyn SortFilter> {
        Some(&mut self.list)
    }

    fn refresh(&mut self, shown: &Snapshot) {
        S::order(self, shown);
    }

    fn rows(&self) -> usize {
        self.order.capacity()
    }
}

/// A sort and a filter: what the list views keep per view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListState<S> {
    pub sort: S,
    /// Flip the key's natural direction.
    pub reverse: bool,
    /// Case-insensitive text to match; empty keeps every row.
    pub filter: String,
    /// A sort was chosen with the keys: the default no longer follows what the list holds.
    pub chosen: bool,
}

impl<S> ListState<S> {
    pub(crate) const fn new(sort: S) -> ListState<S> {
        ListState {
            sort,
            reverse: false,
            filter: String::new(),
            chosen: false,
        }
    }
}

/// `hay` contains `needle_lower` (already lower case), ignoring case.
fn contains(hay: &str, needle_lower: &str) -> bool {
    if hay.is_ascii() && needle_lower.is_ascii() {
        let (h, n) = (hay.as_bytes(), needle_lower.as_bytes());
        return n.is_empty()
            || h.windows(n.len())
                .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b));
    }
    hay.to_lowercase().contains(needle_lower)
}

/// Whether a process matches the filter (its needle lower-cased): name, user, cgroup or command
/// line.
fn process_hit(p: &ProcessRow, needle_lower: &str) -> bool {
    needle_lower.is_empty()
        || contains(&p.name, needle_lower)
        || p.user.as_deref().is_some_and(|u| contains(u, needle_lower))
        || p.cgroup
            .as_deref()
            .is_some_and(|c| contains(c, needle_lower))
        || p.command
            .as_deref()
            .is_some_and(|c| contains(c, needle_lower))
}

/// Whether a cgroup matches the filter (its needle lower-cased): its path, which holds its unit
/// name.
fn cgroup_hit(c: &CgroupRow, needle_lower: &str) -> bool {
    needle_lower.is_empty() || contains(&c.path, needle_lower)
}

/// Compare two optional keys: known before unknown, then by value in `dir`.
fn by<T: PartialOrd>(a: Option<T>, b: Option<T>, desc: bool) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => {
            let o = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
            if desc { o.reverse() } else { o }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// The processes to show, in order: indices into `rows`.
pub(crate) fn process_order(rows: &[ProcessRow], state: &ListState<ProcSort>) -> Vec<usize> {
    let needle = state.filter.trim().to_lowercase();
    let mut idx: Vec<usize> = (0..rows.len())
        .filter(|&i| process_hit(&rows[i], &needle))
        .collect();
    let desc = state.sort.descending() != state.reverse;
    idx.sort_by(|&i, &j| {
        let (a, b) = (&rows[i], &rows[j]);
        let o =
            match state.sort {
                ProcSort::Faults => by(a.major_faults_per_sec, b.major_faults_per_sec, desc)
                    .then(by(Some(a.swap_bytes), Some(b.swap_bytes), true)),
                ProcSort::Swap => by(Some(a.swap_bytes), Some(b.swap_bytes), desc),
                ProcSort::Footprint => by(a.footprint_bytes, b.footprint_bytes, desc),
                ProcSort::Rss => by(a.rss_bytes, b.rss_bytes, desc),
                ProcSort::ShmSwap => by(a.shmem_swap_bytes, b.shmem_swap_bytes, desc),
                ProcSort::Zswap => by(a.zswap_estimate_bytes, b.zswap_estimate_bytes, desc),
                ProcSort::Pid => by(Some(a.pid), Some(b.pid), desc),
                ProcSort::Name => by(
                    Some(a.name.to_lowercase()),
                    Some(b.name.to_lowercase()),
                    desc,
                ),
            };
        o.then(a.pid.cmp(&b.pid))
    });
    idx
}

/// The cgroups to show, in order: indices into `rows`. The tree keeps the order the rows were
/// read in (depth-first, siblings by name), or its reverse. A v1 tree sorts by
/// [`CgroupSort::on_v1`].
pub(crate) fn cgroup_order(
    rows: &[CgroupRow],
    state: &ListState<CgroupSort>,
    v1: bool,
) -> Vec<usize> {
    let needle = state.filter.trim().to_lowercase();
    let mut idx: Vec<usize> = (0..rows.len())
        .filter(|&i| cgroup_hit(&rows[i], &needle))
        .collect();
    let sort = if v1 { state.sort.on_v1() } else { state.sort };
    let desc = sort.descending() != state.reverse;
    if sort == CgroupSort::Tree {
        if state.reverse {
            idx.reverse();
        }
        return idx;
    }
    idx.sort_by(|&i, &j| {
        let (a, b) = (&rows[i], &rows[j]);
        let o = match sort {
            CgroupSort::Zswap => by(a.zswap_bytes, b.zswap_bytes, desc),
            CgroupSort::Zswapped => by(a.zswapped_bytes, b.zswapped_bytes, desc),
            CgroupSort::Swap => by(a.swap_current_bytes, b.swap_current_bytes, desc),
            CgroupSort::Memory => by(a.memory_current_bytes, b.memory_current_bytes, desc),
            CgroupSort::Zswpout => by(a.zswpout_bytes_per_sec, b.zswpout_bytes_per_sec, desc),
            CgroupSort::Footprint => by(a.footprint_bytes(), b.footprint_bytes(), desc),
            CgroupSort::Tree => Ordering::Equal,
        };
        o.then(a.path.cmp(&b.path))
    });
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process_matches(p: &ProcessRow, filter: &str) -> bool {
        process_hit(p, &filter.trim().to_lowercase())
    }

    fn cgroup_matches(c: &CgroupRow, filter: &str) -> bool {
        cgroup_hit(c, &filter.trim().to_lowercase())
    }

    fn p(pid: u32, name: &str, user: Option<&str>, rss: Option<u64>, swap: u64) -> ProcessRow {
        ProcessRow {
            pid,
            name: name.into(),
            user: user.map(str::to_string),
            rss_bytes: rss,
            swap_bytes: swap,
            zswap_estimate_bytes: Some(swap / 2),
            estimate_from: Some("global ratio".into()),
            footprint_bytes: rss.map(|r| r + swap),
            compressed_estimate_bytes: Some(swap / 4),
            compressed_estimate_from: Some("global ratio".into()),
            shmem_swap_bytes: None,
            swap_pss_bytes: None,
            smaps_missing: None,
            command: None,
            cgroup: None,
            major_faults_per_sec: None,
        }
    }

    fn rows() -> Vec<ProcessRow> {
        let mut v = vec![
            p(30, "postgres", Some("postgres"), Some(300), 100),
            p(10, "Firefox", Some("alice"), None, 500),
            p(20, "bash", Some("alice"), Some(50), 100),
            p(40, "hog", None, Some(900), 700),
        ];
        v[3].cgroup = Some("/system.slice/hog.service".into());
        v[3].zswap_estimate_bytes = None;
        v
    }

    fn order(sort: ProcSort, reverse: bool, filter: &str) -> Vec<u32> {
        let r = rows();
        let st = ListState {
            sort,
            reverse,
            filter: filter.into(),
            chosen: true,
        };
        process_order(&r, &st).iter().map(|&i| r[i].pid).collect()
    }

    #[test]
    fn sorts_by_each_key() {
        assert_eq!(
            order(ProcSort::Swap, false, ""),
            [40, 10, 20, 30],
            "ties by pid"
        );
        assert_eq!(
            order(ProcSort::Rss, false, ""),
            [40, 30, 20, 10],
            "unknown last"
        );
        assert_eq!(order(ProcSort::Zswap, false, ""), [10, 20, 30, 40]);
        assert_eq!(order(ProcSort::Pid, false, ""), [10, 20, 30, 40]);
        assert_eq!(
            order(ProcSort::Name, false, ""),
            [20, 10, 40, 30],
            "names ignore case"
        );
    }

    #[test]
    fn reverse_flips_the_direction_but_unknowns_stay_last() {
        assert_eq!(order(ProcSort::Swap, true, ""), [20, 30, 10, 40]);
        assert_eq!(order(ProcSort::Rss, true, ""), [20, 30, 40, 10]);
        assert_eq!(order(ProcSort::Pid, true, ""), [40, 30, 20, 10]);
    }

    #[test]
    fn filters_on_name_user_and_cgroup_ignoring_case() {
        assert_eq!(order(ProcSort::Swap, false, "fire"), [10]);
        assert_eq!(order(ProcSort::Swap, false, "ALICE"), [10, 20]);
        assert_eq!(order(ProcSort::Swap, false, "hog.service"), [40]);
        assert_eq!(order(ProcSort::Swap, false, "  "), [40, 10, 20, 30]);
        assert!(order(ProcSort::Swap, false, "nothing").is_empty());
        assert!(process_matches(&rows()[1], "FOX"));
        assert!(!process_matches(&rows()[0], "fox"));
    }

    #[test]
    fn non_ascii_filter() {
        let r = vec![p(1, "Ärger", None, None, 1), p(2, "x", None, None, 1)];
        let st = ListState {
            sort: ProcSort::Pid,
            reverse: false,
            filter: "äR".into(),
            chosen: true,
        };
        assert_eq!(process_order(&r, &st), [0]);
    }

    fn cg(path: &str, zswap: Option<u64>, mem: Option<u64>) -> CgroupRow {
        CgroupRow {
            path: path.into(),
            unit: crate::sources::cgroups::unit_name(path).map(str::to_string),
            depth: path.matches('/').count() - usize::from(path == "/"),
            memory_current_bytes: mem,
            swap_current_bytes: None,
            zswap_bytes: zswap,
            zswapped_bytes: None,
            compression_ratio: None,
            zswpin_bytes_per_sec: None,
            zswpout_bytes_per_sec: None,
            zswpwb_bytes_per_sec: None,
            pswpin_bytes_per_sec: None,
            swapin_hit_ratio: None,
            major_faults_per_sec: None,
            ..CgroupRow::default()
        }
    }

    /// memory + swap + zswap: memory.current holds the zswap pool, swap.current the slots of
    /// what zswap holds (zswapped), so the sum is memory + swap − zswapped; v1 (no zswapped):
    /// memory + swap.
    #[test]
    fn cgroups_by_memory_swap_and_zswap() {
        let with = |path: &str, mem: u64, swap: u64, zswapped: Option<u64>| CgroupRow {
            swap_current_bytes: Some(swap),
            zswapped_bytes: zswapped,
            ..cg(path, None, Some(mem))
        };
        let r = vec![
            // 100 in RAM, 300 swapped of which 250 in zswap: 150.
            with("/a", 100, 300, Some(250)),
            // 120 in RAM, nothing swapped: 120.
            with("/b", 120, 0, Some(0)),
            // 50 in RAM, 200 on disk: 250.
            with("/c", 50, 200, Some(0)),
            cg("/d", None, None),
        ];
        assert_eq!(r[0].footprint_bytes(), Some(150));
        let st = ListState {
            sort: CgroupSort::Footprint,
            reverse: false,
            filter: String::new(),
            chosen: true,
        };
        assert_eq!(cgroup_order(&r, &st, false), [2, 0, 1, 3]);
        assert_eq!(cgroup_order(&r, &st, true), [2, 0, 1, 3], "kept on v1");
    }

    #[test]
    fn cgroups_sort_filter_and_tree() {
        let r = vec![
            cg("/", Some(100), Some(1000)),
            cg("/system.slice", Some(60), Some(400)),
            cg("/system.slice/a.service", Some(10), None),
            cg("/system.slice/b.service", Some(50), Some(300)),
            cg("/user.slice", None, Some(500)),
        ];
        let st = |sort, reverse, filter: &str| ListState {
            sort,
            reverse,
            filter: filter.into(),
            chosen: true,
        };
        assert_eq!(
            cgroup_order(&r, &st(CgroupSort::Zswap, false, ""), false),
            [0, 1, 3, 2, 4]
        );
        // cgroup v1 has no zswap figures: the zswap keys sort by memory.
        assert_eq!(
            cgroup_order(&r, &st(CgroupSort::Zswap, false, ""), true),
            [0, 4, 1, 3, 2]
        );
        assert_eq!(
            cgroup_order(&r, &st(CgroupSort::Zswpout, true, ""), true),
            cgroup_order(&r, &st(CgroupSort::Memory, true, ""), false)
        );
        assert_eq!(
            cgroup_order(&r, &st(CgroupSort::Memory, true, ""), false),
            [3, 1, 4, 0, 2]
        );
        assert_eq!(
            cgroup_order(&r, &st(CgroupSort::Tree, false, ""), false),
            [0, 1, 2, 3, 4]
        );
        assert_eq!(
            cgroup_order(&r, &st(CgroupSort::Tree, true, "SERVICE"), false),
            [3, 2]
        );
        assert!(cgroup_matches(&r[2], "a.serv"));
    }

    #[test]
    fn cycling_wraps() {
        assert_eq!(
            cycle(&ProcSort::ALL, ProcSort::Name, true),
            ProcSort::Faults
        );
        assert_eq!(
            cycle(&ProcSort::ALL, ProcSort::Faults, false),
            ProcSort::Name
        );
        assert_eq!(
            cycle(&CgroupSort::ALL, CgroupSort::Zswap, true),
            CgroupSort::Zswapped
        );
    }
}
