//! The comparisons that hold in every phase: each figure of `zswaptop --once --json` between the
//! kernel's own readings taken right before and right after the run (a slack only where the
//! figure moves with everything else running, and said in the row).

use serde_json::Value;

use crate::readings::{Kernel, Snap};
use crate::rep;
use crate::report::{self, Report, b, f, i, is_null, s, u};

pub const MIB: u64 = 1024 * 1024;
/// MemFree/MemAvailable/AnonPages move with zswaptop's own process and anything else running.
const LOOSE: u64 = 64 * MIB;

/// Every comparison, in the order the table shows them. `root` = the run could read debugfs.
pub fn every_phase(snap: &Snap, ps: u64, root: bool) {
    let mut r = rep();
    let r = &mut *r;
    memory(r, snap);
    breakdown(r, snap, ps);
    zswap_sizes(r, snap, ps, root);
    zswap_debugfs(r, snap, root);
    zswap_limits(r, snap, ps);
    swap(r, snap, ps);
    swap_devices(r, snap);
    counters_and_capacity(r, snap);
}

/// `path` in the run's JSON against `k` of the kernel read before and after the run, ± `slack`.
fn br(
    r: &mut Report,
    snap: &Snap,
    name: &str,
    path: &str,
    k: &dyn Fn(&Kernel) -> Option<u64>,
    slack: u64,
) {
    let (before, after) = (k(&snap.before), k(&snap.after));
    if before.is_none() && after.is_none() {
        // This kernel has no such file or line: zswaptop must say unknown, never a number.
        r.check(
            &format!("{path} is null (no {name} in this kernel)"),
            is_null(&snap.json, path),
            &report::show(report::at(&snap.json, path)),
            "null",
        );
        return;
    }
    r.bracket(
        &format!("{path} vs {name}"),
        u(&snap.json, path),
        before,
        after,
        slack,
    );
}

fn mem(k: &Kernel, key: &str) -> Option<u64> {
    k.mem(key)
}

/// What `free` and meminfo say of the memory as a whole.
fn memory(r: &mut Report, snap: &Snap) {
    // memory
    br(
        r,
        snap,
        "MemTotal",
        "memory.total_bytes",
        &|k| mem(k, "MemTotal"),
        0,
    );
    br(
        r,
        snap,
        "MemFree",
        "memory.free_bytes",
        &|k| mem(k, "MemFree"),
        LOOSE,
    );
    br(
        r,
        snap,
        "MemAvailable",
        "memory.available_bytes",
        &|k| mem(k, "MemAvailable"),
        LOOSE,
    );
    br(
        r,
        snap,
        "MemTotal-MemAvailable",
        "memory.free_cmd_used_bytes",
        &|k| Some(mem(k, "MemTotal")? - mem(k, "MemAvailable")?),
        LOOSE,
    );
    br(
        r,
        snap,
        "Zswap + zram mem_used",
        "memory.hidden_in_used_bytes",
        &|k| Some(mem(k, "Zswap")? + k.zram_mem_used()),
        0,
    );
}

