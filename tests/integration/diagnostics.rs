//! The diagnostics rule engine: for every rule a tree (or a pair of samples, for rate rules)
//! where it fires and one where it doesn't; the healthy captures raise nothing above info; the
//! DIAGNOSTICS and TUNABLES text is snapshot-tested.

use crate::common;
use zswaptop::model::forecast::ForecastState;

use std::fs;
use std::path::Path;

use tempfile::TempDir;
use zswaptop::diagnostics::{self, RULE_IDS, Setup};
use zswaptop::model::{Finding, Severity, Snapshot};
use zswaptop::report::text;
use zswaptop::root::Root;
use zswaptop::sources::{self, Sample};

// --- building trees ------------------------------------------------------------------------

/// A copy of a fixture tree, changed by `edit`.
fn variant(base: &str, edit: impl FnOnce(&Path)) -> TempDir {
    let t = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir(base), t.path());
    edit(t.path());
    t
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

/// Replace the value of `key` in a `key value` (vmstat) or `Key:   value kB` (meminfo) file.
fn set_kv(root: &Path, rel: &str, key: &str, value: u64) {
    let text = read(root, rel);
    let mut found = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            let name = l.split([' ', ':']).next().unwrap_or("");
            if name == key {
                found = true;
                if l.contains(':') {
                    let unit = if l.ends_with("kB") { " kB" } else { "" };
                    format!("{key}:{value:>16}{unit}")
                } else {
                    format!("{key} {value}")
                }
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(found, "{key} not in {rel}");
    write(root, rel, &(out.join("\n") + "\n"));
}

fn get_kv(root: &Path, rel: &str, key: &str) -> u64 {
    read(root, rel)
        .lines()
        .find(|l| l.split([' ', ':']).next() == Some(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap()
        .parse()
        .unwrap()
}

fn add_swap_row(root: &Path, row: &str) {
    let mut s = read(root, "proc/swaps");
    s.push_str(row);
    s.push('\n');
    write(root, "proc/swaps", &s);
}

// --- sampling ------------------------------------------------------------------------------

fn sample(root: &Path) -> Sample {
    let mut s = sources::collect(&Root::at(root));
    s.host.privileged = true;
    s
}

fn snap(root: &Path) -> Snapshot {
    zswaptop::pipeline::snapshot(&sample(root), None)
}

fn fixture_snap(name: &str) -> Snapshot {
    common::snapshot(name)
}

/// Two samples `secs` apart: `first` then `second`.
fn pair(first: &Path, second: &Path, secs: u64) -> Snapshot {
    let a = sample(first);
    let mut b = sample(second);
    b.monotonic_ns = a.monotonic_ns + secs * 1_000_000_000;
    zswaptop::pipeline::snapshot(&b, Some(&a))
}

/// Two committed fixture trees `secs` apart.
fn fixture_pair(first: &str, second: &str, secs: u64) -> Snapshot {
    pair(
        &common::fixture_dir(first),
        &common::fixture_dir(second),
        secs,
    )
}

/// linux-6.18-zram with a disk swapfile below zram0, zram0's slots `zram_used_kb` in use, edited
/// further by `edit`; the second tree of the pair has `pswpout` 5120 pages higher.
fn zram_disk_pair(zram_used_kb: u64, edit: impl Fn(&Path)) -> (TempDir, TempDir) {
    let make = |more: u64| {
        variant("linux-6.18-zram", |r| {
            let swaps = read(r, "proc/swaps").replace(
                "partition\t1048572\t\t316176",
                &format!("partition\t1048572\t\t{zram_used_kb}"),
            );
            assert!(swaps.contains(&format!("\t{zram_used_kb}\t")));
            write(r, "proc/swaps", &swaps);
            add_swap_row(
                r,
                "/swapfile-fx                            file\t\t1048572\t\t4096\t\t-2",
            );
            let out = get_kv(r, "proc/vmstat", "pswpout");
            set_kv(r, "proc/vmstat", "pswpout", out + more);
            edit(r);
        })
    };
    (make(0), make(5120))
}

fn ids(s: &Snapshot) -> Vec<&str> {
    let mut v: Vec<&str> = s.diagnostics.iter().map(|f| f.id.as_str()).collect();
    v.sort_unstable();
    v
}

/// Every finding read by a test is checked: no fix proposes the state the system is in.
fn get<'a>(s: &'a Snapshot, id: &str) -> &'a Finding {
    check_fixes_change_something(s);
    s.diagnostics
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("{id} not raised; got {:?}", ids(s)))
}

fn has(s: &Snapshot, id: &str) -> bool {
    s.diagnostics.iter().any(|f| f.id == id)
}

fn evidence(f: &Finding) -> String {
    f.evidence.join("\n")
}

// --- every finding is well formed ----------------------------------------------------------

fn check_well_formed(s: &Snapshot) {
    for f in &s.diagnostics {
        assert!(RULE_IDS.contains(&f.id.as_str()), "unknown id {}", f.id);
        assert!(
            !f.summary.is_empty() && !f.summary.contains('\n'),
            "{}",
            f.id
        );
        assert!(!f.evidence.is_empty(), "{}: no evidence", f.id);
        assert!(f.fix.contains('`'), "{}: fix names no command", f.id);
        assert!(
            f.fix.contains("keep")
                || f.fix.contains("permanent")
                || f.fix.contains("fstab")
                || f.fix.contains("Nothing needs fixing"),
            "{}: fix does not say how to make it persistent: {}",
            f.id,
            f.fix
        );
        let sentences = f.why.matches(". ").count() + usize::from(f.why.ends_with('.'));
        assert!(
            (2..=3).contains(&sentences),
            "{}: why should be two sentences: {}",
            f.id,
            f.why
        );
    }
    let sev: Vec<Severity> = s.diagnostics.iter().map(|f| f.severity).collect();
    let mut sorted = sev.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(sev, sorted, "findings sorted crit → warn → info");
}

// --- the healthy captures ------------------------------------------------------------------

#[test]
fn healthy_captures_raise_nothing_above_info() {
    for (name, expected) in [
        (
            "linux-6.18-idle",
            vec!["page-cluster", "shrinker-off", "swap-too-small"],
        ),
        ("linux-6.18-loaded", vec!["shrinker-off", "swap-too-small"]),
    ] {
        let s = fixture_snap(name);
        check_well_formed(&s);
        assert_eq!(ids(&s), expected, "{name}");
        assert!(
            s.diagnostics.iter().all(|f| f.severity == Severity::Info),
            "{name}: {:?}",
            s.diagnostics
        );
    }
}

