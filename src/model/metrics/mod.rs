//! The registry of figures: every figure zswaptop follows over time or exports is declared once,
//! as one [`Metric`] of [`REGISTRY`] (`registry.rs`), and each output asks the registry which
//! figures it carries ([`reaching`]) instead of keeping a list of its own.
//!
//! # A declaration
//!
//! - `id`: unique, lowercase with underscores. The key of `rates.per_sec` (counters) and the stem
//!   every format names the figure from.
//! - `label`: what the graph legends and the text report call it (empty for a figure no view
//!   shows).
//! - `unit`: what the value counts, as read ([`Unit`]); `kind`: gauge, counter, info, state or
//!   histogram ([`Kind`]); `help`: one sentence on what it is and where the kernel gives it.
//! - `read`: how the value is read ([`Read`]): one value off the [`Snapshot`]; a kernel counter
//!   off the raw [`Sample`] (a vmstat line, a zswap debugfs file, a PSI total: what a recording
//!   keeps, so that replay and export take the same rates); or, for a labelled figure, its
//!   points ([`Read::Labelled`]: a value per swap area, zram device, top cgroup, finding, with
//!   the label names declared beside); or, for a histogram, its series ([`Read::Histogram`]:
//!   cumulative counts at each upper bound, with their sum and count, by the labels declared
//!   beside).
//! - `series`: the dashboard graph that draws it, if any (legend name, hue, letter).
//! - `part_of`: the counter it counts a part of (writeback pages are swap-outs too).
//! - `shown`: the outputs it is declared for beyond those its read decides ([`Shown`]).
//!
//! # One list, one type
//!
//! Single-valued and labelled figures are the same type in the same list: a labelled figure is
//! one whose `read` is [`Read::Labelled`]. Two lists (one for what is sampled over time, one for
//! `/metrics`) left no rule for where a figure belonged, and each output had to know both; with
//! one, an output filters the list by [`Metric::reaches`]:
//!
//! | [`Output`] | the figures that reach it |
//! |---|---|
//! | `Rate`: JSON `rates.per_sec`, by id | counters read off the raw sample |
//! | `Recording`: the totals a recording keeps | the same counters (their totals are in every recorded sample) |
//! | `History`: the dashboard's history and graphs | those with a `series` |
//! | `CounterLine`: the `--once --full` KERNEL COUNTERS lines | counters declared `shown.counter_line` |
//! | `Csv`: `export --format csv` columns | single values declared `shown.csv` |
//! | `Exposition`: `/metrics`, `--textfile`, `--format openmetrics`/`prometheus` | declared `shown.exposition` |
//!
//! A histogram (swap-in latency by tier) is cumulative counts since a start of its own (the BPF
//! programs' load), not one value: it reaches the exposition only (its `_bucket`, `_sum` and
//! `_count` series), never a rate, a recording's totals (a recording keeps the raw sample it is
//! read from), the history, a counter line or a CSV column.
//!
//! A figure of each listed process ([`per_process`]) reaches none of them: JSON carries it in
//! `processes.top[]`, and a series per pid stays out of the exposition by design.
//!
//! The list's order is each output's order: graph legends, history columns, counter lines, CSV
//! columns and the exposition's families.
//!
//! The registry holds values and meanings, not names for a format: the exposition's names
//! (`zswaptop_`, base units, `_total`, `_info`) are made in `report::openmetrics`, the CSV
//! columns' in `report::csv`, from the id, the unit and the kind. Renaming one series of the
//! exposition is one arm in `report::openmetrics::stem`; the id stays.
//!
//! # Adding a figure
//!
//! 1. The value in the model: a field of the snapshot section it belongs to (`model/zswap.rs`,
//!    `model/swap.rs`, …), or, for a kernel counter, a field of its reader's sample
//!    (`sources/vmstat.rs`) or a zswap debugfs file (`sources::zswap::DEBUGFS_FILES`).
//! 2. One entry in `registry.rs`, where it should be listed: [`gauge`] or [`counter`] for a
//!    single value (CSV and the exposition; counters also get a rate, a counter line and a place
//!    in recordings), [`debugfs_gauge`] or [`debugfs_counter`] for a zswap debugfs file,
//!    [`exported`] for a figure only the exposition carries (single-valued or labelled; a
//!    histogram is one, of [`Kind::Histogram`] read by [`Read::Histogram`]). Add
//!    `.graphed(…)` to draw it on a dashboard graph and keep its history, `.part_of(…)` to show a
//!    counter as a share of another, `.unexported()` to keep a value node_exporter's defaults
//!    already export out of the exposition (and add it to the README's list). The unit is the model's: pages, percent, microseconds and
//!    milliseconds are turned into bytes, ratios and seconds by the exposition.
//! 3. A panel, if the dashboard shows it beyond a graph (`ui/panels/`).
//! 4. Tests: `tests/integration/registry.rs` checks that every entry reaches each output it claims on the
//!    fixture trees (a figure none of them holds needs one that does) and shows how figures of
//!    each shape are declared.