/// The breakdown: every bucket there, their sum exactly `MemTotal`, each against its kernel
/// figure.
fn breakdown(r: &mut Report, snap: &Snap, ps: u64) {
    let (j, kb, ka) = (&snap.json, &snap.before, &snap.after);
    let buckets = [
        "apps",
        "swap_cache",
        "page_cache",
        "shmem",
        "kernel",
        "hugetlb",
        "zswap_pool",
        "zram_pool",
        "free",
        "pcp_free",
        "unaccounted",
    ];
    let mut sum: i128 = 0;
    let mut missing = Vec::new();
    for bk in buckets {
        match i(j, &format!("memory.breakdown.{bk}_bytes")) {
            Some(v) => sum += v,
            None if is_null(j, &format!("memory.breakdown.{bk}_bytes")) => {}
            None => missing.push(bk),
        }
    }
    if !missing.is_empty() {
        r.check(
            "memory.breakdown has every bucket",
            false,
            &format!("missing {missing:?}"),
            "all 11 keys",
        );
    }
    r.exact(
        "Σ memory.breakdown == memory.total_bytes (exact)",
        Some(sum),
        i(j, "memory.total_bytes"),
    );
    br(
        r,
        snap,
        "meminfo Zswap",
        "memory.breakdown.zswap_pool_bytes",
        &|k| mem(k, "Zswap"),
        0,
    );
    br(
        r,
        snap,
        "Σ zram mem_used_total",
        "memory.breakdown.zram_pool_bytes",
        &|k| Some(k.zram_mem_used()),
        0,
    );
    // The swap cache counted once: its unmapped part in the breakdown, the mapped part beside it.
    r.bracket(
        "memory.breakdown.swap_cache_bytes + memory.swap_cache_mapped_bytes vs SwapCached",
        u(j, "memory.breakdown.swap_cache_bytes")
            .zip(u(j, "memory.swap_cache_mapped_bytes"))
            .map(|(a, b)| a + b),
        mem(kb, "SwapCached"),
        mem(ka, "SwapCached"),
        64 * ps,
    );
    // The per-CPU free lists against a direct sum of zoneinfo's counts read around the run;
    // they move with every allocation, so the bracket is loose.
    br(
        r,
        snap,
        "Σ zoneinfo count × page size",
        "memory.breakdown.pcp_free_bytes",
        &|k| Some(k.pcp_pages? * ps),
        LOOSE,
    );
    let unacc = i(j, "memory.breakdown.unaccounted_bytes");
    // What §4.4 as written gave: the per-CPU lists inside, the mapped swap cache counted twice.
    let plain = unacc
        .zip(i(j, "memory.breakdown.pcp_free_bytes"))
        .zip(i(j, "memory.swap_cache_mapped_bytes"))
        .map(|((a, p), m)| a + p - m);
    let mib = |v: Option<i128>| {
        v.map_or("null".to_string(), |v| {
            format!("{:.1} MiB", v as f64 / MIB as f64)
        })
    };
    r.note(&format!(
        "unaccounted {} (without the per-CPU lists and with the mapped swap cache counted twice: {}); \
         pcp_free {} vs zoneinfo Σcount {} before / {} after; swap cache mapped {}",
        mib(unacc),
        mib(plain),
        mib(i(j, "memory.breakdown.pcp_free_bytes")),
        mib(kb.pcp_pages.map(|p| i128::from(p * ps))),
        mib(ka.pcp_pages.map(|p| i128::from(p * ps))),
        mib(i(j, "memory.swap_cache_mapped_bytes")),
    ));
    r.check(
        "memory.breakdown.unaccounted_bytes within ±64 MiB",
        unacc.is_some_and(|v| v.unsigned_abs() <= u128::from(LOOSE)),
        &mib(unacc),
        "±64 MiB",
    );
    br(
        r,
        snap,
        "AnonPages",
        "memory.breakdown.apps_bytes",
        &|k| mem(k, "AnonPages"),
        LOOSE,
    );
    br(
        r,
        snap,
        "MemFree",
        "memory.breakdown.free_bytes",
        &|k| mem(k, "MemFree"),
        LOOSE,
    );
    br(
        r,
        snap,
        "Shmem",
        "memory.breakdown.shmem_bytes",
        &|k| mem(k, "Shmem"),
        LOOSE,
    );
}

