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
