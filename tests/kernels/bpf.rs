//! Swap-in latency by tier in the guest (`scenario-bpf.sh`): each moment's `swapin_latency`
//! against the kernel's counters over the read and against the throttled disk's known rate.
//!
//! - bpf-disk: the disk tier's median within ±30 % of 5 ms (the disk is throttled to 200
//!   requests a second and `vm.page-cluster=0` makes each fault one read);
//! - bpf-zswap, bpf-zram: their tier's median at least 10× below the disk's;
//! - counts: zswap against Δzswpin, disk and zram against Δpswpin, zero (6.12+) against
//!   Δswpin_zero, each within 1 % (at least 1: the kernel counts a page-in now and then that is
//!   no fault of the workload's, see the research note).
//!
//! The table of every tier and the programs' own cost (kernel.bpf_stats_enabled: run time per
//! run, per swap-in) are printed as notes for the closing report.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::rep;

/// 1 / 200 requests a second (kernel-matrix.sh: `throttling.iops-total=200`), in µs.
const DISK_US: f64 = 5000.0;

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

fn vmstat(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok())?
    })
}

struct Moment {
    name: String,
    json: Option<Value>,
    before: String,
    after: String,
    stats: String,
}

impl Moment {
    fn read(dir: &Path, name: &str) -> Option<Moment> {
        let d = dir.join(name);
        d.is_dir().then(|| Moment {
            name: name.to_string(),
            json: serde_json::from_str(&read(&d.join("once.json"))).ok(),
            before: read(&d.join("vmstat.before")),
            after: read(&d.join("vmstat.after")),
            stats: read(&d.join("stats")),
        })
    }

    fn delta(&self, key: &str) -> Option<u64> {
        Some(vmstat(&self.after, key)?.saturating_sub(vmstat(&self.before, key)?))
    }

    fn latency(&self) -> Option<&Value> {
        self.json.as_ref().map(|j| &j["swapin_latency"])
    }

    fn tier(&self, tier: &str) -> Option<&Value> {
        self.latency()?["tiers"]
            .as_array()?
            .iter()
            .find(|t| t["tier"] == tier)
    }

    fn count(&self, tier: &str) -> Option<u64> {
        self.tier(tier)?["count"].as_u64()
    }

    fn p50(&self, tier: &str) -> Option<f64> {
        self.tier(tier)?["p50_us"].as_f64()
    }

    /// The programs' kernel-timed run time and runs, summed over every program.
    fn cost(&self) -> (u64, u64) {
        let mut ns = 0;
        let mut runs = 0;
        for line in self.stats.lines() {
            let mut it = line.split_whitespace();
            while let (Some(k), Some(v)) = (it.next(), it.next()) {
                let v: u64 = v.parse().unwrap_or(0);
                match k.trim_end_matches(':') {
                    "run_time_ns" => ns += v,
                    "run_cnt" => runs += v,
                    _ => {}
                }
            }
        }
        (ns, runs)
    }

    fn available(&self, kernel: &str) -> bool {
        let l = self.latency();
        let ok = l.is_some_and(|l| l["available"] == true);
        let why = l
            .and_then(|l| l["reason"].as_str())
            .unwrap_or("no once.json")
            .to_string();
        rep().check(
            &format!("{kernel} {}: swapin_latency.available", self.name),
            ok,
            if ok { "true" } else { &why },
            "true",
        );
        ok
    }

    /// `tier`'s count against the kernel's counter over the read, within 1 % (at least 1).
    fn counts(&self, kernel: &str, tier: &str, counter: &str) {
        let (Some(seen), Some(want)) = (self.count(tier), self.delta(counter)) else {
            rep().check(
                &format!("{kernel} {}: {tier} count vs Δ{counter}", self.name),
                false,
                &format!("{:?} vs {:?}", self.count(tier), self.delta(counter)),
                "both",
            );
            return;
        };
        let slack = (want / 100).max(1);
        rep().check(
            &format!("{kernel} {}: {tier} count vs Δ{counter} ±1 %", self.name),
            seen.abs_diff(want) <= slack,
            &seen.to_string(),
            &format!("{want} ±{slack}"),
        );
    }

