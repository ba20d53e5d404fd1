//! Sources: one module per kernel interface. Each reader takes a [`Root`] and returns raw values
//! (a `*Sample`) or the reason it could not read them. One failing source never aborts a sample.

pub mod blockstat;
pub mod bpf;
pub mod cgroups;
pub mod crypto;
pub mod host;
pub mod meminfo;
pub mod oomd;
pub mod processes;
pub mod psi;
pub mod sampler;
pub mod swapdev;
pub mod swaps;
pub mod tunables;
pub mod vmstat;
pub mod zoneinfo;
pub mod zram;
pub mod zswap;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason};
use crate::root::Root;
use crate::sys;

fn crypto_not_recorded() -> Arc<Reading<Vec<crypto::Compressor>>> {
    Arc::new(crypto::not_recorded())
}

/// Everything read in one tick, as the kernel said it (converted to bytes where the unit is known).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// CLOCK_MONOTONIC at the start of the tick, for rates.
    pub monotonic_ns: u64,
    /// Wall clock, for display and recordings.
    pub unix_ms: u64,
    /// The tree read: "/" live.
    pub root: String,
    pub host: host::HostSample,
    pub meminfo: Reading<meminfo::MeminfoSample>,
    pub vmstat: Reading<vmstat::VmstatSample>,
    pub swaps: Reading<Vec<swaps::SwapEntry>>,
    pub psi: Reading<psi::PsiSample>,
    pub zswap_params: Reading<zswap::ZswapParams>,
    pub zswap_debugfs: Reading<zswap::ZswapDebugfs>,
    /// Read once: shared by the samples after (a tick copies a pointer, not the map).
    pub boot_params: Arc<Reading<BTreeMap<String, String>>>,
    pub zram: Vec<zram::ZramSample>,
    /// Read when shown or by a full sample: shared by the ticks in between.
    pub tunables: Arc<tunables::Tunables>,
    /// Compression algorithms registered with the crypto API (`/proc/crypto`), read by a full
    /// sample and shared by the ticks in between.
    #[serde(default = "crypto_not_recorded")]
    pub crypto: Arc<Reading<Vec<crypto::Compressor>>>,
    /// The per-CPU free page lists (`/proc/zoneinfo`), read when due ([`zoneinfo::due`]).
    #[serde(default = "zoneinfo::not_recorded")]
    pub zoneinfo: Reading<zoneinfo::ZoneinfoSample>,
    /// The block device (and disks) under each active swap area, in `/proc/swaps` order.
    #[serde(default)]
    pub swap_devices: Vec<swapdev::SwapBacking>,
    /// I/O counters of the devices under the swap areas, by kernel name (`vda2`, `vda`).
    #[serde(default)]
    pub block_stats: BTreeMap<String, Reading<blockstat::BlockStat>>,
    /// The requests those devices completed and the time spent on them, from the same reads
    /// (a device whose `stat` could not be read is left out: `block_stats` says why).
    #[serde(default)]
    pub block_times: BTreeMap<String, blockstat::IoTimes>,
    /// Only when a view asks for it (see [`Extras`]).
    #[serde(default)]
    pub processes: Option<processes::ProcScan>,
    /// Read with `processes`, in the same pass: the major faults of the processes that
    /// faulted most since the scan before (when the caller kept that scan's counts: see
    /// [`collect_fast_since`]) and of those in the swap list.
    #[serde(default)]
    pub faults: Option<processes::FaultScan>,
    /// Only when a view asks for it: the cgroup tree (v2, or v1's memory controller), or why
    /// there is none.
    #[serde(default)]
    pub cgroups: Option<Reading<Vec<cgroups::CgroupSample>>>,
    /// How long before this sample that tree was read (0: in this tick). The dashboard reads a
    /// large tree less often than every tick and carries the list between readings; rates are
    /// over the times of the readings.
    #[serde(default)]
    pub cgroups_age_ns: u64,
    /// systemd-oomd: its process, swap limit and the units it kills on swap. Read by a full
    /// sample and shared by the ticks in between.
    #[serde(default)]
    pub oomd: Arc<oomd::OomdSample>,
    /// Swap-in latency by tier: the BPF programs' histograms since they were loaded, or why
    /// there are none ([`bpf`]).
    #[serde(default)]
    pub swapin: bpf::SwapinSample,
}

