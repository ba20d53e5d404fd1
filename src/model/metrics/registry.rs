//! The registry's one list: every figure, in the order of the exposition (graph legends, counter
//! lines and CSV columns follow it too). How to add one: the parent module's doc.
//!
//! The single values come first (what the dashboard graphs and a recording keeps, then the zswap
//! debugfs files and pressure), then the figures only the exposition carries, most of them
//! labelled. Every label is bounded: a bucket, a swap area, a disk, a zram device, one of the
//! top [`TOP_CGROUPS`] leaf cgroups, a finding id, a source.

use super::{
    GraphId, Histogram, Hue, Kind, Metric, Point, Read, Unit, counter, debugfs_counter,
    debugfs_gauge, exported, gauge, per_process,
};
use crate::model::cgroup_events::Limit;
use crate::model::owners::{CgroupRow, ProcessRow};
use crate::model::{DeviceIo, Severity, Snapshot, SwapDevice, Zram};
use crate::sources::bpf::{BUCKETS, lower_ns};

/// How many cgroups (leaves, by zswap pool bytes; on cgroup v1, by memory) get series of their
/// own.
pub const TOP_CGROUPS: usize = 10;

fn labelled(pairs: &[(&str, &str)], value: f64) -> Point {
    Point {
        labels: pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect(),
        value,
    }
}

/// Points over a list: `key` names each item's label, `f` its value (missing ones left out).
fn per<T>(
    items: &[T],
    label: &'static str,
    key: impl Fn(&T) -> &str,
    f: impl Fn(&T) -> Option<f64>,
) -> Vec<Point> {
    items
        .iter()
        .filter_map(|i| {
            let v = f(i).filter(|v| v.is_finite())?;
            Some(labelled(&[(label, key(i))], v))
        })
        .collect()
}

/// Points of each listed process (`--top N`, the processes view), labelled by its pid.
fn process(s: &Snapshot, f: fn(&ProcessRow) -> Option<u64>) -> Vec<Point> {
    s.processes
        .iter()
        .flat_map(|p| &p.top)
        .filter_map(|r| Some(labelled(&[("pid", &r.pid.to_string())], f(r)? as f64)))
        .collect()
}

fn zram(s: &Snapshot, f: impl Fn(&Zram) -> Option<f64>) -> Vec<Point> {
    per(&s.zram, "device", |z| z.device.as_str(), f)
}

fn zram_pages(s: &Snapshot, f: impl Fn(&Zram) -> Option<u64>) -> Vec<Point> {
    let ps = s.page_size.bytes as f64;
    zram(s, |z| f(z).map(|p| p as f64 * ps))
}

/// The leaf cgroups with the largest zswap pools, largest first. cgroup v1 has no zswap
/// figures: there, the leaves with the most memory.
///
/// A cgroup's memory.stat counts its descendants' pages too, so a parent and its child both
/// listed would count the child's pages twice in a `sum`. Only leaves are listed: cgroups no
/// other cgroup of the tree read sits under (a cgroup whose children have no memory files, or
/// lie below the walk's depth limit, is a leaf here and holds its subtree). No listed cgroup is
/// then inside another, so summing the series counts each page at most once; what is charged to
/// a parent itself (a removed child's pages) is in no series.
fn top_cgroups(s: &Snapshot) -> Vec<&CgroupRow> {
    let Some(c) = &s.cgroups else {
        return Vec::new();
    };
    let parents: std::collections::HashSet<&str> =
        c.list.iter().filter_map(|r| parent(&r.path)).collect();
    let key = |r: &CgroupRow| c.rank_bytes(r);
    // A leaf the OOM killer hit is listed whatever its size, before the others.
    let killed = |r: &CgroupRow| r.events.and_then(|e| e.oom_kill).is_some_and(|k| k > 0);
    let mut rows: Vec<_> = c
        .list
        .iter()
        .filter(|r| r.path != "/" && !parents.contains(r.path.as_str()))
        .filter(|r| key(r).is_some_and(|z| z > 0) || killed(r))
        .collect();
    rows.sort_by(|a, b| {
        (killed(b), key(b))
            .cmp(&(killed(a), key(a)))
            .then(a.path.cmp(&b.path))
    });
    rows.truncate(TOP_CGROUPS);
    rows
}

/// The path of the cgroup `path` sits in (`/` for a top-level one); `None` for the root.
fn parent(path: &str) -> Option<&str> {
    match path.trim_end_matches('/').rsplit_once('/') {
        Some(("", name)) if !name.is_empty() => Some("/"),
        Some((dir, _)) if !dir.is_empty() => Some(dir),
        _ => None,
    }
}

fn cgroup(s: &Snapshot, f: fn(&CgroupRow) -> Option<u64>) -> Vec<Point> {
    top_cgroups(s)
        .into_iter()
        .filter_map(|r| Some(labelled(&[("cgroup", &r.path)], f(r)? as f64)))
        .collect()
}

