//! The model: a pure derivation from raw samples (no I/O, no terminal).
//!
//! `Snapshot::derive(curr, prev)` turns one `Sample` (plus, for rates, the one before it) into every
//! figure zswaptop shows. The serde layout of `Snapshot` *is* the `--once --json` schema
//! (docs/json-schema.md).

pub mod memory;
pub mod owners;
pub mod rates;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::root::{Reading, Unavailable};
use crate::sources::Sample;
use crate::sources::host::PageSize;
use crate::sources::zswap::{NO_ZSWAP, parse_bool};
pub use memory::Breakdown;
use rates::counter_rate;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub schema_version: u32,
    pub tool: Tool,
    pub host: Host,
    pub page_size: PageSize,
    pub memory: Memory,
    pub zswap: Zswap,
    pub swap: Swap,
    pub zram: Vec<Zram>,
    pub capacity: Capacity,
    pub psi: Option<Psi>,
    /// The vmstat counters zswaptop uses (pages since boot; `null` where this kernel lacks one).
    pub vmstat: crate::sources::vmstat::VmstatSample,
    /// Per-second rates over the interval since the previous sample; `null` on the first sample.
    pub rates: Option<Rates>,
    pub tunables: BTreeMap<String, Option<String>>,
    pub diagnostics: Vec<Finding>,
    /// Each tunable with its current value and the one suggested for this swap setup.
    #[serde(default)]
    pub tunables_advice: Vec<TunableAdvice>,
    pub sources: Vec<SourceStatus>,
    /// Top processes by swap (`--top N`, or the processes view); `null` when not asked for.
    pub processes: Option<owners::Processes>,
    /// cgroup v2 memory and zswap per cgroup (`--cgroups`, or the cgroups view); `null` when not asked for.
    pub cgroups: Option<owners::Cgroups>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: Option<String>,
    pub kernel: Option<String>,
    pub uptime_seconds: Option<f64>,
    pub privileged: bool,
    pub root: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    pub available_bytes: Option<u64>,
    pub free_cmd_used_bytes: Option<u64>,
    pub hidden_in_used_bytes: Option<u64>,
    pub breakdown: Option<Breakdown>,
    /// Figures above that could not be had, and why (a line missing from meminfo, a sum too
    /// large to be real).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<Missing>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Zswap {
    pub available: bool,
    pub enabled: Option<bool>,
    pub compressor: Option<String>,
    pub boot_compressor: Option<String>,
    pub max_pool_percent: Option<u64>,
    pub accept_threshold_percent: Option<u64>,
    pub shrinker_enabled: Option<bool>,
    pub pool_bytes: Option<u64>,
    pub pool_source: Option<String>,
    pub stored_bytes: Option<u64>,
    pub stored_pages: Option<u64>,
    pub saved_bytes: Option<i64>,
    pub compression_ratio: Option<f64>,
    pub compressor_ratio: Option<f64>,
    pub incompressible_bytes: Option<u64>,
    pub same_filled_bytes: Option<u64>,
    pub pool_limit_bytes: Option<u64>,
    pub accept_threshold_bytes: Option<u64>,
    pub pool_headroom_bytes: Option<u64>,
    pub pool_limit_used_percent: Option<f64>,
    pub parameters: BTreeMap<String, String>,
    pub boot_parameters: BTreeMap<String, String>,
    pub debugfs: Option<BTreeMap<String, u64>>,
    pub unavailable: Vec<Missing>,
}

/// An item zswaptop could not show, why, and the command that gets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missing {
    pub item: String,
    pub reason: String,
    pub fix: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Swap {
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    pub used_bytes: Option<u64>,
    pub in_zswap_bytes: Option<u64>,
    pub in_swap_cache_bytes: Option<u64>,
    pub in_zram_bytes: Option<u64>,
    pub not_in_ram_bytes: Option<u64>,
    pub devices: Vec<SwapDevice>,
    /// Highest priority first.
    pub priority_groups: Vec<PriorityGroup>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwapDevice {
    pub path: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub size_bytes: u64,
    pub used_bytes: u64,
    pub priority: i64,
    /// A zram device (`/dev/zramN`): its pages are compressed in RAM, not on disk.
    pub is_zram: bool,
    /// The block device holding the area (for a swapfile, its filesystem's device), and the
    /// physical disks under it (after partition → disk and dm/md → slaves).
    pub block_device: Option<String>,
    pub disks: Vec<String>,
    pub rotational: Option<bool>,
    /// Devices at the same priority share pages round-robin: the index of this one's group in
    /// `swap.priority_groups`.
    pub priority_group: usize,
    /// I/O of `block_device` (all traffic, not only swap). Rates need two samples.
    pub io: Option<DeviceIo>,
    /// Why `block_device` is unknown, when it is.
    pub unmapped: Option<String>,
}

/// A block device's I/O. Its counters include every kind of I/O on it, not only swap; the global
/// swap-only figures are vmstat pswpin/pswpout (`rates`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceIo {
    pub device: String,
    pub read_bytes_total: u64,
    pub write_bytes_total: u64,
    pub read_iops: Option<f64>,
    pub write_iops: Option<f64>,
    pub read_bytes_per_sec: Option<f64>,
    pub write_bytes_per_sec: Option<f64>,
    /// Share of the interval with I/O in flight (io_ticks), 0–100.
    pub busy_percent: Option<f64>,
}

