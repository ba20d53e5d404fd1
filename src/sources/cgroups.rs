//! The memory controller per cgroup: memory, swap and zswap on cgroup v2 (mm/memcontrol.c,
//! Documentation/admin-guide/cgroup-v2.rst), memory and swap on cgroup v1 (mm/memcontrol-v1.c,
//! Documentation/admin-guide/cgroup-v1/memory.rst).
//!
//! Under cgroup v1 the kernel neither charges nor reports zswap per cgroup (its zswap hooks
//! return at once unless the memory controller is on the v2 hierarchy), so a v1 cgroup's zswap
//! figures stay unknown rather than 0. The v1 figures are read to mean what the v2 ones do:
//!
//! - memory: `memory.usage_in_bytes`, the same page counter as v2's `memory.current`
//!   (hierarchical, kernel memory included). memory.rst calls it a "fuzz value" and points to
//!   memory.stat `rss`+`cache` as exact, but that predates the current code: the counter's slack
//!   is the per-CPU charge batch (at most 64 pages a CPU), which v2's `memory.current` has too,
//!   and memory.stat is itself flushed only once its pending updates pass a threshold of the
//!   same size; `rss`+`cache` would also leave out the kernel memory (slab, stacks, page
//!   tables) that v2 counts. On the root cgroup the kernel computes it
//!   from global counters (file pages + mapped anon), as no counter is charged there.
//! - swap: memory.stat `total_swap` (hierarchical, bytes; the non-`total_` keys are the cgroup's
//!   own), the count of swap slots charged, as v2's `memory.swap.current`. Only where swap is
//!   accounted: the `memory.memsw.*` files exist. Without them the kernel charges no swap and
//!   `total_swap` would read 0, so swap is unknown.
//!
//! Swap-ins per cgroup: v2's memory.stat counts, hierarchically, `zswpin` (pages loaded from
//! zswap) and, where the kernel lists them among the memcg events (mm/memcontrol.c
//! `memcg_vm_event_stat`: PSWPIN and PSWPOUT, documented in cgroup-v2.rst), `pswpin` and `pswpout`
//! (pages read from and written to a swap device); each is read where present. v1's memory.stat
//! has neither: its closest count is `total_pgmajfault` (every major fault of the cgroup and its
//! children: swap-ins from zswap or a device, and file pages read from disk alike), read into
//! `pgmajfault` as v2's own (hierarchical) `pgmajfault` is.
//!
//! Events, pressure and limits (v2, Documentation/admin-guide/cgroup-v2.rst): `memory.events`
//! (`high`, `max`, `oom`, `oom_kill`, `oom_group_kill`: counts since the cgroup was made, of the
//! cgroup and its descendants; none on the root), `memory.pressure` (the format of
//! /proc/pressure/memory, where the kernel has PSI), `memory.high`, `memory.max`,
//! `memory.swap.max` and `memory.zswap.max` (bytes or `max`; none on the root). v1 has none of
//! these files: its `memory.oom_control` carries `oom_kill` from Linux 4.13 (the only event read
//! there) and `memory.limit_in_bytes` is the same hard limit as v2's `memory.max`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;
use crate::sources::psi::{self, PsiSample};

/// A cgroup's memory events: v2's `memory.events`; on v1 `oom_kill` alone (memory.oom_control,
/// Linux 4.13+), the others unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEvents {
    /// Times usage went over memory.high (and the cgroup was throttled and reclaimed).
    pub high: Option<u64>,
    /// Times usage was about to go over memory.max (or swap.max) and reclaim had to run.
    pub max: Option<u64>,
    /// Times the cgroup reached its limit and an allocation was about to fail (OOM).
    pub oom: Option<u64>,
    /// Processes of the cgroup killed by any OOM killer.
    pub oom_kill: Option<u64>,
    /// Group OOMs (memory.oom.group: the whole cgroup killed), Linux 5.17+.
    pub oom_group_kill: Option<u64>,
}