pub mod registry;

pub use registry::REGISTRY;

use crate::model::Snapshot;
use crate::sources::Sample;
use crate::sources::vmstat::VmstatSample;

/// What a value counts, as the model holds it (before any conversion to base units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    /// Pages of the snapshot's page size.
    Pages,
    BytesPerSec,
    /// A quotient shown as `x:1` (compression ratios).
    Ratio,
    /// A share from 0 to 1 (how full the pool is, a hit ratio).
    Share,
    /// 0–100.
    Percent,
    /// A time or a duration (time until something fills).
    Seconds,
    Milliseconds,
    Microseconds,
    /// Events with no unit (rejections, hits).
    Events,
    /// A plain number (a priority, a 0/1 flag, a file's value as read); an info's or a state's 1.
    Number,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A level that goes up and down.
    Gauge,
    /// A running total since boot (or since a device was set up); what is shown is its rate.
    Counter,
    /// Labels that describe something; each point is 1.
    Info,
    /// Labelled points of value 1 that say a state holds (a finding, a source's status).
    State,
    /// Cumulative counts of observations at or below each upper bound, with their sum and
    /// count, since a start of its own (Prometheus' histogram): read by [`Read::Histogram`].
    Histogram,
}

/// One value of a labelled figure: its label pairs and its value, in the figure's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

/// One series of a histogram: its label pairs, the observations at or below each upper bound
/// (cumulative, bounds rising, the last `f64::INFINITY` with every observation), and their sum,
/// bounds and sum in the figure's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    pub labels: Vec<(String, String)>,
    pub buckets: Vec<(f64, u64)>,
    pub sum: f64,
}

impl Histogram {
    /// How many observations: the count at the last bound (`+Inf`).
    pub fn count(&self) -> u64 {
        self.buckets.last().map_or(0, |b| b.1)
    }
}

/// Where a figure's value comes from.
#[derive(Debug, Clone, Copy)]
pub enum Read {
    /// Derived: one value read off the snapshot.
    Snapshot(fn(&Snapshot) -> Option<f64>),
    /// A line of `/proc/vmstat`.
    Vmstat(fn(&VmstatSample) -> Option<u64>),
    /// A file of `/sys/kernel/debug/zswap`, by name.
    Debugfs(&'static str),
    /// The `total` of `/proc/pressure/memory`'s `some` (false) or `full` (true) line.
    PsiTotal { full: bool },
    /// A labelled figure: its points off the snapshot, each with the `labels` named here (an
    /// info may carry more, or others: zswap's parameters are its labels, by their file names;
    /// a zram device's algorithm only where the kernel says it).
    Labelled {
        labels: &'static [&'static str],
        points: fn(&Snapshot) -> Vec<Point>,
    },
    /// A histogram ([`Kind::Histogram`]): its series off the snapshot, each with the `labels`
    /// named here (the exposition adds `le`).
    Histogram {
        labels: &'static [&'static str],
        series: fn(&Snapshot) -> Vec<Histogram>,
    },
}

impl Read {
    /// Whether the value is read off the raw sample (and so kept by every recording).
    pub fn from_sample(&self) -> bool {
        matches!(
            self,
            Read::Vmstat(_) | Read::Debugfs(_) | Read::PsiTotal { .. }
        )
    }
}

/// A colour by name; each front end maps it to its own (ANSI codes, ratatui colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hue {
    Green,
    Cyan,
    Blue,
    LightBlue,
    Yellow,
    LightYellow,
    Magenta,
    LightMagenta,
    Red,
    Gray,
    DarkGray,
}

/// The dashboard's graphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphId {
    Pool,
    Ratio,
    Traffic,
    Psi,
}

