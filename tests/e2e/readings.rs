//! The kernel's own numbers, read from a tree of its files, independently of zswaptop, so a test
//! can compare: the live system (`Tree::live`) in the end-to-end test, or what a guest of the
//! kernel matrix captured (`Tree::captured`, tests/kernels/guest.sh's layout).
//!
//! Every value is converted to bytes or pages here, with the units the kernel writes:
//! meminfo kB, vmstat pages, debugfs `pool_total_size` bytes and the rest pages, zram `mm_stat`
//! columns 1–5 bytes and 6–9 pages, `/proc/swaps` kB.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use serde_json::Value;

/// Where each file the comparisons read lives.
#[derive(Debug, Clone)]
pub struct Tree {
    /// `/proc` (meminfo, vmstat, swaps, zoneinfo).
    pub proc: PathBuf,
    /// zswap's module parameters.
    pub params: PathBuf,
    /// zswap's debugfs directory.
    pub debugfs: PathBuf,
    /// zram0's sysfs directory (`mm_stat`).
    pub zram0: PathBuf,
    /// The page size of the kernel that wrote the files.
    pub page_size: u64,
}

impl Tree {
    /// This machine's files.
    pub fn live() -> Tree {
        Tree {
            proc: "/proc".into(),
            params: "/sys/module/zswap/parameters".into(),
            debugfs: "/sys/kernel/debug/zswap".into(),
            zram0: "/sys/block/zram0".into(),
            page_size: page_size(),
        }
    }

    /// What a kernel matrix guest captured into `dir` (`proc/`, `params/`, `zswap/`, `zram0/`).
    #[allow(dead_code)]
    pub fn captured(dir: &Path, page_size: u64) -> Tree {
        Tree {
            proc: dir.join("proc"),
            params: dir.join("params"),
            debugfs: dir.join("zswap"),
            zram0: dir.join("zram0"),
            page_size,
        }
    }
}

/// One zswaptop run with the kernel read right before and right after it.
pub struct Snap {
    pub before: Kernel,
    pub json: Value,
    pub after: Kernel,
}

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
    /// zswap's parameters as the files say them (empty without zswap).
    pub params: BTreeMap<String, String>,
}

impl Kernel {
    /// The files of `tree`.
    pub fn read_at(tree: &Tree) -> Result<Self> {
        let page_size = tree.page_size;
        let mut meminfo = BTreeMap::new();
        for line in fs::read_to_string(tree.proc.join("meminfo"))?.lines() {
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
        for line in fs::read_to_string(tree.proc.join("vmstat"))?.lines() {
            let mut it = line.split_whitespace();
            if let (Some(k), Some(v)) = (it.next(), it.next().and_then(|v| v.parse::<u64>().ok())) {
                vmstat.insert(k.to_string(), v);
            }
        }
        let debugfs = read_debugfs(&tree.debugfs).ok();
        let swaps = read_swaps(&tree.proc.join("swaps"))?;
        let zram0 = read_mm_stat(&tree.zram0).ok();
        let pcp: Vec<u64> = fs::read_to_string(tree.proc.join("zoneinfo"))?
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
            params: read_params(&tree.params).unwrap_or_default(),
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

pub fn read_debugfs(dir: &Path) -> Result<BTreeMap<String, u64>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        if let Ok(v) = read_trim(entry.path())?.parse::<u64>() {
            out.insert(name, v);
        }
    }
    Ok(out)
}

pub fn read_mm_stat(dev_dir: &Path) -> Result<MmStat> {
    let text = read_trim(dev_dir.join("mm_stat"))?;
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
pub fn read_swaps(path: &Path) -> Result<Vec<SwapRow>> {
    let text = fs::read_to_string(path)?;
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

/// Every file in zswap's parameters directory with its content.
pub fn read_params(dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        out.insert(
            name,
            read_trim(entry.path()).unwrap_or_else(|e| format!("<unreadable: {e}>")),
        );
    }
    Ok(out)
}
