//! Whose memory is swapped: processes by VmSwap and cgroups by zswap (issue "depth").

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cgroup_events::{
    self, CgroupEventRates, CgroupEvents, CgroupLimits, CgroupPressure, Limit,
};
use super::faults;
use super::rates::counter_rate;
use crate::error::Reason;
use crate::sanitize::Sanitize;
use crate::sources::cgroups::{CgroupSample, unit_name};
use crate::sources::processes::{FaultScan, ProcSample, ProcScan};

/// Serialised through [`ProcessesJson`]: with `/proc` unreadable the counts are unknown, so
/// JSON says null rather than 0.
#[derive(Debug, Clone, PartialEq, Sanitize, JsonSchema)]
#[schemars(with = "ProcessesJson<'static>")]
#[schemars(
    description = "The processes with the most swap. With `/proc` unreadable (`unreadable` says why) the counts are unknown: null, never 0."
)]
pub struct Processes {
    /// How many /proc/PID entries were looked at.
    pub scanned: usize,
    /// Processes with any swap.
    pub with_swap: usize,
    /// Σ VmSwap (shared pages count in every process that maps them).
    pub total_swap_bytes: u64,
    /// The top processes: by major faults per second, most first, while any process faults
    /// (`sorted_by` says which); else by swap, largest first.
    pub top: Vec<ProcessRow>,
    /// What `top` is ranked by.
    pub sorted_by: ProcessRank,
    /// How many processes took a major fault over the interval (`top` may hold fewer); `None`
    /// without an interval.
    pub faulting: Option<usize>,
    /// The seconds the major-fault rates cover (the scan's interval); `None` without one.
    pub faults_interval_seconds: Option<f64>,
    /// Why no process could be looked at (`/proc` unreadable): the counts above are unknown.
    pub unreadable: Option<Reason>,
}

/// The JSON form of [`Processes`].
#[derive(Serialize, JsonSchema)]
struct ProcessesJson<'a> {
    scanned: Option<usize>,
    with_swap: Option<usize>,
    total_swap_bytes: Option<u64>,
    top: &'a [ProcessRow],
    sorted_by: ProcessRank,
    faulting: Option<usize>,
    #[schemars(range(min = 0))]
    faults_interval_seconds: Option<f64>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::error::reason_text"
    )]
    #[schemars(with = "String")]
    unreadable: Option<Reason>,
}

impl Serialize for Processes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let known = self.unreadable.is_none();
        ProcessesJson {
            scanned: known.then_some(self.scanned),
            with_swap: known.then_some(self.with_swap),
            total_swap_bytes: known.then_some(self.total_swap_bytes),
            top: &self.top,
            sorted_by: self.sorted_by,
            faulting: self.faulting.filter(|_| known),
            faults_interval_seconds: self.faults_interval_seconds,
            unreadable: self.unreadable.clone(),
        }
        .serialize(s)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct ProcessRow {
    pub pid: u32,
    pub name: String,
    pub user: Option<String>,
    pub rss_bytes: Option<u64>,
    pub swap_bytes: u64,
    /// An estimate: the process's swap × (its cgroup's zswapped ÷ swap) on cgroup v2, or × the
    /// global Zswapped ÷ swap used. No kernel interface gives the per-process figure.
    pub zswap_estimate_bytes: Option<u64>,
    /// "cgroup" or "global ratio".
    pub estimate_from: Option<String>,
    /// The process's whole size: resident (VmRSS) plus swapped (VmSwap), what it would take
    /// were all of it in RAM. Shmem swap is not in it (see `shmem_swap_bytes`); resident shmem
    /// is, as in VmRSS. `null` without VmRSS.
    #[serde(default)]
    pub footprint_bytes: Option<u64>,
    /// An estimate of the RAM its swapped pages take compressed (in the zswap pool and in zram
    /// swap devices): its VmSwap × (compressed bytes ÷ swap used) of its cgroup (v2 memory.stat
    /// `zswap` ÷ memory.swap.current, where no zram device is swap) or of the whole system ((zswap
    /// pool + the RAM of zram swap devices) ÷ (SwapTotal − SwapFree)). Pages on a disk swap
    /// device cost none; the kernel has no per-process figure.
    #[serde(default)]
    pub compressed_estimate_bytes: Option<u64>,
    /// The basis of `compressed_estimate_bytes`: "cgroup" or "global ratio".
    #[serde(default)]
    pub compressed_estimate_from: Option<String>,
    /// Swapped shared memory (shmem: tmpfs, SysV shm, memfd, shared anonymous) of the mappings
    /// it has: smaps_rollup `Swap` less VmSwap (which leaves shmem out), read a moment apart;
    /// counted whole in every process that maps it. `null` when unread: `smaps_missing` says why.
    #[serde(default)]
    pub shmem_swap_bytes: Option<u64>,
    /// smaps_rollup `SwapPss`: its proportional share of the swap entries in its page tables
    /// (one that n processes share counts 1/n); shmem swap is not in it. `null` when unread.
    #[serde(default)]
    pub swap_pss_bytes: Option<u64>,
    /// Why `shmem_swap_bytes` and `swap_pss_bytes` are null (smaps_rollup not read, or refused).
    #[serde(default)]
    pub smaps_missing: Option<String>,
    /// The command line (argv joined by spaces), `None` when empty or unreadable.
    pub command: Option<String>,
    /// The v2 cgroup, or on cgroup v1 the memory controller's.
    pub cgroup: Option<String>,
    /// Major faults per second over the interval (`/proc/PID/stat` majflt): every fault that
    /// waited for I/O, swap-ins from zswap or a device and file reads alike. `null` without an
    /// interval, or for a process started (or a pid reused) since.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub major_faults_per_sec: Option<f64>,
}