/// How a metric appears as a series of a dashboard graph.
#[derive(Debug, Clone, Copy)]
pub struct Series {
    pub graph: GraphId,
    /// The legend's name when space is short.
    pub short: &'static str,
    pub hue: Hue,
    /// The series' letter without colour or in ASCII.
    pub glyph: char,
}

/// The outputs a figure is declared for, beyond those its read and its series decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// A line of the `--once --full` KERNEL COUNTERS section (single-valued counters).
    pub counter_line: bool,
    /// A column of `export --format csv` (single values).
    pub csv: bool,
    /// The metrics exposition (`/metrics`, `--textfile`, `--format openmetrics|prometheus`).
    pub exposition: bool,
}

/// Every output the registry feeds (see the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Its rate over the interval in JSON `rates.per_sec`, by id.
    Rate,
    /// Its total in every recorded sample (a recording keeps the raw samples).
    Recording,
    /// A history column and a graph's series.
    History,
    /// A line of the `--once --full` KERNEL COUNTERS section.
    CounterLine,
    /// A CSV column of `export --format csv`.
    Csv,
    /// The metrics exposition.
    Exposition,
}

impl Output {
    pub const ALL: [Output; 6] = [
        Output::Rate,
        Output::Recording,
        Output::History,
        Output::CounterLine,
        Output::Csv,
        Output::Exposition,
    ];
}

#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Unique, lowercase with underscores: the `rates.per_sec` key and every format's stem.
    pub id: &'static str,
    /// What the dashboard's legends and the text report call it.
    pub label: &'static str,
    pub unit: Unit,
    pub kind: Kind,
    pub help: &'static str,
    pub read: Read,
    /// The graph that shows it, if any (graphed metrics get a history column).
    pub series: Option<Series>,
    /// The counter this one counts a part of (writeback pages are swap-outs too): views
    /// show it as a share of that one as well.
    pub part_of: Option<&'static str>,
    pub shown: Shown,
}

/// A figure of `kind` shown in `shown`, on no graph and a part of nothing.
const fn declare(
    id: &'static str,
    label: &'static str,
    unit: Unit,
    kind: Kind,
    help: &'static str,
    read: Read,
    shown: Shown,
) -> Metric {
    Metric {
        id,
        label,
        unit,
        kind,
        help,
        read,
        series: None,
        part_of: None,
        shown,
    }
}

/// A kernel counter read off the raw sample: its rate, its counter line, a CSV column (its
/// rate) and the exposition (its total).
pub const fn counter(
    id: &'static str,
    label: &'static str,
    unit: Unit,
    help: &'static str,
    read: Read,
) -> Metric {
    let shown = Shown {
        counter_line: true,
        csv: true,
        exposition: true,
    };
    declare(id, label, unit, Kind::Counter, help, read, shown)
}

/// A single level: a CSV column and the exposition.
pub const fn gauge(
    id: &'static str,
    label: &'static str,
    unit: Unit,
    help: &'static str,
    read: Read,
) -> Metric {
    let shown = Shown {
        counter_line: false,
        csv: true,
        exposition: true,
    };
    declare(id, label, unit, Kind::Gauge, help, read, shown)
}

/// A zswap debugfs event counter, by its file name: as [`counter`], but the text report and
/// the dashboard list it with every debugfs file (a later kernel's too) rather than on a
/// counter line of its own.
pub const fn debugfs_counter(file: &'static str, unit: Unit, help: &'static str) -> Metric {
    let mut m = counter(file, file, unit, help, Read::Debugfs(file));
    m.shown.counter_line = false;
    m
}

/// A zswap debugfs level, by its file name.
pub const fn debugfs_gauge(file: &'static str, unit: Unit, help: &'static str) -> Metric {
    gauge(file, file, unit, help, Read::Debugfs(file))
}

/// A figure of each listed process (`--top N`, the processes view), by pid: JSON carries it as
/// its field of `processes.top[]`; the registry gives it its label and meaning (the views' and
/// the presentation layer's words). No output here takes it, by design: a series per pid in the
/// exposition would be a label without bound (a new series at every restart, every process ever
/// listed), so per-process series stay out of `/metrics`, `--textfile` and CSV.
pub const fn per_process(
    id: &'static str,
    label: &'static str,
    help: &'static str,
    points: fn(&Snapshot) -> Vec<Point>,
) -> Metric {
    let shown = Shown {
        counter_line: false,
        csv: false,
        exposition: false,
    };
    let read = Read::Labelled {
        labels: &["pid"],
        points,
    };
    declare(id, label, Unit::Bytes, Kind::Gauge, help, read, shown)
}