/// Points of those leaf cgroups from a value of any kind (pressure, a limit's headroom).
fn cgroup_f(s: &Snapshot, f: impl Fn(&CgroupRow) -> Option<f64>) -> Vec<Point> {
    top_cgroups(s)
        .into_iter()
        .filter_map(|r| {
            Some(labelled(
                &[("cgroup", &r.path)],
                f(r).filter(|v| v.is_finite())?,
            ))
        })
        .collect()
}

/// Each set limit (not "max") of those leaf cgroups, labelled by its file: `f` of it.
fn cgroup_limits(s: &Snapshot, f: fn(&Limit) -> Option<f64>) -> Vec<Point> {
    top_cgroups(s)
        .into_iter()
        .flat_map(|r| {
            r.limits.named().into_iter().filter_map(move |(file, l)| {
                let l = l.filter(|l| l.limit_bytes.is_some())?;
                Some(labelled(&[("cgroup", &r.path), ("limit", file)], f(l)?))
            })
        })
        .collect()
}

/// Swap areas and the disks under them, each disk once.
fn disks(s: &Snapshot) -> Vec<&DeviceIo> {
    let mut seen: Vec<&DeviceIo> = Vec::new();
    for io in s.swap.devices.iter().filter_map(|d| d.io.as_ref()) {
        if !seen.iter().any(|d| d.device == io.device) {
            seen.push(io);
        }
    }
    seen
}

/// A swap area's device latency, labelled by the area and its block device.
fn latency(s: &Snapshot, f: fn(&SwapDevice) -> Option<f64>) -> Vec<Point> {
    s.swap
        .devices
        .iter()
        .filter_map(|d| {
            let v = f(d).filter(|v| v.is_finite())?;
            let dev = d.block_device.as_deref()?;
            Some(labelled(&[("area", d.path.as_str()), ("device", dev)], v))
        })
        .collect()
}

/// The programs' buckets (log2 x 4) that end an octave: the histogram's bounds are their upper
/// edges, 2^11 ns (bucket 4's lower edge) to 2^33 ns (bucket 92's), 23 of them. Every bucket
/// is a quarter octave, so each bound is exact: the count at a bound is every bucket below it.
/// (All 95 edges would be 96 series a tier; an octave is as fine as a p99 needs.)
const OCTAVE: usize = 4;

/// Swap-in latency by tier since the programs' load, in seconds: the cumulative count at the
/// upper edge of each octave's last bucket, then `+Inf` (every swap-in, the buckets' sum:
/// the programs' own count is a counter of its own, which a read can catch a swap-in apart
/// from its bucket's), and the waits' sum.
fn swapin_latency(s: &Snapshot) -> Vec<Histogram> {
    histograms(&s.swapin_totals)
}

/// The store side's, as [`swapin_latency`].
fn store_latency(s: &Snapshot) -> Vec<Histogram> {
    histograms(&s.store_totals)
}

fn histograms(totals: &[crate::model::swapin::TierTotals]) -> Vec<Histogram> {
    totals
        .iter()
        .map(|t| {
            let mut below = 0u64;
            let mut buckets = Vec::with_capacity(BUCKETS / OCTAVE);
            for (i, n) in t.buckets.iter().enumerate() {
                below = below.saturating_add(*n);
                let edge = i + 1;
                if edge % OCTAVE == 0 && edge < BUCKETS {
                    buckets.push((lower_ns(edge) / 1e9, below));
                }
            }
            buckets.push((f64::INFINITY, below));
            Histogram {
                labels: vec![("tier".to_string(), t.tier.clone())],
                buckets,
                sum: t.sum_ns as f64 / 1e9,
            }
        })
        .collect()
}

/// Every figure, in exposition order.
pub static REGISTRY: &[Metric] = ALL;