/// zswap's pool and what it stores, from meminfo (and debugfs as root), and the ratios of the
/// two.
fn zswap_sizes(r: &mut Report, snap: &Snap, ps: u64, root: bool) {
    let (j, kb, ka) = (&snap.json, &snap.before, &snap.after);
    // zswap: sizes
    br(
        r,
        snap,
        "meminfo Zswap",
        "zswap.pool_bytes",
        &|k| mem(k, "Zswap"),
        0,
    );
    if root {
        br(
            r,
            snap,
            "debugfs pool_total_size",
            "zswap.pool_bytes",
            &|k| k.dbg("pool_total_size"),
            0,
        );
    }
    let src = s(j, "zswap.pool_source");
    r.check(
        "zswap.pool_source is \"meminfo\"",
        src == Some("meminfo"),
        &report::show(report::at(j, "zswap.pool_source")),
        "meminfo",
    );
    br(
        r,
        snap,
        "meminfo Zswapped",
        "zswap.stored_bytes",
        &|k| mem(k, "Zswapped"),
        0,
    );
    if root {
        br(
            r,
            snap,
            "debugfs stored_pages × page",
            "zswap.stored_bytes",
            &|k| k.dbg_bytes("stored_pages"),
            0,
        );
        br(
            r,
            snap,
            "debugfs stored_pages",
            "zswap.stored_pages",
            &|k| k.dbg("stored_pages"),
            0,
        );
    } else {
        br(
            r,
            snap,
            "Zswapped / page",
            "zswap.stored_pages",
            &|k| Some(mem(k, "Zswapped")? / ps),
            0,
        );
    }
    // Signed: a nearly empty pool of incompressible pages costs more than it stores.
    let saved =
        |k: &Kernel| -> Option<f64> { Some(mem(k, "Zswapped")? as f64 - mem(k, "Zswap")? as f64) };
    r.bracket_f(
        "zswap.saved_bytes vs Zswapped − Zswap (signed)",
        f(j, "zswap.saved_bytes"),
        saved(kb),
        saved(ka),
        0.0,
    );
    let ratio = |k: &Kernel| -> Option<f64> {
        let pool = mem(k, "Zswap")?;
        (pool > 0).then(|| mem(k, "Zswapped").unwrap_or(0) as f64 / pool as f64)
    };
    r.bracket_f(
        "zswap.compression_ratio vs Zswapped/Zswap",
        f(j, "zswap.compression_ratio"),
        ratio(kb),
        ratio(ka),
        0.005,
    );
}

/// As root: what only debugfs tells, every one of its files value by value.
fn zswap_debugfs(r: &mut Report, snap: &Snap, root: bool) {
    let (j, kb, ka) = (&snap.json, &snap.before, &snap.after);
    if root {
        // Same-filled pages (≤ 6.11: entries without pool memory) and incompressible ones
        // (6.18+: a page each) taken out; neither count in the kernel: no such ratio.
        let cratio = |k: &Kernel| -> Option<f64> {
            let same = k.dbg_bytes("same_filled_pages");
            let inc = k.dbg_bytes("stored_incompressible_pages");
            if same.is_none() && inc.is_none() {
                return None;
            }
            let (same, inc) = (same.unwrap_or(0), inc.unwrap_or(0));
            let den = k.dbg("pool_total_size")?.checked_sub(inc)?;
            let num = k.dbg_bytes("stored_pages")?.checked_sub(inc + same)?;
            (den > 0).then(|| num as f64 / den as f64)
        };
        r.bracket_f(
            "zswap.compressor_ratio vs (stored−same−incompr)/(pool−incompr)",
            f(j, "zswap.compressor_ratio"),
            cratio(kb),
            cratio(ka),
            0.005,
        );
        br(
            r,
            snap,
            "debugfs stored_incompressible_pages × page",
            "zswap.incompressible_bytes",
            &|k| k.dbg_bytes("stored_incompressible_pages"),
            0,
        );
        if kb.dbg("same_filled_pages").is_none() {
            r.check(
                "zswap.same_filled_bytes is null (no same_filled_pages file)",
                is_null(j, "zswap.same_filled_bytes"),
                &report::show(report::at(j, "zswap.same_filled_bytes")),
                "null",
            );
        }
        // Every debugfs file, value by value.
        let names: Vec<String> = kb
            .debugfs
            .as_ref()
            .map(|d| d.keys().cloned().collect())
            .unwrap_or_default();
        for name in names {
            br(
                r,
                snap,
                &format!("debugfs {name}"),
                &format!("zswap.debugfs.{name}"),
                &|k| k.dbg(&name),
                0,
            );
        }
    }
}

