//! Formula tests: every derived figure against numbers computed by hand from the fixtures
//! (the fixtures' files read by hand), not against the code's own arithmetic.

use crate::common;

use common::{expected, json_path, snapshot};

const KIB: u64 = 1024;

#[test]
fn loaded_breakdown_matches_the_worked_example() {
    // The RAM breakdown over /proc/meminfo, linux-6.18-loaded, in kB.
    let s = snapshot("linux-6.18-loaded");
    let b = s.memory.breakdown.expect("breakdown");
    assert_eq!(s.memory.total_bytes, Some(24_682_416 * KIB));
    assert_eq!(b.free, Some(19_387_992 * KIB));
    assert_eq!(b.page_cache, Some(4_105_596 * KIB));
    assert_eq!(b.shmem, Some(12_776 * KIB));
    assert_eq!(b.apps, Some(287_576 * KIB));
    assert_eq!(b.swap_cache, Some(0));
    // slab 263544 + pagetables 4552 + kstack 1424 + vmalloc (15804 - 1424) + percpu 1120
    assert_eq!(
        b.kernel,
        Some((263_544 + 4_552 + 1_424 + 14_380 + 1_120) * KIB)
    );
    assert_eq!(b.zswap_pool, Some(510_692 * KIB));
    assert_eq!(b.zram_pool, Some(0));
    assert_eq!(b.hugetlb, Some(0));
    assert_eq!(b.unaccounted, Some(92_764 * 1024));
}

#[test]
fn idle_unaccounted_matches_the_reference() {
    let b = snapshot("linux-6.18-idle")
        .memory
        .breakdown
        .expect("breakdown");
    assert_eq!(b.unaccounted, Some(78_740 * 1024));
}

#[test]
fn per_cpu_free_lists_leave_little_unaccounted() {
    // linux-6.18-pcp, by hand from its files: zoneinfo counts 0 + 0 + 87 + 996 + 32441 + 111298
    // = 144822 pages of 4096; meminfo in kB.
    let s = snapshot("linux-6.18-pcp");
    let b = s.memory.breakdown.expect("breakdown");
    assert_eq!(b.pcp_free, Some(144_822 * 4096));
    // Active(anon) 1592 + Inactive(anon) 789392 + Unevictable 19708 - AnonPages 802024
    // - Shmem 8808 < 0: the 32 kB of SwapCached are all mapped again, inside apps.
    assert_eq!(b.swap_cache, Some(0));
    assert_eq!(s.memory.swap_cache_mapped_bytes, Some(32 * KIB));
    // MemTotal 24684092 - (802024 + 9798152 + 8808 + 828676 + 24 + 12652548) kB - pcp_free
    let without_pcp =
        (24_684_092 - (802_024 + 9_798_152 + 8_808 + 828_676 + 24 + 12_652_548)) * KIB;
    assert_eq!(without_pcp, 608_112_640);
    assert_eq!(b.unaccounted, Some(608_112_640 - 593_190_912));
    // free's "used" hides the lists too: the sentence names them.
    assert_eq!(s.memory.pcp_free_age_ms, Some(0));
}

/// A zoneinfo figure kept from an earlier tick says how old it is.
#[test]
fn a_kept_per_cpu_figure_says_its_age() {
    use zswaptop::model::Snapshot;
    use zswaptop::report::text;
    let root = zswaptop::root::Root::at(common::fixture_dir("linux-6.18-pcp"));
    let first = zswaptop::sources::collect(&root);
    let mut later = first.clone();
    let read_ns = first.zoneinfo.as_ref().unwrap().read_ns;
    later.monotonic_ns = read_ns + 2_500_000_000;
    let snap = Snapshot::derive(&later, Some(&first));
    assert_eq!(snap.memory.pcp_free_age_ms, Some(2500));
    let mut out = Vec::new();
    text::write(&snap, &mut out, text::Style { color: false }).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("not in MemFree (read 2.5 s ago)"), "{out}");
}