/// The programs' counters: the live kernel's only (a tree under `--root` has no running kernel).
fn read_swapin(root: &Root) -> bpf::SwapinSample {
    if root.is_live() {
        bpf::read()
    } else {
        bpf::SwapinSample::unavailable("not measured: a --root tree has no running kernel to probe")
    }
}

impl Sample {
    /// CLOCK_MONOTONIC when the cgroup list was read, if there is one.
    pub(crate) fn cgroups_read_ns(&self) -> Option<u64> {
        self.cgroups
            .as_ref()
            .map(|_| self.monotonic_ns.saturating_sub(self.cgroups_age_ns))
    }
}

/// Sources that cost more than one file read, read only while something shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extras {
    /// Scan every process and keep this many top swap users.
    pub top_processes: Option<usize>,
    /// With the process scan, read `/proc/PID/smaps_rollup` of each process kept (shmem swap
    /// and SwapPss): it walks the process's page tables, tens of milliseconds for a large one.
    pub smaps: bool,
    /// Walk the cgroup tree.
    pub cgroups: bool,
    /// Read the vm tunables, THP settings and zswap parameters on this tick too (a view that
    /// shows them asks); otherwise a fast tick takes them from the sample before.
    pub settings: bool,
}

/// Read every source once (the per-process and per-cgroup scans excepted).
pub fn collect(root: &Root) -> Sample {
    collect_with(root, Extras::default())
}

/// Read every source once, plus the `extras` asked for.
pub fn collect_with(root: &Root, extras: Extras) -> Sample {
    collect_with_since(root, extras, None).0
}

/// [`collect_with`], the faults of the process scan (when `extras` ask for one) taken since
/// `since`, the counts an earlier scan of the same root returned; with the counts of this
/// scan, for the next.
pub(crate) fn collect_with_since(
    root: &Root,
    extras: Extras,
    since: Option<&processes::FaultCounts>,
) -> (Sample, Option<processes::FaultCounts>) {
    collect_carrying(root, extras, since, &Carried::default())
}

/// What a full sample may take from one taken shortly before instead of reading it again:
/// the kernel command line (fixed for the boot) and the compressors registered with the crypto
/// API (they change only when a module loads). `/proc/crypto` is the costliest file of a
/// sample to build (the kernel prints every algorithm: 70 us of a 1.34 ms `serve` scrape, by
/// `perf record` of the server).
#[derive(Debug, Clone, Default)]
pub struct Carried {
    pub boot_params: Option<Arc<Reading<BTreeMap<String, String>>>>,
    pub crypto: Option<Arc<Reading<Vec<crypto::Compressor>>>>,
}

impl Carried {
    /// What `s` read, to carry.
    pub(crate) fn of(s: &Sample) -> Carried {
        Carried {
            boot_params: Some(s.boot_params.clone()),
            crypto: Some(s.crypto.clone()),
        }
    }
}

/// [`collect_with_since`], taking what `carried` holds instead of reading it.
pub(crate) fn collect_carrying(
    root: &Root,
    extras: Extras,
    since: Option<&processes::FaultCounts>,
    carried: &Carried,
) -> (Sample, Option<processes::FaultCounts>) {
    let monotonic_ns = sys::monotonic_ns();
    let unix_ms = sys::unix_ms();
    let meminfo = meminfo::read(root);
    let vmstat = vmstat::read(root);
    let swaps = swaps::read(root);
    let swap_devices = swaps
        .as_ref()
        .map(|list| swapdev::read(root, list))
        .unwrap_or_default();
    let zswap_params = zswap::read_params(root);
    let zswap_debugfs = read_debugfs(root, &zswap_params);
    let swap_paths: Vec<String> = swaps
        .as_ref()
        .map(|l| l.iter().map(|s| s.path.clone()).collect())
        .unwrap_or_default();
    let mut host = host::read(root);
    if !root.is_live()
        && host.page_size.source != "tree file pagesize"
        && let Some(ps) = infer_page_size(&meminfo, &zswap_debugfs)
    {
        host.page_size = host::PageSize {
            bytes: ps,
            source: "inferred from Zswapped / debugfs stored_pages".into(),
        };
    }
    let (processes, faults, counts, cgroups) = read_extras(root, extras, monotonic_ns, since);
    let (block_stats, block_times) = block_stats(root, &swap_devices);
    let sample = Sample {
        monotonic_ns,
        unix_ms,
        root: root.base().display().to_string(),
        host,
        meminfo,
        vmstat,
        swaps,
        psi: psi::read(root),
        zswap_params,
        zswap_debugfs,
        boot_params: carried
            .boot_params
            .clone()
            .unwrap_or_else(|| Arc::new(zswap::read_boot_params(root))),
        zram: zram::read_all(root, monotonic_ns),
        tunables: Arc::new(tunables::read(root)),
        crypto: carried
            .crypto
            .clone()
            .unwrap_or_else(|| Arc::new(crypto::read(root))),
        zoneinfo: zoneinfo::read(root),
        block_stats,
        block_times,
        swap_devices,
        processes,
        faults,
        cgroups_age_ns: 0,
        cgroups,
        oomd: Arc::new(oomd::read(root, &swap_paths)),
        swapin: read_swapin(root),
    };
    // What this tick did not read is gone or not shown: its kept descriptors are closed.
    root.sweep();
    (sample, counts)
}