/// What the process list is ranked by.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Sanitize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ProcessRank {
    /// VmSwap, largest first.
    #[default]
    SwapBytes,
    /// Major faults per second, most first (while any process faults).
    MajorFaultsPerSec,
}

/// The line the views and `--once` say where a process's zswap estimate rests on the global
/// ratio (no per-cgroup zswap figure: cgroup v1, or no cgroup swap).
pub const GLOBAL_ESTIMATE_NOTE: &str = "zswap per process estimated from the global ratio \
    (Zswapped ÷ swap used) applied to its swap: no per-cgroup zswap figure; after writeback it \
    overstates processes whose pages went to disk";

#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct Cgroups {
    /// False with no memory controller on either cgroup version: `reason` says why.
    pub available: bool,
    #[serde(serialize_with = "crate::error::reason_text")]
    #[schemars(with = "Option<String>")]
    pub reason: Option<Reason>,
    /// The hierarchy read: 1 (the v1 memory controller) or 2; `None` when none was, or no
    /// cgroup in it could be read.
    #[schemars(extend("enum" = [1, 2, null]))]
    pub version: Option<u8>,
    /// Why every row's zswap figures are null (cgroup v1), `None` when they are read.
    #[serde(serialize_with = "crate::error::reason_text")]
    #[schemars(with = "Option<String>")]
    pub zswap_missing: Option<Reason>,
    /// Why every row's swap is null (cgroup v1 without swap accounting), `None` otherwise.
    #[serde(serialize_with = "crate::error::reason_text")]
    #[schemars(with = "Option<String>")]
    pub swap_missing: Option<Reason>,
    /// The seconds between the previous read of the tree and this one: the window of each
    /// row's `events_new`, `events_per_sec` and pressure deltas; `null` without a previous read.
    #[schemars(range(min = 0))]
    pub interval_seconds: Option<f64>,
    /// Why the rows' `events` are partly or wholly null (cgroup v1), `None` on v2.
    #[serde(serialize_with = "crate::error::reason_text")]
    #[schemars(with = "Option<String>")]
    pub events_missing: Option<Reason>,
    /// Why every row's `pressure` is null (cgroup v1, or a kernel without PSI).
    #[serde(serialize_with = "crate::error::reason_text")]
    #[schemars(with = "Option<String>")]
    pub pressure_missing: Option<Reason>,
    /// Why the rows' limits are null but for memory.max (cgroup v1), `None` on v2.
    #[serde(serialize_with = "crate::error::reason_text")]
    #[schemars(with = "Option<String>")]
    pub limits_missing: Option<Reason>,
    pub list: Vec<CgroupRow>,
}

/// Why a v1 cgroup has no memory.events counts but its OOM kills.
pub const EVENTS_V1: &str = "cgroup v1 has no memory.events: only OOM kills are counted     (memory.oom_control oom_kill, Linux 4.13+); high, max and oom events are v2's";

/// Why a v1 cgroup has no pressure.
pub const PRESSURE_V1: &str = "cgroup v1 has no memory.pressure (per-cgroup PSI is v2's)";

/// Why a v1 cgroup has no limits but memory.max.
pub const LIMITS_V1: &str = "cgroup v1 has no memory.high, memory.swap.max nor     memory.zswap.max (memory.max is read from memory.limit_in_bytes)";

/// The line the views show above a v1 tree.
pub const V1_NOTE: &str = "cgroup v1 (memory controller): zswap is not reported per cgroup";

/// Why a v1 cgroup has no zswap figures.
pub const ZSWAP_V1: &str = "cgroup v1: the kernel does not report zswap per cgroup";

/// Why a v1 cgroup has no swap figure when the kernel does not account swap per cgroup. From
/// 6.1 (b25806dcd3d5) v1 always accounts swap and `swapaccount=0` is ignored; before, it was off
/// with `swapaccount=0`, and before 5.8 off unless booted with `swapaccount=1`.
pub const SWAP_V1_OFF: &str =
    "cgroup v1 swap accounting is off (no memory.memsw files): boot with swapaccount=1";

impl Cgroups {
    /// The section for a tree that was read, with `list`'s rows (and their version).
    /// `interval`: the seconds since the previous read, if any.
    pub(crate) fn read(
        samples: &[CgroupSample],
        list: Vec<CgroupRow>,
        interval: Option<f64>,
    ) -> Cgroups {
        let version = samples.first().map(|c| if c.version == 1 { 1 } else { 2 });
        let v1 = version == Some(1);
        let no_pressure = !samples.is_empty() && samples.iter().all(|c| c.pressure.is_none());
        Cgroups {
            available: true,
            reason: None,
            version,
            zswap_missing: v1.then(|| Reason::absent(ZSWAP_V1)),
            swap_missing: (v1 && samples.iter().any(|c| c.swap_accounting == Some(false)))
                .then(|| Reason::absent(SWAP_V1_OFF)),
            interval_seconds: interval,
            events_missing: v1.then(|| Reason::absent(EVENTS_V1)),
            pressure_missing: if v1 {
                Some(Reason::absent(PRESSURE_V1))
            } else {
                no_pressure.then_some(Reason::PsiDisabled)
            },
            limits_missing: v1.then(|| Reason::absent(LIMITS_V1)),
            list,
        }
    }