#[test]
fn every_fixture_yields_well_formed_findings() {
    for name in [
        "linux-6.18-idle",
        "linux-6.18-loaded",
        "linux-6.18-no-swap",
        "linux-6.18-writeback",
        "linux-6.18-zram",
        "linux-6.18-zswap-disabled",
        "linux-6.1-debugfs",
        "linux-5.15-no-zswap-meminfo",
        "linux-5.15-no-zswap-meminfo-nodebugfs",
        "garbage",
        "truncated",
        "empty-root",
    ] {
        check_well_formed(&fixture_snap(name));
    }
    // Unreadable or absent files prove nothing, so nothing is claimed.
    for name in ["garbage", "truncated", "empty-root"] {
        assert!(fixture_snap(name).diagnostics.is_empty(), "{name}");
    }
}

// --- zswap-no-swap -------------------------------------------------------------------------

#[test]
fn zswap_no_swap() {
    let s = fixture_snap("linux-6.18-no-swap");
    assert_eq!(ids(&s), vec!["zswap-no-swap"]);
    assert_eq!(get(&s, "zswap-no-swap").severity, Severity::Warn);
    assert!(!has(&fixture_snap("linux-6.18-idle"), "zswap-no-swap"));
    let off = variant("linux-6.18-no-swap", |r| {
        write(r, "sys/module/zswap/parameters/enabled", "N\n")
    });
    assert!(!has(&snap(off.path()), "zswap-no-swap"));
}

// --- zswap-zram ----------------------------------------------------------------------------

#[test]
fn zswap_zram() {
    let t = variant("linux-6.18-zram", |r| {
        write(r, "sys/module/zswap/parameters/enabled", "Y\n")
    });
    let s = snap(t.path());
    assert_eq!(ids(&s), vec!["page-cluster", "zswap-zram"]);
    let f = get(&s, "zswap-zram");
    assert_eq!(f.severity, Severity::Warn);
    assert!(evidence(f).contains("/dev/zram0 (zram, priority 100"));
    assert!(f.fix.contains("swapoff /dev/zram0"));
    assert!(!has(&fixture_snap("linux-6.18-zram"), "zswap-zram"));
}

// --- zram-lru-inversion --------------------------------------------------------------------

#[test]
fn zram_lru_inversion() {
    // zram at 100 over a used disk swapfile, no CONFIG_ZRAM_WRITEBACK, zswap off: zram 95 % full
    // while swap-outs rise is the evidence (pages go to disk while older ones keep zram's RAM).
    let (a, b) = zram_disk_pair(1_000_000, |_| {});
    let s = pair(a.path(), b.path(), 2);
    assert_eq!(ids(&s), vec!["page-cluster", "zram-lru-inversion"]);
    let f = get(&s, "zram-lru-inversion");
    assert_eq!(f.severity, Severity::Warn);
    let ev = evidence(f);
    assert!(ev.contains("CONFIG_ZRAM_WRITEBACK"), "{ev}");
    assert!(ev.contains("/dev/zram0 is 95.4% full"), "{ev}");
    assert!(
        ev.contains("swap-outs at 10.0 MiB/s while zram is full"),
        "{ev}"
    );
    assert!(f.fix.contains("no zram writeback"));
    // zswap off: the fix turns it on.
    assert!(
        f.fix
            .contains("echo Y | sudo tee /sys/module/zswap/parameters/enabled"),
        "{}",
        f.fix
    );

    // The same one sample only: no interval, no evidence of pages going to disk now.
    assert!(!has(&snap(b.path()), "zram-lru-inversion"));
    // Full but no swap-outs over the interval: quiet.
    assert!(!has(&pair(a.path(), a.path(), 2), "zram-lru-inversion"));
    // Full by its mem_limit rather than its slots.
    let (a, b) = zram_disk_pair(316_176, |r| {
        // mm_stat's fourth field is mem_limit: 145022976 used of 150000000 (96.7 %).
        let mm = read(r, "sys/block/zram0/mm_stat").replacen(
            "145022976        0 ",
            "145022976 150000000 ",
            1,
        );
        write(r, "sys/block/zram0/mm_stat", &mm);
    });
    let f = get(&pair(a.path(), b.path(), 2), "zram-lru-inversion").clone();
    assert!(
        evidence(&f).contains("of its mem_limit"),
        "{}",
        evidence(&f)
    );

    // zswap already on: the fix takes zram out and never says to enable zswap.
    let (a, b) = zram_disk_pair(1_000_000, |r| {
        write(r, "sys/module/zswap/parameters/enabled", "Y\n");
    });
    let f = get(&pair(a.path(), b.path(), 2), "zram-lru-inversion").clone();
    assert!(f.fix.contains("already on"), "{}", f.fix);
    assert!(f.fix.contains("swapoff /dev/zram0"), "{}", f.fix);
    assert!(!f.fix.contains("parameters/enabled"), "{}", f.fix);

    // A writeback device configured: zram can move idle pages out.
    let (a, b) = zram_disk_pair(1_000_000, |r| {
        write(r, "sys/block/zram0/backing_dev", "/dev/vdb\n")
    });
    assert!(!has(&pair(a.path(), b.path(), 2), "zram-lru-inversion"));
    // Writeback supported but not set up: the fix offers it.
    let (a, b) = zram_disk_pair(1_000_000, |r| {
        write(r, "sys/block/zram0/backing_dev", "none\n")
    });
    assert!(
        get(&pair(a.path(), b.path(), 2), "zram-lru-inversion")
            .fix
            .contains("writeback-device")
    );
    // Disk above zram: no inversion (zram is simply unused until the disk fills).
    let (a, b) = zram_disk_pair(1_000_000, |r| {
        let s = read(r, "proc/swaps").replace("4096\t\t-2", "4096\t\t200");
        write(r, "proc/swaps", &s);
    });
    assert!(!has(&pair(a.path(), b.path(), 2), "zram-lru-inversion"));
    assert!(!has(&fixture_snap("linux-6.18-zram"), "zram-lru-inversion"));
}

/// The regression: zram 30 % full above a disk swapfile holding pages, zswap on, swap-outs
/// rising (all into zram). The rule used to warn of an inversion and tell the user to enable
/// zswap, which was enabled.
#[test]
fn zram_with_room_raises_no_inversion() {
    let s = fixture_pair("regress-zram-room", "regress-zram-room-t1", 2);
    assert!(s.zswap.enabled == Some(true));
    assert!(s.rates.as_ref().unwrap().pswpout_bytes_per_sec.unwrap() > 0.0);
    assert!(!has(&s, "zram-lru-inversion"), "{:?}", s.diagnostics);
    check_fixes_change_something(&s);
}

// --- page-cluster --------------------------------------------------------------------------

