//! Swap-in latency by tier in the guest (`scenario-bpf.sh`): each moment's `swapin_latency`
//! against the kernel's counters over the read and against the throttled disk's known rate.
//!
//! - bpf-disk: the disk tier's median within ±30 % of 5 ms (the disk is throttled to 200
//!   requests a second and `vm.page-cluster=0` makes each fault one read);
//! - bpf-zswap, bpf-zram: their tier's median at least 10× below the disk's;
//! - counts: zswap against Δzswpin, disk and zram against Δpswpin, zero (6.12+) against
//!   Δswpin_zero, each within 1 % (at least 1: the kernel counts a page-in now and then that is
//!   no fault of the workload's, see the research note);
//! - bpf-cache (swap readahead on): the swap-cache tier against Δswap_ra_hit (each page the
//!   readahead brought is touched once), and the faults that read (zswap and zero) against
//!   Δpgmajfault, within 1 %.
//!
//! - the store side (bpf-store-zswap, bpf-store-disk, bpf-store-zram: a page-out with the
//!   programs loaded): zswap's stores against Δzswpout, zram's and the disk's writes against
//!   Δpswpout, within 1 % (at least 1); the kprobe fallback says why it times no store.
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
    prom: String,
    /// Why the moment's interval did not cover what it measured (bpf_store's `late`).
    late: String,
    /// How the guest ran: "TCG" or "KVM" (kernel-matrix.sh's OUT/accel).
    accel: &'static str,
}

