//! The zram section: one entry per device, its ratios, overhead and what could not be read.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Missing, Sum, checked_sum, missing_item, ratio, too_large};
use crate::error::Reason;
use crate::sanitize::Sanitize;
use crate::sources::Sample;
use crate::sources::meminfo::MeminfoSample;

#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
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
    #[schemars(range(min = 0))]
    pub compression_ratio: Option<f64>,
    /// orig ÷ mem_used: what the device really saves, allocator overhead included.
    #[schemars(range(min = 0))]
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
    /// What `bd_stat` writes grew by over the window between the two samples; `null` from one
    /// sample, or without `bd_stat`.
    pub bd_writes_window_bytes: Option<u64>,
    /// Whether writeback is held to `writeback_limit` (`writeback_limit_enable`), and what it
    /// may still write (`writeback_limit`, 4 KiB units, in bytes).
    pub writeback_limit_enabled: Option<bool>,
    pub writeback_limit_bytes: Option<u64>,
    /// Idle pages still in RAM that `echo idle > writeback` would move, uncompressed (debugfs
    /// `block_state`: idle, not written back, not same-filled); read for a device with a
    /// backing device or a recompression algorithm, as root.
    pub idle_bytes: Option<u64>,
    /// What `idle_bytes` changed by between the previous sample's `block_state` reading and this
    /// one (positive: pages went idle faster than writeback or use took them), over
    /// `idle_window_seconds`; `null` from one sample, without both readings, or where this
    /// sample carries the previous reading (the dashboard reads `block_state` whole only at its
    /// full samples and after a writeback, so its window spans the readings, not the ticks).
    #[serde(default)]
    pub idle_window_bytes: Option<i64>,
    /// The seconds between the two `block_state` readings `idle_window_bytes` compares.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub idle_window_seconds: Option<f64>,
    /// Pages a recompression reached, recompressed or found no gain (`block_state` `r` or `n`),
    /// uncompressed: 0 where `recompress` was never written.
    pub recompressed_bytes: Option<u64>,
    pub unavailable: Vec<Missing>,
}

impl Zram {
    /// A writeback device is set (`backing_dev` other than `none`).
    pub fn has_backing_dev(&self) -> bool {
        self.backing_dev
            .as_deref()
            .is_some_and(|b| b != "none" && !b.is_empty())
    }
}

impl Zram {
    /// Reads or writes of the device have failed since it was set up.
    pub fn io_failed(&self) -> bool {
        self.failed_reads.unwrap_or(0) > 0 || self.failed_writes.unwrap_or(0) > 0
    }
}

/// Every zram device in `curr`, what moved since `prev` where there is one.
pub(crate) fn derive_all(curr: &Sample, prev: Option<&Sample>) -> Vec<Zram> {
    let swap_paths: Vec<&str> = curr
        .swaps
        .as_ref()
        .map(|d| d.iter().map(|s| s.path.as_str()).collect())
        .unwrap_or_default();
    curr.zram
        .iter()
        .map(|z| {
            let mut out = derive_zram(
                &curr.root,
                z,
                swap_paths.contains(&format!("/dev/{}", z.name).as_str()),
                curr.host.page_size.bytes,
            );
            let before = prev
                .and_then(|p| p.zram.iter().find(|x| x.name == z.name))
                .and_then(|x| x.bd_stat.as_ref().ok());
            out.bd_writes_window_bytes = match (before, z.bd_stat.as_ref().ok()) {
                // A device reset in between starts its counters again: no figure for the window.
                (Some(a), Some(b)) => b.bd_writes_bytes.checked_sub(a.bd_writes_bytes),
                _ => None,
            };
            let prev_z = prev.and_then(|p| p.zram.iter().find(|x| x.name == z.name));
            if let Some((bytes, secs)) =
                prev_z.and_then(|p| idle_growth(p, z, curr.host.page_size.bytes))
            {
                (out.idle_window_bytes, out.idle_window_seconds) = (Some(bytes), Some(secs));
            }
            out
        })
        .collect()
}

/// How the idle pages in RAM changed from `before`'s `block_state` reading to `now`'s, in bytes,
/// and the seconds between the readings; `None` without both, or when `now` holds the same
/// reading (carried, not read again).
fn idle_growth(
    before: &crate::sources::zram::ZramSample,
    now: &crate::sources::zram::ZramSample,
    page_size: u64,
) -> Option<(i64, f64)> {
    let (a, b) = (
        before.block_state.as_ref().ok()?,
        now.block_state.as_ref().ok()?,
    );
    let dt = now
        .block_state_read_ns?
        .checked_sub(before.block_state_read_ns?)?;
    if dt == 0 {
        return None;
    }
    let bytes = |pages: u64| i128::from(pages) * i128::from(page_size);
    let growth = i64::try_from(bytes(b.idle_in_ram) - bytes(a.idle_in_ram)).ok()?;
    Some((growth, dt as f64 / 1e9))
}

/// RAM the zram devices use (mem_used_total summed); unknown when one device's is, or when the
/// sum is not a real figure (past 2^64, or more than MemTotal: said in `unavailable`).
pub(crate) fn pool_bytes(
    zram: &[Zram],
    mem: Option<&MeminfoSample>,
    unavailable: &mut Vec<Missing>,
) -> Option<u64> {
    match checked_sum(zram.iter().map(|z| z.mem_used_bytes)) {
        Sum::Overflow => {
            unavailable.push(too_large("zram pool", "the zram devices' mem_used_total"));
            None
        }
        // The pool is in RAM: more than MemTotal is not a real figure.
        Sum::Known(z) if mem.is_some_and(|m| z > m.mem_total) => {
            unavailable.push(Missing {
                item: "zram pool".into(),
                path: None,
                holds: None,
                reason: Reason::Malformed {
                    line: None,
                    detail: format!(
                        "the zram devices' mem_used_total ({z} bytes) is more than MemTotal"
                    ),
                },
            });
            None
        }
        sum => sum.known(),
    }
}

/// Swap held by zram swap devices (orig_data_size summed); unknown without /proc/swaps.
pub(crate) fn in_swap_bytes(
    curr: &Sample,
    zram: &[Zram],
    unavailable: &mut Vec<Missing>,
) -> Option<u64> {
    curr.swaps.as_ref().ok()?;
    let stored = zram.iter().filter(|z| z.is_swap).map(|z| z.orig_data_bytes);
    match checked_sum(stored) {
        Sum::Overflow => {
            unavailable.push(too_large("swap in zram", "the zram orig_data_size"));
            None
        }
        sum => sum.known(),
    }
}

fn derive_zram(
    root: &str,
    z: &crate::sources::zram::ZramSample,
    is_swap: bool,
    page_size: u64,
) -> Zram {
    let mm = z.mm_stat.as_ref().ok();
    let mut unavailable = Vec::new();
    let configured =
        z.backing_dev.as_ref().is_ok_and(|b| b != "none") || z.recomp_algorithm.is_ok();
    if configured && let Err(e) = &z.block_state {
        unavailable.push(missing_item(root, "block_state", e));
    }
    let bs = z.block_state.as_ref().ok();
    let pages = |n: u64| n.saturating_mul(page_size);
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
        bd_writes_window_bytes: None,
        idle_window_bytes: None,
        idle_window_seconds: None,
        writeback_limit_enabled: z.writeback_limit_enable.as_ref().ok().map(|&v| v != 0),
        writeback_limit_bytes: z.writeback_limit_bytes.as_ref().ok().copied(),
        idle_bytes: bs.map(|b| pages(b.idle_in_ram)),
        recompressed_bytes: bs.map(|b| pages(b.recompressed)),
        unavailable,
    }
}
