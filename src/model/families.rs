//! The catalogue's second half: the figures an exporter publishes beyond [`super::metrics`]'s
//! one-value metrics: the breakdown, what `free` hides, the pool against its limit, the swap
//! split, swap areas and their disks, zram in full, PSI averages, the top cgroups, the
//! parameters and the findings. Most are labelled families; every label is bounded (a bucket,
//! a swap area, a disk, a zram device, one of the top [`TOP_CGROUPS`] cgroups, a finding id).
//!
//! Each [`Family`] gives its values already in base units (bytes, seconds, ratios as plain
//! numbers). A value the kernel did not give is left out, never written as 0: a family may then
//! have no points at all, and an exporter leaves it out whole.

use super::Snapshot;
use super::metrics::Kind;

/// How many cgroups (by zswap pool bytes; on cgroup v1, by memory) get series of their own.
pub const TOP_CGROUPS: usize = 10;

/// What a family is to Prometheus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FamilyKind {
    Gauge,
    Counter,
    /// Labels that describe; its one point has the value 1 (`…_info` in the exposition).
    Info,
    /// A set of labelled points of value 1 that say a state (`zswaptop_finding`).
    StateSet,
}

impl From<Kind> for FamilyKind {
    fn from(k: Kind) -> Self {
        match k {
            Kind::Gauge => FamilyKind::Gauge,
            Kind::Counter => FamilyKind::Counter,
        }
    }
}

/// One series: its label pairs and its value in base units.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Point {
    fn plain(value: f64) -> Point {
        Point {
            labels: Vec::new(),
            value,
        }
    }
}

/// A labelled family. `id` is the exposition name without the `zswaptop_` prefix and without a
/// counter's `_total`; it ends with `_{unit}` when there is a unit.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    pub id: &'static str,
    pub kind: FamilyKind,
    /// The OpenMetrics unit (`bytes`, `seconds`, `ratio`), `None` for counts and states.
    pub unit: Option<&'static str>,
    pub help: &'static str,
    pub read: fn(&Snapshot) -> Vec<Point>,
}

fn one(v: Option<f64>) -> Vec<Point> {
    v.filter(|v| v.is_finite())
        .map(Point::plain)
        .into_iter()
        .collect()
}

fn bytes(v: Option<u64>) -> Vec<Point> {
    one(v.map(|v| v as f64))
}

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

fn zram(s: &Snapshot, f: impl Fn(&super::Zram) -> Option<f64>) -> Vec<Point> {
    per(&s.zram, "device", |z| z.device.as_str(), f)
}

fn zram_pages(s: &Snapshot, f: impl Fn(&super::Zram) -> Option<u64>) -> Vec<Point> {
    let ps = s.page_size.bytes as f64;
    zram(s, |z| f(z).map(|p| p as f64 * ps))
}

/// The cgroups with the largest zswap pools, largest first, the root left out. cgroup v1 has no
/// zswap figures: there, the cgroups with the most memory.
pub fn top_cgroups(s: &Snapshot) -> Vec<&super::owners::CgroupRow> {
    let Some(c) = &s.cgroups else {
        return Vec::new();
    };
    let key = |r: &super::owners::CgroupRow| c.rank_bytes(r);
    let mut rows: Vec<_> = c
        .list
        .iter()
        .filter(|r| r.path != "/" && key(r).is_some_and(|z| z > 0))
        .collect();
    rows.sort_by(|a, b| key(b).cmp(&key(a)).then(a.path.cmp(&b.path)));
    rows.truncate(TOP_CGROUPS);
    rows
}

fn cgroup(s: &Snapshot, f: fn(&super::owners::CgroupRow) -> Option<u64>) -> Vec<Point> {
    top_cgroups(s)
        .into_iter()
        .filter_map(|r| Some(labelled(&[("cgroup", &r.path)], f(r)? as f64)))
        .collect()
}