    /// Unavailable: no memory controller, `reason` says why.
    pub(crate) fn unavailable(reason: Reason) -> Cgroups {
        Cgroups {
            available: false,
            reason: Some(reason),
            version: None,
            zswap_missing: None,
            swap_missing: None,
            interval_seconds: None,
            events_missing: None,
            pressure_missing: None,
            limits_missing: None,
            list: Vec::new(),
        }
    }

    /// Read from the cgroup v1 memory controller: no zswap figures.
    pub(crate) fn is_v1(&self) -> bool {
        self.version == Some(1)
    }

    /// The size a row is ranked by, largest first: its zswap pool, or on v1 (no zswap figures)
    /// its memory.
    pub(crate) fn rank_bytes(&self, r: &CgroupRow) -> Option<u64> {
        if self.is_v1() {
            r.memory_current_bytes
        } else {
            r.zswap_bytes
        }
    }

    /// The cgroups `count` gives a count above 0, deepest only, with their counts: memory.events
    /// counts an event in every ancestor too (v2), so a cgroup is named only when no other
    /// counted cgroup lies below it. In tree order.
    pub fn deepest_with(
        &self,
        count: impl Fn(&CgroupRow) -> Option<u64>,
    ) -> Vec<(&CgroupRow, u64)> {
        let hit: Vec<(&CgroupRow, u64)> = self
            .list
            .iter()
            .filter_map(|r| Some((r, count(r).filter(|&n| n > 0)?)))
            .collect();
        hit.iter()
            .copied()
            .filter(|(r, _)| !hit.iter().any(|(o, _)| below(&o.path, &r.path)))
            .collect()
    }

    /// Every limit set above 0 of every cgroup but the root, with its file's name.
    pub fn set_limits(&self) -> impl Iterator<Item = (&CgroupRow, &'static str, &Limit)> {
        self.list
            .iter()
            .filter(|r| r.path != "/")
            .flat_map(|r| {
                r.limits
                    .named()
                    .into_iter()
                    .filter_map(move |(file, l)| Some((r, file, l?)))
            })
            .filter(|(_, _, l)| l.limit_bytes.is_some_and(|b| b > 0))
    }

    /// The cgroup (the root left out) whose set limit has the least headroom for its size,
    /// with that limit's file and figures; `None` where no cgroup has a limit above 0 with a
    /// known usage.
    pub fn nearest_limit(&self) -> Option<(&CgroupRow, &'static str, &Limit)> {
        self.set_limits()
            .filter(|(_, _, l)| l.headroom_share.is_some())
            .min_by(|a, b| {
                let share = |l: &Limit| l.headroom_share.unwrap_or(f64::INFINITY);
                share(a.2)
                    .total_cmp(&share(b.2))
                    .then(b.0.depth.cmp(&a.0.depth))
                    .then(a.0.path.cmp(&b.0.path).reverse())
            })
    }

    /// The cgroup (the root left out: its pressure is the machine's) whose tasks stalled on
    /// memory most over the last 10 s (`some avg10`, then `full avg10`; the deeper of equals).
    pub fn most_pressed(&self) -> Option<(&CgroupRow, &CgroupPressure)> {
        self.list
            .iter()
            .filter(|r| r.path != "/")
            .filter_map(|r| Some((r, r.pressure.as_ref()?)))
            .max_by(|a, b| {
                a.1.some_avg10
                    .total_cmp(&b.1.some_avg10)
                    .then(a.1.full_avg10.total_cmp(&b.1.full_avg10))
                    .then(a.0.depth.cmp(&b.0.depth))
                    .then(b.0.path.cmp(&a.0.path))
            })
    }

