//! What happens next and what it costs, on the kernel: the forecasts, the swap-in hit ratio, the
//! device latency, who is faulting, and the writeback-stalled finding, each read from
//! `zswaptop --once --json -i N` and checked against what the kernel did.
//!
//! 0. Recorded fills of the pool (max_pool_percent 1, from empty): steady, accelerating (the
//!    rate doubling every 20 s), in bursts, one step then flat, noisy, and a step that drains,
//!    each recorded by `zswaptop record -i 0.5` and replayed through the dashboard's pipeline:
//!    the forecast 30 s and 15 s before the kernel's first refusal within ±25 %, `full` within
//!    5 s of it, "not filling" within 30 s of growth stopping, the ranges holding the truth in
//!    ≥ 80 % of the rows that give one (tests/shared/forecast_suite.rs, the judge the fast
//!    tests share; `ZSWAPTOP_E2E_FORECAST_STEPS=fills`: only this step).
//! 1. The zswap pool filled at a steady rate inside a memory cgroup (max_pool_percent 1):
//!    `forecast.zswap_pool_full_seconds` of a `--once -i 30` started as the pool starts growing
//!    (the forecast made 30 s in) must lie within ±25 % of the time `pool_limit_hit` really
//!    started rising after its second sample.
//! 2. A swap area (a loop device, so that no other I/O shares its counters) filled at a steady
//!    rate with zswap off: the same with `forecast.swap_areas[]` and the time the area was full.
//! 3. The filler faults a quarter of its pages back (swap-ins from the loop device, the evicted
//!    pages stored in zswap) and reads them again (loads from zswap) during a `--once -i 15
//!    --top 10`: `zswap.swapin_hit_ratio` and the loop device's `read_latency_ms` /
//!    `write_latency_ms` equal what this test computes from /proc/vmstat and /proc/diskstats
//!    read around the run, and the filler leads `processes.top` sorted by
//!    `major_faults_per_sec`, at the rate its /proc/PID/stat gives.
//! 4. The pool full and refusing with the shrinker on while nothing can be written back, then
//!    the same with writeback possible: `writeback-stalled` is among `diagnostics` of the first
//!    interval and not of one where pages were written back. Both intervals are captured as
//!    fixture trees when the run saves fixtures.
//!
//! Everything made here (processes, cgroups, the loop device and its file) is undone by
//! [`teardown`], which the machine's teardown runs (`machine::teardown`); the zswap parameters
//! are put back by the machine's teardown itself.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::context::{Ctx, run_zswaptop};
use crate::kernel::{self, ZSWAP_DEBUGFS};
use crate::machine::{self, CgroupKind};
use crate::rep;
use crate::report::{self, f, s as text};

/// The role of this binary acting as the filler.
pub const ROLE_FILLER: &str = "filler";
/// `BURST_MIB,TOTAL_MIB,RATE_MIB_PER_S[,DOUBLING_S | ,-1 | ,ON_S,OFF_S]`: write the first BURST
/// MiB at once, the rest of TOTAL at RATE (doubling every DOUBLING_S seconds; -1: noisy, each
/// second between 0.2 and 1.8 times RATE; or in bursts of ON_S seconds every ON_S + OFF_S).
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

/// What this phase adds to the watchdog's time (the recorded fills take up to 6 minutes).
pub const BUDGET_SECS: u64 = 1200;

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

/// How a filler's rate goes after its first burst.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// RATE throughout.
    Steady,
    /// RATE at first, doubling every D seconds.
    Doubling(f64),
    /// RATE for ON seconds, then nothing for OFF seconds, again and again.
    Bursts(f64, f64),
    /// RATE on average, each second at a rate drawn between 0.2 and 1.8 times it.
    Noisy,
}

