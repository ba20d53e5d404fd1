//! Phase 2, zswap writes back: the pool limit lowered to 1 % while the workload is pushed out
//! again, so the pool hits its limit, the shrink worker writes entries back to the swapfile and
//! rejected stores go to disk. A two-sample run (`-i 2`) in that window has its rates and the
//! swapfile's disk I/O checked against the kernel's; `--cgroups` shows the test's cgroup.

use std::fs;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use serde_json::Value;

use super::{cycle, d};
use crate::capture;
use crate::checks;
use crate::context::{Ctx, Snap, run_zswaptop};
use crate::kernel::{self, BlockStat, FileDevice, Kernel};
use crate::machine;
use crate::rep;
use crate::report::{self, b, f, i, is_null, s, u};
use crate::workload::Handle;

/// How long phase 2 keeps pushing pages for the zswap shrink worker to write some back.
const WRITEBACK_BUDGET: Duration = Duration::from_secs(40);

/// The two-sample run taken while the workload was pushed out, with the kernel and the
/// swapfile's disk read around it.
struct Window {
    json: Value,
    status: ExitStatus,
    before: Kernel,
    after: Kernel,
    io: (BlockStat, BlockStat),
}

pub fn run(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    let ps = ctx.ps;
    rep().phase(
        "phase2 — writeback (max_pool_percent 1: pool limit hit, shrink worker writes back)",
    );
    let k0 = ctx.settle("before lowering the limit")?;
    // The swapfile's disk, found independently of zswaptop, and its I/O counters at the start of
    // this phase (the window the write check below covers).
    let dev = kernel::file_device(machine::SWAPFILE)?;
    let io0 = kernel::block_stat(&dev.dir)?;
    kernel::set_param("max_pool_percent", "1")?;
    // A two-sample snapshot (--once -i 2) runs while the workload is pushed out again: its
    // rates are checked against the counters the kernel moved in that window.
    let window = pushed_out_under_a_sampler(ctx, wl, &dev)?;
    more_rounds_until_written_back(ctx, wl, &k0)?;
    // Settled: every swap write has completed and is in the device's counters.
    let k_end = ctx.settle_quiet()?;
    let io_end = kernel::block_stat(&dev.dir)?;
    let res = wl.resident()?;
    let snap = ctx.snap(false)?;
    let k1 = &snap.after;
    counters_moved(&k0, k1);
    checks::every_phase(&snap, ps, true);
    written_back(&snap, &k0, ps);
    rates_checks(
        &window.json,
        window.status,
        &window.before,
        &window.after,
        ps,
    );
    device_checks(
        &window.json,
        &dev,
        window.io,
        d(&window.after, &window.before, |k| k.vm("pswpout")),
    );
    writeback_on_disk(&dev, (io0, io_end), (&k0, &k_end), ps);
    cgroups_checks(&window.json, ctx.cg.kind);
    cgroup_values(ctx)?;
    settled_rates_are_zero(ctx)?;
    capture::phase(
        ctx,
        "e2e-phase2-writeback",
        wl.pid,
        &snap,
        &capture::readme(
            "e2e phase 2: zswap writeback to the swapfile",
            wl,
            res,
            k1,
            "After phase 1, max_pool_percent was lowered to 1 and the workload rewrote one byte of every page (a \
             write fault: each page came back from zswap and lost its swap slot) in 5 % steps, each pushed out \
             again at once by reclaiming the cgroup. The pool hit its limit (pool_limit_hit), the shrink worker wrote entries back to the swapfile \
             (written_back_pages = vmstat zswpwb) and rejected stores went to disk directly (pswpout). Pages are now \
             in zswap, on disk and zero-filled.",
        ),
        false,
    )?;
    Ok(())
}