/// One cgroup's memory figures. State items are bytes, event items page counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CgroupSample {
    /// Path below the mount, `/` for the root.
    pub path: String,
    /// The directory's inode: a restarted unit gets a new cgroup with a new inode (counters reset).
    pub inode: u64,
    pub memory_current: Option<u64>,
    pub swap_current: Option<u64>,
    /// memory.stat `zswap`: compressed bytes charged to the cgroup.
    pub zswap: Option<u64>,
    /// memory.stat `zswapped`: original size of its pages in zswap.
    pub zswapped: Option<u64>,
    pub zswpin: Option<u64>,
    pub zswpout: Option<u64>,
    pub zswpwb: Option<u64>,
    /// memory.stat `pswpin` / `pswpout` (pages read from / written to a swap device; v2, where
    /// the kernel prints them).
    #[serde(default)]
    pub pswpin: Option<u64>,
    #[serde(default)]
    pub pswpout: Option<u64>,
    /// Major faults (pages): v2 memory.stat `pgmajfault`, v1 `total_pgmajfault`; both count the
    /// cgroup and its children.
    #[serde(default)]
    pub pgmajfault: Option<u64>,
    /// memory.zswap.max: `None` = file absent or neither bytes nor "max", `Some(None)` = "max".
    pub zswap_max: Option<Option<u64>>,
    pub zswap_writeback: Option<bool>,
    /// The hierarchy it was read from: 1 (the v1 memory controller) or 2. A recording made
    /// before v1 was read holds v2 cgroups only.
    #[serde(default = "version_2")]
    pub version: u8,
    /// cgroup v1: whether the kernel accounts swap per cgroup (the `memory.memsw.*` files
    /// exist); `None` on v2, or when that could not be told.
    #[serde(default)]
    pub swap_accounting: Option<bool>,
    /// memory.events (v2) or memory.oom_control's `oom_kill` (v1); `None` without either file
    /// (the root cgroup, a kernel before 4.13 on v1).
    #[serde(default)]
    pub events: Option<MemoryEvents>,
    /// memory.pressure (v2 where the kernel has PSI).
    #[serde(default)]
    pub pressure: Option<PsiSample>,
    /// memory.high, memory.max (v1: memory.limit_in_bytes), memory.swap.max: `None` = file
    /// absent, `Some(None)` = "max" (no limit).
    #[serde(default)]
    pub memory_high: Option<Option<u64>>,
    #[serde(default)]
    pub memory_max: Option<Option<u64>>,
    #[serde(default)]
    pub swap_max: Option<Option<u64>>,
}

fn version_2() -> u8 {
    2
}

/// A cgroup hierarchy with the memory controller: where it is mounted and its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    pub mount: PathBuf,
    /// 1 or 2.
    pub version: u8,
}

/// The hierarchy to read the cgroups from: v2 with the memory controller, else the v1 memory
/// controller (`/sys/fs/cgroup/memory`, as systemd mounts it), or why there is neither.
pub fn find(root: &Root) -> Reading<Hierarchy> {
    if let Ok(mount) = find_v2(root) {
        return Ok(Hierarchy { mount, version: 2 });
    }
    let v1 = root.sys("fs/cgroup/memory");
    // A v2 cgroup that happens to be called "memory" has cgroup.controllers; a v1 one has not.
    if root.is_dir(&v1) && !root.exists(&v1.join("cgroup.controllers")) {
        return Ok(Hierarchy {
            mount: v1,
            version: 1,
        });
    }
    Err(Unavailable::absent(
        &root.sys("fs/cgroup"),
        "no memory controller: neither on cgroup v2 nor at /sys/fs/cgroup/memory (v1)",
    ))
}

/// Where cgroup v2 is mounted with the memory controller, or why it can't be used.
pub(crate) fn find_v2(root: &Root) -> Reading<PathBuf> {
    let candidates = [root.sys("fs/cgroup"), root.sys("fs/cgroup/unified")];
    let mut saw_v2 = false;
    for dir in &candidates {
        let Ok(ctl) = root.read_text(&dir.join("cgroup.controllers"), &Reason::absent("")) else {
            continue;
        };
        saw_v2 = true;
        if ctl.split_whitespace().any(|c| c == "memory") {
            return Ok(dir.clone());
        }
    }
    let reason = if saw_v2 || root.is_dir(&root.sys("fs/cgroup/memory")) {
        "the memory controller is on cgroup v1: the kernel neither charges nor reports zswap per cgroup there"
    } else {
        "no cgroup v2 hierarchy with the memory controller"
    };
    Err(Unavailable::absent(&candidates[0], reason))
}