#[test]
fn page_cluster() {
    let s = fixture_snap("linux-6.18-idle");
    let f = get(&s, "page-cluster");
    assert_eq!(f.severity, Severity::Info);
    assert!(evidence(f).contains("reads up to 8 pages (32.0 KiB)"));
    assert!(f.fix.contains("vm.page-cluster=0") && f.fix.contains("/etc/sysctl.d/"));

    let zero = variant("linux-6.18-idle", |r| {
        write(r, "proc/sys/vm/page-cluster", "0\n")
    });
    assert!(!has(&snap(zero.path()), "page-cluster"));
    // A disk-only setup on a disk of unknown kind: no claim.
    assert!(!has(
        &fixture_snap("linux-6.18-zswap-disabled"),
        "page-cluster"
    ));

    // A swap partition on a non-rotational disk, found by name in the tree.
    let ssd = |rot: &str| {
        let rot = rot.to_string();
        variant("linux-6.18-zswap-disabled", move |r| {
            write(
                r,
                "proc/swaps",
                "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                 /dev/vdb1                               partition\t1048572\t\t153084\t\t-2\n",
            );
            write(r, "sys/block/vdb/queue/rotational", &rot);
            write(r, "sys/block/vdb/vdb1/partition", "1\n");
        })
    };
    let t = ssd("0\n");
    let s = snap(t.path());
    assert_eq!(ids(&s), vec!["page-cluster"]);
    assert!(evidence(get(&s, "page-cluster")).contains("/dev/vdb1 is on vdb: non-rotational"));
    let t = ssd("1\n");
    assert!(!has(&snap(t.path()), "page-cluster"));
}

// --- swappiness-low ------------------------------------------------------------------------

#[test]
fn swappiness_low() {
    let sw =
        |v: &'static str, base: &str| variant(base, move |r| write(r, "proc/sys/vm/swappiness", v));
    let t = sw("10\n", "linux-6.18-idle");
    let s = snap(t.path());
    let f = get(&s, "swappiness-low");
    assert_eq!(f.severity, Severity::Warn);
    assert!(f.fix.contains("vm.swappiness=100"));
    assert!(f.why.contains("beyond 100"));
    let t = sw("30\n", "linux-6.18-idle");
    assert_eq!(
        get(&snap(t.path()), "swappiness-low").severity,
        Severity::Info
    );
    // zram only: the suggestion goes beyond 100.
    let t = sw("5\n", "linux-6.18-zram");
    assert!(
        get(&snap(t.path()), "swappiness-low")
            .fix
            .contains("vm.swappiness=150")
    );
    // Not low, or not compressed swap.
    assert!(!has(&fixture_snap("linux-6.18-idle"), "swappiness-low"));
    let t = sw("10\n", "linux-6.18-zswap-disabled");
    assert!(!has(&snap(t.path()), "swappiness-low"));
}

// --- shrinker-off --------------------------------------------------------------------------

#[test]
fn shrinker_off() {
    // Pool empty: a remark.
    let s = fixture_snap("linux-6.18-idle");
    assert_eq!(get(&s, "shrinker-off").severity, Severity::Info);
    // Pool at 90.7 % of its limit: a warning.
    let s = fixture_snap("linux-6.18-writeback");
    assert_eq!(get(&s, "shrinker-off").severity, Severity::Warn);
    // Pool at 10 % but pool_limit_hit rising over an interval: a warning.
    let a = variant("linux-6.18-loaded", |_| {});
    let b = variant("linux-6.18-loaded", |r| {
        write(r, "sys/kernel/debug/zswap/pool_limit_hit", "40\n")
    });
    let s = pair(a.path(), b.path(), 2);
    let f = get(&s, "shrinker-off");
    assert_eq!(f.severity, Severity::Warn);
    assert!(evidence(f).contains("pool_limit_hit rose by 40 over 2.0s"));
    // On, or absent (kernels before 6.8).
    let on = variant("linux-6.18-writeback", |r| {
        write(r, "sys/module/zswap/parameters/shrinker_enabled", "Y\n")
    });
    assert!(!has(&snap(on.path()), "shrinker-off"));
    assert!(!has(&fixture_snap("linux-6.1-debugfs"), "shrinker-off"));
}

// --- pool-full -----------------------------------------------------------------------------

#[test]
fn pool_full() {
    // One sample at 90.7 % of the limit: no interval, so no evidence of refusals: a remark.
    let s = fixture_snap("linux-6.18-writeback");
    let f = get(&s, "pool-full");
    assert_eq!(f.severity, Severity::Info);
    assert_eq!(
        f.summary,
        "the zswap pool is at 90.7% of its limit; refusals start at the limit"
    );
    let ev = evidence(f);
    assert!(
        ev.contains("pool 218.7 MiB of its 241.1 MiB limit (90.7%"),
        "{ev}"
    );
    assert!(ev.contains("headroom 22.4 MiB"), "{ev}");
    assert!(ev.contains("accept_threshold_percent 90%"), "{ev}");
    assert!(ev.contains("one sample"), "{ev}");
    assert!(f.fix.contains("zswap.max_pool_percent=6"));
    // Not near the limit, one sample: nothing.
    assert!(!has(&fixture_snap("linux-6.18-loaded"), "pool-full"));
    // pool_limit_hit rising over the interval: a warning even well below the limit.
    let a = variant("linux-6.18-loaded", |_| {});
    let b = variant("linux-6.18-loaded", |r| {
        write(r, "sys/kernel/debug/zswap/pool_limit_hit", "7\n")
    });
    let s = pair(a.path(), b.path(), 1);
    let f = get(&s, "pool-full").clone();
    assert_eq!(f.severity, Severity::Warn);
    assert!(f.summary.contains("new pages skip zswap"));
    // The forecast says the same: full, from the refusals, well below the limit.
    let pool = s.forecast.zswap_pool.as_ref().unwrap();
    assert_eq!(pool.state, ForecastState::Full, "{pool:?}");
    assert!(
        pool.evidence
            .as_deref()
            .unwrap()
            .contains("pool_limit_hit rose by 7")
    );
    // Not rising, not near: nothing.
    let c = variant("linux-6.18-loaded", |_| {});
    assert!(!has(&pair(a.path(), c.path(), 1), "pool-full"));
    // Near the limit with pages going to swap around zswap (pswpout up, zswpwb not): a warning.
    let near = common::fixture_dir("linux-6.18-writeback");
    let bypass = variant("linux-6.18-writeback", |r| {
        let out = get_kv(r, "proc/vmstat", "pswpout");
        set_kv(r, "proc/vmstat", "pswpout", out + 512);
    });
    let s = pair(&near, bypass.path(), 2);
    let f = get(&s, "pool-full").clone();
    assert_eq!(f.severity, Severity::Warn);
    // Nothing stored, pages around zswap, above the accept threshold: the kernel refuses
    // since a hit, and the forecast says full too (it used to say "not filling" beside this).
    let pool = s.forecast.zswap_pool.as_ref().unwrap();
    assert_eq!(pool.state, ForecastState::Full, "{pool:?}");
    assert!(
        evidence(&f).contains("written to swap without passing through zswap: 1.0 MiB/s"),
        "{}",
        evidence(&f)
    );
    // Without debugfs the near-full remark still works from meminfo.
    let nodebug = variant("linux-6.18-writeback", |r| {
        fs::remove_dir_all(r.join("sys/kernel/debug/zswap")).unwrap();
    });
    assert_eq!(
        get(&snap(nodebug.path()), "pool-full").severity,
        Severity::Info
    );
}