/// Every page of the workload rewritten and pushed out again in 5 % steps while a two-sample
/// snapshot (`--once -i 2`) runs.
fn pushed_out_under_a_sampler(ctx: &Ctx, wl: &mut Handle, dev: &FileDevice) -> Result<Window> {
    let before = Kernel::read()?;
    let io_before = kernel::block_stat(&dev.dir)?;
    let bin = ctx.bin.clone();
    let sampler = std::thread::spawn(move || run_zswaptop(&bin, &["-i", "2", "--cgroups"], false));
    let t = Instant::now();
    let touched = cycle(&ctx.cg, wl, 0, 100)?;
    println!(
        "  touched {touched} pages in 5 % steps, each paged out, in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    let (json, status) = sampler
        .join()
        .map_err(|_| anyhow!("the rates sampler thread panicked"))??;
    let after = Kernel::read()?;
    let io_after = kernel::block_stat(&dev.dir)?;
    Ok(Window {
        json,
        status,
        before,
        after,
        io: (io_before, io_after),
    })
}

/// Every store attempt while the pool is over its limit queues the shrink worker, but the
/// worker gives each entry a second chance (referenced bit) and gives up after 16 of them, so
/// on a cgroup-v1 machine it writes back only a trickle. More 5 % rounds, within a time budget,
/// until it has written at least one page back.
fn more_rounds_until_written_back(ctx: &Ctx, wl: &mut Handle, k0: &Kernel) -> Result<()> {
    let budget = Instant::now();
    let mut step = 0;
    let mut rounds = 0;
    loop {
        let k = ctx.settle_quiet()?;
        if d(&k, k0, |k| k.dbg("written_back_pages")) > 0 || budget.elapsed() > WRITEBACK_BUDGET {
            break;
        }
        wl.cmd(&format!("touch {step} {}", step + 5))?;
        ctx.cg.reclaim()?;
        step = (step + 5) % 100;
        rounds += 1;
    }
    println!(
        "  {rounds} more 5 % round(s) in {:.1}s for the shrink worker to write back",
        budget.elapsed().as_secs_f64()
    );
    Ok(())
}

/// What the kernel did in the phase: the pool hit its limit, the shrink worker wrote back (or
/// the row says why not), pages went to disk.
fn counters_moved(k0: &Kernel, k1: &Kernel) {
    let mut r = rep();
    r.at_least(
        "kernel Δpool_limit_hit > 0",
        Some(d(k1, k0, |k| k.dbg("pool_limit_hit"))),
        1,
    );
    let wb = d(k1, k0, |k| k.dbg("written_back_pages"));
    if wb == 0 {
        r.skip(
            "kernel Δwritten_back_pages > 0",
            &format!(
                "the shrink worker wrote nothing back within {}s (cgroup v1: second-chance LRU); the \
                 writeback counters are still compared below",
                WRITEBACK_BUDGET.as_secs()
            ),
        );
    } else {
        r.at_least("kernel Δwritten_back_pages > 0", Some(wb), 1);
        r.at_least(
            "kernel Δvmstat zswpwb > 0",
            Some(d(k1, k0, |k| k.vm("zswpwb"))),
            1,
        );
    }
    r.at_least(
        "kernel Δvmstat pswpout > 0",
        Some(d(k1, k0, |k| k.vm("pswpout"))),
        1,
    );
}

/// zswaptop's writeback figures against the kernel's counters.
fn written_back(snap: &Snap, k0: &Kernel, ps: u64) {
    let k1 = &snap.after;
    let mut r = rep();
    let j = &snap.json;
    r.bracket(
        "zswap.debugfs.written_back_pages vs vmstat zswpwb (same counter on 6.8+)",
        u(j, "zswap.debugfs.written_back_pages"),
        snap.before.vm("zswpwb"),
        snap.after.vm("zswpwb"),
        0,
    );
    let wb = d(k1, k0, |k| k.dbg("written_back_pages"));
    let pin = d(k1, k0, |k| k.vm("pswpin"));
    let bound = i128::from(wb) - i128::from(pin);
    r.note(&format!(
        "every page zswap wrote back ({wb} this phase) is on disk until read back; at most Δpswpin = {pin} were \
         read back, so at least {bound} pages of swap.not_in_ram are on disk"
    ));
    r.at_least(
        "swap.not_in_ram_bytes/page ≥ Δwritten_back − Δpswpin",
        u(j, "swap.not_in_ram_bytes").map(|v| v / ps),
        bound,
    );
    r.check(
        "rates is null without -i (one sample)",
        is_null(j, "rates"),
        &report::show(report::at(j, "rates")),
        "null",
    );
}

/// Settled now: a two-sample snapshot must show every swap rate as exactly 0.
fn settled_rates_are_zero(ctx: &Ctx) -> Result<()> {
    let kb = Kernel::read()?;
    let (j, _) = run_zswaptop(&ctx.bin, &["-i", "0.5"], false)?;
    let ka = Kernel::read()?;
    let mut r = rep();
    for c in ["zswpout", "zswpin", "zswpwb", "pswpout", "pswpin"] {
        let moved = d(&ka, &kb, |k| k.vm(c));
        let v = f(&j, &format!("rates.{c}_bytes_per_sec"));
        r.check(
            &format!("settled: rates.{c}_bytes_per_sec is 0 (kernel Δ{c} {moved})"),
            v == Some(0.0) || (moved > 0 && v.is_some_and(|v| v >= 0.0)),
            &report::show(report::at(&j, &format!("rates.{c}_bytes_per_sec"))),
            "0",
        );
    }
    Ok(())
}

/// Checks a two-sample snapshot taken while pages moved. zswaptop's second sample must lie between
/// the kernel readings around the run, and the first sample it implies (second − rate × interval)
/// must lie between the reading before the run and the second sample (±1 page for rounding).
fn rates_checks(j: &Value, status: std::process::ExitStatus, kb: &Kernel, ka: &Kernel, ps: u64) {
    let mut r = rep();
    r.check(
        "zswaptop --once --json -i 2 exits 0",
        status.success(),
        &status.to_string(),
        "exit status: 0",
    );
    let dt = f(j, "rates.interval_seconds");
    r.check(
        "rates.interval_seconds ≈ 2",
        dt.is_some_and(|v| (1.9..10.0).contains(&v)),
        &report::show(report::at(j, "rates.interval_seconds")),
        "2 s",
    );
    let dt = dt.unwrap_or(0.0);
    let implied = |second: Option<u64>, rate: Option<f64>, unit: f64| -> Option<u64> {
        let moved = (rate? * dt / unit).round();
        (moved >= 0.0).then(|| second?.checked_sub(moved as u64))?
    };
    for c in [
        "zswpout",
        "zswpin",
        "zswpwb",
        "pswpout",
        "pswpin",
        "swpout_zero",
        "swpin_zero",
    ] {
        let second = u(j, &format!("vmstat.{c}"));
        r.bracket(
            &format!("-i 2: vmstat.{c} (second sample)"),
            second,
            kb.vm(c),
            ka.vm(c),
            0,
        );
        let rate = f(j, &format!("rates.{c}_bytes_per_sec"));
        r.bracket(
            &format!("-i 2: vmstat.{c} − rates.{c}_bytes_per_sec × interval / page"),
            implied(second, rate, ps as f64),
            kb.vm(c),
            second,
            1,
        );
    }
    r.at_least(
        "-i 2: rates.zswpin_bytes_per_sec > 0 (pages came back from zswap in the window)",
        f(j, "rates.zswpin_bytes_per_sec").map(|v| v as u64),
        1,
    );
    for c in ["written_back_pages", "pool_limit_hit"] {
        let second = u(j, &format!("zswap.debugfs.{c}"));
        r.bracket(
            &format!("-i 2: zswap.debugfs.{c} (second sample)"),
            second,
            kb.dbg(c),
            ka.dbg(c),
            0,
        );
        r.bracket(
            &format!("-i 2: debugfs {c} − rates.debugfs_per_sec.{c} × interval"),
            implied(second, f(j, &format!("rates.debugfs_per_sec.{c}")), 1.0),
            kb.dbg(c),
            second,
            1,
        );
    }
    // bypassed = Δpswpout − Δzswpwb (at least 0), from the same two samples.
    let out = f(j, "rates.pswpout_bytes_per_sec");
    let wb = f(j, "rates.zswpwb_bytes_per_sec");
    let want = out.zip(wb).map(|(o, w)| (o - w).max(0.0));
    r.bracket_f(
        "-i 2: rates.bypassed_zswap_bytes_per_sec = pswpout − zswpwb rate",
        f(j, "rates.bypassed_zswap_bytes_per_sec"),
        want,
        want,
        0.001,
    );
}

/// Phase 2, the `-i 2` run: the swapfile's device is the one `stat -c %d` names, and its I/O
/// counters lie between the readings taken around the run.
fn device_checks(
    j: &Value,
    dev: &kernel::FileDevice,
    (before, after): (kernel::BlockStat, kernel::BlockStat),
    swapped_out: u64,
) {
    let mut r = rep();
    r.note(&format!(
        "{}: stat -c %d → {} → /sys/dev/block/{} = {} (disk {})",
        machine::SWAPFILE,
        dev.devnum,
        dev.devnum,
        dev.dir.display(),
        dev.disk
    ));
    let entry = report::at(j, "swap.devices")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .find(|d| d.get("path").and_then(Value::as_str) == Some(machine::SWAPFILE))
                .cloned()
        })
        .unwrap_or(Value::Null);
    r.check(
        "swapfile: block_device is its st_dev device (stat -c %d)",
        s(&entry, "block_device") == Some(dev.name.as_str()),
        &report::show(entry.get("block_device")),
        &dev.name,
    );
    r.check(
        "swapfile: io.device is that device",
        s(&entry, "io.device") == Some(dev.name.as_str()),
        &report::show(report::at(&entry, "io.device")),
        &dev.name,
    );
    let disks: Vec<&str> = report::at(&entry, "disks")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    r.check(
        "swapfile: disks is the disk below it",
        disks == [dev.disk.as_str()],
        &format!("{disks:?}"),
        &format!("[{:?}]", dev.disk),
    );
    const SECTOR: u64 = 512;
    let second = u(&entry, "io.write_total_bytes");
    r.bracket(
        "swapfile: io.write_total_bytes vs stat write sectors × 512",
        second,
        Some(before.write_sectors * SECTOR),
        Some(after.write_sectors * SECTOR),
        0,
    );
    r.bracket(
        "swapfile: io.read_total_bytes vs stat read sectors × 512",
        u(&entry, "io.read_total_bytes"),
        Some(before.read_sectors * SECTOR),
        Some(after.read_sectors * SECTOR),
        0,
    );
    // The first sample zswaptop's rate implies: second − rate × interval.
    let dt = f(j, "rates.interval_seconds").unwrap_or(0.0);
    let rate = f(&entry, "io.write_bytes_per_sec");
    let implied = match (second, rate) {
        (Some(b), Some(v)) if v >= 0.0 => b.checked_sub((v * dt).round() as u64),
        _ => None,
    };
    r.bracket(
        "swapfile: io.write_total_bytes − write_bytes_per_sec × interval",
        implied,
        Some(before.write_sectors * SECTOR),
        second,
        SECTOR,
    );
    let busy = f(&entry, "io.busy_percent");
    r.check(
        "swapfile: io.busy_percent in 0..=100",
        busy.is_some_and(|b| (0.0..=100.0).contains(&b)),
        &busy.map_or("null".into(), |b| format!("{b:.1}")),
        "0..=100",
    );
    if swapped_out > 0 {
        r.at_least(
            "swapfile: io.write_bytes_per_sec > 0 (pswpout moved in the window)",
            rate.map(|v| v as u64),
            1,
        );
    }
}

