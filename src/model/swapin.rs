//! Swap-in latency by tier over the interval: the deltas of the BPF programs' cumulative
//! histograms (`sources::bpf`) between two samples of one load, as counts, counts a second and
//! percentiles. Pure. The interval starts at the sample before, or at the load when that came
//! after it (the counters start from zero there).
//!
//! The percentiles are interpolated inside log2 x 4 buckets (each 19 % either side of its
//! middle). `max_us` is exact when the interval set a new largest time since the load; else it
//! is the upper edge of the interval's highest bucket, capped at that largest time.

use schemars::JsonSchema;
use serde::Serialize;

use crate::sanitize::Sanitize;
use crate::sources::Sample;
use crate::sources::bpf::{self, BUCKETS, SwapinSample, TierCounts, TierReading};

/// `swapin_latency`: how long swap-ins waited over the interval, by the tier that served them.
#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
#[schemars(
    description = "How long swap-ins waited (page fault to page mapped) over the interval, by the tier that served them, from zswaptop's BPF programs; `available` false with `reason` where they are not loaded."
)]
pub struct SwapinLatency {
    /// Whether the figures were measured over this interval.
    pub available: bool,
    /// Why they were not (null when available).
    pub reason: Option<String>,
    /// Which programs measure: "fentry" (the lean set, where the kernel has BTF) or "kprobes"
    /// (the fallback, which costs more); null when none are loaded.
    pub probes: Option<String>,
    /// zswap, zram, disk, swapcache, zero, in that order (empty when not available).
    pub tiers: Vec<TierLatency>,
    /// The store side: how long a page took to be stored on its way out, by where it went:
    /// zswap (stored, from zswap_store's entry to its exit), zram (written synchronously),
    /// disk (an asynchronous write, from its bio's submission to its completion); empty when
    /// not available. Reclaim pays these (kswapd, or a task in direct reclaim), not a task's
    /// own fault.
    pub stores: Vec<TierLatency>,
    /// Whether the programs are loaded (the figures come with the next interval when this one
    /// has none): `--watch` shows its latency columns then. Not in the JSON.
    #[serde(skip)]
    #[schemars(skip)]
    pub running: bool,
}

/// One tier over the interval (of swap-ins, or in `stores` of stored pages); `null` where
/// unknown (with `reason`) or where none happened (percentiles and max).
#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct TierLatency {
    /// "zswap" (a zswap load that hit), "zram", "disk" (any other swap device), "swapcache"
    /// (the page was already in the swap cache), "zero" (a zero-filled page, 6.12+); in
    /// `stores`: "zswap" (stored by zswap), "zram" (written to a zram device), "disk" (written
    /// to any other swap device).
    pub tier: String,
    /// Swap-ins (page faults) served by this tier in the interval; in `stores`, pages stored.
    pub count: Option<u64>,
    pub per_second: Option<f64>,
    pub p50_us: Option<f64>,
    pub p90_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub max_us: Option<f64>,
    /// Why this tier is unknown on this kernel (null when measured).
    pub reason: Option<String>,
    /// The interval's histogram (bucket lower edges: `sources::bpf::lower_ns`), for the
    /// dashboard; not in the JSON. (The exporter's are the counts since the load:
    /// [`TierTotals`].)
    #[serde(skip)]
    #[schemars(skip)]
    pub buckets: Vec<u64>,
}

impl TierLatency {
    fn unknown(tier: &str, reason: String) -> TierLatency {
        TierLatency {
            tier: tier.into(),
            count: None,
            per_second: None,
            p50_us: None,
            p90_us: None,
            p99_us: None,
            max_us: None,
            reason: Some(reason),
            buckets: Vec::new(),
        }
    }

    fn over(tier: &str, c: &TierCounts, p: &TierCounts, seconds: f64) -> TierLatency {
        let Some(buckets) = c
            .buckets
            .iter()
            .zip(&p.buckets)
            .map(|(a, b)| a.checked_sub(*b))
            .collect::<Option<Vec<u64>>>()
            .filter(|b| b.len() == BUCKETS)
        else {
            return TierLatency::unknown(tier, "the counters went back (a new load)".into());
        };
        let count = buckets.iter().sum::<u64>();
        let max_ns = if c.max_ns > p.max_ns {
            Some(c.max_ns as f64)
        } else {
            buckets
                .iter()
                .rposition(|&n| n > 0)
                .map(|i| {
                    if i + 1 < BUCKETS {
                        bpf::lower_ns(i + 1)
                    } else {
                        c.max_ns as f64
                    }
                })
                .map(|edge| edge.min(c.max_ns as f64))
        };
        let cap = max_ns.map_or(c.max_ns, |m| m as u64);
        let q = |x| bpf::percentile_us(&buckets, x, cap);
        TierLatency {
            tier: tier.into(),
            count: Some(count),
            per_second: (seconds > 0.0).then(|| count as f64 / seconds),
            p50_us: q(0.5),
            p90_us: q(0.9),
            p99_us: q(0.99),
            max_us: max_ns.map(|ns| ns / 1000.0),
            reason: None,
            buckets,
        }
    }
}

