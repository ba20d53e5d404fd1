//! Phase 1, zswap absorbs a workload of known pages (zero-filled, random, compressible) pushed
//! out of its memory cgroup: every figure against the kernel, the pages the kernel holds against
//! what the workload put out, `--top 5` ranking the workload first. Then 1b: half of it read back
//! in, so the swap cache holds mapped pages, counted once.

use std::time::Instant;

use anyhow::{Result, bail};
use serde_json::Value;

use super::{d, pages, tol};
use crate::capture;
use crate::checks;
use crate::context::{Ctx, Snap, run_zswaptop};
use crate::kernel::{self, Kernel};
use crate::machine;
use crate::rep;
use crate::report::{self, i, s, u};
use crate::workload::{Handle, Resident};

/// Phases 1 and 1b; the workload they started, for the phases after them.
pub fn run(ctx: &Ctx) -> Result<Handle> {
    let mut wl = absorbs(ctx)?;
    read_back(ctx, &mut wl)?;
    Ok(wl)
}

fn absorbs(ctx: &Ctx) -> Result<Handle> {
    let ps = ctx.ps;
    rep().phase("phase1 — zswap absorbs (enabled, shrinker off, max_pool_percent 20)");
    kernel::set_params_to_keep()?;
    kernel::set_param("enabled", "Y")?;
    if kernel::read_debugfs().is_err() {
        bail!(
            "{} is not readable after enabling zswap",
            kernel::ZSWAP_DEBUGFS
        );
    }
    let k0 = ctx.settle("before the workload")?;
    let t = Instant::now();
    let mut wl = Handle::spawn(|pid| ctx.cg.add(pid))?;
    println!(
        "  workload {} filled {} in {:.1}s: zero {}, random {}, compressible {}",
        wl.pid,
        pages(wl.pages, ps),
        t.elapsed().as_secs_f64(),
        wl.zero,
        wl.random,
        wl.compressible
    );
    ctx.cg.reclaim()?;
    ctx.settle("after reclaiming the cgroup")?;
    let res = wl.resident()?;
    let snap = ctx.snap(false)?;
    let k1 = &snap.after;
    {
        let r = rep();
        r.note(&format!(
            "workload out of RAM: zero {} / random {} / compressible {} pages (resident {} / {} / {})",
            wl.zero - res.zero,
            wl.random - res.random,
            wl.compressible - res.compressible,
            res.zero,
            res.random,
            res.compressible
        ));
    }
    checks::every_phase(&snap, ps, true);
    pushed_out(&wl, res, &k0, &snap, ps);
    process_checks(ctx, wl.pid)?;
    capture::phase(
        ctx,
        "e2e-phase1-zswap",
        wl.pid,
        &snap,
        &capture::readme(
            "e2e phase 1: zswap absorbs the workload",
            &wl,
            res,
            k1,
            "zswap enabled, shrinker off, max_pool_percent 20, a 1.5 GiB swapfile as the only swap device. The \
             workload filled its region under the cgroup limit, then reclaiming the cgroup (memory.force_empty on \
             cgroup v1, memory.reclaim on v2) pushed the rest out: every non-zero \
             page is in zswap (random ones stored as-is: stored_incompressible_pages), the zero-filled pages hold a \
             swap slot through the swap zeromap (vmstat swpout_zero), nothing went to disk (pswpout unchanged).",
        ),
        false,
    )?;
    Ok(wl)
}

/// What the workload put out of RAM against what the kernel holds of it (pagemap, debugfs,
/// vmstat), and zswaptop's figures of it.
fn pushed_out(wl: &Handle, res: Resident, k0: &Kernel, snap: &Snap, ps: u64) {
    let k1 = &snap.after;
    let mut r = rep();
    // pagemap: every page the workload wrote is either mapped or has a swap entry, so the
    // pages not resident are exactly the pages swapped out.
    r.near(
        "workload pages with a swap entry (pagemap) vs its pages not present in RAM",
        Some(res.swapped),
        wl.pages - (res.zero + res.random + res.compressible),
        0,
    );
    let random_out = wl.random - res.random;
    let zero_out = wl.zero - res.zero;
    let nonzero_out = random_out + wl.compressible - res.compressible;
    r.near(
        "kernel Δstored_incompressible_pages vs workload random pages out",
        Some(d(k1, k0, |k| k.dbg("stored_incompressible_pages"))),
        random_out,
        tol(random_out),
    );
    r.near(
        "kernel Δstored_pages vs workload non-zero pages out",
        Some(d(k1, k0, |k| k.dbg("stored_pages"))),
        nonzero_out,
        tol(nonzero_out),
    );
    let zero_net =
        d(k1, k0, |k| k.vm("swpout_zero")).saturating_sub(d(k1, k0, |k| k.vm("swpin_zero")));
    r.near(
        "kernel Δswpout_zero − Δswpin_zero vs workload zero pages out",
        Some(zero_net),
        zero_out,
        tol(zero_out),
    );
    r.near(
        "kernel Δpswpout (nothing reached the disk)",
        Some(d(k1, k0, |k| k.vm("pswpout"))),
        0,
        0,
    );
    r.near(
        "zswaptop incompressible_bytes/page vs workload random pages out",
        u(&snap.json, "zswap.incompressible_bytes")
            .map(|v| v / ps - k0.dbg("stored_incompressible_pages").unwrap_or(0)),
        random_out,
        tol(random_out),
    );
    let base = k0.not_in_ram().unwrap_or(0) / ps;
    r.note(&format!(
        "not_in_ram = what was outside RAM before ({base} pages) + the zero-filled pages swapped since \
         (Δswpout_zero − Δswpin_zero = {zero_net}) + the disk (Δpswpout − Δpswpin = {})",
        d(k1, k0, |k| k.vm("pswpout")) as i64 - d(k1, k0, |k| k.vm("pswpin")) as i64
    ));
    r.near(
        "zswaptop swap.not_in_ram_bytes/page vs zero-filled pages out",
        u(&snap.json, "swap.not_in_ram_bytes").map(|v| v / ps),
        base + zero_out,
        tol(zero_out),
    );
}