/// Phase 2 over the whole phase: what swap wrote out (pswpout: zswap writeback and rejected
/// stores) went to the swapfile's disk, so the disk's written bytes rose at least as much. Other
/// writers on the disk can only add to it.
fn writeback_on_disk(
    dev: &kernel::FileDevice,
    (io0, io1): (kernel::BlockStat, kernel::BlockStat),
    (k0, k1): (&Kernel, &Kernel),
    ps: u64,
) {
    const SLACK_PAGES: u64 = 16;
    let mut r = rep();
    let written = io1.write_sectors.saturating_sub(io0.write_sectors) * 512;
    let pswpout = d(k1, k0, |k| k.vm("pswpout"));
    let bound = i128::from(pswpout * ps) - i128::from(SLACK_PAGES * ps);
    r.note(&format!(
        "phase 2 window: {} wrote {} sectors = {written} B ({} write requests); vmstat pswpout +{pswpout} pages \
         = {} B; slack {SLACK_PAGES} pages",
        dev.name,
        io1.write_sectors.saturating_sub(io0.write_sectors),
        io1.write_ios.saturating_sub(io0.write_ios),
        pswpout * ps
    ));
    r.at_least(
        &format!(
            "Δ{} write sectors × 512 ≥ Δpswpout × page − slack",
            dev.name
        ),
        Some(written),
        bound,
    );
}