impl Shape {
    /// When page `n` (counted after the burst) is due, in seconds, at `per_sec` pages a second.
    fn due(self, n: f64, per_sec: f64) -> f64 {
        match self {
            Shape::Steady => n / per_sec,
            // Pages by time t: per_sec · D / ln 2 · (2^(t/D) − 1), solved for t.
            Shape::Doubling(d) => d * (1.0 + n * std::f64::consts::LN_2 / (per_sec * d)).log2(),
            Shape::Bursts(on, off) => {
                let per_burst = per_sec * on;
                let k = (n / per_burst).floor();
                k * (on + off) + (n - k * per_burst) / per_sec
            }
            Shape::Noisy => {
                let mut left = n;
                for second in 0u64.. {
                    // The same draw for a second every time (xorshift of its number).
                    let mut x = second.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let rate = per_sec * (0.2 + 1.6 * (x % 1000) as f64 / 1000.0);
                    if left <= rate {
                        return second as f64 + left / rate;
                    }
                    left -= rate;
                }
                unreachable!("the seconds do not run out")
            }
        }
    }
}

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
    let (burst, total, rate, shape) = match nums[..] {
        [b, t, r] => (b, t, r, Shape::Steady),
        [b, t, r, d] if d < 0.0 => (b, t, r, Shape::Noisy),
        [b, t, r, d] => (b, t, r, Shape::Doubling(d)),
        [b, t, r, on, off] => (b, t, r, Shape::Bursts(on, off)),
        _ => bail!("{FILL_VAR} needs BURST,TOTAL,RATE[,DOUBLING_S | ,-1 | ,ON_S,OFF_S]"),
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
            let due = Duration::from_secs_f64(shape.due((n + 1) as f64, per_sec));
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
        Filler::spawn_spec(cgroup, &format!("{burst_mib},{total_mib},{rate_mib}"))
    }

    /// Start a filler with a whole [`FILL_VAR`] spec.
    fn spawn_spec(cgroup: &Path, spec: &str) -> Result<Filler> {
        let exe = std::env::current_exe().context("current_exe")?;
        let mut child = Command::new(exe)
            .env(crate::workload::ROLE_VAR, ROLE_FILLER)
            .env(FILL_VAR, spec)
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
    set_limit(ctx, &dir, CGROUP_LIMIT)?;
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

// ------------------------------------------------------------------------------- zswaptop

/// A `zswaptop --once --json -i SECS` running in a thread while the test drives the kernel.
struct Run(std::thread::JoinHandle<Result<(Value, Instant)>>);

impl Run {
    /// Start it with `extra` arguments; the run's samples are recorded like every other root
    /// run of the test (`context::run_zswaptop`).
    fn start(bin: &Path, secs: u64, extra: &[&str]) -> Run {
        let bin = bin.to_path_buf();
        let mut args = vec!["-i".to_string(), secs.to_string()];
        args.extend(extra.iter().map(|a| (*a).to_string()));
        Run(std::thread::spawn(move || {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let (json, status) = run_zswaptop(&bin, &refs, false)?;
            let ended = Instant::now();
            if !status.success() {
                bail!(
                    "zswaptop --once --json {} exited with {status}",
                    refs.join(" ")
                );
            }
            Ok((json, ended))
        }))
    }

    /// Its JSON, and when it ended: its second sample, the one its forecasts are made at, was
    /// taken just before.
    fn wait(self) -> Result<(Value, Instant)> {
        self.0
            .join()
            .map_err(|_| anyhow!("the zswaptop run's thread panicked"))?
    }
}

fn debugfs(name: &str) -> Result<u64> {
    Ok(kernel::read_trim(format!("{ZSWAP_DEBUGFS}/{name}"))?.parse()?)
}

fn show(v: Option<f64>) -> String {
    v.map_or("null".to_string(), |v| format!("{v:.4}"))
}

// ------------------------------------------------------------------------------- the phase

/// `ZSWAPTOP_E2E_FORECAST_STEPS=fills`: only the recorded fills of this phase.
pub fn fills_only() -> bool {
    std::env::var("ZSWAPTOP_E2E_FORECAST_STEPS").as_deref() == Ok("fills")
}

pub fn run(ctx: &Ctx) -> Result<()> {
    rep().phase("forecast — when will it be full, is zswap helping, who is faulting");
    clean_leftovers(ctx)?;
    let fill = cgroup(ctx, "fill")?;
    recorded_fills(ctx, &fill)?;
    if fills_only() {
        return Ok(());
    }
    pool_fill(ctx, &fill)?;
    let area = loop_area()?;
    let filler = swap_fill(ctx, &fill, &area)?;
    costs(ctx, filler, &area)?;
    writeback_stalled(ctx)
}

/// Check a forecast (`forecast`: its JSON object, `seconds` the JSON name the checks read) made
/// at `made_at` against the time the limit was really reached.
fn check_forecast(
    name: &str,
    forecast: Option<&Value>,
    seconds: Option<f64>,
    made_at: Instant,
    full_at: Instant,
) {
    let remaining = full_at.duration_since(made_at).as_secs_f64();
    let field = |k: &str| forecast.and_then(|v| f(v, k));
    let predicted = seconds.unwrap_or(f64::NAN);
    let error = (predicted - remaining) / remaining;
    let mut r = rep();
    r.note(&format!(
        "{name}: forecast {predicted:.1} s (range {} … {} s) from {} points over {} s at {} B/s; \
         really full {remaining:.1} s later: error {:+.1} %",
        show(field("earliest_seconds")),
        show(field("latest_seconds")),
        show(field("points")),
        show(field("window_seconds")),
        show(field("rate_bytes_per_sec")),
        error * 100.0
    ));
    let state = forecast
        .and_then(|v| text(v, "state"))
        .unwrap_or("<missing>");
    r.check(
        &format!("{name}: state 30 s in is filling"),
        state == "filling",
        state,
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
fn pool_fill(ctx: &Ctx, fill: &Path) -> Result<()> {
    kernel::set_param("enabled", "Y")?;
    kernel::set_param("shrinker_enabled", "N")?;
    kernel::set_param("accept_threshold_percent", "90")?;
    kernel::set_param("max_pool_percent", "1")?;
    let hits0 = debugfs("pool_limit_hit")?;
    let mut filler = Filler::spawn(fill, BURST_MIB, BURST_MIB + 1200, 10.0)?;
    filler.wait_for("steady", Duration::from_secs(30))?;
    let pool0 = debugfs("pool_total_size")?;
    let mut run: Option<(Instant, Run)> = None;
    let deadline = Instant::now() + Duration::from_secs(240);
    let full_at = loop {
        if Instant::now() > deadline {
            filler.stop();
            bail!("the pool did not reach its limit within 240 s");
        }
        if debugfs("pool_limit_hit")? > hits0 {
            break Instant::now();
        }
        // The forecast's interval starts when the pool starts growing.
        if run.is_none() && debugfs("pool_total_size")? > pool0 + MIB {
            run = Some((
                Instant::now(),
                Run::start(&ctx.bin, FORECAST_AT.as_secs(), &[]),
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    filler.stop();
    let Some((started, run)) = run else {
        rep().check("pool: the pool grew", false, "it did not", "> 1 MiB");
        return Ok(());
    };
    let (json, made_at) = run.wait()?;
    if made_at > full_at {
        rep().check(
            "pool: a forecast 30 s into the fill",
            false,
            "the pool was full sooner",
            "30 s of filling",
        );
        return Ok(());
    }
    rep().note(&format!(
        "pool: {:.1} MiB at the start of the fill; forecast made {:.1} s into its growth, limit hit \
         {:.1} s in",
        pool0 as f64 / MIB as f64,
        made_at.duration_since(started).as_secs_f64(),
        full_at.duration_since(started).as_secs_f64()
    ));
    check_forecast(
        "pool",
        report::at(&json, "forecast.zswap_pool"),
        f(&json, "forecast.zswap_pool_full_seconds"),
        made_at,
        full_at,
    );
    Ok(())
}

/// The loop swap area filled at a steady rate with zswap off (step 2). Returns the filler, its
/// pages on the area and past it, for the next step.
fn swap_fill(ctx: &Ctx, fill: &Path, area: &str) -> Result<Filler> {
    kernel::set_param("enabled", "N")?;
    let others = |rows: &[kernel::SwapRow]| -> u64 {
        rows.iter()
            .filter(|r| r.path != area)
            .map(|r| r.used_kb)
            .sum()
    };
    let rows0 = kernel::read_swaps()?;
    let size = rows0
        .iter()
        .find(|r| r.path == area)
        .map(|r| r.size_kb)
        .ok_or_else(|| anyhow!("{area} is not in /proc/swaps"))?;
    let others0 = others(&rows0);
    let mut filler = Filler::spawn(fill, BURST_MIB, BURST_MIB + LOOP_MIB + 96, 8.0)?;
    filler.wait_for("steady", Duration::from_secs(30))?;
    let mut run: Option<(Instant, Run)> = None;
    let deadline = Instant::now() + Duration::from_secs(240);
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
            break Instant::now();
        }
        if run.is_none() && used > 1024 {
            run = Some((
                Instant::now(),
                Run::start(&ctx.bin, FORECAST_AT.as_secs(), &[]),
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    match run {
        Some((started, run)) => {
            let (json, made_at) = run.wait()?;
            let entry = report::at(&json, "forecast.swap_areas")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().find(|e| text(e, "path") == Some(area)));
            if made_at > full_at {
                rep().check(
                    "swap area: a forecast 30 s into the fill",
                    false,
                    "the area was full sooner",
                    "30 s of filling",
                );
            } else {
                rep().note(&format!(
                    "swap area {area}: forecast made {:.1} s into its filling, full {:.1} s in",
                    made_at.duration_since(started).as_secs_f64(),
                    full_at.duration_since(started).as_secs_f64()
                ));
                check_forecast(
                    "swap area",
                    entry,
                    entry.and_then(|e| f(e, "seconds")),
                    made_at,
                    full_at,
                );
            }
        }
        None => {
            rep().check("swap area: it filled", false, "it did not", "> 1 MiB used");
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

/// What the test reads itself around a zswaptop run.
struct Around {
    zswpin: u64,
    pswpin: u64,
    disk: [u64; 4],
    majflt: u64,
}

fn around(device: &str, pid: u32) -> Result<Around> {
    let k = kernel::Kernel::read()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Field 12 (majflt), counted after the name's closing parenthesis (field 2).
    let after_name = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| anyhow!("/proc/{pid}/stat has no name"))?;
    let majflt = after_name
        .split_whitespace()
        .nth(9)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow!("/proc/{pid}/stat: no majflt"))?;
    Ok(Around {
        zswpin: k.vm("zswpin").unwrap_or(0),
        pswpin: k.vm("pswpin").unwrap_or(0),
        disk: diskstats(device)?,
        majflt,
    })
}

/// Swap-ins from the loop area and from zswap during one `--once -i 15 --top 10` (step 3): the
/// hit ratio, the loop device's latency, the filler's major faults.
fn costs(ctx: &Ctx, mut filler: Filler, area: &str) -> Result<()> {
    const INTERVAL: u64 = 15;
    kernel::set_param("max_pool_percent", "20")?;
    kernel::set_param("enabled", "Y")?;
    let device = area.trim_start_matches("/dev/");
    let before = around(device, filler.pid)?;
    let t0 = Instant::now();
    let run = Run::start(&ctx.bin, INTERVAL, &["--top", "10"]);
    // Its first sample is taken within a second of starting.
    std::thread::sleep(Duration::from_millis(1500));
    // A quarter of the pages come back from the loop area (written again, so evicted ones are
    // stored in zswap), then are read again: those evicted meanwhile come from zswap.
    let touched = filler.command("touch 0 25", Duration::from_secs(60))?;
    let read = filler.command("read 0 25", Duration::from_secs(60))?;
    let busy = t0.elapsed();
    let (json, _) = run.wait()?;
    let after = around(device, filler.pid)?;
    rep().note(&format!(
        "filler {}: {touched}; {read}; done {:.1} s after the run started",
        filler.pid,
        busy.as_secs_f64()
    ));
    // The commands ran inside the run's interval: what the test read around it is what the
    // run saw, but for the machine's own background (a few pages at most). They took 4.5 s
    // on an idle machine and 9.0 s with the rest of the e2e's builds around: 15 s leaves room.
    let inside = busy < Duration::from_secs(INTERVAL);
    let dz = after.zswpin - before.zswpin;
    let dp = after.pswpin - before.pswpin;
    let ratio = dz as f64 / (dz + dp).max(1) as f64;
    let [r0, rms0, w0, wms0] = before.disk;
    let [r1, rms1, w1, wms1] = after.disk;
    let read_ms = (r1 > r0).then(|| (rms1 - rms0) as f64 / (r1 - r0) as f64);
    let write_ms = (w1 > w0).then(|| (wms1 - wms0) as f64 / (w1 - w0) as f64);
    let dev = report::at(&json, "swap.devices")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find(|d| text(d, "path") == Some(area)));
    let hit = f(&json, "zswap.swapin_hit_ratio");
    let lat_read = dev.and_then(|d| f(d, "read_latency_ms"));
    let lat_write = dev.and_then(|d| f(d, "write_latency_ms"));
    let interval = f(&json, "processes.faults_interval_seconds").unwrap_or(f64::NAN);
    let faults_per_sec = (after.majflt - before.majflt) as f64 / interval;
    let top = report::at(&json, "processes.top.0");
    let mut r = rep();
    r.note(&format!(
        "over the run: zswpin +{dz}, pswpin +{dp} pages (hit ratio {ratio:.4}); {device}: {} reads \
         in {} ms, {} writes in {} ms; filler majflt +{} over {interval:.2} s",
        r1 - r0,
        rms1 - rms0,
        w1 - w0,
        wms1 - wms0,
        after.majflt - before.majflt,
    ));
    r.check(
        "the faults ran inside the run's interval",
        inside,
        &format!("{:.1} s", busy.as_secs_f64()),
        &format!("< {INTERVAL} s"),
    );
    r.check(
        "swap-ins from both zswap and the loop device in the interval",
        dz > 0 && dp > 0,
        &format!("+{dz} / +{dp}"),
        "> 0 / > 0",
    );
    // Within what the rest of the machine may add over the interval.
    let close = |a: Option<f64>, b: Option<f64>, rel: f64| match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= rel * b.abs().max(1e-9),
        (None, None) => true,
        _ => false,
    };
    r.check(
        "zswap.swapin_hit_ratio vs Δzswpin / (Δzswpin + Δpswpin) from /proc/vmstat",
        hit.is_some_and(|h| (h - ratio).abs() <= 0.005),
        &show(hit),
        &format!("{ratio:.4}"),
    );
    r.check(
        &format!("{device} read_latency_ms vs Δms reading / Δreads from /proc/diskstats"),
        read_ms.is_some() && close(lat_read, read_ms, 0.02),
        &show(lat_read),
        &show(read_ms),
    );
    r.check(
        &format!("{device} write_latency_ms vs Δms writing / Δwrites"),
        close(lat_write, write_ms, 0.02),
        &show(lat_write),
        &show(write_ms),
    );
    r.check(
        "processes sorted by major faults per second",
        text(&json, "processes.sorted_by") == Some("major_faults_per_sec"),
        text(&json, "processes.sorted_by").unwrap_or("<missing>"),
        "major_faults_per_sec",
    );
    let top_pid = top.and_then(|t| report::u(t, "pid"));
    let top_rate = top.and_then(|t| f(t, "major_faults_per_sec"));
    r.check(
        "the filler leads processes.top",
        top_pid == Some(u64::from(filler.pid)),
        &format!("pid {top_pid:?} at {}/s", show(top_rate)),
        &format!("pid {}", filler.pid),
    );
    r.check(
        "its major_faults_per_sec vs Δmajflt from /proc/PID/stat over the interval",
        close(top_rate, Some(faults_per_sec), 0.02),
        &show(top_rate),
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

/// One `--once -i SECS` with the kernel read (and, when saving fixtures, captured) right
/// before and after: its findings' ids and the debugfs counters' changes.
fn interval(ctx: &Ctx, secs: u64, names: (&str, &str)) -> Result<(Vec<String>, [u64; 3], f64)> {
    let k0 = kernel::Kernel::read()?;
    capture(ctx, names.0)?;
    let (json, status) = run_zswaptop(&ctx.bin, &["-i", &secs.to_string()], false)?;
    if !status.success() {
        bail!("zswaptop --once --json -i {secs} exited with {status}");
    }
    let k1 = kernel::Kernel::read()?;
    capture(ctx, names.1)?;
    let d = |key: &str| {
        k1.dbg(key)
            .unwrap_or(0)
            .saturating_sub(k0.dbg(key).unwrap_or(0))
    };
    let findings = report::at(&json, "diagnostics")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| text(x, "id").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok((
        findings,
        [
            d("written_back_pages"),
            d("reject_reclaim_fail"),
            d("pool_limit_hit"),
        ],
        f(&json, "interval_seconds").unwrap_or(f64::NAN),
    ))
}

/// The pool at its limit with the shrinker on: what makes it refuse, and whether anything is
/// written back (step 4).
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
    // The holder's charge fails for nearly every entry, not always every one (a page or two
    // of room under its limit now and then: +9 pages written back in one 10 s interval on a
    // machine busy with builds): up to three intervals, until one holds none.
    let mut tries = 0;
    let (findings, wb) = loop {
        tries += 1;
        let (findings, [wb, fail, hits], secs) = interval(
            ctx,
            10,
            (
                "linux-6.18-writeback-stalled",
                "linux-6.18-writeback-stalled-t1",
            ),
        )?;
        rep().note(&format!(
            "writeback impossible, over {secs:.1} s: written_back_pages +{wb}, reject_reclaim_fail \
             +{fail}, pool_limit_hit +{hits}; diagnostics {findings:?}"
        ));
        if wb == 0 || tries == 3 {
            break (findings, wb);
        }
    };
    let fired = findings.iter().any(|f| f == "writeback-stalled");
    {
        let mut r = rep();
        r.check(
            &format!("nothing written back while the holder cannot take pages back (interval {tries} of at most 3)"),
            wb == 0,
            &format!("+{wb}"),
            "+0",
        );
        r.check(
            "writeback-stalled is among the diagnostics",
            fired == (wb == 0),
            &format!("{fired}"),
            &format!("{}", wb == 0),
        );
    }
    // Writeback possible again: intervals until one holds pages written back.
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
        let (findings, [wb, _, _], secs) = interval(
            ctx,
            6,
            (
                "linux-6.18-writeback-flowing",
                "linux-6.18-writeback-flowing-t1",
            ),
        )?;
        if wb > 0 {
            flowing = Some((findings, wb, secs));
            break;
        }
    }
    match flowing {
        Some((findings, wb, secs)) => {
            let fired = findings.iter().any(|f| f == "writeback-stalled");
            let mut r = rep();
            r.note(&format!(
                "writeback possible: {wb} pages written back over {secs:.1} s; diagnostics \
                 {findings:?}"
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

// ------------------------------------------------------------------------------- recorded fills

/// One of the fills the forecast is judged on: its name, the filler's spec, and
/// whether it stops short of the limit (then the flat stretch after it is judged).
struct Fill {
    name: &'static str,
    spec: &'static str,
    stops: bool,
    /// After it stops, read every page back (swap-ins drain the pool).
    drains: bool,
}

/// The pool (max_pool_percent 1 of RAM) filled from empty: steady at 10 MiB/s of swap-out; from
/// 2 MiB/s doubling every 20 s; in bursts of 24 MiB/s for 5 s every 15 s; one step of 150 MiB
/// at once, then nothing; noisy, 10 MiB/s on average; and a step that then drains (every page
/// read back).
const FILLS: [Fill; 6] = [
    Fill {
        name: "steady",
        spec: "48,1648,10",
        stops: false,
        drains: false,
    },
    Fill {
        name: "accelerating",
        spec: "48,1648,2,20",
        stops: false,
        drains: false,
    },
    Fill {
        name: "bursty",
        spec: "48,1648,24,5,10",
        stops: false,
        drains: false,
    },
    Fill {
        name: "step",
        spec: "48,198,1000",
        stops: true,
        drains: false,
    },
    Fill {
        name: "noisy",
        spec: "48,1648,10,-1",
        stops: false,
        drains: false,
    },
    Fill {
        name: "draining",
        spec: "48,198,1000",
        stops: true,
        drains: true,
    },
];

/// Seconds between the recorder's samples: the truth (the first refusal) is known to this.
const RECORD_INTERVAL: &str = "0.5";
/// How long the step's flat stretch is recorded.
const FLAT_SECS: u64 = 45;

/// Drive each of [`FILLS`] on the kernel with `zswaptop record` running, then replay the
/// recording through the dashboard's pipeline and check the budgets (tests/shared).
/// With `ZSWAPTOP_E2E_SAVE_FIXTURES=DIR` the recordings are kept as DIR/forecast-NAME.zsr, the
/// fast tests' fixtures.
fn recorded_fills(ctx: &Ctx, fill: &Path) -> Result<()> {
    kernel::set_param("enabled", "Y")?;
    kernel::set_param("shrinker_enabled", "N")?;
    kernel::set_param("accept_threshold_percent", "90")?;
    kernel::set_param("max_pool_percent", "1")?;
    let dir = ctx
        .save
        .clone()
        .unwrap_or_else(|| ctx.tmp.path().to_path_buf());
    // `ZSWAPTOP_E2E_FORECAST_FILLS=bursty,step`: only those.
    let only = std::env::var("ZSWAPTOP_E2E_FORECAST_FILLS").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|n| n == name))
    };
    for f in FILLS.iter().filter(|f| wanted(f.name)) {
        // A fill whose forecast misses the ±25 % budget 30 s or 15 s before the limit, every
        // other budget met, is recorded once more, and the run fails only when the second one
        // misses too: how a live fill goes near its limit depends on what else the machine does
        // (a bursty run that sped up in its last 15 s was forecast +42 %: no sample showed the
        // speed-up to come). Both runs' tables are reported; every other budget fails the
        // first run that misses it.
        let mut misses = Vec::new();
        for attempt in 1..=2 {
            let path = if attempt == 1 {
                dir.join(format!("forecast-{}.zsr", f.name))
            } else {
                dir.join(format!("forecast-{}-again.zsr", f.name))
            };
            misses = fill_once(ctx, fill, f, &path)?;
            let only_error = !misses.is_empty() && misses.iter().all(|m| m.contains(" s before: "));
            if !only_error {
                break;
            }
            if attempt == 1 {
                rep().note(&format!(
                    "fill {}: error budget (±25 %) missed on this run ({}); recording it once more",
                    f.name,
                    misses.join("; ")
                ));
            }
        }
        rep().check(
            &format!("fill {}: the forecast's budgets", f.name),
            misses.is_empty(),
            &misses.join("; "),
            "all met",
        );
    }
    Ok(())
}

/// Record one fill to `path`, replay it through the dashboard's pipeline, report its table and
/// return the budgets it missed.
fn fill_once(ctx: &Ctx, fill: &Path, f: &Fill, path: &Path) -> Result<Vec<String>> {
    drain_pool()?;
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    record_fill(ctx, fill, f, path)?;
    let rows = crate::forecast_suite::replay(path)?;
    let v = crate::forecast_suite::judge(&rows, f.stops);
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let r = rep();
    r.note(&format!(
        "fill {}: {} samples ({} KiB) in {}; limit hit at {}; ranges held the truth in {} of {} \
         rows ({} rows without one)",
        f.name,
        rows.len(),
        size / 1024,
        path.display(),
        show(v.limit_at),
        v.held,
        v.ranged,
        v.unranged
    ));
    for line in crate::forecast_suite::table(f.name, &v) {
        r.note(&line);
    }
    Ok(crate::forecast_suite::misses(&v, f.stops))
}

/// Wait until the pool is nearly empty (the last fill's pages freed).
fn drain_pool() -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while debugfs("pool_total_size")? > 4 * MIB {
        if Instant::now() > deadline {
            bail!(
                "the pool still holds {} bytes 30 s after its filler ended",
                debugfs("pool_total_size")?
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(())
}

/// One fill recorded to `path`: a few flat samples, the filler, and after it either the limit
/// and 8 s more, or (a fill that stops) [`FLAT_SECS`] of nothing.
fn record_fill(ctx: &Ctx, fill: &Path, f: &Fill, path: &Path) -> Result<()> {
    let mut recorder = Command::new(&ctx.bin)
        .args(["record", "-i", RECORD_INTERVAL])
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting zswaptop record")?;
    let rpid = recorder.id();
    changes().pids.extend(i32::try_from(rpid).ok());
    std::thread::sleep(Duration::from_secs(3));
    let hits0 = debugfs("pool_limit_hit")?;
    let mut filler = Filler::spawn_spec(fill, f.spec)?;
    let outcome = (|| -> Result<()> {
        filler.wait_for("steady", Duration::from_secs(30))?;
        let deadline = Instant::now() + Duration::from_secs(300);
        if f.stops {
            filler.wait_for("filled", Duration::from_secs(60))?;
            if f.drains {
                std::thread::sleep(Duration::from_secs(10));
                // Room for every page in RAM: each one read comes back and stays.
                set_limit(ctx, fill, 4 * CGROUP_LIMIT)?;
                filler.command("read 0 100", Duration::from_secs(120))?;
            }
            std::thread::sleep(Duration::from_secs(FLAT_SECS));
            return Ok(());
        }
        while debugfs("pool_limit_hit")? == hits0 {
            if Instant::now() > deadline {
                bail!("fill {}: the pool did not reach its limit in 300 s", f.name);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_secs(8));
        Ok(())
    })();
    filler.stop();
    let limit = set_limit(ctx, fill, CGROUP_LIMIT);
    // SIGINT: the recorder writes its last sample and exits 0.
    if let Ok(pid) = i32::try_from(rpid) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGINT,
        );
    }
    let status = recorder.wait()?;
    if let Ok(pid) = i32::try_from(rpid) {
        changes().pids.retain(|p| *p != pid);
    }
    outcome?;
    limit?;
    if !status.success() {
        bail!("zswaptop record exited with {status}");
    }
    Ok(())
}

/// The memory limit of the cgroup `dir`.
fn set_limit(ctx: &Ctx, dir: &Path, bytes: u64) -> Result<()> {
    let file = match ctx.cg.kind {
        CgroupKind::V1 => "memory.limit_in_bytes",
        CgroupKind::V2 => "memory.max",
    };
    kernel::write_str(dir.join(file), &bytes.to_string())
}