/// zswap's parameters as zswaptop shows them, and the pool limit and threshold made of them.
fn zswap_limits(r: &mut Report, snap: &Snap, ps: u64) {
    let (j, kb, ka) = (&snap.json, &snap.before, &snap.after);
    // zswap: parameters and limits
    let params = &kb.params;
    let pct: u64 = params
        .get("max_pool_percent")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let thr: u64 = params
        .get("accept_threshold_percent")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let enabled = params.get("enabled").map(|v| v == "Y");
    r.check(
        "zswap.enabled vs parameters/enabled",
        b(j, "zswap.enabled") == enabled,
        &report::show(report::at(j, "zswap.enabled")),
        &enabled
            .map(|e| e.to_string())
            .unwrap_or_else(|| "null".into()),
    );
    r.exact(
        "zswap.max_pool_percent vs parameter",
        i(j, "zswap.max_pool_percent"),
        Some(i128::from(pct)),
    );
    let comp = params.get("compressor").cloned().unwrap_or_default();
    r.check(
        "zswap.compressor vs parameter",
        s(j, "zswap.compressor") == Some(comp.as_str()),
        &report::show(report::at(j, "zswap.compressor")),
        &comp,
    );
    if let Some(sh) = params.get("shrinker_enabled") {
        r.check(
            "zswap.shrinker_enabled vs parameter",
            b(j, "zswap.shrinker_enabled") == Some(sh == "Y"),
            &report::show(report::at(j, "zswap.shrinker_enabled")),
            sh,
        );
    }
    // zswap_max_pages() = totalram_pages() * max_pool_percent / 100; accept = max * thr / 100.
    let max_pages = |k: &Kernel| Some(mem(k, "MemTotal")? / ps * pct / 100);
    let limit = max_pages(kb).map(|p| p * ps);
    r.exact(
        "zswap.pool_limit_bytes = MemTotal pages × pct / 100 × page",
        i(j, "zswap.pool_limit_bytes"),
        limit.map(i128::from),
    );
    r.exact(
        "zswap.accept_threshold_bytes = limit pages × thr / 100 × page",
        i(j, "zswap.accept_threshold_bytes"),
        max_pages(kb).map(|p| i128::from(p * thr / 100 * ps)),
    );
    br(
        r,
        snap,
        "max(0, limit − Zswap)",
        "zswap.pool_headroom_bytes",
        &|k| Some(limit?.saturating_sub(mem(k, "Zswap")?)),
        0,
    );
    let used_pct =
        |k: &Kernel| -> Option<f64> { Some(mem(k, "Zswap")? as f64 * 100.0 / limit? as f64) };
    r.bracket_f(
        "zswap.pool_limit_used_percent vs Zswap/limit×100",
        f(j, "zswap.pool_limit_used_percent"),
        used_pct(kb),
        used_pct(ka),
        0.005,
    );
}

