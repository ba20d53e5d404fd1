//! The live kernel: its files read now (through [`crate::readings`]), its parameters set, its
//! counters waited on until they settle.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, anyhow};

pub use crate::readings::{Kernel, MmStat, SwapRow, Tree, page_size, read_trim};

pub const ZSWAP_PARAMS: &str = "/sys/module/zswap/parameters";
pub const ZSWAP_DEBUGFS: &str = "/sys/kernel/debug/zswap";
pub const ZRAM0: &str = "/sys/block/zram0";

pub fn write_str(path: impl AsRef<Path>, value: &str) -> Result<()> {
    let p = path.as_ref();
    fs::write(p, value).with_context(|| format!("writing {value:?} to {}", p.display()))
}

impl Kernel {
    /// This machine's files now.
    pub fn read() -> Result<Self> {
        Kernel::read_at(&Tree::live())
    }
}

pub fn read_debugfs() -> Result<BTreeMap<String, u64>> {
    crate::readings::read_debugfs(Path::new(ZSWAP_DEBUGFS))
}

/// /proc/swaps.
pub fn read_swaps() -> Result<Vec<SwapRow>> {
    crate::readings::read_swaps(Path::new("/proc/swaps"))
}

/// Every file in /sys/module/zswap/parameters with its content.
pub fn read_params() -> Result<BTreeMap<String, String>> {
    crate::readings::read_params(Path::new(ZSWAP_PARAMS))
}

pub fn set_param(name: &str, value: &str) -> Result<()> {
    if crate::machine::changes().torn_down {
        return Err(anyhow!("the machine was already torn down (interrupted)"));
    }
    write_str(format!("{ZSWAP_PARAMS}/{name}"), value)
}

/// zswap set to keep what it stores: max_pool_percent 20, accept_threshold_percent 90, the
/// shrinker off (where the kernel has it), so nothing is written back while a test counts.
pub fn set_params_to_keep() -> Result<()> {
    set_param("max_pool_percent", "20")?;
    set_param("accept_threshold_percent", "90")?;
    if Path::new(ZSWAP_PARAMS).join("shrinker_enabled").exists() {
        set_param("shrinker_enabled", "N")?;
    }
    Ok(())
}

/// Poll until the swap/zswap/zram counters stop moving (two identical readings `gap` apart),
/// or `timeout` passes. Returns the last reading and whether it settled.
pub fn settle(gap: std::time::Duration, timeout: std::time::Duration) -> Result<(Kernel, bool)> {
    let start = std::time::Instant::now();
    let mut last = Kernel::read()?;
    loop {
        std::thread::sleep(gap);
        let now = Kernel::read()?;
        if now.motion_key() == last.motion_key() {
            return Ok((now, true));
        }
        if start.elapsed() > timeout {
            return Ok((now, false));
        }
        last = now;
    }
}

/// Whether `mount` lists a debugfs at /sys/kernel/debug.
pub fn debugfs_mounted() -> bool {
    fs::read_to_string("/proc/self/mounts")
        .map(|m| {
            m.lines()
                .any(|l| l.split_whitespace().nth(1) == Some("/sys/kernel/debug"))
        })
        .unwrap_or(false)
}

/// VmSwap of a process, in bytes (`/proc/PID/status` prints kB).
pub fn vm_swap(pid: u32) -> Result<u64> {
    let text = fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status"))?;
    text.lines()
        .find_map(|l| l.strip_prefix("VmSwap:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| anyhow!("no VmSwap line in /proc/{pid}/status"))
}

/// The block device holding a file, found through sysfs, independently of
/// zswaptop: `stat -c %d FILE` (st_dev) → MAJ:MIN → `/sys/dev/block/MAJ:MIN`.
#[derive(Debug, Clone)]
pub struct FileDevice {
    /// `MAJ:MIN`.
    pub devnum: String,
    /// Kernel name of the device (`vda`, `vda2`, `dm-0`).
    pub name: String,
    /// Its sysfs directory (`stat` inside).
    pub dir: std::path::PathBuf,
    /// The whole disk: the device itself, or a partition's parent.
    pub disk: String,
}

pub fn file_device(path: &str) -> Result<FileDevice> {
    let out = std::process::Command::new("stat")
        .args(["-c", "%d", path])
        .output()
        .context("running stat")?;
    if !out.status.success() {
        return Err(anyhow!(
            "stat -c %d {path}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let dev: u64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .context("stat -c %d printed no number")?;
    let devnum = format!("{}:{}", rustix::fs::major(dev), rustix::fs::minor(dev));
    let dir = fs::canonicalize(format!("/sys/dev/block/{devnum}"))
        .with_context(|| format!("/sys/dev/block/{devnum} (st_dev of {path})"))?;
    let base = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let name = base(&dir);
    let disk = if dir.join("partition").exists() {
        dir.parent().map(base).unwrap_or_default()
    } else {
        name.clone()
    };
    Ok(FileDevice {
        devnum,
        name,
        dir,
        disk,
    })
}

/// The counters of a block device's `stat` the test compares (sectors are 512 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockStat {
    pub read_sectors: u64,
    pub write_ios: u64,
    pub write_sectors: u64,
    pub io_ticks_ms: u64,
}

pub fn block_stat(dev_dir: &Path) -> Result<BlockStat> {
    let text = read_trim(dev_dir.join("stat"))?;
    let n: Vec<u64> = text
        .split_whitespace()
        .map(|w| w.parse::<u64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("{}/stat: {text:?}", dev_dir.display()))?;
    if n.len() < 11 {
        return Err(anyhow!("{}/stat has {} fields", dev_dir.display(), n.len()));
    }
    Ok(BlockStat {
        read_sectors: n[2],
        write_ios: n[4],
        write_sectors: n[6],
        io_ticks_ms: n[9],
    })
}