/// The regression: the pool near its limit while stores are accepted (zswpout rising) with no
/// limit hit and no page around zswap. The rule used to warn that new pages skip zswap.
#[test]
fn pool_near_limit_accepting_is_not_a_warning() {
    let s = fixture_pair("regress-pool-near-limit", "regress-pool-near-limit-t1", 2);
    let f = get(&s, "pool-full");
    assert_eq!(f.severity, Severity::Info, "{f:?}");
    // Stores accepted: the forecast does not say full either.
    let pool = s.forecast.zswap_pool.as_ref().unwrap();
    assert_ne!(pool.state, ForecastState::Full, "{pool:?}");
    assert!(!f.summary.contains("skip zswap"), "{}", f.summary);
    let ev = evidence(f);
    assert!(
        ev.contains("stores accepted at 25.6 MiB/s, none refused"),
        "{ev}"
    );
    assert!(ev.contains("not rising over the interval"), "{ev}");
}

// --- poor-compression ----------------------------------------------------------------------

#[test]
fn poor_compression() {
    // Ratio 443316 / 250000 kB → stored 250000 kB in a 223928 kB pool: 1.12:1.
    let t = variant("linux-6.18-writeback", |r| {
        set_kv(r, "proc/meminfo", "Zswapped", 250_000)
    });
    let s = snap(t.path());
    let f = get(&s, "poor-compression");
    assert_eq!(f.severity, Severity::Warn);
    let ev = evidence(f);
    assert!(ev.contains("zswap ratio 1.12:1 effective"), "{ev}");
    // Names what this kernel offers and what each trades.
    assert!(ev.contains("deflate (good ratio, slow)"), "{ev}");
    assert!(f.fix.contains("echo deflate | sudo tee"), "{}", f.fix);

    // A high share of incompressible pages with a fine ratio: a remark.
    let t = variant("linux-6.18-loaded", |r| {
        write(
            r,
            "sys/kernel/debug/zswap/stored_incompressible_pages",
            "100000\n",
        )
    });
    let f = get(&snap(t.path()), "poor-compression").clone();
    assert_eq!(f.severity, Severity::Info);
    assert!(evidence(&f).contains("(40.1%) did not compress"));

    // zram storing nearly raw.
    let t = variant("linux-6.18-zram", |r| {
        write(
            r,
            "sys/block/zram0/mm_stat",
            "291639296 280000000 285000000        0 285000000        0        0    15666    15666\n",
        )
    });
    let s = snap(t.path());
    let f = get(&s, "poor-compression");
    assert_eq!(f.severity, Severity::Warn);
    assert!(evidence(f).contains("zram0 ratio 1.02:1 effective"));
    assert!(evidence(f).contains("zram0 offers (comp_algorithm): lzo-rle"));

    // Rejects over an interval: 30000 stores, 15000 rejected as poor in 10 s.
    let a = variant("linux-6.18-loaded", |_| {});
    let b = variant("linux-6.18-loaded", |r| {
        let out = get_kv(r, "proc/vmstat", "zswpout");
        set_kv(r, "proc/vmstat", "zswpout", out + 30_000);
        write(r, "sys/kernel/debug/zswap/reject_compress_poor", "15000\n");
    });
    let s = pair(a.path(), b.path(), 10);
    let f = get(&s, "poor-compression");
    assert!(
        evidence(f).contains("33.3% of store attempts"),
        "{}",
        evidence(f)
    );

    // The captures compress fine.
    for name in [
        "linux-6.18-loaded",
        "linux-6.18-writeback",
        "linux-6.18-zram",
        "linux-6.1-debugfs",
    ] {
        assert!(!has(&fixture_snap(name), "poor-compression"), "{name}");
    }
}

// --- compressor-fallback -------------------------------------------------------------------

#[test]
fn compressor_fallback() {
    let boot = |alg: &str| {
        let line = format!("console=ttyS0 quiet psi=1 zswap.enabled=1 zswap.compressor={alg}\n");
        variant("linux-6.18-writeback", move |r| {
            write(r, "proc/cmdline", &line)
        })
    };
    let t = boot("zstd");
    let s = snap(t.path());
    let f = get(&s, "compressor-fallback");
    assert_eq!(f.severity, Severity::Warn);
    assert!(evidence(f).contains("zstd is not among them"));
    assert!(f.fix.contains("/etc/tmpfiles.d/"));
    assert!(
        f.fix.contains("zswap.compressor=deflate"),
        "built-in alternative"
    );
    // Asked for one that is registered now: changed at runtime or loaded late.
    let t = boot("deflate");
    assert_eq!(
        get(&snap(t.path()), "compressor-fallback").severity,
        Severity::Info
    );
    let t = boot("lzo");
    assert!(!has(&snap(t.path()), "compressor-fallback"));
    assert!(!has(
        &fixture_snap("linux-6.18-writeback"),
        "compressor-fallback"
    ));
}

// --- swap-too-small ------------------------------------------------------------------------

#[test]
fn swap_too_small() {
    let s = fixture_snap("linux-6.18-idle");
    let f = get(&s, "swap-too-small");
    assert_eq!(f.severity, Severity::Info);
    let ev = evidence(f);
    assert!(
        ev.contains("at ratio 2.00:1 (assumed: the pool is empty)"),
        "{ev}"
    );
    assert!(ev.contains("2.0 GiB of slots"), "{ev}");
    // The loaded capture's measured ratio.
    let s = fixture_snap("linux-6.18-loaded");
    assert!(evidence(get(&s, "swap-too-small")).contains("1.95:1 (measured)"));
    // 8 KiB stored in a 24 KiB pool is no ratio (0.33:1 is the allocator's first pages): the
    // one an empty pool is taken at, with why, as every output says it.
    let s = fixture_snap("linux-6.18-pcp");
    let ev = evidence(get(&s, "swap-too-small"));
    assert!(!ev.contains("0.33:1"), "{ev}");
    assert!(
        ev.contains("at ratio 2.00:1 (assumed: too little stored to tell, under 1.0 MiB)"),
        "{ev}"
    );
    // Swap 97.6 % used: the slot limit binds now.
    let t = variant("linux-6.18-loaded", |r| {
        set_kv(r, "proc/meminfo", "SwapFree", 50_000)
    });
    assert_eq!(
        get(&snap(t.path()), "swap-too-small").severity,
        Severity::Warn
    );
    // A 2 % pool (≈ 470 MiB × 2) fits 2 GiB of slots.
    let t = variant("linux-6.18-idle", |r| {
        write(r, "sys/module/zswap/parameters/max_pool_percent", "2\n")
    });
    assert!(!has(&snap(t.path()), "swap-too-small"));
    assert!(!has(
        &fixture_snap("linux-6.18-writeback"),
        "swap-too-small"
    ));
}

// --- thp-always ----------------------------------------------------------------------------