/// Swap in use and where each part of it is: zswap, the swap cache, zram, the devices.
fn swap(r: &mut Report, snap: &Snap, ps: u64) {
    let j = &snap.json;
    // swap
    br(
        r,
        snap,
        "SwapFree",
        "swap.free_bytes",
        &|k| mem(k, "SwapFree"),
        0,
    );
    br(
        r,
        snap,
        "SwapTotal",
        "swap.total_bytes",
        &|k| mem(k, "SwapTotal"),
        0,
    );
    br(
        r,
        snap,
        "SwapTotal − SwapFree",
        "swap.used_bytes",
        &Kernel::swap_used,
        0,
    );
    br(
        r,
        snap,
        "Zswapped",
        "swap.in_zswap_bytes",
        &|k| mem(k, "Zswapped"),
        0,
    );
    // The swap cache less what zswap or zram also holds (a page read back stays in both where
    // loads are not exclusive): min(SwapCached, used − Zswapped − zram orig).
    br(
        r,
        snap,
        "min(SwapCached, used − Zswapped − zram orig)",
        "swap.in_swap_cache_bytes",
        &|k| {
            let compressed = mem(k, "Zswapped")? + k.zram_swap_orig();
            Some(mem(k, "SwapCached")?.min(k.swap_used()?.saturating_sub(compressed)))
        },
        0,
    );
    br(
        r,
        snap,
        "zram orig_data_size (active swap)",
        "swap.in_zram_bytes",
        &|k| Some(k.zram_swap_orig()),
        0,
    );
    // Computed from four values read at slightly different instants inside the kernel.
    br(
        r,
        snap,
        "used − Zswapped − SwapCached − zram orig",
        "swap.not_in_ram_bytes",
        &Kernel::not_in_ram,
        4 * ps,
    );
    let parts: Option<i128> = [
        "swap.in_zswap_bytes",
        "swap.in_swap_cache_bytes",
        "swap.in_zram_bytes",
        "swap.not_in_ram_bytes",
    ]
    .iter()
    .map(|p| i(j, p))
    .sum();
    r.exact(
        "swap.used = in_zswap + in_swap_cache + in_zram + not_in_ram",
        i(j, "swap.used_bytes"),
        parts,
    );
}

/// Each swap device against its `/proc/swaps` row.
fn swap_devices(r: &mut Report, snap: &Snap) {
    let (j, kb, ka) = (&snap.json, &snap.before, &snap.after);
    let devices = report::at(j, "swap.devices")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    r.exact(
        "swap.devices count vs /proc/swaps rows",
        Some(devices.len() as i128),
        Some(kb.swaps.len() as i128),
    );
    for row in &kb.swaps {
        let dev = devices
            .iter()
            .find(|d| d.get("path").and_then(Value::as_str) == Some(row.path.as_str()));
        let name = format!("swap.devices[{}]", row.path);
        let Some(dev) = dev else {
            r.check(&format!("{name} present"), false, "absent", "present");
            continue;
        };
        r.exact(
            &format!("{name}.size_bytes vs /proc/swaps Size"),
            i(dev, "size_bytes"),
            Some(i128::from(row.size_kb * 1024)),
        );
        let used = |k: &Kernel| {
            k.swaps
                .iter()
                .find(|x| x.path == row.path)
                .map(|x| x.used_kb * 1024)
        };
        r.bracket(
            &format!("{name}.used_bytes vs /proc/swaps Used"),
            u(dev, "used_bytes"),
            used(kb),
            used(ka),
            0,
        );
        r.exact(
            &format!("{name}.priority"),
            i(dev, "priority"),
            Some(i128::from(row.priority)),
        );
    }
}

/// The swap counters of vmstat, and the capacity the pools leave.
fn counters_and_capacity(r: &mut Report, snap: &Snap) {
    // vmstat counters
    for key in [
        "zswpin",
        "zswpout",
        "zswpwb",
        "pswpin",
        "pswpout",
        "swpin_zero",
        "swpout_zero",
    ] {
        br(
            r,
            snap,
            &format!("vmstat {key}"),
            &format!("vmstat.{key}"),
            &|k| k.vm(key),
            0,
        );
    }

    // capacity: MemTotal + SwapTotal less what the pools cost
    br(
        r,
        snap,
        "MemTotal + SwapTotal − Zswap − zram mem_used",
        "capacity.effective_now_bytes",
        &|k| {
            Some(
                (mem(k, "MemTotal")? + mem(k, "SwapTotal")?)
                    .saturating_sub(mem(k, "Zswap")? + k.zram_mem_used()),
            )
        },
        0,
    );
}
