//! zswap: module parameters (`/sys/module/zswap/parameters/*`, world-readable) and the debugfs
//! counters (`/sys/kernel/debug/zswap/*`, root only). Both directories are enumerated, so files
//! that come and go between kernels (`zpool`, `same_filled_pages`, `decompress_fail`, …) are kept.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::root::{Reading, Reason, Root, Unavailable, classify_io, parse_u64_file};

/// Every zswap module parameter, raw text (`Y`, `lzo`, `20`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZswapParams {
    pub values: BTreeMap<String, String>,
    /// Parameters whose file could not be read.
    pub errors: Vec<Unavailable>,
}

/// Every zswap debugfs file with its decimal value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZswapDebugfs {
    pub values: BTreeMap<String, u64>,
    /// Files present but unreadable or not a number.
    pub errors: Vec<Unavailable>,
}

pub fn read_params(root: &Root) -> Reading<ZswapParams> {
    let dir = root.sys("module/zswap/parameters");
    let entries = read_dir_sorted(root, &dir, &Reason::NoZswap)?;
    let mut params = ZswapParams::default();
    for (name, path) in entries {
        match root.read_text(&path, &Reason::absent("vanished while reading")) {
            Ok(text) => {
                params.values.insert(name, text.trim().to_string());
            }
            Err(e) => params.errors.push(e),
        }
    }
    Ok(params)
}

/// Read the debugfs counters, explaining precisely why they are unavailable when they are.
///
/// `zswap_enabled` and `zswap_present` (from the parameters) refine the reason for a missing
/// directory: on 6.x kernels it only appears once zswap has been enabled since boot.
pub fn read_debugfs(
    root: &Root,
    zswap_present: bool,
    zswap_enabled: bool,
) -> Reading<ZswapDebugfs> {
    let dir = root.sys("kernel/debug/zswap");
    let entries = match read_dir_sorted(root, &dir, &Reason::absent("")) {
        Ok(e) => e,
        Err(e) if e.reason.is_absent() => {
            return Err(Unavailable::new(
                &dir,
                explain_missing(root, zswap_present, zswap_enabled),
            ));
        }
        Err(other) => return Err(other),
    };
    let mut out = ZswapDebugfs::default();
    for (name, path) in entries {
        match root
            .read_text(&path, &Reason::absent("vanished while reading"))
            .and_then(|t| parse_u64_file(&path, &t))
        {
            Ok(v) => {
                out.values.insert(name, v);
            }
            Err(e) => out.errors.push(e),
        }
    }
    Ok(out)
}

/// The debugfs counters again, from the files an earlier read found, without listing the
/// directory: the names were found once, and a file gone since (`None`) sends the caller back
/// to [`read_debugfs`]. Equal to a fresh read while the same files are there.
pub fn reread_debugfs(root: &Root, known: &ZswapDebugfs) -> Option<Reading<ZswapDebugfs>> {
    let dir = root.sys("kernel/debug/zswap");
    let failed = known
        .errors
        .iter()
        .filter_map(|e| Path::new(e.path()).file_name()?.to_str());
    let mut names: Vec<&str> = known
        .values
        .keys()
        .map(String::as_str)
        .chain(failed)
        .collect();
    names.sort_unstable();
    let mut out = ZswapDebugfs::default();
    let mut buf = Vec::with_capacity(32);
    for name in names {
        let path = dir.join(name);
        buf.clear();
        let read = root
            .read_into(&path, &mut buf, &Reason::absent("vanished while reading"))
            .and_then(|()| {
                std::str::from_utf8(&buf)
                    .map_err(|_| Unavailable::malformed(&path, None, "not valid UTF-8 text"))
            })
            .and_then(|t| parse_u64_file(&path, t));
        match read {
            Ok(v) => {
                out.values.insert(name.to_string(), v);
            }
            Err(e) if e.reason.is_absent() => return None,
            Err(e) => out.errors.push(e),
        }
    }
    Some(Ok(out))
}

