//! The swap section: totals, where swapped pages are, the swap areas and their devices.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cost::io_latency;
use super::rates::counter_rate;
use super::zram::Zram;
use crate::sanitize::Sanitize;
use crate::sources::Sample;
use crate::sources::swapdev::ZramBacking;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
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
    /// `/proc/swaps` was read: `devices` is a fact, not a guess (the sources list says why not).
    #[serde(skip)]
    pub areas_known: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
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
    /// The average time `block_device` took per read it completed over the interval (Δ ms
    /// reading ÷ Δ reads, `/sys/block/*/stat`): the device's average over every request, swap or
    /// not, per request and not per fault. `null` without an interval or without reads.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub read_latency_ms: Option<f64>,
    /// The same for writes (Δ ms writing ÷ Δ writes).
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub write_latency_ms: Option<f64>,
    /// Why `block_device` is unknown, when it is.
    pub unmapped: Option<String>,
    /// For a zram device: its writeback setting, for the diagnostics (not in the JSON).
    #[serde(skip)]
    pub zram_backing: Option<ZramBacking>,
    /// Where this area's used slots hold their data, as far as the kernel says per area; each
    /// is unknown (null) where it does not.
    #[serde(flatten)]
    pub split: AreaSplit,
}

/// Where one swap area's used slots hold their data. The kernel counts zswap, the swap cache
/// and what is on disk for all areas together and does not say on which area a zswap entry's
/// slot lies: a disk area gets the global figures only when it is the only swap area of any
/// kind. A zram area knows what it stores itself (mm_stat), so the rest of its used slots is
/// known too.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Sanitize, JsonSchema,
)]
pub struct AreaSplit {
    /// Data held by the device itself: for zram, pages stored in its RAM, same-filled ones
    /// included (mm_stat orig_data_size); for the only swap area on disk, pages on the disk
    /// or zero-filled (the global "not in RAM").
    pub in_device_bytes: Option<u64>,
    /// Used slots whose data is not in the device (in zswap, only in the swap cache, in the
    /// zero map, or written back from zram): used − in_device.
    pub elsewhere_bytes: Option<u64>,
    /// The only swap area: what zswap holds (the global figure).
    pub in_zswap_bytes: Option<u64>,
}

/// A block device's I/O. Its counters include every kind of I/O on it, not only swap; the global
/// swap-only figures are vmstat pswpin/pswpout (`rates`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct DeviceIo {
    pub device: String,
    #[serde(rename = "read_total_bytes", alias = "read_bytes_total")]
    pub read_bytes_total: u64,
    #[serde(rename = "write_total_bytes", alias = "write_bytes_total")]
    pub write_bytes_total: u64,
    #[schemars(range(min = 0))]
    pub read_iops: Option<f64>,
    #[schemars(range(min = 0))]
    pub write_iops: Option<f64>,
    #[schemars(range(min = 0))]
    pub read_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub write_bytes_per_sec: Option<f64>,
    /// Share of the interval with I/O in flight (io_ticks), 0–100.
    #[schemars(range(min = 0, max = 100))]
    pub busy_percent: Option<f64>,
}

/// Swap areas of equal priority: the kernel stripes pages across each group round-robin and
/// fills groups from the highest priority down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct PriorityGroup {
    pub priority: i64,
    pub devices: Vec<String>,
}

impl Swap {
    /// Derive the swap section. `stored_bytes` is what zswap holds (`None` when unknown),
    /// `in_zram` what zram swap devices hold, `zram` every zram device.
    pub(crate) fn derive(
        curr: &Sample,
        prev: Option<&Sample>,
        zswap_in_kernel: bool,
        stored_bytes: Option<u64>,
        in_zram: Option<u64>,
        zram: &[Zram],
    ) -> Swap {
        let mem = curr.meminfo.as_ref().ok();
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
                        let latency = block.as_deref().and_then(|name| {
                            let p = prev?.block_times.get(name)?;
                            Some(io_latency(p, curr.block_times.get(name)?))
                        });
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
                            read_latency_ms: latency.and_then(|l| l.read_ms),
                            write_latency_ms: latency.and_then(|l| l.write_ms),
                            unmapped: backing.and_then(|b| b.unmapped.clone()),
                            zram_backing: backing.and_then(|b| b.zram.clone()),
                            block_device: block,
                            split: AreaSplit::default(),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let swap_used = mem.map(|m| m.swap_total.saturating_sub(m.swap_free));
        let in_zswap = in_zswap_bytes(zswap_in_kernel, stored_bytes);
        // A swapped-in page can stay in the swap cache *and* in zswap (loads that are not
        // exclusive: before 6.9, or 6.5–6.8 with exclusive_loads=N) or in zram (its slot is
        // kept until the swap entry is freed). Each slot is counted once: in zswap, in zram,
        // else in the swap cache, else not in RAM; the swap cache is what is left of SwapCached
        // once the compressed copies are counted, so the four parts sum to used.
        let compressed = in_zswap.zip(in_zram).map(|(z, zr)| z.saturating_add(zr));
        let cache_only = match (swap_used, compressed, mem) {
            (Some(u), Some(c), Some(m)) => Some(m.swap_cached.min(u.saturating_sub(c))),
            (_, _, m) => m.map(|m| m.swap_cached),
        };
        let mut swap = Swap {
            total_bytes: mem.map(|m| m.swap_total),
            free_bytes: mem.map(|m| m.swap_free),
            used_bytes: swap_used,
            in_zswap_bytes: in_zswap,
            in_swap_cache_bytes: cache_only,
            in_zram_bytes: in_zram,
            not_in_ram_bytes: match (swap_used, compressed, cache_only) {
                (Some(u), Some(c), Some(sc)) => Some(u.saturating_sub(c).saturating_sub(sc)),
                _ => None,
            },
            devices,
            priority_groups,
            areas_known: curr.swaps.is_ok(),
        };
        swap.split_areas(zram);
        swap
    }

    /// Fill each area's [`AreaSplit`] with what is known of it alone.
    fn split_areas(&mut self, zram: &[Zram]) {
        let only = self.areas_known && self.devices.len() == 1;
        let (in_zswap, not_in_ram) = (self.in_zswap_bytes, self.not_in_ram_bytes);
        for d in &mut self.devices {
            let in_device = if d.is_zram {
                zram.iter()
                    .find(|z| d.path == format!("/dev/{}", z.device))
                    .and_then(|z| z.orig_data_bytes)
            } else {
                not_in_ram.filter(|_| only)
            };
            d.split = AreaSplit {
                in_device_bytes: in_device,
                // More stored than used cannot be: the two files were read at different moments.
                elsewhere_bytes: in_device.and_then(|i| d.used_bytes.checked_sub(i)),
                in_zswap_bytes: in_zswap.filter(|_| only),
            };
        }
    }
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
