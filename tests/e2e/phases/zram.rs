//! Phase 3, zram: zswap off, zram0 set up as the preferred swap device (priority 100) and the
//! workload paged into it. Every figure of zram0 against its `mm_stat`, and what the kernel did
//! with the workload's pages (random ones as huge pages, zero-filled ones not at all).

use std::time::Instant;

use anyhow::Result;
use serde_json::Value;

use super::{cycle, d, tol, zram_entry};
use crate::capture;
use crate::checks;
use crate::context::{Ctx, Snap};
use crate::kernel::{self, Kernel};
use crate::machine;
use crate::rep;
use crate::report::{self, Report, b, f, i, s, u};
use crate::workload::{Handle, Resident};

/// The phase, unless zram0 is missing or someone else's (the table says so).
pub fn run(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    rep().phase("phase3 — zram (zswap off, zram0 swap at priority 100)");
    match machine::zram0_disksize() {
        None => rep().skip("phase 3", "no /sys/block/zram0 on this kernel"),
        Some(n) if n != 0 => rep().skip(
            "phase 3",
            &format!("zram0 is in use by someone else (disksize {n})"),
        ),
        Some(_) => paged_into_zram(ctx, wl)?,
    }
    Ok(())
}

fn paged_into_zram(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    let ps = ctx.ps;
    kernel::set_param("enabled", "N")?;
    let alg = machine::zram_setup("1G")?;
    println!("  zram0: {alg}, 1 GiB, swapon -p 100");
    let k0 = ctx.settle("zram0 ready")?;
    let t = Instant::now();
    let touched = cycle(&ctx.cg, wl, 0, 100)?;
    println!(
        "  touched {touched} pages in 5 % steps, each paged out, in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    ctx.settle("after reclaim to zram")?;
    let res = wl.resident()?;
    let snap = ctx.snap(false)?;
    let k1 = &snap.after;
    checks::every_phase(&snap, ps, true);
    let mut r = rep();
    device_figures(&mut r, &snap, &alg);
    // Residency is read again after the kernel snapshot (`workload_in_zram`).
    let res2 = wl.resident()?;
    workload_in_zram(&mut r, wl, (res, res2), (&k0, k1), ps);
    drop(r);
    capture::phase(
        ctx,
        "e2e-phase3-zram",
        wl.pid,
        &snap,
        &capture::readme(
            "e2e phase 3: zram0 as the preferred swap device",
            wl,
            res,
            k1,
            &format!(
                "zswap disabled (pages already in it stay until loaded), zram0 initialised ({alg}, disksize 1 GiB, \
                 mkswap, swapon -p 100) above the swapfile. The workload rewrote one byte of every page (each came \
                 back from zswap or disk and lost its slot), in 5 % steps each paged out at once: non-zero pages are in zram \
                 (random ones as huge_pages), zero-filled pages only hold swap slots (zeromap)."
            ),
        ),
        false,
    )?;
    Ok(())
}

/// zram0 as zswaptop shows it against the kernel's files: every `mm_stat` column and the ratios
/// made of them, its size, algorithm and state, its share of the breakdown, its swap priority.
fn device_figures(r: &mut Report, snap: &Snap, alg: &str) {
    let (j, k1) = (&snap.json, &snap.after);
    let z = zram_entry(j);
    r.check(
        "zram has an entry for zram0",
        z.is_some(),
        &report::show(report::at(j, "zram")),
        "device zram0",
    );
    let z = z.unwrap_or(Value::Null);
    let mm = |k: &Kernel| k.zram0;
    type Col = fn(&kernel::MmStat) -> u64;
    let rows: [(&str, Col); 11] = [
        ("orig_data_bytes", |m| m.orig),
        ("compr_data_bytes", |m| m.compr),
        ("mem_used_bytes", |m| m.mem_used),
        ("mem_limit_bytes", |m| m.mem_limit),
        ("mem_used_max_bytes", |m| m.mem_used_max),
        ("huge_pages", |m| m.huge_pages),
        ("huge_pages_since", |m| m.huge_pages_since),
        ("pages_compacted", |m| m.pages_compacted),
        ("same_pages", |m| m.same_pages),
        // derived: mem_used − compr and orig − mem_used
        ("allocator_overhead_bytes", |m| {
            m.mem_used.saturating_sub(m.compr)
        }),
        ("saved_bytes", |m| m.orig.saturating_sub(m.mem_used)),
    ];
    for (key, get) in rows {
        r.bracket(
            &format!("zram[zram0].{key} vs mm_stat"),
            u(&z, key),
            mm(&snap.before).map(|m| get(&m)),
            mm(k1).map(|m| get(&m)),
            0,
        );
    }
    let eff = |k: &Kernel| {
        k.zram0
            .and_then(|m| (m.mem_used > 0).then(|| m.orig as f64 / m.mem_used as f64))
    };
    r.bracket_f(
        "zram[zram0].effective_ratio vs orig/mem_used",
        f(&z, "effective_ratio"),
        eff(&snap.before),
        eff(k1),
        0.005,
    );
    let ratio = |k: &Kernel| {
        k.zram0
            .and_then(|m| (m.compr > 0).then(|| m.orig as f64 / m.compr as f64))
    };
    r.bracket_f(
        "zram[zram0].compression_ratio vs orig/compr",
        f(&z, "compression_ratio"),
        ratio(&snap.before),
        ratio(k1),
        0.005,
    );
    r.exact(
        "zram[zram0].disksize_bytes",
        i(&z, "disksize_bytes"),
        Some(1 << 30),
    );
    r.check(
        "zram[zram0].algorithm",
        s(&z, "algorithm") == Some(alg),
        &report::show(z.get("algorithm")),
        alg,
    );
    r.check(
        "zram[zram0].is_swap",
        b(&z, "is_swap") == Some(true),
        &report::show(z.get("is_swap")),
        "true",
    );
    r.check(
        "zram[zram0].initialized",
        b(&z, "initialized") == Some(true),
        &report::show(z.get("initialized")),
        "true",
    );
    let zsum: i128 = report::at(j, "zram")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|z| i(z, "mem_used_bytes")).sum())
        .unwrap_or(0);
    r.exact(
        "memory.breakdown.zram_pool_bytes == Σ zram[].mem_used_bytes",
        i(j, "memory.breakdown.zram_pool_bytes"),
        Some(zsum),
    );
    let prio = report::at(j, "swap.devices")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .find(|d| d.get("path").and_then(Value::as_str) == Some("/dev/zram0"))
                .cloned()
        });
    r.exact(
        "swap.devices[/dev/zram0].priority",
        prio.as_ref().and_then(|p| i(p, "priority")),
        Some(100),
    );
}

