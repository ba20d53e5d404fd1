//! The phases, in the order they run on one machine: zswap absorbs a workload (`zswap`), zswap
//! writes back to the swapfile (`writeback`), zram0 takes it (`zram`), what uid 65534 can read
//! (`noroot`), the one screen of zswap + zram + disk (`screen`), the workload's data intact,
//! the advisor's predictions against the kernel (`advise`); then the forecasts, hit ratio,
//! device latency, faults and the writeback-stalled finding against what the kernel did, on
//! workloads of their own (`forecast`); then every recorded run read back (`record`) and zram
//! devices added and removed (`churn`). Each compares `zswaptop --once --json` with the kernel
//! read right before and right after it (`crate::checks`), and the first four capture a
//! fixture tree.

mod advise;
mod churn;
pub mod forecast;
mod noroot;
pub mod record;
mod screen;
mod writeback;
mod zram;
mod zswap;

use std::time::Instant;

use anyhow::Result;
use serde_json::Value;

use crate::checks::MIB;
use crate::context::Ctx;
use crate::kernel::{self, Kernel};
use crate::machine::Cgroup;
use crate::rep;
use crate::report;
use crate::workload::Handle;

/// `ZSWAPTOP_E2E_PHASES=advise`: only the advisor's phase.
pub fn advise_only() -> bool {
    std::env::var("ZSWAPTOP_E2E_PHASES").as_deref() == Ok("advise")
}

/// Runs every phase in order. After a phase fails, the recorded runs are still read back and the
/// devices still churned; the first error is what the run returns.
pub fn run(ctx: &Ctx) -> Result<()> {
    if advise_only() {
        // The advisor's phase alone: no recorded --once runs, no device churn.
        return advise::run(ctx);
    }
    if forecast::only() {
        // The forecast phase alone, its runs read back (with only the recorded fills,
        // `ZSWAPTOP_E2E_FORECAST_STEPS=fills`, there are none).
        let done = forecast::run(ctx);
        if !forecast::fills_only() {
            record::check(&ctx.bin);
        }
        return done;
    }
    let done = on_one_workload(ctx);
    let forecast = forecast::run(ctx);
    record::check(&ctx.bin);
    let churned = churn::run();
    done.and(forecast).and(churned)
}

/// The phases that share one workload, alive from the first to the check that its data is
/// intact; then the advisor's, which starts its own.
fn on_one_workload(ctx: &Ctx) -> Result<()> {
    let mut wl = zswap::run(ctx)?;
    writeback::run(ctx, &mut wl)?;
    zram::run(ctx, &mut wl)?;
    noroot::run(ctx, &mut wl)?;
    screen::run(ctx, &mut wl)?;
    intact(wl)?;
    advise::run(ctx)
}

/// Every page of the workload still holds what was written, after zswap, writeback and zram.
fn intact(mut wl: Handle) -> Result<()> {
    rep().phase("end — workload data intact after zswap, writeback and zram");
    let t = Instant::now();
    let reply = wl.cmd("verify")?;
    rep().near(
        &format!(
            "pages differing from what was written ({:.1}s)",
            t.elapsed().as_secs_f64()
        ),
        crate::workload::field(&reply, "bad"),
        0,
        0,
    );
    wl.finish()
}

fn pages(n: u64, ps: u64) -> String {
    format!("{n} pages ({:.1} MiB)", (n * ps) as f64 / MIB as f64)
}

fn d(after: &Kernel, before: &Kernel, f: impl Fn(&Kernel) -> Option<u64>) -> u64 {
    f(after).unwrap_or(0).saturating_sub(f(before).unwrap_or(0))
}

fn tol(n: u64) -> u64 {
    (n / 100).max(16)
}

/// Rewrites one byte of the pages from `from` % to `to` % in 5 % steps, paging each step out at
/// once. Pages going to disk stay under writeback for a while, and a cgroup-v1 charge that finds
/// only such pages to reclaim ends in the cgroup's OOM killer; [`Cgroup::reclaim`] never charges,
/// so the cgroup limit is not what pushes here. Returns the number of pages touched.
fn cycle(cg: &Cgroup, wl: &mut Handle, from: u64, to: u64) -> Result<u64> {
    let mut touched = 0;
    let mut step = from;
    while step < to {
        let reply = wl.cmd(&format!("touch {step} {}", (step + 5).min(to)))?;
        touched += crate::workload::field(&reply, "pages").unwrap_or(0);
        cg.reclaim()?;
        wait_for_writeback();
        step += 5;
    }
    Ok(touched)
}

/// Wait (at most 3 s) until few pages are under writeback, so the next step's faults find pages
/// the cgroup can reclaim rather than only pages still in flight to disk (which on cgroup v1
/// ends in the cgroup's OOM killer).
fn wait_for_writeback() {
    const LOW: u64 = 1024 * 1024;
    let deadline = Instant::now() + std::time::Duration::from_secs(3);
    while Instant::now() < deadline {
        let in_flight = kernel::Kernel::read()
            .ok()
            .and_then(|k| k.mem("Writeback"))
            .unwrap_or(0);
        if in_flight <= LOW {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn zram_entry(j: &Value) -> Option<Value> {
    report::at(j, "zram")?
        .as_array()?
        .iter()
        .find(|z| z.get("device").and_then(Value::as_str) == Some("zram0"))
        .cloned()
}
