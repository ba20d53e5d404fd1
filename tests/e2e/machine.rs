//! Setting the machine up and always putting it back, for every phase: [`setup`] before the
//! first, [`restore`] after the last (or when the run is cut short).
//!
//! Everything the test changes is recorded in one global [`Changes`] behind a mutex, so that the
//! normal path, a panic, the watchdog and a SIGINT/SIGTERM handler all run the same idempotent
//! [`teardown`]. [`Baseline`] is what `swapon --show`, the zswap parameters, the cgroup tree, zram0
//! and the debugfs mount looked like before; it is compared after teardown.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use crate::kernel::{self, ZRAM0, ZSWAP_PARAMS};
use crate::rep;

pub const SWAPFILE: &str = "/swapfile-zswaptop-e2e";
pub const SWAPFILE_MIB: u64 = 1536;
pub const CGROUP_NAME: &str = "zswaptop-e2e";
pub const CGROUP_LIMIT: u64 = 256 * 1024 * 1024;
const V1_MEMORY: &str = "/sys/fs/cgroup/memory";
/// Where zram devices are added (`hot_add`) and removed (`hot_remove`).
pub const ZRAM_CONTROL: &str = "/sys/class/zram-control";

/// What the test has changed so far, in the order it must be undone.
#[derive(Debug, Default)]
pub struct Changes {
    pub mounted_debugfs: bool,
    /// Writable zswap parameters and their values before the test.
    pub saved_params: Vec<(String, String)>,
    pub swapfile_created: bool,
    pub swapfile_on: bool,
    pub cgroup: Option<PathBuf>,
    /// `+memory` written into a cgroup2 parent's subtree_control by the test.
    pub v2_subtree_enabled: Option<PathBuf>,
    pub zram_initialised: bool,
    pub zram_saved_algorithm: Option<String>,
    /// zram devices added through [`ZRAM_CONTROL`] and not removed yet.
    pub zram_added: Vec<u32>,
    pub workload_pid: Option<i32>,
    pub torn_down: bool,
}

pub static CHANGES: Mutex<Changes> = Mutex::new(Changes {
    mounted_debugfs: false,
    saved_params: Vec::new(),
    swapfile_created: false,
    swapfile_on: false,
    cgroup: None,
    v2_subtree_enabled: None,
    zram_initialised: false,
    zram_saved_algorithm: None,
    zram_added: Vec::new(),
    workload_pid: None,
    torn_down: false,
});

pub fn changes() -> std::sync::MutexGuard<'static, Changes> {
    CHANGES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs a command, failing with its stderr when it exits non-zero.
