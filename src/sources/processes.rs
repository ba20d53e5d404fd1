//! Processes that own swapped memory: `/proc/PID/status` (Name, Uid, VmRSS, VmSwap), scanned
//! cheaply — only those four lines are parsed, one read per process, and nothing at all unless a
//! view asks for it. Processes that vanish mid-scan or can't be read are skipped silently.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use crate::error::Reason;
use crate::root::{Root, classify_io};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcSample {
    pub pid: u32,
    pub name: String,
    pub uid: Option<u32>,
    pub rss_bytes: Option<u64>,
    /// VmSwap: swap entries in the page tables (in zswap, on disk or zero-filled).
    pub swap_bytes: u64,
    /// User name (filled in for the top processes only).
    pub user: Option<String>,
    /// The command line (`/proc/PID/cmdline`, NULs as spaces, trimmed; top processes only;
    /// `None` when empty: a kernel thread or a zombie).
    #[serde(default)]
    pub command: Option<String>,
    /// The cgroup (top processes only): the v2 path, or on a cgroup v1 system the memory
    /// controller's.
    pub cgroup: Option<String>,
    /// That cgroup's memory.stat `zswapped` and memory.swap.current, for the zswap estimate.
    pub cgroup_zswapped: Option<u64>,
    pub cgroup_swap: Option<u64>,
}

/// The scan: the top processes by VmSwap, plus totals over all of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcScan {
    /// How many /proc/PID entries were looked at.
    pub scanned: usize,
    /// How many have any swap.
    pub with_swap: usize,
    /// Σ VmSwap over all of them.
    pub total_swap_bytes: u64,
    /// The `top_n` largest by swap, largest first, with user and cgroup filled in.
    pub top: Vec<ProcSample>,
    /// Why the process list could not be read at all (the counts above are then unknown).
    #[serde(default)]
    pub unreadable: Option<Reason>,
    /// Set in a recording made without `--command-lines`: each `command` is then `None`
    /// because it was left out, not because it was empty.
    #[serde(default)]
    pub commands_not_recorded: bool,
}

/// Scan every process and keep the `top_n` largest swap users.
pub fn scan(root: &Root, top_n: usize) -> ProcScan {
    let (scanned, mut swapped) = match scan_all(root) {
        Ok(found) => found,
        Err(why) => {
            return ProcScan {
                unreadable: Some(why),
                ..ProcScan::default()
            };
        }
    };
    swapped.sort_by(|a, b| b.swap_bytes.cmp(&a.swap_bytes).then(a.pid.cmp(&b.pid)));
    let with_swap = swapped.len();
    let total_swap_bytes = swapped
        .iter()
        .fold(0u64, |a, p| a.saturating_add(p.swap_bytes));
    swapped.truncate(top_n);
    if !swapped.is_empty() {
        let users = Users::load(root);
        let v2 = super::cgroups::find_v2(root).ok();
        // Many top processes share a cgroup (a service's workers): read each cgroup once.
        let mut seen: HashMap<String, (Option<u64>, Option<u64>)> = HashMap::new();
        for p in &mut swapped {
            p.user = users.name(p.uid);
            p.command = command_line(root, p.pid);
            let Some(mount) = &v2 else {
                p.cgroup = cgroup_v1_memory_path(root, p.pid);
                continue;
            };
            p.cgroup = cgroup_v2_path(root, p.pid);
            if let Some(path) = p.cgroup.as_deref() {
                let (zswapped, swap) = *seen.entry(path.to_string()).or_insert_with(|| {
                    super::cgroups::read_one(root, mount, &mount.join(path.trim_start_matches('/')))
                        .map_or((None, None), |cg| (cg.zswapped, cg.swap_current))
                });
                p.cgroup_zswapped = zswapped;
                p.cgroup_swap = swap;
            }
        }
    }
    ProcScan {
        scanned,
        with_swap,
        total_swap_bytes,
        top: swapped,
        unreadable: None,
        commands_not_recorded: false,
    }
}

/// Read `ROOT/proc/[0-9]*/status`. Kernel threads (no VmSwap line) and unreadable ones are skipped.
fn scan_all(root: &Root) -> Result<(usize, Vec<ProcSample>), Reason> {
    let proc_dir = root.proc("");
    let rd = root
        .read_dir(&proc_dir)
        .map_err(|e| classify_io(&proc_dir, &e, &Reason::absent("/proc can't be listed")).reason)?;
    let mut scanned = 0;
    let mut swapped = Vec::new();
    let mut buf = Vec::with_capacity(4096);
    for entry in rd.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        scanned += 1;
        buf.clear();
        let path = entry.path().join("status");
        if root
            .read_into(&path, &mut buf, &Reason::absent(""))
            .is_err()
        {
            continue;
        }
        if let Some(p) = parse_status(pid, &buf)
            && p.swap_bytes > 0
        {
            swapped.push(p);
        }
    }
    if scanned == 0 {
        // Every system runs at least init: an empty /proc is not mounted, not idle.
        return Err(Reason::absent("/proc lists no process (is /proc mounted?)"));
    }
    Ok((scanned, swapped))
}