/// Swap areas and the disks under them, each disk once.
fn disks(s: &Snapshot) -> Vec<&super::DeviceIo> {
    let mut seen: Vec<&super::DeviceIo> = Vec::new();
    for io in s.swap.devices.iter().filter_map(|d| d.io.as_ref()) {
        if !seen.iter().any(|d| d.device == io.device) {
            seen.push(io);
        }
    }
    seen
}

/// Every family, in exposition order.
pub static FAMILIES: &[Family] = &[
    // --- memory -------------------------------------------------------------------------------
    Family {
        id: "memory_total_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Usable RAM (meminfo MemTotal).",
        read: |s| bytes(s.memory.total_bytes),
    },
    Family {
        id: "memory_free_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "RAM nothing uses (meminfo MemFree).",
        read: |s| bytes(s.memory.free_bytes),
    },
    Family {
        id: "memory_breakdown_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Where RAM is: ten buckets that sum to MemTotal (an unknown bucket's memory is in unaccounted).",
        read: |s| {
            s.memory
                .breakdown
                .iter()
                .flat_map(|b| b.buckets())
                .filter_map(|(k, v)| Some(labelled(&[("bucket", k)], v? as f64)))
                .collect()
        },
    },
    Family {
        id: "free_hidden_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "What free(1) hides in used: the zswap and zram pools.",
        read: |s| bytes(s.memory.hidden_in_used_bytes),
    },
    // --- zswap --------------------------------------------------------------------------------
    Family {
        id: "zswap_enabled",
        kind: FamilyKind::Gauge,
        unit: None,
        help: "1 when zswap takes new pages, 0 when it is off (parameter enabled).",
        read: |s| one(s.zswap.enabled.map(|e| f64::from(u8::from(e)))),
    },
    Family {
        id: "zswap_parameters",
        kind: FamilyKind::Info,
        unit: None,
        help: "zswap's parameters (/sys/module/zswap/parameters) as labels.",
        read: |s| {
            if !s.zswap.available || s.zswap.parameters.is_empty() {
                return Vec::new();
            }
            let labels = s
                .zswap
                .parameters
                .iter()
                .filter(|(k, _)| label_name_ok(k))
                .map(|(k, v)| (k.clone(), v.trim().to_string()))
                .collect();
            vec![Point { labels, value: 1.0 }]
        },
    },
    Family {
        id: "zswap_pool_limit_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "The pool's limit: max_pool_percent of MemTotal.",
        read: |s| bytes(s.zswap.pool_limit_bytes),
    },
    Family {
        id: "zswap_accept_threshold_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Pool size below which a full pool takes pages again (accept_threshold_percent of the limit).",
        read: |s| bytes(s.zswap.accept_threshold_bytes),
    },
    Family {
        id: "zswap_pool_headroom_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Room left in the pool before its limit.",
        read: |s| bytes(s.zswap.pool_headroom_bytes),
    },
    Family {
        id: "zswap_pool_limit_used_ratio",
        kind: FamilyKind::Gauge,
        unit: Some("ratio"),
        help: "The pool's size as a share of its limit (1 is full).",
        read: |s| one(s.zswap.pool_limit_used_percent.map(|p| p / 100.0)),
    },
    Family {
        id: "zswap_saved_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "RAM zswap saves now: stored minus pool (negative when it costs).",
        read: |s| one(s.zswap.saved_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zswap_incompressible_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Stored bytes kept uncompressed (debugfs stored_incompressible_pages, 6.18+).",
        read: |s| bytes(s.zswap.incompressible_bytes),
    },
    Family {
        id: "zswap_same_filled_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Stored bytes of same-filled pages, kept without pool memory (debugfs, up to 6.11).",
        read: |s| bytes(s.zswap.same_filled_bytes),
    },
    Family {
        id: "zswap_debugfs_unlisted",
        kind: FamilyKind::Gauge,
        unit: None,
        help: "A zswap debugfs file the catalogue does not know (a later kernel's), as read, by file name.",
        read: |s| {
            s.zswap
                .debugfs
                .iter()
                .flat_map(|d| d.iter())
                .filter(|(k, _)| super::metrics::debugfs(k).is_none())
                .map(|(k, &v)| labelled(&[("file", k)], v as f64))
                .collect()
        },
    },
    // --- swap ---------------------------------------------------------------------------------
    Family {
        id: "swap_total_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Swap space (meminfo SwapTotal).",
        read: |s| bytes(s.swap.total_bytes),
    },
    Family {
        id: "swap_used_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Swap in use (SwapTotal - SwapFree).",
        read: |s| bytes(s.swap.used_bytes),
    },
    Family {
        id: "swap_held_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Where swapped pages are: zswap (compressed in RAM), swap_cache (also in RAM), zram, disk (only on the swap device).",
        read: |s| {
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
    Family {
        id: "swap_area_size_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "A swap area's size (/proc/swaps).",
        read: |s| {
            per(
                &s.swap.devices,
                "area",
                |d| d.path.as_str(),
                |d| Some(d.size_bytes as f64),
            )
        },
    },
    Family {
        id: "swap_area_used_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Swap in use on a swap area (/proc/swaps).",
        read: |s| {
            per(
                &s.swap.devices,
                "area",
                |d| d.path.as_str(),
                |d| Some(d.used_bytes as f64),
            )
        },
    },
    Family {
        id: "swap_area_priority",
        kind: FamilyKind::Gauge,
        unit: None,
        help: "A swap area's priority (higher is used first).",
        read: |s| {
            per(
                &s.swap.devices,
                "area",
                |d| d.path.as_str(),
                |d| Some(d.priority as f64),
            )
        },
    },
    Family {
        id: "swap_disk_read_bytes",
        kind: FamilyKind::Counter,
        unit: Some("bytes"),
        help: "Bytes read from a disk under a swap area (/proc/diskstats, all I/O of the disk).",
        read: |s| {
            per(
                &disks(s),
                "device",
                |d| d.device.as_str(),
                |d| Some(d.read_bytes_total as f64),
            )
        },
    },
    Family {
        id: "swap_disk_written_bytes",
        kind: FamilyKind::Counter,
        unit: Some("bytes"),
        help: "Bytes written to a disk under a swap area (/proc/diskstats, all I/O of the disk).",
        read: |s| {
            per(
                &disks(s),
                "device",
                |d| d.device.as_str(),
                |d| Some(d.write_bytes_total as f64),
            )
        },
    },
    // --- zram ---------------------------------------------------------------------------------
    Family {
        id: "zram_device",
        kind: FamilyKind::Info,
        unit: None,
        help: "A zram device: its algorithm, whether it is swap, its backing device.",
        read: |s| {
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
    Family {
        id: "zram_disksize_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "A zram device's size (disksize).",
        read: |s| zram(s, |z| z.disksize_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_orig_data_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Uncompressed data a zram device holds (mm_stat orig_data_size).",
        read: |s| zram(s, |z| z.orig_data_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_compr_data_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "That data compressed (mm_stat compr_data_size).",
        read: |s| zram(s, |z| z.compr_data_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_mem_used_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "RAM a zram device takes, allocator overhead included (mm_stat mem_used_total).",
        read: |s| zram(s, |z| z.mem_used_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_mem_limit_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "A zram device's memory limit (mm_stat mem_limit, 0: none).",
        read: |s| zram(s, |z| z.mem_limit_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_mem_used_max_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "The most RAM a zram device has taken (mm_stat mem_used_max).",
        read: |s| zram(s, |z| z.mem_used_max_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_same_filled_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Same-filled pages a zram device keeps without memory (mm_stat same_pages, in bytes).",
        read: |s| zram_pages(s, |z| z.same_pages),
    },
    Family {
        id: "zram_huge_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Incompressible pages a zram device keeps whole (mm_stat huge_pages, in bytes).",
        read: |s| zram_pages(s, |z| z.huge_pages),
    },
    Family {
        id: "zram_huge_since_bytes",
        kind: FamilyKind::Counter,
        unit: Some("bytes"),
        help: "Incompressible pages a zram device has stored since set up (mm_stat huge_pages_since, in bytes).",
        read: |s| zram_pages(s, |z| z.huge_pages_since),
    },
    Family {
        id: "zram_compacted_bytes",
        kind: FamilyKind::Counter,
        unit: Some("bytes"),
        help: "Memory zsmalloc compaction freed for a zram device (mm_stat pages_compacted, in bytes).",
        read: |s| zram_pages(s, |z| z.pages_compacted),
    },
    Family {
        id: "zram_compression_ratio",
        kind: FamilyKind::Gauge,
        unit: Some("ratio"),
        help: "The compressor's ratio on a zram device: orig_data_size / compr_data_size.",
        read: |s| zram(s, |z| z.compression_ratio),
    },
    Family {
        id: "zram_effective_ratio",
        kind: FamilyKind::Gauge,
        unit: Some("ratio"),
        help: "What a zram device saves: orig_data_size / mem_used_total.",
        read: |s| zram(s, |z| z.effective_ratio),
    },
    Family {
        id: "zram_allocator_overhead_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "zsmalloc overhead of a zram device: mem_used_total - compr_data_size.",
        read: |s| zram(s, |z| z.allocator_overhead_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_saved_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "RAM a zram device saves now: orig_data_size - mem_used_total.",
        read: |s| zram(s, |z| z.saved_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_failed_reads",
        kind: FamilyKind::Counter,
        unit: None,
        help: "Failed reads of a zram device (io_stat).",
        read: |s| zram(s, |z| z.failed_reads.map(|v| v as f64)),
    },
    Family {
        id: "zram_failed_writes",
        kind: FamilyKind::Counter,
        unit: None,
        help: "Failed writes of a zram device (io_stat).",
        read: |s| zram(s, |z| z.failed_writes.map(|v| v as f64)),
    },
    Family {
        id: "zram_backing_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Data a zram device has written back to its backing device and keeps there (bd_stat).",
        read: |s| zram(s, |z| z.bd_count_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_backing_read_bytes",
        kind: FamilyKind::Counter,
        unit: Some("bytes"),
        help: "Bytes a zram device read back from its backing device (bd_stat).",
        read: |s| zram(s, |z| z.bd_reads_bytes.map(|v| v as f64)),
    },
    Family {
        id: "zram_backing_written_bytes",
        kind: FamilyKind::Counter,
        unit: Some("bytes"),
        help: "Bytes a zram device wrote to its backing device (bd_stat).",
        read: |s| zram(s, |z| z.bd_writes_bytes.map(|v| v as f64)),
    },
    // --- pressure -----------------------------------------------------------------------------
    Family {
        id: "psi_memory_avg_ratio",
        kind: FamilyKind::Gauge,
        unit: Some("ratio"),
        help: "The kernel's running averages of memory stall time (/proc/pressure/memory), by line and window in seconds.",
        read: |s| {
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
    // --- cgroups: the largest zswap pools (v2), the most memory (v1, without zswap) ----------
    Family {
        id: "cgroup_zswap_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "zswap pool memory of the cgroups with the largest pools (memory.stat zswap, top 10).",
        read: |s| cgroup(s, |r| r.zswap_bytes),
    },
    Family {
        id: "cgroup_zswapped_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "Uncompressed size of what zswap holds for those cgroups (memory.stat zswapped).",
        read: |s| cgroup(s, |r| r.zswapped_bytes),
    },
    Family {
        id: "cgroup_memory_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "memory.current of those cgroups (cgroup v1: memory.usage_in_bytes).",
        read: |s| cgroup(s, |r| r.memory_current_bytes),
    },
    Family {
        id: "cgroup_swap_bytes",
        kind: FamilyKind::Gauge,
        unit: Some("bytes"),
        help: "memory.swap.current of those cgroups (cgroup v1: memory.stat total_swap).",
        read: |s| cgroup(s, |r| r.swap_current_bytes),
    },
    // --- what zswaptop concludes, and what it could read --------------------------------------
    Family {
        id: "finding",
        kind: FamilyKind::StateSet,
        unit: None,
        help: "A diagnostic finding that holds now, by id and severity (info, warn, crit).",
        read: |s| {
            s.diagnostics
                .iter()
                .map(|f| {
                    let sev = match f.severity {
                        super::Severity::Info => "info",
                        super::Severity::Warn => "warn",
                        super::Severity::Crit => "crit",
                    };
                    labelled(&[("id", &f.id), ("severity", sev)], 1.0)
                })
                .collect()
        },
    },
    Family {
        id: "source_status",
        kind: FamilyKind::StateSet,
        unit: None,
        help: "Each kernel source zswaptop reads and its status (ok, missing, denied, malformed, unreadable): why a figure is absent.",
        read: |s| {
            s.sources
                .iter()
                .map(|st| labelled(&[("source", &st.source), ("status", st.status())], 1.0))
                .collect()
        },
    },
    Family {
        id: "build",
        kind: FamilyKind::Info,
        unit: None,
        help: "The zswaptop that wrote this, and the kernel it read.",
        read: |s| {
            let mut p = labelled(&[("version", &s.tool.version)], 1.0);
            if let Some(k) = &s.host.kernel {
                p.labels.push(("kernel".into(), k.clone()));
            }
            vec![p]
        },
    },
];

/// A label name Prometheus accepts (`[a-zA-Z_][a-zA-Z0-9_]*`, not the reserved `__` prefix).
pub fn label_name_ok(name: &str) -> bool {
    let mut b = name.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && !name.starts_with("__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_their_units_and_labels_are_valid() {
        let mut seen = std::collections::HashSet::new();
        for f in FAMILIES {
            assert!(seen.insert(f.id), "{} twice", f.id);
            assert!(label_name_ok(f.id), "{}", f.id);
            assert!(!f.id.ends_with("_total"), "{}", f.id);
            match f.unit {
                Some(u) => assert!(f.id.ends_with(&format!("_{u}")), "{} lacks _{u}", f.id),
                None => assert!(
                    !["_bytes", "_seconds", "_ratio"]
                        .iter()
                        .any(|u| f.id.ends_with(u)),
                    "{} has a unit suffix but no unit",
                    f.id
                ),
            }
            assert!(!f.help.is_empty());
        }
    }

    /// cgroup v1: the top cgroups by memory, with memory and swap series and no zswap ones.
    #[test]
    fn cgroup_v1_series_are_memory_and_swap() {
        let root = crate::root::Root::at(format!(
            "{}/tests/fixtures/linux-6.18-cgroup-v1",
            env!("CARGO_MANIFEST_DIR")
        ));
        let extras = crate::sources::Extras {
            cgroups: true,
            ..Default::default()
        };
        let snap = Snapshot::derive(&crate::sources::collect_with(&root, extras), None);
        let family = |id: &str| {
            let f = FAMILIES.iter().find(|f| f.id == id).unwrap();
            (f.read)(&snap)
        };
        let memory = family("cgroup_memory_bytes");
        let paths: Vec<&str> = memory.iter().map(|p| p.labels[0].1.as_str()).collect();
        assert_eq!(
            paths[..2],
            [
                "/process_api",
                "/process_api/0c34a129a0605314addad4c1319e0b59"
            ]
        );
        assert_eq!(memory.len(), 4, "the root left out");
        assert_eq!(memory[0].value, 7_847_694_336.0);
        assert_eq!(family("cgroup_swap_bytes").len(), 4);
        assert!(family("cgroup_zswap_bytes").is_empty());
        assert!(family("cgroup_zswapped_bytes").is_empty());
    }

    #[test]
    fn label_names() {
        assert!(label_name_ok("max_pool_percent"));
        assert!(!label_name_ok("__name__"));
        assert!(!label_name_ok("1a"));
        assert!(!label_name_ok("a-b"));
        assert!(!label_name_ok(""));
    }
}