/// A figure only the exposition carries (the JSON has it as its model field): a single value
/// read off the snapshot, or a labelled one.
pub const fn exported(
    id: &'static str,
    kind: Kind,
    unit: Unit,
    help: &'static str,
    read: Read,
) -> Metric {
    let shown = Shown {
        counter_line: false,
        csv: false,
        exposition: true,
    };
    declare(id, "", unit, kind, help, read, shown)
}

impl Metric {
    /// This counter counts a part of the counter `id`.
    pub const fn part_of(self, id: &'static str) -> Metric {
        Metric {
            part_of: Some(id),
            ..self
        }
    }

    /// Left out of the exposition: node_exporter's default collectors export the same value
    /// (the README's Prometheus section lists them), or another family of the exposition holds
    /// it. Its other outputs stay.
    pub const fn unexported(self) -> Metric {
        Metric {
            shown: Shown {
                exposition: false,
                ..self.shown
            },
            ..self
        }
    }

    /// Drawn on graph `graph` (legend name `short`, colour `hue`, letter `glyph`), with a
    /// history column.
    pub const fn graphed(
        self,
        graph: GraphId,
        short: &'static str,
        hue: Hue,
        glyph: char,
    ) -> Metric {
        Metric {
            series: Some(Series {
                graph,
                short,
                hue,
                glyph,
            }),
            ..self
        }
    }

    /// Whether it has labels (a value per swap area, device, cgroup, …; a histogram's series)
    /// rather than one value.
    pub fn is_labelled(&self) -> bool {
        matches!(self.read, Read::Labelled { .. } | Read::Histogram { .. })
    }

