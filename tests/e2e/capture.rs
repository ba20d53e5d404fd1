//! Captures the /proc and /sys files of a phase into a fixture tree that `zswaptop --root` reads.
//!
//! The project's `scripts/capture-fixture.sh DEST --pid PID` does the copying (it mirrors / and
//! redacts the hostname). Should the script be missing, a built-in copy of the same core files is
//! used so the round-trip check still runs; the table says which one was used.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::checks::MIB;
use crate::context::{Ctx, Snap, run_zswaptop};
use crate::kernel::{self, Kernel};
use crate::rep;
use crate::report::{i, u};
use crate::workload::{Handle, Resident};

pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/capture-fixture.sh")
}

/// Captures into `dest` (created; must not exist yet). Returns a one-line description of how.
pub fn capture(dest: &Path, pid: Option<u32>) -> Result<String> {
    let script = script();
    if script.exists() {
        let mut cmd = Command::new("bash");
        cmd.arg(&script).arg(dest);
        if let Some(pid) = pid {
            cmd.arg("--pid").arg(pid.to_string());
        }
        let out = cmd.output().context("running capture-fixture.sh")?;
        if !out.status.success() {
            bail!(
                "capture-fixture.sh {} failed ({}): {}{}",
                dest.display(),
                out.status,
                String::from_utf8_lossy(&out.stdout).trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        return Ok(format!(
            "scripts/capture-fixture.sh {} --pid {}",
            dest.display(),
            pid.unwrap_or(0)
        ));
    }
    builtin(dest, pid)?;
    Ok(format!(
        "built-in copy (scripts/capture-fixture.sh not present) into {}",
        dest.display()
    ))
}

fn copy(rel: &str, dest: &Path) -> Result<()> {
    let src = Path::new("/").join(rel);
    let Ok(data) = fs::read(&src) else {
        return Ok(());
    };
    let to = dest.join(rel);
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(&to, data).with_context(|| format!("writing {}", to.display()))
}

fn copy_dir_files(rel: &str, dest: &Path) -> Result<()> {
    let Ok(rd) = fs::read_dir(Path::new("/").join(rel)) else {
        return Ok(());
    };
    for e in rd.flatten() {
        if e.path().is_file() {
            copy(&format!("{rel}/{}", e.file_name().to_string_lossy()), dest)?;
        }
    }
    Ok(())
}

fn builtin(dest: &Path, pid: Option<u32>) -> Result<()> {
    fs::create_dir_all(dest)?;
    for f in [
        "proc/meminfo",
        "proc/vmstat",
        "proc/swaps",
        "proc/pressure/memory",
        "proc/diskstats",
        "proc/sys/kernel/osrelease",
        "sys/kernel/mm/transparent_hugepage/enabled",
        "sys/kernel/mm/transparent_hugepage/defrag",
    ] {
        copy(f, dest)?;
    }
    copy_dir_files("proc/sys/vm", dest)?;
    copy_dir_files("sys/module/zswap/parameters", dest)?;
    copy_dir_files("sys/kernel/debug/zswap", dest)?;
    if let Ok(rd) = fs::read_dir("/sys/block") {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            copy(&format!("sys/block/{name}/stat"), dest)?;
            if name.starts_with("zram") {
                for f in [
                    "mm_stat",
                    "io_stat",
                    "bd_stat",
                    "comp_algorithm",
                    "disksize",
                    "initstate",
                    "debug_stat",
                ] {
                    copy(&format!("sys/block/{name}/{f}"), dest)?;
                }
            }
        }
    }
    if let Some(pid) = pid {
        copy(&format!("proc/{pid}/status"), dest)?;
    }
    let release = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    fs::write(dest.join("uname-r"), release)?;
    fs::write(
        dest.join("pagesize"),
        format!("{}\n", crate::kernel::page_size()),
    )?;
    Ok(())
}

/// Total size in bytes and number of files of a tree.
pub fn tree_size(dir: &Path) -> (u64, usize) {
    let mut total = 0;
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(m) = e.metadata() {
                total += m.len();
                n += 1;
            }
        }
    }
    (total, n)
}

