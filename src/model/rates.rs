//! The rates section: per-second rates over the interval between two samples, and the
//! counter arithmetic behind them. Which counters get a rate is the registry's to say
//! ([`super::metrics`]: those read off the raw sample); this module only takes their rates.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::metrics::{self, Output};
use crate::sanitize::Sanitize;
use crate::sources::Sample;
use crate::sources::zswap::DebugfsMap;

/// Per-second rates over one interval. Page counters are given in bytes per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct Rates {
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub interval_seconds: f64,
    #[schemars(range(min = 0))]
    pub zswpout_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub zswpin_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub zswpwb_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub pswpout_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub pswpin_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub swpout_zero_bytes_per_sec: Option<f64>,
    #[schemars(range(min = 0))]
    pub swpin_zero_bytes_per_sec: Option<f64>,
    /// Pages written to a swap device without passing through zswap: Δpswpout − Δzswpwb.
    #[schemars(range(min = 0))]
    pub bypassed_zswap_bytes_per_sec: Option<f64>,
    /// debugfs event counters per second (pool_limit_hit, reject_*, written_back_pages in pages).
    #[schemars(extend("additionalProperties" = { "type": "number", "minimum": 0 }))]
    pub debugfs_per_sec: DebugfsMap<f64>,
    /// Every counter of the registry read off the raw sample, by id, per second in its own
    /// unit (pages, events, microseconds); a counter missing from either sample is left out.
    #[serde(default)]
    #[schemars(extend("additionalProperties" = { "type": "number", "minimum": 0 }))]
    pub per_sec: BTreeMap<String, f64>,
    /// Share of wall time with some / all tasks stalled on memory over the interval (0–100).
    #[schemars(range(min = 0, max = 100))]
    pub psi_some_percent: Option<f64>,
    #[schemars(range(min = 0, max = 100))]
    pub psi_full_percent: Option<f64>,
}

/// `(curr − prev) ÷ dt`, or `None` when either side is unknown, `dt` is not positive, or the
/// counter went backwards (a reset: module reload, device re-created, cgroup restarted).
pub(crate) fn counter_rate(prev: Option<u64>, curr: Option<u64>, dt_secs: f64) -> Option<f64> {
    let (p, c) = (prev?, curr?);
    if dt_secs.is_nan() || dt_secs <= 0.0 || !dt_secs.is_finite() || c < p {
        return None;
    }
    Some((c - p) as f64 / dt_secs)
}

/// The raw delta with the same reset rule.
pub(crate) fn counter_delta(prev: Option<u64>, curr: Option<u64>) -> Option<u64> {
    let (p, c) = (prev?, curr?);
    c.checked_sub(p)
}

/// Each registry counter's per-second rate between two samples `dt` seconds apart, keyed by id.
pub(crate) fn counter_rates(prev: &Sample, curr: &Sample, dt: f64) -> BTreeMap<String, f64> {
    metrics::reaching(Output::Rate)
        .filter_map(|m| {
            let r = counter_rate(m.total_in_sample(prev), m.total_in_sample(curr), dt)?;
            Some((m.id.to_string(), r))
        })
        .collect()
}