/// The list as a constant, so that [`super::by_id`] finds a figure when the crate compiles.
pub(super) const ALL: &[Metric] = &[
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
    )
    .unexported(),
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
        Read::Snapshot(|s| s.rates.as_ref()?.bypassed_zswap_bytes_per_sec),
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
    )
    .unexported(),
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
    )
    .unexported(),
    gauge(
        "nr_zspages",
        "nr_zspages",
        Unit::Pages,
        "Pages zsmalloc holds for zswap and zram together (vmstat nr_zspages).",
        Read::Vmstat(|v| v.nr_zspages),
    ),
    // --- zswap debugfs (root only) ----------------------------------------------------------
    debugfs_counter(
        "written_back_pages",
        Unit::Pages,
        "Pages zswap wrote back to the swap device (debugfs).",
    ),
    debugfs_counter(
        "pool_limit_hit",
        Unit::Events,
        "Stores that found the pool at its limit (debugfs).",
    ),
    debugfs_counter(
        "decompress_fail",
        Unit::Events,
        "Loads whose decompression failed (debugfs).",
    ),
    debugfs_counter(
        "duplicate_entry",
        Unit::Events,
        "Stores that replaced an entry already in the pool (debugfs, up to 6.9).",
    ),
    debugfs_counter(
        "reject_alloc_fail",
        Unit::Events,
        "Stores rejected: the allocator could not find room (debugfs).",
    ),
    debugfs_counter(
        "reject_compress_fail",
        Unit::Events,
        "Stores rejected: the compressor failed (debugfs).",
    ),
    debugfs_counter(
        "reject_compress_poor",
        Unit::Events,
        "Stores rejected: the page compressed too poorly to keep (debugfs).",
    ),
    debugfs_counter(
        "reject_kmemcache_fail",
        Unit::Events,
        "Stores rejected: no memory for the entry's metadata (debugfs).",
    ),
    debugfs_counter(
        "reject_reclaim_fail",
        Unit::Events,
        "Stores rejected: the pool was full and writeback failed (debugfs).",
    ),
    debugfs_gauge(
        "pool_total_size",
        Unit::Bytes,
        "The pool's size as debugfs gives it.",
    ),
    debugfs_gauge(
        "stored_pages",
        Unit::Pages,
        "Pages zswap holds (debugfs).",
    ),
    debugfs_gauge(
        "same_filled_pages",
        Unit::Pages,
        "Stored pages that were one repeated word, kept without pool memory (debugfs, up to 6.11).",
    ),
    debugfs_gauge(
        "stored_incompressible_pages",
        Unit::Pages,
        "Stored pages kept uncompressed, a page each (debugfs, 6.18+).",
    ),
    debugfs_gauge(
        "pool_pages",
        Unit::Pages,
        "The pool's size in pages (debugfs, older kernels).",
    ),
    // --- memory pressure ---------------------------------------------------------------------
    gauge(
        "psi_some_percent",
        "some",
        Unit::Percent,
        "Share of time some tasks stalled on memory over the interval (PSI).",
        Read::Snapshot(|s| s.rates.as_ref()?.psi_some_percent),
    )
    .graphed(GraphId::Psi, "some", Hue::Yellow, 's'),
    gauge(
        "psi_full_percent",
        "full",
        Unit::Percent,
        "Share of time all tasks stalled on memory over the interval (PSI).",
        Read::Snapshot(|s| s.rates.as_ref()?.psi_full_percent),
    )
    .graphed(GraphId::Psi, "full", Hue::Red, 'f'),
    gauge(
        "psi_some_avg10",
        "some avg10",
        Unit::Percent,
        "Share of the last 10 s some tasks stalled on memory, as the kernel averages it (PSI some avg10).",
        Read::Snapshot(|s| s.psi.as_ref().map(|p| p.some_avg10)),
    )
    .unexported(),
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
    // --- when will it be full, is zswap helping -----------------------------------------------
    gauge(
        "zswap_pool_full_seconds",
        "pool_full",
        Unit::Seconds,
        "Time until the zswap pool reaches its limit (refusals start there) at its fill rate over the forecast window; absent when not filling.",
        Read::Snapshot(|s| s.forecast.zswap_pool_full_seconds),
    ),
    gauge(
        "swap_full_seconds",
        "swap_full",
        Unit::Seconds,
        "Time until all swap is used at its fill rate over the forecast window; absent when not filling.",
        Read::Snapshot(|s| s.forecast.swap_full_seconds),
    ),
    gauge(
        "zswap_swapin_hit_ratio",
        "hit ratio",
        Unit::Share,
        "Of the swap-ins over the interval, the share served from zswap: zswpin ÷ (zswpin + pswpin).",
        Read::Snapshot(|s| s.zswap.swapin_hit_ratio),
    ),
    // ===== only in the exposition: the breakdown, what free hides, the pool against its limit,
    // the swap split, swap areas and their disks, zram in full, PSI averages, the top cgroups,
    // the parameters and the findings (the JSON has each as its model field) ==================
    // --- memory -------------------------------------------------------------------------------
    exported(
        "memory_breakdown_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Where RAM is: eleven buckets that sum to MemTotal (a bucket the kernel does not give is left out, its memory in unaccounted).",
        Read::Labelled {
            labels: &["bucket"],
            points: |s| {
                s.memory
                    .breakdown
                    .iter()
                    .flat_map(|b| b.buckets())
                    .filter_map(|(k, v)| Some(labelled(&[("bucket", k)], v? as f64)))
                    .collect()
            },
        },
    ),
    exported(
        "free_hidden_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "What free(1) hides in used: the zswap and zram pools.",
        Read::Snapshot(|s| s.memory.hidden_in_used_bytes.map(|v| v as f64)),
    ),
    // --- zswap --------------------------------------------------------------------------------
    exported(
        "zswap_enabled",
        Kind::Gauge,
        Unit::Number,
        "1 when zswap takes new pages, 0 when it is off (parameter enabled).",
        Read::Snapshot(|s| s.zswap.enabled.map(|e| f64::from(u8::from(e)))),
    ),
    exported(
        "zswap_parameters",
        Kind::Info,
        Unit::Number,
        "zswap's parameters (/sys/module/zswap/parameters) as labels.",
        Read::Labelled {
            labels: &[],
            points: |s| {
                if !s.zswap.available || s.zswap.parameters.is_empty() {
                    return Vec::new();
                }
                let labels = s
                    .zswap
                    .parameters
                    .iter()
                        .map(|(k, v)| (k.clone(), v.trim().to_string()))
                    .collect();
                vec![Point { labels, value: 1.0 }]
            },
        },
    ),
    exported(
        "zswap_pool_limit_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "The pool's limit: max_pool_percent of MemTotal.",
        Read::Snapshot(|s| s.zswap.pool_limit_bytes.map(|v| v as f64)),
    ),
    exported(
        "zswap_accept_threshold_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Pool size below which a full pool takes pages again (accept_threshold_percent of the limit).",
        Read::Snapshot(|s| s.zswap.accept_threshold_bytes.map(|v| v as f64)),
    ),
    exported(
        "zswap_pool_headroom_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Room left in the pool before its limit.",
        Read::Snapshot(|s| s.zswap.pool_headroom_bytes.map(|v| v as f64)),
    ),
    exported(
        "zswap_saved_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "RAM zswap saves now: stored minus pool (negative when it costs).",
        Read::Snapshot(|s| s.zswap.saved_bytes.map(|v| v as f64)),
    ),
    exported(
        "zswap_incompressible_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Stored bytes kept uncompressed (debugfs stored_incompressible_pages, 6.18+).",
        Read::Snapshot(|s| s.zswap.incompressible_bytes.map(|v| v as f64)),
    ),
    exported(
        "zswap_same_filled_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Stored bytes of same-filled pages, kept without pool memory (debugfs, up to 6.11).",
        Read::Snapshot(|s| s.zswap.same_filled_bytes.map(|v| v as f64)),
    ),
    exported(
        "zswap_debugfs_unlisted",
        Kind::Gauge,
        Unit::Number,
        "A zswap debugfs file the catalogue does not know (a later kernel's), as read, by file name.",
        Read::Labelled {
            labels: &["file"],
            points: |s| {
                s.zswap
                    .debugfs
                    .iter()
                    .flat_map(|d| d.iter())
                    .filter(|(k, _)| super::debugfs(k).is_none())
                    .map(|(k, &v)| labelled(&[("file", k)], v as f64))
                    .collect()
            },
        },
    ),
    // --- swap ---------------------------------------------------------------------------------
    exported(
        "swap_total_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Swap space (meminfo SwapTotal).",
        Read::Snapshot(|s| s.swap.total_bytes.map(|v| v as f64)),
    ),
    exported(
        "swap_used_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Swap in use (SwapTotal - SwapFree).",
        Read::Snapshot(|s| s.swap.used_bytes.map(|v| v as f64)),
    ),
    exported(
        "swap_held_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Where swapped pages are: zswap (compressed in RAM), swap_cache (also in RAM), zram, disk (only on the swap device).",
        Read::Labelled {
            labels: &["location"],
            points: |s| {
                let w = &s.swap;
                [
                    ("zswap", w.in_zswap_bytes),
                    ("swap_cache", w.in_swap_cache_bytes),
                    ("zram", w.in_zram_bytes),
                    ("disk", w.not_in_ram_bytes),
                ]
                .into_iter()
                .filter_map(|(k, v)| Some(labelled(&[("location", k)], v? as f64)))
                .collect()
            },
        },
    ),
    exported(
        "swap_area_size_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "A swap area's size (/proc/swaps).",
        Read::Labelled {
            labels: &["area"],
            points: |s| {
                per(
                    &s.swap.devices,
                    "area",
                    |d| d.path.as_str(),
                    |d| Some(d.size_bytes as f64),
                )
            },
        },
    ),
    exported(
        "swap_area_used_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Swap in use on a swap area (/proc/swaps).",
        Read::Labelled {
            labels: &["area"],
            points: |s| {
                per(
                    &s.swap.devices,
                    "area",
                    |d| d.path.as_str(),
                    |d| Some(d.used_bytes as f64),
                )
            },
        },
    ),
    exported(
        "swap_area_priority",
        Kind::Gauge,
        Unit::Number,
        "A swap area's priority (higher is used first).",
        Read::Labelled {
            labels: &["area"],
            points: |s| {
                per(
                    &s.swap.devices,
                    "area",
                    |d| d.path.as_str(),
                    |d| Some(d.priority as f64),
                )
            },
        },
    ),
    exported(
        "swap_disk_read_bytes",
        Kind::Counter,
        Unit::Bytes,
        "Bytes read from a disk under a swap area (/proc/diskstats, all I/O of the disk).",
        Read::Labelled {
            labels: &["device"],
            points: |s| {
                per(
                    &disks(s),
                    "device",
                    |d| d.device.as_str(),
                    |d| Some(d.read_bytes_total as f64),
                )
            },
        },
    ),
    exported(
        "swap_disk_written_bytes",
        Kind::Counter,
        Unit::Bytes,
        "Bytes written to a disk under a swap area (/proc/diskstats, all I/O of the disk).",
        Read::Labelled {
            labels: &["device"],
            points: |s| {
                per(
                    &disks(s),
                    "device",
                    |d| d.device.as_str(),
                    |d| Some(d.write_bytes_total as f64),
                )
            },
        },
    ),
    exported(
        "swap_area_full_seconds",
        Kind::Gauge,
        Unit::Seconds,
        "Time until a swap area is full at its fill rate over the forecast window; absent when not filling.",
        Read::Labelled {
            labels: &["area"],
            points: |s| {
                per(
                    &s.forecast.swap_areas,
                    "area",
                    |a| a.path.as_str(),
                    |a| a.forecast.seconds,
                )
            },
        },
    ),
    exported(
        "swap_area_read_latency_ms",
        Kind::Gauge,
        Unit::Milliseconds,
        "The average time the device under a swap area took per read over the interval (/sys/block/*/stat: ms reading ÷ reads; all its I/O, per request, not per fault).",
        Read::Labelled {
            labels: &["area", "device"],
            points: |s| latency(s, |d| d.read_latency_ms),
        },
    ),
    exported(
        "swap_area_write_latency_ms",
        Kind::Gauge,
        Unit::Milliseconds,
        "The average time the device under a swap area took per write over the interval (ms writing ÷ writes; all its I/O, per request).",
        Read::Labelled {
            labels: &["area", "device"],
            points: |s| latency(s, |d| d.write_latency_ms),
        },
    ),
    exported(
        "swapin_latency_seconds",
        Kind::Histogram,
        Unit::Seconds,
        "How long swap-ins waited, page fault to page mapped, by the tier that served them (zswap, zram, disk, swapcache, zero), counted by zswaptop's BPF programs since they were loaded (the counts restart with them); le at every octave from 2.048e-06 to 8.589934592 s (2^11 to 2^33 ns) and +Inf. No series where the programs do not run, none for a tier this kernel does not let them measure.",
        Read::Histogram {
            labels: &["tier"],
            series: swapin_latency,
        },
    ),
    exported(
        "store_latency_seconds",
        Kind::Histogram,
        Unit::Seconds,
        "How long a page took to be stored on its way out, by where it went: zswap (a page zswap stored: compression and its pool), zram (a synchronous write to a zram device), disk (an asynchronous write, its bio's submission to its completion), counted by zswaptop's BPF programs since they were loaded (the counts restart with them; reclaim pays these, not a task's fault); le as swapin_latency_seconds. No series where the programs do not run, none for a tier this kernel does not let them measure (the kprobe fallback times no stores).",
        Read::Histogram {
            labels: &["tier"],
            series: store_latency,
        },
    ),
    // --- zram ---------------------------------------------------------------------------------
    exported(
        "zram_device",
        Kind::Info,
        Unit::Number,
        "A zram device: its algorithm, whether it is swap, its backing device.",
        Read::Labelled {
            labels: &["device", "swap", "algorithm", "backing_dev"],
            points: |s| {
                s.zram
                    .iter()
                    .map(|z| {
                        let mut p = labelled(
                            &[
                                ("device", &z.device),
                                ("swap", if z.is_swap { "1" } else { "0" }),
                            ],
                            1.0,
                        );
                        for (k, v) in [("algorithm", &z.algorithm), ("backing_dev", &z.backing_dev)] {
                            if let Some(v) = v {
                                p.labels.push((k.to_string(), v.clone()));
                            }
                        }
                        p
                    })
                    .collect()
            },
        },
    ),
    exported(
        "zram_disksize_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "A zram device's size (disksize).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.disksize_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_orig_data_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Uncompressed data a zram device holds (mm_stat orig_data_size).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.orig_data_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_compr_data_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "That data compressed (mm_stat compr_data_size).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.compr_data_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_mem_used_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "RAM a zram device takes, allocator overhead included (mm_stat mem_used_total).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.mem_used_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_mem_limit_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "A zram device's memory limit (mm_stat mem_limit, 0: none).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.mem_limit_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_mem_used_max_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "The most RAM a zram device has taken (mm_stat mem_used_max).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.mem_used_max_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_same_filled_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Same-filled pages a zram device keeps without memory (mm_stat same_pages, in bytes).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram_pages(s, |z| z.same_pages),
        },
    ),
    exported(
        "zram_huge_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Incompressible pages a zram device keeps whole (mm_stat huge_pages, in bytes).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram_pages(s, |z| z.huge_pages),
        },
    ),
    exported(
        "zram_huge_since_bytes",
        Kind::Counter,
        Unit::Bytes,
        "Incompressible pages a zram device has stored since set up (mm_stat huge_pages_since, in bytes).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram_pages(s, |z| z.huge_pages_since),
        },
    ),
    exported(
        "zram_compacted_bytes",
        Kind::Counter,
        Unit::Bytes,
        "Memory zsmalloc compaction freed for a zram device (mm_stat pages_compacted, in bytes).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram_pages(s, |z| z.pages_compacted),
        },
    ),
    exported(
        "zram_compression_ratio",
        Kind::Gauge,
        Unit::Ratio,
        "The compressor's ratio on a zram device: orig_data_size / compr_data_size.",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.compression_ratio),
        },
    ),
    exported(
        "zram_effective_ratio",
        Kind::Gauge,
        Unit::Ratio,
        "What a zram device saves: orig_data_size / mem_used_total.",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.effective_ratio),
        },
    ),
    exported(
        "zram_allocator_overhead_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "zsmalloc overhead of a zram device: mem_used_total - compr_data_size.",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.allocator_overhead_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_saved_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "RAM a zram device saves now: orig_data_size - mem_used_total.",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.saved_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_failed_reads",
        Kind::Counter,
        Unit::Events,
        "Failed reads of a zram device (io_stat).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.failed_reads.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_failed_writes",
        Kind::Counter,
        Unit::Events,
        "Failed writes of a zram device (io_stat).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.failed_writes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_backing_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Data a zram device has written back to its backing device and keeps there (bd_stat).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.bd_count_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_backing_read_bytes",
        Kind::Counter,
        Unit::Bytes,
        "Bytes a zram device read back from its backing device (bd_stat).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.bd_reads_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_backing_written_bytes",
        Kind::Counter,
        Unit::Bytes,
        "Bytes a zram device wrote to its backing device (bd_stat).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.bd_writes_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_full_seconds",
        Kind::Gauge,
        Unit::Seconds,
        "Time until a zram device reaches the first of its disksize and mem_limit at its fill rate over the forecast window; absent when not filling.",
        Read::Labelled {
            labels: &["device"],
            points: |s| {
                per(
                    &s.forecast.zram,
                    "device",
                    |z| z.device.as_str(),
                    |z| z.full_seconds,
                )
            },
        },
    ),
    // --- zram writeback and recompression, systemd-oomd (issue 35) -----------------------------
    exported(
        "zram_backing_written_window_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Bytes a zram device wrote to its backing device over the window between the two samples (bd_stat writes).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.bd_writes_window_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_writeback_limit_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "What a zram device may still write back while writeback_limit_enable is 1 (writeback_limit, 4 KiB units); absent while the limit is off.",
        Read::Labelled {
            labels: &["device"],
            points: |s| {
                zram(s, |z| {
                    (z.writeback_limit_enabled == Some(true))
                        .then_some(z.writeback_limit_bytes)
                        .flatten()
                        .map(|v| v as f64)
                })
            },
        },
    ),
    exported(
        "zram_idle_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Idle pages a zram device keeps in RAM that writeback could move, uncompressed (debugfs block_state: idle, not written back, not same-filled).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.idle_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "zram_recompressed_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Pages of a zram device a recompression reached, uncompressed (debugfs block_state flags r or n).",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.recompressed_bytes.map(|v| v as f64)),
        },
    ),
    exported(
        "oomd_swap_used_limit_ratio",
        Kind::Gauge,
        Unit::Share,
        "systemd-oomd's SwapUsedLimit: the share of swap used past which it kills in a ManagedOOMSwap=kill unit; absent where oomd does not run.",
        Read::Snapshot(|s| {
            s.oomd
                .as_ref()
                .and_then(|o| o.swap_used_limit_percent)
                .map(|p| p / 100.0)
        }),
    ),
    exported(
        "oomd_swap_kill_unit",
        Kind::Info,
        Unit::Number,
        "A unit systemd-oomd kills in when swap runs out (ManagedOOMSwap=kill).",
        Read::Labelled {
            labels: &["unit"],
            points: |s| {
                s.oomd
                    .iter()
                    .flat_map(|o| &o.swap_kill_units)
                    .map(|u| labelled(&[("unit", &u.unit)], 1.0))
                    .collect()
            },
        },
    ),
    // --- pressure -----------------------------------------------------------------------------
    exported(
        "psi_memory_avg_ratio",
        Kind::Gauge,
        Unit::Share,
        "The kernel's running averages of memory stall time (/proc/pressure/memory), by line and window in seconds.",
        Read::Labelled {
            labels: &["line", "window"],
            points: |s| {
                let Some(p) = &s.psi else {
                    return Vec::new();
                };
                [
                    ("some", "10", p.some_avg10),
                    ("some", "60", p.some_avg60),
                    ("some", "300", p.some_avg300),
                    ("full", "10", p.full_avg10),
                    ("full", "60", p.full_avg60),
                    ("full", "300", p.full_avg300),
                ]
                .into_iter()
                .filter(|(_, _, v)| v.is_finite())
                .map(|(l, w, v)| labelled(&[("line", l), ("window", w)], v / 100.0))
                .collect()
            },
        },
    ),
    // --- cgroups: the leaves with the largest zswap pools (v2), the most memory (v1) --------
    exported(
        "cgroup_zswap_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "zswap pool memory of the leaf cgroups with the largest pools (memory.stat zswap, top 10): no series is inside another, so their sum counts no page twice.",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.zswap_bytes),
        },
    ),
    exported(
        "cgroup_zswapped_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Uncompressed size of what zswap holds for those leaf cgroups (memory.stat zswapped).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.zswapped_bytes),
        },
    ),
    exported(
        "cgroup_memory_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "memory.current of those leaf cgroups (cgroup v1, the leaves with the most memory: memory.usage_in_bytes).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.memory_current_bytes),
        },
    ),
    exported(
        "cgroup_swap_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "memory.swap.current of those leaf cgroups (cgroup v1: memory.stat total_swap).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.swap_current_bytes),
        },
    ),
    // --- cgroups: events, pressure and limits of the same leaves (issue 35) -------------------
    exported(
        "cgroup_oom_kills",
        Kind::Counter,
        Unit::Events,
        "Processes of those leaf cgroups killed by an OOM killer (memory.events oom_kill; cgroup v1: memory.oom_control oom_kill, 4.13+). A leaf with a kill is listed whatever its size.",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.events?.oom_kill),
        },
    ),
    exported(
        "cgroup_oom_events",
        Kind::Counter,
        Unit::Events,
        "Times those leaf cgroups hit their limit with nothing left to reclaim (memory.events oom, v2).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.events?.oom),
        },
    ),
    exported(
        "cgroup_oom_group_kills",
        Kind::Counter,
        Unit::Events,
        "Whole-group OOM kills of those leaf cgroups (memory.events oom_group_kill, v2, 5.17+).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.events?.oom_group_kill),
        },
    ),
    exported(
        "cgroup_high_events",
        Kind::Counter,
        Unit::Events,
        "Times those leaf cgroups went over memory.high and were throttled (memory.events high, v2).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.events?.high),
        },
    ),
    exported(
        "cgroup_max_events",
        Kind::Counter,
        Unit::Events,
        "Times those leaf cgroups were about to pass memory.max or memory.swap.max (memory.events max, v2).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| r.events?.max),
        },
    ),
    exported(
        "cgroup_pressure_some_avg10",
        Kind::Gauge,
        Unit::Percent,
        "Share of the last 10 s some task of those leaf cgroups stalled on memory (memory.pressure some avg10, v2).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup_f(s, |r| Some(r.pressure?.some_avg10)),
        },
    ),
    exported(
        "cgroup_pressure_full_avg10",
        Kind::Gauge,
        Unit::Percent,
        "Share of the last 10 s all tasks of those leaf cgroups stalled on memory (memory.pressure full avg10, v2).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup_f(s, |r| Some(r.pressure?.full_avg10)),
        },
    ),
    exported(
        "cgroup_pressure_some_stalled",
        Kind::Counter,
        Unit::Microseconds,
        "Time some task of those leaf cgroups stalled on memory (memory.pressure some total, v2).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| Some(r.pressure?.some_total_us)),
        },
    ),
    exported(
        "cgroup_pressure_full_stalled",
        Kind::Counter,
        Unit::Microseconds,
        "Time all tasks of those leaf cgroups stalled on memory (memory.pressure full total, v2).",
        Read::Labelled {
            labels: &["cgroup"],
            points: |s| cgroup(s, |r| Some(r.pressure?.full_total_us)),
        },
    ),
    exported(
        "cgroup_limit_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Each limit set on those leaf cgroups, by file (memory.high, memory.max, memory.swap.max, memory.zswap.max; v1: memory.max from memory.limit_in_bytes); none for max.",
        Read::Labelled {
            labels: &["cgroup", "limit"],
            points: |s| cgroup_limits(s, |l| l.limit_bytes.map(|b| b as f64)),
        },
    ),
    exported(
        "cgroup_headroom_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "Each set limit less what the kernel compares with it (memory.current, memory.swap.current, memory.stat zswap); negative over it.",
        Read::Labelled {
            labels: &["cgroup", "limit"],
            points: |s| cgroup_limits(s, |l| l.headroom_bytes.map(|b| b as f64)),
        },
    ),
    // --- zram idle growth; each listed process's footprint, estimate and shmem swap (issue 35)
    exported(
        "zram_idle_window_bytes",
        Kind::Gauge,
        Unit::Bytes,
        "What a zram device's idle pages in RAM changed by between its last two debugfs block_state readings (negative: fewer); absent from one reading.",
        Read::Labelled {
            labels: &["device"],
            points: |s| zram(s, |z| z.idle_window_bytes.map(|v| v as f64)),
        },
    ),
    per_process(
        "process_footprint_bytes",
        "footprint",
        "A listed process's resident plus swapped memory (VmRSS + VmSwap): what it would take were all of it in RAM.",
        |s| process(s, |r| r.footprint_bytes),
    ),
    per_process(
        "process_compressed_estimate_bytes",
        "~compr",
        "An estimate of the RAM a listed process's swap takes compressed (in the zswap pool and zram swap devices): its VmSwap times its cgroup's, else the system's, compressed bytes over swap used.",
        |s| process(s, |r| r.compressed_estimate_bytes),
    ),
    per_process(
        "process_shmem_swap_bytes",
        "shm swap",
        "Swapped shared memory (tmpfs, SysV shm, memfd, shared anonymous) a listed process maps: smaps_rollup Swap less VmSwap; counted whole in every process that maps it.",
        |s| process(s, |r| r.shmem_swap_bytes),
    ),
    per_process(
        "process_swap_pss_bytes",
        "SwapPss",
        "A listed process's proportional share of the swap entries in its page tables (smaps_rollup SwapPss: one n processes share counts 1/n).",
        |s| process(s, |r| r.swap_pss_bytes),
    ),
    // --- what zswaptop concludes, and what it could read --------------------------------------
    exported(
        "finding",
        Kind::State,
        Unit::Number,
        "A diagnostic finding that holds now, by id and severity (info, warn, crit).",
        Read::Labelled {
            labels: &["id", "severity"],
            points: |s| {
                s.diagnostics
                    .iter()
                    .map(|f| {
                        let sev = match f.severity {
                            Severity::Info => "info",
                            Severity::Warn => "warn",
                            Severity::Crit => "crit",
                        };
                        labelled(&[("id", &f.id), ("severity", sev)], 1.0)
                    })
                    .collect()
            },
        },
    ),
    exported(
        "source_status",
        Kind::State,
        Unit::Number,
        "Each kernel source zswaptop reads and its status (ok, missing, denied, malformed, unreadable): why a figure is absent.",
        Read::Labelled {
            labels: &["source", "status"],
            points: |s| {
                s.sources
                    .iter()
                    .map(|st| labelled(&[("source", &st.source), ("status", st.status())], 1.0))
                    .collect()
            },
        },
    ),
    exported(
        "build",
        Kind::Info,
        Unit::Number,
        "The zswaptop that wrote this, and the kernel it read.",
        Read::Labelled {
            labels: &["version", "kernel"],
            points: |s| {
                let mut p = labelled(&[("version", &s.tool.version)], 1.0);
                if let Some(k) = &s.host.kernel {
                    p.labels.push(("kernel".into(), k.clone()));
                }
                vec![p]
            },
        },
    ),
];
#[cfg(test)]
mod tests {
    use super::super::get;
    use super::*;