/// How the guest whose results are in `bpf_dir` (OUT/results/bpf) ran: kernel-matrix.sh's
/// OUT/accel, "kvm" under `ZSWAPTOP_KERNELS_ACCEL=kvm`; a run from before that file was TCG.
fn accel(bpf_dir: &Path) -> &'static str {
    let file = bpf_dir
        .parent()
        .and_then(Path::parent)
        .map(|out| read(&out.join("accel")))
        .unwrap_or_default();
    if file.trim() == "kvm" { "KVM" } else { "TCG" }
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
            prom: read(&d.join("prom.txt")),
            late: read(&d.join("late")),
            accel: accel(dir),
        })
    }

    fn delta(&self, key: &str) -> Option<u64> {
        Some(vmstat(&self.after, key)?.saturating_sub(vmstat(&self.before, key)?))
    }

    fn latency(&self) -> Option<&Value> {
        self.json.as_ref().map(|j| &j["swapin_latency"])
    }

    fn tier(&self, tier: &str) -> Option<&Value> {
        self.side("tiers", tier)
    }

    /// A tier of `tiers` (swap-ins) or `stores`.
    fn side(&self, side: &str, tier: &str) -> Option<&Value> {
        self.latency()?[side]
            .as_array()?
            .iter()
            .find(|t| t["tier"] == tier)
    }

    fn count(&self, tier: &str) -> Option<u64> {
        self.tier(tier)?["count"].as_u64()
    }

    /// The store side's `tier` against the kernel's counter over the page-out, within 1 % (at
    /// least 1). `least`: the pages the moment must have stored there (its page-out's), so that
    /// a page-out that stored nothing does not pass as 0 = 0.
    fn store_counts(&self, kernel: &str, tier: &str, counter: &str, least: u64) {
        let seen = self.side("stores", tier).and_then(|t| t["count"].as_u64());
        let want = self.delta(counter);
        let name = format!("{kernel} {}: stores {tier} count vs Δ{counter}", self.name);
        if !self.late.is_empty() {
            rep().check(
                &name,
                false,
                self.late.trim(),
                "an interval over the page-out",
            );
            return;
        }
        if least > 0 {
            rep().check(
                &format!(
                    "{kernel} {}: Δ{counter} ≥ {least} (the page-out's)",
                    self.name
                ),
                want.is_some_and(|w| w >= least),
                &format!("{want:?}"),
                &format!("≥ {least}"),
            );
        }
        let (Some(seen), Some(want)) = (seen, want) else {
            let why = self
                .side("stores", tier)
                .and_then(|t| t["reason"].as_str())
                .unwrap_or("-");
            rep().check(
                &name,
                false,
                &format!("{seen:?} vs {want:?} ({why})"),
                "both",
            );
            return;
        };
        let slack = (want / 100).max(1);
        rep().check(
            &format!("{name} ±1 %"),
            seen.abs_diff(want) <= slack,
            &seen.to_string(),
            &format!("{want} ±{slack}"),
        );
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

    /// The faults of a swap-in moment: those that read a page and the swap-cache hits.
    fn faults(&self) -> u64 {
        self.delta("pgmajfault").unwrap_or(0) + self.count("swapcache").unwrap_or(0)
    }

    /// A sample of the exposition (prom.txt), by its whole name and labels.
    fn exposed(&self, series: &str) -> Option<f64> {
        self.prom.lines().find_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            (name == series).then(|| value.parse().ok())?
        })
    }

    /// /metrics' histogram over the same read: its zswap `_count` against Δzswpin (±1 %: its
    /// programs loaded before the read, so it counts the read and nothing else but stray
    /// faults), its `+Inf` bucket equal to `_count`, and its mean inside the JSON's p50..max.
    fn histogram(&self, kernel: &str) {
        let family = "zswaptop_swapin_latency_seconds";
        let count = self.exposed(&format!("{family}_count{{tier=\"zswap\"}}"));
        let inf = self.exposed(&format!("{family}_bucket{{tier=\"zswap\",le=\"+Inf\"}}"));
        let sum = self.exposed(&format!("{family}_sum{{tier=\"zswap\"}}"));
        let want = self.delta("zswpin").unwrap_or(0) as f64;
        let slack = (want / 100.0).max(1.0);
        rep().check(
            &format!(
                "{kernel} {}: /metrics zswap _count vs Δzswpin ±1 %",
                self.name
            ),
            count.is_some_and(|c| (c - want).abs() <= slack),
            &format!("{count:?}"),
            &format!("{want} ±{slack}"),
        );
        rep().check(
            &format!(
                "{kernel} {}: /metrics zswap le=\"+Inf\" = _count",
                self.name
            ),
            inf.is_some() && inf == count,
            &format!("{inf:?}"),
            &format!("{count:?}"),
        );
        let mean_us = match (sum, count) {
            (Some(s), Some(c)) if c > 0.0 => Some(s / c * 1e6),
            _ => None,
        };
        let p50 = self.p50("zswap");
        let max = self.tier("zswap").and_then(|t| t["max_us"].as_f64());
        rep().check(
            &format!(
                "{kernel} {}: /metrics zswap mean within the JSON's p50..max",
                self.name
            ),
            matches!((mean_us, p50, max), (Some(m), Some(p), Some(x)) if m >= p * 0.8 && m <= x),
            &format!("{mean_us:?} µs"),
            &format!("{p50:?}..{max:?}"),
        );
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

    /// Which set measured ("fentry" or "kprobes").
    fn probes(&self, kernel: &str, want: &str) {
        let seen = self
            .latency()
            .and_then(|l| l["probes"].as_str())
            .unwrap_or("none");
        rep().check(
            &format!("{kernel} {}: swapin_latency.probes", self.name),
            seen == want,
            seen,
            want,
        );
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
        let tiers = self.latency().and_then(|l| l["tiers"].as_array());
        let stores = self.latency().and_then(|l| l["stores"].as_array());
        let sides = [("", tiers), ("stored to ", stores)];
        for (side, list) in sides {
            let Some(list) = list else { continue };
            for t in list {
                let f = |k: &str| t[k].as_f64().map_or("-".into(), |v| format!("{v:.1}"));
                s.push_str(&format!(
                    "\n  {side}{:<9} count {:>6} p50 {:>8} p90 {:>8} p99 {:>8} max {:>9} µs",
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
        let faults = self.faults();
        if runs > 0 && self.name.starts_with("bpf-store") {
            // A page-out: the programs' time per page stored or written.
            let pages = self.delta("zswpout").unwrap_or(0) + self.delta("pswpout").unwrap_or(0);
            s.push_str(&format!(
                "\n  programs: {runs} runs, {:.0} ns a run, {:.1} µs per page stored ({pages} pages) [{}]",
                ns as f64 / runs as f64,
                ns as f64 / pages.max(1) as f64 / 1000.0,
                self.accel
            ));
        } else if runs > 0 {
            s.push_str(&format!(
                "\n  programs: {runs} runs, {:.0} ns a run, {:.1} µs per swap-in ({faults} faults) [{}]",
                ns as f64 / runs as f64,
                ns as f64 / faults.max(1) as f64 / 1000.0,
                self.accel
            ));
        }
        let kernel_counts = [
            "pswpin",
            "zswpin",
            "swpin_zero",
            "pgmajfault",
            "pswpout",
            "zswpout",
        ]
        .iter()
        .map(|k| {
            format!(
                "{k} {}",
                self.delta(k).map_or("-".into(), |v| v.to_string())
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
        s.push_str(&format!("\n  kernel over the moment: {kernel_counts}"));
        s
    }
}

/// The workload's median a page in each round of one set (`wl timed`: "timed n=N p50=NS ...").
fn rounds(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let field = |k: &str| {
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix(k)?.parse::<u64>().ok())
            };
            Some((field("n=")?, field("p50=")?))
        })
        .filter(|&(n, _)| n > 0)
        .collect()
}

/// bpf-cache: with swap readahead, the faults on pages it brought in are swap-cache hits (no
/// VM_FAULT_MAJOR: the programs' swapcache tier), one each: Δswap_ra_hit; the faults that read are
/// Δpgmajfault. Readahead must have happened (a tenth of the 4096 pages at least), or the check
/// would compare nothing.
fn cache_hits(kernel: &str, c: &Moment) {
    c.probes(kernel, "fentry");
    let hits = c.delta("swap_ra_hit").unwrap_or(0);
    rep().check(
        &format!("{kernel} bpf-cache: swap readahead brought pages (Δswap_ra_hit)"),
        hits >= 400,
        &hits.to_string(),
        "≥ 400",
    );
    c.counts(kernel, "swapcache", "swap_ra_hit");
    let read = ["zswap", "zero", "disk", "zram"]
        .iter()
        .map(|t| c.count(t).unwrap_or(0))
        .sum::<u64>();
    let major = c.delta("pgmajfault").unwrap_or(0);
    let slack = (major / 100).max(1);
    rep().check(
        &format!(
            "{kernel} bpf-cache: faults that read (zswap + zero + disk + zram) vs Δpgmajfault ±1 %"
        ),
        read.abs_diff(major) <= slack,
        &read.to_string(),
        &format!("{major} ±{slack}"),
    );
}

/// bpf-overhead: the workload's own median time a page (zswap hits, zero-filled pages left out)
/// with no programs, the floor (an empty fentry and fexit on do_swap_page, loaded by `wl floor`),
/// the fentry set and the kprobe set, three rounds each (nine under KVM: the guest's `rounds`),
/// each round in another order. Each set's figure is the median of its rounds (one slow round
/// does not move it). Under TCG the figures are a note for the closing report, not a check: a
/// round's median moves by ±15 % with the host's load, and an empty program pair alone costs
/// about the budget there. Under KVM (`ZSWAPTOP_KERNELS_ACCEL=kvm`) the budget is checked: the
/// fentry set's median within +2 % of none's.
fn overhead(kernel: &str, dir: &Path, facts: &str) {
    let d = dir.join("bpf-overhead");
    if !d.is_dir() {
        rep().skip(
            &format!("{kernel} bpf-overhead"),
            "scenario-bpf.sh did not run the overhead moment",
        );
        return;
    }
    let floor_status = read(&d.join("floor.status"));
    let floor_refused = floor_status
        .lines()
        .find(|l| l.starts_with("floor refused"));
    let sets: Vec<(&str, Vec<(u64, u64)>)> = ["none", "floor", "fentry", "kprobes"]
        .iter()
        .filter(|s| !(**s == "floor" && floor_refused.is_some()))
        .map(|s| (*s, rounds(&read(&d.join(s)))))
        .collect();
    let want: usize = read(&d.join("rounds")).trim().parse().unwrap_or(3);
    let ran = sets.iter().all(|(_, r)| r.len() == want);
    rep().check(
        &format!("{kernel} bpf-overhead: {want} timed rounds of each set"),
        ran,
        &sets
            .iter()
            .map(|(s, r)| format!("{s} {}", r.len()))
            .collect::<Vec<_>>()
            .join(", "),
        &format!("{want} each"),
    );
    let median = |r: &[(u64, u64)]| {
        let mut v: Vec<u64> = r.iter().map(|&(_, p)| p).collect();
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0) as f64
    };
    let base = median(&sets[0].1);
    let clock = facts
        .lines()
        .find_map(|l| l.strip_prefix("clocksource "))
        .unwrap_or("?");
    let accel = accel(dir);
    let mut note = format!(
        "bpf-overhead (the workload's median a page on zswap hits, the median of {want} rounds; budget: +2 %) [{accel}, clocksource {clock}]:"
    );
    if let Some(why) = floor_refused {
        note.push_str(&format!("\n  floor    not measured: {why}"));
    }
    for (s, r) in &sets {
        let m = median(r);
        let each = r
            .iter()
            .map(|&(_, p)| format!("{:.1}", p as f64 / 1000.0))
            .collect::<Vec<_>>()
            .join(" / ");
        note.push_str(&format!("\n  {s:<8} {:.1} µs ({each})", m / 1000.0));
        if *s != "none" && base > 0.0 {
            note.push_str(&format!(
                ", {:+.1} % against none",
                (m - base) / base * 100.0
            ));
        }
    }
    rep().note(&note);
    if accel == "KVM" {
        let fentry = sets
            .iter()
            .find(|(s, _)| *s == "fentry")
            .map(|(_, r)| median(r));
        rep().check(
            &format!(
                "{kernel} bpf-overhead: the fentry set's median zswap hit within +2 % of none's (KVM)"
            ),
            fentry.is_some_and(|f| base > 0.0 && f <= base * 1.02),
            &fentry.map_or("not measured".into(), |f| {
                format!(
                    "{:.2} µs ({:+.1} %)",
                    f / 1000.0,
                    (f - base) / base.max(1.0) * 100.0
                )
            }),
            &format!("≤ {:.2} µs (none {:.2} µs, +2 %)", base * 1.02 / 1000.0, base / 1000.0),
        );
    }
}

/// The programs' share of a core at 10,000 swap-ins a second, from the bpf-zswap moment's
/// kernel-timed run time per swap-in (kernel.bpf_stats_enabled, which adds its own two clock
/// reads a run: an upper bound): checked against 0.5 % under KVM, a note under TCG (where each
/// program run is emulated).
fn core_share(kernel: &str, m: &Moment) {
    let (ns, runs) = m.cost();
    let faults = m.faults();
    if runs == 0 || faults == 0 {
        rep().skip(
            &format!("{kernel} {}: the programs' share of a core", m.name),
            "no program run time (kernel.bpf_stats_enabled) or no fault in the moment",
        );
        return;
    }
    let per = ns as f64 / faults as f64;
    let share = per * 10_000.0 / 1e9 * 100.0;
    let what = format!("{per:.0} ns a swap-in: {share:.2} % of a core at 10,000 a second");
    if m.accel == "KVM" {
        rep().check(
            &format!(
                "{kernel} {}: the programs' share of a core at 10,000 swap-ins a second ≤ 0.5 % (KVM)",
                m.name
            ),
            share <= 0.5,
            &what,
            "≤ 0.5 % (500 ns a swap-in)",
        );
    } else {
        rep().note(&format!(
            "{kernel} {}: the programs' share of a core, {what} [TCG: every program run is emulated]",
            m.name
        ));
    }
}

/// A zswap debugfs counter in a `grep -r . /sys/kernel/debug/zswap` capture.
fn debugfs(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (path, v) = l.split_once(':')?;
        (path.rsplit('/').next()? == name).then(|| v.trim().parse().ok())?
    })
}

/// bpf-finding: with the pool at its limit in front of the throttled disk, `disk-swapin-wait`
/// fires (a warning when it is `pool_limit_hit` that rose, a remark for another refusal), and
/// the counter it names rose in the kernel's debugfs around zswaptop's whole interval by at
/// least what it quotes.
fn finding(kernel: &str, dir: &Path) {
    let Some(m) = Moment::read(dir, "bpf-finding") else {
        rep().skip(
            &format!("{kernel} bpf-finding"),
            "no /dev/vdc (the throttled disk) in this guest",
        );
        return;
    };
    rep().note(&m.table());
    if !m.available(kernel) {
        return;
    }
    let found = m.json.as_ref().and_then(|j| {
        j["diagnostics"]
            .as_array()?
            .iter()
            .find(|f| f["id"] == "disk-swapin-wait")
            .cloned()
    });
    let disk = m.p50("disk");
    let n = m.count("disk");
    rep().check(
        &format!("{kernel} bpf-finding: disk-swapin-wait fires"),
        found.is_some(),
        &found.as_ref().map_or_else(
            || format!("none (disk p50 {disk:?} µs over {n:?})"),
            |f| format!("{} {}", f["severity"], f["summary"]),
        ),
        "fires",
    );
    let Some(f) = found else { return };
    // "reject_compress_fail rose by 270 over 20.1s (...)"
    let rose = f["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|e| {
            let e = e.as_str()?;
            let (name, rest) = e.split_once(" rose by ")?;
            let by: u64 = rest.split_whitespace().next()?.parse().ok()?;
            Some((name.to_string(), by))
        });
    let dir = dir.join("bpf-finding");
    let (before, after) = (
        read(&dir.join("zswap.before")),
        read(&dir.join("zswap.after")),
    );
    match rose {
        Some((name, by)) => {
            let kernel_by = debugfs(&after, &name)
                .zip(debugfs(&before, &name))
                .map(|(a, b)| a.saturating_sub(b));
            rep().check(
                &format!("{kernel} bpf-finding: {name} rose in debugfs by ≥ the finding's {by}"),
                by > 0 && kernel_by.is_some_and(|k| k >= by),
                &format!("{by}"),
                &format!("{kernel_by:?}"),
            );
            let want = if name == "pool_limit_hit" {
                "warn"
            } else {
                "info"
            };
            rep().check(
                &format!("{kernel} bpf-finding: severity follows the counter ({name})"),
                f["severity"] == want,
                &f["severity"].to_string(),
                want,
            );
        }
        None => {
            rep().check(
                &format!("{kernel} bpf-finding: the finding names the refusal that rose"),
                false,
                &f["evidence"].to_string(),
                "\"<counter> rose by N over T\"",
            );
        }
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
    let kprobe = Moment::read(&dir, "bpf-kprobe");
    let disk = Moment::read(&dir, "bpf-disk");
    let zram = Moment::read(&dir, "bpf-zram");
    let cache = Moment::read(&dir, "bpf-cache");
    let store_zswap = Moment::read(&dir, "bpf-store-zswap");
    let store_disk = Moment::read(&dir, "bpf-store-disk");
    let store_zram = Moment::read(&dir, "bpf-store-zram");
    for m in [
        &zswap,
        &kprobe,
        &disk,
        &zram,
        &cache,
        &store_zswap,
        &store_disk,
        &store_zram,
    ]
    .into_iter()
    .flatten()
    {
        rep().note(&m.table());
    }
    overhead(kernel, &dir, &facts);
    // (Its availability is checked below with its counts.)
    if let Some(m) = zswap
        .as_ref()
        .filter(|m| m.latency().is_some_and(|l| l["available"] == true))
    {
        core_share(kernel, m);
    }
    finding(kernel, &dir);
    let disk_p50 = disk.as_ref().filter(|d| d.available(kernel)).and_then(|d| {
        d.probes(kernel, "fentry");
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
            z.probes(kernel, "fentry");
            z.counts(kernel, "zswap", "zswpin");
            z.histogram(kernel);
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
    // The fallback, where the kernel has kprobes: the same checks as the lean set's.
    match &kprobe {
        Some(k) if k.available(kernel) => {
            k.probes(kernel, "kprobes");
            k.counts(kernel, "zswap", "zswpin");
            tenfold(k, "zswap");
        }
        Some(_) => {}
        None => rep().skip(
            &format!("{kernel} bpf-kprobe"),
            "scenario-bpf.sh did not run the kprobe moment",
        ),
    }
    match &cache {
        Some(c) if c.available(kernel) => cache_hits(kernel, c),
        Some(_) => {}
        None => {
            rep().check(&format!("{kernel} bpf-cache ran"), false, "no", "yes");
        }
    }
    match &zram {
        Some(z) if z.available(kernel) => {
            z.probes(kernel, "fentry");
            z.counts(kernel, "zram", "pswpin");
            tenfold(z, "zram");
        }
        Some(_) => {}
        None => rep().skip(&format!("{kernel} bpf-zram"), "no zram in this guest"),
    }
    stores(kernel, &kprobe, &store_zswap, &store_disk, &store_zram);
}

/// The store side: each store moment's tiers against the kernel's page-out counters; the kprobe
/// fallback's stores unknown, with its reason.
fn stores(
    kernel: &str,
    kprobe: &Option<Moment>,
    zswap: &Option<Moment>,
    disk: &Option<Moment>,
    zram: &Option<Moment>,
) {
    if let Some(k) = kprobe.as_ref().filter(|k| k.latency().is_some()) {
        let stores = k.latency().and_then(|l| l["stores"].as_array());
        let why: Vec<&str> = stores
            .into_iter()
            .flatten()
            .filter(|t| t["count"].is_null())
            .filter_map(|t| t["reason"].as_str())
            .collect();
        rep().check(
            &format!("{kernel} bpf-kprobe: every store tier unknown, with its reason"),
            why.len() == 3 && why.iter().all(|w| w.contains("kprobe")),
            &format!("{why:?}"),
            "3 reasons naming the kprobe fallback",
        );
    }
    match zswap {
        Some(z) if z.available(kernel) => {
            // 16 MiB paged out: most of its 4,096 pages stored by zswap.
            z.store_counts(kernel, "zswap", "zswpout", 2048);
            z.store_counts(kernel, "disk", "pswpout", 0);
        }
        Some(_) => {}
        None => {
            rep().check(&format!("{kernel} bpf-store-zswap ran"), false, "no", "yes");
        }
    }
    match disk {
        Some(d) if d.available(kernel) => {
            // 2 MiB: 512 pages.
            d.store_counts(kernel, "disk", "pswpout", 256);
            d.store_counts(kernel, "zswap", "zswpout", 0);
        }
        Some(_) => {}
        None => rep().skip(
            &format!("{kernel} bpf-store-disk"),
            "no /dev/vdc (the throttled disk) in this guest",
        ),
    }
    match zram {
        Some(z) if z.available(kernel) => z.store_counts(kernel, "zram", "pswpout", 2048),
        Some(_) => {}
        None => rep().skip(&format!("{kernel} bpf-store-zram"), "no zram in this guest"),
    }
}