/// Rates between `prev` and `curr`; `None` when time did not move forward.
pub(crate) fn derive(prev: &Sample, curr: &Sample) -> Option<Rates> {
    let dt = curr.monotonic_ns.checked_sub(prev.monotonic_ns)? as f64 / 1e9;
    if dt.is_nan() || dt <= 0.0 {
        return None;
    }
    let ps = curr.host.page_size.bytes as f64;
    let pv = prev.vmstat.as_ref().ok();
    let cv = curr.vmstat.as_ref().ok();
    // The registry's counters, each once; the named fields below are views of them.
    let per_sec = counter_rates(prev, curr, dt);
    let bytes = |id: &str| per_sec.get(id).map(|pages| pages * ps);
    // Microseconds stalled per second, as a share of the second.
    let stalled = |id: &str| per_sec.get(id).map(|us| (us / 1e4).min(100.0));
    let bypass = match (pv, cv) {
        (Some(p), Some(c)) => {
            let out = counter_delta(p.pswpout, c.pswpout);
            // Without zswpwb (kernels before 6.8) writeback can't be told apart: unknown.
            let wb = counter_delta(p.zswpwb, c.zswpwb);
            match (out, wb) {
                (Some(o), Some(w)) => Some(o.saturating_sub(w) as f64 * ps / dt),
                _ => None,
            }
        }
        _ => None,
    };
    let mut debugfs_per_sec = DebugfsMap::default();
    if let (Ok(p), Ok(c)) = (&prev.zswap_debugfs, &curr.zswap_debugfs) {
        for (k, &v) in c.values.iter() {
            // Gauges are not rates.
            if metrics::debugfs_is_gauge(k) {
                continue;
            }
            if let Some(r) = counter_rate(p.values.get(k).copied(), Some(v), dt) {
                debugfs_per_sec.insert(k, r);
            }
        }
    }
    Some(Rates {
        interval_seconds: dt,
        zswpout_bytes_per_sec: bytes("zswpout"),
        zswpin_bytes_per_sec: bytes("zswpin"),
        zswpwb_bytes_per_sec: bytes("zswpwb"),
        pswpout_bytes_per_sec: bytes("pswpout"),
        pswpin_bytes_per_sec: bytes("pswpin"),
        swpout_zero_bytes_per_sec: bytes("swpout_zero"),
        swpin_zero_bytes_per_sec: bytes("swpin_zero"),
        bypassed_zswap_bytes_per_sec: bypass,
        debugfs_per_sec,
        psi_some_percent: stalled("psi_some_stalled"),
        psi_full_percent: stalled("psi_full_stalled"),
        per_sec,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_and_resets() {
        assert_eq!(counter_rate(Some(10), Some(30), 2.0), Some(10.0));
        assert_eq!(
            counter_rate(Some(30), Some(10), 2.0),
            None,
            "a reset is not a negative rate"
        );
        assert_eq!(counter_rate(None, Some(10), 2.0), None);
        assert_eq!(counter_rate(Some(1), Some(2), 0.0), None);
        assert_eq!(counter_rate(Some(1), Some(2), f64::NAN), None);
        assert_eq!(counter_delta(Some(5), Some(4)), None);
        assert_eq!(counter_delta(Some(4), Some(5)), Some(1));
    }

    /// Two reads of a fixture tree 2 s apart, the second with every counter moved on.
    fn pair() -> (Sample, Sample) {
        let root = crate::root::Root::at(format!(
            "{}/tests/fixtures/linux-6.18-loaded",
            env!("CARGO_MANIFEST_DIR")
        ));
        let mut a = crate::sources::collect(&root);
        a.monotonic_ns = 10_000_000_000;
        let mut b = a.clone();
        b.monotonic_ns = 12_000_000_000;
        if let Ok(v) = b.vmstat.as_mut() {
            for c in [
                &mut v.zswpout,
                &mut v.zswpin,
                &mut v.zswpwb,
                &mut v.pswpout,
                &mut v.pswpin,
                &mut v.swpout_zero,
                &mut v.swpin_zero,
            ] {
                *c = c.map(|n| n + 100);
            }
        }
        if let Ok(p) = b.psi.as_mut() {
            p.some.total_us += 500_000;
            p.full.total_us += 3_000_000;
        }
        (a, b)
    }

    #[test]
    fn named_rates_come_from_the_registry_counters() {
        let (a, b) = pair();
        let r = derive(&a, &b).unwrap();
        let ps = b.host.page_size.bytes as f64;
        let each = 100.0 / 2.0 * ps;
        for v in [
            r.zswpout_bytes_per_sec,
            r.zswpin_bytes_per_sec,
            r.zswpwb_bytes_per_sec,
            r.pswpout_bytes_per_sec,
            r.pswpin_bytes_per_sec,
            r.swpout_zero_bytes_per_sec,
            r.swpin_zero_bytes_per_sec,
        ] {
            assert_eq!(v, Some(each));
        }
        assert_eq!(r.per_sec.get("zswpout"), Some(&50.0), "pages per second");
        // 0.5 s of 2 s stalled: 25%; 3 s of 2 s is capped at 100%.
        assert_eq!(r.psi_some_percent, Some(25.0));
        assert_eq!(r.psi_full_percent, Some(100.0));
        assert_eq!(r.bypassed_zswap_bytes_per_sec, Some(0.0));
    }
}