/// One tier's counters since the programs were loaded, as read: what the exporter gives as a
/// Prometheus histogram (Prometheus takes its own rates, and sees a new load where the counts go
/// down). Only tiers the programs measure; none while they are not running. Not in the JSON.
#[derive(Debug, Clone, PartialEq, Sanitize)]
pub struct TierTotals {
    /// As [`TierLatency::tier`].
    pub tier: String,
    /// [`BUCKETS`] counts, bucket `i` from `sources::bpf::lower_ns(i)` to the next edge.
    pub buckets: Vec<u64>,
    /// The waits added up, in ns.
    pub sum_ns: u64,
}

/// The counters of each measured tier since the load (none when the programs are not running,
/// and none of a tier they do not measure).
pub(crate) fn totals(curr: &Sample) -> Vec<TierTotals> {
    totals_of(curr, &curr.swapin.tiers)
}

/// As [`totals`], of the store side.
pub(crate) fn store_totals(curr: &Sample) -> Vec<TierTotals> {
    totals_of(curr, &curr.swapin.stores)
}

fn totals_of(curr: &Sample, readings: &[TierReading]) -> Vec<TierTotals> {
    if curr.swapin.reason.is_some() {
        return Vec::new();
    }
    readings
        .iter()
        .filter_map(|t| {
            let c = t.counts.as_ref().filter(|c| c.buckets.len() == BUCKETS)?;
            Some(TierTotals {
                tier: t.tier.clone(),
                buckets: c.buckets.clone(),
                sum_ns: c.sum_ns,
            })
        })
        .collect()
}

impl SwapinLatency {
    fn unavailable(reason: impl Into<String>, running: bool) -> SwapinLatency {
        SwapinLatency {
            available: false,
            reason: Some(reason.into()),
            probes: None,
            tiers: Vec::new(),
            stores: Vec::new(),
            running,
        }
    }