/// Captures a phase into the fixture tree `name` and checks that `--root TREE` reads the same
/// pool and stored values as the live run.
pub fn phase(
    ctx: &Ctx,
    name: &str,
    pid: u32,
    live: &Snap,
    readme: &str,
    strip_debugfs: bool,
) -> Result<()> {
    let dest = ctx.fixture_dir(name)?;
    let kb = Kernel::read()?;
    let how = capture(&dest, Some(pid))?;
    let ka = Kernel::read()?;
    if strip_debugfs {
        // What a non-root capture sees: no debugfs.
        let dbg = dest.join("sys/kernel/debug");
        if dbg.exists() {
            fs::remove_dir_all(&dbg)?;
        }
    }
    let (bytes, files) = tree_size(&dest);
    fs::write(
        dest.join("README.md"),
        format!("{readme}{}", expected_block(&dest)),
    )?;
    rep().note(&format!("fixture: {how}: {files} files, {bytes} bytes"));
    let dest_s = dest.display().to_string();
    let (tree, status) = run_zswaptop(&ctx.bin, &["--root", &dest_s], false)?;
    let mut r = rep();
    r.check(
        "round-trip: zswaptop --root TREE exits 0",
        status.success(),
        &status.to_string(),
        "exit status: 0",
    );
    for (path, key) in [
        ("zswap.pool_bytes", "Zswap"),
        ("zswap.stored_bytes", "Zswapped"),
    ] {
        // Between the live run's value and the kernel right after the capture (equal when settled),
        // and equal to what the captured meminfo says.
        let live_v = u(&live.json, path);
        let lo_hi = [live_v, kb.mem(key), ka.mem(key)];
        let lo = lo_hi.iter().flatten().min().copied();
        let hi = lo_hi.iter().flatten().max().copied();
        r.bracket(
            &format!("round-trip {path}: tree vs live run/kernel"),
            u(&tree, path),
            lo,
            hi,
            0,
        );
    }
    r.exact(
        "round-trip memory.total_bytes: tree vs live",
        i(&tree, "memory.total_bytes"),
        i(&live.json, "memory.total_bytes"),
    );
    Ok(())
}

/// The README.md of a phase's fixture tree: how it was made, the workload, the kernel's state.
pub fn readme(title: &str, wl: &Handle, res: Resident, k: &Kernel, held: &str) -> String {
    let params = kernel::read_params().unwrap_or_default();
    let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let swaps: Vec<String> = k
        .swaps
        .iter()
        .map(|s| {
            format!(
                "{} ({}, {} kB, used {} kB, prio {})",
                s.path, s.kind, s.size_kb, s.used_kb, s.priority
            )
        })
        .collect();
    format!(
        "# {title}\n\n\
         Captured live by the end-to-end test (`tests/e2e`, `ZSWAPTOP_E2E_SAVE_FIXTURES`) on Linux {kernel}, \
         PAGE_SIZE {ps}, with the files zswaptop reads copied under this directory as they were at that moment \
         (hostname redacted).\n\n\
         ## Workload\n\n\
         One process (its /proc/PID/status is included) held {mib} MiB of anonymous memory ({pages} pages, no THP) \
         inside memory cgroup `zswaptop-e2e` (limit 256 MiB):\n\n\
         - zero-filled: {zero} pages (10 %), {zr} resident at capture\n\
         - random, incompressible: {random} pages (10 %), {rr} resident\n\
         - compressible (1/3 random bytes, 2/3 a repeated phrase): {comp} pages (80 %), {cr} resident\n\n\
         ## State\n\n{held}\n\n\
         - zswap parameters: {params}\n\
         - swap devices: {swaps}\n\
         - meminfo: Zswap {zswap} kB, Zswapped {zswapped} kB, SwapTotal {st} kB, SwapFree {sf} kB, SwapCached {sc} kB\n\
         - zswap debugfs: {dbg}\n\
         - zram0 mm_stat: {mm}\n",
        kernel = kernel::read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        ps = k.page_size,
        mib = wl.pages * k.page_size / MIB,
        pages = wl.pages,
        zero = wl.zero,
        zr = res.zero,
        random = wl.random,
        rr = res.random,
        comp = wl.compressible,
        cr = res.compressible,
        params = p.join(", "),
        swaps = swaps.join("; "),
        zswap = k.mem("Zswap").unwrap_or(0) / 1024,
        zswapped = k.mem("Zswapped").unwrap_or(0) / 1024,
        st = k.mem("SwapTotal").unwrap_or(0) / 1024,
        sf = k.mem("SwapFree").unwrap_or(0) / 1024,
        sc = k.mem("SwapCached").unwrap_or(0) / 1024,
        dbg = k
            .debugfs
            .as_ref()
            .map(|d| d
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", "))
            .unwrap_or_else(|| "not readable".into()),
        mm = k
            .zram0
            .map(|m| format!(
                "orig_data_size {} B, compr_data_size {} B, mem_used_total {} B, same_pages {}, huge_pages {}",
                m.orig, m.compr, m.mem_used, m.same_pages, m.huge_pages
            ))
            .unwrap_or_else(|| "absent".into()),
    )
}

