//! What happens next and what it costs, on the kernel: the forecasts, the swap-in hit ratio, the
//! device latency, who is faulting, and the writeback-stalled finding, each against what the
//! kernel did.
//!
//! 1. The zswap pool filled at a steady rate inside a memory cgroup (max_pool_percent 1): the
//!    forecast made 30 s into the fill must lie within ±25 % of the time `pool_limit_hit` really
//!    started rising.
//! 2. A swap area (a loop device, so that no other I/O shares its counters) filled at a steady
//!    rate with zswap off: the same for the time the area was full.
//! 3. The filler writes half of its pages back (swap-ins from the loop device, the evicted pages
//!    stored in zswap) and reads them again (loads from zswap): the hit ratio and the loop
//!    device's latencies equal what this test computes from /proc/vmstat and /proc/diskstats
//!    read around the interval, and the filler leads the processes by major faults per second.
//! 4. The pool full and refusing with the shrinker on while nothing can be written back, then
//!    the same with writeback possible: the finding fires in the first interval and stays quiet
//!    in one where pages were written back. Both pairs of samples are captured as fixture trees.
//!
//! The figures come from the library in-process, through [`figures`]: the one function to point
//! at `--once --json` once the forecast, hit ratio, latency and faults are in its output.
//!
//! Everything made here (processes, cgroups, the loop device and its file) is undone by
//! [`teardown`], which `main` runs with the rest; the zswap parameters are put back by the
//! machine's own teardown.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use zswaptop::diagnostics;
use zswaptop::model::Snapshot;
use zswaptop::model::cost::{self, AreaLatency};
use zswaptop::model::faults::{self, ProcessFaultRate};
use zswaptop::model::forecast::{Forecast, ForecastState, Forecaster, Target, observe};
use zswaptop::root::Root;
use zswaptop::sources::sampler::{SampleSource, Sampler};
use zswaptop::sources::{self, Extras, Sample};

use crate::kernel::{self, ZSWAP_DEBUGFS};
use crate::machine::{self, CgroupKind};
use crate::phases::Ctx;
use crate::rep;

/// The role of this binary acting as the filler.
pub const ROLE_FILLER: &str = "filler";
/// `BURST_MIB,TOTAL_MIB,RATE_MIB_PER_S`: write the first BURST MiB at once, the rest of TOTAL at
/// RATE.
const FILL_VAR: &str = "ZSWAPTOP_E2E_FILL";

const MIB: u64 = 1 << 20;
/// The memory cgroups' limit: what a filler holds in RAM before its pages go to swap.
const CGROUP_LIMIT: u64 = 64 * MIB;
/// The first part of a fill, written at once: below the cgroup's limit, so the steady rate is
/// what goes to swap once the cgroup is full.
const BURST_MIB: u64 = 48;
const LOOP_FILE: &str = "/swapfile-zswaptop-e2e-loop";
const LOOP_MIB: u64 = 512;
/// How far into a fill the forecast is made.
const FORECAST_AT: Duration = Duration::from_secs(30);
/// The forecast must be within this share of the time that really remained.
const FORECAST_TOLERANCE: f64 = 0.25;

/// `ZSWAPTOP_E2E_PHASES=forecast`: only this phase, after the usual setup.
pub fn only() -> bool {
    std::env::var("ZSWAPTOP_E2E_PHASES").as_deref() == Ok("forecast")
}

/// What this phase adds to the watchdog's time.
pub const BUDGET_SECS: u64 = 600;

// ------------------------------------------------------------------------------- undoing

#[derive(Debug, Default)]
struct Changes {
    pids: Vec<i32>,
    /// (device, backing file) of a swap area set up here.
    loop_area: Option<(String, PathBuf)>,
    cgroups: Vec<PathBuf>,
    torn_down: bool,
}

static CHANGES: Mutex<Changes> = Mutex::new(Changes {
    pids: Vec::new(),
    loop_area: None,
    cgroups: Vec::new(),
    torn_down: false,
});

fn changes() -> std::sync::MutexGuard<'static, Changes> {
    CHANGES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Undo what this phase set up, once: its processes, the loop swap area, its cgroups.