pub fn run(prog: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(prog)
        .args(args)
        .output()
        .with_context(|| format!("running {prog}"))?;
    if !out.status.success() {
        bail!(
            "{prog} {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).to_string())
}

/// The machine made ready for the phases: debugfs mounted, the writable zswap parameters saved
/// (each is put back), the swapfile on, the memory cgroup made. Each step is recorded in
/// [`Changes`] as it is made, so a failure part-way is undone as well.
pub fn setup() -> Result<Cgroup> {
    mount_debugfs()?;
    save_params()?;
    create_swapfile()?;
    let cg = Cgroup::create()?;
    println!(
        "setup: debugfs mounted, zswap parameters saved, {SWAPFILE} ({SWAPFILE_MIB} MiB) on, {}",
        cg.describe()
    );
    Ok(cg)
}

/// Teardown, then the machine compared with its state before the test (`baseline`); the rows go
/// to the table.
pub fn restore(baseline: Option<&Baseline>) {
    let errors = teardown();
    let mut r = rep();
    r.phase("teardown — the machine is as it was");
    r.check(
        "teardown steps all succeeded",
        errors.is_empty(),
        &errors.join("; "),
        "no errors",
    );
    let Some(before) = baseline else {
        return;
    };
    match Baseline::read() {
        Ok(after) => {
            let diffs = diff_baseline(before, &after);
            let shown = |b: &Baseline| {
                format!(
                    "{} swap rows, {} params, {} cgroups",
                    b.swapon.lines().count(),
                    b.params.len(),
                    b.cgroups.len()
                )
            };
            r.check(
                "swapon --show, zswap parameters, cgroup tree, zram0, debugfs as before",
                diffs.is_empty(),
                &shown(&after),
                &shown(before),
            );
            for line in &diffs {
                r.note(line);
            }
            println!("after teardown: swapon --show {:?}", after.swapon.trim());
            println!("after teardown: zswap parameters {:?}", after.params);
            println!("after teardown: cgroups {:?}", after.cgroups);
        }
        Err(e) => {
            r.check(
                "reading the machine state after teardown",
                false,
                &format!("{e:#}"),
                "ok",
            );
        }
    }
}

/// The machine state the test promises to leave as it found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Baseline {
    pub swapon: String,
    pub params: BTreeMap<String, String>,
    pub cgroups: Vec<String>,
    pub zram_disksize: String,
    pub zram_algorithm: String,
    pub debugfs_mounted: bool,
}

impl Baseline {
    pub fn read() -> Result<Self> {
        Ok(Baseline {
            swapon: run(
                "swapon",
                &[
                    "--show",
                    "--noheadings",
                    "--raw",
                    "--output",
                    "NAME,TYPE,SIZE,PRIO",
                ],
            )?,
            params: kernel::read_params()?,
            cgroups: cgroup_tree(),
            zram_disksize: kernel::read_trim(format!("{ZRAM0}/disksize"))
                .unwrap_or_else(|_| "<absent>".into()),
            zram_algorithm: kernel::read_trim(format!("{ZRAM0}/comp_algorithm"))
                .unwrap_or_else(|_| "<absent>".into()),
            debugfs_mounted: kernel::debugfs_mounted(),
        })
    }
}

/// Names of the cgroup directories two levels deep in every hierarchy under /sys/fs/cgroup.
pub fn cgroup_tree() -> Vec<String> {
    let mut out = Vec::new();
    let Ok(hier) = fs::read_dir("/sys/fs/cgroup") else {
        return out;
    };
    for h in hier.flatten() {
        let hp = h.path();
        if !hp.is_dir() {
            continue;
        }
        let Ok(kids) = fs::read_dir(&hp) else {
            continue;
        };
        for k in kids.flatten() {
            if k.path().is_dir() {
                out.push(k.path().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// The active swap devices that are not ours.
pub fn foreign_swaps() -> Vec<String> {
    kernel::read_swaps()
        .map(|rows| {
            rows.into_iter()
                .map(|r| r.path)
                .filter(|p| p != SWAPFILE && p != "/dev/zram0")
                .collect()
        })
        .unwrap_or_default()
}

/// zram0's disksize, or None when there is no zram0.
pub fn zram0_disksize() -> Option<u64> {
    kernel::read_trim(format!("{ZRAM0}/disksize"))
        .ok()
        .and_then(|s| s.parse().ok())
}

pub fn mount_debugfs() -> Result<()> {
    if kernel::debugfs_mounted() {
        return Ok(());
    }
    run("mount", &["-t", "debugfs", "none", "/sys/kernel/debug"])?;
    changes().mounted_debugfs = true;
    Ok(())
}

/// Saves every writable zswap parameter (each is restored at teardown).
pub fn save_params() -> Result<()> {
    let mut saved = Vec::new();
    for (name, value) in kernel::read_params()? {
        let path = Path::new(ZSWAP_PARAMS).join(&name);
        let writable = fs::metadata(&path).map(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode() & 0o200 != 0
        });
        if writable.unwrap_or(false) {
            saved.push((name, value));
        }
    }
    changes().saved_params = saved;
    Ok(())
}

/// Removes what a killed earlier run of this test may have left (our names only).
pub fn clean_leftovers() -> Result<()> {
    if kernel::read_swaps()?.iter().any(|r| r.path == SWAPFILE) {
        println!("cleanup: {SWAPFILE} left active by an earlier run; swapoff");
        run("swapoff", &[SWAPFILE])?;
    }
    if Path::new(SWAPFILE).exists() {
        fs::remove_file(SWAPFILE)?;
    }
    for dir in [
        PathBuf::from(V1_MEMORY).join(CGROUP_NAME),
        cgroup2_root().join(CGROUP_NAME),
    ] {
        if dir.is_dir() {
            println!(
                "cleanup: cgroup {} left by an earlier run; removing",
                dir.display()
            );
            kill_cgroup_tasks(&dir);
            rmdir_retry(&dir, Duration::from_secs(10))?;
        }
    }
    Ok(())
}

pub fn create_swapfile() -> Result<()> {
    run("fallocate", &["-l", &format!("{SWAPFILE_MIB}M"), SWAPFILE])?;
    changes().swapfile_created = true;
    run("chmod", &["600", SWAPFILE])?;
    run("mkswap", &[SWAPFILE])?;
    run("swapon", &[SWAPFILE])?;
    changes().swapfile_on = true;
    Ok(())
}

fn cgroup2_root() -> PathBuf {
    for p in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
        if Path::new(p).join("cgroup.controllers").exists() {
            return PathBuf::from(p);
        }
    }
    PathBuf::from("/sys/fs/cgroup/unified")
}

/// Which memory-cgroup flavour the machine offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CgroupKind {
    V1,
    V2,
}

pub fn memory_controller() -> Option<CgroupKind> {
    for p in [
        "/sys/fs/cgroup/cgroup.controllers",
        "/sys/fs/cgroup/unified/cgroup.controllers",
    ] {
        if fs::read_to_string(p).is_ok_and(|c| c.split_whitespace().any(|w| w == "memory")) {
            return Some(CgroupKind::V2);
        }
    }
    if Path::new(V1_MEMORY).join("cgroup.procs").exists() {
        return Some(CgroupKind::V1);
    }
    None
}

pub struct Cgroup {
    pub dir: PathBuf,
    pub kind: CgroupKind,
}

impl Cgroup {
    pub fn create() -> Result<Self> {
        let kind = memory_controller().ok_or_else(|| anyhow!("no memory cgroup controller"))?;
        let dir = match kind {
            CgroupKind::V1 => PathBuf::from(V1_MEMORY).join(CGROUP_NAME),
            CgroupKind::V2 => {
                let root = cgroup2_root();
                let sub = root.join("cgroup.subtree_control");
                let on = fs::read_to_string(&sub)?
                    .split_whitespace()
                    .any(|w| w == "memory");
                if !on {
                    kernel::write_str(&sub, "+memory")?;
                    changes().v2_subtree_enabled = Some(sub);
                }
                root.join(CGROUP_NAME)
            }
        };
        fs::create_dir(&dir).with_context(|| format!("mkdir {}", dir.display()))?;
        changes().cgroup = Some(dir.clone());
        match kind {
            CgroupKind::V1 => {
                kernel::write_str(dir.join("memory.limit_in_bytes"), &CGROUP_LIMIT.to_string())?
            }
            CgroupKind::V2 => kernel::write_str(dir.join("memory.max"), &CGROUP_LIMIT.to_string())?,
        }
        Ok(Cgroup { dir, kind })
    }

    pub fn add(&self, pid: u32) -> Result<()> {
        kernel::write_str(self.dir.join("cgroup.procs"), &pid.to_string())
    }

    /// Has the kernel reclaim everything it can from the cgroup (the workload's anonymous pages
    /// go to swap: zswap, zram or the disk), returning once done. The charge limit stays as it
    /// is: nothing is charged here, so this never ends in the cgroup's OOM killer.
    ///
    /// The reclaim runs at swappiness 200 (the scan pressure on anonymous pages): at the default,
    /// after many swap-ins the kernel's cost balance scans the anonymous list so little that a
    /// few thousand recently written pages stay mapped.
    /// - v1: `memory.swappiness` is 200 for the duration (then put back) and
    ///   `memory.force_empty` reclaims until the cgroup is empty or repeated passes free nothing.
    /// - v2: `memory.reclaim` asked for all of `memory.current` with the `swappiness=200` key
    ///   (Linux 6.13+; without it before); it answers EAGAIN when it could not free that much
    ///   (page tables and other kernel memory stay), which is the same end.
    pub fn reclaim(&self) -> Result<()> {
        match self.kind {
            CgroupKind::V1 => {
                let swappiness = self.dir.join("memory.swappiness");
                let was = kernel::read_trim(&swappiness)?;
                kernel::write_str(&swappiness, "200")?;
                let reclaimed = kernel::write_str(self.dir.join("memory.force_empty"), "0");
                kernel::write_str(&swappiness, &was)?;
                reclaimed
            }
            CgroupKind::V2 => {
                let current = kernel::read_trim(self.dir.join("memory.current"))?;
                let path = self.dir.join("memory.reclaim");
                let mut result = fs::write(&path, format!("{current} swappiness=200"));
                if result
                    .as_ref()
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::InvalidInput)
                {
                    result = fs::write(&path, &current);
                }
                match result {
                    Err(e) if e.kind() != std::io::ErrorKind::WouldBlock => {
                        Err(anyhow!("writing {current} to {}: {e}", path.display()))
                    }
                    _ => Ok(()),
                }
            }
        }
    }

    pub fn describe(&self) -> String {
        let v = match self.kind {
            CgroupKind::V1 => "v1",
            CgroupKind::V2 => "v2",
        };
        format!(
            "memory cgroup {v} {} (limit {} MiB)",
            self.dir.display(),
            CGROUP_LIMIT >> 20
        )
    }
}

fn kill_cgroup_tasks(dir: &Path) {
    if let Ok(procs) = fs::read_to_string(dir.join("cgroup.procs")) {
        for pid in procs
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            kill_and_reap(pid);
        }
    }
}

fn kill_and_reap(pid: i32) {
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    let pid = nix::unistd::Pid::from_raw(pid);
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => {}
            Ok(_) => return,
            Err(_) if !Path::new(&format!("/proc/{pid}")).exists() => return,
            // Not our child: wait for it to disappear.
            Err(_) => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn rmdir_retry(dir: &Path, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if Instant::now() > deadline => {
                return Err(anyhow!("rmdir {}: {e}", dir.display()));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// Chooses zram0's algorithm (lz4 if offered, else the current one), sets it up as swap at
/// priority 100 and records it for teardown.
pub fn zram_setup(disksize: &str) -> Result<String> {
    let algs = kernel::read_trim(format!("{ZRAM0}/comp_algorithm"))?;
    let current = algs
        .split_whitespace()
        .find(|w| w.starts_with('['))
        .map(|w| w.trim_matches(['[', ']']).to_string())
        .ok_or_else(|| anyhow!("no selected algorithm in {algs:?}"))?;
    let offered: Vec<String> = algs
        .split_whitespace()
        .map(|w| w.trim_matches(['[', ']']).to_string())
        .collect();
    let chosen = if offered.iter().any(|a| a == "lz4") {
        "lz4".to_string()
    } else {
        current.clone()
    };
    {
        let mut c = changes();
        c.zram_saved_algorithm = Some(current);
        c.zram_initialised = true;
    }
    kernel::write_str(format!("{ZRAM0}/comp_algorithm"), &chosen)?;
    kernel::write_str(format!("{ZRAM0}/disksize"), disksize)?;
    run("mkswap", &["/dev/zram0"])?;
    run("swapon", &["-p", "100", "/dev/zram0"])?;
    Ok(chosen)
}

/// A new zram device (recorded for teardown); its number.
pub fn zram_hot_add() -> Result<u32> {
    let id: u32 = kernel::read_trim(format!("{ZRAM_CONTROL}/hot_add"))?
        .parse()
        .context("hot_add answered no number")?;
    changes().zram_added.push(id);
    Ok(id)
}

/// Removes zram device `id`.
pub fn zram_hot_remove(id: u32) -> Result<()> {
    kernel::write_str(format!("{ZRAM_CONTROL}/hot_remove"), &id.to_string())?;
    changes().zram_added.retain(|&a| a != id);
    Ok(())
}

/// Removes every zram device the test added and has not removed; what failed, one a device.
pub fn zram_remove_added() -> Vec<String> {
    let ids = changes().zram_added.clone();
    let mut errors = Vec::new();
    for id in ids {
        match zram_hot_remove(id) {
            Ok(()) => println!("teardown: hot_remove zram{id}: ok"),
            Err(e) => {
                println!("teardown: hot_remove zram{id}: ERROR {e:#}");
                errors.push(format!("hot_remove zram{id}: {e:#}"));
            }
        }
    }
    errors
}

pub fn set_workload(pid: Option<i32>) {
    changes().workload_pid = pid;
}

/// Undoes everything recorded in [`CHANGES`], once. Safe to call from any thread, any number of times.
pub fn teardown() -> Vec<String> {
    if changes().torn_down {
        return Vec::new();
    }
    // The forecast phase's own processes, cgroups and loop swap area first: its processes hold
    // swap on the areas below.
    let mut errors = crate::phases::forecast::teardown();
    errors.extend(zram_remove_added());
    let mut c = changes();
    if c.torn_down {
        return errors;
    }
    c.torn_down = true;
    let started = Instant::now();
    let mut step = |what: &str, r: Result<()>| {
        match &r {
            Ok(()) => println!("teardown: {what}: ok"),
            Err(e) => println!("teardown: {what}: ERROR {e:#}"),
        }
        if let Err(e) = r {
            errors.push(format!("{what}: {e:#}"));
        }
    };
    if let Some(pid) = c.workload_pid.take() {
        kill_and_reap(pid);
        step(&format!("kill workload {pid}"), Ok(()));
    }
    if let Some(dir) = &c.cgroup {
        kill_cgroup_tasks(dir);
    }
    if c.zram_initialised {
        let active = kernel::read_swaps()
            .map(|r| r.iter().any(|s| s.path == "/dev/zram0"))
            .unwrap_or(false);
        if active {
            step(
                "swapoff /dev/zram0",
                run("swapoff", &["/dev/zram0"]).map(|_| ()),
            );
        }
        step(
            "reset zram0",
            kernel::write_str(format!("{ZRAM0}/reset"), "1"),
        );
        if let Some(alg) = c.zram_saved_algorithm.take() {
            step(
                &format!("zram0 algorithm back to {alg}"),
                kernel::write_str(format!("{ZRAM0}/comp_algorithm"), &alg),
            );
        }
        c.zram_initialised = false;
    }
    if c.swapfile_on {
        let t = Instant::now();
        let r = run("swapoff", &[SWAPFILE]).map(|_| ());
        step(
            &format!("swapoff {SWAPFILE} ({:.1}s)", t.elapsed().as_secs_f64()),
            r,
        );
        c.swapfile_on = false;
    }
    if c.swapfile_created {
        step(
            &format!("remove {SWAPFILE}"),
            fs::remove_file(SWAPFILE).map_err(Into::into),
        );
        c.swapfile_created = false;
    }
    // enabled last, so the other parameters are in place when zswap resumes its old state.
    let mut params = std::mem::take(&mut c.saved_params);
    params.sort_by_key(|(n, _)| n == "enabled");
    for (name, value) in &params {
        let now = kernel::read_trim(Path::new(ZSWAP_PARAMS).join(name)).unwrap_or_default();
        if &now != value {
            step(
                &format!("zswap {name} back to {value}"),
                // Written directly: kernel::set_param refuses once teardown has begun.
                kernel::write_str(Path::new(ZSWAP_PARAMS).join(name), value),
            );
        }
    }
    if let Some(dir) = c.cgroup.take() {
        step(
            &format!("rmdir {}", dir.display()),
            rmdir_retry(&dir, Duration::from_secs(15)),
        );
    }
    if let Some(sub) = c.v2_subtree_enabled.take() {
        step(
            "cgroup2 subtree_control -memory",
            kernel::write_str(&sub, "-memory"),
        );
    }
    if c.mounted_debugfs {
        step(
            "umount /sys/kernel/debug",
            run("umount", &["/sys/kernel/debug"]).map(|_| ()),
        );
        c.mounted_debugfs = false;
    }
    println!("teardown: done in {:.1}s", started.elapsed().as_secs_f64());
    errors
}

/// Lines describing every difference between two baselines (empty when equal).
pub fn diff_baseline(before: &Baseline, after: &Baseline) -> Vec<String> {
    let mut d = Vec::new();
    if before.swapon != after.swapon {
        d.push(format!(
            "swapon --show: before {:?}, after {:?}",
            before.swapon, after.swapon
        ));
    }
    if before.params != after.params {
        d.push(format!(
            "zswap parameters: before {:?}, after {:?}",
            before.params, after.params
        ));
    }
    if before.cgroups != after.cgroups {
        let added: Vec<_> = after
            .cgroups
            .iter()
            .filter(|c| !before.cgroups.contains(c))
            .collect();
        let gone: Vec<_> = before
            .cgroups
            .iter()
            .filter(|c| !after.cgroups.contains(c))
            .collect();
        d.push(format!("cgroup tree: added {added:?}, removed {gone:?}"));
    }
    if before.zram_disksize != after.zram_disksize || before.zram_algorithm != after.zram_algorithm
    {
        d.push(format!(
            "zram0: before {} {}, after {} {}",
            before.zram_disksize, before.zram_algorithm, after.zram_disksize, after.zram_algorithm
        ));
    }
    if before.debugfs_mounted != after.debugfs_mounted {
        d.push(format!(
            "debugfs mounted: before {}, after {}",
            before.debugfs_mounted, after.debugfs_mounted
        ));
    }
    d
}
