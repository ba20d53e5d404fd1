//! zswap: module parameters (`/sys/module/zswap/parameters/*`, world-readable) and the debugfs
//! counters (`/sys/kernel/debug/zswap/*`, root only). Both directories are enumerated, so files
//! that come and go between kernels (`zpool`, `same_filled_pages`, `decompress_fail`, …) are kept.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::{Root, classify_io, parse_u64_file};
use crate::sanitize::Sanitize;

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
    pub values: DebugfsMap<u64>,
    /// Files present but unreadable or not a number.
    pub errors: Vec<Unavailable>,
}

/// The debugfs files the metric catalogue names (`Read::Debugfs`), sorted: their values live in
/// fixed slots of a [`DebugfsMap`], so a tick keeps no string per counter.
pub const DEBUGFS_FILES: [&str; 14] = [
    "decompress_fail",
    "duplicate_entry",
    "pool_limit_hit",
    "pool_pages",
    "pool_total_size",
    "reject_alloc_fail",
    "reject_compress_fail",
    "reject_compress_poor",
    "reject_kmemcache_fail",
    "reject_reclaim_fail",
    "same_filled_pages",
    "stored_incompressible_pages",
    "stored_pages",
    "written_back_pages",
];

/// A value per zswap debugfs file, by file name: the files of [`DEBUGFS_FILES`] in fixed slots,
/// any other (a later kernel's) by its name. Reads, iterates (in name order) and serializes as
/// the map from file name to value it stands for.
#[derive(Debug, Clone, PartialEq, Sanitize)]
pub struct DebugfsMap<T> {
    pub(crate) slots: [Option<T>; DEBUGFS_FILES.len()],
    /// Files [`DEBUGFS_FILES`] lacks, by name.
    pub(crate) other: BTreeMap<String, T>,
}

impl<T: Eq> Eq for DebugfsMap<T> {}

impl<T> Default for DebugfsMap<T> {
    fn default() -> Self {
        DebugfsMap {
            slots: std::array::from_fn(|_| None),
            other: BTreeMap::new(),
        }
    }
}

fn slot(name: &str) -> Option<usize> {
    DEBUGFS_FILES.binary_search(&name).ok()
}

impl<T> DebugfsMap<T> {
    pub fn get(&self, name: &str) -> Option<&T> {
        match slot(name) {
            Some(i) => self.slots[i].as_ref(),
            None => self.other.get(name),
        }
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Set the value of `name` (a string is kept only for a name [`DEBUGFS_FILES`] lacks).
    pub fn insert(&mut self, name: &str, value: T) -> Option<T> {
        match slot(name) {
            Some(i) => self.slots[i].replace(value),
            None => self.other.insert(name.to_string(), value),
        }
    }

    /// Every file with its value, in name order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        let mut known = DEBUGFS_FILES
            .iter()
            .zip(&self.slots)
            .filter_map(|(&k, v)| Some((k, v.as_ref()?)))
            .peekable();
        let mut other = self.other.iter().map(|(k, v)| (k.as_str(), v)).peekable();
        std::iter::from_fn(move || match (known.peek(), other.peek()) {
            (Some(a), Some(b)) if a.0 > b.0 => other.next(),
            (Some(_), _) => known.next(),
            (None, _) => other.next(),
        })
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.iter().map(|(k, _)| k)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.iter().flatten().count() + self.other.len()
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T, S: AsRef<str>> FromIterator<(S, T)> for DebugfsMap<T> {
    fn from_iter<I: IntoIterator<Item = (S, T)>>(iter: I) -> Self {
        let mut map = DebugfsMap::default();
        for (k, v) in iter {
            map.insert(k.as_ref(), v);
        }
        map
    }
}

impl<T: Serialize> Serialize for DebugfsMap<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for DebugfsMap<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(BTreeMap::<String, T>::deserialize(d)?.into_iter().collect())
    }
}

pub(crate) fn read_params(root: &Root) -> Reading<ZswapParams> {
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
pub(crate) fn read_debugfs(
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
                out.values.insert(&name, v);
            }
            Err(e) => out.errors.push(e),
        }
    }
    Ok(out)
}

/// The debugfs counters again, from the files an earlier read found, without listing the
/// directory: the names were found once, and a file gone since (`None`) sends the caller back
/// to [`read_debugfs`]. Equal to a fresh read while the same files are there.
pub(crate) fn reread_debugfs(root: &Root, known: &ZswapDebugfs) -> Option<Reading<ZswapDebugfs>> {
    let dir = root.sys("kernel/debug/zswap");
    let failed = known
        .errors
        .iter()
        .filter_map(|e| Path::new(e.path()).file_name()?.to_str());
    let mut names: Vec<&str> = known.values.keys().chain(failed).collect();
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
                out.values.insert(name, v);
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

/// Whether debugfs is on /sys/kernel/debug: asked of the live kernel with `statfs`, else as
/// the tree's mount table shows it. `None` when there is no table.
fn debugfs_mounted(root: &Root) -> Option<bool> {
    if root.is_live()
        && let Some(mounted) = crate::sys::is_debugfs(&root.sys("kernel/debug"))
    {
        return Some(mounted);
    }
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
        if entry.is_file() {
            out.push((
                entry.file_name().to_string_lossy().into_owned(),
                entry.into_path(),
            ));
        }
    }
    out.sort();
    Ok(out)
}

/// `zswap.*` words of the kernel command line, e.g. `zswap.compressor=zstd`.
pub(crate) fn read_boot_params(root: &Root) -> Reading<BTreeMap<String, String>> {
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
pub(crate) fn parse_bool(v: &str) -> Option<bool> {
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

    /// The catalogue's files go in slots, another file by its name; either way the map reads,
    /// iterates and serializes as the map of file names it stands for.
    #[test]
    fn debugfs_map_is_the_map_of_names() {
        let pairs = [
            ("a_first", 1),
            ("pool_limit_hit", 2),
            ("q_between", 3),
            ("stored_pages", 4),
            ("zz_last", 5),
            ("written_back_pages", 6),
        ];
        let map: DebugfsMap<u64> = pairs.iter().copied().collect();
        let plain: BTreeMap<String, u64> = pairs.iter().map(|&(k, v)| (k.into(), v)).collect();
        let names: Vec<&str> = map.keys().collect();
        assert_eq!(names, plain.keys().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(map.len(), 6);
        assert_eq!(map.get("q_between"), Some(&3));
        assert_eq!(map.get("stored_pages"), Some(&4));
        assert_eq!(map.get("pool_pages"), None);
        assert_eq!(
            map.other.len(),
            3,
            "only the unknown names are kept as strings"
        );
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, serde_json::to_string(&plain).unwrap());
        assert_eq!(serde_json::from_str::<DebugfsMap<u64>>(&json).unwrap(), map);
        assert!(DebugfsMap::<u64>::default().is_empty());
        assert!(DEBUGFS_FILES.windows(2).all(|w| w[0] < w[1]), "sorted");
    }

    /// A fresh read and a read again of the files found keep the catalogue's counters in their
    /// slots, and agree.
    #[test]
    fn debugfs_read_again_fills_the_slots() {
        let root = root("linux-6.18-loaded");
        let d = read_debugfs(&root, true, true).unwrap();
        assert!(d.values.other.is_empty(), "{:?}", d.values.other);
        let again = reread_debugfs(&root, &d).unwrap().unwrap();
        assert_eq!(again, d);
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
