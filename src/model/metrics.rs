//! The metric catalogue: one definition per figure zswaptop samples over time.
//!
//! Each [`Metric`] names a figure once: its id, label, unit, kind (gauge or counter), help
//! text, where it is read, and which dashboard graph shows it. The history columns, the
//! graphs' series, the dashboard's debugfs counter lines, the `--once` counter section and the
//! JSON `rates.per_sec` map are all built from [`CATALOGUE`]; so are the names an exporter
//! uses ([`Metric::openmetrics_name`], [`Metric::csv_name`]) and the raw counters a recorder
//! keeps ([`Metric::total_in_sample`]).
//!
//! A gauge is a level read off the [`Snapshot`]. A counter is a kernel total that only grows
//! (until a reboot); its total is read from the raw [`Sample`] or the snapshot alike, and its
//! per-second rate over the last interval lands in `Snapshot::rates.per_sec` under its id.

use crate::model::Snapshot;
use crate::sources::Sample;
use crate::sources::psi::PsiSample;
use crate::sources::vmstat::VmstatSample;

/// What a value counts, as read (before any conversion to base units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    /// Pages of the snapshot's page size.
    Pages,
    BytesPerSec,
    /// A quotient with no unit (compression ratios).
    Ratio,
    /// 0–100.
    Percent,
    Microseconds,
    /// Events with no unit (rejections, hits).
    Events,
}

