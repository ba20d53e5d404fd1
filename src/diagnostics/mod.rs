//! Diagnostics: rules that check the live swap setup against what the kernel documents, each
//! finding carrying the live values that triggered it, the exact fix (and how to keep it), and
//! the kernel behaviour behind it. Pure: [`evaluate`] reads a [`Snapshot`] and never changes
//! anything; [`crate::pipeline`] runs it after the model, for every front end.
//! zswaptop prints fixes; it never applies them.
//!
//! Every rule judges by what the kernel exposes (a file, a parameter, a counter), never by the
//! kernel version. A rule that needs a rate looks at `snap.rates`; without rates it fires only on
//! what one sample proves, or stays silent.

mod compressors;
mod fix;
mod rules;
/// Shell-quoting and the kernel command line, for `advise`'s fixes too.
pub(crate) use fix::{cmdline, sh};
pub mod thresholds;
mod tunables;

use crate::model::{Finding, Severity, Snapshot, SwapDevice};

pub use thresholds::Thresholds;
pub(crate) use tunables::advice as tunables_advice;

/// Every rule id, in the order the rules run.
pub const RULE_IDS: &[&str] = &[
    "zswap-no-swap",
    "zswap-zram",
    "zram-lru-inversion",
    "page-cluster",
    "swappiness-low",
    "shrinker-off",
    "writeback-stalled",
    "pool-full",
    "poor-compression",
    "allocator-cap",
    "compressor-fallback",
    "swap-too-small",
    "thp-always",
    "no-debugfs",
    "decompress-fail",
    "thrashing",
    "zswap-off-pool-left",
    "swap-priorities",
    "cgroup-oom",
    "cgroup-near-limit",
    "zram-writeback-idle",
    "zram-recompress-idle",
    "oomd-swap",
    "disk-swapin-wait",
];

type Rule = fn(&Ctx) -> Option<Finding>;

const RULES: &[Rule] = &[
    rules::zswap_no_swap,
    rules::zswap_zram,
    rules::zram_lru_inversion,
    rules::page_cluster,
    rules::swappiness_low,
    rules::shrinker_off,
    rules::writeback_stalled,
    rules::pool_full,
    rules::poor_compression,
    rules::allocator_cap,
    rules::compressor_fallback,
    rules::swap_too_small,
    rules::thp_always,
    rules::no_debugfs,
    rules::decompress_fail,
    rules::thrashing,
    rules::zswap_off_pool_left,
    rules::swap_priorities,
    rules::cgroup_oom,
    rules::cgroup_near_limit,
    rules::zram_writeback_idle,
    rules::zram_recompress_idle,
    rules::oomd_swap,
    rules::disk_swapin_wait,
];

/// The rules' step of the [`pipeline`](crate::pipeline): `snap` with its findings and its
/// tunables' advice filled in.
/// The rules judge by the thresholds `t` the front end was given (the configuration's, or the
/// built-in ones): a value passed along, never a setting of the process.
pub fn judge(mut snap: Snapshot, t: &Thresholds) -> Snapshot {
    snap.tunables_advice = tunables_advice(&snap, t);
    snap.diagnostics = evaluate(&snap, t);
    snap
}

/// Run every rule with the thresholds `t`. Findings come sorted crit → warn → info, then by id.
pub fn evaluate(snap: &Snapshot, t: &Thresholds) -> Vec<Finding> {
    let ctx = Ctx { snap, t };
    let mut out: Vec<Finding> = RULES.iter().filter_map(|rule| rule(&ctx)).collect();
    sort(&mut out);
    out
}

/// crit → warn → info, then id.
pub(crate) fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.id.cmp(&b.id)));
}

/// How many findings of each severity: (crit, warn, info). For a header count.
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    (n(Severity::Crit), n(Severity::Warn), n(Severity::Info))
}