    /// A histogram's series over `s`, in [`Metric::unit`]; none for any other figure. A series
    /// whose bounds do not rise to `+Inf`, whose counts go down or whose sum is not finite is
    /// left out, never written half right.
    pub fn histograms(&self, s: &Snapshot) -> Vec<Histogram> {
        let Read::Histogram { series, .. } = self.read else {
            return Vec::new();
        };
        series(s)
            .into_iter()
            .filter(|h| {
                h.sum.is_finite()
                    && h.buckets.last().is_some_and(|b| b.0 == f64::INFINITY)
                    && h.buckets
                        .windows(2)
                        .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1)
            })
            .collect()
    }

    /// Whether the figure reaches `output` (the module's table).
    pub fn reaches(&self, output: Output) -> bool {
        match output {
            Output::Rate | Output::Recording => {
                self.kind == Kind::Counter && self.read.from_sample()
            }
            Output::History => self.series.is_some(),
            Output::CounterLine => self.shown.counter_line,
            Output::Csv => self.shown.csv,
            Output::Exposition => self.shown.exposition,
        }
    }

    /// A counter's total in a raw sample (what a recorder keeps and rates are taken from).
    /// `None` for gauges and where the kernel does not give it.
    pub fn total_in_sample(&self, s: &Sample) -> Option<u64> {
        if self.kind != Kind::Counter {
            return None;
        }
        match self.read {
            Read::Snapshot(_) | Read::Labelled { .. } | Read::Histogram { .. } => None,
            Read::Vmstat(f) => f(s.vmstat.as_ref().ok()?),
            Read::Debugfs(k) => s.zswap_debugfs.as_ref().ok()?.values.get(k).copied(),
            Read::PsiTotal { full } => {
                let p = s.psi.as_ref().ok()?;
                Some(if full {
                    p.full.total_us
                } else {
                    p.some.total_us
                })
            }
        }
    }

    /// The value as read, in [`Metric::unit`]: a gauge's level or a counter's total (`None` for
    /// a labelled figure: see [`Metric::points`]).
    pub fn raw(&self, s: &Snapshot) -> Option<f64> {
        let v = match self.read {
            Read::Snapshot(f) => f(s),
            Read::Vmstat(f) => f(&s.vmstat).map(|v| v as f64),
            Read::Debugfs(k) => s.zswap.debugfs.as_ref()?.get(k).map(|&v| v as f64),
            Read::PsiTotal { full } => s.psi.as_ref().map(|p| {
                (if full {
                    p.full_total_us
                } else {
                    p.some_total_us
                }) as f64
            }),
            Read::Labelled { .. } | Read::Histogram { .. } => None,
        };
        v.filter(|v| v.is_finite())
    }

    /// Every value, in [`Metric::unit`]: a single value as one point without labels, a labelled
    /// figure's points; a value that is not there (or not finite) is left out, never 0. A
    /// histogram has none: its series are [`Metric::histograms`].
    pub fn points(&self, s: &Snapshot) -> Vec<Point> {
        match self.read {
            Read::Labelled { points, .. } => points(s)
                .into_iter()
                .filter(|p| p.value.is_finite())
                .collect(),
            Read::Histogram { .. } => Vec::new(),
            _ => self
                .raw(s)
                .map(|value| Point {
                    labels: Vec::new(),
                    value,
                })
                .into_iter()
                .collect(),
        }
    }

    /// A counter's per-second rate over the last interval, in its unit per second (`None`
    /// for gauges, on the first sample, and where either total is missing).
    pub fn per_sec(&self, s: &Snapshot) -> Option<f64> {
        if self.kind != Kind::Counter {
            return None;
        }
        s.rates.as_ref()?.per_sec.get(self.id).copied()
    }

    /// What a graph or a legend shows: a gauge's level, a counter's rate per second, pages
    /// turned into bytes.
    pub fn value(&self, s: &Snapshot) -> Option<f64> {
        let v = match self.kind {
            Kind::Counter => self.per_sec(s),
            Kind::Gauge | Kind::Info | Kind::State => self.raw(s),
            Kind::Histogram => None,
        }?;
        let v = match self.unit {
            Unit::Pages => v * s.page_size.bytes as f64,
            _ => v,
        };
        v.is_finite().then_some(v)
    }

    /// The unit of [`Metric::value`].
    pub fn shown_unit(&self) -> Unit {
        match (self.kind, self.unit) {
            (Kind::Gauge, Unit::Pages) => Unit::Bytes,
            (Kind::Counter, Unit::Pages | Unit::Bytes) => Unit::BytesPerSec,
            (_, u) => u,
        }
    }

    /// For a counter that is [`Metric::part_of`] another: its share of that one's total since
    /// boot, and of that one's rate over the last interval, in percent.
    pub fn share(&self, s: &Snapshot) -> (Option<f64>, Option<f64>) {
        let Some(whole) = self.part_of.and_then(get) else {
            return (None, None);
        };
        let pct = |part: Option<f64>, all: Option<f64>| match (part, all) {
            (Some(p), Some(a)) if a > 0.0 => Some(p * 100.0 / a),
            _ => None,
        };
        (
            pct(self.raw(s), whole.raw(s)),
            pct(self.per_sec(s), whole.per_sec(s)),
        )
    }
}

/// The metric with this id, for an id that comes from outside (a test, a scraped name). Code
/// names a figure through its handle ([`ZSWAP_POOL_BYTES`], …), which the compiler checks.
pub fn get(id: &str) -> Option<&'static Metric> {
    REGISTRY.iter().find(|m| m.id == id)
}

/// The registry's figure `id`, found when the crate compiles: an id that is not in the
/// registry stops the build (a handle cannot name a figure that was renamed or removed).
const fn by_id(id: &str) -> &'static Metric {
    let all = registry::ALL;
    let mut i = 0;
    while i < all.len() {
        if same(all[i].id, id) {
            return &all[i];
        }
        i += 1;
    }
    panic!("no such figure in the registry")
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Handles for the figures code names: each is the registry's entry, checked at compile time.
macro_rules! handles {
    ($($name:ident = $id:literal),* $(,)?) => {
        $(
            #[doc = concat!("The registry's `", $id, "`.")]
            pub const $name: &Metric = by_id($id);
        )*
    };
}