/// Read every cgroup of the hierarchy that has memory files, depth-first, bounded in depth.
pub fn read_tree(root: &Root, tree: &Hierarchy) -> Vec<CgroupSample> {
    let mut walk = Walk::new(root.clone(), tree.clone());
    while !walk.step(None) {}
    walk.into_list()
}

const MAX_DEPTH: usize = 12;

/// A walk of the tree that can stop after a time budget and resume where it stopped, so a tree
/// of thousands of cgroups is read in slices with other work (keys) between them. Visits the
/// same cgroups in the same order as one go would: depth-first, siblings by name.
#[derive(Debug)]
pub struct Walk {
    root: Root,
    tree: Hierarchy,
    /// Directories still to read, the next on top, with their depth.
    todo: Vec<(PathBuf, usize)>,
    out: Vec<CgroupSample>,
}

impl Walk {
    pub(crate) fn new(root: Root, tree: Hierarchy) -> Walk {
        Walk {
            root,
            todo: vec![(tree.mount.clone(), 0)],
            tree,
            out: Vec::new(),
        }
    }

    /// Read cgroups until the walk is done (true) or `budget` has passed (false; at least one
    /// directory is read per call). `None`: no limit.
    pub(crate) fn step(&mut self, budget: Option<Duration>) -> bool {
        let start = Instant::now();
        while let Some((dir, depth)) = self.todo.pop() {
            // The listing first: its subdirectories, and on v1 whether the memsw files are
            // there (the kernel accounts swap), which saves opening one (8 us a cgroup).
            let mut memsw = None;
            if depth < MAX_DEPTH
                && let Ok(rd) = self.root.read_dir(&dir)
            {
                let mut subdirs: Vec<PathBuf> = Vec::new();
                let mut seen_memsw = false;
                for e in rd.flatten() {
                    if e.is_dir() {
                        subdirs.push(e.into_path());
                    } else if e.file_name() == MEMSW_USAGE {
                        seen_memsw = true;
                    }
                }
                memsw = Some(seen_memsw);
                subdirs.sort();
                self.todo
                    .extend(subdirs.into_iter().rev().map(|d| (d, depth + 1)));
            }
            let one = match self.tree.version {
                1 => read_one_v1(&self.root, &self.tree.mount, &dir, memsw),
                _ => read_one(&self.root, &self.tree.mount, &dir),
            };
            if let Some(s) = one {
                self.out.push(s);
            }
            if budget.is_some_and(|b| start.elapsed() >= b) {
                break;
            }
        }
        self.todo.is_empty()
    }

    /// How many cgroups have been read so far.
    #[cfg(test)]
    pub(crate) fn read(&self) -> usize {
        self.out.len()
    }

    /// The cgroups read.
    pub(crate) fn into_list(self) -> Vec<CgroupSample> {
        self.out
    }
}

/// A cgroup directory's sample with only its path and inode filled in (its version 2), or
/// `None` when it is not below `mount`.
fn blank(root: &Root, mount: &Path, dir: &Path) -> Option<CgroupSample> {
    let rel = dir.strip_prefix(mount).ok()?;
    Some(CgroupSample {
        path: format!("/{}", rel.display()),
        inode: root.inode(dir).unwrap_or(0),
        version: 2,
        ..CgroupSample::default()
    })
}

/// memory.stat's `key value` lines, the values that parse as numbers.
fn stat_items(stat: &str) -> impl Iterator<Item = (&str, Option<u64>)> {
    stat.lines().filter_map(|line| {
        let mut w = line.split_whitespace();
        let (k, v) = (w.next()?, w.next()?);
        Some((k, v.parse().ok()))
    })
}