#[test]
fn many_cpu_zoneinfo_sums_every_cpu_and_a_bad_one_is_unknown() {
    // 256 CPUs: DMA32 sum (7n mod 61) = 7599, Normal sum (37n mod 509) = 64466 (README).
    let b = snapshot("zoneinfo-256cpu").memory.breakdown.unwrap();
    assert_eq!(b.pcp_free, Some((7_599 + 64_466) * 4096));
    for tree in ["zoneinfo-no-counts", "zoneinfo-malformed"] {
        let s = snapshot(tree);
        assert_eq!(s.memory.breakdown.unwrap().pcp_free, None, "{tree}");
        assert_eq!(
            s.memory.breakdown.unwrap().unaccounted,
            Some(608_112_640),
            "{tree}"
        );
        let st = s
            .sources
            .iter()
            .find(|x| x.source == "/proc/zoneinfo")
            .unwrap();
        let why = st.reason.as_ref().unwrap().text();
        let want = if tree == "zoneinfo-malformed" {
            "malformed at line 3753: count: expected a number, got \"12x4\""
        } else {
            "no per-CPU page lists (pagesets counts) in /proc/zoneinfo"
        };
        assert_eq!(why, want, "{tree}");
    }
}

#[test]
fn loaded_zswap_figures() {
    let s = snapshot("linux-6.18-loaded");
    let z = &s.zswap;
    assert_eq!(z.pool_bytes, Some(522_948_608));
    assert_eq!(z.pool_source.as_deref(), Some("meminfo"));
    assert_eq!(z.stored_bytes, Some(997_660 * KIB));
    assert_eq!(z.stored_pages, Some(249_415));
    // 997660 / 510692
    assert!((z.compression_ratio.unwrap() - 1.953_53).abs() < 1e-4);
    // (997660 - 39343*4) / (510692 - 39343*4) = 840288 / 353320
    assert!((z.compressor_ratio.unwrap() - 2.378_26).abs() < 1e-4);
    assert_eq!(z.saved_bytes, Some(486_968 * 1024));
    assert_eq!(z.incompressible_bytes, Some(39_343 * 4096));
    // totalram_pages 6170604 * 20 / 100 = 1234120 pages
    assert_eq!(z.pool_limit_bytes, Some(1_234_120 * 4096));
    assert_eq!(z.pool_headroom_bytes, Some(1_234_120 * 4096 - 522_948_608));
    // 1234120 pages × 90 / 100 = 1110708 pages
    assert_eq!(z.accept_threshold_bytes, Some(1_110_708 * 4096));
    assert_eq!(z.enabled, Some(true));
    assert_eq!(z.shrinker_enabled, Some(false));
}

#[test]
fn loaded_swap_split() {
    // Swap used split: 1050260 kB used = 997660 in zswap + 52600 zero-filled, nothing on disk.
    let s = snapshot("linux-6.18-loaded");
    assert_eq!(s.swap.used_bytes, Some(1_050_260 * KIB));
    assert_eq!(s.swap.in_zswap_bytes, Some(997_660 * KIB));
    assert_eq!(s.swap.in_swap_cache_bytes, Some(0));
    assert_eq!(s.swap.not_in_ram_bytes, Some(52_600 * KIB));
    assert_eq!(s.swap.devices.len(), 1);
    assert_eq!(s.swap.devices[0].used_bytes, 1_050_260 * KIB);
}