impl Unit {
    /// The unit as words, for help text and column headers.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Pages => "pages",
            Unit::BytesPerSec => "bytes per second",
            Unit::Ratio => "ratio",
            Unit::Percent => "percent",
            Unit::Microseconds => "microseconds",
            Unit::Events => "events",
        }
    }

    /// The OpenMetrics base unit this one converts to (`None`: unitless), so that an exporter
    /// multiplies by [`Unit::base_factor`] and names the metric after it.
    pub fn base_unit(self) -> Option<&'static str> {
        match self {
            Unit::Bytes | Unit::Pages | Unit::BytesPerSec => Some("bytes"),
            Unit::Ratio | Unit::Percent => Some("ratio"),
            Unit::Microseconds => Some("seconds"),
            Unit::Events => None,
        }
    }

    /// What one of this unit is in the base unit (`page_size` for pages).
    pub fn base_factor(self, page_size: u64) -> f64 {
        match self {
            Unit::Pages => page_size as f64,
            Unit::Percent => 0.01,
            Unit::Microseconds => 1e-6,
            Unit::Bytes | Unit::BytesPerSec | Unit::Ratio | Unit::Events => 1.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A level that goes up and down.
    Gauge,
    /// A running total since boot; what is shown is its rate.
    Counter,
}

/// Where a metric's value comes from.
#[derive(Debug, Clone, Copy)]
pub enum Read {
    /// Derived: read off the snapshot.
    Snapshot(fn(&Snapshot) -> Option<f64>),
    /// A line of `/proc/vmstat`.
    Vmstat(fn(&VmstatSample) -> Option<u64>),
    /// A file of `/sys/kernel/debug/zswap`, by name.
    Debugfs(&'static str),
    /// The `total` of `/proc/pressure/memory`'s `some` (false) or `full` (true) line.
    PsiTotal { full: bool },
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

#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Unique, lowercase with underscores; the JSON key, CSV column and OpenMetrics stem.
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
}

const fn counter(
    id: &'static str,
    label: &'static str,
    unit: Unit,
    help: &'static str,
    read: Read,
) -> Metric {
    Metric {
        id,
        label,
        unit,
        kind: Kind::Counter,
        help,
        read,
        series: None,
        part_of: None,
    }
}

const fn gauge(
    id: &'static str,
    label: &'static str,
    unit: Unit,
    help: &'static str,
    read: Read,
) -> Metric {
    Metric {
        id,
        label,
        unit,
        kind: Kind::Gauge,
        help,
        read,
        series: None,
        part_of: None,
    }
}

impl Metric {
    const fn part_of(self, id: &'static str) -> Metric {
        Metric {
            part_of: Some(id),
            ..self
        }
    }

    const fn graphed(self, graph: GraphId, short: &'static str, hue: Hue, glyph: char) -> Metric {
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
}

fn rates(s: &Snapshot) -> Option<&crate::model::Rates> {
    s.rates.as_ref()
}

/// Every figure, in display order within each group (the order of the graph legends, the
/// debugfs counter lines and the text report's counters).
pub static CATALOGUE: &[Metric] = &[
    // --- memory ----------------------------------------------------------------------------
    gauge(
        "memory_used_bytes",
        "used",
        Unit::Bytes,
        "What procps-ng free calls used: MemTotal − MemAvailable (the compressed pools inside).",
        Read::Snapshot(|s| s.memory.free_cmd_used_bytes.map(|v| v as f64)),
    ),
    gauge(
        "memory_available_bytes",
        "avail",
        Unit::Bytes,
        "Memory available for new work without swapping (meminfo MemAvailable).",
        Read::Snapshot(|s| s.memory.available_bytes.map(|v| v as f64)),
    ),
    // --- zswap pool ------------------------------------------------------------------------
    gauge(
        "zswap_pool_bytes",
        "pool",
        Unit::Bytes,
        "RAM the zswap pool takes (meminfo Zswap, else debugfs pool_total_size).",
        Read::Snapshot(|s| s.zswap.pool_bytes.map(|v| v as f64)),
    )
    .graphed(GraphId::Pool, "pool", Hue::Magenta, '#'),
    gauge(
        "zswap_stored_bytes",
        "stored",
        Unit::Bytes,
        "Uncompressed size of the pages zswap holds (meminfo Zswapped).",
        Read::Snapshot(|s| s.zswap.stored_bytes.map(|v| v as f64)),
    )
    .graphed(GraphId::Pool, "stored", Hue::Cyan, '+'),
    gauge(
        "zswap_compression_ratio",
        "effective",
        Unit::Ratio,
        "Stored bytes per pool byte, allocator overhead and incompressible pages included.",
        Read::Snapshot(|s| s.zswap.compression_ratio),
    )
    .graphed(GraphId::Ratio, "eff", Hue::Green, 'e'),
    gauge(
        "zswap_compressor_ratio",
        "compressor only",
        Unit::Ratio,
        "The compressor's own ratio: same-filled and incompressible pages taken out.",
        Read::Snapshot(|s| s.zswap.compressor_ratio),
    )
    .graphed(GraphId::Ratio, "comp", Hue::Blue, 'c'),
    // --- swap traffic (vmstat, pages) -----------------------------------------------------
    counter(
        "zswpout",
        "zswpout",
        Unit::Pages,
        "Pages stored into zswap (vmstat zswpout).",
        Read::Vmstat(|v| v.zswpout),
    )
    .graphed(GraphId::Traffic, "out", Hue::Magenta, 'o'),
    counter(
        "zswpin",
        "zswpin",
        Unit::Pages,
        "Pages loaded back from zswap (vmstat zswpin).",
        Read::Vmstat(|v| v.zswpin),
    )
    .graphed(GraphId::Traffic, "in", Hue::Cyan, 'i'),
    counter(
        "zswpwb",
        "zswpwb",
        Unit::Pages,
        "Pages written back from zswap to the swap device (vmstat zswpwb, 6.8+).",
        Read::Vmstat(|v| v.zswpwb),
    )
    .part_of("pswpout")
    .graphed(GraphId::Traffic, "wb", Hue::Yellow, 'w'),
    counter(
        "pswpout",
        "pswpout",
        Unit::Pages,
        "Pages written to swap devices (vmstat pswpout).",
        Read::Vmstat(|v| v.pswpout),
    )
    .graphed(GraphId::Traffic, "disk-out", Hue::Red, 'O'),
    counter(
        "pswpin",
        "pswpin",
        Unit::Pages,
        "Pages read from swap devices (vmstat pswpin).",
        Read::Vmstat(|v| v.pswpin),
    )
    .graphed(GraphId::Traffic, "disk-in", Hue::Blue, 'I'),
    gauge(
        "bypassed_zswap_bytes_per_sec",
        "bypassed",
        Unit::BytesPerSec,
        "Pages written to a swap device without passing through zswap: Δpswpout − Δzswpwb.",
        Read::Snapshot(|s| rates(s)?.bypassed_zswap_bytes_per_sec),
    )
    .graphed(GraphId::Traffic, "bypass", Hue::Green, 'b'),
    counter(
        "swpout_zero",
        "swpout_zero",
        Unit::Pages,
        "Zero-filled pages swapped out without I/O (vmstat swpout_zero, 6.12+).",
        Read::Vmstat(|v| v.swpout_zero),
    ),
    counter(
        "swpin_zero",
        "swpin_zero",
        Unit::Pages,
        "Zero-filled pages swapped in without I/O (vmstat swpin_zero, 6.12+).",
        Read::Vmstat(|v| v.swpin_zero),
    ),
    counter(
        "swap_ra",
        "swap_ra",
        Unit::Pages,
        "Pages read ahead from swap around a faulting page (vmstat swap_ra; vm.page-cluster sets how many).",
        Read::Vmstat(|v| v.swap_ra),
    )
    .graphed(GraphId::Traffic, "ra", Hue::LightBlue, 'r'),
    counter(
        "swap_ra_hit",
        "swap_ra_hit",
        Unit::Pages,
        "Pages read ahead from swap that were then used (vmstat swap_ra_hit): the readahead hit rate.",
        Read::Vmstat(|v| v.swap_ra_hit),
    )
    .part_of("swap_ra"),
    counter(
        "pgmajfault",
        "pgmajfault",
        Unit::Events,
        "Major page faults (vmstat pgmajfault).",
        Read::Vmstat(|v| v.pgmajfault),
    ),
    counter(
        "workingset_refault_anon",
        "workingset_refault_anon",
        Unit::Pages,
        "Anonymous pages faulted back soon after being swapped out (vmstat).",
        Read::Vmstat(|v| v.workingset_refault_anon),
    ),
    counter(
        "thp_swpout",
        "thp_swpout",
        Unit::Events,
        "Transparent huge pages swapped out whole (vmstat thp_swpout).",
        Read::Vmstat(|v| v.thp_swpout),
    ),
    counter(
        "thp_swpout_fallback",
        "thp_swpout_fallback",
        Unit::Events,
        "Transparent huge pages split before swap-out (vmstat thp_swpout_fallback).",
        Read::Vmstat(|v| v.thp_swpout_fallback),
    ),
    counter(
        "oom_kill",
        "oom_kill",
        Unit::Events,
        "Processes killed by the OOM killer (vmstat oom_kill).",
        Read::Vmstat(|v| v.oom_kill),
    ),
    gauge(
        "nr_zspages",
        "nr_zspages",
        Unit::Pages,
        "Pages zsmalloc holds for zswap and zram together (vmstat nr_zspages).",
        Read::Vmstat(|v| v.nr_zspages),
    ),
    // --- zswap debugfs (root only) ----------------------------------------------------------
    counter(
        "written_back_pages",
        "written_back_pages",
        Unit::Pages,
        "Pages zswap wrote back to the swap device (debugfs).",
        Read::Debugfs("written_back_pages"),
    ),
    counter(
        "pool_limit_hit",
        "pool_limit_hit",
        Unit::Events,
        "Stores that found the pool at its limit (debugfs).",
        Read::Debugfs("pool_limit_hit"),
    ),
    counter(
        "decompress_fail",
        "decompress_fail",
        Unit::Events,
        "Loads whose decompression failed (debugfs).",
        Read::Debugfs("decompress_fail"),
    ),
    counter(
        "duplicate_entry",
        "duplicate_entry",
        Unit::Events,
        "Stores that replaced an entry already in the pool (debugfs, up to 6.9).",
        Read::Debugfs("duplicate_entry"),
    ),
    counter(
        "reject_alloc_fail",
        "reject_alloc_fail",
        Unit::Events,
        "Stores rejected: the allocator could not find room (debugfs).",
        Read::Debugfs("reject_alloc_fail"),
    ),
    counter(
        "reject_compress_fail",
        "reject_compress_fail",
        Unit::Events,
        "Stores rejected: the compressor failed (debugfs).",
        Read::Debugfs("reject_compress_fail"),
    ),
    counter(
        "reject_compress_poor",
        "reject_compress_poor",
        Unit::Events,
        "Stores rejected: the page compressed too poorly to keep (debugfs).",
        Read::Debugfs("reject_compress_poor"),
    ),
    counter(
        "reject_kmemcache_fail",
        "reject_kmemcache_fail",
        Unit::Events,
        "Stores rejected: no memory for the entry's metadata (debugfs).",
        Read::Debugfs("reject_kmemcache_fail"),
    ),
    counter(
        "reject_reclaim_fail",
        "reject_reclaim_fail",
        Unit::Events,
        "Stores rejected: the pool was full and writeback failed (debugfs).",
        Read::Debugfs("reject_reclaim_fail"),
    ),
    gauge(
        "pool_total_size",
        "pool_total_size",
        Unit::Bytes,
        "The pool's size as debugfs gives it.",
        Read::Debugfs("pool_total_size"),
    ),
    gauge(
        "stored_pages",
        "stored_pages",
        Unit::Pages,
        "Pages zswap holds (debugfs).",
        Read::Debugfs("stored_pages"),
    ),
    gauge(
        "same_filled_pages",
        "same_filled_pages",
        Unit::Pages,
        "Stored pages that were one repeated word, kept without pool memory (debugfs, up to 6.11).",
        Read::Debugfs("same_filled_pages"),
    ),
    gauge(
        "stored_incompressible_pages",
        "stored_incompressible_pages",
        Unit::Pages,
        "Stored pages kept uncompressed, a page each (debugfs, 6.18+).",
        Read::Debugfs("stored_incompressible_pages"),
    ),
    gauge(
        "pool_pages",
        "pool_pages",
        Unit::Pages,
        "The pool's size in pages (debugfs, older kernels).",
        Read::Debugfs("pool_pages"),
    ),
    // --- memory pressure ---------------------------------------------------------------------
    gauge(
        "psi_some_percent",
        "some",
        Unit::Percent,
        "Share of time some tasks stalled on memory over the interval (PSI).",
        Read::Snapshot(|s| rates(s)?.psi_some_percent),
    )
    .graphed(GraphId::Psi, "some", Hue::Yellow, 's'),
    gauge(
        "psi_full_percent",
        "full",
        Unit::Percent,
        "Share of time all tasks stalled on memory over the interval (PSI).",
        Read::Snapshot(|s| rates(s)?.psi_full_percent),
    )
    .graphed(GraphId::Psi, "full", Hue::Red, 'f'),
    gauge(
        "psi_some_avg10",
        "some avg10",
        Unit::Percent,
        "Share of the last 10 s some tasks stalled on memory, as the kernel averages it (PSI some avg10).",
        Read::Snapshot(|s| s.psi.as_ref().map(|p| p.some_avg10)),
    ),
    counter(
        "psi_some_stalled",
        "PSI some stalled",
        Unit::Microseconds,
        "Time some tasks spent stalled on memory since boot (PSI some total).",
        Read::PsiTotal { full: false },
    ),
    counter(
        "psi_full_stalled",
        "PSI full stalled",
        Unit::Microseconds,
        "Time all tasks spent stalled on memory since boot (PSI full total).",
        Read::PsiTotal { full: true },
    ),
];

fn psi_total(p: &PsiSample, full: bool) -> u64 {
    if full {
        p.full.total_us
    } else {
        p.some.total_us
    }
}

impl Metric {
    /// A counter's total in a raw sample (what a recorder keeps and rates are taken from).
    /// `None` for gauges and where the kernel does not give it.
    pub fn total_in_sample(&self, s: &Sample) -> Option<u64> {
        if self.kind != Kind::Counter {
            return None;
        }
        match self.read {
            Read::Snapshot(_) => None,
            Read::Vmstat(f) => f(s.vmstat.as_ref().ok()?),
            Read::Debugfs(k) => s.zswap_debugfs.as_ref().ok()?.values.get(k).copied(),
            Read::PsiTotal { full } => Some(psi_total(s.psi.as_ref().ok()?, full)),
        }
    }

    /// The value as read, in [`Metric::unit`]: a gauge's level or a counter's total.
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
        };
        v.filter(|v| v.is_finite())
    }

    /// A counter's per-second rate over the last interval, in its unit per second (`None`
    /// for gauges, on the first sample, and where either total is missing).
    pub fn per_sec(&self, s: &Snapshot) -> Option<f64> {
        if self.kind != Kind::Counter {
            return None;
        }
        rates(s)?.per_sec.get(self.id).copied()
    }

    /// What a graph or a legend shows: a gauge's level, a counter's rate per second, pages
    /// turned into bytes.
    pub fn value(&self, s: &Snapshot) -> Option<f64> {
        let v = match self.kind {
            Kind::Gauge => self.raw(s),
            Kind::Counter => self.per_sec(s),
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

    /// The name an OpenMetrics exporter gives it: `zswaptop_` + id in base units, with the
    /// unit as suffix and `_total` on counters (`zswaptop_zswpout_bytes_total`).
    pub fn openmetrics_name(&self) -> String {
        let stem = self
            .id
            .trim_end_matches("_per_sec")
            .trim_end_matches("_bytes")
            .trim_end_matches("_pages")
            .trim_end_matches("_percent")
            .trim_end_matches("_ratio");
        let group = match self.read {
            Read::Debugfs(_) => "zswap_debugfs_",
            _ => "",
        };
        let mut name = format!("zswaptop_{group}{stem}");
        // A rate the model already divided by time is a gauge of bytes per second.
        let unit = self.openmetrics_unit();
        if !unit.is_empty() {
            name.push('_');
            name.push_str(unit);
        }
        if self.kind == Kind::Counter {
            name.push_str("_total");
        }
        name
    }

    /// The value an exporter writes, in base units: a gauge's level or a counter's total
    /// (pages as bytes, percent as a ratio, microseconds as seconds).
    pub fn exported(&self, s: &Snapshot) -> Option<f64> {
        let v = self.raw(s)? * self.unit.base_factor(s.page_size.bytes);
        v.is_finite().then_some(v)
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

    /// The OpenMetrics `# UNIT` (empty when unitless), matching the name's suffix.
    pub fn openmetrics_unit(&self) -> &'static str {
        match (self.kind, self.shown_unit()) {
            (Kind::Gauge, Unit::BytesPerSec) => "bytes_per_second",
            _ => self.unit.base_unit().unwrap_or(""),
        }
    }

    /// The CSV column for [`Metric::value`]: the id with the shown unit as its suffix
    /// (`zswpout_bytes_per_sec`, `zswap_pool_bytes`, `pgmajfault_per_sec`).
    pub fn csv_name(&self) -> String {
        let suffix = match self.shown_unit() {
            Unit::Bytes => "_bytes",
            Unit::BytesPerSec => "_bytes_per_sec",
            Unit::Ratio => "_ratio",
            Unit::Percent => "_percent",
            Unit::Pages => "_pages",
            Unit::Microseconds => "_us_per_sec",
            Unit::Events => "_per_sec",
        };
        let stem = self.id.trim_end_matches("_pages");
        if stem.ends_with(suffix) {
            stem.to_string()
        } else {
            format!("{stem}{suffix}")
        }
    }
}

/// The metric with this id.
pub fn get(id: &str) -> Option<&'static Metric> {
    CATALOGUE.iter().find(|m| m.id == id)
}

/// The metrics a graph shows, in legend order.
pub fn in_graph(g: GraphId) -> impl Iterator<Item = &'static Metric> {
    CATALOGUE
        .iter()
        .filter(move |m| m.series.is_some_and(|s| s.graph == g))
}

/// The metrics the dashboard keeps a history of (those on a graph).
pub fn graphed() -> impl Iterator<Item = &'static Metric> {
    CATALOGUE.iter().filter(|m| m.series.is_some())
}