/// What the kernel did with the workload (the test's expectations, not zswaptop's numbers).
/// Residency was read before and again after the kernel snapshot, so a page reclaimed in between
/// counts on either side; a page still in the swap cache is both resident and in zram, so the
/// kernel may be above "pages out" by up to SwapCached.
fn workload_in_zram(
    r: &mut Report,
    wl: &Handle,
    (res, res2): (Resident, Resident),
    (k0, k1): (&Kernel, &Kernel),
    ps: u64,
) {
    let outs = |r: &Resident| {
        let random = wl.random - r.random;
        (random, random + wl.compressible - r.compressible)
    };
    let ((r1, n1), (r2, n2)) = (outs(&res), outs(&res2));
    let cached = k1.mem("SwapCached").unwrap_or(0) / ps;
    r.note(&format!(
        "workload pages out: random {r1} then {r2}, non-zero {n1} then {n2}; swap cache {cached} pages"
    ));
    let (lo, hi) = (r1.min(r2), r1.max(r2) + cached);
    r.bracket(
        "kernel zram huge_pages vs workload random pages out",
        k1.zram0.map(|m| m.huge_pages),
        Some(lo),
        Some(hi),
        tol(lo),
    );
    let (lo, hi) = (n1.min(n2), n1.max(n2) + cached);
    r.bracket(
        "kernel zram orig_data_size/page vs workload non-zero pages out",
        k1.zram0.map(|m| m.orig / ps),
        Some(lo),
        Some(hi),
        tol(lo),
    );
    r.note(&format!(
        "zero-filled pages never reach zram: they take a swap slot through the zeromap (Δswpout_zero {}), same_pages {}",
        d(k1, k0, |k| k.vm("swpout_zero")),
        k1.zram0.map(|m| m.same_pages).unwrap_or(0)
    ));
}
