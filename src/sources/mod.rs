//! Sources: one module per kernel interface. Each reader takes a [`Root`] and returns raw values
//! (a `*Sample`) or the reason it could not read them. One failing source never aborts a sample.

pub mod blockstat;
pub mod cgroups;
pub mod crypto;
pub mod host;
pub mod meminfo;
pub mod processes;
pub mod psi;
pub mod swapdev;
pub mod swaps;
pub mod tunables;
pub mod vmstat;
pub mod zram;
pub mod zswap;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::root::{Reading, Root};
use crate::sys;

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
    pub swaps: Reading<Vec<swaps::SwapDevice>>,
    pub psi: Reading<psi::PsiSample>,
    pub zswap_params: Reading<zswap::ZswapParams>,
    pub zswap_debugfs: Reading<zswap::ZswapDebugfs>,
    pub boot_params: Reading<BTreeMap<String, String>>,
    pub zram: Vec<zram::ZramSample>,
    pub tunables: tunables::Tunables,
    /// Compression algorithms registered with the crypto API (`/proc/crypto`).
    #[serde(default = "crypto::not_recorded")]
    pub crypto: Reading<Vec<crypto::Compressor>>,
    /// The block device (and disks) under each active swap area, in `/proc/swaps` order.
    #[serde(default)]
    pub swap_devices: Vec<swapdev::SwapBacking>,
    /// I/O counters of the devices under the swap areas, by kernel name (`vda2`, `vda`).
    #[serde(default)]
    pub block_stats: BTreeMap<String, Reading<blockstat::BlockStat>>,
    /// Only when a view asks for it (see [`Extras`]).
    #[serde(default)]
    pub processes: Option<processes::ProcScan>,
    /// Only when a view asks for it: the v2 cgroup tree, or why there is none.
    #[serde(default)]
    pub cgroups: Option<Reading<Vec<cgroups::CgroupSample>>>,
}

/// Sources that cost more than one file read, read only while something shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extras {
    /// Scan every process and keep this many top swap users.
    pub top_processes: Option<usize>,
    /// Walk the cgroup v2 tree.
    pub cgroups: bool,
}

/// Read every source once (the per-process and per-cgroup scans excepted).
pub fn collect(root: &Root) -> Sample {
    collect_with(root, Extras::default())
}

/// Read every source once, plus the `extras` asked for.
pub fn collect_with(root: &Root, extras: Extras) -> Sample {
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
    let (present, enabled) = match &zswap_params {
        Ok(p) => (
            true,
            p.values
                .get("enabled")
                .and_then(|v| zswap::parse_bool(v))
                .unwrap_or(false),
        ),
        Err(_) => (false, false),
    };
    let zswap_debugfs = zswap::read_debugfs(root, present, enabled);
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
    Sample {
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
        boot_params: zswap::read_boot_params(root),
        zram: zram::read_all(root),
        tunables: tunables::read(root),
        crypto: crypto::read(root),
        block_stats: block_stats(&swap_devices),
        swap_devices,
        processes: extras.top_processes.map(|n| processes::scan(root, n)),
        cgroups: extras
            .cgroups
            .then(|| cgroups::find_v2(root).map(|mount| cgroups::read_tree(&mount))),
    }
}

/// Read `stat` of each device and disk under the swap areas, once each.
fn block_stats(
    devices: &[swapdev::SwapBacking],
) -> BTreeMap<String, Reading<blockstat::BlockStat>> {
    let mut out = BTreeMap::new();
    for d in devices {
        let own = d.device.iter().map(|b| (&b.name, b.stat_path()));
        let disks = d.disks.iter().map(|k| (&k.name, k.stat_path()));
        for (name, path) in own.chain(disks) {
            if !out.contains_key(name) {
                out.insert(name.clone(), blockstat::read(&path));
            }
        }
    }
    out
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
