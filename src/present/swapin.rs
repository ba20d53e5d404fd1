//! Swap-in latency by tier (`model::swapin`), worded once for the text report, `--watch` and
//! the dashboard: each tier's median and 99th percentile with its swap-ins a second, or why
//! there are none.

use super::{Depth, Fact, Tone};
use crate::model::Snapshot;
use crate::model::swapin::TierLatency;

pub use crate::display::time_us;

/// One tier: `zswap p50 41µs p99 560µs 1094/s`, `disk none`, or `zram unknown (why)`.
pub fn tier(t: &TierLatency) -> String {
    match (t.count, &t.reason) {
        (None, Some(why)) => format!("{} unknown ({why})", t.tier),
        (None, None) => format!("{} unknown", t.tier),
        (Some(0), _) => format!("{} none", t.tier),
        (Some(n), _) => {
            let p = |v: Option<f64>| v.map_or_else(|| "-".into(), time_us);
            let rate = t
                .per_second
                .map_or_else(|| format!("{n}"), |r| format!("{r:.0}/s"));
            format!(
                "{} p50 {} p99 {} max {} {rate}",
                t.tier,
                p(t.p50_us),
                p(t.p99_us),
                p(t.max_us)
            )
        }
    }
}

/// The section's one line: every tier, or why nothing is measured.
pub fn line(s: &Snapshot) -> String {
    let l = &s.swapin_latency;
    if !l.available {
        return format!(
            "unavailable: {}",
            l.reason.as_deref().unwrap_or("no reason given")
        );
    }
    l.tiers.iter().map(tier).collect::<Vec<_>>().join(" · ")
}

/// The dashboard's outlook line, where the programs measured the interval: each tier that
/// served swap-ins with its median and 99th percentile (`swap-in wait p50/p99: zswap
/// 41µs/560µs, disk 4.7ms/16.1ms`). The one screen and the full report have their own line.
pub fn fact(s: &Snapshot) -> Option<Fact> {
    let l = &s.swapin_latency;
    if !l.available {
        return None;
    }
    let busy: Vec<&TierLatency> = l
        .tiers
        .iter()
        .filter(|t| t.count.unwrap_or(0) > 0)
        .collect();
    let p = |v: Option<f64>| v.map_or_else(|| "-".into(), time_us);
    let each = |f: &dyn Fn(&TierLatency) -> String| {
        if busy.is_empty() {
            "no swap-ins".to_string()
        } else {
            busy.iter().map(|t| f(t)).collect::<Vec<_>>().join(", ")
        }
    };
    let long = format!(
        "swap-in wait p50/p99: {}",
        each(&|t| format!("{} {}/{}", t.tier, p(t.p50_us), p(t.p99_us)))
    );
    let short = format!(
        "wait p99: {}",
        each(&|t| format!("{} {}", t.tier, p(t.p99_us)))
    );
    Some(Fact {
        key: "outlook.swapin_latency",
        label: "swap-in wait",
        value: short.clone(),
        value_short: short.clone(),
        long,
        tight: short.clone(),
        short,
        tone: Tone::Ok,
        depths: &[Depth::Dashboard],
    })
}

/// A tier's 99th percentile in µs (for `--watch`), `None` where unknown or idle.
pub fn p99_us(s: &Snapshot, tier: &str) -> Option<f64> {
    s.swapin_latency
        .tiers
        .iter()
        .find(|t| t.tier == tier)
        .and_then(|t| t.p99_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_in_their_unit() {
        assert_eq!(time_us(41.4), "41µs");
        assert_eq!(time_us(4744.0), "4.7ms");
        assert_eq!(time_us(1_200_000.0), "1.20s");
    }
}
