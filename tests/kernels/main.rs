//! The kernel matrix: zswaptop on the kernels users run, each booted under QEMU.
//!
//! A `harness = false` test binary. For each kernel (Debian 12's 6.1, where zswap runs on zbud by
//! default; Debian 13's 6.12; sid's newest) `scripts/kernel-matrix.sh` fetches Debian's package
//! through an apt of its own, builds an initramfs (busybox, the modules, a static zswaptop, the
//! workload of `workload.c`, `guest.sh` as /init) and boots it with `qemu-system-x86_64 -accel
//! tcg` (or kvm, below). The guest runs the scenarios that kernel offers (every zswap allocator × compressor,
//! swap-ins with and without exclusive loads, writeback, zram with each algorithm, zswap + zram +
//! disk, no root, all inside a cgroup v2 memory controller; zram writeback to a brd ram disk and
//! recompression where the kernel has them: `scenario-zram.sh`, checked by `zram.rs`; swap-in
//! latency by tier from zswaptop's BPF programs against a disk throttled to 200 requests a
//! second: `scenario-bpf.sh`, checked by `bpf.rs`) and brings
//! back, for each moment, the kernel's files read right before and right after `zswaptop --once
//! --json --cgroups`.
//! Here every figure is compared with those files by the end-to-end test's own comparisons
//! (`tests/e2e/checks.rs`, on the captured files through `tests/e2e/readings.rs`), the JSON is
//! validated against the shipped schema, the one screen is held to 80×24 uncut, the cgroup's
//! figures to its `memory.*` files, and the advisor's prediction per allocator and algorithm to
//! the ratio the kernel then achieved (±5 %).
//!
//! Environment:
//! - `ZSWAPTOP_KERNELS=1` (all three) or a list (`6.1,6.12,newest`): run; anything else: SKIPPED.
//!   `arm64` in the list (never in `1`): Debian 13's arm64 kernel under `qemu-system-aarch64
//!   -machine virt -cpu max` with the static arm64 zswaptop, the scenarios on the kernel's
//!   defaults only (`QUICK=1` in `guest.sh`: emulating another architecture is slower).
//!   `custom` (never in `1`): the kernel in `ZSWAPTOP_KERNEL_CUSTOM`, built elsewhere with what
//!   the scenarios need built in: `scripts/build-recomp-kernel.sh` makes Debian 13's 6.12 with
//!   `CONFIG_ZRAM_MULTI_COMP`, which none of Debian's kernels has, for zram recompression live.
//! - `ZSWAPTOP_KERNELS_BIN`: the static zswaptop to boot with (else `scripts/build-static.sh`);
//!   `ZSWAPTOP_KERNELS_BIN_ARM64` the arm64 one (else `TARGET=aarch64-unknown-linux-gnu
//!   scripts/build-static.sh`, SKIPPED where the cross toolchain is missing).
//! - `ZSWAPTOP_KERNELS_OUT`: where each kernel's console log and results go
//!   (default `target/kernel-matrix`).
//! - `ZSWAPTOP_KERNELS_JOBS`: guests booted at once (default 2).
//! - `ZSWAPTOP_KERNELS_ACCEL=kvm`: boot the x86_64 kernels with `-accel kvm -cpu host` (default
//!   `tcg`), where /dev/kvm is hardware virtualization; the swap-in probes' cost is then checked
//!   against its budgets (`bpf.rs`), which TCG cannot resolve. SKIPPED with the reason elsewhere,
//!   a PVM /dev/kvm (`kvm_pvm`, which boots only PVM guest kernels) included.
//! - `ZSWAPTOP_KERNELS_RECHECK=1`: boot nothing; check the results an earlier run left in
//!   `ZSWAPTOP_KERNELS_OUT` again (after a change to the comparisons).
//! - `ZSWAPTOP_KERNEL_CACHE`, `ZSWAPTOP_KERNELS_TIMEOUT`, `ZSWAPTOP_KERNELS_WORKLOAD_MIB`: see the script.
//!
//! A kernel the registry no longer serves, or a machine without qemu or the registry, is
//! `SKIPPED` with the reason, never a pass.

mod bpf;
mod cgroup;
#[allow(dead_code)]
#[path = "../e2e/checks.rs"]
mod checks;
mod guest;
#[allow(dead_code)]
#[path = "../e2e/readings.rs"]
mod readings;
#[allow(dead_code)]
#[path = "../e2e/report.rs"]
mod report;
mod zram;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use report::Report;

static REPORT: Mutex<Report> = Mutex::new(Report::new());

/// The shared comparison table.
pub fn rep() -> std::sync::MutexGuard<'static, Report> {
    REPORT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