pub fn teardown() -> Vec<String> {
    let mut c = changes();
    if c.torn_down {
        return Vec::new();
    }
    c.torn_down = true;
    let mut errors = Vec::new();
    for pid in std::mem::take(&mut c.pids) {
        kill(pid);
    }
    if let Some((dev, file)) = c.loop_area.take() {
        if kernel::read_swaps().is_ok_and(|r| r.iter().any(|s| s.path == dev))
            && let Err(e) = machine::run("swapoff", &[&dev])
        {
            errors.push(format!("swapoff {dev}: {e:#}"));
        }
        if let Err(e) = machine::run("losetup", &["-d", &dev]) {
            errors.push(format!("losetup -d {dev}: {e:#}"));
        }
        if let Err(e) = std::fs::remove_file(&file) {
            errors.push(format!("rm {}: {e}", file.display()));
        }
        println!("teardown: loop swap area {dev} off and gone");
    }
    for dir in std::mem::take(&mut c.cgroups).into_iter().rev() {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            match std::fs::remove_dir(&dir) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(e) if Instant::now() > deadline => {
                    errors.push(format!("rmdir {}: {e}", dir.display()));
                    break;
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
        println!("teardown: rmdir {}", dir.display());
    }
    errors
}

fn kill(pid: i32) {
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    let p = nix::unistd::Pid::from_raw(pid);
    let _ = nix::sys::signal::kill(p, nix::sys::signal::Signal::SIGKILL);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match waitpid(p, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(20)),
            _ => return,
        }
    }
}

// ------------------------------------------------------------------------------- the filler

/// The filler's side: allocate the region, write BURST MiB at once, then the rest at the
/// steady rate (`steady` when it starts, `filled` at the end), then serve `touch A B` (write
/// fault on each page from A % to B %), `read A B` (read fault) and `exit`.
pub fn filler() -> Result<()> {
    let spec = std::env::var(FILL_VAR).context("the fill spec")?;
    let nums: Vec<f64> = spec
        .split(',')
        .map(|w| w.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("{FILL_VAR}={spec:?}"))?;
    let [burst, total, rate] = nums[..] else {
        bail!("{FILL_VAR} needs BURST,TOTAL,RATE");
    };
    let ps = kernel::page_size() as usize;
    let pages = (total * MIB as f64) as usize / ps;
    let burst_pages = ((burst * MIB as f64) as usize / ps).min(pages);
    let per_sec = rate * MIB as f64 / ps as f64;
    let mut out = std::io::stdout().lock();
    let mut lines = std::io::stdin().lock().lines();
    writeln!(out, "ready pid={}", std::process::id())?;
    out.flush()?;
    match lines.next() {
        Some(Ok(l)) if l.trim() == "go" => {}
        other => bail!("filler expected 'go', got {other:?}"),
    }
    // No THP: zswap sees one small folio per page, and the rate is in pages.
    nix::sys::prctl::set_thp_disable(true).context("prctl(PR_SET_THP_DISABLE)")?;
    // Zero-filled and untouched until written: the pages are charged as they are written.
    let mut buf = vec![0u8; pages * ps + ps];
    let start = buf.as_ptr().align_offset(ps);
    let mem = &mut buf[start..start + pages * ps];
    for (i, page) in mem.chunks_mut(ps).take(burst_pages).enumerate() {
        crate::workload::fill_page(i, page);
    }
    writeln!(out, "steady")?;
    out.flush()?;
    let t0 = Instant::now();
    for (n, (i, page)) in mem.chunks_mut(ps).enumerate().skip(burst_pages).enumerate() {
        crate::workload::fill_page(i, page);
        if n % 64 == 63 {
            let due = Duration::from_secs_f64((n + 1) as f64 / per_sec);
            if let Some(wait) = due.checked_sub(t0.elapsed()) {
                std::thread::sleep(wait);
            }
        }
    }
    writeln!(
        out,
        "filled pages={pages} secs={:.2}",
        t0.elapsed().as_secs_f64()
    )?;
    out.flush()?;
    for line in lines {
        let line = line?;
        let mut w = line.split_whitespace();
        let verb = w.next();
        let mut pct = w.filter_map(|x| x.parse::<usize>().ok());
        let (a, b) = (pct.next().unwrap_or(0), pct.next().unwrap_or(0));
        let range = a * pages / 100..b * pages / 100;
        match verb {
            Some("touch") => {
                for i in range.clone() {
                    // A write fault: the page comes back, loses its swap slot, and is dirty, so
                    // the next reclaim stores it again.
                    let b = std::hint::black_box(mem[i * ps]);
                    mem[i * ps] = std::hint::black_box(b);
                }
                writeln!(out, "ok touch pages={}", range.len())?;
            }
            Some("read") => {
                let mut sum = 0u64;
                for i in range.clone() {
                    sum = sum.wrapping_add(u64::from(std::hint::black_box(mem[i * ps])));
                }
                writeln!(out, "ok read pages={} sum={sum}", range.len())?;
            }
            Some("exit") | None => break,
            Some(other) => writeln!(out, "error unknown command {other}")?,
        }
        out.flush()?;
    }
    Ok(())
}

