//! Every threshold the rules use, in one place, each with the reason for its value.

const MIB: u64 = 1 << 20;

/// The pool counts as near full from this share of its limit: zswap's default
/// accept_threshold_percent, the level it must fall below before it takes pages again after a hit.
pub const POOL_NEAR_FULL_PERCENT: f64 = 90.0;

/// An effective ratio (stored ÷ pool) under 1.5:1 means the pool spends more than two thirds of
/// the RAM it stores, saving under a third: compression barely pays for its latency.
pub const POOR_RATIO: f64 = 1.5;

/// Ratios and shares are judged only once this much is stored: a few pages give a noisy ratio.
pub const MIN_STORED_FOR_RATIO_BYTES: u64 = 16 * MIB;

/// From 30 % of stored pages kept incompressible (stored raw, a full page each on 6.18+, or zram
/// huge pages), a large part of the pool saves nothing.
pub const INCOMPRESSIBLE_SHARE_PERCENT: f64 = 30.0;

/// From 10 % of store attempts rejected as compressing poorly over an interval, a sizeable part
/// of what reaches zswap goes to disk after paying for a compression.
pub const REJECT_POOR_SHARE_PERCENT: f64 = 10.0;

/// vm.swappiness below the kernel default (60) has been lowered on purpose: with compressed swap
/// that tells the kernel swap is dearer than its own default assumption, the opposite of the truth.
pub const SWAPPINESS_LOW: i64 = 60;

/// At 10 or less anonymous memory is swapped only as a last resort, so the compressed tier sits
/// nearly unused while page cache is dropped first: a warning rather than a remark.
pub const SWAPPINESS_VERY_LOW: i64 = 10;

/// PSI memory "full" avg10 of 10 %: every runnable task stalled on memory one second in ten,
/// far above the near-zero of a system whose working set fits.
pub const THRASHING_PSI_FULL_AVG10: f64 = 10.0;

/// PSI memory "full" avg10 of 30 %: the machine spends a third of its time with all work stopped.
pub const THRASHING_PSI_FULL_AVG10_CRIT: f64 = 30.0;

/// Swap-ins of 1 MiB/s (256 pages of 4 KiB a second) and more: well above the few pages a second
/// of an idle system, so the stalls PSI reports are pages coming back from swap.
pub const THRASHING_SWAPIN_BYTES_PER_SEC: f64 = MIB as f64;

/// Swap counts as nearly full from 90 % of its slots in use: the slot limit binds now, not later.
pub const SWAP_NEARLY_FULL_PERCENT: f64 = 90.0;

/// A suggested max_pool_percent never goes above half of RAM: beyond that the pool competes with
/// the working set it is meant to make room for.
pub const MAX_POOL_PERCENT_SUGGESTION_CAP: u64 = 50;

/// The kernel's default vm.page-cluster (8 pages per swap-in); only 0 turns readahead off.
pub const PAGE_CLUSTER_DEFAULT: i64 = 3;

/// A zram device counts as full from 90 % of its disksize (swap slots) or of its mem_limit: the
/// kernel then sends newer pages to the next, lower-priority swap area.
pub const ZRAM_NEAR_FULL_PERCENT: f64 = 90.0;

/// writeback-stalled judges an interval of at least 5 s: the pool-limit worker writes back in
/// bursts (on 6.18, cgroup v1, a pool at max_pool_percent 1 under a steady 8 MiB/s of swap-out
/// wrote 15588 pages in one 2 s interval after 34 s of nothing), so a one-second tick with no
/// writeback says little.
pub const WRITEBACK_STALL_MIN_SECONDS: f64 = 5.0;

/// A cgroup counts as near a limit (memory.max, memory.high, memory.swap.max, memory.zswap.max)
/// from 90 % of it in use: the share zram and zswap's pool are held to as well; the last tenth
/// is where the kernel starts reclaiming at every charge (memory.max) or throttling (high).
pub const CGROUP_NEAR_LIMIT_PERCENT: f64 = 90.0;

/// The thresholds the rules judge by: the constants above unless the configuration file
/// (`[thresholds]`, [`crate::config`]) sets others. Each field is named as its constant, in lower
/// case.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Thresholds {
    pub pool_near_full_percent: f64,
    pub poor_ratio: f64,
    pub min_stored_for_ratio_bytes: u64,
    pub incompressible_share_percent: f64,
    pub reject_poor_share_percent: f64,
    pub swappiness_low: i64,
    pub swappiness_very_low: i64,
    pub thrashing_psi_full_avg10: f64,
    pub thrashing_psi_full_avg10_crit: f64,
    pub thrashing_swapin_bytes_per_sec: f64,
    pub swap_nearly_full_percent: f64,
    pub max_pool_percent_suggestion_cap: u64,
    pub zram_near_full_percent: f64,
    pub cgroup_near_limit_percent: f64,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            pool_near_full_percent: POOL_NEAR_FULL_PERCENT,
            poor_ratio: POOR_RATIO,
            min_stored_for_ratio_bytes: MIN_STORED_FOR_RATIO_BYTES,
            incompressible_share_percent: INCOMPRESSIBLE_SHARE_PERCENT,
            reject_poor_share_percent: REJECT_POOR_SHARE_PERCENT,
            swappiness_low: SWAPPINESS_LOW,
            swappiness_very_low: SWAPPINESS_VERY_LOW,
            thrashing_psi_full_avg10: THRASHING_PSI_FULL_AVG10,
            thrashing_psi_full_avg10_crit: THRASHING_PSI_FULL_AVG10_CRIT,
            thrashing_swapin_bytes_per_sec: THRASHING_SWAPIN_BYTES_PER_SEC,
            swap_nearly_full_percent: SWAP_NEARLY_FULL_PERCENT,
            max_pool_percent_suggestion_cap: MAX_POOL_PERCENT_SUGGESTION_CAP,
            zram_near_full_percent: ZRAM_NEAR_FULL_PERCENT,
            cgroup_near_limit_percent: CGROUP_NEAR_LIMIT_PERCENT,
        }
    }
}