const ALL: [&str; 3] = ["6.1", "6.12", "newest"];
/// The arm64 guest: booted only when named.
const ARM64: &str = "arm64";
/// A kernel built elsewhere (`ZSWAPTOP_KERNEL_CUSTOM`, see scripts/kernel-matrix.sh): booted only
/// when named; scripts/build-recomp-kernel.sh makes one with zram recompression built in.
const CUSTOM: &str = "custom";

fn main() -> ExitCode {
    let which = std::env::var("ZSWAPTOP_KERNELS").unwrap_or_default();
    let kernels: Vec<String> = match which.as_str() {
        "1" => ALL.iter().map(|k| k.to_string()).collect(),
        "" | "0" => {
            println!(
                "SKIPPED: boots Debian's kernels under QEMU (minutes); set ZSWAPTOP_KERNELS=1 \
                 (or a list: 6.1,6.12,newest) to run it"
            );
            return ExitCode::SUCCESS;
        }
        list => list.split(',').map(|k| k.trim().to_string()).collect(),
    };
    if let Some(bad) = kernels
        .iter()
        .find(|k| !ALL.contains(&k.as_str()) && k.as_str() != ARM64 && k.as_str() != CUSTOM)
    {
        println!("ZSWAPTOP_KERNELS: unknown kernel {bad:?} (6.1, 6.12, newest, arm64 or custom)");
        return ExitCode::FAILURE;
    }
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        println!("SKIPPED: the kernel matrix boots x86_64 Debian kernels on an x86_64 Linux host");
        return ExitCode::SUCCESS;
    }
    let started = Instant::now();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = if kernels.iter().any(|k| k != ARM64) {
        match static_binary(&root, None) {
            Ok(b) => Ok(b),
            Err(Boot::Skipped(e) | Boot::Failed(e)) => {
                println!("the static zswaptop could not be built: {e}");
                return ExitCode::FAILURE;
            }
            Err(Boot::Ran { .. }) => return ExitCode::FAILURE,
        }
    } else {
        Err(Boot::Failed("not built: no x86_64 kernel asked for".into()))
    };
    let arm_bin = if kernels.iter().any(|k| k == ARM64) {
        static_binary(&root, Some("aarch64-unknown-linux-gnu"))
    } else {
        Err(Boot::Failed("not built: arm64 not asked for".into()))
    };
    let bins: Vec<Result<PathBuf, Boot>> = kernels
        .iter()
        .map(|k| {
            if k == ARM64 {
                arm_bin.clone()
            } else {
                bin.clone()
            }
        })
        .collect();
    let out = std::env::var_os("ZSWAPTOP_KERNELS_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir(&root).join("kernel-matrix"));
    let jobs: usize = std::env::var("ZSWAPTOP_KERNELS_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .filter(|&j| j > 0)
        .unwrap_or(2);
    let shown: Vec<String> = [&bin, &arm_bin]
        .iter()
        .filter_map(|b| b.as_ref().ok())
        .map(|b| b.display().to_string())
        .collect();
    println!(
        "kernel matrix: {} with {} ({} at once), results in {}",
        kernels.join(", "),
        shown.join(" and "),
        jobs,
        out.display()
    );

    let runs = if std::env::var("ZSWAPTOP_KERNELS_RECHECK").as_deref() == Ok("1") {
        kernels
            .iter()
            .map(|k| {
                let seconds = std::fs::read_to_string(out.join(k).join("seconds"))
                    .ok()
                    .and_then(|s| s.trim().parse().ok());
                match seconds {
                    Some(seconds) => Boot::Ran { seconds },
                    None => Boot::Failed(format!("no earlier run in {}", out.join(k).display())),
                }
            })
            .collect()
    } else {
        boot_all(&root, &bins, &out, &kernels, jobs)
    };
    let mut skipped = Vec::new();
    for (kernel, run) in kernels.iter().zip(runs) {
        match run {
            Boot::Ran { seconds } => guest::check(kernel, &out.join(kernel), seconds),
            Boot::Skipped(reason) => {
                println!("{reason}");
                skipped.push(kernel.clone());
            }
            Boot::Failed(why) => {
                rep().phase(&format!("kernel {kernel}"));
                rep().check(
                    &format!("kernel {kernel}: the guest ran its scenarios"),
                    false,
                    &why,
                    "ran to its end",
                );
            }
        }
    }
    rep().summary();
    println!(
        "kernel matrix: wall time {:.0} s{}",
        started.elapsed().as_secs_f64(),
        if skipped.is_empty() {
            String::new()
        } else {
            format!(" (SKIPPED: {})", skipped.join(", "))
        }
    );
    if rep().failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|d| if d.is_absolute() { d } else { root.join(d) })
        .unwrap_or_else(|| root.join("target"))
}