/// Loads that are not exclusive (6.1's zswap keeps a page it hands back): a page read back is
/// in the swap cache *and* in zswap. The split counts each slot once, so its parts sum to used:
/// the swap cache is what SwapCached holds beyond the compressed copies.
#[test]
fn swap_split_sums_to_used_when_the_swap_cache_overlaps_zswap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), &root);
    let meminfo = root.join("proc/meminfo");
    let text = std::fs::read_to_string(&meminfo).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("SwapCached:") {
                "SwapCached:       100000 kB\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&meminfo, text).unwrap();
    let sample = zswaptop::sources::collect(&zswaptop::root::Root::at(&root));
    let s = zswaptop::pipeline::snapshot(&sample, None);
    let w = &s.swap;
    assert_eq!(w.used_bytes, Some(1_050_260 * KIB));
    assert_eq!(w.in_zswap_bytes, Some(997_660 * KIB));
    // used − Zswapped = 52600 kB: at most that much of the 100000 kB cached is the cache's alone.
    assert_eq!(w.in_swap_cache_bytes, Some(52_600 * KIB));
    assert_eq!(w.not_in_ram_bytes, Some(0));
    let parts = [
        w.in_zswap_bytes,
        w.in_swap_cache_bytes,
        w.in_zram_bytes,
        w.not_in_ram_bytes,
    ];
    assert_eq!(
        parts.iter().map(|p| p.unwrap()).sum::<u64>(),
        1_050_260 * KIB
    );
}

#[test]
fn loaded_hidden_in_used() {
    let s = snapshot("linux-6.18-loaded");
    // MemTotal - MemAvailable = 24682416 - 23391328
    assert_eq!(
        s.memory.free_cmd_used_bytes,
        Some((24_682_416 - 23_391_328) * KIB)
    );
    assert_eq!(s.memory.hidden_in_used_bytes, Some(510_692 * KIB));
}

#[test]
fn loaded_capacity() {
    // Effective capacity: R + S - P now; S binds zswap residency (2 GiB of slots).
    let s = snapshot("linux-6.18-loaded");
    let c = &s.capacity;
    assert_eq!(
        c.effective_now_bytes,
        Some((24_682_416 + 2_097_148 - 510_692) * KIB)
    );
    assert_eq!(c.zswap_resident_max_bytes, Some(2_097_148 * KIB));
    assert!(!c.ratio_assumed);
    // headroom: min(SwapFree 1046888 kB, (limit - pool) * r)
    assert_eq!(c.fast_tier_headroom_bytes, Some(1_046_888 * KIB));
}

#[test]
fn every_breakdown_sums_to_memtotal() {
    for name in fixture_names() {
        let s = snapshot(&name);
        let (Some(total), Some(b)) = (s.memory.total_bytes, s.memory.breakdown) else {
            continue;
        };
        let sum: i128 = b
            .buckets()
            .iter()
            .filter_map(|(_, v)| v.map(i128::from))
            .sum();
        assert_eq!(sum, i128::from(total), "{name}");
    }
}

/// Every fixture with an `expected` block gives exactly those numbers in `--once --json`.
#[test]
fn fixtures_match_their_hand_computed_expectations() {
    let mut checked = 0;
    for name in fixture_names() {
        let Some(exp) = expected(&name) else { continue };
        let json = serde_json::to_value(snapshot(&name)).unwrap();
        for (key, want) in exp {
            let got = json_path(&json, &key).unwrap_or_else(|| panic!("{name}: no key {key}"));
            if want == "null" {
                assert!(got.is_null(), "{name}: {key} = {got}, want null");
            } else if want.contains('.') {
                let w: f64 = want
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}: {key} = {want}"));
                let g = got
                    .as_f64()
                    .unwrap_or_else(|| panic!("{name}: {key} = {got}"));
                assert!(
                    (g - w).abs() <= 1e-4 * w.abs().max(1.0),
                    "{name}: {key} = {g}, want {w}"
                );
            } else {
                let w: i128 = want
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}: {key} = {want}"));
                let g = got
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| got.as_u64().map(i128::from))
                    .unwrap_or_else(|| panic!("{name}: {key} = {got}, want {w}"));
                assert_eq!(g, w, "{name}: {key}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} expectations found");
}

fn fixture_names() -> Vec<String> {
    let dir = common::fixture_dir("");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
