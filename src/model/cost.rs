//! Is zswap helping, and what does a miss cost: the share of swap-ins zswap served, the share of
//! stores it accepted, and the average time a swap device took per read and per write. Pure:
//! from the rates of an interval ([`Rates`]) and two samples' block counters.
//!
//! - Swap-in hit ratio: Δzswpin ÷ (Δzswpin + Δpswpin) over the interval (vmstat, pages):
//!   `zswpin` counts loads from zswap (mm/zswap.c `zswap_load`), `pswpin` reads from a swap
//!   device (mm/page_io.c). Zero-filled pages (6.12+, `swpin_zero`) come from neither and are
//!   left out of both sides.
//! - Store acceptance: Δzswpout ÷ (Δzswpout + pages that reached a swap device without passing
//!   through zswap), the latter being [`Rates::bypassed_zswap_bytes_per_sec`] (Δpswpout −
//!   Δzswpwb: writeback is a zswap store leaving, not a bypass). The pool's refusals
//!   (`pool_limit_hit`) and the other rejections (`reject_*`, debugfs) are given beside it.
//! - Device latency: Δ milliseconds spent reading ÷ Δ reads completed, and the same for writes
//!   (`/sys/block/*/stat` fields 4 ÷ 1 and 8 ÷ 5). It is the device's average over every
//!   request it completed in the interval, swap or not, and it is time per request, not per
//!   fault (the kernel merges pages into requests; readahead reads several pages per fault).
//!   The millisecond fields are u32 in the kernel and wrap (`blockstat::ticks_delta`).

use schemars::JsonSchema;
use serde::Serialize;

use super::rates::{Rates, counter_delta};
use crate::sanitize::Sanitize;
use crate::sources::blockstat::{IoTimes, ticks_delta};

/// The share of swap-ins served from zswap over the interval of `rates`, 0–1; `None` without
/// the counters or when nothing was swapped in from either.
pub(crate) fn swapin_hit_ratio(rates: &Rates) -> Option<f64> {
    let z = rates.zswpin_bytes_per_sec?;
    let d = rates.pswpin_bytes_per_sec?;
    share(z, d)
}

/// `a ÷ (a + b)`, `None` when both are 0.
fn share(a: f64, b: f64) -> Option<f64> {
    let total = a + b;
    (total > 0.0 && total.is_finite()).then(|| a / total)
}

/// What became of the pages swapped out over an interval (per second).
#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct StoreAcceptance {
    /// Stored in zswap (`zswpout`, pages).
    pub accepted_pages_per_sec: Option<f64>,
    /// Written to a swap device without passing through zswap (pages): refused, rejected, zswap
    /// off, or a large folio zswap would not take.
    pub bypassed_pages_per_sec: Option<f64>,
    /// accepted ÷ (accepted + bypassed), 0–1; `None` when nothing was swapped out.
    pub accepted_ratio: Option<f64>,
    /// Stores refused because the pool was at its limit (debugfs `pool_limit_hit`, events).
    /// Refusals while the pool drains back to the accept threshold are not counted there.
    pub pool_limit_hits_per_sec: Option<f64>,
    /// Stores rejected for any other reason (Σ debugfs `reject_*`, events).
    pub rejects_per_sec: Option<f64>,
}

/// The stores of the interval `rates` covers.
pub(crate) fn store_acceptance(rates: &Rates, page_size: u64) -> StoreAcceptance {
    let pages = |b: Option<f64>| b.map(|b| b / page_size.max(1) as f64);
    let accepted = pages(rates.zswpout_bytes_per_sec);
    let bypassed = pages(rates.bypassed_zswap_bytes_per_sec);
    let rejects: Vec<f64> = rates
        .debugfs_per_sec
        .iter()
        .filter(|(k, _)| k.starts_with("reject_"))
        .map(|(_, v)| *v)
        .collect();
    StoreAcceptance {
        accepted_pages_per_sec: accepted,
        bypassed_pages_per_sec: bypassed,
        accepted_ratio: match (accepted, bypassed) {
            (Some(a), Some(b)) => share(a, b),
            _ => None,
        },
        pool_limit_hits_per_sec: rates.debugfs_per_sec.get("pool_limit_hit").copied(),
        rejects_per_sec: (!rejects.is_empty()).then(|| rejects.iter().sum()),
    }
}