/// The test's handle on a filler: its lines come through a channel so that the test samples the
/// kernel while the filler writes.
struct Filler {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pid: u32,
}

impl Filler {
    /// Start a filler in `cgroup` (its `cgroup.procs` written before it touches memory).
    fn spawn(cgroup: &Path, burst_mib: u64, total_mib: u64, rate_mib: f64) -> Result<Filler> {
        let exe = std::env::current_exe().context("current_exe")?;
        let mut child = Command::new(exe)
            .env(crate::workload::ROLE_VAR, ROLE_FILLER)
            .env(FILL_VAR, format!("{burst_mib},{total_mib},{rate_mib}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting the filler")?;
        let pid = child.id();
        changes().pids.extend(i32::try_from(pid).ok());
        let stdin = child.stdin.take().ok_or_else(|| anyhow!("filler stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("filler stdout"))?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut f = Filler {
            child,
            stdin,
            lines,
            pid,
        };
        f.wait_for("ready", Duration::from_secs(10))?;
        kernel::write_str(cgroup.join("cgroup.procs"), &pid.to_string())?;
        f.send("go")?;
        Ok(f)
    }

    fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// The next line starting with `prefix`, within `timeout`.
    fn wait_for(&mut self, prefix: &str, timeout: Duration) -> Result<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.starts_with(prefix) => return Ok(l),
                Ok(l) if l.starts_with("error") => bail!("filler {}: {l}", self.pid),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    bail!("filler {} said no {prefix:?} within {timeout:?}", self.pid)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    bail!("filler {} ended before {prefix:?}", self.pid)
                }
            }
        }
    }

    /// Whether the filler has said `prefix` (without waiting).
    fn said(&mut self, prefix: &str) -> bool {
        self.lines.try_iter().any(|l| l.starts_with(prefix))
    }

    fn command(&mut self, cmd: &str, timeout: Duration) -> Result<String> {
        self.send(cmd)?;
        self.wait_for("ok", timeout)
    }

    fn stop(mut self) {
        if let Ok(pid) = i32::try_from(self.pid) {
            kill(pid);
            changes().pids.retain(|p| *p != pid);
        }
        let _ = self.child.wait();
    }
}

// ------------------------------------------------------------------------------- setup

/// A memory cgroup of this phase next to the e2e's own, limited to [`CGROUP_LIMIT`].
fn cgroup(ctx: &Ctx, name: &str) -> Result<PathBuf> {
    let parent = ctx
        .cg
        .dir
        .parent()
        .ok_or_else(|| anyhow!("the e2e cgroup has no parent"))?;
    let dir = parent.join(format!("{}-{name}", machine::CGROUP_NAME));
    if dir.exists() {
        bail!("{} exists already", dir.display());
    }
    std::fs::create_dir(&dir).with_context(|| format!("mkdir {}", dir.display()))?;
    changes().cgroups.push(dir.clone());
    let limit = match ctx.cg.kind {
        CgroupKind::V1 => "memory.limit_in_bytes",
        CgroupKind::V2 => "memory.max",
    };
    kernel::write_str(dir.join(limit), &CGROUP_LIMIT.to_string())?;
    Ok(dir)
}

const CGROUPS: [&str; 3] = ["fill", "hold", "push"];

