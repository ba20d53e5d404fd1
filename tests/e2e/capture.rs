//! Captures the /proc and /sys files of a phase into a fixture tree that `zswaptop --root` reads.
//!
//! The project's `scripts/capture-fixture.sh DEST --pid PID` does the copying (it mirrors / and
//! redacts the hostname). Should the script be missing, a built-in copy of the same core files is
//! used so the round-trip check still runs; the table says which one was used.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

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