/// One dashboard tick: what moves or is shown is read now, and what hardly ever changes comes
/// from `prev`, an earlier sample of the same root. The one place that decides what a tick
/// reads:
///
/// - read now: meminfo, vmstat, swaps (unless none was active and SwapTotal is still 0), PSI,
///   the zswap debugfs counters (the files the sample before found: the directory is listed
///   again by a full sample, or when that one could not be read; while debugfs is not mounted,
///   only whether it was since), uptime, the I/O counters of the devices under the swap areas (two or three
///   `stat` files), zram (when a device is set up or listed in `/proc/swaps`), `/proc/zoneinfo` when its cost
///   allows ([`zoneinfo::due`]), and the `extras`
///   asked for — with `extras.settings` (the view that shows them), the vm tunables, THP
///   settings and zswap parameters too;
/// - from `prev`: host name, kernel, page size, the boot command line, `/proc/crypto`, the
///   tunables and zswap parameters (unless asked for), which zram devices exist while none is
///   in use, and the block devices under the swap areas (mapped again when `/proc/swaps` lists
///   different areas).
///
/// The files read every tick stay open ([`crate::root::KEPT`]); those a tick did not read are
/// closed at its end ([`Root::sweep`]), full sample and fast tick alike. A caller takes a full
/// [`collect_with`] now and then to refresh what comes from `prev`. On a tree that does not
/// change, `collect_fast(root, &collect_with(root, x), x)` equals the full sample (timestamps
/// aside).
pub fn collect_fast(root: &Root, prev: &Sample, extras: Extras) -> Sample {
    collect_fast_since(root, prev, extras, None).0
}