#[test]
fn thp_always() {
    let always = |base: &str| {
        variant(base, |r| {
            write(
                r,
                "sys/kernel/mm/transparent_hugepage/enabled",
                "[always] madvise never\n",
            )
        })
    };
    let t = always("linux-6.18-idle");
    let s = snap(t.path());
    let f = get(&s, "thp-always");
    assert_eq!(f.severity, Severity::Info);
    assert!(f.fix.contains("transparent_hugepage=madvise"));
    assert!(!has(&fixture_snap("linux-6.18-idle"), "thp-always"));
    let t = always("linux-6.18-no-swap");
    assert!(!has(&snap(t.path()), "thp-always"), "no swap, no finding");
}

// --- no-debugfs ----------------------------------------------------------------------------

#[test]
fn no_debugfs() {
    let s = fixture_snap("linux-5.15-no-zswap-meminfo-nodebugfs");
    let f = get(&s, "no-debugfs");
    assert_eq!(f.severity, Severity::Info);
    assert!(evidence(f).contains("debugfs is not mounted"));
    assert!(f.fix.contains("mount -t debugfs"));
    // 6.18 without debugfs mounted.
    let t = variant("linux-6.18-idle", |r| {
        fs::remove_dir_all(r.join("sys/kernel/debug/zswap")).unwrap();
    });
    let s = snap(t.path());
    assert!(has(&s, "no-debugfs"));
    // zswap off and never enabled since boot: there are no counters to miss.
    let t = variant("linux-6.18-zswap-disabled", |r| {
        fs::remove_dir_all(r.join("sys/kernel/debug")).unwrap();
        fs::create_dir_all(r.join("sys/kernel/debug/tracing")).unwrap();
    });
    assert!(!has(&snap(t.path()), "no-debugfs"));
    assert!(!has(&fixture_snap("linux-6.18-idle"), "no-debugfs"));
}

// --- decompress-fail -----------------------------------------------------------------------

#[test]
fn decompress_fail() {
    let t = variant("linux-6.18-loaded", |r| {
        write(r, "sys/kernel/debug/zswap/decompress_fail", "3\n")
    });
    let s = snap(t.path());
    let f = get(&s, "decompress-fail");
    assert_eq!(f.severity, Severity::Crit);
    assert_eq!(s.diagnostics[0].id, "decompress-fail", "crit sorts first");
    assert!(f.why.contains("SIGBUS"));
    assert!(!has(&fixture_snap("linux-6.18-loaded"), "decompress-fail"));
}

// --- thrashing -----------------------------------------------------------------------------

#[test]
fn thrashing() {
    // The writeback capture: PSI full avg10 20.39. 10 s later, 50000 pages came back in.
    let a = variant("linux-6.18-writeback", |_| {});
    let b = variant("linux-6.18-writeback", |r| {
        let zin = get_kv(r, "proc/vmstat", "zswpin");
        set_kv(r, "proc/vmstat", "zswpin", zin + 30_000);
        let din = get_kv(r, "proc/vmstat", "pswpin");
        set_kv(r, "proc/vmstat", "pswpin", din + 20_000);
    });
    let s = pair(a.path(), b.path(), 10);
    let f = get(&s, "thrashing");
    assert_eq!(f.severity, Severity::Warn);
    assert!(
        evidence(f).contains("swap-in 19.5 MiB/s"),
        "{}",
        evidence(f)
    );
    // Heavier pressure: critical.
    let c = variant("linux-6.18-writeback", |r| {
        let zin = get_kv(r, "proc/vmstat", "zswpin");
        set_kv(r, "proc/vmstat", "zswpin", zin + 30_000);
        write(
            r,
            "proc/pressure/memory",
            "some avg10=45.00 avg60=10.87 avg300=3.08 total=10148321\n\
             full avg10=41.00 avg60=10.86 avg300=3.07 total=10116602\n",
        );
    });
    assert_eq!(
        get(&pair(a.path(), c.path(), 10), "thrashing").severity,
        Severity::Crit
    );
    // The same pressure with no swap-in: not swap thrashing.
    let d = variant("linux-6.18-writeback", |_| {});
    assert!(!has(&pair(a.path(), d.path(), 10), "thrashing"));
    // One sample proves no rate: silent however high PSI is.
    assert!(!has(&fixture_snap("linux-6.18-writeback"), "thrashing"));
}

// --- allocator-cap -------------------------------------------------------------------------

#[test]
fn allocator_cap() {
    // The loaded capture's data pages stand at 2.38:1; on zbud (at most two a page) the
    // allocator is what holds the pool back.
    let zbud = variant("linux-6.18-loaded", |r| {
        write(r, "sys/module/zswap/parameters/zpool", "zbud\n");
    });
    let s = snap(zbud.path());
    let f = get(&s, "allocator-cap");
    assert_eq!(f.severity, Severity::Warn);
    assert!(
        f.summary.contains("zbud caps the pool at 2:1"),
        "{}",
        f.summary
    );
    assert!(evidence(f).contains("zpool = zbud"), "{}", evidence(f));
    assert!(
        f.fix
            .contains("echo zsmalloc | sudo tee /sys/module/zswap/parameters/zpool"),
        "{}",
        f.fix
    );
    assert!(f.fix.contains("zswap.zpool=zsmalloc"), "{}", f.fix);
    // z3fold holds three: 2.38:1 is below its cap, so it is not what limits the pool.
    let z3fold = variant("linux-6.18-loaded", |r| {
        write(r, "sys/module/zswap/parameters/zpool", "z3fold\n");
    });
    assert!(!has(&snap(z3fold.path()), "allocator-cap"));
    let zsmalloc = variant("linux-6.18-loaded", |r| {
        write(r, "sys/module/zswap/parameters/zpool", "zsmalloc\n");
    });
    assert!(!has(&snap(zsmalloc.path()), "allocator-cap"));
    // No zpool parameter (6.18: zsmalloc only): nothing to choose.
    assert!(!has(&fixture_snap("linux-6.18-loaded"), "allocator-cap"));
}

// --- zswap-off-pool-left -------------------------------------------------------------------

#[test]
fn zswap_off_pool_left() {
    let t = variant("linux-6.18-zswap-disabled", |r| {
        set_kv(r, "proc/meminfo", "Zswap", 1_000);
        set_kv(r, "proc/meminfo", "Zswapped", 3_000);
    });
    let s = snap(t.path());
    assert_eq!(ids(&s), vec!["zswap-off-pool-left"]);
    let f = get(&s, "zswap-off-pool-left");
    assert!(evidence(f).contains("holds 2.9 MiB of pages in 1000.0 KiB of RAM"));
    assert!(f.fix.contains("swapoff -a"));
    assert!(!has(
        &fixture_snap("linux-6.18-zswap-disabled"),
        "zswap-off-pool-left"
    ));
}

// --- swap-priorities -----------------------------------------------------------------------