/// Parse the lines we need from a status file. `None` for kernel threads (no VmSwap).
pub fn parse_status(pid: u32, bytes: &[u8]) -> Option<ProcSample> {
    let text = String::from_utf8_lossy(bytes);
    let mut name = None;
    let mut uid = None;
    let mut rss = None;
    let mut swap = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key {
            "Name" => name = Some(value.trim().to_string()),
            "Uid" => uid = value.split_whitespace().next().and_then(|u| u.parse().ok()),
            "VmRSS" => rss = kb(value),
            "VmSwap" => {
                swap = kb(value);
                // VmSwap comes after the others: stop reading.
                break;
            }
            _ => {}
        }
    }
    Some(ProcSample {
        pid,
        name: name.unwrap_or_default(),
        uid,
        rss_bytes: rss,
        swap_bytes: swap?,
        user: None,
        command: None,
        cgroup: None,
        cgroup_zswapped: None,
        cgroup_swap: None,
    })
}

fn kb(v: &str) -> Option<u64> {
    let mut w = v.split_whitespace();
    let n: u64 = w.next()?.parse().ok()?;
    // The unit is always there; a line without it was cut short.
    match w.next() {
        // More than 2^64 bytes is impossible: treated as unreadable.
        Some("kB") => n.checked_mul(1024),
        _ => None,
    }
}

/// The v2 cgroup path of a process (`0::/system.slice/foo.service`), or `None` (v1 only, gone).
pub fn cgroup_v2_path(root: &Root, pid: u32) -> Option<String> {
    let text = root
        .read_text(&root.proc(&format!("{pid}/cgroup")), &Reason::absent(""))
        .ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(|p| p.trim().to_string())
}

/// The memory controller's cgroup of a process on cgroup v1 (`4:memory:/user.slice`), or
/// `None` (no memory controller, gone).
pub fn cgroup_v1_memory_path(root: &Root, pid: u32) -> Option<String> {
    let text = root
        .read_text(&root.proc(&format!("{pid}/cgroup")), &Reason::absent(""))
        .ok()?;
    text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then(|| path.trim().to_string())
    })
}

/// Longest command line kept (the rest is cut with "…").
const COMMAND_MAX: usize = 512;

/// A process's command line: `/proc/PID/cmdline`'s arguments joined by spaces and trimmed, at
/// most [`COMMAND_MAX`] characters; `None` when empty (kernel threads, zombies) or unreadable.
/// Control characters are made visible with the rest of the snapshot's strings.
pub fn command_line(root: &Root, pid: u32) -> Option<String> {
    let mut buf = Vec::new();
    root.read_into(
        &root.proc(&format!("{pid}/cmdline")),
        &mut buf,
        &Reason::absent(""),
    )
    .ok()?;
    let text = String::from_utf8_lossy(&buf);
    let joined = text
        .split('\0')
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let joined = joined.trim();
    if joined.is_empty() {
        return None;
    }
    Some(match joined.char_indices().nth(COMMAND_MAX) {
        Some((at, _)) => format!("{}…", &joined[..at]),
        None => joined.to_string(),
    })
}

/// uid → user name (numeric when unknown): through the system's user database (NSS, as `id`
/// and htop do, so LDAP users and systemd's DynamicUser services have names) on the live
/// system; from `ROOT/etc/passwd` for a captured tree, which has no NSS of its own.
#[derive(Debug)]
pub enum Users {
    System,
    Tree(HashMap<u32, String>),
}

impl Users {
    pub fn load(root: &Root) -> Users {
        if root.is_live() {
            return Users::System;
        }
        let text = root
            .read_text(&root.file("etc/passwd"), &Reason::absent(""))
            .unwrap_or_default();
        let map = text
            .lines()
            .filter_map(|l| {
                let mut f = l.split(':');
                let name = f.next()?;
                let _pw = f.next()?;
                let uid = f.next()?.parse().ok()?;
                Some((uid, name.to_string()))
            })
            .collect();
        Users::Tree(map)
    }

    pub fn name(&self, uid: Option<u32>) -> Option<String> {
        let uid = uid?;
        let known = match self {
            Users::System => system_user(uid),
            Users::Tree(map) => map.get(&uid).cloned(),
        };
        Some(known.unwrap_or_else(|| uid.to_string()))
    }
}