fn explain_missing(root: &Root, zswap_present: bool, zswap_enabled: bool) -> Reason {
    let debug = root.sys("kernel/debug");
    if !zswap_present {
        return Reason::NoZswap;
    }
    let mounted = debugfs_mounted(root).unwrap_or_else(|| {
        // No mount table (a captured tree): a non-empty debug dir means debugfs was there.
        root.read_dir(&debug)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false)
    });
    if !mounted {
        Reason::DebugfsNotMounted
    } else if !zswap_enabled {
        Reason::ZswapNeverEnabled
    } else {
        Reason::DebugfsHidden
    }
}

/// Whether the mount table shows debugfs on /sys/kernel/debug. `None` when there is no table.
fn debugfs_mounted(root: &Root) -> Option<bool> {
    let text = root
        .read_text(&root.proc("mounts"), &Reason::absent(""))
        .ok()?;
    Some(text.lines().any(|l| {
        let mut w = l.split_whitespace();
        let _src = w.next();
        let target = w.next();
        let fstype = w.next();
        target == Some("/sys/kernel/debug") && fstype == Some("debugfs")
    }))
}

/// Regular files of a directory as (name, path), sorted by name.
fn read_dir_sorted(
    root: &Root,
    dir: &Path,
    absent: &Reason,
) -> Reading<Vec<(String, std::path::PathBuf)>> {
    let rd = root
        .read_dir(dir)
        .map_err(|e| classify_io(dir, &e, absent))?;
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e: io::Error| classify_io(dir, &e, absent))?;
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file {
            out.push((
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            ));
        }
    }
    out.sort();
    Ok(out)
}

/// `zswap.*` words of the kernel command line, e.g. `zswap.compressor=zstd`.
pub fn read_boot_params(root: &Root) -> Reading<BTreeMap<String, String>> {
    let path = root.proc("cmdline");
    let text = root.read_text(&path, &Reason::absent("no /proc/cmdline"))?;
    Ok(parse_cmdline(&text))
}

pub fn parse_cmdline(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for word in text.split_whitespace() {
        // Arguments after `--` go to init, not the kernel.
        if word == "--" {
            break;
        }
        if let Some(rest) = word.strip_prefix("zswap.") {
            let (k, v) = rest.split_once('=').unwrap_or((rest, ""));
            out.insert(format!("zswap.{k}"), v.trim_matches('"').to_string());
        }
    }
    out
}

/// A yes/no parameter (`Y`/`N`, `1`/`0`).
pub fn parse_bool(v: &str) -> Option<bool> {
    match v.trim() {
        "Y" | "y" | "1" | "true" | "on" => Some(true),
        "N" | "n" | "0" | "false" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(name: &str) -> Root {
        Root::at(format!(
            "{}/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
    }

    #[test]
    fn params_are_enumerated() {
        let p = read_params(&root("linux-6.18-loaded")).unwrap();
        assert_eq!(p.values.get("compressor").map(String::as_str), Some("lzo"));
        assert_eq!(p.values.get("enabled").map(String::as_str), Some("Y"));
        assert!(!p.values.contains_key("zpool"), "zpool is gone in 6.18");
    }

    #[test]
    fn debugfs_values() {
        let d = read_debugfs(&root("linux-6.18-loaded"), true, true).unwrap();
        assert_eq!(d.values.get("pool_total_size"), Some(&522_948_608));
        assert_eq!(d.values.get("stored_pages"), Some(&249_415));
        assert_eq!(d.values.get("stored_incompressible_pages"), Some(&39_343));
        assert_eq!(d.values.len(), 11);
    }

    #[test]
    fn cmdline_zswap_words() {
        let m =
            parse_cmdline("quiet zswap.enabled=1 zswap.compressor=zstd root=/dev/sda -- zswap.x=1");
        assert_eq!(m.len(), 2);
        assert_eq!(m["zswap.compressor"], "zstd");
    }

    #[test]
    fn missing_debug_dir_without_mount_table() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("sys/kernel/debug")).unwrap();
        let err = read_debugfs(&Root::at(tmp.path()), true, true).unwrap_err();
        assert_eq!(err.reason, Reason::DebugfsNotMounted);
        let err = read_debugfs(&Root::at(tmp.path()), false, false).unwrap_err();
        assert_eq!(err.reason, Reason::NoZswap);
    }
}