impl Thresholds {
    /// The first field whose value makes no sense, and why: (field, what it must be).
    pub(crate) fn check(&self) -> Result<(), (&'static str, &'static str)> {
        let percent = |v: f64| v.is_finite() && (0.0..=100.0).contains(&v);
        let percents = [
            ("pool_near_full_percent", self.pool_near_full_percent),
            (
                "incompressible_share_percent",
                self.incompressible_share_percent,
            ),
            ("reject_poor_share_percent", self.reject_poor_share_percent),
            ("thrashing_psi_full_avg10", self.thrashing_psi_full_avg10),
            (
                "thrashing_psi_full_avg10_crit",
                self.thrashing_psi_full_avg10_crit,
            ),
            ("swap_nearly_full_percent", self.swap_nearly_full_percent),
            ("zram_near_full_percent", self.zram_near_full_percent),
            ("cgroup_near_limit_percent", self.cgroup_near_limit_percent),
        ];
        if let Some((key, _)) = percents.iter().find(|(_, v)| !percent(*v)) {
            return Err((key, "a percentage from 0 to 100"));
        }
        if !(self.poor_ratio.is_finite() && self.poor_ratio >= 1.0) {
            return Err(("poor_ratio", "a ratio of at least 1"));
        }
        if !(self.thrashing_swapin_bytes_per_sec.is_finite()
            && self.thrashing_swapin_bytes_per_sec >= 0.0)
        {
            return Err((
                "thrashing_swapin_bytes_per_sec",
                "a number of bytes a second, 0 or more",
            ));
        }
        if !(0..=200).contains(&self.swappiness_low) {
            return Err(("swappiness_low", "a swappiness from 0 to 200"));
        }
        if !(0..=self.swappiness_low).contains(&self.swappiness_very_low) {
            return Err((
                "swappiness_very_low",
                "a swappiness from 0 to swappiness_low",
            ));
        }
        if self.thrashing_psi_full_avg10_crit < self.thrashing_psi_full_avg10 {
            return Err((
                "thrashing_psi_full_avg10_crit",
                "at least thrashing_psi_full_avg10",
            ));
        }
        if !(1..=100).contains(&self.max_pool_percent_suggestion_cap) {
            return Err((
                "max_pool_percent_suggestion_cap",
                "a percentage from 1 to 100",
            ));
        }
        Ok(())
    }
}

/// disk-swapin-wait: a disk swap-in median from 1 ms. zswap's loads took 25–42 µs at the median in
/// the kernel matrix's guests (TCG; about half that natively), an SSD read is ~0.1 ms and a
/// rotating or throttled disk 5–10 ms (the guests' 200-IOPS disk: 4.7 ms): from 1 ms a page sent
/// to disk instead of zswap costs each later swap-in of it 25× or more.
pub const DISK_SWAPIN_WAIT_P50_US: f64 = 1000.0;

/// disk-swapin-wait judges a median of at least 20 disk swap-ins in the interval: fewer give a
/// median of a few faults (the histogram's buckets are ±19 % wide).
pub const DISK_SWAPIN_MIN_COUNT: u64 = 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Snapshot;
    use crate::root::Root;

    /// The rules judge by the thresholds they are given: the loaded tree's zswap ratio (1.95:1)
    /// is poor only by a stricter standard than the default 1.5.
    #[test]
    fn the_rules_judge_by_the_thresholds_given() {
        let sample = crate::sources::collect(&Root::at(format!(
            "{}/tests/fixtures/linux-6.18-loaded",
            env!("CARGO_MANIFEST_DIR")
        )));
        let snap = Snapshot::derive(&sample, None);
        let ids = |t: &Thresholds| -> Vec<String> {
            crate::diagnostics::evaluate(&snap, t)
                .into_iter()
                .map(|f| f.id)
                .collect()
        };
        let poor = "poor-compression".to_string();
        assert!(!ids(&Thresholds::default()).contains(&poor));
        let strict = Thresholds {
            poor_ratio: 2.5,
            ..Thresholds::default()
        };
        assert!(ids(&strict).contains(&poor));
    }

    #[test]
    fn the_defaults_are_sane_and_nonsense_is_named() {
        assert_eq!(Thresholds::default().check(), Ok(()));
        let t = Thresholds {
            swappiness_very_low: 70,
            ..Thresholds::default()
        };
        assert_eq!(t.check().unwrap_err().0, "swappiness_very_low");
        let t = Thresholds {
            poor_ratio: f64::NAN,
            ..Thresholds::default()
        };
        assert_eq!(t.check().unwrap_err().0, "poor_ratio");
    }
}