    fn table(&self) -> String {
        let mut s = format!("{}:", self.name);
        if let Some(tiers) = self.latency().and_then(|l| l["tiers"].as_array()) {
            for t in tiers {
                let f = |k: &str| t[k].as_f64().map_or("-".into(), |v| format!("{v:.1}"));
                s.push_str(&format!(
                    "\n  {:<9} count {:>6} p50 {:>8} p90 {:>8} p99 {:>8} max {:>9} µs",
                    t["tier"].as_str().unwrap_or("?"),
                    t["count"].as_u64().map_or("-".into(), |c| c.to_string()),
                    f("p50_us"),
                    f("p90_us"),
                    f("p99_us"),
                    f("max_us"),
                ));
            }
        }
        let (ns, runs) = self.cost();
        let faults = self.delta("pgmajfault").unwrap_or(0) + self.count("swapcache").unwrap_or(0);
        if runs > 0 {
            s.push_str(&format!(
                "\n  programs: {runs} runs, {:.0} ns a run, {:.1} µs per swap-in ({faults} faults) [TCG]",
                ns as f64 / runs as f64,
                ns as f64 / faults.max(1) as f64 / 1000.0
            ));
        }
        let kernel_counts = ["pswpin", "zswpin", "swpin_zero", "pgmajfault"]
            .iter()
            .map(|k| {
                format!(
                    "{k} {}",
                    self.delta(k).map_or("-".into(), |v| v.to_string())
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        s.push_str(&format!("\n  kernel over the read: {kernel_counts}"));
        s
    }
}

pub fn check(kernel: &str, res: &Path) {
    let facts = read(&res.join("facts"));
    if facts.lines().any(|l| l == "bpf no-btf") {
        rep().skip(
            &format!("{kernel}: swap-in latency (BPF)"),
            "the kernel has no BTF (/sys/kernel/btf/vmlinux): no fentry program can load there",
        );
        return;
    }
    if !facts.lines().any(|l| l == "bpf yes") {
        rep().skip(
            &format!("{kernel}: swap-in latency (BPF)"),
            "scenario-bpf.sh did not run (QUICK=1, or an older initramfs)",
        );
        return;
    }
    rep().phase(&format!("{kernel}: swap-in latency by tier (BPF)"));
    let dir = res.join("bpf");
    let zswap = Moment::read(&dir, "bpf-zswap");
    let disk = Moment::read(&dir, "bpf-disk");
    let zram = Moment::read(&dir, "bpf-zram");
    for m in [&zswap, &disk, &zram].into_iter().flatten() {
        rep().note(&m.table());
    }
    let disk_p50 = disk.as_ref().filter(|d| d.available(kernel)).and_then(|d| {
        d.counts(kernel, "disk", "pswpin");
        let p50 = d.p50("disk");
        rep().check(
            &format!("{kernel} bpf-disk: disk p50 within ±30 % of 5 ms"),
            p50.is_some_and(|p| (p - DISK_US).abs() <= 0.3 * DISK_US),
            &format!("{p50:?} µs"),
            "3500..6500 µs",
        );
        p50
    });
    if disk.is_none() {
        rep().skip(
            &format!("{kernel} bpf-disk"),
            "no /dev/vdc (the throttled disk) in this guest",
        );
    }
    let tenfold = |m: &Moment, tier: &str| {
        let p50 = m.p50(tier);
        rep().check(
            &format!("{kernel} {}: {tier} p50 ≥ 10× below the disk's", m.name),
            matches!((p50, disk_p50), (Some(p), Some(d)) if p * 10.0 <= d),
            &format!("{p50:?} vs {disk_p50:?} µs"),
            "≤ disk / 10",
        );
    };
    match &zswap {
        Some(z) if z.available(kernel) => {
            z.counts(kernel, "zswap", "zswpin");
            tenfold(z, "zswap");
            if z.delta("swpin_zero").is_some() {
                z.counts(kernel, "zero", "swpin_zero");
            }
        }
        Some(_) => {}
        None => {
            rep().check(&format!("{kernel} bpf-zswap ran"), false, "no", "yes");
        }
    }
    match &zram {
        Some(z) if z.available(kernel) => {
            z.counts(kernel, "zram", "pswpin");
            tenfold(z, "zram");
        }
        Some(_) => {}
        None => rep().skip(&format!("{kernel} bpf-zram"), "no zram in this guest"),
    }
}