/// `ZSWAPTOP_KERNELS_BIN` (`ZSWAPTOP_KERNELS_BIN_ARM64` for another `target`), or the build
/// `scripts/build-static.sh` makes; `Boot::Skipped` where that script cannot build for `target`
/// here (its exit status 2: no cross toolchain).
fn static_binary(root: &Path, target: Option<&str>) -> Result<PathBuf, Boot> {
    let var = if target.is_some() {
        "ZSWAPTOP_KERNELS_BIN_ARM64"
    } else {
        "ZSWAPTOP_KERNELS_BIN"
    };
    if let Some(b) = std::env::var_os(var) {
        let b = PathBuf::from(b);
        return if b.is_file() {
            Ok(b)
        } else {
            Err(Boot::Failed(format!("{var}={} is not a file", b.display())))
        };
    }
    let mut cmd = Command::new(root.join("scripts/build-static.sh"));
    if let Some(t) = target {
        cmd.env("TARGET", t);
    }
    println!(
        "building the static zswaptop (scripts/build-static.sh){}",
        target.map(|t| format!(" for {t}")).unwrap_or_default()
    );
    let out = cmd
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Boot::Failed(format!("scripts/build-static.sh: {e}")))?;
    if out.status.code() == Some(2) && target.is_some() {
        return Err(Boot::Skipped(format!(
            "SKIPPED: kernel {ARM64}: scripts/build-static.sh cannot build for {} here (it said why above)",
            target.unwrap_or_default()
        )));
    }
    if !out.status.success() {
        return Err(Boot::Failed(format!(
            "scripts/build-static.sh exited with {}",
            out.status
        )));
    }
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let path = root.join(path);
    path.is_file().then_some(path.clone()).ok_or_else(|| {
        Boot::Failed(format!(
            "scripts/build-static.sh printed {}",
            path.display()
        ))
    })
}

/// How one kernel's guest went.
#[derive(Clone)]
enum Boot {
    Ran { seconds: u64 },
    Skipped(String),
    Failed(String),
}

/// Every kernel through `scripts/kernel-matrix.sh`, `jobs` at a time, in the order given.
fn boot_all(
    root: &Path,
    bins: &[Result<PathBuf, Boot>],
    out: &Path,
    kernels: &[String],
    jobs: usize,
) -> Vec<Boot> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<Boot>>> = Mutex::new(kernels.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(kernels.len()) {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap_or_else(PoisonError::into_inner);
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(kernel) = kernels.get(i) else { break };
                    let boot = match bins.get(i) {
                        Some(Ok(bin)) => boot(root, bin, &out.join(kernel), kernel),
                        Some(Err(why)) => why.clone(),
                        None => Boot::Failed("no binary".into()),
                    };
                    results.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(boot);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .into_iter()
        .map(|b| b.unwrap_or_else(|| Boot::Failed("never started".into())))
        .collect()
}

fn boot(root: &Path, bin: &Path, dir: &Path, kernel: &str) -> Boot {
    let _ = std::fs::create_dir_all(dir);
    let started = Instant::now();
    println!(
        "kernel {kernel}: booting (log in {}/run.log)",
        dir.display()
    );
    let log = match std::fs::File::create(dir.join("run.log")) {
        Ok(f) => f,
        Err(e) => return Boot::Failed(format!("{}: {e}", dir.display())),
    };
    let status = Command::new(root.join("scripts/kernel-matrix.sh"))
        .arg(kernel)
        .arg(dir)
        .env("ZSWAPTOP_KERNELS_BIN", bin)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map(Stdio::from).unwrap_or(Stdio::null()))
        .stderr(Stdio::from(log))
        .status();
    let seconds = started.elapsed().as_secs();
    let text = std::fs::read_to_string(dir.join("run.log")).unwrap_or_default();
    match status.map(|s| s.code()) {
        Ok(Some(0)) => {
            println!("kernel {kernel}: the guest finished in {seconds} s");
            Boot::Ran { seconds }
        }
        Ok(Some(3)) => Boot::Skipped(
            text.lines()
                .find(|l| l.starts_with("SKIPPED:"))
                .unwrap_or("SKIPPED: (no reason given)")
                .to_string(),
        ),
        other => {
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            println!(
                "kernel {kernel}: scripts/kernel-matrix.sh failed ({other:?}) after {seconds} s:\n{}",
                tail.join("\n")
            );
            Boot::Failed(format!("exit {other:?}"))
        }
    }
}