/// What a killed earlier run of this phase may have left: its cgroups (their processes killed),
/// its loop swap area and file.
fn clean_leftovers(ctx: &Ctx) -> Result<()> {
    if let Some(parent) = ctx.cg.dir.parent() {
        for name in CGROUPS {
            let dir = parent.join(format!("{}-{name}", machine::CGROUP_NAME));
            if !dir.is_dir() {
                continue;
            }
            println!(
                "cleanup: {} left by an earlier run; removing",
                dir.display()
            );
            if let Ok(procs) = std::fs::read_to_string(dir.join("cgroup.procs")) {
                procs
                    .split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .for_each(kill);
            }
            changes().cgroups.push(dir);
        }
    }
    if Path::new(LOOP_FILE).exists() {
        let listed = machine::run("losetup", &["--noheadings", "-O", "NAME", "-j", LOOP_FILE])?;
        for dev in listed.split_whitespace() {
            println!("cleanup: {dev} over {LOOP_FILE} left by an earlier run; removing");
            if kernel::read_swaps()?.iter().any(|s| s.path == dev) {
                machine::run("swapoff", &[dev])?;
            }
            machine::run("losetup", &["-d", dev])?;
        }
        std::fs::remove_file(LOOP_FILE)?;
    }
    let mut c = changes();
    let dirs = std::mem::take(&mut c.cgroups);
    drop(c);
    for dir in dirs {
        let deadline = Instant::now() + Duration::from_secs(15);
        while let Err(e) = std::fs::remove_dir(&dir) {
            if Instant::now() > deadline {
                bail!("rmdir {}: {e}", dir.display());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Ok(())
}

/// A swap area on a loop device over a file, at the highest priority.
fn loop_area() -> Result<String> {
    machine::run("fallocate", &["-l", &format!("{LOOP_MIB}M"), LOOP_FILE])?;
    let dev = match machine::run("losetup", &["--find", "--show", LOOP_FILE]) {
        Ok(out) => out.trim().to_string(),
        Err(e) => {
            let _ = std::fs::remove_file(LOOP_FILE);
            return Err(e);
        }
    };
    changes().loop_area = Some((dev.clone(), PathBuf::from(LOOP_FILE)));
    machine::run("mkswap", &[&dev])?;
    machine::run("swapon", &["-p", "32000", &dev])?;
    Ok(dev)
}

// ------------------------------------------------------------------------------- figures

/// What zswaptop says over an interval, from two library samples: the place to read
/// `--once --json` instead once these figures are in it.
struct Figures {
    /// zswap.swapin_hit_ratio
    hit_ratio: Option<f64>,
    /// swap.devices[].read_latency_ms / write_latency_ms
    latencies: Vec<AreaLatency>,
    /// processes.top[].major_faults_per_sec, most first
    faulting: Vec<ProcessFaultRate>,
    /// diagnostics[].id
    findings: Vec<String>,
}

fn figures(prev: &Sample, curr: &Sample) -> Figures {
    let snap = diagnostics::judged(Snapshot::derive(curr, Some(prev)));
    Figures {
        hit_ratio: snap.rates.as_ref().and_then(cost::swapin_hit_ratio),
        latencies: cost::swap_area_latencies(prev, curr),
        faulting: curr
            .faults
            .as_ref()
            .map(faults::faulting)
            .unwrap_or_default(),
        findings: snap.diagnostics.iter().map(|f| f.id.clone()).collect(),
    }
}

/// forecast.zswap_pool_full_seconds and forecast.swap_areas[] (with their basis) as a front end
/// feeding one point a sample would give them.
fn forecast_of(forecaster: &Forecaster, target: &Target) -> Forecast {
    forecaster.forecast(target)
}

fn seconds(sample: &Sample) -> f64 {
    sample.monotonic_ns as f64 / 1e9
}

fn now() -> f64 {
    zswaptop::sys::monotonic_ns() as f64 / 1e9
}

fn debugfs(name: &str) -> Result<u64> {
    Ok(kernel::read_trim(format!("{ZSWAP_DEBUGFS}/{name}"))?.parse()?)
}

// ------------------------------------------------------------------------------- the phase

pub fn run(ctx: &Ctx) -> Result<()> {
    rep().phase("forecast — when will it be full, is zswap helping, who is faulting");
    clean_leftovers(ctx)?;
    let fill = cgroup(ctx, "fill")?;
    pool_fill(&fill)?;
    let area = loop_area()?;
    let filler = swap_fill(&fill, &area)?;
    costs(filler, &area)?;
    writeback_stalled(ctx)
}

/// Check a forecast made at `made_at` against the time the limit was really reached.
fn check_forecast(name: &str, f: &Forecast, made_at: f64, full_at: f64) {
    let remaining = full_at - made_at;
    let predicted = f.seconds.unwrap_or(f64::NAN);
    let error = (predicted - remaining) / remaining;
    let mut r = rep();
    r.note(&format!(
        "{name}: forecast {:.1} s (range {:.1} … {:.1} s) from {} points over {:.1} s at {:.0} B/s; \
         really full {remaining:.1} s later: error {:+.1} %",
        predicted,
        f.earliest.unwrap_or(f64::NAN),
        f.latest.unwrap_or(f64::NAN),
        f.points,
        f.window_seconds,
        f.rate_bytes_per_sec.unwrap_or(f64::NAN),
        error * 100.0
    ));
    r.check(
        &format!("{name}: state 30 s in is filling"),
        f.state == ForecastState::Filling,
        f.state.label(),
        "filling",
    );
    r.check(
        &format!("{name}: forecast within ±25 % of the real time to full"),
        error.abs() <= FORECAST_TOLERANCE,
        &format!("{predicted:.1} s"),
        &format!("{remaining:.1} s ± {:.1}", remaining * FORECAST_TOLERANCE),
    );
}

/// The pool filled at a steady rate to max_pool_percent 1 (step 1).
fn pool_fill(fill: &Path) -> Result<()> {
    kernel::set_param("enabled", "Y")?;
    kernel::set_param("shrinker_enabled", "N")?;
    kernel::set_param("accept_threshold_percent", "90")?;
    kernel::set_param("max_pool_percent", "1")?;
    let hits0 = debugfs("pool_limit_hit")?;
    let root = Root::live();
    let mut filler = Filler::spawn(fill, BURST_MIB, BURST_MIB + 1200, 10.0)?;
    filler.wait_for("steady", Duration::from_secs(30))?;
    let pool0 = debugfs("pool_total_size")?;
    let mut forecaster = Forecaster::default();
    let mut started: Option<f64> = None;
    let mut made: Option<(f64, Forecast)> = None;
    let mut next_sample = now();
    let deadline = Instant::now() + Duration::from_secs(240);
    let full_at = loop {
        if Instant::now() > deadline {
            filler.stop();
            bail!("the pool did not reach its limit within 240 s");
        }
        if debugfs("pool_limit_hit")? > hits0 {
            break now();
        }
        if now() >= next_sample {
            next_sample += 1.0;
            let s = sources::collect(&root);
            let snap = Snapshot::derive(&s, None);
            // The window starts when the pool starts growing.
            if started.is_none() && snap.zswap.pool_bytes.is_some_and(|p| p > pool0 + MIB) {
                started = Some(seconds(&s));
            }
            if let Some(t0) = started {
                forecaster.push(seconds(&s), &observe(&snap));
                if made.is_none() && seconds(&s) - t0 >= FORECAST_AT.as_secs_f64() {
                    made = Some((seconds(&s), forecast_of(&forecaster, &Target::ZswapPool)));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    filler.stop();
    let Some((at, f)) = made else {
        rep().check(
            "pool: a forecast 30 s into the fill",
            false,
            "the pool was full sooner",
            "30 s of filling",
        );
        return Ok(());
    };
    rep().note(&format!(
        "pool: {:.1} MiB at the start of the fill; forecast made {:.1} s into its growth, limit hit \
         {:.1} s in",
        pool0 as f64 / MIB as f64,
        at - started.unwrap_or(at),
        full_at - started.unwrap_or(at)
    ));
    check_forecast("pool", &f, at, full_at);
    Ok(())
}

/// The loop swap area filled at a steady rate with zswap off (step 2). Returns the filler, its
/// pages on the area and past it, for the next step.
fn swap_fill(fill: &Path, area: &str) -> Result<Filler> {
    kernel::set_param("enabled", "N")?;
    let root = Root::live();
    let size_kb =
        |rows: &[kernel::SwapRow]| rows.iter().find(|r| r.path == area).map(|r| r.size_kb);
    let others = |rows: &[kernel::SwapRow]| -> u64 {
        rows.iter()
            .filter(|r| r.path != area)
            .map(|r| r.used_kb)
            .sum()
    };
    let rows0 = kernel::read_swaps()?;
    let size = size_kb(&rows0).ok_or_else(|| anyhow!("{area} is not in /proc/swaps"))?;
    let others0 = others(&rows0);
    let mut filler = Filler::spawn(fill, BURST_MIB, BURST_MIB + LOOP_MIB + 96, 8.0)?;
    filler.wait_for("steady", Duration::from_secs(30))?;
    let mut forecaster = Forecaster::default();
    let mut started: Option<f64> = None;
    let mut made: Option<(f64, Forecast)> = None;
    let mut next_sample = now();
    let deadline = Instant::now() + Duration::from_secs(240);
    let target = Target::SwapArea(area.to_string());
    let full_at = loop {
        if Instant::now() > deadline {
            bail!("{area} was not full within 240 s");
        }
        let rows = kernel::read_swaps()?;
        let used = rows
            .iter()
            .find(|r| r.path == area)
            .map_or(0, |r| r.used_kb);
        // Full: every slot but a last megabyte taken, or pages going to the next area.
        if used + 1024 >= size || others(&rows) > others0 + 1024 {
            break now();
        }
        if now() >= next_sample {
            next_sample += 1.0;
            let s = sources::collect(&root);
            let snap = Snapshot::derive(&s, None);
            if started.is_none() && used > 1024 {
                started = Some(seconds(&s));
            }
            if let Some(t0) = started {
                forecaster.push(seconds(&s), &observe(&snap));
                if made.is_none() && seconds(&s) - t0 >= FORECAST_AT.as_secs_f64() {
                    made = Some((seconds(&s), forecast_of(&forecaster, &target)));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    match made {
        Some((at, f)) => check_forecast("swap area", &f, at, full_at),
        None => {
            rep().check(
                "swap area: a forecast 30 s into the fill",
                false,
                "the area was full sooner",
                "30 s of filling",
            );
        }
    }
    filler.wait_for("filled", Duration::from_secs(120))?;
    Ok(filler)
}

/// One line of /proc/diskstats: reads, ms reading, writes, ms writing of `device`.
fn diskstats(device: &str) -> Result<[u64; 4]> {
    let text = std::fs::read_to_string("/proc/diskstats")?;
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.get(2) == Some(&device) && w.len() >= 14 {
            let n = |i: usize| w[i].parse::<u64>().context("diskstats field");
            return Ok([n(3)?, n(6)?, n(7)?, n(10)?]);
        }
    }
    bail!("{device} is not in /proc/diskstats")
}

/// What the test reads itself around a library sample.
struct Around {
    zswpin: u64,
    pswpin: u64,
    disk: [u64; 4],
    majflt: u64,
}

fn around(device: &str, pid: u32) -> Result<Around> {
    let k = kernel::Kernel::read()?;
    let stat = std::fs::read(format!("/proc/{pid}/stat"))?;
    let majflt = zswaptop::sources::processes::parse_stat(&stat)
        .ok_or_else(|| anyhow!("/proc/{pid}/stat"))?
        .major_faults;
    Ok(Around {
        zswpin: k.vm("zswpin").unwrap_or(0),
        pswpin: k.vm("pswpin").unwrap_or(0),
        disk: diskstats(device)?,
        majflt,
    })
}

/// Swap-ins from the loop area and from zswap (step 3): the hit ratio, the loop device's
/// latency, the filler's major faults.
fn costs(mut filler: Filler, area: &str) -> Result<()> {
    kernel::set_param("max_pool_percent", "20")?;
    kernel::set_param("enabled", "Y")?;
    let device = area.trim_start_matches("/dev/");
    let mut sampler = Sampler::full(Root::live());
    let extras = Extras {
        top_processes: Some(10),
        ..Extras::default()
    };
    let base = sampler.next(None, extras);
    let before = around(device, filler.pid)?;
    let s0 = sampler.next(Some(&base), extras);
    let before_after = around(device, filler.pid)?;
    // Half of the pages come back from the loop area (written again, so evicted ones are
    // stored in zswap), then are read again: those evicted meanwhile come from zswap.
    let touched = filler.command("touch 0 50", Duration::from_secs(120))?;
    let read = filler.command("read 0 50", Duration::from_secs(120))?;
    let after_before = around(device, filler.pid)?;
    let s1 = sampler.next(Some(&s0), extras);
    let after = around(device, filler.pid)?;
    rep().note(&format!("filler {}: {touched}; {read}", filler.pid));
    let fig = figures(&s0, &s1);
    let still = |a: &Around, b: &Around| {
        (a.zswpin, a.pswpin, a.disk, a.majflt) == (b.zswpin, b.pswpin, b.disk, b.majflt)
    };
    let quiet = still(&before, &before_after) && still(&after_before, &after);
    let dz = after.zswpin - before.zswpin;
    let dp = after.pswpin - before.pswpin;
    let ratio = dz as f64 / (dz + dp).max(1) as f64;
    let [r0, rms0, w0, wms0] = before.disk;
    let [r1, rms1, w1, wms1] = after.disk;
    let read_ms = (r1 > r0).then(|| (rms1 - rms0) as f64 / (r1 - r0) as f64);
    let write_ms = (w1 > w0).then(|| (wms1 - wms0) as f64 / (w1 - w0) as f64);
    let lat = fig.latencies.iter().find(|l| l.path == area);
    let interval = seconds(&s1) - seconds(&s0);
    let faults_per_sec = (after.majflt - before.majflt) as f64 / interval;
    // Exact when nothing moved between the test's reads and the library's; else within what
    // moved.
    let tol = if quiet { 1e-9 } else { 0.01 };
    let mut r = rep();
    r.note(&format!(
        "over {interval:.2} s: zswpin +{dz}, pswpin +{dp} pages (hit ratio {ratio:.4}); {device}: \
         {} reads in {} ms, {} writes in {} ms; filler majflt +{}{}",
        r1 - r0,
        rms1 - rms0,
        w1 - w0,
        wms1 - wms0,
        after.majflt - before.majflt,
        if quiet {
            ""
        } else {
            " (counters moved between the test's reads and the library's)"
        }
    ));
    let show = |v: Option<f64>| v.map_or("null".to_string(), |v| format!("{v:.4}"));
    r.check(
        "swap-ins from both zswap and the loop device in the interval",
        dz > 0 && dp > 0,
        &format!("+{dz} / +{dp}"),
        "> 0 / > 0",
    );
    r.check(
        "hit ratio: zswaptop vs Δzswpin / (Δzswpin + Δpswpin) from /proc/vmstat",
        fig.hit_ratio.is_some_and(|h| (h - ratio).abs() <= tol),
        &show(fig.hit_ratio),
        &format!("{ratio:.4}"),
    );
    let lat_read = lat.and_then(|l| l.latency.read_ms);
    let lat_write = lat.and_then(|l| l.latency.write_ms);
    let same = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= tol * b.max(1.0),
        (None, None) => true,
        _ => false,
    };
    r.check(
        &format!("{device} read latency: zswaptop vs Δms reading / Δreads from /proc/diskstats"),
        read_ms.is_some() && same(lat_read, read_ms),
        &show(lat_read),
        &show(read_ms),
    );
    r.check(
        &format!("{device} write latency: zswaptop vs Δms writing / Δwrites"),
        same(lat_write, write_ms),
        &show(lat_write),
        &show(write_ms),
    );
    let top = fig.faulting.first();
    r.check(
        "the filler leads the processes by major faults per second",
        top.is_some_and(|p| p.pid == filler.pid),
        &top.map_or("none".to_string(), |p| {
            format!("pid {} at {:.0}/s", p.pid, p.major_faults_per_sec)
        }),
        &format!("pid {}", filler.pid),
    );
    r.check(
        "its rate: zswaptop vs Δmajflt from /proc/PID/stat over the interval",
        top.is_some_and(|p| {
            (p.major_faults_per_sec - faults_per_sec).abs() <= tol * faults_per_sec.max(1.0)
        }),
        &top.map_or("none".to_string(), |p| {
            format!("{:.1}", p.major_faults_per_sec)
        }),
        &format!("{faults_per_sec:.1}"),
    );
    drop(r);
    filler.stop();
    Ok(())
}

/// Capture a fixture tree of this moment when the run saves fixtures.
fn capture(ctx: &Ctx, name: &str) -> Result<Option<PathBuf>> {
    let Some(dir) = &ctx.save else {
        return Ok(None);
    };
    let dest = dir.join(name);
    if dest.exists() {
        std::fs::remove_dir_all(&dest)?;
    }
    crate::capture::capture(&dest, None)?;
    Ok(Some(dest))
}

/// The pool at its limit with the shrinker on: what makes it refuse, and whether anything is
/// written back.
fn writeback_stalled(ctx: &Ctx) -> Result<()> {
    kernel::set_param("enabled", "Y")?;
    kernel::set_param("accept_threshold_percent", "90")?;
    kernel::set_param("max_pool_percent", "1")?;
    if !Path::new(kernel::ZSWAP_PARAMS)
        .join("shrinker_enabled")
        .exists()
    {
        rep().skip(
            "writeback-stalled",
            "no shrinker_enabled parameter on this kernel",
        );
        return Ok(());
    }
    kernel::set_param("shrinker_enabled", "Y")?;
    // A: fills the pool past its limit at once, then cannot take a page back.
    let a = cgroup(ctx, "hold")?;
    let mut holder = Filler::spawn(&a, 900, 900, 1000.0)?;
    holder.wait_for("filled", Duration::from_secs(120))?;
    match ctx.cg.kind {
        // v2: the cgroup's own switch.
        CgroupKind::V2 => kernel::write_str(a.join("memory.zswap.writeback"), "0")?,
        // v1 has none. Writing an entry back first reads it into a page charged to the cgroup
        // it belongs to (the swap cache charge); at its limit with no reclaim allowed to swap
        // (memory.swappiness 0) and the OOM killer off, that charge fails.
        CgroupKind::V1 => {
            kernel::write_str(a.join("memory.swappiness"), "0")?;
            kernel::write_str(a.join("memory.oom_control"), "1")?;
        }
    }
    // B: pushes pages at a steady rate, which the full pool refuses.
    let b = cgroup(ctx, "push")?;
    let mut pusher = Filler::spawn(&b, BURST_MIB, BURST_MIB + 900, 8.0)?;
    pusher.wait_for("steady", Duration::from_secs(30))?;
    std::thread::sleep(Duration::from_secs(5));
    let root = Root::live();
    let pair = |gap: Duration, names: Option<(&str, &str)>| -> Result<(Sample, Sample, [u64; 3])> {
        let k0 = kernel::Kernel::read()?;
        let s0 = sources::collect(&root);
        if let Some((n, _)) = names {
            capture(ctx, n)?;
        }
        std::thread::sleep(gap);
        let k1 = kernel::Kernel::read()?;
        let s1 = sources::collect(&root);
        if let Some((_, n)) = names {
            capture(ctx, n)?;
        }
        let d = |key: &str| {
            k1.dbg(key)
                .unwrap_or(0)
                .saturating_sub(k0.dbg(key).unwrap_or(0))
        };
        Ok((
            s0,
            s1,
            [
                d("written_back_pages"),
                d("reject_reclaim_fail"),
                d("pool_limit_hit"),
            ],
        ))
    };
    let (s0, s1, [wb, fail, hits]) = pair(
        Duration::from_secs(10),
        Some((
            "linux-6.18-writeback-stalled",
            "linux-6.18-writeback-stalled-t1",
        )),
    )?;
    let fig = figures(&s0, &s1);
    let fired = fig.findings.iter().any(|f| f == "writeback-stalled");
    {
        let mut r = rep();
        r.note(&format!(
            "writeback impossible, over 10 s: written_back_pages +{wb}, reject_reclaim_fail +{fail}, \
             pool_limit_hit +{hits}; findings {:?}",
            fig.findings
        ));
        r.check(
            "nothing written back while the holder cannot take pages back",
            wb == 0,
            &format!("+{wb}"),
            "+0",
        );
        r.check(
            "writeback-stalled fires",
            fired == (wb == 0),
            &format!("{fired}"),
            &format!("{}", wb == 0),
        );
    }
    // Writeback possible again: pairs of samples until one holds pages written back.
    match ctx.cg.kind {
        CgroupKind::V2 => kernel::write_str(a.join("memory.zswap.writeback"), "1")?,
        CgroupKind::V1 => {
            kernel::write_str(a.join("memory.oom_control"), "0")?;
            kernel::write_str(a.join("memory.swappiness"), "60")?;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut flowing = None;
    while Instant::now() < deadline && !pusher.said("filled") {
        let (s0, s1, [wb, _, _]) = pair(
            Duration::from_secs(6),
            Some((
                "linux-6.18-writeback-flowing",
                "linux-6.18-writeback-flowing-t1",
            )),
        )?;
        if wb > 0 {
            flowing = Some((s0, s1, wb));
            break;
        }
    }
    match flowing {
        Some((s0, s1, wb)) => {
            let fig = figures(&s0, &s1);
            let fired = fig.findings.iter().any(|f| f == "writeback-stalled");
            let mut r = rep();
            r.note(&format!(
                "writeback possible: {wb} pages written back over {:.1} s; findings {:?}",
                seconds(&s1) - seconds(&s0),
                fig.findings
            ));
            r.check(
                "writeback-stalled stays quiet while pages are written back",
                !fired,
                &format!("{fired}"),
                "false",
            );
        }
        None => rep().skip(
            "writeback-stalled stays quiet while pages are written back",
            "no page was written back within 120 s of writeback being possible again",
        ),
    }
    pusher.stop();
    holder.stop();
    Ok(())
}