handles! {
    MEMORY_USED_BYTES = "memory_used_bytes",
    MEMORY_AVAILABLE_BYTES = "memory_available_bytes",
    ZSWAP_POOL_BYTES = "zswap_pool_bytes",
    ZSWAP_STORED_BYTES = "zswap_stored_bytes",
    ZSWAP_COMPRESSION_RATIO = "zswap_compression_ratio",
    ZSWAP_POOL_FULL_SECONDS = "zswap_pool_full_seconds",
    ZSWPOUT = "zswpout",
    ZSWPIN = "zswpin",
    ZSWPWB = "zswpwb",
    POOL_LIMIT_HIT = "pool_limit_hit",
    WRITTEN_BACK_PAGES = "written_back_pages",
    BYPASSED_ZSWAP_BYTES_PER_SEC = "bypassed_zswap_bytes_per_sec",
    PSWPIN = "pswpin",
    PSWPOUT = "pswpout",
    PSI_SOME_AVG10 = "psi_some_avg10",
    OOM_KILL = "oom_kill",
    PROCESS_FOOTPRINT_BYTES = "process_footprint_bytes",
    PROCESS_COMPRESSED_ESTIMATE_BYTES = "process_compressed_estimate_bytes",
    PROCESS_SHMEM_SWAP_BYTES = "process_shmem_swap_bytes",
}

/// The figures that reach `output`, in registry order.
pub fn reaching(output: Output) -> impl Iterator<Item = &'static Metric> {
    REGISTRY.iter().filter(move |m| m.reaches(output))
}

/// The metrics a graph shows, in legend order.
pub fn in_graph(g: GraphId) -> impl Iterator<Item = &'static Metric> {
    REGISTRY
        .iter()
        .filter(move |m| m.series.is_some_and(|s| s.graph == g))
}

/// The registry entry for a zswap debugfs file, if it has one.
pub fn debugfs(key: &str) -> Option<&'static Metric> {
    REGISTRY
        .iter()
        .find(|m| matches!(m.read, Read::Debugfs(k) if k == key))
}

/// Where a debugfs file goes among the others: registry order, files it lacks last.
pub fn debugfs_rank(key: &str) -> usize {
    REGISTRY
        .iter()
        .position(|m| matches!(m.read, Read::Debugfs(k) if k == key))
        .unwrap_or(usize::MAX)
}

