//! The rates section: per-second rates over the interval between two samples, and the
//! counter arithmetic behind them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::sources::Sample;

/// Per-second rates over one interval. Page counters are given in bytes per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    pub interval_seconds: f64,
    pub zswpout_bytes_per_sec: Option<f64>,
    pub zswpin_bytes_per_sec: Option<f64>,
    pub zswpwb_bytes_per_sec: Option<f64>,
    pub pswpout_bytes_per_sec: Option<f64>,
    pub pswpin_bytes_per_sec: Option<f64>,
    pub swpout_zero_bytes_per_sec: Option<f64>,
    pub swpin_zero_bytes_per_sec: Option<f64>,
    /// Pages written to a swap device without passing through zswap: Δpswpout − Δzswpwb.
    pub bypassed_zswap_bytes_per_sec: Option<f64>,
    /// debugfs event counters per second (pool_limit_hit, reject_*, written_back_pages in pages).
    pub debugfs_per_sec: BTreeMap<String, f64>,
    /// Every counter of the metric catalogue by id, per second in its own unit (pages,
    /// events, microseconds); a counter missing from either sample is left out.
    #[serde(default)]
    pub per_sec: BTreeMap<String, f64>,
    /// Share of wall time with some / all tasks stalled on memory over the interval (0–100).
    pub psi_some_percent: Option<f64>,
    pub psi_full_percent: Option<f64>,
}

/// `(curr − prev) ÷ dt`, or `None` when either side is unknown, `dt` is not positive, or the
/// counter went backwards (a reset: module reload, device re-created, cgroup restarted).
pub fn counter_rate(prev: Option<u64>, curr: Option<u64>, dt_secs: f64) -> Option<f64> {
    let (p, c) = (prev?, curr?);
    if dt_secs.is_nan() || dt_secs <= 0.0 || !dt_secs.is_finite() || c < p {
        return None;
    }
    Some((c - p) as f64 / dt_secs)
}

/// The raw delta with the same reset rule.
pub fn counter_delta(prev: Option<u64>, curr: Option<u64>) -> Option<u64> {
    let (p, c) = (prev?, curr?);
    c.checked_sub(p)
}

/// Rates between `prev` and `curr`; `None` when time did not move forward.
pub fn derive(prev: &Sample, curr: &Sample) -> Option<Rates> {
    let dt = curr.monotonic_ns.checked_sub(prev.monotonic_ns)? as f64 / 1e9;
    if dt.is_nan() || dt <= 0.0 {
        return None;
    }
    let ps = curr.host.page_size.bytes as f64;
    let pv = prev.vmstat.as_ref().ok();
    let cv = curr.vmstat.as_ref().ok();
    let vm_rate = |f: fn(&crate::sources::vmstat::VmstatSample) -> Option<u64>| {
        counter_rate(pv.and_then(f), cv.and_then(f), dt).map(|r| r * ps)
    };
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
    let mut debugfs_per_sec = BTreeMap::new();
    if let (Ok(p), Ok(c)) = (&prev.zswap_debugfs, &curr.zswap_debugfs) {
        for (k, &v) in &c.values {
            // Gauges are not rates.
            if super::metrics::debugfs_is_gauge(k) {
                continue;
            }
            if let Some(r) = counter_rate(p.values.get(k).copied(), Some(v), dt) {
                debugfs_per_sec.insert(k.clone(), r);
            }
        }
    }
    let psi_pct = |f: fn(&crate::sources::psi::PsiSample) -> u64| {
        let (p, c) = (prev.psi.as_ref().ok()?, curr.psi.as_ref().ok()?);
        counter_rate(Some(f(p)), Some(f(c)), dt).map(|us_per_s| (us_per_s / 1e4).min(100.0))
    };
    Some(Rates {
        interval_seconds: dt,
        zswpout_bytes_per_sec: vm_rate(|v| v.zswpout),
        zswpin_bytes_per_sec: vm_rate(|v| v.zswpin),
        zswpwb_bytes_per_sec: vm_rate(|v| v.zswpwb),
        pswpout_bytes_per_sec: vm_rate(|v| v.pswpout),
        pswpin_bytes_per_sec: vm_rate(|v| v.pswpin),
        swpout_zero_bytes_per_sec: vm_rate(|v| v.swpout_zero),
        swpin_zero_bytes_per_sec: vm_rate(|v| v.swpin_zero),
        bypassed_zswap_bytes_per_sec: bypass,
        debugfs_per_sec,
        per_sec: super::metrics::counter_rates(prev, curr, dt),
        psi_some_percent: psi_pct(|p| p.some.total_us),
        psi_full_percent: psi_pct(|p| p.full.total_us),
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
}