/// Swap areas of equal priority: the kernel stripes pages across each group round-robin and
/// fills groups from the highest priority down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityGroup {
    pub priority: i64,
    pub devices: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Zram {
    pub device: String,
    pub initialized: Option<bool>,
    pub is_swap: bool,
    pub algorithm: Option<String>,
    pub algorithms: Vec<String>,
    pub disksize_bytes: Option<u64>,
    pub orig_data_bytes: Option<u64>,
    pub compr_data_bytes: Option<u64>,
    pub mem_used_bytes: Option<u64>,
    pub mem_limit_bytes: Option<u64>,
    pub mem_used_max_bytes: Option<u64>,
    pub same_pages: Option<u64>,
    pub huge_pages: Option<u64>,
    /// orig ÷ compr: the compressor's ratio.
    pub compression_ratio: Option<f64>,
    /// orig ÷ mem_used: what the device really saves, allocator overhead included.
    pub effective_ratio: Option<f64>,
    /// mem_used − compr: zsmalloc fragmentation and metadata.
    pub allocator_overhead_bytes: Option<u64>,
    /// orig − mem_used: RAM saved right now.
    pub saved_bytes: Option<i64>,
    pub huge_pages_since: Option<u64>,
    pub pages_compacted: Option<u64>,
    /// io_stat failures (counts since the device was set up).
    pub failed_reads: Option<u64>,
    pub failed_writes: Option<u64>,
    /// Writeback to a backing device (bd_stat, CONFIG_ZRAM_WRITEBACK): bytes there now, and
    /// cumulative bytes read from / written to it.
    pub backing_dev: Option<String>,
    pub bd_count_bytes: Option<u64>,
    pub bd_reads_bytes: Option<u64>,
    pub bd_writes_bytes: Option<u64>,
    /// Recompression algorithms (CONFIG_ZRAM_MULTI_COMP), raw.
    pub recomp_algorithm: Option<String>,
    pub unavailable: Vec<Missing>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capacity {
    pub effective_now_bytes: Option<u64>,
    pub effective_at_pool_limit_bytes: Option<u64>,
    pub zswap_resident_max_bytes: Option<u64>,
    pub fast_tier_headroom_bytes: Option<u64>,
    /// The ratio used above; `ratio_assumed` when the pool is empty and 2.0 stands in.
    pub ratio: Option<f64>,
    pub ratio_assumed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Psi {
    pub some_avg10: f64,
    pub some_avg60: f64,
    pub some_avg300: f64,
    pub some_total_us: u64,
    pub full_avg10: f64,
    pub full_avg60: f64,
    pub full_avg300: f64,
    pub full_total_us: u64,
}

/// Per-second rates over one interval. Page counters are given in bytes per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    pub interval_seconds: f64,
    pub zswpout_bytes_per_sec: Option<f64>,
    pub zswpin_bytes_per_sec: Option<f64>,
    pub zswpwb_bytes_per_sec: Option<f64>,
    pub pswpout_bytes_per_sec: Option<f64>,
    pub pswpin_bytes_per_sec: Option<f64>,
    pub swpout_zero_bytes_per_sec: Option<f64>,
    pub swpin_zero_bytes_per_sec: Option<f64>,
    /// Pages written to a swap device without passing through zswap: Δpswpout − Δzswpwb.
    pub bypassed_zswap_bytes_per_sec: Option<f64>,
    /// debugfs event counters per second (pool_limit_hit, reject_*, written_back_pages in pages).
    pub debugfs_per_sec: BTreeMap<String, f64>,
    /// Share of wall time with some / all tasks stalled on memory over the interval (0–100).
    pub psi_some_percent: Option<f64>,
    pub psi_full_percent: Option<f64>,
}

/// One diagnostic finding (see the diagnostics rules).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub id: String,
    pub severity: Severity,
    pub summary: String,
    pub evidence: Vec<String>,
    pub fix: String,
    pub why: String,
}

