//! Reads the kernel's own numbers, independently of zswaptop, so the test can compare.
//!
//! Every value is converted to bytes or pages here, with the units the kernel writes:
//! meminfo kB, vmstat pages, debugfs `pool_total_size` bytes and the rest pages, zram `mm_stat`
//! columns 1–5 bytes and 6–9 pages, `/proc/swaps` kB.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, anyhow};

pub const ZSWAP_PARAMS: &str = "/sys/module/zswap/parameters";
pub const ZSWAP_DEBUGFS: &str = "/sys/kernel/debug/zswap";
pub const ZRAM0: &str = "/sys/block/zram0";

/// Page size from sysconf (never assumed).
pub fn page_size() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|ps| u64::try_from(ps).ok())
        .unwrap_or(4096)
}

pub fn read_trim(path: impl AsRef<Path>) -> Result<String> {
    let p = path.as_ref();
    Ok(fs::read_to_string(p)
        .with_context(|| format!("reading {}", p.display()))?
        .trim()
        .to_string())
}

pub fn write_str(path: impl AsRef<Path>, value: &str) -> Result<()> {
    let p = path.as_ref();
    fs::write(p, value).with_context(|| format!("writing {value:?} to {}", p.display()))
}

/// One line of /proc/swaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapRow {
    pub path: String,
    pub kind: String,
    pub size_kb: u64,
    pub used_kb: u64,
    pub priority: i64,
}

/// zram `mm_stat`, bytes for the first five columns, pages for the rest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MmStat {
    pub orig: u64,
    pub compr: u64,
    pub mem_used: u64,
    pub mem_limit: u64,
    pub mem_used_max: u64,
    pub same_pages: u64,
    pub pages_compacted: u64,
    pub huge_pages: u64,
    /// Column 9 (5.11+), 0 when absent.
    pub huge_pages_since: u64,
}

/// One reading of every kernel file the test compares against.
#[derive(Debug, Clone, Default)]
pub struct Kernel {
    /// meminfo values in bytes (kB × 1024); count lines (HugePages_*) kept raw.
    pub meminfo: BTreeMap<String, u64>,
    /// vmstat values as printed (pages, except the kB items).
    pub vmstat: BTreeMap<String, u64>,
    /// Every file of /sys/kernel/debug/zswap, or None when the directory is not readable.
    pub debugfs: Option<BTreeMap<String, u64>>,
    pub swaps: Vec<SwapRow>,
    pub zram0: Option<MmStat>,
    pub page_size: u64,
    /// Σ `count:` of /proc/zoneinfo (pages on the per-CPU free lists), None without the lines.
    pub pcp_pages: Option<u64>,
}

impl Kernel {
    pub fn read() -> Result<Self> {
        let page_size = page_size();
        let mut meminfo = BTreeMap::new();
        for line in fs::read_to_string("/proc/meminfo")?.lines() {
            let Some((key, rest)) = line.split_once(':') else {
                continue;
            };
            let mut it = rest.split_whitespace();
            let Some(v) = it.next().and_then(|v| v.parse::<u64>().ok()) else {
                continue;
            };
            let v = if it.next() == Some("kB") { v * 1024 } else { v };
            meminfo.insert(key.to_string(), v);
        }
        let mut vmstat = BTreeMap::new();
        for line in fs::read_to_string("/proc/vmstat")?.lines() {
            let mut it = line.split_whitespace();
            if let (Some(k), Some(v)) = (it.next(), it.next().and_then(|v| v.parse::<u64>().ok())) {
                vmstat.insert(k.to_string(), v);
            }
        }
        let debugfs = read_debugfs().ok();
        let swaps = read_swaps()?;
        let zram0 = read_mm_stat(ZRAM0).ok();
        let pcp: Vec<u64> = fs::read_to_string("/proc/zoneinfo")?
            .lines()
            .filter_map(|l| l.trim().strip_prefix("count:")?.trim().parse().ok())
            .collect();
        let pcp_pages = (!pcp.is_empty()).then(|| pcp.iter().sum());
        Ok(Kernel {
            meminfo,
            vmstat,
            debugfs,
            swaps,
            zram0,
            page_size,
            pcp_pages,
        })
    }

    pub fn mem(&self, key: &str) -> Option<u64> {
        self.meminfo.get(key).copied()
    }