#[test]
fn swap_priorities() {
    let t = variant("linux-6.18-zswap-disabled", |r| {
        add_swap_row(
            r,
            "/swapfile-two                           file\t\t1048572\t\t0\t\t-3",
        )
    });
    let s = snap(t.path());
    assert_eq!(ids(&s), vec!["swap-priorities"]);
    let f = get(&s, "swap-priorities");
    assert!(evidence(f).contains("swapon gives each area"));
    assert!(f.fix.contains("pri=-2") || f.fix.contains("pri=1"));
    let same = variant("linux-6.18-zswap-disabled", |r| {
        add_swap_row(
            r,
            "/swapfile-two                           file\t\t1048572\t\t0\t\t-2",
        )
    });
    assert!(!has(&snap(same.path()), "swap-priorities"));
    // zram above disk is not this rule's business.
    let z = variant("linux-6.18-zram", |r| {
        add_swap_row(
            r,
            "/swapfile-fx                            file\t\t1048572\t\t0\t\t-2",
        )
    });
    assert!(!has(&snap(z.path()), "swap-priorities"));
}

// --- tunables advice -----------------------------------------------------------------------

#[test]
fn tunables_advice_follows_the_setup() {
    let cases = [
        ("linux-6.18-idle", Setup::ZswapDisk, "100", "0"),
        ("linux-6.18-zram", Setup::ZramOnly, "150", "0"),
        ("linux-6.18-zswap-disabled", Setup::DiskOnly, "60", "3"),
        ("linux-6.18-no-swap", Setup::NoSwap, "60", "3"),
    ];
    for (name, setup, swappiness, page_cluster) in cases {
        let root = common::fixture(name);
        let smp = sources::collect(&root);
        let s = zswaptop::pipeline::snapshot(&smp, None);
        assert_eq!(diagnostics::setup(&s), setup, "{name}");
        let adv = &s.tunables_advice;
        let names: Vec<&str> = adv.iter().map(|a| a.name.as_ref()).collect();
        assert_eq!(
            names,
            vec![
                "vm.swappiness",
                "vm.page-cluster",
                "vm.vfs_cache_pressure",
                "vm.watermark_scale_factor",
                "vm.dirty_ratio",
                "vm.dirty_background_ratio",
                "vm.dirty_bytes",
                "vm.dirty_background_bytes",
                "vm.dirty_expire_centisecs",
                "vm.dirty_writeback_centisecs",
                "vm.overcommit_memory",
                "vm.overcommit_ratio",
                "transparent_hugepage.enabled",
                "transparent_hugepage.defrag",
            ]
        );
        let by = |n: &str| adv.iter().find(|a| a.name == n).unwrap();
        assert_eq!(by("vm.swappiness").suggested, swappiness, "{name}");
        assert_eq!(by("vm.page-cluster").suggested, page_cluster, "{name}");
        assert!(adv.iter().all(|a| a.setup == setup.label()));
        assert!(adv.iter().all(|a| !a.why.is_empty()));
    }
    // Only the exact value for zram goes beyond what the kernel documentation says.
    let s = fixture_snap("linux-6.18-zram");
    let opinions: Vec<&str> = s
        .tunables_advice
        .iter()
        .filter(|a| a.opinion)
        .map(|a| a.name.as_ref())
        .collect();
    assert_eq!(opinions, vec!["vm.swappiness"]);
    // Current values as read; unknown where the capture lacks them.
    let s = fixture_snap("linux-6.18-idle");
    assert_eq!(
        s.tunables_advice[0].current.as_deref(),
        Some("60"),
        "idle swappiness"
    );
    let s = fixture_snap("linux-6.18-loaded");
    assert!(s.tunables_advice.iter().all(|a| a.current.is_none()));
}

#[test]
fn json_carries_findings_and_advice() {
    let s = fixture_snap("linux-6.18-writeback");
    let v = serde_json::to_value(&s).unwrap();
    let d = v["diagnostics"].as_array().unwrap();
    assert_eq!(d[0]["id"], "shrinker-off");
    assert_eq!(d[0]["severity"], "warn");
    for key in ["summary", "evidence", "fix", "why"] {
        assert!(!d[0][key].is_null(), "{key}");
    }
    let t = v["tunables_advice"].as_array().unwrap();
    assert_eq!(t[0]["name"], "vm.swappiness");
    assert_eq!(t[0]["current"], "60");
    assert_eq!(t[0]["suggested"], "100");
    assert_eq!(t[0]["setup"], "zswap + disk swap");
    assert_eq!(t[0]["opinion"], false);
    // The findings round trip (a snapshot is written, not read back: its reasons are text).
    let back: Vec<Finding> = serde_json::from_value(v["diagnostics"].clone()).unwrap();
    assert_eq!(back, s.diagnostics);
}

#[test]
fn counts_by_severity() {
    let t = variant("linux-6.18-writeback", |r| {
        write(r, "sys/kernel/debug/zswap/decompress_fail", "1\n")
    });
    let s = snap(t.path());
    assert_eq!(diagnostics::counts(&s.diagnostics), (1, 1, 2));
}

// --- text rendering ------------------------------------------------------------------------

/// The DIAGNOSTICS and TUNABLES sections of the `--once` text.
fn sections(s: &Snapshot) -> String {
    let mut buf = Vec::new();
    text::write(s, &mut buf, text::Style { color: false }).unwrap();
    let all = String::from_utf8(buf).unwrap();
    for line in all.lines() {
        assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
    }
    let start = all.find("\nDIAGNOSTICS").unwrap() + 1;
    let end = all[start..]
        .find("\nUNAVAILABLE")
        .map(|e| start + e + 1)
        .unwrap_or(all.len());
    all[start..end].to_string()
}

#[test]
fn text_idle() {
    insta::assert_snapshot!("idle", sections(&fixture_snap("linux-6.18-idle")));
}

#[test]
fn text_writeback() {
    insta::assert_snapshot!("writeback", sections(&fixture_snap("linux-6.18-writeback")));
}

#[test]
fn text_no_swap() {
    insta::assert_snapshot!("no-swap", sections(&fixture_snap("linux-6.18-no-swap")));
}

#[test]
fn text_many_findings() {
    // zswap in front of zram above a used swapfile, a decompression failure, THP always and a
    // low swappiness: one of each severity and the longest texts.
    let (a, b) = zram_disk_pair(1_000_000, |r| {
        write(r, "sys/module/zswap/parameters/enabled", "Y\n");
        write(r, "sys/kernel/debug/zswap/decompress_fail", "2\n");
        write(
            r,
            "sys/kernel/mm/transparent_hugepage/enabled",
            "[always] madvise never\n",
        );
        write(r, "proc/sys/vm/swappiness", "10\n");
    });
    let s = pair(a.path(), b.path(), 2);
    check_fixes_change_something(&s);
    assert_eq!(
        ids(&s),
        vec![
            "decompress-fail",
            "page-cluster",
            "shrinker-off",
            "swappiness-low",
            "thp-always",
            "zram-lru-inversion",
            "zswap-zram",
        ]
    );
    check_well_formed(&s);
    insta::assert_snapshot!("many", sections(&s));
}