/// The counters, in catalogue order.
pub fn counters() -> impl Iterator<Item = &'static Metric> {
    CATALOGUE.iter().filter(|m| m.kind == Kind::Counter)
}

/// The catalogue entry for a zswap debugfs file, if it has one.
pub fn debugfs(key: &str) -> Option<&'static Metric> {
    CATALOGUE
        .iter()
        .find(|m| matches!(m.read, Read::Debugfs(k) if k == key))
}

/// Where a debugfs file goes among the others: catalogue order, files it lacks last.
pub fn debugfs_rank(key: &str) -> usize {
    CATALOGUE
        .iter()
        .position(|m| matches!(m.read, Read::Debugfs(k) if k == key))
        .unwrap_or(usize::MAX)
}

/// Whether a debugfs file is a level rather than an event count (unknown files count events).
pub fn debugfs_is_gauge(key: &str) -> bool {
    debugfs(key).is_some_and(|m| m.kind == Kind::Gauge)
}

/// Each counter's per-second rate between two samples `dt` seconds apart, keyed by id.
pub fn counter_rates(
    prev: &Sample,
    curr: &Sample,
    dt: f64,
) -> std::collections::BTreeMap<String, f64> {
    counters()
        .filter_map(|m| {
            let r =
                super::rates::counter_rate(m.total_in_sample(prev), m.total_in_sample(curr), dt)?;
            Some((m.id.to_string(), r))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// OpenMetrics metric names: `[a-zA-Z_:][a-zA-Z0-9_:]*`, and (our rule) no `:`.
    fn valid(name: &str) -> bool {
        let mut b = name.bytes();
        b.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
            && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
    }

    #[test]
    fn every_entry_has_a_valid_unique_openmetrics_name() {
        let mut seen = HashSet::new();
        for m in CATALOGUE {
            let n = m.openmetrics_name();
            assert!(valid(&n), "{n}");
            assert!(n.starts_with("zswaptop_"), "{n}");
            assert!(!n.contains("__"), "{n}");
            assert_eq!(m.kind == Kind::Counter, n.ends_with("_total"), "{n}");
            if let Some(u) = m.unit.base_unit() {
                assert!(n.contains(u), "{n} lacks its unit {u}");
            }
            assert!(seen.insert(n.clone()), "{n} twice");
            assert!(n.contains(m.openmetrics_unit()), "{n}");
        }
        assert_eq!(
            get("zswpout").map(Metric::openmetrics_name).as_deref(),
            Some("zswaptop_zswpout_bytes_total")
        );
        assert_eq!(
            get("zswap_pool_bytes")
                .map(Metric::openmetrics_name)
                .as_deref(),
            Some("zswaptop_zswap_pool_bytes")
        );
    }

    #[test]
    fn ids_are_unique_and_plain() {
        let mut seen = HashSet::new();
        let mut csv = HashSet::new();
        for m in CATALOGUE {
            assert!(seen.insert(m.id), "{} twice", m.id);
            assert!(csv.insert(m.csv_name()), "{} csv twice", m.id);
            assert!(
                m.id.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{}",
                m.id
            );
            assert!(!m.help.is_empty() && !m.label.is_empty(), "{}", m.id);
        }
    }

    #[test]
    fn csv_columns_carry_their_unit() {
        let csv = |id: &str| get(id).map(Metric::csv_name);
        assert_eq!(csv("zswpout").as_deref(), Some("zswpout_bytes_per_sec"));
        assert_eq!(csv("zswap_pool_bytes").as_deref(), Some("zswap_pool_bytes"));
        assert_eq!(csv("stored_pages").as_deref(), Some("stored_bytes"));
        assert_eq!(csv("pgmajfault").as_deref(), Some("pgmajfault_per_sec"));
        assert_eq!(
            csv("bypassed_zswap_bytes_per_sec").as_deref(),
            Some("bypassed_zswap_bytes_per_sec")
        );
    }

    #[test]
    fn reads_match_kinds() {
        for m in CATALOGUE {
            if let Read::Snapshot(_) = m.read {
                assert_eq!(m.kind, Kind::Gauge, "{}: derived figures are gauges", m.id);
            }
            if let Read::PsiTotal { .. } = m.read {
                assert_eq!(m.kind, Kind::Counter, "{}", m.id);
            }
        }
    }

    #[test]
    fn parts_name_a_counter_in_the_same_unit() {
        for m in CATALOGUE {
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
        assert_eq!(ra.openmetrics_name(), "zswaptop_swap_ra_bytes_total");
        assert_eq!(get("swap_ra_hit").and_then(|m| m.part_of), Some("swap_ra"));
    }

    /// The debugfs files with a slot of their own are exactly those the catalogue reads.
    #[test]
    fn debugfs_slots_are_the_catalogues_files() {
        let mut named: Vec<&str> = CATALOGUE
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
    }
}