/// At a quiet moment: the test's cgroup's memory and swap as `--once --cgroups` prints them,
/// against the kernel's own files read just before and after the run (v1
/// `memory.usage_in_bytes` and memory.stat `total_swap`; v2 `memory.current` and
/// `memory.swap.current`).
fn cgroup_values(ctx: &Ctx) -> Result<()> {
    let dir = &ctx.cg.dir;
    let read = || -> Result<(u64, u64)> {
        let num = |f: &str| -> Result<u64> { Ok(kernel::read_trim(dir.join(f))?.parse()?) };
        Ok(match ctx.cg.kind {
            machine::CgroupKind::V1 => {
                let stat = fs::read_to_string(dir.join("memory.stat"))?;
                let swap = stat
                    .lines()
                    .find_map(|l| l.strip_prefix("total_swap "))
                    .ok_or_else(|| anyhow!("no total_swap in memory.stat"))?
                    .trim()
                    .parse()?;
                (num("memory.usage_in_bytes")?, swap)
            }
            machine::CgroupKind::V2 => (num("memory.current")?, num("memory.swap.current")?),
        })
    };
    let before = read()?;
    let (j, status) = run_zswaptop(&ctx.bin, &["--cgroups"], false)?;
    let after = read()?;
    let row = test_cgroup(&j);
    let mut r = rep();
    r.check(
        "--once --cgroups at rest exits 0",
        status.success(),
        &status.to_string(),
        "success",
    );
    // The kernel's stats flush is rate-limited (memory.stat may lag the page counter by its
    // per-CPU batches): 1 MiB of slack.
    let slack = 1 << 20;
    r.bracket(
        "cgroups[test].memory_current_bytes vs the kernel's page counter",
        row.and_then(|c| u(c, "memory_current_bytes")),
        Some(before.0),
        Some(after.0),
        slack,
    );
    r.bracket(
        "cgroups[test].swap_current_bytes vs the kernel's swap figure",
        row.and_then(|c| u(c, "swap_current_bytes")),
        Some(before.1),
        Some(after.1),
        slack,
    );
    Ok(())
}