/// An ```` ```expected ```` block (JSON path = value) computed from the captured files alone, with
/// the formulas of docs/json-schema.md, for the fixture tests.
fn expected_block(tree: &Path) -> String {
    let read = |rel: &str| fs::read_to_string(tree.join(rel)).unwrap_or_default();
    let meminfo = read("proc/meminfo");
    let kb = |key: &str| -> Option<u64> {
        meminfo.lines().find_map(|l| {
            let (k, rest) = l.split_once(':')?;
            (k == key).then(|| rest.split_whitespace().next()?.parse::<u64>().ok())?
        })
    };
    let ps: u64 = read("pagesize")
        .trim()
        .parse()
        .unwrap_or_else(|_| kernel::page_size());
    let dbg = |name: &str| -> Option<u64> {
        read(&format!("sys/kernel/debug/zswap/{name}"))
            .trim()
            .parse()
            .ok()
    };
    let param = |name: &str| -> Option<u64> {
        read(&format!("sys/module/zswap/parameters/{name}"))
            .trim()
            .parse()
            .ok()
    };
    let mut lines: Vec<String> = Vec::new();
    let mut put = |key: &str, v: Option<u64>| {
        lines.push(format!(
            "{key} = {}",
            v.map(|v| v.to_string()).unwrap_or_else(|| "null".into())
        ));
    };
    let b = |v: Option<u64>| v.map(|v| v * 1024);
    put("memory.total_bytes", b(kb("MemTotal")));
    put("memory.free_bytes", b(kb("MemFree")));
    put("memory.breakdown.zswap_pool_bytes", b(kb("Zswap")));
    put("zswap.pool_bytes", b(kb("Zswap")));
    put("zswap.stored_bytes", b(kb("Zswapped")));
    put(
        "zswap.pool_limit_bytes",
        kb("MemTotal")
            .zip(param("max_pool_percent"))
            .map(|(t, pct)| t * 1024 / ps * pct / 100 * ps),
    );
    put("swap.total_bytes", b(kb("SwapTotal")));
    put(
        "swap.used_bytes",
        kb("SwapTotal")
            .zip(kb("SwapFree"))
            .map(|(t, f)| (t - f) * 1024),
    );
    put("swap.in_zswap_bytes", b(kb("Zswapped")));
    put("swap.in_swap_cache_bytes", b(kb("SwapCached")));
    if tree.join("sys/kernel/debug/zswap").is_dir() {
        put(
            "zswap.incompressible_bytes",
            dbg("stored_incompressible_pages").map(|p| p * ps),
        );
        for name in [
            "written_back_pages",
            "pool_limit_hit",
            "stored_pages",
            "pool_total_size",
        ] {
            put(&format!("zswap.debugfs.{name}"), dbg(name));
        }
    } else {
        put("zswap.debugfs", None);
        put("zswap.incompressible_bytes", None);
    }
    let mm: Vec<u64> = read("sys/block/zram0/mm_stat")
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    if mm.len() >= 8 {
        for (n, key) in ["orig_data_bytes", "compr_data_bytes", "mem_used_bytes"]
            .iter()
            .enumerate()
        {
            put(&format!("zram.0.{key}"), Some(mm[n]));
        }
        put("zram.0.huge_pages", Some(mm[7]));
        put("memory.breakdown.zram_pool_bytes", Some(mm[2]));
    }
    format!(
        "\n## Expected values\n\nComputed from the files of this tree alone (kB × 1024, pages × pagesize), \
         independently of zswaptop:\n\n```expected\n{}\n```\n",
        lines.join("\n")
    )
}