    pub fn vm(&self, key: &str) -> Option<u64> {
        self.vmstat.get(key).copied()
    }

    pub fn dbg(&self, key: &str) -> Option<u64> {
        self.debugfs.as_ref().and_then(|d| d.get(key).copied())
    }

    /// debugfs page counter in bytes.
    pub fn dbg_bytes(&self, key: &str) -> Option<u64> {
        self.dbg(key).map(|p| p * self.page_size)
    }

    pub fn swap_used(&self) -> Option<u64> {
        Some(self.mem("SwapTotal")?.saturating_sub(self.mem("SwapFree")?))
    }

    /// Swap not in RAM: used − Zswapped − SwapCached − zram orig (clamped at 0).
    pub fn not_in_ram(&self) -> Option<u64> {
        let zram = self.zram_swap_orig();
        Some(
            self.swap_used()?
                .saturating_sub(self.mem("Zswapped")?)
                .saturating_sub(self.mem("SwapCached")?)
                .saturating_sub(zram),
        )
    }

    /// orig_data_size of zram0 when it is an active swap device.
    pub fn zram_swap_orig(&self) -> u64 {
        let active = self.swaps.iter().any(|s| s.path == "/dev/zram0");
        match (active, self.zram0) {
            (true, Some(m)) => m.orig,
            _ => 0,
        }
    }

    pub fn zram_mem_used(&self) -> u64 {
        self.zram0.map(|m| m.mem_used).unwrap_or(0)
    }

    /// A compact fingerprint of the counters that move while swap activity is in flight.
    pub fn motion_key(&self) -> Vec<u64> {
        let mut v = Vec::new();
        for k in ["Zswap", "Zswapped", "SwapFree", "SwapCached", "Writeback"] {
            v.push(self.mem(k).unwrap_or(0));
        }
        for k in [
            "pswpin",
            "pswpout",
            "zswpin",
            "zswpout",
            "zswpwb",
            "swpout_zero",
            "swpin_zero",
        ] {
            v.push(self.vm(k).unwrap_or(0));
        }
        if let Some(d) = &self.debugfs {
            v.extend(d.values().copied());
        }
        if let Some(m) = self.zram0 {
            v.extend([m.orig, m.compr, m.mem_used, m.same_pages, m.huge_pages]);
        }
        v
    }
}

pub fn read_debugfs() -> Result<BTreeMap<String, u64>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(ZSWAP_DEBUGFS)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        if let Ok(v) = read_trim(entry.path())?.parse::<u64>() {
            out.insert(name, v);
        }
    }
    Ok(out)
}

pub fn read_mm_stat(dev_dir: &str) -> Result<MmStat> {
    let text = read_trim(format!("{dev_dir}/mm_stat"))?;
    let c: Vec<u64> = text
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    if c.len() < 8 {
        return Err(anyhow!("mm_stat has {} columns: {text:?}", c.len()));
    }
    Ok(MmStat {
        orig: c[0],
        compr: c[1],
        mem_used: c[2],
        mem_limit: c[3],
        mem_used_max: c[4],
        same_pages: c[5],
        pages_compacted: c[6],
        huge_pages: c[7],
        huge_pages_since: c.get(8).copied().unwrap_or(0),
    })
}

/// /proc/swaps, parsed from the right (mm/swapfile.c `swap_show`).
pub fn read_swaps() -> Result<Vec<SwapRow>> {
    let text = fs::read_to_string("/proc/swaps")?;
    let mut rows = Vec::new();
    for line in text.lines().skip(1) {
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.len() < 5 {
            continue;
        }
        let n = toks.len();
        rows.push(SwapRow {
            path: unescape_octal(&toks[..n - 4].join(" ")),
            kind: toks[n - 4].to_string(),
            size_kb: toks[n - 3].parse().unwrap_or(0),
            used_kb: toks[n - 2].parse().unwrap_or(0),
            priority: toks[n - 1].parse().unwrap_or(0),
        });
    }
    Ok(rows)
}

fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).to_string()
}

/// Every file in /sys/module/zswap/parameters with its content.
pub fn read_params() -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(ZSWAP_PARAMS)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        out.insert(
            name,
            read_trim(entry.path()).unwrap_or_else(|e| format!("<unreadable: {e}>")),
        );
    }
    Ok(out)
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
