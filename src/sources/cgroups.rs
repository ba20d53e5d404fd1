//! cgroup v2 memory controller: per-cgroup memory, swap and zswap (mm/memcontrol.c,
//! Documentation/admin-guide/cgroup-v2.rst).
//!
//! Under cgroup v1 the kernel neither charges nor reports zswap per cgroup, so there is nothing to
//! read: the reader says so instead of showing zeros.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::root::{Reading, Reason, Root, Unavailable};

/// One cgroup's memory figures. State items are bytes, event items page counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CgroupSample {
    /// Path below the v2 mount, `/` for the root.
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
    /// memory.zswap.max: `None` = file absent, `Some(None)` = "max".
    pub zswap_max: Option<Option<u64>>,
    pub zswap_writeback: Option<bool>,
}

/// Where cgroup v2 is mounted with the memory controller, or why it can't be used.
pub fn find_v2(root: &Root) -> Reading<PathBuf> {
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
    let reason = if saw_v2 || root.sys("fs/cgroup/memory").is_dir() {
        "the memory controller is on cgroup v1: the kernel neither charges nor reports zswap per cgroup there"
    } else {
        "no cgroup v2 hierarchy with the memory controller"
    };
    Err(Unavailable::absent(&candidates[0], reason))
}

/// Read every cgroup under the v2 mount that has memory files, depth-first, bounded in depth.
pub fn read_tree(root: &Root, mount: &Path) -> Vec<CgroupSample> {
    let mut walk = Walk::new(root.clone(), mount.to_path_buf());
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
    mount: PathBuf,
    /// Directories still to read, the next on top, with their depth.
    todo: Vec<(PathBuf, usize)>,
    out: Vec<CgroupSample>,
}

impl Walk {
    pub fn new(root: Root, mount: PathBuf) -> Walk {
        Walk {
            root,
            todo: vec![(mount.clone(), 0)],
            mount,
            out: Vec::new(),
        }
    }

    /// Read cgroups until the walk is done (true) or `budget` has passed (false; at least one
    /// directory is read per call). `None`: no limit.
    pub fn step(&mut self, budget: Option<Duration>) -> bool {
        let start = Instant::now();
        while let Some((dir, depth)) = self.todo.pop() {
            if let Some(s) = read_one(&self.root, &self.mount, &dir) {
                self.out.push(s);
            }
            if depth < MAX_DEPTH
                && let Ok(rd) = self.root.read_dir(&dir)
            {
                let mut subdirs: Vec<PathBuf> = rd
                    .flatten()
                    .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
                    .map(|e| e.path())
                    .collect();
                subdirs.sort();
                self.todo
                    .extend(subdirs.into_iter().rev().map(|d| (d, depth + 1)));
            }
            if budget.is_some_and(|b| start.elapsed() >= b) {
                break;
            }
        }
        self.todo.is_empty()
    }

    /// How many cgroups have been read so far.
    pub fn read(&self) -> usize {
        self.out.len()
    }

    /// The cgroups read.
    pub fn into_list(self) -> Vec<CgroupSample> {
        self.out
    }
}

/// One cgroup directory's figures, `None` when it has no memory.stat.
pub fn read_one(root: &Root, mount: &Path, dir: &Path) -> Option<CgroupSample> {
    let read = |f: &str| root.read_text(&dir.join(f), &Reason::absent("")).ok();
    let stat = read("memory.stat")?;
    let rel = dir.strip_prefix(mount).ok()?;
    let mut s = CgroupSample {
        path: format!("/{}", rel.display()),
        inode: fs::metadata(dir).map(|m| m.ino()).unwrap_or(0),
        ..CgroupSample::default()
    };
    for line in stat.lines() {
        let mut w = line.split_whitespace();
        let (Some(k), Some(v)) = (w.next(), w.next()) else {
            continue;
        };
        let v: Option<u64> = v.parse().ok();
        match k {
            "zswap" => s.zswap = v,
            "zswapped" => s.zswapped = v,
            "zswpin" => s.zswpin = v,
            "zswpout" => s.zswpout = v,
            "zswpwb" => s.zswpwb = v,
            _ => {}
        }
    }
    let num = |f: &str| read(f).and_then(|t| t.trim().parse().ok());
    s.memory_current = num("memory.current");
    s.swap_current = num("memory.swap.current");
    s.zswap_max = read("memory.zswap.max").map(|t| t.trim().parse().ok());
    s.zswap_writeback = read("memory.zswap.writeback").and_then(|t| match t.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    });
    Some(s)
}

/// The systemd unit a cgroup path belongs to (`/system.slice/nginx.service` → `nginx.service`).
pub fn unit_name(path: &str) -> Option<&str> {
    path.rsplit('/').find(|seg| {
        [".service", ".scope", ".slice", ".socket", ".mount", ".swap"]
            .iter()
            .any(|suf| seg.ends_with(suf))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn v1_machine_says_why() {
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-idle",
            env!("CARGO_MANIFEST_DIR")
        ));
        let err = find_v2(&root).unwrap_err();
        assert!(
            err.reason.text().contains("cgroup v1"),
            "{}",
            err.reason.text()
        );
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
            "anon 1\nzswap 40\nzswapped 120\nzswpin 5\nzswpout 9\n",
        )
        .unwrap();
        fs::write(svc.join("memory.current"), "4096\n").unwrap();
        fs::write(svc.join("memory.swap.current"), "8192\n").unwrap();
        fs::write(svc.join("memory.zswap.max"), "max\n").unwrap();
        fs::write(svc.join("memory.zswap.writeback"), "0\n").unwrap();
        let root = Root::at(tmp.path());
        let mount = find_v2(&root).unwrap();
        let t = read_tree(&root, &mount);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].path, "/");
        assert_eq!(t[1].path, "/system.slice/app.service");
        assert_eq!(t[1].zswapped, Some(120));
        assert_eq!(t[1].zswpwb, None, "absent key stays unknown");
        assert_eq!(t[1].zswap_max, Some(None));
        assert_eq!(t[1].zswap_writeback, Some(false));
        assert_eq!(t[1].swap_current, Some(8192));
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
        let whole = read_tree(&Root::at(tmp.path()), &base);
        assert_eq!(whole.len(), 6);
        let mut walk = Walk::new(Root::at(tmp.path()), base.clone());
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
}