/// [`collect_fast`], the faults of the process scan taken since `since` (as
/// [`collect_with_since`]).
pub(crate) fn collect_fast_since(
    root: &Root,
    prev: &Sample,
    extras: Extras,
    since: Option<&processes::FaultCounts>,
) -> (Sample, Option<processes::FaultCounts>) {
    let monotonic_ns = sys::monotonic_ns();
    let unix_ms = sys::unix_ms();
    let meminfo = meminfo::read(root);
    // No swap area is active while the kernel counts no swap at all (an area has at least one
    // page): `/proc/swaps`, empty on the tick before, is read again once SwapTotal says one was
    // switched on.
    let swaps = match (&meminfo, &prev.swaps) {
        (Ok(m), Ok(list)) if m.swap_total == 0 && list.is_empty() => Ok(Vec::new()),
        _ => swaps::read(root),
    };
    let same_areas = match &swaps {
        Ok(list) => {
            list.len() == prev.swap_devices.len()
                && list
                    .iter()
                    .zip(&prev.swap_devices)
                    .all(|(s, b)| s.path == b.path)
        }
        Err(_) => prev.swap_devices.is_empty(),
    };
    let swap_devices = if same_areas {
        prev.swap_devices.clone()
    } else {
        swaps
            .as_ref()
            .map(|list| swapdev::read(root, list))
            .unwrap_or_default()
    };
    let zram_listed = swaps
        .as_ref()
        .is_ok_and(|list| list.iter().any(|s| is_zram_path(&s.path)));
    let zram = if zram_listed || prev.zram.iter().any(zram_in_use) {
        zram::read_all_carrying(root, &prev.zram, monotonic_ns)
    } else {
        prev.zram.clone()
    };
    let zswap_params = if extras.settings {
        zswap::read_params(root)
    } else {
        prev.zswap_params.clone()
    };
    let zswap_debugfs = match &prev.zswap_debugfs {
        Ok(known) if zswap_params == prev.zswap_params => {
            zswap::reread_debugfs(root, known).unwrap_or_else(|| read_debugfs(root, &zswap_params))
        }
        // Still not mounted: nothing was mounted since, or one `statfs` says so, where a fresh
        // read lists the directory first.
        Err(e)
            if matches!(e.reason, Reason::DebugfsNotMounted)
                && zswap_params == prev.zswap_params
                && root.is_live()
                && (root.mounts_unchanged()
                    || sys::is_debugfs(&root.sys("kernel/debug")) == Some(false)) =>
        {
            Err(e.clone())
        }
        _ => read_debugfs(root, &zswap_params),
    };
    let host = host::HostSample {
        uptime_seconds: host::uptime(root),
        privileged: sys::euid() == 0,
        ..prev.host.clone()
    };
    let (processes, faults, counts, cgroups) = read_extras(root, extras, monotonic_ns, since);
    let (block_stats, block_times) = block_stats(root, &swap_devices);
    let sample = Sample {
        monotonic_ns,
        unix_ms,
        root: prev.root.clone(),
        host,
        meminfo,
        vmstat: vmstat::read(root),
        swaps,
        psi: psi::read(root),
        zswap_params,
        zswap_debugfs,
        boot_params: prev.boot_params.clone(),
        zram,
        tunables: if extras.settings {
            Arc::new(tunables::read(root))
        } else {
            prev.tunables.clone()
        },
        crypto: prev.crypto.clone(),
        zoneinfo: if zoneinfo::due(&prev.zoneinfo, monotonic_ns) {
            zoneinfo::read(root)
        } else {
            prev.zoneinfo.clone()
        },
        block_stats,
        block_times,
        swap_devices,
        processes,
        faults,
        cgroups_age_ns: 0,
        cgroups,
        oomd: prev.oomd.clone(),
        swapin: read_swapin(root),
    };
    // What this tick did not read is gone or not shown: its kept descriptors are closed.
    root.sweep();
    (sample, counts)
}

/// debugfs, read as the zswap parameters allow (its reasons depend on them).
fn read_debugfs(root: &Root, params: &Reading<zswap::ZswapParams>) -> Reading<zswap::ZswapDebugfs> {
    let (present, enabled) = match params {
        Ok(p) => (
            true,
            p.values
                .get("enabled")
                .and_then(|v| zswap::parse_bool(v))
                .unwrap_or(false),
        ),
        Err(_) => (false, false),
    };
    zswap::read_debugfs(root, present, enabled)
}

/// The scans only a view (or `--top`, `--cgroups`) asks for; the process list's faults are
/// taken since `since`.
type ExtraScans = (
    Option<processes::ProcScan>,
    Option<processes::FaultScan>,
    Option<processes::FaultCounts>,
    Option<Reading<Vec<cgroups::CgroupSample>>>,
);

fn read_extras(
    root: &Root,
    extras: Extras,
    now_ns: u64,
    since: Option<&processes::FaultCounts>,
) -> ExtraScans {
    let (procs, faults, counts) = match extras.top_processes {
        Some(n) => {
            let (p, f, c) = processes::scan_with_faults(root, n, now_ns, since, extras.smaps);
            (Some(p), Some(f), Some(c))
        }
        None => (None, None, None),
    };
    (
        procs,
        faults,
        counts,
        extras
            .cgroups
            .then(|| cgroups::find(root).map(|tree| cgroups::read_tree(root, &tree))),
    )
}

