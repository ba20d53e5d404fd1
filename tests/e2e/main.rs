//! End-to-end test of `zswaptop --once --json` against the live kernel under real memory pressure.
//!
//! A `harness = false` test binary. Run as root on Linux with zswap and a memory cgroup, it:
//! sets up a swapfile, a 256 MiB memory cgroup and a workload with known page contents
//! (`machine`, `workload`), drives the kernel through its phases in order, one file each under
//! `phases/` (zswap absorbs, writeback, zram, no root, the advisor, record and replay, zram
//! devices churned), and compares every value zswaptop prints with the kernel files read right
//! before and right after it (`checks`, `kernel`, `report`). Everything it changes is undone on
//! success, failure, panic, SIGINT/SIGTERM and timeout (`machine::restore`), and the machine's
//! swap, zswap parameters and cgroup tree are compared with their state before the test.
//!
//! It changes the machine's swap, zswap parameters, zram and cgroups while it runs, so plain
//! `cargo test` never runs it: it needs `ZSWAPTOP_E2E=1` (`.ci/run` sets it). Without that, and
//! elsewhere (not root, not Linux, no zswap, no memory cgroup, zram0 already in use) it prints
//! `SKIPPED: <reason>` and exits 0.
//!
//! Environment:
//! - `ZSWAPTOP_E2E=1`: run (anything else: skip).
//! - `ZSWAPTOP_E2E_SAVE_FIXTURES=DIR`: save the phase captures as DIR/e2e-phase* (default: a tempdir).
//! - `ZSWAPTOP_E2E_TIMEOUT_SECS`: the watchdog (default 300, and the forecast phase's
//!   `BUDGET_SECS` more when it runs).
//! - `ZSWAPTOP_E2E_WORKLOAD_MIB`: the workload size (default 768).
//! - `ZSWAPTOP_E2E_PHASES=advise`: only the advisor's phase (`advise.rs`), after the same setup;
//!   `=forecast`: only the forecast phase (`forecast.rs`).
//! - `ZSWAPTOP_E2E_ROLE=workload`: internal, this binary acting as the workload.

mod capture;
mod checks;
mod context;
#[path = "../shared/forecast_suite.rs"]
mod forecast_suite;
mod kernel;
mod machine;
mod phases;
mod readings;
mod report;
mod workload;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use report::Report;

static REPORT: Mutex<Report> = Mutex::new(Report::new());
/// Set by whichever of main, the watchdog and the signal handler finishes the run first.
static FINISHING: AtomicBool = AtomicBool::new(false);

/// The shared comparison table.
pub fn rep() -> std::sync::MutexGuard<'static, Report> {
    REPORT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn main() -> ExitCode {
    let role = std::env::var(workload::ROLE_VAR);
    if role.as_deref() == Ok(workload::ROLE_WORKLOAD) {
        return match workload::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("workload: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    if role.as_deref() == Ok(phases::forecast::ROLE_FILLER) {
        return match phases::forecast::filler() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("filler: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(reason) = skip_reason() {
        println!("SKIPPED: {reason}");
        return ExitCode::SUCCESS;
    }
    run_test()
}

fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

fn skip_reason() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("not Linux".into());
    }
    if std::env::var("ZSWAPTOP_E2E").as_deref() != Ok("1") {
        return Some(
            "changes swap, zswap, zram and cgroups on this machine; set ZSWAPTOP_E2E=1 to run it \
             (as root, on a machine made for it)"
                .into(),
        );
    }
    if euid() != 0 {
        return Some(format!("needs root (euid {})", euid()));
    }
    if !Path::new("/sys/module/zswap").exists() {
        return Some("no zswap in this kernel (/sys/module/zswap missing)".into());
    }
    if machine::memory_controller().is_none() {
        return Some("no memory cgroup controller (neither cgroup2 nor v1 memory)".into());
    }
    if let Some(n) = machine::zram0_disksize().filter(|n| *n != 0) {
        return Some(format!(
            "zram0 is already in use (disksize {n}); its numbers would not be ours"
        ));
    }
    for tool in ["fallocate", "mkswap", "swapon", "swapoff", "mount"] {
        let found = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).exists()))
            .unwrap_or(false);
        if !found {
            return Some(format!("{tool} not found on PATH"));
        }
    }
    None
}

fn timeout() -> Duration {
    let secs = std::env::var("ZSWAPTOP_E2E_TIMEOUT_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if phases::advise_only() {
            300
        } else {
            300 + phases::forecast::BUDGET_SECS
        });
    Duration::from_secs(secs)
}

/// The machine put back and compared with `baseline`; the table's summary.
fn finish(baseline: Option<&machine::Baseline>) {
    machine::restore(baseline);
    rep().summary();
}

fn run_test() -> ExitCode {
    let started = Instant::now();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_zswaptop"));
    println!("zswaptop end-to-end test: {}", bin.display());
    println!(
        "kernel {}, page size {}, {} CPUs, timeout {}s",
        kernel::read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        kernel::page_size(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
        timeout().as_secs()
    );
    let foreign = machine::foreign_swaps();
    if !foreign.is_empty() {
        println!(
            "note: other swap devices are active ({foreign:?}); the test adds its own and only compares deltas"
        );
    }

    if let Err(e) = machine::clean_leftovers() {
        println!("cleanup of an earlier run failed: {e:#}");
        rep().check("cleanup of an earlier run", false, &format!("{e:#}"), "ok");
        rep().summary();
        return ExitCode::FAILURE;
    }
    let baseline = match machine::Baseline::read() {
        Ok(b) => b,
        Err(e) => {
            println!("cannot read the machine state: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    println!("before: swapon --show {:?}", baseline.swapon.trim());
    println!("before: zswap parameters {:?}", baseline.params);

    spawn_watchdog(baseline.clone());
    spawn_signal_handler(baseline.clone());

    let outcome = std::panic::catch_unwind(AssertUnwindSafe(setup_and_run));
    if FINISHING.swap(true, Ordering::SeqCst) {
        // The watchdog or a signal handler is tearing down and will exit the process.
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    let failed_to_run = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("error: {e:#}")),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_default();
            Some(format!("panic: {msg}"))
        }
    };
    if let Some(msg) = &failed_to_run {
        println!("\n{msg}");
        rep().check("the phases ran to the end", false, msg, "no error");
    }
    finish(Some(&baseline));
    println!("wall time {:.1}s", started.elapsed().as_secs_f64());
    if rep().failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn setup_and_run() -> Result<()> {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_zswaptop"));
    if !bin.exists() {
        bail!("{} does not exist (cargo build first)", bin.display());
    }
    let cg = machine::setup()?;
    let ctx = context::Ctx::new(bin, cg)?;
    phases::run(&ctx)
}

fn spawn_watchdog(baseline: machine::Baseline) {
    let limit = timeout();
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        if FINISHING.swap(true, Ordering::SeqCst) {
            return;
        }
        println!(
            "\nTIMEOUT: the test ran past {}s; killing the workload and tearing down",
            limit.as_secs()
        );
        rep().check(
            "finished within the time limit",
            false,
            &format!(">{}s", limit.as_secs()),
            "in time",
        );
        finish(Some(&baseline));
        std::process::exit(1);
    });
}

fn spawn_signal_handler(baseline: machine::Baseline) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        println!("note: could not install the signal handler");
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            if FINISHING.swap(true, Ordering::SeqCst) {
                return;
            }
            println!("\ninterrupted by signal {sig}: tearing down");
            rep().check("not interrupted", false, &format!("signal {sig}"), "none");
            finish(Some(&baseline));
            std::process::exit(128 + sig);
        }
    });
}