    fn snapshot_with_cgroups(fixture: &str) -> Snapshot {
        let root = crate::root::Root::at(format!(
            "{}/tests/fixtures/{fixture}",
            env!("CARGO_MANIFEST_DIR")
        ));
        let extras = crate::sources::Extras {
            cgroups: true,
            ..Default::default()
        };
        Snapshot::derive(&crate::sources::collect_with(&root, extras), None)
    }

    /// The `cgroup` label of each point, in order.
    fn paths(points: &[Point]) -> Vec<&str> {
        points.iter().map(|p| p.labels[0].1.as_str()).collect()
    }

    /// cgroup v1: the top leaf cgroups by memory, with memory and swap series and no zswap ones;
    /// /process_api (the three containers' parent, 7.8 GB) is not listed beside its children.
    #[test]
    fn cgroup_v1_series_are_memory_and_swap() {
        let snap = snapshot_with_cgroups("linux-6.18-cgroup-v1");
        let family = |id: &str| get(id).unwrap().points(&snap);
        let memory = family("cgroup_memory_bytes");
        assert_eq!(
            paths(&memory),
            [
                "/process_api/0c34a129a0605314addad4c1319e0b59",
                "/process_api/73c108e86a56bcc6f3932cc7cb39f5ce",
                "/process_api/fa7207a3a5979b752673e25e05125d6d",
            ]
        );
        assert_eq!(memory[0].value, 3_786_076_160.0);
        assert_eq!(family("cgroup_swap_bytes").len(), 3);
        assert!(family("cgroup_zswap_bytes").is_empty());
        assert!(family("cgroup_zswapped_bytes").is_empty());
    }