    /// What the views say above a v1 tree (what is missing, and why); nothing on v2.
    pub(crate) fn v1_notes(&self) -> Vec<String> {
        if !self.is_v1() {
            return Vec::new();
        }
        let mut notes = vec![V1_NOTE.to_string()];
        notes.extend(self.swap_missing.as_ref().map(Reason::text));
        notes
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct CgroupRow {
    pub path: String,
    pub unit: Option<String>,
    pub depth: usize,
    pub memory_current_bytes: Option<u64>,
    pub swap_current_bytes: Option<u64>,
    pub zswap_bytes: Option<u64>,
    pub zswapped_bytes: Option<u64>,
    /// zswapped ÷ zswap.
    #[schemars(range(min = 0))]
    pub compression_ratio: Option<f64>,
    #[schemars(range(min = 0))]
    pub zswpin_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub zswpout_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub zswpwb_bytes_per_sec: Option<f64>,
    /// Pages read back from a swap device (memory.stat `pswpin`, cgroup v2 where the kernel
    /// lists it), in bytes per second; with `zswpin_bytes_per_sec`, the cgroup's swap-ins.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub pswpin_bytes_per_sec: Option<f64>,
    /// Of the cgroup's swap-ins, the share served from zswap (zswpin ÷ (zswpin + pswpin)), 0–1;
    /// `null` without both counters or without swap-ins.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    pub swapin_hit_ratio: Option<f64>,
    /// Every major fault of the cgroup per second (v2 `pgmajfault`, v1 `total_pgmajfault`:
    /// swap-ins and file reads alike; v1 has no swap-in count of its own).
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub major_faults_per_sec: Option<f64>,
    /// The limit in bytes; `null` when there is none: `zswap_max_is_max` tells "max" from a
    /// kernel without the file.
    pub zswap_max_bytes: Option<u64>,
    /// `true` for "max", `false` for a byte limit, `null` when memory.zswap.max is absent.
    pub zswap_max_is_max: Option<bool>,
    pub zswap_writeback: Option<bool>,
    /// memory.events counts (v2; on v1 only `oom_kill`, `events_missing` says why); `null`
    /// without the file (the root cgroup).
    #[serde(default)]
    pub events: Option<CgroupEvents>,
    /// How many of each event over the window (`interval_seconds`); `null` without one.
    #[serde(default)]
    pub events_new: Option<CgroupEvents>,
    /// The same, per second.
    #[serde(default)]
    pub events_per_sec: Option<CgroupEventRates>,
    /// memory.pressure; `null` without it (`pressure_missing` says why).
    #[serde(default)]
    pub pressure: Option<CgroupPressure>,
    /// memory.high, memory.max, memory.swap.max and memory.zswap.max, each with its headroom.
    #[serde(default)]
    pub limits: CgroupLimits,
}

impl CgroupRow {
    /// memory + swap + zswap of the cgroup, each byte once: memory.current (which holds the
    /// compressed zswap pool charged to the cgroup) plus memory.swap.current less what zswap
    /// holds of it (zswapped: those swap slots' pages are the pool's, already in memory). On v1,
    /// where zswap is not charged per cgroup, memory + swap. `None` without memory.
    pub fn footprint_bytes(&self) -> Option<u64> {
        let swap = self
            .swap_current_bytes
            .map(|s| s.saturating_sub(self.zswapped_bytes.unwrap_or(0)))
            .unwrap_or(0);
        Some(self.memory_current_bytes?.saturating_add(swap))
    }
}

/// Whether the cgroup at `inner` lies below the one at `outer`.
pub fn below(inner: &str, outer: &str) -> bool {
    outer == "/" && inner != "/" || inner.starts_with(&format!("{outer}/"))
}

/// The system's swap figures a process's estimates rest on.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct SwapBasis {
    /// Zswapped: the pages in zswap, uncompressed.
    pub zswapped: Option<u64>,
    /// SwapTotal − SwapFree.
    pub swap_used: Option<u64>,
    /// The RAM swapped pages take compressed: the zswap pool plus the RAM of the zram devices
    /// used as swap ([`compressed_ram`]).
    pub compressed_ram: Option<u64>,
    /// Whether a zram device is swap: its RAM is charged to no cgroup, so a cgroup's memory.stat
    /// cannot give the compressed share.
    pub zram_swap: bool,
}

/// The RAM swapped pages take compressed: the zswap pool (`None` with zswap on and its pool
/// unknown; 0 without zswap) plus `mem_used_total` of each zram device used as swap
/// (`zram_swap_ram`; unknown when one is).
pub(crate) fn compressed_ram(
    zswap_on: bool,
    zswap_pool: Option<u64>,
    zram_swap_ram: impl IntoIterator<Item = Option<u64>>,
) -> Option<u64> {
    let pool = if zswap_on { zswap_pool? } else { 0 };
    zram_swap_ram
        .into_iter()
        .try_fold(pool, |sum, used| sum.checked_add(used?))
}

/// `part ÷ whole` applied to `bytes`, the share capped at 1; `None` when `whole` is 0 or unknown.
fn share_of(bytes: u64, part: Option<u64>, whole: Option<u64>) -> Option<u64> {
    match (part, whole) {
        (Some(p), Some(w)) if w > 0 => {
            Some((bytes as f64 * (p as f64 / w as f64).min(1.0)).round() as u64)
        }
        _ => None,
    }
}

/// The RAM a process's swapped pages are estimated to take compressed, and its basis: its
/// cgroup's zswap ÷ swap (v2, no zram swap), else the system's compressed RAM ÷ swap used.
pub(crate) fn compressed_estimate(p: &ProcSample, b: &SwapBasis) -> Option<(u64, &'static str)> {
    let cgroup = (!b.zram_swap)
        .then(|| share_of(p.swap_bytes, p.cgroup_zswap, p.cgroup_swap))
        .flatten();
    cgroup.map(|v| (v, "cgroup")).or_else(|| {
        share_of(p.swap_bytes, b.compressed_ram, b.swap_used).map(|v| (v, "global ratio"))
    })
}

/// Why a row's smaps_rollup figures are unknown when the scan did not read the file.
pub const SMAPS_NOT_READ: &str = "smaps_rollup not read: it walks the page tables of each \
    process (tens of ms for a large one); `--once --top N` reads it, the processes view while \
    sorted by shm swap; recordings do not keep it";

/// Estimate each top process's zswap share, and give it its major faults per second
/// (`faults`, the same pass's). While any process faults the list is the swap list and the
/// processes faulting most together, ranked by faults per second, as long as the swap list.
pub(crate) fn processes(
    scan: &ProcScan,
    faults: Option<&FaultScan>,
    basis: &SwapBasis,
) -> Processes {
    let global = match (basis.zswapped, basis.swap_used) {
        (Some(z), Some(u)) if u > 0 => Some((z as f64 / u as f64).min(1.0)),
        _ => None,
    };
    let row = |p: &ProcSample, rate: Option<f64>| {
        let cg_share = match (p.cgroup_zswapped, p.cgroup_swap) {
            (Some(z), Some(s)) if s > 0 => Some((z as f64 / s as f64).min(1.0)),
            _ => None,
        };
        let (share, from) = match (cg_share, global) {
            (Some(s), _) => (Some(s), Some("cgroup")),
            (None, Some(g)) => (Some(g), Some("global ratio")),
            _ => (None, None),
        };
        let compressed = compressed_estimate(p, basis);
        let smaps_missing = match (&p.smaps, &p.smaps_missing) {
            (Some(_), _) => None,
            (None, Some(why)) => Some(why.text()),
            (None, None) if scan.smaps_read => {
                Some("smaps_rollup not read for this process".into())
            }
            (None, None) => Some(SMAPS_NOT_READ.to_string()),
        };
        ProcessRow {
            footprint_bytes: p.rss_bytes.map(|r| r.saturating_add(p.swap_bytes)),
            compressed_estimate_bytes: compressed.map(|c| c.0),
            compressed_estimate_from: compressed.map(|c| c.1.to_string()),
            shmem_swap_bytes: p
                .smaps
                .map(|s| s.swap_bytes.saturating_sub(s.vm_swap_bytes)),
            swap_pss_bytes: p.smaps.map(|s| s.swap_pss_bytes),
            smaps_missing,
            pid: p.pid,
            name: p.name.clone(),
            user: p.user.clone(),
            rss_bytes: p.rss_bytes,
            swap_bytes: p.swap_bytes,
            zswap_estimate_bytes: share.map(|s| (p.swap_bytes as f64 * s).round() as u64),
            estimate_from: from.map(str::to_string),
            command: p.command.clone(),
            cgroup: p.cgroup.clone(),
            major_faults_per_sec: rate,
        }
    };
    let rates = faults.map(faults::swap_list_rates).unwrap_or_default();
    let mut top: Vec<ProcessRow> = scan
        .top
        .iter()
        .enumerate()
        .map(|(i, p)| row(p, rates.get(i).copied().flatten()))
        .collect();
    let mut sorted_by = ProcessRank::SwapBytes;
    if let Some(f) = faults.filter(|f| faults::anything_faulting(f)) {
        let keep = scan.top.len().max(f.faulting.len());
        for (p, rate) in f
            .faulting
            .iter()
            .map(|p| (p, faults::row_rate(&p.faults, f)))
        {
            if !top.iter().any(|r| r.pid == p.process.pid) {
                top.push(row(&p.process, rate));
            }
        }
        top.sort_by(|a, b| {
            let r = |x: &ProcessRow| x.major_faults_per_sec.unwrap_or(-1.0);
            r(b).total_cmp(&r(a))
                .then(b.swap_bytes.cmp(&a.swap_bytes))
                .then(a.pid.cmp(&b.pid))
        });
        top.truncate(keep);
        sorted_by = ProcessRank::MajorFaultsPerSec;
    }
    let interval = faults.and_then(|f| f.interval_ns).map(|ns| ns as f64 / 1e9);
    Processes {
        scanned: scan.scanned,
        with_swap: scan.with_swap,
        total_swap_bytes: scan.total_swap_bytes,
        top,
        sorted_by,
        faulting: faults
            .filter(|f| f.interval_ns.is_some())
            .map(|f| f.faulting_count),
        faults_interval_seconds: interval,
        unreadable: scan.unreadable.clone(),
    }
}

/// Cgroup rows with rates against the previous tick. A cgroup whose inode changed was re-created
/// (a restarted unit): its counters restarted, so it has no rate this tick.
pub(crate) fn cgroups(
    curr: &[CgroupSample],
    prev: Option<&[CgroupSample]>,
    dt: f64,
    page_size: u64,
) -> Vec<CgroupRow> {
    let prev_by_path: HashMap<&str, &CgroupSample> = prev
        .unwrap_or(&[])
        .iter()
        .map(|c| (c.path.as_str(), c))
        .collect();
    curr.iter()
        .map(|c| {
            // A new directory (inode) or any event counter gone back: the cgroup was re-created
            // (a restarted unit). All its counters restarted, so none of them has a rate.
            let p = prev_by_path
                .get(c.path.as_str())
                .filter(|p| p.inode == c.inode && !events_went_back(p, c));
            let (events, events_new, events_per_sec, pressure, limits) =
                cgroup_events::derive(c, p.copied(), dt);
            let rate = |f: fn(&CgroupSample) -> Option<u64>| {
                counter_rate(p.and_then(|p| f(p)), f(c), dt).map(|r| r * page_size as f64)
            };
            CgroupRow {
                path: c.path.clone(),
                unit: unit_name(&c.path).map(str::to_string),
                depth: c
                    .path
                    .matches('/')
                    .count()
                    .saturating_sub(usize::from(c.path == "/")),
                memory_current_bytes: c.memory_current,
                swap_current_bytes: c.swap_current,
                zswap_bytes: c.zswap,
                zswapped_bytes: c.zswapped,
                compression_ratio: match (c.zswapped, c.zswap) {
                    (Some(a), Some(b)) if b > 0 => Some(a as f64 / b as f64),
                    _ => None,
                },
                zswpin_bytes_per_sec: rate(|c| c.zswpin),
                zswpout_bytes_per_sec: rate(|c| c.zswpout),
                zswpwb_bytes_per_sec: rate(|c| c.zswpwb),
                pswpin_bytes_per_sec: rate(|c| c.pswpin),
                swapin_hit_ratio: match (rate(|c| c.zswpin), rate(|c| c.pswpin)) {
                    (Some(z), Some(d)) if z + d > 0.0 => Some(z / (z + d)),
                    _ => None,
                },
                major_faults_per_sec: counter_rate(p.and_then(|p| p.pgmajfault), c.pgmajfault, dt),
                zswap_max_bytes: c.zswap_max.flatten(),
                zswap_max_is_max: c.zswap_max.map(|m| m.is_none()),
                zswap_writeback: c.zswap_writeback,
                events,
                events_new,
                events_per_sec,
                pressure,
                limits,
            }
        })
        .collect()
}

fn events_went_back(p: &CgroupSample, c: &CgroupSample) -> bool {
    [
        (p.zswpin, c.zswpin),
        (p.zswpout, c.zswpout),
        (p.zswpwb, c.zswpwb),
        (p.pswpin, c.pswpin),
        (p.pgmajfault, c.pgmajfault),
    ]
    .iter()
    .any(|pair| matches!(pair, (Some(a), Some(b)) if b < a))
        || match (&p.events, &c.events) {
            (Some(a), Some(b)) => CgroupEvents::from(b).went_back(&CgroupEvents::from(a)),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/tests/fixtures/proc-smaps/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// A `/proc/meminfo` line in bytes, read here apart from the sources' parser.
    fn meminfo_kb(text: &str, key: &str) -> u64 {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{key}:")))
            .unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    }

    /// The captured parent (tests/fixtures/proc-smaps/README.md): its footprint, its compressed
    /// estimate and its shmem swap against the numbers of its files and of meminfo, worked out
    /// here; they are what `--once --top 5 --json` gave on the machine at that moment.
    #[test]
    fn footprint_compressed_and_shmem_swap_of_the_capture() {
        let status = capture("parent.status");
        let mut p = crate::sources::processes::parse_status(5562, &status).unwrap();
        let (swap, pss) =
            crate::sources::processes::parse_smaps_rollup(&capture("parent.smaps_rollup")).unwrap();
        p.smaps = Some(crate::sources::processes::SmapsSwap {
            swap_bytes: swap,
            swap_pss_bytes: pss,
            vm_swap_bytes: p.swap_bytes,
        });
        let meminfo = String::from_utf8(capture("meminfo")).unwrap();
        let used = meminfo_kb(&meminfo, "SwapTotal") - meminfo_kb(&meminfo, "SwapFree");
        let basis = SwapBasis {
            zswapped: Some(meminfo_kb(&meminfo, "Zswapped")),
            swap_used: Some(used),
            compressed_ram: Some(meminfo_kb(&meminfo, "Zswap")),
            zram_swap: false,
        };
        let scan = ProcScan {
            scanned: 99,
            with_swap: 2,
            total_swap_bytes: p.swap_bytes,
            top: vec![p],
            unreadable: None,
            commands_not_recorded: false,
            smaps_read: true,
        };
        let r = &processes(&scan, None, &basis).top[0];
        assert_eq!(r.footprint_bytes, Some((13_564 + 65_536) * 1024));
        assert_eq!(r.footprint_bytes, Some(80_998_400), "as --once --json gave");
        // 64 MiB of swap × 53640 kB of pool ÷ 98304 kB of swap used.
        assert_eq!(r.compressed_estimate_bytes, Some(36_618_240));
        assert_eq!(r.compressed_estimate_from.as_deref(), Some("global ratio"));
        assert_eq!(r.shmem_swap_bytes, Some(32 << 20), "the memfd's 32 MiB");
        assert_eq!(r.swap_pss_bytes, Some(32 << 20), "64 MiB shared by two");
        assert_eq!(r.smaps_missing, None);
        // All of the swap is in zswap here: ~in zswap is the whole swap.
        assert_eq!(r.zswap_estimate_bytes, Some(64 << 20));
    }

    /// The compressed estimate's basis: the cgroup's zswap ÷ swap on v2, but the global ratio
    /// when a zram device is swap (its RAM is charged to no cgroup) or the cgroup has no swap.
    #[test]
    fn the_compressed_estimate_says_its_basis() {
        let in_cg = proc(3, 1000, Some("/a")); // cgroup zswap 20 of swap 100
        let global = SwapBasis {
            compressed_ram: Some(300),
            swap_used: Some(1200),
            ..SwapBasis::default()
        };
        assert_eq!(compressed_estimate(&in_cg, &global), Some((200, "cgroup")));
        let zram = SwapBasis {
            zram_swap: true,
            ..global
        };
        assert_eq!(
            compressed_estimate(&in_cg, &zram),
            Some((250, "global ratio"))
        );
        let outside = proc(4, 1000, None);
        assert_eq!(
            compressed_estimate(&outside, &global),
            Some((250, "global ratio"))
        );
        assert_eq!(compressed_estimate(&outside, &SwapBasis::default()), None);
        // The system's compressed RAM: zswap's pool plus zram swap devices', unknown when one is.
        assert_eq!(compressed_ram(true, Some(10), [Some(5), Some(7)]), Some(22));
        assert_eq!(
            compressed_ram(false, None, [Some(5)]),
            Some(5),
            "no zswap: none"
        );
        assert_eq!(
            compressed_ram(true, None, []),
            None,
            "zswap on, pool unknown"
        );
        assert_eq!(compressed_ram(false, None, [Some(1), None]), None);
        assert_eq!(
            compressed_ram(true, Some(u64::MAX), [Some(1)]),
            None,
            "past 2^64"
        );
    }

    proptest::proptest! {
        /// Edges of the estimates: no swap used (or unknown) gives none, never 0; no zswap and no
        /// zram gives 0 (disk swap costs no RAM); an estimate never exceeds the process's swap;
        /// the footprint is RSS + swap, unknown without RSS.
        #[test]
        fn estimates_stay_within_the_swap(
            swap in 0u64..1 << 40,
            rss in proptest::option::of(0u64..1 << 40),
            used in proptest::option::of(0u64..1 << 41),
            compressed in proptest::option::of(0u64..1 << 42),
            cg in proptest::option::of((0u64..1 << 40, 0u64..1 << 40)),
            zram_swap in proptest::bool::ANY,
        ) {
            let mut p = proc(7, swap, cg.map(|_| "/x"));
            p.rss_bytes = rss;
            p.cgroup_zswap = cg.map(|c| c.0);
            p.cgroup_swap = cg.map(|c| c.1);
            let b = SwapBasis { zswapped: compressed, swap_used: used, compressed_ram: compressed, zram_swap };
            let est = compressed_estimate(&p, &b);
            if let Some((v, from)) = est {
                proptest::prop_assert!(v <= swap, "{v} > {swap}");
                let cg_ok = !zram_swap && cg.is_some_and(|c| c.1 > 0);
                proptest::prop_assert_eq!(from == "cgroup", cg_ok);
            } else {
                proptest::prop_assert!(!(used.is_some_and(|u| u > 0) && compressed.is_some()));
            }
            if compressed == Some(0) && used.is_some_and(|u| u > 0) && (zram_swap || cg.is_none()) {
                proptest::prop_assert_eq!(est, Some((0, "global ratio")));
            }
            let scan = ProcScan { top: vec![p], ..ProcScan::default() };
            let row = &processes(&scan, None, &b).top[0];
            proptest::prop_assert_eq!(row.footprint_bytes, rss.map(|r| r + swap));
            proptest::prop_assert_eq!(row.shmem_swap_bytes, None);
            proptest::prop_assert_eq!(row.smaps_missing.as_deref(), Some(SMAPS_NOT_READ));
        }
    }

    fn proc(pid: u32, swap: u64, cgroup: Option<&str>) -> ProcSample {
        ProcSample {
            pid,
            name: format!("p{pid}"),
            uid: Some(0),
            rss_bytes: Some(1),
            swap_bytes: swap,
            user: Some("root".into()),
            command: None,
            cgroup: cgroup.map(str::to_string),
            cgroup_zswapped: cgroup.map(|_| 50),
            cgroup_swap: cgroup.map(|_| 100),
            cgroup_zswap: cgroup.map(|_| 20),
            smaps: None,
            smaps_missing: None,
        }
    }

    /// The basis of the estimates with Zswapped and swap used only (the pool unknown).
    fn basis(zswapped: u64, swap_used: u64) -> SwapBasis {
        SwapBasis {
            zswapped: Some(zswapped),
            swap_used: Some(swap_used),
            ..SwapBasis::default()
        }
    }

    #[test]
    fn estimates() {
        let scan = ProcScan {
            scanned: 3,
            with_swap: 3,
            total_swap_bytes: 700,
            top: vec![proc(2, 400, None), proc(3, 200, Some("/a"))],
            unreadable: None,
            commands_not_recorded: false,
            smaps_read: false,
        };
        let p = processes(&scan, None, &basis(300, 1200));
        assert_eq!(p.top.len(), 2);
        assert_eq!(p.top[0].pid, 2);
        assert_eq!(
            p.top[0].zswap_estimate_bytes,
            Some(100),
            "global 300/1200 of 400"
        );
        assert_eq!(p.top[0].estimate_from.as_deref(), Some("global ratio"));
        assert_eq!(p.top[1].pid, 3);
        assert_eq!(
            p.top[1].zswap_estimate_bytes,
            Some(100),
            "cgroup 50/100 of 200"
        );
        assert_eq!(p.total_swap_bytes, 700);
    }

    fn fault(pid: u32, delta: Option<u64>) -> crate::sources::processes::FaultRow {
        crate::sources::processes::FaultRow {
            pid,
            start_time_ticks: 1,
            major_faults: 100,
            major_faults_delta: delta,
        }
    }

    /// While anything faults: the swap list and the processes faulting most together, ranked
    /// by faults per second (2 s of deltas), as long as the swap list; a process new since the
    /// baseline (no delta) last. Without an interval: the swap list as it is, no rates.
    #[test]
    fn ranked_by_faults_while_anything_faults() {
        use crate::sources::processes::{FaultScan, Faulting};
        let scan = ProcScan {
            scanned: 9,
            with_swap: 3,
            total_swap_bytes: 700,
            top: vec![proc(2, 400, None), proc(3, 200, None), proc(4, 100, None)],
            unreadable: None,
            commands_not_recorded: false,
            smaps_read: false,
        };
        let faults = FaultScan {
            age_ns: 0,
            interval_ns: Some(2_000_000_000),
            faulting: vec![
                Faulting {
                    process: proc(7, 0, None),
                    faults: fault(7, Some(600)),
                },
                Faulting {
                    process: proc(3, 200, None),
                    faults: fault(3, Some(40)),
                },
            ],
            faulting_count: 2,
            swap_list: vec![Some(fault(2, None)), Some(fault(3, Some(40))), None],
            unreadable: None,
        };
        let p = processes(&scan, Some(&faults), &basis(350, 700));
        assert_eq!(p.sorted_by, ProcessRank::MajorFaultsPerSec);
        assert_eq!(
            (p.faulting, p.faults_interval_seconds),
            (Some(2), Some(2.0))
        );
        let order: Vec<(u32, Option<f64>)> = p
            .top
            .iter()
            .map(|r| (r.pid, r.major_faults_per_sec))
            .collect();
        assert_eq!(
            order,
            [(7, Some(300.0)), (3, Some(20.0)), (2, None)],
            "kept as many as the swap list: pid 4 (no stat, least swap) left out"
        );
        // The faulting process outside the swap list is estimated as the others are.
        assert_eq!(p.top[0].estimate_from.as_deref(), Some("global ratio"));
        let quiet = FaultScan {
            interval_ns: None,
            faulting: Vec::new(),
            faulting_count: 0,
            ..faults
        };
        let p = processes(&scan, Some(&quiet), &basis(350, 700));
        assert_eq!(p.sorted_by, ProcessRank::SwapBytes);
        assert_eq!(p.faulting, None);
        assert!(p.top.iter().all(|r| r.major_faults_per_sec.is_none()));
        assert_eq!(p.top.iter().map(|r| r.pid).collect::<Vec<_>>(), [2, 3, 4]);
    }

    fn cg(path: &str, inode: u64, zin: u64, pin: Option<u64>, maj: u64) -> CgroupSample {
        CgroupSample {
            path: path.into(),
            inode,
            zswpin: Some(zin),
            pswpin: pin,
            pgmajfault: Some(maj),
            ..Default::default()
        }
    }

    /// A cgroup's swap-ins over 2 s: from zswap and from a device, its hit ratio and its major
    /// faults; none for a kernel without pswpin, a restarted cgroup or a new one; on v1 only
    /// the major faults.
    #[test]
    fn cgroup_swap_ins_with_restarts_and_v1() {
        let prev = [
            cg("/a", 1, 100, Some(10), 50),
            cg("/b", 2, 0, None, 0),
            cg("/r", 3, 500, Some(0), 0),
        ];
        let curr = [
            // 180 pages from zswap and 20 from disk in 2 s: 90/s and 10/s, 90 %.
            cg("/a", 1, 280, Some(30), 250),
            cg("/b", 2, 40, None, 8),
            // Restarted: a new inode, counters from 0.
            cg("/r", 4, 5, Some(0), 0),
            cg("/new", 5, 1, Some(1), 1),
        ];
        let r = cgroups(&curr, Some(&prev), 2.0, 4096);
        let page = 4096.0;
        assert_eq!(
            (
                r[0].zswpin_bytes_per_sec,
                r[0].pswpin_bytes_per_sec,
                r[0].swapin_hit_ratio,
                r[0].major_faults_per_sec
            ),
            (Some(90.0 * page), Some(10.0 * page), Some(0.9), Some(100.0))
        );
        assert_eq!(
            (
                r[1].zswpin_bytes_per_sec,
                r[1].pswpin_bytes_per_sec,
                r[1].swapin_hit_ratio
            ),
            (Some(20.0 * page), None, None)
        );
        for row in &r[2..] {
            assert_eq!(
                (row.zswpin_bytes_per_sec, row.major_faults_per_sec),
                (None, None),
                "{}",
                row.path
            );
        }
        let v1 = |maj| CgroupSample {
            path: "/x".into(),
            pgmajfault: Some(maj),
            version: 1,
            ..Default::default()
        };
        let r = cgroups(&[v1(30)], Some(&[v1(10)]), 1.0, 4096);
        assert_eq!(
            (
                r[0].zswpin_bytes_per_sec,
                r[0].swapin_hit_ratio,
                r[0].major_faults_per_sec
            ),
            (None, None, Some(20.0))
        );
    }

    #[test]
    fn restarted_cgroup_has_no_rate() {
        let old = CgroupSample {
            path: "/u.service".into(),
            inode: 1,
            zswpout: Some(10),
            ..Default::default()
        };
        let same = CgroupSample {
            zswpout: Some(20),
            ..old.clone()
        };
        let new = CgroupSample {
            inode: 2,
            zswpout: Some(30),
            ..old.clone()
        };
        let r = cgroups(&[same], Some(std::slice::from_ref(&old)), 1.0, 4096);
        assert_eq!(r[0].zswpout_bytes_per_sec, Some(10.0 * 4096.0));
        let r = cgroups(&[new], Some(&[old]), 1.0, 4096);
        assert_eq!(r[0].zswpout_bytes_per_sec, None);
        assert_eq!(r[0].unit.as_deref(), Some("u.service"));
    }
}