/// `getpwuid_r` through NSS, once per uid for the life of the process (a directory lookup
/// can be slow, and the process list is read again every few seconds).
fn system_user(uid: u32) -> Option<String> {
    static CACHE: OnceLock<Mutex<HashMap<u32, Option<String>>>> = OnceLock::new();
    let lookup = |uid| {
        nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
            .ok()
            .flatten()
            .map(|u| u.name)
    };
    match CACHE.get_or_init(Mutex::default).lock() {
        Ok(mut cache) => cache.entry(uid).or_insert_with(|| lookup(uid)).clone(),
        Err(_) => lookup(uid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_status_file() {
        let p = format!(
            "{}/tests/fixtures/linux-6.18-loaded/proc/PID/status",
            env!("CARGO_MANIFEST_DIR")
        );
        let s = parse_status(6163, &std::fs::read(p).unwrap()).unwrap();
        assert_eq!(s.name, "hog");
        assert_eq!(s.swap_bytes, 525_972 * 1024);
        assert!(s.rss_bytes.is_some());
        assert_eq!(s.uid, Some(0));
    }

    #[test]
    fn kernel_thread_has_no_vmswap() {
        assert_eq!(
            parse_status(2, b"Name:\tkthreadd\nUid:\t0\t0\t0\t0\n"),
            None
        );
    }

    #[test]
    fn a_tree_names_users_from_its_own_passwd() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("etc")).unwrap();
        std::fs::write(
            dir.path().join("etc/passwd"),
            "toor:x:0:0::/root:/bin/sh\nbroken line\napp:x:4242:4242::/:/bin/false\n",
        )
        .unwrap();
        let users = Users::load(&Root::at(dir.path()));
        assert_eq!(users.name(Some(0)).as_deref(), Some("toor"));
        assert_eq!(users.name(Some(4242)).as_deref(), Some("app"));
        assert_eq!(
            users.name(Some(7)).as_deref(),
            Some("7"),
            "unknown: the number"
        );
        assert_eq!(users.name(None), None);
    }

    #[test]
    fn command_lines_and_v1_memory_cgroups() {
        let dir = tempfile::tempdir().unwrap();
        let proc = |pid: u32, file: &str, bytes: &[u8]| {
            let d = dir.path().join(format!("proc/{pid}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(file), bytes).unwrap();
        };
        proc(1, "cmdline", b"python3\0train.py\0--epochs\x00003\0");
        proc(2, "cmdline", b"");
        proc(3, "cmdline", b"  sh\0-c\0echo \x1b[31m\0");
        proc(4, "cmdline", "x".repeat(2 * COMMAND_MAX).as_bytes());
        proc(
            1,
            "cgroup",
            b"12:pids:/user.slice\n4:cpu,memory:/user.slice/app\n1:name=systemd:/x\n",
        );
        proc(2, "cgroup", b"0::/system.slice/a.service\n");
        let root = Root::at(dir.path());
        assert_eq!(
            command_line(&root, 1).as_deref(),
            Some("python3 train.py --epochs 003")
        );
        assert_eq!(command_line(&root, 2), None, "a kernel thread's is empty");
        // Kept as read here; the snapshot makes the escape visible (sanitize).
        assert_eq!(
            command_line(&root, 3).as_deref(),
            Some("sh -c echo \x1b[31m")
        );
        let long = command_line(&root, 4).unwrap();
        assert_eq!(long.chars().count(), COMMAND_MAX + 1);
        assert!(long.ends_with('…'));
        assert_eq!(command_line(&root, 9), None, "gone");
        assert_eq!(
            cgroup_v1_memory_path(&root, 1).as_deref(),
            Some("/user.slice/app")
        );
        assert_eq!(cgroup_v1_memory_path(&root, 2), None, "v2 only");
    }

    #[test]
    fn the_live_system_asks_the_user_database() {
        let users = Users::load(&Root::live());
        assert!(matches!(users, Users::System));
        // What getpwuid(3) says, through NSS: `getent passwd UID` prints the same entry.
        for uid in [0, nix::unistd::geteuid().as_raw()] {
            let Ok(out) = std::process::Command::new("getent")
                .args(["passwd", &uid.to_string()])
                .output()
            else {
                return; // no getent here
            };
            let line = String::from_utf8_lossy(&out.stdout);
            let expect = line.split(':').next().filter(|n| !n.is_empty());
            let expect = expect.map_or_else(|| uid.to_string(), str::to_string);
            assert_eq!(users.name(Some(uid)), Some(expect.clone()), "uid {uid}");
            assert_eq!(users.name(Some(uid)), Some(expect), "uid {uid} cached");
        }
    }

    #[test]
    fn truncated_status_is_skipped_not_fatal() {
        assert_eq!(parse_status(9, b"Name:\tx\nVmSwap:\tabc kB"), None);
        assert!(parse_status(9, b"\xff\xfe garbage").is_none());
    }
}