/// Half of the workload swapped back in by reads: those pages stay in the swap cache while
/// mapped again, in both AnonPages and SwapCached (mm/swap_state.c keeps it there while mapped).
/// The breakdown counts them once, and unaccounted stays small (`checks`).
fn read_back(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    let ps = ctx.ps;
    rep().phase("phase1b — half of the workload read back in (mapped swap cache)");
    let t = Instant::now();
    let read = wl.cmd("read 0 50")?;
    ctx.settle("after reading half back")?;
    println!("  {read} in {:.1}s", t.elapsed().as_secs_f64());
    let snap = ctx.snap(false)?;
    checks::every_phase(&snap, ps, true);
    {
        let mut r = rep();
        r.check(
            "workload read back every page as written",
            read.contains(" wrong=0"),
            &read,
            "wrong=0",
        );
        r.at_least(
            "memory.swap_cache_mapped_bytes/page after reading half back",
            u(&snap.json, "memory.swap_cache_mapped_bytes").map(|v| v / ps),
            1,
        );
    }
    Ok(())
}

/// Phase 1: `--top 5` ranks the workload first, with the kernel's VmSwap, and estimates its zswap
/// share from the global ratio on a v1 machine (from its cgroup on v2).
fn process_checks(ctx: &Ctx, pid: u32) -> Result<()> {
    let vm_before = kernel::vm_swap(pid)?;
    let kb = Kernel::read()?;
    let (j, status) = run_zswaptop(&ctx.bin, &["--top", "5"], false)?;
    let ka = Kernel::read()?;
    let vm_after = kernel::vm_swap(pid)?;
    let mut r = rep();
    r.check(
        "zswaptop --once --json --top 5 exits 0",
        status.success(),
        &status.to_string(),
        "exit status: 0",
    );
    let top = report::at(&j, "processes.top")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    r.check(
        "processes.top has 1 to 5 rows",
        (1..=5).contains(&top.len()),
        &top.len().to_string(),
        "1..=5",
    );
    let first = top.first().cloned().unwrap_or(Value::Null);
    r.exact(
        "processes.top.0.pid is the workload's",
        i(&first, "pid"),
        Some(i128::from(pid)),
    );
    r.bracket(
        "processes.top.0.swap_bytes vs /proc/PID/status VmSwap",
        u(&first, "swap_bytes"),
        Some(vm_before),
        Some(vm_after),
        0,
    );
    r.at_least(
        "processes.total_swap_bytes ≥ the workload's VmSwap",
        u(&j, "processes.total_swap_bytes"),
        i128::from(vm_before.min(vm_after)),
    );
    let from = s(&first, "estimate_from");
    match ctx.cg.kind {
        machine::CgroupKind::V1 => {
            r.check(
                "processes.top.0.estimate_from is \"global ratio\" (cgroup v1)",
                from == Some("global ratio"),
                &report::show(first.get("estimate_from")),
                "global ratio",
            );
            // VmSwap × Zswapped ÷ (SwapTotal − SwapFree), rounded; zswaptop reads VmSwap and
            // meminfo at two instants, so every pairing of the readings around it bounds it.
            let est = |vm: u64, k: &Kernel| -> Option<u64> {
                let (z, used) = (u128::from(k.mem("Zswapped")?), u128::from(k.swap_used()?));
                (used > 0).then(|| {
                    let z = z.min(used);
                    u64::try_from((u128::from(vm) * z + used / 2) / used).unwrap_or(u64::MAX)
                })
            };
            let all: Vec<u64> = [
                (vm_before, &kb),
                (vm_before, &ka),
                (vm_after, &kb),
                (vm_after, &ka),
            ]
            .iter()
            .filter_map(|(vm, k)| est(*vm, k))
            .collect();
            r.bracket(
                "processes.top.0.zswap_estimate_bytes vs VmSwap × Zswapped ÷ swap used",
                u(&first, "zswap_estimate_bytes"),
                all.iter().min().copied(),
                all.iter().max().copied(),
                1,
            );
            r.note(&format!(
                "workload {pid}: VmSwap {vm_before} → {vm_after} B; Zswapped {} B of {} B swap used",
                ka.mem("Zswapped").unwrap_or(0),
                ka.swap_used().unwrap_or(0)
            ));
        }
        machine::CgroupKind::V2 => {
            r.check(
                "processes.top.0.estimate_from is \"cgroup\" (cgroup v2)",
                from == Some("cgroup"),
                &report::show(first.get("estimate_from")),
                "cgroup",
            );
        }
    }
    Ok(())
}