    /// cgroup v2: memory.stat counts a cgroup's descendants, so the tree's five nested cgroups
    /// down to app-firefox-1234.scope all say 40 MB. Only the leaves are series: none inside
    /// another, their sum no more than the root's (what the parents hold themselves is in none).
    #[test]
    fn cgroup_series_are_leaves_a_sum_counts_once() {
        let snap = snapshot_with_cgroups("depth-cgroup-v2");
        let zswap = get("cgroup_zswap_bytes").unwrap().points(&snap);
        assert_eq!(
            paths(&zswap),
            [
                "/system.slice/postgresql.service",
                "/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1234.scope",
                "/system.slice/nginx.service",
                "/system.slice/systemd-journald.service",
                "/init.scope",
            ]
        );
        for a in paths(&zswap) {
            for b in paths(&zswap) {
                assert!(!b.starts_with(&format!("{a}/")), "{b} is inside {a}");
            }
        }
        let sum: f64 = zswap.iter().map(|p| p.value).sum();
        assert_eq!(sum, 191_704_800.0);
        let root = snap.cgroups.as_ref().unwrap().list[0].zswap_bytes.unwrap();
        assert!(sum <= root as f64, "{sum} > the root's {root}");
        // The same cgroups in every cgroup family.
        for id in [
            "cgroup_zswapped_bytes",
            "cgroup_memory_bytes",
            "cgroup_swap_bytes",
        ] {
            let p = get(id).unwrap().points(&snap);
            assert!(paths(&p).iter().all(|c| paths(&zswap).contains(c)), "{id}");
        }
    }

    #[test]
    fn parents() {
        assert_eq!(parent("/"), None);
        assert_eq!(parent("/a.slice"), Some("/"));
        assert_eq!(parent("/a.slice/b.service"), Some("/a.slice"));
        assert_eq!(parent("/a.slice/b.service/"), Some("/a.slice"));
    }
}