/// The test's cgroup in `cgroups.list`, if listed.
fn test_cgroup(j: &Value) -> Option<&Value> {
    report::at(j, "cgroups.list")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| {
            c.get("path")
                .and_then(Value::as_str)
                .is_some_and(|p| p.ends_with(machine::CGROUP_NAME))
        })
}

/// `--cgroups`: on cgroup v1 the test's cgroup is listed with memory and swap (the kernel keeps
/// both there), its zswap figures null with the reason (v1 neither charges nor reports zswap per
/// cgroup), never zeros.
fn cgroups_checks(j: &Value, kind: machine::CgroupKind) {
    let mut r = rep();
    match kind {
        machine::CgroupKind::V1 => {
            r.check(
                "--cgroups on cgroup v1: cgroups.available, version 1",
                b(j, "cgroups.available") == Some(true) && i(j, "cgroups.version") == Some(1),
                &format!(
                    "{} v{}",
                    report::show(report::at(j, "cgroups.available")),
                    report::show(report::at(j, "cgroups.version"))
                ),
                "true v1",
            );
            let row = test_cgroup(j);
            r.check(
                "--cgroups on cgroup v1: the test's cgroup is listed with memory and swap",
                row.is_some_and(|c| {
                    u(c, "memory_current_bytes").is_some() && u(c, "swap_current_bytes").is_some()
                }),
                &row.map_or("not listed".to_string(), |c| {
                    format!(
                        "memory {} swap {}",
                        report::show(c.get("memory_current_bytes")),
                        report::show(c.get("swap_current_bytes"))
                    )
                }),
                "memory and swap",
            );
            let zswap_null =
                row.is_some_and(|c| is_null(c, "zswap_bytes") && is_null(c, "zswapped_bytes"));
            let reason = s(j, "cgroups.zswap_missing").unwrap_or("");
            r.check(
                "--cgroups on cgroup v1: zswap per cgroup null, with the reason",
                zswap_null && reason.contains("v1"),
                reason,
                "null, …v1…",
            );
        }
        machine::CgroupKind::V2 => {
            let listed = test_cgroup(j).is_some();
            r.check(
                "--cgroups on cgroup v2: the test's cgroup is listed",
                b(j, "cgroups.available") == Some(true) && listed,
                &report::show(report::at(j, "cgroups.available")),
                "true, listed",
            );
        }
    }
}