/// `/dev/zramN`.
fn is_zram_path(path: &str) -> bool {
    path.strip_prefix("/dev/zram")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a zram device is set up (or might be: unknown counts as yes).
fn zram_in_use(z: &zram::ZramSample) -> bool {
    match (&z.initstate, &z.disksize) {
        (Ok(init), _) => *init != 0,
        (Err(_), Ok(size)) => *size > 0,
        _ => true,
    }
}

/// Read `stat` of each device and disk under the swap areas, once each: the I/O counters and
/// the request times.
type BlockReadings = (
    BTreeMap<String, Reading<blockstat::BlockStat>>,
    BTreeMap<String, blockstat::IoTimes>,
);

fn block_stats(root: &Root, devices: &[swapdev::SwapBacking]) -> BlockReadings {
    let mut out = BTreeMap::new();
    let mut times = BTreeMap::new();
    for d in devices {
        let own = d.device.iter().map(|b| (&b.name, b.stat_path()));
        let disks = d.disks.iter().map(|k| (&k.name, k.stat_path()));
        for (name, path) in own.chain(disks) {
            if !out.contains_key(name) {
                let (stat, t) = blockstat::read_with_times(root, &path);
                out.insert(name.clone(), stat);
                if let Some(t) = t {
                    times.insert(name.clone(), t);
                }
            }
        }
    }
    (out, times)
}

/// A captured tree without a `pagesize` file: Zswapped (bytes) ÷ stored_pages is the page size
/// when both are known and non-zero, and the quotient is a power of two.
fn infer_page_size(
    meminfo: &Reading<meminfo::MeminfoSample>,
    debugfs: &Reading<zswap::ZswapDebugfs>,
) -> Option<u64> {
    let zswapped = meminfo.as_ref().ok()?.zswapped?;
    let stored = *debugfs.as_ref().ok()?.values.get("stored_pages")?;
    if stored == 0 || zswapped == 0 || zswapped % stored != 0 {
        return None;
    }
    let ps = zswapped / stored;
    (ps.is_power_of_two() && (4096..=262_144).contains(&ps)).then_some(ps)
}

/// The depth-cgroup-v2 fixture read with its 20 processes and its cgroup tree (and the settings
/// when asked): the largest sample of the fixtures, for the unit tests of what follows a
/// sample's parts.
#[cfg(test)]
pub(crate) fn largest_fixture_sample(settings: bool) -> Sample {
    let root = Root::at(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/depth-cgroup-v2"
    ));
    let extras = Extras {
        smaps: false,
        top_processes: Some(20),
        cgroups: true,
        settings,
    };
    collect_with(&root, extras)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_time(mut s: Sample, like: &Sample) -> Sample {
        s.monotonic_ns = like.monotonic_ns;
        s.unix_ms = like.unix_ms;
        if let (Ok(z), Ok(l)) = (&mut s.zoneinfo, &like.zoneinfo) {
            (z.read_ns, z.cost_ns) = (l.read_ns, l.cost_ns);
        }
        s
    }

    /// On a tree that does not change, a fast tick reads what a full sample reads.
    #[test]
    fn the_fast_path_equals_a_full_collect_on_every_fixture() {
        let all = Extras {
            smaps: false,
            top_processes: Some(200),
            cgroups: true,
            settings: true,
        };
        let roots = crate::root::fixture_trees();
        assert!(roots.len() >= 5);
        for extras in [Extras::default(), all] {
            for path in &roots {
                let root = Root::at(path);
                let full = collect_with(&root, extras);
                let fast = same_time(collect_fast(&root, &full, extras), &full);
                assert_eq!(fast, full, "{} {extras:?}", path.display());
            }
        }
    }

    /// On this machine, while debugfs is not mounted: the fast tick's shortcut (one `statfs`)
    /// gives what listing the directory and asking why gives.
    #[test]
    fn the_fast_path_says_debugfs_is_not_mounted_as_a_full_read_does() {
        let root = Root::live();
        let full = collect_with(&root, Extras::default());
        let Err(e) = &full.zswap_debugfs else {
            crate::console::plain("skipped: debugfs is readable here");
            return;
        };
        if !matches!(e.reason, Reason::DebugfsNotMounted) {
            crate::console::plain(format_args!(
                "skipped: debugfs is not read here because {}",
                e.reason
            ));
            return;
        }
        let fast = collect_fast(&root, &full, Extras::default());
        assert_eq!(fast.zswap_debugfs, full.zswap_debugfs);
        assert_eq!(
            collect_fast(&root, &fast, Extras::default()).zswap_debugfs,
            read_debugfs(&root, &full.zswap_params)
        );
    }

    /// The swap areas changed between ticks: the fast path maps the new ones and reads zram
    /// because a zram device is now listed, as a full sample would.
    #[test]
    fn the_fast_path_follows_new_swap_areas() {
        let fx = |n: &str| Root::at(format!("{}/tests/fixtures/{n}", env!("CARGO_MANIFEST_DIR")));
        let before = collect(&fx("linux-6.18-loaded"));
        let root = fx("e2e-phase3-zram");
        let full = collect(&root);
        let fast = collect_fast(&root, &before, Extras::default());
        assert_ne!(before.swap_devices, full.swap_devices);
        assert_eq!(fast.swap_devices, full.swap_devices);
        assert_eq!(fast.block_stats, full.block_stats);
        assert_eq!(fast.block_times, full.block_times);
        assert_eq!(fast.zram, full.zram);
        // What hardly changes still comes from the earlier sample.
        assert_eq!(fast.host.hostname, before.host.hostname);
    }

    /// zoneinfo read at the rate its cost allows: a dear read is kept by the next ticks and
    /// read again once its time has come.
    #[test]
    fn a_dear_zoneinfo_is_kept_until_due() {
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-pcp",
            env!("CARGO_MANIFEST_DIR")
        ));
        let mut first = collect(&root);
        if let Ok(z) = &mut first.zoneinfo {
            z.cost_ns = 10_000_000; // 10 ms: the next read waits 10 s
        }
        let fast = collect_fast(&root, &first, Extras::default());
        assert_eq!(fast.zoneinfo, first.zoneinfo);
        let read_ns = first.zoneinfo.as_ref().unwrap().read_ns;
        // Ten seconds after the read before, it is read again.
        let mut old = first.clone();
        if let Ok(z) = &mut old.zoneinfo {
            z.read_ns = z.read_ns.saturating_sub(10_000_000_000);
        }
        let later = collect_fast(&root, &old, Extras::default());
        assert!(later.zoneinfo.as_ref().unwrap().read_ns > read_ns);
    }

    /// A fast tick takes the tunables and zswap parameters from the sample before, unless a
    /// view that shows them asks; the debugfs counters are read again from the files found
    /// before, and a file gone sends the read back to listing the directory.
    #[test]
    fn a_fast_tick_reads_settings_only_when_asked() {
        let t = tempfile::tempdir().unwrap();
        let src = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-loaded"
        );
        let copied = std::process::Command::new("cp")
            .arg("-r")
            .arg(format!("{src}/."))
            .arg(t.path())
            .status()
            .unwrap();
        assert!(copied.success());
        let vm = t.path().join("proc/sys/vm");
        std::fs::create_dir_all(&vm).unwrap();
        std::fs::write(vm.join("swappiness"), "60\n").unwrap();
        let root = Root::at(t.path());
        let full = collect(&root);
        std::fs::write(vm.join("swappiness"), "7\n").unwrap();
        std::fs::write(t.path().join("sys/module/zswap/parameters/enabled"), "N\n").unwrap();
        let swappiness = |s: &Sample| {
            s.tunables
                .vm
                .iter()
                .find(|(k, _)| k == "swappiness")
                .and_then(|(_, v)| v.clone().ok())
        };
        let fast = collect_fast(&root, &full, Extras::default());
        assert_eq!(swappiness(&fast).as_deref(), Some("60"));
        assert_eq!(fast.zswap_params, full.zswap_params);
        let asked = Extras {
            settings: true,
            ..Extras::default()
        };
        let shown = collect_fast(&root, &full, asked);
        assert_eq!(swappiness(&shown).as_deref(), Some("7"));
        assert_ne!(shown.zswap_params, full.zswap_params);
        // debugfs: one counter changed, one file gone.
        let dbg = t.path().join("sys/kernel/debug/zswap");
        std::fs::write(dbg.join("stored_pages"), "5\n").unwrap();
        std::fs::remove_file(dbg.join("written_back_pages")).unwrap();
        let next = collect_fast(&root, &fast, Extras::default());
        let values = &next.zswap_debugfs.as_ref().unwrap().values;
        assert_eq!(values.get("stored_pages"), Some(&5));
        assert!(!values.contains_key("written_back_pages"));
        assert_eq!(next.zswap_debugfs, collect(&root).zswap_debugfs);
    }

    #[test]
    fn extras_are_read_only_when_asked() {
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-loaded",
            env!("CARGO_MANIFEST_DIR")
        ));
        let s = collect(&root);
        assert!(s.processes.is_none() && s.cgroups.is_none());
        let fast = collect_fast(&root, &s, Extras::default());
        assert!(fast.processes.is_none() && fast.cgroups.is_none());
        let fast = collect_fast(
            &root,
            &s,
            Extras {
                smaps: false,
                top_processes: Some(5),
                cgroups: true,
                settings: true,
            },
        );
        assert!(fast.processes.is_some() && fast.cgroups.is_some());
    }
}