/// The swap setup, as the kernel shows it: which tiers are active.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    /// zswap enabled in front of disk swap only.
    ZswapDisk,
    /// zswap enabled with a zram swap device active (compressed twice).
    ZswapZram,
    /// zram swap only, zswap off.
    ZramOnly,
    /// zram plus disk swap, zswap off.
    ZramDisk,
    /// Disk swap only, zswap off or absent.
    DiskOnly,
    /// No active swap device.
    NoSwap,
    /// `/proc/swaps` could not be read.
    Unknown,
}

impl Setup {
    pub fn label(self) -> &'static str {
        match self {
            Setup::ZswapDisk => "zswap + disk swap",
            Setup::ZswapZram => "zswap + zram",
            Setup::ZramOnly => "zram only",
            Setup::ZramDisk => "zram + disk swap",
            Setup::DiskOnly => "disk swap only",
            Setup::NoSwap => "no swap",
            Setup::Unknown => "unknown",
        }
    }

    /// All swap (or its fast tier) lives in RAM.
    pub(crate) fn compressed(self) -> bool {
        matches!(
            self,
            Setup::ZswapDisk | Setup::ZswapZram | Setup::ZramOnly | Setup::ZramDisk
        )
    }
}

/// The setup detected in a snapshot.
pub fn setup(snap: &Snapshot) -> Setup {
    // The setup is what the kernel shows; no threshold enters it.
    Ctx {
        snap,
        t: &Thresholds::default(),
    }
    .setup()
}

/// What the rules look at, with helpers.
pub(crate) struct Ctx<'a> {
    pub snap: &'a Snapshot,
    /// The thresholds to judge by.
    pub t: &'a thresholds::Thresholds,
}

impl Ctx<'_> {
    pub(crate) fn zswap_on(&self) -> bool {
        self.snap.zswap.enabled == Some(true)
    }

    /// `/proc/swaps` was read: device lists below are facts, not guesses.
    pub(crate) fn swaps_known(&self) -> bool {
        self.snap.swap.areas_known
    }

    pub(crate) fn devices(&self) -> &[SwapDevice] {
        &self.snap.swap.devices
    }

    pub(crate) fn disk_devices(&self) -> Vec<&SwapDevice> {
        self.devices().iter().filter(|d| !d.is_zram).collect()
    }

    pub(crate) fn zram_devices(&self) -> Vec<&SwapDevice> {
        self.devices().iter().filter(|d| d.is_zram).collect()
    }

    /// A vm sysctl as an integer.
    pub(crate) fn vm(&self, name: &str) -> Option<i64> {
        self.snap
            .tunables
            .get(&format!("vm.{name}"))?
            .as_deref()?
            .trim()
            .parse()
            .ok()
    }

    pub(crate) fn tunable(&self, key: &str) -> Option<&str> {
        self.snap.tunables.get(key)?.as_deref()
    }

    pub(crate) fn debugfs(&self, key: &str) -> Option<u64> {
        self.snap.zswap.debugfs.as_ref()?.get(key).copied()
    }

    /// A debugfs counter's rate over the interval (events or pages per second).
    pub(crate) fn debugfs_rate(&self, key: &str) -> Option<f64> {
        self.snap.rates.as_ref()?.debugfs_per_sec.get(key).copied()
    }

    pub(crate) fn page_size(&self) -> u64 {
        self.snap.page_size.bytes.max(1)
    }

    pub(crate) fn setup(&self) -> Setup {
        if !self.swaps_known() {
            return Setup::Unknown;
        }
        let zram = !self.zram_devices().is_empty();
        let disk = !self.disk_devices().is_empty();
        match (self.zswap_on(), zram, disk) {
            (_, false, false) => Setup::NoSwap,
            (true, true, _) => Setup::ZswapZram,
            (true, false, true) => Setup::ZswapDisk,
            (false, true, false) => Setup::ZramOnly,
            (false, true, true) => Setup::ZramDisk,
            (false, false, true) => Setup::DiskOnly,
        }
    }
}