    pub(crate) fn derive(curr: &Sample, prev: Option<&Sample>) -> SwapinLatency {
        let c: &SwapinSample = &curr.swapin;
        if let Some(why) = &c.reason {
            // While they load they are as good as running: the next interval has figures.
            return SwapinLatency::unavailable(why.clone(), why == bpf::LOADING);
        }
        let Some(prev) = prev else {
            return SwapinLatency::unavailable(
                "one sample: the latency is measured over an interval (the next sample has it)",
                true,
            );
        };
        let p = &prev.swapin;
        // The counters start from zero at the load: a load after the sample before (the first
        // sample of `--once -i N` came while loading) is the interval's start.
        let loaded_since =
            c.loaded_ns >= prev.monotonic_ns && (p.reason.is_some() || p.loaded_ns != c.loaded_ns);
        let zero = SwapinSample {
            reason: None,
            loaded_ns: c.loaded_ns,
            probes: c.probes.clone(),
            tiers: Vec::new(),
            stores: Vec::new(),
        };
        let (p, start_ns) = if loaded_since {
            (&zero, c.loaded_ns)
        } else if p.reason.is_some() || p.loaded_ns != c.loaded_ns {
            return SwapinLatency::unavailable(
                "the counters of the sample before are of another load of the programs",
                true,
            );
        } else {
            (p, prev.monotonic_ns)
        };
        let seconds = curr.monotonic_ns.saturating_sub(start_ns) as f64 / 1e9;
        let over = |now: &[TierReading], then: &[TierReading]| -> Vec<TierLatency> {
            now.iter()
                .map(|t| {
                    let before = then.iter().find(|x| x.tier == t.tier);
                    let from_zero = TierCounts {
                        buckets: vec![0; BUCKETS],
                        count: 0,
                        sum_ns: 0,
                        max_ns: 0,
                    };
                    let then = if loaded_since {
                        Some(&from_zero)
                    } else {
                        before.and_then(|b| b.counts.as_ref())
                    };
                    match (&t.counts, then) {
                        (Some(now), Some(then)) => TierLatency::over(&t.tier, now, then, seconds),
                        _ => TierLatency::unknown(
                            &t.tier,
                            t.reason
                                .clone()
                                .unwrap_or_else(|| "not read in the sample before".into()),
                        ),
                    }
                })
                .collect()
        };
        SwapinLatency {
            available: true,
            reason: None,
            probes: (!c.probes.is_empty()).then(|| c.probes.clone()),
            tiers: over(&c.tiers, &p.tiers),
            stores: over(&c.stores, &p.stores),
            running: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(bucket: usize, n: u64, max_ns: u64) -> TierCounts {
        let mut buckets = vec![0; BUCKETS];
        buckets[bucket] = n;
        TierCounts {
            buckets,
            count: n,
            sum_ns: 0,
            max_ns,
        }
    }

    fn sample(t_s: u64, tiers: Vec<TierReading>) -> Sample {
        let mut s = crate::sources::collect(&crate::root::Root::live());
        s.monotonic_ns = t_s * 1_000_000_000;
        s.swapin = SwapinSample {
            reason: None,
            loaded_ns: 7,
            probes: "fentry".into(),
            tiers,
            stores: Vec::new(),
        };
        s
    }

    fn tier(name: &str, c: Option<TierCounts>) -> TierReading {
        TierReading {
            tier: name.into(),
            reason: c.is_none().then(|| "no probe".to_string()),
            counts: c,
        }
    }

    #[test]
    fn deltas_give_counts_rates_and_percentiles_and_unknown_tiers_stay_null() {
        let prev = sample(
            10,
            vec![
                tier("disk", Some(counts(48, 10, 5_000_000))),
                tier("zram", None),
            ],
        );
        // 100 more disk reads, all in [4.19, 5.24) ms (bucket 48: 2^22 ns .. 1.25 x 2^22 ns)
        let curr = sample(
            12,
            vec![
                tier("disk", Some(counts(48, 110, 5_000_000))),
                tier("zram", None),
            ],
        );
        let l = SwapinLatency::derive(&curr, Some(&prev));
        assert!(l.available);
        let disk = &l.tiers[0];
        assert_eq!(disk.count, Some(100));
        assert_eq!(disk.per_second, Some(50.0));
        let p50 = disk.p50_us.unwrap_or_default();
        assert!((4194.0..=5000.0).contains(&p50), "{p50}");
        assert_eq!(disk.max_us, Some(5000.0));
        let zram = &l.tiers[1];
        assert_eq!(zram.count, None);
        assert_eq!(zram.p50_us, None);
        assert_eq!(zram.reason.as_deref(), Some("no probe"));
    }

    /// The store side takes its deltas as the swap-ins do, tier by tier, and an unknown store
    /// tier keeps its reason.
    #[test]
    fn stores_are_deltas_of_their_own_counters() {
        let mut prev = sample(10, vec![]);
        prev.swapin.stores = vec![
            tier("zswap", Some(counts(13, 1000, 20_000))),
            tier("disk", None),
        ];
        let mut curr = sample(14, vec![]);
        curr.swapin.stores = vec![
            tier("zswap", Some(counts(13, 1400, 20_000))),
            tier("disk", None),
        ];
        let l = SwapinLatency::derive(&curr, Some(&prev));
        assert_eq!(l.stores.len(), 2);
        assert_eq!(l.stores[0].tier, "zswap");
        assert_eq!(l.stores[0].count, Some(400));
        assert_eq!(l.stores[0].per_second, Some(100.0));
        let p50 = l.stores[0].p50_us.unwrap_or_default();
        assert!((10.24..=12.288).contains(&p50), "{p50}");
        assert_eq!(l.stores[1].count, None);
        assert_eq!(l.stores[1].reason.as_deref(), Some("no probe"));
        assert_eq!(store_totals(&curr)[0].buckets[13], 1400);
        assert_eq!(store_totals(&curr).len(), 1, "no series of an unknown tier");
    }

    #[test]
    fn an_idle_interval_counts_zero_with_null_percentiles() {
        let prev = sample(10, vec![tier("zswap", Some(counts(3, 5, 9000)))]);
        let curr = sample(11, vec![tier("zswap", Some(counts(3, 5, 9000)))]);
        let t = &SwapinLatency::derive(&curr, Some(&prev)).tiers[0];
        assert_eq!((t.count, t.p50_us, t.max_us), (Some(0), None, None));
    }

    /// `--once -i N`: the first sample came while the programs loaded; the interval runs from
    /// the load, where the counters started from zero.
    #[test]
    fn a_load_after_the_sample_before_counts_from_zero_since_the_load() {
        let mut prev = sample(10, vec![]);
        prev.swapin = SwapinSample::unavailable(bpf::LOADING);
        let mut curr = sample(12, vec![tier("disk", Some(counts(48, 100, 5_000_000)))]);
        curr.swapin.loaded_ns = 11_000_000_000;
        let l = SwapinLatency::derive(&curr, Some(&prev));
        assert!(l.available, "{:?}", l.reason);
        assert_eq!(l.tiers[0].count, Some(100));
        assert_eq!(l.tiers[0].per_second, Some(100.0));
        assert_eq!(l.tiers[0].max_us, Some(5000.0));
    }

    #[test]
    fn a_new_load_or_one_sample_is_unavailable_with_its_reason() {
        let prev = sample(10, vec![]);
        let mut curr = sample(11, vec![]);
        curr.swapin.loaded_ns = 8;
        let l = SwapinLatency::derive(&curr, Some(&prev));
        assert!(!l.available && l.reason.is_some());
        assert!(!SwapinLatency::derive(&curr, None).available);
        curr.swapin = SwapinSample::unavailable("the kernel refuses");
        let l = SwapinLatency::derive(&curr, Some(&prev));
        assert_eq!(l.reason.as_deref(), Some("the kernel refuses"));
        assert!(!l.running, "a refusal is not running");
        curr.swapin = SwapinSample::unavailable(bpf::LOADING);
        let l = SwapinLatency::derive(&curr, Some(&prev));
        assert!(l.running && !l.available, "loading is on its way: {l:?}");
    }
}