/// One v2 cgroup directory's figures, `None` when it has no memory.stat.
pub(crate) fn read_one(root: &Root, mount: &Path, dir: &Path) -> Option<CgroupSample> {
    let read = |f: &str| root.read_text(&dir.join(f), &Reason::absent("")).ok();
    let stat = read("memory.stat")?;
    let mut s = blank(root, mount, dir)?;
    for (k, v) in stat_items(&stat) {
        match k {
            "zswap" => s.zswap = v,
            "zswapped" => s.zswapped = v,
            "zswpin" => s.zswpin = v,
            "zswpout" => s.zswpout = v,
            "zswpwb" => s.zswpwb = v,
            "pswpin" => s.pswpin = v,
            "pswpout" => s.pswpout = v,
            "pgmajfault" => s.pgmajfault = v,
            _ => {}
        }
    }
    let num = |f: &str| read(f).and_then(|t| t.trim().parse().ok());
    s.memory_current = num("memory.current");
    s.swap_current = num("memory.swap.current");
    // "max" is no limit; a value that is neither bytes nor "max" is unknown, not "max".
    s.zswap_max = read("memory.zswap.max").and_then(|t| limit_value(&t));
    let limit = |f: &str| read(f).and_then(|t| limit_value(&t));
    s.memory_high = limit("memory.high");
    s.memory_max = limit("memory.max");
    s.swap_max = limit("memory.swap.max");
    s.events = read("memory.events").map(|t| events(&t));
    let pressure = dir.join("memory.pressure");
    s.pressure = read("memory.pressure").and_then(|t| psi::parse(&pressure, &t).ok());
    s.zswap_writeback = read("memory.zswap.writeback").and_then(|t| match t.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    });
    Some(s)
}

/// A limit file's value: bytes, or `Some(None)` for "max"; `None` when it is neither.
fn limit_value(text: &str) -> Option<Option<u64>> {
    match text.trim() {
        "max" => Some(None),
        t => t.parse().ok().map(Some),
    }
}

/// memory.events' (or memory.oom_control's) `key value` lines: the keys read, the others left
/// unknown.
fn events(text: &str) -> MemoryEvents {
    let mut e = MemoryEvents::default();
    for (k, v) in stat_items(text) {
        match k {
            "high" => e.high = v,
            "max" => e.max = v,
            "oom" => e.oom = v,
            "oom_kill" => e.oom_kill = v,
            "oom_group_kill" => e.oom_group_kill = v,
            _ => {}
        }
    }
    e
}

/// v1's memory.limit_in_bytes without a limit: the page counter's maximum (LONG_MAX pages of
/// bytes, rounded down to a page: 9223372036854771712 with 4 KiB pages). Anything within 1 MiB
/// of 2^63 is that value for any page size; no real limit is that large.
const V1_UNLIMITED_FROM: u64 = (i64::MAX as u64) - (1 << 20);

/// The v1 file that is there only when the kernel accounts swap per cgroup.
const MEMSW_USAGE: &str = "memory.memsw.usage_in_bytes";

/// One v1 memory cgroup directory's figures (see the module's notes for which files), `None`
/// when it has no memory.stat. The zswap fields stay unknown: v1 has none. `memsw`: whether the
/// directory's listing had [`MEMSW_USAGE`] (`None`: not listed, the file is read to tell).
pub(crate) fn read_one_v1(
    root: &Root,
    mount: &Path,
    dir: &Path,
    memsw: Option<bool>,
) -> Option<CgroupSample> {
    let absent = Reason::absent("");
    let stat = root.read_text(&dir.join("memory.stat"), &absent).ok()?;
    let mut s = CgroupSample {
        version: 1,
        ..blank(root, mount, dir)?
    };
    let usage = root.read_text(&dir.join("memory.usage_in_bytes"), &absent);
    s.memory_current = usage.as_ref().ok().and_then(|t| t.trim().parse().ok());
    // Whether the memsw file is there (`None`: it could not be told).
    let memsw = memsw.or_else(|| match root.read_text(&dir.join(MEMSW_USAGE), &absent) {
        Ok(_) => Some(true),
        Err(e) if e.reason.is_absent() => Some(false),
        Err(_) => None,
    });
    // The memory files there but not memsw's: the kernel accounts no swap. (Without either,
    // as in a partial copy of the tree, nothing can be told.)
    s.swap_accounting = match memsw {
        Some(true) => Some(true),
        Some(false) if usage.is_ok() => Some(false),
        _ => None,
    };
    for (k, v) in stat_items(&stat) {
        match k {
            "total_swap" if s.swap_accounting == Some(true) => s.swap_current = v,
            "total_pgmajfault" => s.pgmajfault = v,
            _ => {}
        }
    }
    // memory.oom_control: `oom_kill` only from 4.13 (its other lines are settings, not events).
    s.events = root
        .read_text(&dir.join("memory.oom_control"), &absent)
        .ok()
        .map(|t| MemoryEvents {
            oom_kill: events(&t).oom_kill,
            ..MemoryEvents::default()
        })
        .filter(|e| e.oom_kill.is_some());
    s.memory_max = root
        .read_text(&dir.join("memory.limit_in_bytes"), &absent)
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok())
        .map(|v| (v < V1_UNLIMITED_FROM).then_some(v));
    Some(s)
}

