//! What the swap-in latency (`model::swapin`, from the BPF programs) says about zswap's refusals.

use super::{finding, zswap_param_fix};
use crate::diagnostics::Ctx;
use crate::diagnostics::thresholds as t;
use crate::display as f;
use crate::model::swapin::TierLatency;
use crate::model::{Finding, Severity};

/// The counters of zswap's refusals (debugfs), and what each says.
const REFUSALS: &[(&str, &str)] = &[
    ("pool_limit_hit", "the pool at its limit"),
    ("reject_compress_poor", "pages compressing too poorly"),
    ("reject_reclaim_fail", "writeback failing to make room"),
    ("reject_alloc_fail", "the allocator out of memory"),
    ("reject_kmemcache_fail", "no memory for an entry"),
    ("reject_compress_fail", "the compressor failing"),
];

fn tier<'a>(c: &'a Ctx, name: &str) -> Option<&'a TierLatency> {
    let l = &c.snap.swapin_latency;
    l.available
        .then(|| l.tiers.iter().find(|t| t.tier == name))
        .flatten()
}

// --- disk-swapin-wait ------------------------------------------------------------------------

/// Disk swap-ins wait long (median ≥ 1 ms over ≥ 20 of them) while zswap refuses stores over
/// the same interval: the pages it refused are the ones coming back from the disk.
pub(crate) fn disk_swapin_wait(c: &Ctx) -> Option<Finding> {
    if !c.zswap_on() {
        return None;
    }
    let disk = tier(c, "disk")?;
    let (count, p50) = (disk.count?, disk.p50_us?);
    if count < t::DISK_SWAPIN_MIN_COUNT || p50 < t::DISK_SWAPIN_WAIT_P50_US {
        return None;
    }
    let dt = c.snap.rates.as_ref()?.interval_seconds;
    let refused: Vec<String> = REFUSALS
        .iter()
        .filter_map(|&(key, what)| {
            let rate = c.debugfs_rate(key).filter(|&r| r > 0.0)?;
            Some(format!(
                "{key} rose by {:.0} over {dt:.1}s ({what})",
                rate * dt
            ))
        })
        .collect();
    if refused.is_empty() {
        return None;
    }
    let mut ev = vec![format!(
        "disk swap-ins over {dt:.1}s: {count} ({}), median {}, p99 {}, max {}",
        f::per_sec(disk.per_second),
        f::time_us(p50),
        disk.p99_us.map_or(f::MISSING.to_string(), f::time_us),
        disk.max_us.map_or(f::MISSING.to_string(), f::time_us)
    )];
    let zswap_p50 = tier(c, "zswap").and_then(|z| z.p50_us.filter(|_| z.count > Some(0)));
    match zswap_p50 {
        Some(z) => ev.push(format!(
            "zswap loads over the same interval: median {} ({:.0}× faster)",
            f::time_us(z),
            p50 / z.max(1.0)
        )),
        None => ev.push("no zswap load over the interval to compare with".to_string()),
    }
    ev.extend(refused.iter().cloned());
    if let Some(b) = c
        .snap
        .rates
        .as_ref()
        .and_then(|r| r.bypassed_zswap_bytes_per_sec)
        .filter(|&b| b > 0.0)
    {
        ev.push(format!(
            "written to swap without passing through zswap: {}",
            f::rate(Some(b))
        ));
    }
    let z = &c.snap.zswap;
    let limit = c.debugfs_rate("pool_limit_hit").is_some_and(|r| r > 0.0);
    let fix = if limit {
        let mut fix = match super::zswap::raised_pool_percent(c) {
            Some(n) => format!(
                "Let the pool hold more of what comes back: {}.",
                zswap_param_fix("max_pool_percent", &n.to_string(), &n.to_string())
            ),
            None => "The pool may already take half of RAM: what it refuses needs more RAM or a \
                     smaller working set."
                .to_string(),
        };
        if z.accept_threshold_percent.is_some_and(|a| a < 100) {
            fix.push_str(&format!(
                " And let it take pages again as soon as it has room after a limit hit: {}.",
                zswap_param_fix("accept_threshold_percent", "100", "100")
            ));
        }
        fix
    } else {
        "The refusals are not the pool's limit: see the reject counters above (`sudo grep -r . \
         /sys/kernel/debug/zswap`); pages that compress poorly belong on disk, and failures to \
         allocate or write back point at memory pressure (the `thrashing` and \
         `writeback-stalled` findings)."
            .to_string()
    };
    let sev = if limit {
        Severity::Warn
    } else {
        Severity::Info
    };
    Some(finding(
        "disk-swapin-wait",
        sev,
        format!(
            "disk swap-ins wait {} at the median while zswap refuses stores",
            f::time_us(p50)
        ),
        ev,
        fix,
        "A page zswap refuses goes to the swap device, and the process that touches it again \
         waits for a disk read instead of a decompression. The wait is measured per swap-in by \
         zswaptop's BPF programs over the same interval as the refusals.",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Snapshot;
    use crate::model::swapin::SwapinLatency;

    /// A captured tree and its `-t1`, `secs` apart (the zswap rules' tests' reader).
    fn pair(first: &str, secs: u64) -> Snapshot {
        super::super::zswap::tests::pair(first, &format!("{first}-t1"), secs)
    }

    fn tier(name: &str, count: u64, p50: f64) -> TierLatency {
        TierLatency {
            tier: name.into(),
            count: Some(count),
            per_second: Some(count as f64 / 10.0),
            p50_us: Some(p50),
            p90_us: Some(p50 * 1.2),
            p99_us: Some(p50 * 1.6),
            max_us: Some(p50 * 3.0),
            reason: None,
            buckets: Vec::new(),
        }
    }

    /// The guests' figures: disk 4.7 ms at the median behind a 200-IOPS throttle, zswap 40 µs.
    fn measured(disk_count: u64, disk_p50: f64) -> SwapinLatency {
        SwapinLatency {
            available: true,
            reason: None,
            probes: Some("fentry".into()),
            tiers: vec![
                tier("zswap", 3283, 40.0),
                tier("zram", 0, 0.0),
                tier("disk", disk_count, disk_p50),
            ],
            stores: Vec::new(),
            running: true,
        }
    }

    fn run(snap: &Snapshot) -> Option<Finding> {
        disk_swapin_wait(&Ctx {
            snap,
            t: &crate::diagnostics::thresholds::Thresholds::default(),
        })
    }

    /// The captured pair where the pool hit its limit 6 times in 10 s (writeback flowing), with
    /// the disk's swap-ins slow: a warning that quotes both and raises the pool.
    #[test]
    fn fires_when_disk_swapins_wait_while_the_pool_refuses() {
        let mut snap = pair("linux-6.18-writeback-flowing", 10);
        snap.swapin_latency = measured(927, 4713.0);
        let f = run(&snap).expect("the rule fires");
        assert_eq!(f.severity, Severity::Warn);
        assert_eq!(f.id, "disk-swapin-wait");
        assert!(f.summary.contains("4.7ms"), "{}", f.summary);
        let ev = f.evidence.join("\n");
        for want in [
            "disk swap-ins over 10.0s: 927",
            "median 4.7ms, p99 7.5ms",
            "zswap loads over the same interval: median 40µs (118× faster)",
            "pool_limit_hit rose by 6 over 10.0s (the pool at its limit)",
        ] {
            assert!(ev.contains(want), "{want:?} not in:\n{ev}");
        }
        assert!(f.fix.contains("max_pool_percent"), "{}", f.fix);
        assert!(crate::diagnostics::RULE_IDS.contains(&f.id.as_str()));
        assert!(
            crate::diagnostics::evaluate(&snap, &Default::default())
                .iter()
                .any(|x| x.id == "disk-swapin-wait")
        );
    }

    /// Refusals that are not the limit (writeback failing: 7573 in the stalled pair) make it a
    /// remark pointing at the counters, not a pool to raise.
    #[test]
    fn other_refusals_are_a_remark() {
        let mut snap = pair("linux-6.18-writeback-stalled", 10);
        snap.swapin_latency = measured(500, 8000.0);
        let f = run(&snap).expect("the rule fires");
        assert_eq!(f.severity, Severity::Info);
        assert!(
            f.evidence
                .join("\n")
                .contains("reject_reclaim_fail rose by 7573"),
            "{:?}",
            f.evidence
        );
        assert!(!f.fix.contains("max_pool_percent ="), "{}", f.fix);
    }

    /// Quiet where the disk is fast, where too few swap-ins make a median, where nothing was
    /// measured, and where zswap refused nothing.
    #[test]
    fn quiet_otherwise() {
        let mut snap = pair("linux-6.18-writeback-flowing", 10);
        snap.swapin_latency = measured(927, 300.0);
        assert!(run(&snap).is_none(), "a 0.3 ms disk");
        snap.swapin_latency = measured(t::DISK_SWAPIN_MIN_COUNT - 1, 4713.0);
        assert!(run(&snap).is_none(), "too few swap-ins");
        snap.swapin_latency = SwapinLatency {
            available: false,
            reason: Some("the kernel refuses the programs".into()),
            probes: None,
            tiers: Vec::new(),
            stores: Vec::new(),
            running: false,
        };
        assert!(run(&snap).is_none(), "not measured");
        let mut calm = pair("regress-pool-near-limit", 10);
        calm.swapin_latency = measured(927, 4713.0);
        assert!(run(&calm).is_none(), "no refusal over the interval");
    }
}