/// A tunable, its current value, and the value suggested for the detected swap setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TunableAdvice {
    /// `vm.swappiness`, `transparent_hugepage.enabled`, … (the keys of `tunables`).
    pub name: String,
    /// As read; `None` when it could not be.
    pub current: Option<String>,
    pub suggested: String,
    /// One line on why.
    pub why: String,
    /// The kernel documentation describes the trade-off but not this exact value.
    pub opinion: bool,
    /// The setup the suggestion is for: "zswap + disk swap", "zram only", "disk swap only", …
    pub setup: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warn,
    Crit,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceStatus {
    pub source: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Used for capacity figures when the pool is empty and no ratio has been measured.
pub const ASSUMED_RATIO: f64 = 2.0;

impl Snapshot {
    /// Derive every figure from `curr`; `prev` (an earlier sample of the same system) adds rates.
    pub fn derive(curr: &Sample, prev: Option<&Sample>) -> Snapshot {
        let ps = curr.host.page_size.bytes;
        let mem = curr.meminfo.as_ref().ok();
        let params = curr.zswap_params.as_ref().ok();
        let debugfs = curr.zswap_debugfs.as_ref().ok();
        let dbg = |k: &str| debugfs.and_then(|d| d.values.get(k).copied());
        let param = |k: &str| params.and_then(|p| p.values.get(k));
        let param_u64 = |k: &str| param(k).and_then(|v| v.trim().parse::<u64>().ok());

        // --- zram devices ---------------------------------------------------------------
        let swap_paths: Vec<&str> = curr
            .swaps
            .as_ref()
            .map(|d| d.iter().map(|s| s.path.as_str()).collect())
            .unwrap_or_default();
        let zram: Vec<Zram> = curr
            .zram
            .iter()
            .map(|z| {
                derive_zram(
                    &curr.root,
                    z,
                    swap_paths.contains(&format!("/dev/{}", z.name).as_str()),
                )
            })
            .collect();
        // Sums past 2^64 bytes are not real memory: unknown (and said so), never wrapped.
        let mut mem_unavailable = Vec::new();
        let zram_pool: Option<u64> = match checked_sum(zram.iter().map(|z| z.mem_used_bytes)) {
            Sum::Overflow => {
                mem_unavailable.push(too_large("zram pool", "the zram devices' mem_used_total"));
                None
            }
            // The pool is in RAM: more than MemTotal is not a real figure.
            Sum::Known(z) if mem.is_some_and(|m| z > m.mem_total) => {
                mem_unavailable.push(Missing {
                    item: "zram pool".into(),
                    reason: format!(
                        "malformed: the zram devices' mem_used_total ({z} bytes) is more than MemTotal"
                    ),
                    fix: None,
                });
                None
            }
            sum => sum.known(),
        };
        let in_zram: Option<u64> = curr.swaps.as_ref().ok().and(Some(&zram)).and_then(|zram| {
            let stored = zram.iter().filter(|z| z.is_swap).map(|z| z.orig_data_bytes);
            match checked_sum(stored) {
                Sum::Overflow => {
                    mem_unavailable.push(too_large("swap in zram", "the zram orig_data_size"));
                    None
                }
                sum => sum.known(),
            }
        });

        // --- zswap pool -----------------------------------------------------------------
        let (pool_bytes, pool_source) = match (mem.and_then(|m| m.zswap), dbg("pool_total_size")) {
            (Some(p), _) => (Some(p), Some("meminfo")),
            (None, Some(p)) => (Some(p), Some("debugfs")),
            (None, None) => (None, None),
        };
        let stored_pages = dbg("stored_pages").or_else(|| mem?.zswapped.map(|z| z / ps));
        let stored_bytes = mem
            .and_then(|m| m.zswapped)
            .or_else(|| stored_pages.map(|p| p.saturating_mul(ps)));
        let compression_ratio = ratio(stored_bytes, pool_bytes);
        let same = dbg("same_filled_pages");
        let incompressible = dbg("stored_incompressible_pages");
        let compressor_ratio =
            compressor_ratio_opt(stored_pages, pool_bytes, same, incompressible, ps);
        let max_pct = param_u64("max_pool_percent");
        let accept_pct = param_u64("accept_threshold_percent");
        let mut zswap_unavailable = Vec::new();
        // Pages × percent / 100, in whole pages; a product past 2^64 is not a real limit.
        let mut pct_of = |bytes: u64, pct: u64, item: &str, param: &str| {
            let v = (bytes / ps)
                .checked_mul(pct)
                .and_then(|p| (p / 100).checked_mul(ps));
            if v.is_none() {
                zswap_unavailable.push(too_large(item, &format!("{param} {pct}%")));
            }
            v
        };
        let pool_limit = match (mem, max_pct) {
            (Some(m), Some(pct)) => pct_of(m.mem_total, pct, "pool limit", "max_pool_percent"),
            _ => None,
        };
        let accept_bytes = match (pool_limit, accept_pct) {
            // zswap_accept_thr_pages(): max pages × percent / 100, in whole pages.
            (Some(l), Some(a)) => pct_of(l, a, "accept threshold", "accept_threshold_percent"),
            _ => None,
        };

        // --- memory -----------------------------------------------------------------------
        let zswap_pool_for_breakdown = pool_bytes.or_else(|| fallback_pool(curr, zram_pool, ps));
        let memory = match mem {
            Some(m) => Memory {
                total_bytes: Some(m.mem_total),
                free_bytes: Some(m.mem_free),
                available_bytes: m.mem_available,
                free_cmd_used_bytes: Some(memory::free_cmd_used(m)),
                hidden_in_used_bytes: match (zswap_pool_for_breakdown, zram_pool) {
                    (Some(a), Some(b)) => a.checked_add(b).or_else(|| {
                        mem_unavailable.push(too_large("hidden in used", "zswap + zram pools"));
                        None
                    }),
                    _ => None,
                },
                breakdown: Some(memory::breakdown(m, zswap_pool_for_breakdown, zram_pool)),
                unavailable: {
                    mem_unavailable.extend(memory::gaps(m));
                    std::mem::take(&mut mem_unavailable)
                },
            },
            None => Memory {
                total_bytes: None,
                free_bytes: None,
                available_bytes: None,
                free_cmd_used_bytes: None,
                hidden_in_used_bytes: None,
                breakdown: None,
                unavailable: std::mem::take(&mut mem_unavailable),
            },
        };

        // --- swap -------------------------------------------------------------------------
        let priority_groups = priority_groups(curr);
        let devices: Vec<SwapDevice> = curr
            .swaps
            .as_ref()
            .map(|d| {
                d.iter()
                    .map(|s| {
                        let backing = curr.swap_devices.iter().find(|b| b.path == s.path);
                        let block = backing
                            .and_then(|b| b.device.as_ref())
                            .map(|b| b.name.clone());
                        SwapDevice {
                            path: s.path.clone(),
                            kind: s.kind.clone(),
                            size_bytes: s.size_bytes,
                            used_bytes: s.used_bytes,
                            priority: s.priority,
                            is_zram: is_zram_path(&s.path),
                            disks: backing
                                .map(|b| b.disks.iter().map(|d| d.name.clone()).collect())
                                .unwrap_or_default(),
                            rotational: backing.and_then(|b| b.rotational()),
                            priority_group: priority_groups
                                .iter()
                                .position(|g| g.priority == s.priority)
                                .unwrap_or(0),
                            io: block
                                .as_deref()
                                .and_then(|name| device_io(name, curr, prev)),
                            unmapped: backing.and_then(|b| b.unmapped.clone()),
                            block_device: block,
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let swap_used = mem.map(|m| m.swap_total.saturating_sub(m.swap_free));
        let in_zswap = in_zswap_bytes(params.is_some(), stored_bytes);
        let swap = Swap {
            total_bytes: mem.map(|m| m.swap_total),
            free_bytes: mem.map(|m| m.swap_free),
            used_bytes: swap_used,
            in_zswap_bytes: in_zswap,
            in_swap_cache_bytes: mem.map(|m| m.swap_cached),
            in_zram_bytes: in_zram,
            not_in_ram_bytes: match (swap_used, in_zswap, mem, in_zram) {
                (Some(u), Some(z), Some(m), Some(zr)) => Some(
                    u.saturating_sub(z)
                        .saturating_sub(m.swap_cached)
                        .saturating_sub(zr),
                ),
                _ => None,
            },
            devices,
            priority_groups,
        };

        // --- capacity (§4.7) ----------------------------------------------------------------
        let capacity = capacity(mem, pool_bytes, compression_ratio, pool_limit, zram_pool);

        // --- zswap section ------------------------------------------------------------------
        let mut unavailable = zswap_unavailable;
        let available = curr.zswap_params.is_ok();
        if let Err(e) = &curr.zswap_params {
            unavailable.push(missing_item(&curr.root, "zswap", e));
        }
        if available {
            if let Err(e) = &curr.zswap_debugfs {
                unavailable.push(Missing {
                    item: "debugfs (writeback, rejects, pool limit hits, incompressible pages)"
                        .into(),
                    reason: e.reason(),
                    fix: fix_for(e),
                });
            }
            if mem.is_some() && mem.is_some_and(|m| m.zswap.is_none()) {
                unavailable.push(Missing {
                    item: "meminfo Zswap/Zswapped".into(),
                    reason: "not in this kernel (the lines appeared in 5.19)".into(),
                    fix: None,
                });
            }
        }
        if let Ok(d) = &curr.zswap_debugfs {
            for e in &d.errors {
                unavailable.push(missing_item(&curr.root, "debugfs file", e));
            }
        }
        if let Ok(p) = &curr.zswap_params {
            for e in &p.errors {
                unavailable.push(missing_item(&curr.root, "parameter", e));
            }
        }
        let boot_parameters = curr.boot_params.clone().unwrap_or_default();
        let zswap = Zswap {
            available,
            enabled: param("enabled").and_then(|v| parse_bool(v)),
            compressor: param("compressor").cloned(),
            boot_compressor: boot_parameters.get("zswap.compressor").cloned(),
            max_pool_percent: max_pct,
            accept_threshold_percent: accept_pct,
            shrinker_enabled: param("shrinker_enabled").and_then(|v| parse_bool(v)),
            pool_bytes,
            pool_source: pool_source.map(str::to_string),
            stored_bytes,
            stored_pages,
            saved_bytes: match (stored_bytes, pool_bytes) {
                (Some(s), Some(p)) => i64::try_from(i128::from(s) - i128::from(p)).ok(),
                _ => None,
            },
            compression_ratio,
            compressor_ratio,
            incompressible_bytes: incompressible.map(|p| p.saturating_mul(ps)),
            same_filled_bytes: same.map(|p| p.saturating_mul(ps)),
            pool_limit_bytes: pool_limit,
            accept_threshold_bytes: accept_bytes,
            pool_headroom_bytes: match (pool_limit, pool_bytes) {
                (Some(l), Some(p)) => Some(l.saturating_sub(p)),
                _ => None,
            },
            pool_limit_used_percent: match (pool_limit, pool_bytes) {
                (Some(l), Some(p)) if l > 0 => Some(p as f64 * 100.0 / l as f64),
                _ => None,
            },
            parameters: params.map(|p| p.values.clone()).unwrap_or_default(),
            boot_parameters,
            debugfs: debugfs.map(|d| d.values.clone()),
            unavailable,
        };

        let vmstat = curr.vmstat.clone().unwrap_or_default();

        let psi = curr.psi.as_ref().ok().map(|p| Psi {
            some_avg10: p.some.avg10,
            some_avg60: p.some.avg60,
            some_avg300: p.some.avg300,
            some_total_us: p.some.total_us,
            full_avg10: p.full.avg10,
            full_avg60: p.full.avg60,
            full_avg300: p.full.avg300,
            full_total_us: p.full.total_us,
        });

        let mut tunables = BTreeMap::new();
        for (name, v) in &curr.tunables.vm {
            tunables.insert(format!("vm.{name}"), v.as_ref().ok().cloned());
        }
        let sel = |r: &Reading<crate::sources::zram::Selector>| {
            r.as_ref().ok().and_then(|s| s.selected.clone())
        };
        tunables.insert(
            "transparent_hugepage.enabled".into(),
            sel(&curr.tunables.thp_enabled),
        );
        tunables.insert(
            "transparent_hugepage.defrag".into(),
            sel(&curr.tunables.thp_defrag),
        );

        let rates = prev.and_then(|p| derive_rates(p, curr));
        let processes = curr
            .processes
            .as_ref()
            .map(|scan| owners::processes(scan, stored_bytes, swap_used));
        let cgroups = curr.cgroups.as_ref().map(|c| match c {
            Ok(list) => {
                let prev_list =
                    prev.and_then(|p| p.cgroups.as_ref()?.as_ref().ok().map(Vec::as_slice));
                // Over the times the two lists were read (a large tree is not read every tick).
                let dt = prev
                    .and_then(|p| curr.cgroups_read_ns()?.checked_sub(p.cgroups_read_ns()?))
                    .map(|ns| ns as f64 / 1e9)
                    .unwrap_or(0.0);
                owners::Cgroups {
                    available: true,
                    reason: None,
                    list: owners::cgroups(list, prev_list, dt, ps),
                }
            }
            Err(e) => owners::Cgroups {
                available: false,
                reason: Some(e.reason()),
                list: Vec::new(),
            },
        });

        let mut snap = Snapshot {
            schema_version: SCHEMA_VERSION,
            tool: Tool {
                name: "zswaptop".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            host: Host {
                hostname: curr.host.hostname.clone(),
                kernel: curr.host.kernel.clone(),
                uptime_seconds: curr.host.uptime_seconds,
                privileged: curr.host.privileged,
                root: curr.root.clone(),
            },
            page_size: curr.host.page_size.clone(),
            memory,
            zswap,
            swap,
            zram,
            capacity,
            psi,
            vmstat,
            rates,
            tunables,
            diagnostics: Vec::new(),
            tunables_advice: Vec::new(),
            sources: source_statuses(curr),
            processes,
            cgroups,
        };
        snap.tunables_advice = crate::diagnostics::tunables_advice(&snap, curr);
        snap.diagnostics = crate::diagnostics::evaluate(&snap, curr);
        // Last, so that text built above from tree strings is covered too.
        crate::sanitize::Sanitize::sanitize(&mut snap);
        snap
    }
}

/// A sum of byte counts: unknown when a term is, `Overflow` past 2^64 (no real memory is).
enum Sum {
    Known(u64),
    Unknown,
    Overflow,
}

impl Sum {
    fn known(self) -> Option<u64> {
        match self {
            Sum::Known(v) => Some(v),
            Sum::Unknown | Sum::Overflow => None,
        }
    }
}

fn checked_sum(terms: impl Iterator<Item = Option<u64>>) -> Sum {
    let mut total = 0u64;
    for t in terms {
        let Some(t) = t else { return Sum::Unknown };
        let Some(s) = total.checked_add(t) else {
            return Sum::Overflow;
        };
        total = s;
    }
    Sum::Known(total)
}

/// `item` is unknown because `what` adds or multiplies up to more than 2^64 bytes.
pub(crate) fn too_large(item: &str, what: &str) -> Missing {
    Missing {
        item: item.into(),
        reason: format!("malformed: {what} gives more than 2^64 bytes"),
        fix: None,
    }
}

fn ratio(num: Option<u64>, den: Option<u64>) -> Option<f64> {
    match (num, den) {
        (Some(n), Some(d)) if d > 0 => Some(n as f64 / d as f64),
        _ => None,
    }
}

/// The compressor's own ratio: same-filled pages (≤ 6.11, no pool bytes) and incompressible
/// pages (6.18+, stored raw at a page each) taken out. `None` when neither count is known.
fn compressor_ratio_opt(
    stored_pages: Option<u64>,
    pool: Option<u64>,
    same: Option<u64>,
    incompressible: Option<u64>,
    ps: u64,
) -> Option<f64> {
    if same.is_none() && incompressible.is_none() {
        return None;
    }
    let inc = incompressible.unwrap_or(0);
    let pages = stored_pages?.checked_sub(same.unwrap_or(0).saturating_add(inc))?;
    let den = pool?.checked_sub(inc.saturating_mul(ps))?;
    ratio(Some(pages.saturating_mul(ps)), Some(den))
}

/// Before 5.19 (no meminfo Zswap) and without debugfs: zsmalloc pages minus zram's, valid only
/// when zswap's allocator is zsmalloc (kernel reference §3).
fn fallback_pool(curr: &Sample, zram_pool: Option<u64>, ps: u64) -> Option<u64> {
    let params = curr.zswap_params.as_ref().ok()?;
    let zpool = params.values.get("zpool").map(String::as_str);
    if !matches!(zpool, Some("zsmalloc")) {
        return None;
    }
    let zspages = curr.vmstat.as_ref().ok()?.nr_zspages?;
    Some(zspages.saturating_mul(ps).saturating_sub(zram_pool?))
}

/// Bytes of swap held in zswap. Without zswap in the kernel at all that is truly 0.
fn in_zswap_bytes(zswap_in_kernel: bool, stored_bytes: Option<u64>) -> Option<u64> {
    match stored_bytes {
        Some(b) => Some(b),
        None if !zswap_in_kernel => Some(0),
        None => None,
    }
}

fn is_zram_path(path: &str) -> bool {
    path.strip_prefix("/dev/zram")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn capacity(
    mem: Option<&crate::sources::meminfo::MeminfoSample>,
    pool: Option<u64>,
    measured_ratio: Option<f64>,
    pool_limit: Option<u64>,
    zram_pool: Option<u64>,
) -> Capacity {
    let (r, assumed) = match measured_ratio {
        Some(r) if r.is_finite() && r > 0.0 => (Some(r), false),
        _ if pool.is_some() => (Some(ASSUMED_RATIO), true),
        _ => (None, false),
    };
    let Some(m) = mem else {
        return Capacity {
            effective_now_bytes: None,
            effective_at_pool_limit_bytes: None,
            zswap_resident_max_bytes: None,
            fast_tier_headroom_bytes: None,
            ratio: r,
            ratio_assumed: assumed,
        };
    };
    let base = m.mem_total.saturating_add(m.swap_total);
    // An unreadable zram device leaves the RAM it costs unknown, and so the effective figures.
    let effective_now = match (pool, zram_pool) {
        (Some(p), Some(z)) => Some(base.saturating_sub(p).saturating_sub(z)),
        _ => None,
    };
    let (resident_max, at_limit, headroom) = match (r, pool_limit, pool) {
        (Some(r), Some(limit), Some(p)) => {
            let resident = (limit as f64 * r).min(m.swap_total as f64);
            let cost = resident / r;
            let at_limit = zram_pool.map(|z| (base as f64 - cost - z as f64).max(0.0) as u64);
            let head = ((limit.saturating_sub(p)) as f64 * r).min(m.swap_free as f64);
            (Some(resident as u64), at_limit, Some(head as u64))
        }
        _ => (None, None, None),
    };
    Capacity {
        effective_now_bytes: effective_now,
        effective_at_pool_limit_bytes: at_limit,
        zswap_resident_max_bytes: resident_max,
        fast_tier_headroom_bytes: headroom,
        ratio: r,
        ratio_assumed: assumed,
    }
}

fn derive_zram(root: &str, z: &crate::sources::zram::ZramSample, is_swap: bool) -> Zram {
    let mm = z.mm_stat.as_ref().ok();
    let mut unavailable = Vec::new();
    for (item, r) in [
        ("mm_stat", z.mm_stat.as_ref().err()),
        ("comp_algorithm", z.comp_algorithm.as_ref().err()),
        ("disksize", z.disksize.as_ref().err()),
    ] {
        if let Some(e) = r {
            unavailable.push(missing_item(root, item, e));
        }
    }
    let alg = z.comp_algorithm.as_ref().ok();
    Zram {
        device: z.name.clone(),
        initialized: z
            .initstate
            .as_ref()
            .ok()
            .map(|&v| v != 0)
            .or_else(|| z.disksize.as_ref().ok().map(|&d| d > 0)),
        is_swap,
        algorithm: alg.and_then(|a| a.selected.clone()),
        algorithms: alg.map(|a| a.options.clone()).unwrap_or_default(),
        disksize_bytes: z.disksize.as_ref().ok().copied(),
        orig_data_bytes: mm.map(|m| m.orig_data_size),
        compr_data_bytes: mm.map(|m| m.compr_data_size),
        mem_used_bytes: mm.map(|m| m.mem_used_total),
        mem_limit_bytes: mm.map(|m| m.mem_limit),
        mem_used_max_bytes: mm.map(|m| m.mem_used_max),
        same_pages: mm.map(|m| m.same_pages),
        huge_pages: mm.and_then(|m| m.huge_pages),
        compression_ratio: mm.and_then(|m| ratio(Some(m.orig_data_size), Some(m.compr_data_size))),
        effective_ratio: mm.and_then(|m| ratio(Some(m.orig_data_size), Some(m.mem_used_total))),
        allocator_overhead_bytes: mm.map(|m| m.mem_used_total.saturating_sub(m.compr_data_size)),
        saved_bytes: mm.and_then(|m| {
            i64::try_from(i128::from(m.orig_data_size) - i128::from(m.mem_used_total)).ok()
        }),
        huge_pages_since: mm.and_then(|m| m.huge_pages_since),
        pages_compacted: mm.map(|m| m.pages_compacted),
        failed_reads: z.io_stat.as_ref().ok().map(|i| i.failed_reads),
        failed_writes: z.io_stat.as_ref().ok().map(|i| i.failed_writes),
        backing_dev: z.backing_dev.as_ref().ok().cloned(),
        bd_count_bytes: z.bd_stat.as_ref().ok().map(|b| b.bd_count_bytes),
        bd_reads_bytes: z.bd_stat.as_ref().ok().map(|b| b.bd_reads_bytes),
        bd_writes_bytes: z.bd_stat.as_ref().ok().map(|b| b.bd_writes_bytes),
        recomp_algorithm: z.recomp_algorithm.as_ref().ok().cloned(),
        unavailable,
    }
}

fn missing_item(root: &str, item: &str, e: &Unavailable) -> Missing {
    Missing {
        item: format!("{item} ({})", kernel_path(root, e.path())),
        reason: e.reason(),
        fix: fix_for(e),
    }
}

/// A path as the kernel names it: the `--root` prefix taken off.
fn kernel_path(root: &str, path: &str) -> String {
    if root == "/" {
        return path.to_string();
    }
    match std::path::Path::new(path).strip_prefix(root) {
        Ok(rel) => format!("/{}", rel.display()),
        Err(_) => path.to_string(),
    }
}

/// The exact command that makes an unavailable source readable, where one exists.
pub fn fix_for(e: &Unavailable) -> Option<String> {
    let reason = e.reason();
    if reason.starts_with("needs root") {
        Some("run as root: sudo zswaptop".into())
    } else if reason == "debugfs is not mounted" {
        Some("sudo mount -t debugfs none /sys/kernel/debug".into())
    } else if reason.starts_with("zswap has not been enabled since boot") {
        Some("echo Y | sudo tee /sys/module/zswap/parameters/enabled".into())
    } else if reason == NO_ZSWAP {
        Some("use a kernel built with CONFIG_ZSWAP=y".into())
    } else if reason.starts_with("PSI is disabled") {
        Some("add psi=1 to the kernel command line and reboot".into())
    } else {
        None
    }
}

fn derive_rates(prev: &Sample, curr: &Sample) -> Option<Rates> {
    let dt = curr.monotonic_ns.checked_sub(prev.monotonic_ns)? as f64 / 1e9;
    if dt.is_nan() || dt <= 0.0 {
        return None;
    }
    let ps = curr.host.page_size.bytes as f64;
    let pv = prev.vmstat.as_ref().ok();
    let cv = curr.vmstat.as_ref().ok();
    let vm_rate = |f: fn(&crate::sources::vmstat::VmstatSample) -> Option<u64>| {
        counter_rate(pv.and_then(f), cv.and_then(f), dt).map(|r| r * ps)
    };
    let bypass = match (pv, cv) {
        (Some(p), Some(c)) => {
            let out = rates::counter_delta(p.pswpout, c.pswpout);
            // Without zswpwb (kernels before 6.8) writeback can't be told apart: unknown.
            let wb = rates::counter_delta(p.zswpwb, c.zswpwb);
            match (out, wb) {
                (Some(o), Some(w)) => Some(o.saturating_sub(w) as f64 * ps / dt),
                _ => None,
            }
        }
        _ => None,
    };
    let mut debugfs_per_sec = BTreeMap::new();
    if let (Ok(p), Ok(c)) = (&prev.zswap_debugfs, &curr.zswap_debugfs) {
        for (k, &v) in &c.values {
            // Gauges are not rates.
            if matches!(
                k.as_str(),
                "pool_total_size"
                    | "stored_pages"
                    | "same_filled_pages"
                    | "stored_incompressible_pages"
                    | "pool_pages"
            ) {
                continue;
            }
            if let Some(r) = counter_rate(p.values.get(k).copied(), Some(v), dt) {
                debugfs_per_sec.insert(k.clone(), r);
            }
        }
    }
    let psi_pct = |f: fn(&crate::sources::psi::PsiSample) -> u64| {
        let (p, c) = (prev.psi.as_ref().ok()?, curr.psi.as_ref().ok()?);
        counter_rate(Some(f(p)), Some(f(c)), dt).map(|us_per_s| (us_per_s / 1e4).min(100.0))
    };
    Some(Rates {
        interval_seconds: dt,
        zswpout_bytes_per_sec: vm_rate(|v| v.zswpout),
        zswpin_bytes_per_sec: vm_rate(|v| v.zswpin),
        zswpwb_bytes_per_sec: vm_rate(|v| v.zswpwb),
        pswpout_bytes_per_sec: vm_rate(|v| v.pswpout),
        pswpin_bytes_per_sec: vm_rate(|v| v.pswpin),
        swpout_zero_bytes_per_sec: vm_rate(|v| v.swpout_zero),
        swpin_zero_bytes_per_sec: vm_rate(|v| v.swpin_zero),
        bypassed_zswap_bytes_per_sec: bypass,
        debugfs_per_sec,
        psi_some_percent: psi_pct(|p| p.some.total_us),
        psi_full_percent: psi_pct(|p| p.full.total_us),
    })
}

/// Every file-level source with its status, for the "sources" list and the status line.
fn source_statuses(s: &Sample) -> Vec<SourceStatus> {
    fn st<T>(out: &mut Vec<SourceStatus>, name: &str, r: &Reading<T>) {
        out.push(match r {
            Ok(_) => SourceStatus {
                source: name.to_string(),
                status: "ok".into(),
                reason: None,
            },
            Err(e) => SourceStatus {
                source: name.to_string(),
                status: e.status().into(),
                reason: Some(e.reason()),
            },
        });
    }
    let mut out = Vec::new();
    st(&mut out, "/proc/meminfo", &s.meminfo);
    st(&mut out, "/proc/vmstat", &s.vmstat);
    st(&mut out, "/proc/swaps", &s.swaps);
    st(&mut out, "/proc/pressure/memory", &s.psi);
    st(&mut out, "/proc/cmdline", &s.boot_params);
    st(&mut out, "/sys/module/zswap/parameters", &s.zswap_params);
    st(&mut out, "/sys/kernel/debug/zswap", &s.zswap_debugfs);
    for z in &s.zram {
        st(
            &mut out,
            &format!("/sys/block/{}/mm_stat", z.name),
            &z.mm_stat,
        );
    }
    st(
        &mut out,
        "/sys/kernel/mm/transparent_hugepage/enabled",
        &s.tunables.thp_enabled,
    );
    out
}

fn priority_groups(curr: &Sample) -> Vec<PriorityGroup> {
    let mut groups: Vec<PriorityGroup> = Vec::new();
    for s in curr.swaps.as_ref().map(Vec::as_slice).unwrap_or(&[]) {
        match groups.iter_mut().find(|g| g.priority == s.priority) {
            Some(g) => g.devices.push(s.path.clone()),
            None => groups.push(PriorityGroup {
                priority: s.priority,
                devices: vec![s.path.clone()],
            }),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.priority));
    groups
}

fn device_io(name: &str, curr: &Sample, prev: Option<&Sample>) -> Option<DeviceIo> {
    use crate::sources::blockstat::{SECTOR, ticks_delta};
    let c = curr.block_stats.get(name)?.as_ref().ok()?;
    let p = prev.and_then(|p| p.block_stats.get(name)?.as_ref().ok());
    let dt = prev
        .and_then(|p| curr.monotonic_ns.checked_sub(p.monotonic_ns))
        .map(|ns| ns as f64 / 1e9)
        .unwrap_or(0.0);
    let rate = |f: fn(&crate::sources::blockstat::BlockStat) -> u64, scale: f64| {
        counter_rate(p.map(f), Some(f(c)), dt).map(|r| r * scale)
    };
    Some(DeviceIo {
        device: name.to_string(),
        read_bytes_total: c.read_sectors.saturating_mul(SECTOR),
        write_bytes_total: c.write_sectors.saturating_mul(SECTOR),
        read_iops: rate(|s| s.read_ios, 1.0),
        write_iops: rate(|s| s.write_ios, 1.0),
        read_bytes_per_sec: rate(|s| s.read_sectors, SECTOR as f64),
        write_bytes_per_sec: rate(|s| s.write_sectors, SECTOR as f64),
        // A device re-created since the last tick has every counter back near 0: no busy figure
        // either, even where io_ticks alone would look like a 32-bit wrap.
        busy_percent: p.filter(|p| dt > 0.0 && !io_reset(p, c)).and_then(|p| {
            ticks_delta(p.io_ticks_ms, c.io_ticks_ms).map(|ms| (ms as f64 / 10.0 / dt).min(100.0))
        }),
    })
}

/// The I/O counters went back: the device was re-created (or its stats reset).
fn io_reset(
    p: &crate::sources::blockstat::BlockStat,
    c: &crate::sources::blockstat::BlockStat,
) -> bool {
    c.read_ios < p.read_ios
        || c.write_ios < p.write_ios
        || c.read_sectors < p.read_sectors
        || c.write_sectors < p.write_sectors
}