/// Whether a debugfs file is a level rather than an event count (unknown files count events).
pub fn debugfs_is_gauge(key: &str) -> bool {
    debugfs(key).is_some_and(|m| m.kind == Kind::Gauge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_plain() {
        let mut seen = HashSet::new();
        for m in REGISTRY {
            assert!(seen.insert(m.id), "{} twice", m.id);
            assert!(
                m.id.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{}",
                m.id
            );
            assert!(!m.id.starts_with('_') && !m.id.ends_with('_'), "{}", m.id);
            assert!(!m.help.is_empty(), "{}", m.id);
        }
    }

    /// What a view shows has a name to show it by.
    #[test]
    fn shown_figures_have_labels() {
        for m in REGISTRY {
            if m.reaches(Output::History) || m.reaches(Output::CounterLine) {
                assert!(!m.label.is_empty(), "{}", m.id);
            }
        }
    }

    /// The declarations hold together: derived single values are gauges, PSI totals counters;
    /// counter lines are counters; a labelled figure goes nowhere one value is expected; infos
    /// and states are labelled numbers of 1; a histogram is read as one and reaches the
    /// exposition only.
    #[test]
    fn reads_match_kinds_and_outputs() {
        for m in REGISTRY {
            match m.read {
                Read::Snapshot(_) => assert_eq!(m.kind, Kind::Gauge, "{}: derived", m.id),
                Read::PsiTotal { .. } => assert_eq!(m.kind, Kind::Counter, "{}", m.id),
                Read::Labelled { labels, .. } => {
                    assert!(
                        !labels.is_empty() || m.kind == Kind::Info,
                        "{}: a labelled figure names its labels",
                        m.id
                    );
                    for o in [Output::History, Output::CounterLine, Output::Csv] {
                        assert!(!m.reaches(o), "{}: labelled, in {o:?}", m.id);
                    }
                }
                Read::Histogram { labels, .. } => {
                    assert_eq!(m.kind, Kind::Histogram, "{}", m.id);
                    assert!(
                        !labels.contains(&"le"),
                        "{}: `le` is the exposition's bound",
                        m.id
                    );
                    for o in Output::ALL.into_iter().filter(|&o| o != Output::Exposition) {
                        assert!(!m.reaches(o), "{}: a histogram, in {o:?}", m.id);
                    }
                }
                Read::Vmstat(_) | Read::Debugfs(_) => {}
            }
            if m.kind == Kind::Histogram {
                assert!(matches!(m.read, Read::Histogram { .. }), "{}", m.id);
            }
            if m.reaches(Output::CounterLine) {
                assert_eq!(m.kind, Kind::Counter, "{}", m.id);
            }
            if matches!(m.kind, Kind::Info | Kind::State) {
                assert!(m.is_labelled(), "{}", m.id);
                assert_eq!(m.unit, Unit::Number, "{}", m.id);
            }
        }
    }

    #[test]
    fn parts_name_a_counter_in_the_same_unit() {
        for m in REGISTRY {
            if let Some(whole) = m.part_of {
                let w = get(whole).unwrap_or_else(|| panic!("{}: no {whole}", m.id));
                assert_eq!((m.kind, w.kind), (Kind::Counter, Kind::Counter), "{}", m.id);
                assert_eq!(m.unit, w.unit, "{}", m.id);
            }
        }
    }

    #[test]
    fn a_graph_shows_one_unit() {
        for g in [
            GraphId::Pool,
            GraphId::Ratio,
            GraphId::Traffic,
            GraphId::Psi,
        ] {
            let units: HashSet<_> = in_graph(g)
                .map(|m| format!("{:?}", m.shown_unit()))
                .collect();
            assert_eq!(units.len(), 1, "{g:?}: {units:?}");
        }
    }

    #[test]
    fn swap_readahead_is_a_traffic_series_with_its_hit_share() {
        let ra = get("swap_ra").unwrap();
        assert_eq!(ra.series.map(|s| s.graph), Some(GraphId::Traffic));
        assert!(ra.reaches(Output::Rate) && ra.reaches(Output::CounterLine));
        assert_eq!(get("swap_ra_hit").and_then(|m| m.part_of), Some("swap_ra"));
    }

    /// The debugfs files with a slot of their own are exactly those the registry reads.
    #[test]
    fn debugfs_slots_are_the_registrys_files() {
        let mut named: Vec<&str> = REGISTRY
            .iter()
            .filter_map(|m| match m.read {
                Read::Debugfs(k) => Some(k),
                _ => None,
            })
            .collect();
        named.sort_unstable();
        assert_eq!(named, crate::sources::zswap::DEBUGFS_FILES);
    }

    #[test]
    fn debugfs_levels_are_not_rates() {
        assert!(debugfs_is_gauge("stored_pages"));
        assert!(debugfs_is_gauge("pool_total_size"));
        assert!(!debugfs_is_gauge("pool_limit_hit"));
        assert!(!debugfs_is_gauge("a_file_a_later_kernel_adds"));
        let hit = get("pool_limit_hit").unwrap();
        assert!(hit.reaches(Output::Rate) && !hit.reaches(Output::CounterLine));
    }

    /// A histogram's series is given whole or not at all: one whose bounds do not rise to
    /// `+Inf`, whose counts go down, or whose sum is not finite is left out (a scraper would
    /// take it for a reset, or refuse the scrape); a histogram has no single value.
    #[test]
    fn a_malformed_histogram_series_is_left_out() {
        fn series(_: &Snapshot) -> Vec<Histogram> {
            let h = |name: &str, buckets: Vec<(f64, u64)>, sum: f64| Histogram {
                labels: vec![("tier".into(), name.into())],
                buckets,
                sum,
            };
            let inf = f64::INFINITY;
            vec![
                h("whole", vec![(0.5, 1), (1.0, 3), (inf, 4)], 2.5),
                h("no_inf", vec![(0.5, 1), (1.0, 3)], 2.5),
                h("going_down", vec![(0.5, 3), (1.0, 1), (inf, 4)], 2.5),
                h("bounds_back", vec![(1.0, 1), (0.5, 3), (inf, 4)], 2.5),
                h("nan_sum", vec![(0.5, 1), (inf, 4)], f64::NAN),
                h("empty", vec![], 0.0),
            ]
        }
        let m = exported(
            "test_latency_seconds",
            Kind::Histogram,
            Unit::Seconds,
            "A histogram.",
            Read::Histogram {
                labels: &["tier"],
                series,
            },
        );
        let snap = Snapshot::derive(
            &crate::sources::collect(&crate::root::Root::at("tests/fixtures/empty-root")),
            None,
        );
        let kept = m.histograms(&snap);
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert_eq!(kept[0].labels[0].1, "whole");
        assert_eq!(kept[0].count(), 4);
        assert!(m.is_labelled() && m.points(&snap).is_empty() && m.value(&snap).is_none());
    }
}