#[test]
fn text_without_findings() {
    let s = fixture_snap("linux-6.18-zswap-disabled");
    let text = sections(&s);
    assert!(text.starts_with("DIAGNOSTICS"));
    assert!(text.contains("no problems found"));
    assert!(text.contains("suggested for disk swap only"));
}

#[test]
fn samples_recorded_without_the_new_sources_still_load() {
    let s = sample(&common::fixture_dir("linux-6.18-writeback"));
    assert_eq!(s.crypto.as_ref().as_ref().map(Vec::len).ok(), Some(3));
    let mut v = serde_json::to_value(&s).unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("crypto").unwrap();
    obj.remove("swap_devices").unwrap();
    let back: Sample = serde_json::from_value(v).unwrap();
    assert!(back.crypto.is_err());
    assert!(back.swap_devices.is_empty());
    // And the rules still run on it.
    check_well_formed(&zswaptop::pipeline::snapshot(&back, None));
}

// --- fix commands quote what they interpolate ------------------------------------------------

/// Markers every piece of a hostile value carries: a word holding one holds them all, or the
/// value was split.
const MARKERS: [&str; 6] = ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6"];

/// A swap path as /proc/swaps shows it (space, tab and newline octal-escaped).
const HOSTILE_SWAPS_PATH: &str =
    "/var/swap\\040Q1;curl${IFS}Q2|sh;#Q3$(id)`id`Q4'\\012Q5\"\\011&&Q6";
/// A kernel command-line word (no whitespace).
const HOSTILE_WORD: &str = "zstdQ1;idQ2$(id)Q3`id`Q4'Q5|sh&&#${IFS}Q6";

