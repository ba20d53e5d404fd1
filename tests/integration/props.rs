//! Property tests: the breakdown always sums to MemTotal, and no parser panics on any input.

use std::path::Path;

use proptest::prelude::*;
use zswaptop::model::memory;
use zswaptop::sources::{meminfo, psi, swaps, vmstat, zoneinfo, zram, zswap};

/// A complete meminfo text (every line procfs requires) from arbitrary kB values.
fn meminfo_text(v: &[u64]) -> String {
    let names = [
        "MemTotal",
        "MemFree",
        "MemAvailable",
        "Buffers",
        "Cached",
        "SwapCached",
        "Active",
        "Inactive",
        "Active(anon)",
        "Inactive(anon)",
        "Unevictable",
        "AnonPages",
        "Shmem",
        "Slab",
        "SReclaimable",
        "SUnreclaim",
        "KernelStack",
        "PageTables",
        "SecPageTables",
        "VmallocTotal",
        "VmallocUsed",
        "VmallocChunk",
        "Percpu",
        "Hugetlb",
        "SwapTotal",
        "SwapFree",
        "Zswap",
        "Zswapped",
        "Dirty",
        "Writeback",
        "Mapped",
        "Committed_AS",
    ];
    names
        .iter()
        .zip(v.iter().cycle())
        .map(|(n, x)| format!("{n}: {x} kB\n"))
        .collect()
}

proptest! {
    #[test]
    fn breakdown_sums_to_total(values in proptest::collection::vec(0u64..(1u64 << 40), 32), zram in proptest::option::of(0u64..(1u64 << 50)), pcp in proptest::option::of(0u64..(1u64 << 50))) {
        let text = meminfo_text(&values);
        let m = meminfo::parse(Path::new("meminfo"), &text).unwrap();
        let b = memory::breakdown(&m, m.zswap, zram, pcp);
        let sum: i128 = b.buckets().iter().filter_map(|(_, v)| v.map(i128::from)).sum();
        prop_assert_eq!(sum, i128::from(m.mem_total));
        prop_assert_eq!(b.pcp_free, pcp);
        // The swap cache counted once: its unmapped part plus the mapped part is SwapCached.
        let (unmapped, mapped) = memory::swap_cache_split(&m).unwrap();
        prop_assert_eq!(b.swap_cache, Some(unmapped));
        prop_assert_eq!(unmapped + mapped, m.swap_cached);
        // free's "used" never exceeds the total.
        prop_assert!(memory::free_cmd_used(&m) <= m.mem_total);
    }

    #[test]
    fn parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        let p = Path::new("x");
        let _ = meminfo::parse(p, &text);
        let _ = vmstat::parse(p, &text);
        let _ = swaps::parse(p, &text);
        let _ = psi::parse(p, &text);
        let _ = zram::parse_mm_stat(p, &text);
        let _ = zram::parse_io_stat(p, &text);
        let _ = zram::parse_bd_stat(p, &text);
        let _ = zram::parse_selector(&text);
        let _ = zswap::parse_cmdline(&text);
        let _ = swaps::unescape_octal(&text);
        let _ = zoneinfo::parse(p, &text);
    }

    #[test]
    fn line_shaped_garbage_never_panics(lines in proptest::collection::vec("[A-Za-z_()]{0,12}:? *[0-9a-z.=-]{0,25}( kB)?", 0..40)) {
        let text = lines.join("\n");
        let p = Path::new("x");
        let _ = meminfo::parse(p, &text);
        let _ = vmstat::parse(p, &text);
        let _ = swaps::parse(p, &format!("Filename Type Size Used Priority\n{text}"));
        let _ = psi::parse(p, &text);
        let _ = zoneinfo::parse(p, &format!("Node 0, zone Normal\n  pagesets\n{text}"));
    }
}