/// The systemd unit a cgroup path belongs to (`/system.slice/nginx.service` → `nginx.service`).
pub(crate) fn unit_name(path: &str) -> Option<&str> {
    path.rsplit('/').find(|seg| {
        [".service", ".scope", ".slice", ".socket", ".mount", ".swap"]
            .iter()
            .any(|suf| seg.ends_with(suf))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn units() {
        assert_eq!(
            unit_name("/system.slice/nginx.service"),
            Some("nginx.service")
        );
        assert_eq!(
            unit_name("/user.slice/user-1000.slice/session-2.scope"),
            Some("session-2.scope")
        );
        assert_eq!(unit_name("/mygroup"), None);
    }

    fn fixture(name: &str) -> Root {
        Root::at(format!(
            "{}/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
    }

    #[test]
    fn v1_machine_says_why() {
        let root = fixture("linux-6.18-idle");
        let err = find_v2(&root).unwrap_err();
        assert!(
            err.reason.text().contains("cgroup v1"),
            "{}",
            err.reason.text()
        );
    }

    /// The v1 memory controller of a live 6.18 capture: memory from usage_in_bytes, swap from
    /// memory.stat total_swap (the hierarchical one), no zswap figure at all.
    #[test]
    fn v1_tree_of_the_capture() {
        let root = fixture("linux-6.18-cgroup-v1");
        let tree = find(&root).unwrap();
        assert_eq!(tree.version, 1);
        assert!(tree.mount.ends_with("sys/fs/cgroup/memory"));
        let t = read_tree(&root, &tree);
        let paths: Vec<&str> = t.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/",
                "/process_api",
                "/process_api/0c34a129a0605314addad4c1319e0b59",
                "/process_api/73c108e86a56bcc6f3932cc7cb39f5ce",
                "/process_api/fa7207a3a5979b752673e25e05125d6d",
            ]
        );
        assert_eq!(t[0].memory_current, Some(7_432_523_776));
        assert_eq!(t[1].memory_current, Some(7_847_694_336));
        assert_eq!(t[2].memory_current, Some(3_786_076_160));
        for c in &t {
            assert_eq!(c.version, 1);
            assert_eq!(c.swap_accounting, Some(true), "{}", c.path);
            assert_eq!(c.swap_current, Some(0), "{}", c.path);
            assert_eq!((c.zswap, c.zswapped, c.zswpout), (None, None, None));
            assert_eq!((c.zswap_max, c.zswap_writeback), (None, None));
            assert_eq!(
                (c.pswpin, c.pswpout),
                (None, None),
                "v1 has no swap-in count"
            );
        }
        // total_pgmajfault, the hierarchical count, as in the captured memory.stat files.
        let majflt: Vec<Option<u64>> = t.iter().map(|c| c.pgmajfault).collect();
        assert_eq!(
            majflt,
            [
                Some(5_611_526),
                Some(270_082),
                Some(8_598),
                Some(1_168),
                Some(842)
            ]
        );
    }

    /// A v1 tree: `total_swap` (hierarchical) is the swap, not the cgroup's own `swap`; without
    /// the memsw files the kernel accounts no swap and its `total_swap 0` is not believed.
    #[test]
    fn v1_swap_only_where_accounted() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("sys/fs/cgroup");
        let mem = base.join("memory");
        fs::create_dir_all(mem.join("a/b")).unwrap();
        fs::create_dir_all(base.join("unified")).unwrap();
        fs::write(base.join("unified/cgroup.controllers"), "hugetlb\n").unwrap();
        let stat = |own: u64, total: u64| {
            format!(
                "cache 0\nrss 4096\nswap {own}\nswapcached 0\ntotal_rss 8192\ntotal_swap {total}\n"
            )
        };
        fs::write(mem.join("memory.stat"), stat(0, 12288)).unwrap();
        fs::write(mem.join("a/memory.stat"), stat(4096, 12288)).unwrap();
        fs::write(mem.join("a/b/memory.stat"), stat(8192, 8192)).unwrap();
        for d in ["", "a", "a/b"] {
            fs::write(mem.join(d).join("memory.usage_in_bytes"), "65536\n").unwrap();
            fs::write(mem.join(d).join("memory.memsw.usage_in_bytes"), "77824\n").unwrap();
        }
        let root = Root::at(tmp.path());
        let tree = find(&root).unwrap();
        assert_eq!(tree.version, 1, "a unified mount without memory: v1");
        let t = read_tree(&root, &tree);
        assert_eq!(t.len(), 3);
        assert_eq!(t[1].path, "/a");
        assert_eq!(t[1].swap_current, Some(12288), "total_swap, not swap");
        assert_eq!(t[1].memory_current, Some(65536));

        for d in ["", "a", "a/b"] {
            fs::remove_file(mem.join(d).join("memory.memsw.usage_in_bytes")).unwrap();
        }
        let t = read_tree(&root, &tree);
        for c in &t {
            assert_eq!(c.swap_accounting, Some(false), "{}", c.path);
            assert_eq!(c.swap_current, None, "{}: unknown, not 0", c.path);
            assert_eq!(c.memory_current, Some(65536));
        }
        // A partial copy without the memory files either: nothing to tell.
        fs::remove_file(mem.join("a/memory.usage_in_bytes")).unwrap();
        let t = read_tree(&root, &tree);
        assert_eq!((t[1].swap_accounting, t[1].memory_current), (None, None));
    }

    /// v1: OOM kills from memory.oom_control (4.13+; an older file without the line gives no
    /// events), memory.max from memory.limit_in_bytes (the page counter's maximum is no limit).
    #[test]
    fn v1_oom_kills_and_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let mem = tmp.path().join("sys/fs/cgroup/memory");
        fs::create_dir_all(mem.join("a")).unwrap();
        fs::create_dir_all(mem.join("old")).unwrap();
        for d in ["", "a", "old"] {
            fs::write(mem.join(d).join("memory.stat"), "total_swap 0\n").unwrap();
            fs::write(mem.join(d).join("memory.usage_in_bytes"), "4096\n").unwrap();
        }
        fs::write(mem.join("memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        fs::write(
            mem.join("a/memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n",
        )
        .unwrap();
        fs::write(mem.join("a/memory.limit_in_bytes"), "8388608\n").unwrap();
        fs::write(
            mem.join("old/memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\n",
        )
        .unwrap();
        let root = Root::at(tmp.path());
        let t = read_tree(&root, &find(&root).unwrap());
        assert_eq!(
            t[0].memory_max,
            Some(None),
            "the counter's maximum: no limit"
        );
        assert_eq!(t[1].path, "/a");
        assert_eq!(t[1].memory_max, Some(Some(8_388_608)));
        let e = t[1].events.unwrap();
        assert_eq!(
            (e.oom_kill, e.oom, e.high, e.max),
            (Some(3), None, None, None)
        );
        assert_eq!(t[2].events, None, "before 4.13: no oom_kill line");
        for c in &t {
            assert_eq!((c.memory_high, c.swap_max, c.pressure), (None, None, None));
        }
    }

    /// A real v2 tree from Debian 13's 6.12 in the kernel matrix, right after its cgroup
    /// scenario (tests/fixtures/linux-6.12-guest-cgroup/README.md): /zt-high throttled over its
    /// memory.high, /zt-oom's workload OOM-killed under memory.max 8M without swap.
    #[test]
    fn v2_events_pressure_and_limits_of_a_guest() {
        let root = fixture("linux-6.12-guest-cgroup");
        let t = read_tree(&root, &find(&root).unwrap());
        let cg = |p: &str| t.iter().find(|c| c.path == p).unwrap();
        let high = cg("/zt-high");
        let e = high.events.unwrap();
        assert_eq!((e.high, e.max, e.oom_kill), (Some(207), Some(0), Some(0)));
        assert_eq!(e.oom_group_kill, Some(0), "6.12 prints oom_group_kill");
        let p = high.pressure.unwrap();
        assert_eq!((p.some.avg10, p.some.total_us), (6.21, 2_242_341));
        assert_eq!((p.full.avg60, p.full.total_us), (2.89, 2_242_341));
        assert_eq!(
            (
                high.memory_high,
                high.memory_max,
                high.swap_max,
                high.zswap_max
            ),
            (Some(Some(8_388_608)), Some(None), Some(None), Some(None))
        );
        let oom = cg("/zt-oom");
        let e = oom.events.unwrap();
        assert_eq!(
            (e.high, e.max, e.oom, e.oom_kill),
            (Some(0), Some(35), Some(1), Some(1))
        );
        assert_eq!(oom.pressure.unwrap().some.total_us, 19_680);
        assert_eq!(
            (oom.memory_max, oom.swap_max, oom.memory_current),
            (Some(Some(8_388_608)), Some(Some(0)), Some(16_384))
        );
        // The root has neither events nor limits (CFTYPE_NOT_ON_ROOT); its pressure is there.
        assert_eq!(
            (t[0].path.as_str(), t[0].events, t[0].memory_max),
            ("/", None, None)
        );
    }

    /// A sample recorded before v1 was read (no `version`, no `swap_accounting`) reads as v2.
    #[test]
    fn an_older_sample_reads_as_v2() {
        let old = r#"{"path":"/a","inode":7,"memory_current":4096,"swap_current":null,
            "zswap":1,"zswapped":3,"zswpin":null,"zswpout":null,"zswpwb":null,
            "zswap_max":null,"zswap_writeback":null}"#;
        let s: CgroupSample = serde_json::from_str(old).unwrap();
        assert_eq!((s.version, s.swap_accounting), (2, None));
        assert_eq!(s.zswapped, Some(3));
    }

    /// No memory controller on either version.
    #[test]
    fn neither_version() {
        let tmp = tempfile::tempdir().unwrap();
        // A v2 mount without the memory controller, then also a v2 cgroup that happens to be
        // named "memory": neither is a v1 controller.
        for (dir, controllers) in [("unified", "cpu pids\n"), ("memory", "")] {
            let d = tmp.path().join("sys/fs/cgroup").join(dir);
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("cgroup.controllers"), controllers).unwrap();
            assert!(find(&Root::at(tmp.path())).is_err(), "{dir}");
        }
    }

    #[test]
    fn v2_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("sys/fs/cgroup");
        let svc = base.join("system.slice/app.service");
        fs::create_dir_all(&svc).unwrap();
        fs::write(
            base.join("cgroup.controllers"),
            "cpuset cpu io memory pids\n",
        )
        .unwrap();
        fs::write(
            base.join("memory.stat"),
            "anon 1\nzswap 100\nzswapped 300\nzswpin 1\nzswpout 2\nzswpwb 0\n",
        )
        .unwrap();
        fs::write(
            svc.join("memory.stat"),
            "anon 1\nzswap 40\nzswapped 120\nzswpin 5\nzswpout 9\npswpin 7\npswpout 11\n\
             pgfault 900\npgmajfault 12\n",
        )
        .unwrap();
        fs::write(svc.join("memory.current"), "4096\n").unwrap();
        fs::write(svc.join("memory.swap.current"), "8192\n").unwrap();
        fs::write(svc.join("memory.zswap.max"), "max\n").unwrap();
        fs::write(svc.join("memory.zswap.writeback"), "0\n").unwrap();
        fs::write(svc.join("memory.high"), "max\n").unwrap();
        fs::write(svc.join("memory.max"), "1073741824\n").unwrap();
        fs::write(svc.join("memory.swap.max"), "0\n").unwrap();
        fs::write(
            svc.join("memory.events"),
            "low 0\nhigh 12\nmax 40\noom 2\noom_kill 1\noom_group_kill 0\n",
        )
        .unwrap();
        fs::write(
            svc.join("memory.pressure"),
            "some avg10=1.50 avg60=0.19 avg300=0.13 total=582869\n\
             full avg10=0.75 avg60=0.09 avg300=0.05 total=291434\n",
        )
        .unwrap();
        let root = Root::at(tmp.path());
        let tree = find(&root).unwrap();
        assert_eq!(tree.version, 2);
        let t = read_tree(&root, &tree);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].path, "/");
        assert_eq!(t[1].path, "/system.slice/app.service");
        assert_eq!(t[1].zswapped, Some(120));
        assert_eq!(t[1].zswpwb, None, "absent key stays unknown");
        assert_eq!(t[1].zswap_max, Some(None));
        assert_eq!(t[1].zswap_writeback, Some(false));
        assert_eq!(t[1].swap_current, Some(8192));
        assert_eq!(
            (t[1].pswpin, t[1].pswpout, t[1].pgmajfault),
            (Some(7), Some(11), Some(12))
        );
        // A kernel that does not list pswpin among the memcg events: unknown, not 0.
        assert_eq!((t[0].pswpin, t[0].pgmajfault), (None, None));
        let e = t[1].events.unwrap();
        assert_eq!(
            (e.high, e.max, e.oom, e.oom_kill, e.oom_group_kill),
            (Some(12), Some(40), Some(2), Some(1), Some(0))
        );
        let p = t[1].pressure.unwrap();
        assert_eq!((p.some.avg10, p.full.total_us), (1.5, 291_434));
        assert_eq!(
            (t[1].memory_high, t[1].memory_max, t[1].swap_max),
            (Some(None), Some(Some(1 << 30)), Some(Some(0)))
        );
        // The root has none of these files: unknown.
        assert_eq!(
            (t[0].events, t[0].pressure, t[0].memory_max),
            (None, None, None)
        );
    }

    /// A walk cut into slices reads what one walk reads, in the same order, and resumes where
    /// it stopped.
    #[test]
    fn a_walk_in_slices_resumes_where_it_stopped() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("sys/fs/cgroup");
        for d in [
            "a.slice/x.service",
            "a.slice/y.service",
            "b.slice",
            "c.slice/z/w",
        ] {
            fs::create_dir_all(base.join(d)).unwrap();
        }
        for d in [
            "",
            "a.slice",
            "a.slice/x.service",
            "a.slice/y.service",
            "b.slice",
            "c.slice/z/w",
        ] {
            fs::write(base.join(d).join("memory.stat"), "zswap 1\n").unwrap();
        }
        let tree = Hierarchy {
            mount: base,
            version: 2,
        };
        let whole = read_tree(&Root::at(tmp.path()), &tree);
        assert_eq!(whole.len(), 6);
        let mut walk = Walk::new(Root::at(tmp.path()), tree);
        let mut steps = 0;
        // A zero budget reads one directory per step.
        while !walk.step(Some(Duration::ZERO)) {
            steps += 1;
            assert!(walk.read() <= whole.len());
        }
        assert!(steps >= 6, "{steps}");
        let paths = |v: &[CgroupSample]| v.iter().map(|c| c.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&walk.into_list()), paths(&whole));
        assert_eq!(whole[1].path, "/a.slice");
        assert_eq!(whole[5].path, "/c.slice/z/w");
    }

    /// A memory.zswap.max that is neither bytes nor "max" is unknown, never read as no limit.
    #[test]
    fn a_garbled_zswap_max_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let cg = dir.path().join("sys/fs/cgroup/a");
        std::fs::create_dir_all(&cg).unwrap();
        std::fs::write(cg.join("memory.stat"), "zswap 0\n").unwrap();
        let root = Root::at(dir.path());
        let mount = dir.path().join("sys/fs/cgroup");
        for (text, want) in [
            ("max\n", Some(None)),
            ("4096\n", Some(Some(4096))),
            ("garbled\n", None),
        ] {
            std::fs::write(cg.join("memory.zswap.max"), text).unwrap();
            let s = read_one(&root, &mount, &cg).unwrap();
            assert_eq!(s.zswap_max, want, "{text:?}");
        }
    }
}