/// Every backtick span of a fix that holds a command, read as a shell reads it: quotes are
/// honoured, so a backtick inside quotes does not end the span.
fn fix_commands(fix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = fix.chars();
    while chars.by_ref().any(|c| c == '`') {
        let mut cmd = String::new();
        let (mut single, mut double, mut ansi) = (false, false, false);
        while let Some(c) = chars.next() {
            if ansi {
                // bash's `$'…'`: a backslash escapes the next character, `'` ends it.
                cmd.push(c);
                match c {
                    '\\' => cmd.extend(chars.next()),
                    '\'' => ansi = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '`' if !single && !double => break,
                '\'' if !double && !single && cmd.ends_with('$') => ansi = true,
                '\'' if !double => single = !single,
                '"' if !single => double = !double,
                '\\' if !single => {
                    cmd.push(c);
                    if let Some(n) = chars.next() {
                        cmd.push(n);
                    }
                    continue;
                }
                _ => {}
            }
            cmd.push(c);
        }
        if cmd.contains("sudo") {
            out.push(cmd);
        }
    }
    out
}

/// `cmd` with each bash `$'…'` word written as the POSIX single-quoted word of the same value,
/// so that POSIX tools (shlex, the checks below) read it as bash would.
fn posix(cmd: &str) -> String {
    let mut out = String::new();
    let mut chars = cmd.chars().peekable();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        if !single && !double && c == '$' && chars.peek() == Some(&'\'') {
            chars.next();
            let mut value = String::new();
            while let Some(c) = chars.next() {
                match c {
                    '\'' => break,
                    '\\' => match chars.next() {
                        Some('x') => value.push(hex(&mut chars, 2)),
                        Some('u') => value.push(hex(&mut chars, 4)),
                        Some('U') => value.push(hex(&mut chars, 8)),
                        Some(e) => value.push(e),
                        None => {}
                    },
                    c => value.push(c),
                }
            }
            out.push('\'');
            out.push_str(&value.replace('\'', "'\\''"));
            out.push('\'');
            continue;
        }
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                out.push(c);
                out.extend(chars.next());
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The character of the next `n` hex digits (of a `$'…'` escape).
fn hex(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, n: usize) -> char {
    let digits: String = (0..n).filter_map(|_| chars.next()).collect();
    u32::from_str_radix(&digits, 16)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or_else(|| panic!("bad escape {digits:?}"))
}

/// Shell syntax outside quotes other than the `&&` and `|` the templates use: `;`, `$`,
/// backticks, `#` starting a word, redirections, newlines, `||`, a lone `&`.
fn unquoted_syntax(cmd: &str) -> Vec<String> {
    let b: Vec<char> = cmd.chars().collect();
    let mut found = Vec::new();
    let (mut single, mut double) = (false, false);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let prev = if i > 0 { b[i - 1] } else { ' ' };
        if single {
            single = c != '\'';
        } else if c == '\\' {
            i += 1;
        } else if double {
            match c {
                '"' => double = false,
                '$' | '`' => found.push(format!("{c} in double quotes at {i}")),
                _ => {}
            }
        } else {
            match c {
                '\'' => single = true,
                '"' => double = true,
                '&' if b.get(i + 1) == Some(&'&') => i += 1,
                '|' if b.get(i + 1) != Some(&'|') => {}
                '#' if !prev.is_whitespace() => {}
                ';' | '$' | '`' | '#' | '<' | '>' | '\n' | '&' | '|' | '(' | ')' => {
                    found.push(format!("{c:?} at {i}"))
                }
                _ => {}
            }
        }
        i += 1;
    }
    found
}

/// Every command in every finding: parses, holds no unquoted shell syntax, and keeps each
/// hostile value in one word. Returns how many words carried a hostile value.
fn check_fix_commands(s: &Snapshot) -> usize {
    let mut carried = 0;
    for f in &s.diagnostics {
        for cmd in fix_commands(&f.fix).iter().map(|c| posix(c)) {
            let ctx = format!("{}: {cmd:?}", f.id);
            assert_eq!(unquoted_syntax(&cmd), Vec::<String>::new(), "{ctx}");
            let words = shlex::split(&cmd).unwrap_or_else(|| panic!("unbalanced quotes: {ctx}"));
            for w in words.iter().filter(|w| w.contains('Q')) {
                assert!(
                    MARKERS.iter().all(|m| w.contains(m)),
                    "split value {w:?}: {ctx}"
                );
                carried += 1;
            }
        }
    }
    carried
}

/// The value a fix command would write to `path`, as the snapshot holds it now.
fn current_value(s: &Snapshot, path: &str) -> Option<String> {
    if let Some(p) = path.strip_prefix("/sys/module/zswap/parameters/") {
        return s.zswap.parameters.get(p).cloned();
    }
    if let Some(n) = path.strip_prefix("/proc/sys/vm/") {
        return s.tunables.get(&format!("vm.{n}")).cloned().flatten();
    }
    if let Some(k) = path.strip_prefix("/sys/kernel/mm/transparent_hugepage/") {
        return s
            .tunables
            .get(&format!("transparent_hugepage.{k}"))
            .cloned()
            .flatten();
    }
    let dev = path
        .strip_prefix("/sys/block/")?
        .strip_suffix("/comp_algorithm")?;
    s.zram.iter().find(|z| z.device == dev)?.algorithm.clone()
}

/// Y/1 and N/0 are the same setting.
fn setting(v: &str) -> String {
    match v.trim() {
        "Y" | "y" | "1" => "Y".into(),
        "N" | "n" | "0" => "N".into(),
        other => other.to_string(),
    }
}

/// No fix proposes the state the system is already in: every `echo V | sudo tee FILE` writes
/// a value FILE does not hold, every `sysctl -w vm.N=V` a value vm.N does not have, every
/// `swapoff` names an active area. Returns how many commands were checked.
fn check_fixes_change_something(s: &Snapshot) -> usize {
    let mut checked = 0;
    for f in &s.diagnostics {
        for cmd in fix_commands(&f.fix).iter().map(|c| posix(c)) {
            let ctx = format!("{}: {cmd:?} proposes the current state", f.id);
            let w = shlex::split(&cmd).unwrap_or_else(|| panic!("unbalanced quotes: {ctx}"));
            let at = |i: usize| w.get(i).map(String::as_str);
            for i in 0..w.len() {
                if at(i) == Some("echo") && at(i + 2) == Some("|") {
                    let target = w[i + 3..]
                        .iter()
                        .take_while(|x| *x != "&&" && *x != "|")
                        .find(|x| !matches!(x.as_str(), "sudo" | "tee") && !x.starts_with('-'));
                    if let Some(now) = target.and_then(|t| current_value(s, t)) {
                        assert_ne!(setting(&w[i + 1]), setting(&now), "{ctx}");
                        checked += 1;
                    }
                }
                if at(i) == Some("sysctl") && at(i + 1) == Some("-w") {
                    let (k, v) = w[i + 2].split_once('=').unwrap();
                    let now = s.tunables.get(k).cloned().flatten();
                    assert_ne!(now.as_deref(), Some(v), "{ctx}");
                    checked += 1;
                }
                if at(i) == Some("swapoff") && at(i + 1).is_some_and(|d| !d.starts_with('-')) {
                    // The snapshot holds paths made safe to show; the command, the path itself.
                    let dev = zswaptop::sanitize::visible(&w[i + 1]);
                    assert!(
                        s.swap.devices.iter().any(|d| d.path == dev),
                        "{}: {cmd:?} turns off an area that is not on",
                        f.id
                    );
                    checked += 1;
                }
            }
        }
    }
    checked
}

/// Over every fixture tree and the pairs the rule tests build, no fix proposes the current
/// state (zram-lru-inversion once told the user to enable zswap while it was enabled).
#[test]
fn no_fix_proposes_the_current_state() {
    let mut checked = 0;
    let mut seen = std::collections::BTreeSet::new();
    let mut snaps: Vec<Snapshot> = common::fixture_trees()
        .iter()
        .map(|t| fixture_snap(&t.file_name().unwrap().to_string_lossy()))
        .collect();
    snaps.push(fixture_pair("regress-zram-room", "regress-zram-room-t1", 2));
    snaps.push(fixture_pair(
        "regress-pool-near-limit",
        "regress-pool-near-limit-t1",
        2,
    ));
    for zswap in ["Y\n", "N\n"] {
        for shrinker in ["Y\n", "N\n"] {
            let (a, b) = zram_disk_pair(1_000_000, |r| {
                write(r, "sys/module/zswap/parameters/enabled", zswap);
                write(r, "sys/module/zswap/parameters/shrinker_enabled", shrinker);
                write(r, "sys/kernel/debug/zswap/decompress_fail", "2\n");
                write(
                    r,
                    "sys/kernel/mm/transparent_hugepage/enabled",
                    "[always] madvise never\n",
                );
                write(r, "proc/sys/vm/swappiness", "10\n");
            });
            snaps.push(pair(a.path(), b.path(), 2));
        }
    }
    for s in &snaps {
        checked += check_fixes_change_something(s);
        seen.extend(s.diagnostics.iter().map(|f| f.id.clone()));
    }
    assert!(checked >= 20, "{checked}");
    for id in [
        "zram-lru-inversion",
        "pool-full",
        "shrinker-off",
        "zswap-zram",
    ] {
        assert!(seen.contains(id), "{id} never raised: {seen:?}");
    }
}

#[test]
fn fix_commands_keep_hostile_values_in_one_word() {
    // A disk swap area with a hostile name next to the capture's own: swap-priorities.
    let prio = variant("linux-6.18-zswap-disabled", |r| {
        add_swap_row(
            r,
            &format!("{HOSTILE_SWAPS_PATH} file\t\t1048572\t\t0\t\t-3"),
        )
    });
    let s = snap(prio.path());
    assert!(has(&s, "swap-priorities"), "{:?}", ids(&s));
    assert!(check_fix_commands(&s) >= 2);

    // Under zram: zram-lru-inversion and zswap-zram name the disk and zram areas.
    let (a, b) = zram_disk_pair(1_000_000, |r| {
        add_swap_row(
            r,
            &format!("{HOSTILE_SWAPS_PATH} file\t\t1048572\t\t4096\t\t-2"),
        );
        write(r, "sys/block/zram0/backing_dev", "none\n");
        write(r, "sys/module/zswap/parameters/enabled", "Y\n");
    });
    let s = pair(a.path(), b.path(), 2);
    assert!(
        has(&s, "zram-lru-inversion") && has(&s, "zswap-zram"),
        "{:?}",
        ids(&s)
    );
    check_fix_commands(&s);

    // A hostile compressor on the command line and a hostile built-in algorithm.
    let boot = variant("linux-6.18-writeback", |r| {
        write(
            r,
            "proc/cmdline",
            &format!("quiet zswap.enabled=1 zswap.compressor={HOSTILE_WORD}\n"),
        );
        let mut crypto = read(r, "proc/crypto");
        crypto.push_str(&format!(
            "name         : {HOSTILE_WORD}\ndriver       : x-generic\nmodule       : kernel\n\
             priority     : 0\nrefcnt       : 1\nselftest     : passed\ninternal     : no\n\
             type         : scomp\n\n"
        ));
        write(r, "proc/crypto", &crypto);
    });
    let s = snap(boot.path());
    assert!(has(&s, "compressor-fallback"), "{:?}", ids(&s));
    check_fix_commands(&s);
    // No command or config-file line is offered for a name no algorithm can have.
    let f = get(&s, "compressor-fallback");
    assert!(f.fix.contains("not an algorithm name"), "{}", f.fix);
    assert!(!f.fix.contains("tmpfiles.d") && !f.fix.contains("zswap.compressor=zstdQ1"));

    // Every capture's own fixes pass the same check.
    let all = common::fixture_dir("");
    for e in fs::read_dir(&all).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            check_fix_commands(&fixture_snap(&e.file_name().to_string_lossy()));
        }
    }
}