/// A block device's average request time over an interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IoLatency {
    /// Milliseconds per read completed; `None` without reads (or across a reset).
    pub read_ms: Option<f64>,
    /// Milliseconds per write completed; `None` without writes (or across a reset).
    pub write_ms: Option<f64>,
    /// The requests the averages are over.
    pub reads: Option<u64>,
    pub writes: Option<u64>,
}

/// The average time per read and per write between two readings of a device's `stat`.
pub(crate) fn io_latency(prev: &IoTimes, curr: &IoTimes) -> IoLatency {
    let one = |n_prev: u64, n: u64, ms_prev: u64, ms: u64| {
        let reqs = counter_delta(Some(n_prev), Some(n));
        // Fewer requests than before: the device was re-created; its times mean nothing.
        let avg = reqs
            .filter(|&r| r > 0)
            .and_then(|r| ticks_delta(ms_prev, ms).map(|t| t as f64 / r as f64));
        (reqs, avg)
    };
    let (reads, read_ms) = one(prev.reads, curr.reads, prev.read_ms, curr.read_ms);
    let (writes, write_ms) = one(prev.writes, curr.writes, prev.write_ms, curr.write_ms);
    IoLatency {
        read_ms,
        write_ms,
        reads,
        writes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::zswap::DebugfsMap;

    fn rates(zin: f64, pin: f64, zout: f64, bypass: f64) -> Rates {
        let mut debugfs_per_sec = DebugfsMap::default();
        debugfs_per_sec.insert("pool_limit_hit", 3.0);
        debugfs_per_sec.insert("reject_compress_poor", 1.5);
        debugfs_per_sec.insert("reject_alloc_fail", 0.5);
        debugfs_per_sec.insert("written_back_pages", 9.0);
        Rates {
            interval_seconds: 2.0,
            zswpout_bytes_per_sec: Some(zout),
            zswpin_bytes_per_sec: Some(zin),
            zswpwb_bytes_per_sec: Some(0.0),
            pswpout_bytes_per_sec: Some(bypass),
            pswpin_bytes_per_sec: Some(pin),
            swpout_zero_bytes_per_sec: None,
            swpin_zero_bytes_per_sec: Some(4096.0),
            bypassed_zswap_bytes_per_sec: Some(bypass),
            debugfs_per_sec,
            per_sec: Default::default(),
            psi_some_percent: None,
            psi_full_percent: None,
        }
    }

    /// 94 pages a second from zswap, 6 from disk: 94 %.
    #[test]
    fn hit_ratio() {
        let r = rates(94.0 * 4096.0, 6.0 * 4096.0, 0.0, 0.0);
        assert_eq!(swapin_hit_ratio(&r), Some(0.94));
        assert_eq!(
            swapin_hit_ratio(&rates(0.0, 0.0, 0.0, 0.0)),
            None,
            "no swap-ins"
        );
        assert_eq!(swapin_hit_ratio(&rates(0.0, 8.0, 0.0, 0.0)), Some(0.0));
        let mut r = rates(1.0, 1.0, 0.0, 0.0);
        r.pswpin_bytes_per_sec = None;
        assert_eq!(swapin_hit_ratio(&r), None, "a counter this kernel lacks");
    }

    #[test]
    fn stores_accepted_refused_and_bypassed() {
        let a = store_acceptance(&rates(0.0, 0.0, 300.0 * 4096.0, 100.0 * 4096.0), 4096);
        assert_eq!(a.accepted_pages_per_sec, Some(300.0));
        assert_eq!(a.bypassed_pages_per_sec, Some(100.0));
        assert_eq!(a.accepted_ratio, Some(0.75));
        assert_eq!(a.pool_limit_hits_per_sec, Some(3.0));
        assert_eq!(a.rejects_per_sec, Some(2.0), "reject_* only, not writeback");
        let none = store_acceptance(&rates(0.0, 0.0, 0.0, 0.0), 4096);
        assert_eq!(none.accepted_ratio, None);
    }

    fn times(reads: u64, read_ms: u64, writes: u64, write_ms: u64) -> IoTimes {
        IoTimes {
            reads,
            read_ms,
            writes,
            write_ms,
        }
    }

    /// Two captures of the same machine's vda, idle then loaded (tests/fixtures/linux-6.18-idle
    /// and -loaded), as the two samples of an interval: 3398 reads took 766 ms (0.2254 ms a
    /// read), 37012 writes 13323 ms (0.35997 ms a write).
    #[test]
    fn the_swapfile_device_between_two_captures() {
        use crate::sources::swapdev::BlockDev;
        let sample = |name: &str| {
            let dir = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
            let root = crate::root::Root::at(&dir);
            let mut s = crate::sources::collect(&root);
            // A captured tree cannot stat() the swapfile for its device: the capture's README
            // says /swapfile-test is on vda.
            let stat = format!("{dir}/sys/block/vda/stat");
            let (_, times) =
                crate::sources::blockstat::read_with_times(&root, std::path::Path::new(&stat));
            s.swap_devices[0].device = Some(BlockDev {
                name: "vda".into(),
                dir: format!("{dir}/sys/block/vda"),
                partition: false,
            });
            s.block_times.insert("vda".into(), times.unwrap());
            s
        };
        let (a, b) = (sample("linux-6.18-idle"), sample("linux-6.18-loaded"));
        let latency = |curr: &crate::sources::Sample| {
            let snap = crate::model::Snapshot::derive(curr, Some(&a));
            let d = &snap.swap.devices[0];
            (d.path.clone(), d.read_latency_ms, d.write_latency_ms)
        };
        let (path, read, write) = latency(&b);
        assert_eq!(path, "/swapfile-test");
        assert!((read.unwrap() - 766.0 / 3398.0).abs() < 1e-12);
        assert!((write.unwrap() - 13_323.0 / 37_012.0).abs() < 1e-12);
        // A device read in one sample only: no latency.
        let mut c = b.clone();
        c.block_times.clear();
        assert_eq!(latency(&c), ("/swapfile-test".to_string(), None, None));
    }

    #[test]
    fn latency_per_request_with_wraps_and_resets() {
        // 250 reads in 800 ms: 3.2 ms a read; 40 writes in 100 ms: 2.5 ms.
        let l = io_latency(&times(1000, 5000, 100, 900), &times(1250, 5800, 140, 1000));
        assert_eq!((l.read_ms, l.write_ms), (Some(3.2), Some(2.5)));
        assert_eq!((l.reads, l.writes), (Some(250), Some(40)));
        // No writes in the interval: no write latency (not 0).
        let l = io_latency(&times(1000, 5000, 100, 900), &times(1001, 5004, 100, 900));
        assert_eq!(
            (l.read_ms, l.write_ms, l.writes),
            (Some(4.0), None, Some(0))
        );
        // The u32 millisecond field wrapped: 2^32 − 10 → 30 is 40 ms.
        let l = io_latency(&times(10, (1 << 32) - 10, 0, 0), &times(20, 30, 0, 0));
        assert_eq!(l.read_ms, Some(4.0));
        // The device was re-created: its counts went back.
        let l = io_latency(&times(1000, 5000, 100, 900), &times(3, 1, 1, 1));
        assert_eq!((l.read_ms, l.write_ms, l.reads), (None, None, None));
    }
}
