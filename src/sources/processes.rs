//! Processes that own swapped memory: `/proc/PID/status` (Name, Uid, VmRSS, VmSwap), scanned
//! cheaply — only those four lines are parsed, one read per process, and nothing at all unless a
//! view asks for it. Processes that vanish mid-scan or can't be read are skipped silently.
//!
//! Who is faulting pages back in now: [`scan_with_faults`] also reads `/proc/PID/stat` of every
//! process for its major faults (field 12, `majflt`: faults that had to wait for I/O, swap-ins
//! from zswap and from a swap device included) and its start time (field 22), keeping the
//! counts of all of them ([`FaultScan::counts`]) so that the next scan can take each process's
//! delta. A pid whose start time changed is another process: it gets no delta.

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
    /// That cgroup's memory.stat `zswap` (the compressed bytes its zswap entries take), for the
    /// estimate of the RAM its swap costs compressed.
    // Left out of a recording while unknown: one that predates them reads the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_zswap: Option<u64>,
    /// What `/proc/PID/smaps_rollup` says of its swap, when the scan read it
    /// ([`ProcScan::smaps_read`]); `None` when unread or unreadable (`smaps_missing` says why).
    // Left out of a recording while unknown: one that predates them reads the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smaps: Option<SmapsSwap>,
    /// Why `smaps` is `None` although the scan read smaps_rollup (the file needs ptrace access:
    /// another user's process is denied to whoever is not root with CAP_SYS_PTRACE).
    // Left out of a recording while unknown: one that predates them reads the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smaps_missing: Option<Reason>,
}

/// A process's swap as `/proc/PID/smaps_rollup` gives it (fs/proc/task_mmu.c, every mapping
/// summed), with its VmSwap read again right after, for the shmem share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmapsSwap {
    /// `Swap`: the swapped pages of every mapping: the swap entries in its page tables (what
    /// VmSwap counts) and, for a shmem (tmpfs, SysV, memfd) mapping, the object's swapped pages
    /// in the mapped range (`shmem_swap_usage`), which VmSwap leaves out.
    pub swap_bytes: u64,
    /// `SwapPss`: its proportional share of the swap entries in its page tables (an entry that
    /// `n` processes share counts 1/n in each); shmem swap is not in it.
    pub swap_pss_bytes: u64,
    /// VmSwap from `/proc/PID/status`, read just after smaps_rollup: `swap_bytes` less this is
    /// the shmem swap.
    pub vm_swap_bytes: u64,
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
    /// Whether smaps_rollup was read for the processes listed (it walks each one's page tables:
    /// read only when asked, [`crate::sources::Extras::smaps`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub smaps_read: bool,
}

/// One process's major-fault count, as `/proc/PID/stat` gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcFaults {
    pub pid: u32,
    /// Field 22, `starttime`: clock ticks after boot. Another value under the same pid is
    /// another process (the pid was reused): no delta is taken across it.
    pub start_time_ticks: u64,
    /// Field 12, `majflt`: faults that waited for I/O (a swap-in from zswap or a swap device, or
    /// a file page read), since the process started.
    pub major_faults: u64,
}

/// Every process's major-fault count at one scan: what the next scan takes its deltas against.
/// Kept by the sampler between scans, not in a [`crate::sources::Sample`]: a row per process of
/// the machine is no part of what a sample shows or a recording keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// CLOCK_MONOTONIC of the sample that scanned (ns): its `monotonic_ns`.
    pub read_ns: u64,
    /// In pid order.
    pub counts: Vec<ProcFaults>,
}

impl FaultCounts {
    /// The same process's count (same pid and start time), if it was scanned.
    pub(crate) fn get(&self, pid: u32, start_time_ticks: u64) -> Option<u64> {
        let i = self.counts.binary_search_by_key(&pid, |c| c.pid).ok()?;
        let c = self.counts[i];
        (c.start_time_ticks == start_time_ticks).then_some(c.major_faults)
    }
}

/// One listed process's major faults, and how many it took since the baseline scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRow {
    pub pid: u32,
    pub start_time_ticks: u64,
    /// `majflt` at this scan.
    pub major_faults: u64,
    /// `majflt` now less `majflt` at the baseline scan; `None` without a baseline, or when the
    /// process was not in it (started since, or its pid belonged to another process then), or
    /// when the count went back.
    pub major_faults_delta: Option<u64>,
}

/// A process that took major faults since the baseline, with the details the swap list has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Faulting {
    /// Name, user, command and cgroup as in [`ProcScan::top`]; `swap_bytes` is 0 for a process
    /// whose status has no VmSwap line.
    pub process: ProcSample,
    pub faults: FaultRow,
}

/// Major faults, read in the same pass over `/proc` as the swap list: the processes that
/// faulted most since the scan before, and the faults of every process the swap list holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultScan {
    /// How long before its sample this scan was taken (ns): 0 when in the sample's own tick,
    /// more when the dashboard carries an earlier scan over ticks (scanning every process costs
    /// more than its share of CPU on a large machine).
    pub age_ns: u64,
    /// The time between the baseline scan the deltas are taken against and this scan (ns),
    /// each timed at the start of its sample: a delta ÷ this is a rate. `None` without a
    /// baseline.
    pub interval_ns: Option<u64>,
    /// The processes with the most major faults since the baseline (at least one each), most
    /// first, then by pid; at most as many as the swap list may hold.
    pub faulting: Vec<Faulting>,
    /// How many processes took a major fault since the baseline (the list may hold fewer).
    pub faulting_count: usize,
    /// The faults of each process in [`ProcScan::top`], in its order (`None` for one whose
    /// `stat` could not be read).
    pub swap_list: Vec<Option<FaultRow>>,
    /// Why no process could be looked at (`/proc` unreadable).
    #[serde(default)]
    pub unreadable: Option<Reason>,
}

/// What zswaptop takes from `/proc/PID/stat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatFields {
    /// Field 2, `comm`, without its parentheses (at most 15 bytes, any bytes but NUL).
    pub name: String,
    pub major_faults: u64,
    pub start_time_ticks: u64,
}

/// Parse `/proc/PID/stat`. The name (field 2) is in parentheses and may itself hold spaces and
/// parentheses (`1 (a) (b) S …`), so the fields after it are counted from the last `)`.
/// `None` when a field is not a number or the line ends before field 23 (every kernel prints
/// more than 40 fields: a line cut inside `starttime` would give a wrong number).
pub(crate) fn parse_stat(bytes: &[u8]) -> Option<StatFields> {
    let open = bytes.iter().position(|&b| b == b'(')?;
    let close = bytes.iter().rposition(|&b| b == b')')?;
    if close <= open {
        return None;
    }
    let name = String::from_utf8_lossy(&bytes[open + 1..close]).into_owned();
    let rest = std::str::from_utf8(bytes.get(close + 1..)?).ok()?;
    // Field 3 (state) is the first after the name: majflt (12) is the 10th, starttime (22) the 20th.
    let mut fields = rest.split_ascii_whitespace();
    let major_faults = fields.nth(9)?.parse().ok()?;
    let start_time_ticks = fields.nth(9)?.parse().ok()?;
    let _vsize = fields.next()?;
    Some(StatFields {
        name,
        major_faults,
        start_time_ticks,
    })
}

/// The fault list of a scan at `read_ns` (whose counts are `now`) against `since`, and the
/// faults of the processes in `swap_list`.
fn faulting(
    root: &Root,
    now: &FaultCounts,
    top_n: usize,
    since: Option<&FaultCounts>,
    swap_list: &[ProcSample],
    smaps: bool,
) -> FaultScan {
    let row = |c: &ProcFaults| FaultRow {
        pid: c.pid,
        start_time_ticks: c.start_time_ticks,
        major_faults: c.major_faults,
        major_faults_delta: since
            .and_then(|b| b.get(c.pid, c.start_time_ticks))
            .and_then(|before| c.major_faults.checked_sub(before)),
    };
    let mut moved: Vec<FaultRow> = now
        .counts
        .iter()
        .map(row)
        .filter(|r| r.major_faults_delta.is_some_and(|d| d > 0))
        .collect();
    let faulting_count = moved.len();
    moved.sort_by(|a, b| {
        b.major_faults_delta
            .cmp(&a.major_faults_delta)
            .then(a.pid.cmp(&b.pid))
    });
    moved.truncate(top_n);
    let mut details: Vec<ProcSample> = moved.iter().map(|r| process_now(root, r.pid)).collect();
    fill_details(root, &mut details, smaps);
    let swap_list = swap_list
        .iter()
        .map(|p| {
            let i = now.counts.binary_search_by_key(&p.pid, |c| c.pid).ok()?;
            Some(row(&now.counts[i]))
        })
        .collect();
    FaultScan {
        age_ns: 0,
        interval_ns: since.and_then(|b| now.read_ns.checked_sub(b.read_ns)),
        faulting: details
            .into_iter()
            .zip(moved)
            .map(|(process, faults)| Faulting { process, faults })
            .collect(),
        faulting_count,
        swap_list,
        unreadable: None,
    }
}

/// A listed process's name, uid, RSS and swap, read again (its status, else its `stat` name).
fn process_now(root: &Root, pid: u32) -> ProcSample {
    let mut buf = Vec::new();
    let dir = root.proc(&pid.to_string());
    let status = root
        .read_into(&dir.join("status"), &mut buf, &Reason::absent(""))
        .ok()
        .and_then(|()| parse_status_any(pid, &buf));
    status.unwrap_or_else(|| {
        buf.clear();
        let name = root
            .read_into(&dir.join("stat"), &mut buf, &Reason::absent(""))
            .ok()
            .and_then(|()| parse_stat(&buf))
            .map(|s| s.name)
            .unwrap_or_default();
        ProcSample {
            pid,
            name,
            uid: None,
            rss_bytes: None,
            swap_bytes: 0,
            user: None,
            command: None,
            cgroup: None,
            cgroup_zswapped: None,
            cgroup_swap: None,
            cgroup_zswap: None,
            smaps: None,
            smaps_missing: None,
        }
    })
}

/// Scan every process and keep the `top_n` largest swap users; with `smaps`, read the
/// smaps_rollup of each one kept.
pub fn scan(root: &Root, top_n: usize, smaps: bool) -> ProcScan {
    match scan_all(root, false, smaps) {
        Ok((scanned, swapped, _, shmem)) => rank(root, scanned, swapped, shmem, top_n, smaps),
        Err(why) => unreadable(why),
    }
}

/// [`scan`], and in the same pass over `/proc` the major faults of every process: the
/// `top_n` processes that faulted most since `since` (the counts of an earlier scan of the
/// same system), with their details filled in as the swap list's are, and the faults of each
/// process in the swap list. `read_ns` is the CLOCK_MONOTONIC time of the sample scanning. The
/// counts returned are what the next scan takes as `since`. With `smaps`, the smaps_rollup of
/// each process listed is read too.
pub fn scan_with_faults(
    root: &Root,
    top_n: usize,
    read_ns: u64,
    since: Option<&FaultCounts>,
    smaps: bool,
) -> (ProcScan, FaultScan, FaultCounts) {
    match scan_all(root, true, smaps) {
        Ok((scanned, swapped, mut counts, shmem)) => {
            counts.sort_unstable_by_key(|c| c.pid);
            let now = FaultCounts { read_ns, counts };
            let list = rank(root, scanned, swapped, shmem, top_n, smaps);
            let faults = faulting(root, &now, top_n, since, &list.top, smaps);
            (list, faults, now)
        }
        Err(why) => (
            unreadable(why.clone()),
            FaultScan {
                unreadable: Some(why),
                ..FaultScan::default()
            },
            FaultCounts {
                read_ns,
                counts: Vec::new(),
            },
        ),
    }
}

fn unreadable(why: Reason) -> ProcScan {
    ProcScan {
        unreadable: Some(why),
        ..ProcScan::default()
    }
}

/// The swap list: the `top_n` largest of `swapped`, with user, command and cgroup filled in.
/// With `smaps`, the `shmem` candidates (no VmSwap, a shared mapping shmem may back) whose
/// smaps_rollup shows swapped shmem join it, ranked by that swap (the others by VmSwap: their
/// smaps_rollup is read only once they are listed); the counts stay VmSwap's.
fn rank(
    root: &Root,
    scanned: usize,
    mut swapped: Vec<ProcSample>,
    shmem: Vec<ProcSample>,
    top_n: usize,
    smaps: bool,
) -> ProcScan {
    let with_swap = swapped.len();
    let total_swap_bytes = swapped
        .iter()
        .fold(0u64, |a, p| a.saturating_add(p.swap_bytes));
    if smaps {
        let mut buf = Vec::new();
        for mut p in shmem {
            if let Ok(s) = smaps_swap(root, p.pid, &mut buf)
                && s.swap_bytes > s.vm_swap_bytes
            {
                p.smaps = Some(s);
                swapped.push(p);
            }
        }
    }
    // VmSwap, or for a process whose only swap is shmem, that.
    let key = |p: &ProcSample| match p.smaps {
        Some(s) if p.swap_bytes == 0 => s.swap_bytes.saturating_sub(s.vm_swap_bytes),
        _ => p.swap_bytes,
    };
    swapped.sort_by(|a, b| key(b).cmp(&key(a)).then(a.pid.cmp(&b.pid)));
    swapped.truncate(top_n);
    fill_details(root, &mut swapped, smaps);
    ProcScan {
        scanned,
        with_swap,
        total_swap_bytes,
        top: swapped,
        unreadable: None,
        commands_not_recorded: false,
        smaps_read: smaps,
    }
}

/// User, command line and cgroup (with its zswap figures on cgroup v2) of each process listed,
/// and with `smaps` its swap as smaps_rollup gives it.
fn fill_details(root: &Root, list: &mut [ProcSample], smaps: bool) {
    if list.is_empty() {
        return;
    }
    let users = Users::load(root);
    let v2 = super::cgroups::find_v2(root).ok();
    // Many top processes share a cgroup (a service's workers): read each cgroup once.
    let mut seen: HashMap<String, [Option<u64>; 3]> = HashMap::new();
    let mut buf = Vec::new();
    for p in list {
        p.user = users.name(p.uid);
        p.command = command_line(root, p.pid);
        if smaps && p.smaps.is_none() {
            match smaps_swap(root, p.pid, &mut buf) {
                Ok(s) => p.smaps = Some(s),
                Err(why) => p.smaps_missing = Some(why),
            }
        }
        let Some(mount) = &v2 else {
            p.cgroup = cgroup_v1_memory_path(root, p.pid);
            continue;
        };
        p.cgroup = cgroup_v2_path(root, p.pid);
        if let Some(path) = p.cgroup.as_deref() {
            let [zswapped, swap, zswap] = *seen.entry(path.to_string()).or_insert_with(|| {
                super::cgroups::read_one(root, mount, &mount.join(path.trim_start_matches('/')))
                    .map_or([None; 3], |cg| [cg.zswapped, cg.swap_current, cg.zswap])
            });
            p.cgroup_zswapped = zswapped;
            p.cgroup_swap = swap;
            p.cgroup_zswap = zswap;
        }
    }
}

/// What smaps_rollup tells of a process's swap, and its VmSwap read right after it (the two
/// reads a moment apart, so that their difference is the shmem swap of one moment, give or
/// take what the process swapped in between).
///
/// smaps_rollup walks the process's page tables: measured on this machine's 6.18 kernel at
/// ~50 ms for a process with 1 GiB resident against 25 µs for its status file, which is why
/// it is read only for the processes listed, and only when asked.
fn smaps_swap(root: &Root, pid: u32, buf: &mut Vec<u8>) -> Result<SmapsSwap, Reason> {
    let dir = root.proc(&pid.to_string());
    let gone = Reason::absent("no smaps_rollup: the process ended, or a kernel before 4.14");
    let path = dir.join("smaps_rollup");
    buf.clear();
    root.read_into(&path, buf, &gone)
        .map_err(|e| match e.reason {
            // smaps_rollup is opened with a ptrace access check (PTRACE_MODE_READ): the file is
            // 0444 yet another user's process is refused to whoever is not root with
            // CAP_SYS_PTRACE (or is within a container that drops it).
            Reason::NeedsRoot { .. } => Reason::absent(SMAPS_DENIED),
            other => other,
        })?;
    let (swap, swap_pss) =
        parse_smaps_rollup(buf).map_err(|detail| Reason::Malformed { line: None, detail })?;
    buf.clear();
    root.read_into(&dir.join("status"), buf, &gone)
        .map_err(|e| e.reason)?;
    let vm_swap = status_fields(pid, buf).1.unwrap_or(0);
    Ok(SmapsSwap {
        swap_bytes: swap,
        swap_pss_bytes: swap_pss,
        vm_swap_bytes: vm_swap,
    })
}

/// Why a process's smaps_rollup could not be opened.
pub const SMAPS_DENIED: &str = "smaps_rollup needs ptrace access (same user or CAP_SYS_PTRACE)";

/// The `Swap` and `SwapPss` lines of smaps_rollup, in bytes; an error saying which is missing
/// or not a number (every kernel since 4.14, which added the file, prints both).
pub(crate) fn parse_smaps_rollup(bytes: &[u8]) -> Result<(u64, u64), String> {
    let text = String::from_utf8_lossy(bytes);
    let mut swap = None;
    let mut pss = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let slot = match key {
            "Swap" => &mut swap,
            "SwapPss" => &mut pss,
            _ => continue,
        };
        *slot = Some(
            kb(value).ok_or_else(|| format!("{key}: {:?} is not a size in kB", value.trim()))?,
        );
    }
    match (swap, pss) {
        (Some(s), Some(p)) => Ok((s, p)),
        (None, _) => Err("no Swap line".into()),
        (_, None) => Err("no SwapPss line".into()),
    }
}

/// Read `ROOT/proc/[0-9]*/status` (and with `faults`, `stat`). Kernel threads (no VmSwap line)
/// and unreadable ones are left out of the swap list; a process whose `stat` reads is counted in
/// the fault list whatever its status says. With `shmem`, the processes without VmSwap that map
/// something shmem may back ([`maps_shared_shmem`]) are the fourth list: VmSwap leaves swapped
/// shmem out, so a process whose only swapped memory is shmem has VmSwap 0.
type Scanned = (usize, Vec<ProcSample>, Vec<ProcFaults>, Vec<ProcSample>);

fn scan_all(root: &Root, faults: bool, shmem: bool) -> Result<Scanned, Reason> {
    let proc_dir = root.proc("");
    let rd = root
        .read_dir(&proc_dir)
        .map_err(|e| classify_io(&proc_dir, &e, &Reason::absent("/proc can't be listed")).reason)?;
    let mut scanned = 0;
    let mut swapped = Vec::new();
    let mut counts = Vec::new();
    let mut shared = Vec::new();
    let mut buf = Vec::with_capacity(4096);
    for entry in rd.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        scanned += 1;
        let dir = entry.path();
        if faults {
            buf.clear();
            if root
                .read_into(&dir.join("stat"), &mut buf, &Reason::absent(""))
                .is_ok()
                && let Some(st) = parse_stat(&buf)
            {
                counts.push(ProcFaults {
                    pid,
                    start_time_ticks: st.start_time_ticks,
                    major_faults: st.major_faults,
                });
            }
        }
        buf.clear();
        if root
            .read_into(&dir.join("status"), &mut buf, &Reason::absent(""))
            .is_err()
        {
            continue;
        }
        match parse_status(pid, &buf) {
            Some(p) if p.swap_bytes > 0 => swapped.push(p),
            Some(p) if shmem && maps_shared_shmem(root, dir, &mut buf) => shared.push(p),
            _ => {}
        }
    }
    if scanned == 0 {
        // Every system runs at least init: an empty /proc is not mounted, not idle.
        return Err(Reason::absent("/proc lists no process (is /proc mounted?)"));
    }
    Ok((scanned, swapped, counts, shared))
}

/// Whether `/proc/PID/maps` (in `dir`) lists a shared mapping (`s` in its permissions) of a
/// device with major number 0: where shmem lives (tmpfs, /dev/shm, memfd, SysV shm and shared
/// anonymous memory are all on anonymous devices, `00:NN`). Other filesystems on anonymous
/// devices (btrfs, overlayfs, devtmpfs) match too: they cost a smaps_rollup read, nothing
/// else. maps lists the mappings without walking the page tables that smaps_rollup walks: a
/// candidate is found by the one and confirmed by the other.
fn maps_shared_shmem(root: &Root, dir: &std::path::Path, buf: &mut Vec<u8>) -> bool {
    buf.clear();
    if root
        .read_into(&dir.join("maps"), buf, &Reason::absent(""))
        .is_err()
    {
        return false;
    }
    buf.split(|&b| b == b'\n').any(|line| {
        let mut f = line.split(|&b| b == b' ').filter(|w| !w.is_empty());
        let (_, perms, _, dev) = (f.next(), f.next(), f.next(), f.next());
        perms.is_some_and(|p| p.get(3) == Some(&b's')) && dev.is_some_and(|d| d.starts_with(b"00:"))
    })
}

/// Parse the lines we need from a status file. `None` for kernel threads (no VmSwap).
pub fn parse_status(pid: u32, bytes: &[u8]) -> Option<ProcSample> {
    let (p, swap) = status_fields(pid, bytes);
    Some(ProcSample {
        swap_bytes: swap?,
        ..p
    })
}

/// A status file of a process that may have no swap (no VmSwap line: 0). `None` without a name.
fn parse_status_any(pid: u32, bytes: &[u8]) -> Option<ProcSample> {
    let (p, swap) = status_fields(pid, bytes);
    (!p.name.is_empty()).then(|| ProcSample {
        swap_bytes: swap.unwrap_or(0),
        ..p
    })
}

/// Name, Uid, VmRSS from a status file, and VmSwap on its own (`None` when absent or cut short).
fn status_fields(pid: u32, bytes: &[u8]) -> (ProcSample, Option<u64>) {
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
    let p = ProcSample {
        pid,
        name: name.unwrap_or_default(),
        uid,
        rss_bytes: rss,
        swap_bytes: 0,
        user: None,
        command: None,
        cgroup: None,
        cgroup_zswapped: None,
        cgroup_swap: None,
        cgroup_zswap: None,
        smaps: None,
        smaps_missing: None,
    };
    (p, swap)
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
pub(crate) fn cgroup_v1_memory_path(root: &Root, pid: u32) -> Option<String> {
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
pub(crate) fn command_line(root: &Root, pid: u32) -> Option<String> {
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

    fn stat_fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/tests/fixtures/proc-stat/{name}.stat",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// Fields counted by hand in the captured lines (tests/fixtures/proc-stat/README.md).
    #[test]
    fn stat_files_of_the_capture() {
        let s = parse_stat(&stat_fixture("swap-in")).unwrap();
        assert_eq!(
            (s.name.as_str(), s.major_faults, s.start_time_ticks),
            ("python3", 10_696, 888_041)
        );
        let s = parse_stat(&stat_fixture("parentheses")).unwrap();
        assert_eq!(
            s.name, "x) y (z",
            "the name keeps its spaces and parentheses"
        );
        assert_eq!((s.major_faults, s.start_time_ticks), (0, 846_487));
        let s = parse_stat(&stat_fixture("kthreadd")).unwrap();
        assert_eq!((s.name.as_str(), s.start_time_ticks), ("kthreadd", 24));
        let s = parse_stat(&stat_fixture("zombie")).unwrap();
        assert_eq!((s.major_faults, s.start_time_ticks), (0, 846_564));
    }

    #[test]
    fn stat_lines_cut_short_or_garbled() {
        let full = stat_fixture("swap-in");
        // Cut anywhere before starttime: no figures rather than wrong ones.
        let start_at = String::from_utf8_lossy(&full).find(" 888041 ").unwrap() + 1;
        for cut in [0, 5, 20, 40, start_at, start_at + 3, start_at + 6] {
            assert_eq!(parse_stat(&full[..cut]), None, "cut at {cut}");
        }
        assert!(parse_stat(&full[..start_at + 8]).is_some());
        assert_eq!(
            parse_stat(b"1 (a) S 1 2 3 4 5 6 7 8 x 10 11 12 13 14 15 16 17 18 19 20"),
            None
        );
        assert_eq!(parse_stat(b"1 )a( S"), None);
        assert_eq!(parse_stat(b"\xff\xfe"), None);
    }

    /// A tree of `n` processes with a stat and a status file each.
    fn write_proc(
        dir: &std::path::Path,
        pid: u32,
        name: &str,
        majflt: u64,
        start: u64,
        swap_kb: Option<u64>,
    ) {
        let d = dir.join(format!("proc/{pid}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("stat"),
            format!(
                "{pid} ({name}) S 1 {pid} {pid} 0 -1 4194304 100 0 {majflt} 0 1 2 0 0 20 0 1 0 {start} 1000 10 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n"
            ),
        )
        .unwrap();
        let swap = swap_kb
            .map(|k| format!("VmSwap:\t{k} kB\n"))
            .unwrap_or_default();
        std::fs::write(
            d.join("status"),
            format!("Name:\t{name}\nUid:\t0\t0\t0\t0\nVmRSS:\t100 kB\n{swap}"),
        )
        .unwrap();
    }

    #[test]
    fn faults_are_taken_per_process_since_the_scan_before() {
        let t = tempfile::tempdir().unwrap();
        let root = Root::at(t.path());
        write_proc(t.path(), 10, "steady", 5, 100, Some(8));
        write_proc(t.path(), 11, "faulting", 50, 200, None);
        write_proc(t.path(), 12, "reused", 1000, 300, Some(4));
        write_proc(t.path(), 13, "quiet", 7, 400, None);
        let (swap0, first, counts0) = scan_with_faults(&root, 5, 1_000, None, false);
        assert_eq!(swap0.with_swap, 2);
        assert_eq!(counts0.counts.len(), 4);
        assert_eq!(counts0.read_ns, 1_000);
        assert_eq!((first.age_ns, first.interval_ns), (0, None));
        assert!(first.faulting.is_empty(), "nothing to take a delta against");
        // The swap list's rows have their counts, no delta yet.
        let rows: Vec<(u32, u64, Option<u64>)> = first
            .swap_list
            .iter()
            .flatten()
            .map(|r| (r.pid, r.major_faults, r.major_faults_delta))
            .collect();
        assert_eq!(rows, vec![(10, 5, None), (12, 1000, None)]);
        // Later: 11 took 450 faults, 10 took 1; pid 12 is another process now (new start
        // time) with more faults than the old one had; 13 unchanged; 14 new.
        write_proc(t.path(), 10, "steady", 6, 100, Some(8));
        write_proc(t.path(), 11, "faulting", 500, 200, None);
        write_proc(t.path(), 12, "reused", 5000, 301, Some(4));
        write_proc(t.path(), 14, "new", 90, 500, None);
        let (_, second, counts1) = scan_with_faults(&root, 5, 3_000, Some(&counts0), false);
        assert_eq!(second.interval_ns, Some(2_000));
        assert_eq!((counts1.read_ns, counts1.counts.len()), (3_000, 5));
        let got: Vec<(u32, &str, u64, Option<u64>)> = second
            .faulting
            .iter()
            .map(|f| {
                (
                    f.process.pid,
                    f.process.name.as_str(),
                    f.faults.major_faults,
                    f.faults.major_faults_delta,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![(11, "faulting", 500, Some(450)), (10, "steady", 6, Some(1))]
        );
        assert_eq!(second.faulting_count, 2);
        // The reused pid gets no delta in the swap list either.
        let rows: Vec<(u32, Option<u64>)> = second
            .swap_list
            .iter()
            .flatten()
            .map(|r| (r.pid, r.major_faults_delta))
            .collect();
        assert_eq!(rows, vec![(10, Some(1)), (12, None)]);
        // Details as the swap list's: a process without VmSwap has 0 swap and its name.
        assert_eq!(second.faulting[0].process.swap_bytes, 0);
        assert_eq!(second.faulting[1].process.swap_bytes, 8 * 1024);
        assert_eq!(second.faulting[0].process.user.as_deref(), Some("0"));
        // The list is bounded; the count still says how many faulted.
        let (_, one, _) = scan_with_faults(&root, 1, 3_000, Some(&counts0), false);
        assert_eq!((one.faulting.len(), one.faulting_count), (1, 2));
        assert_eq!(one.faulting[0].process.pid, 11);
        // A count that went back (another process by chance with the same start tick): no delta.
        write_proc(t.path(), 11, "faulting", 3, 200, None);
        let (_, back, _) = scan_with_faults(&root, 5, 4_000, Some(&counts1), false);
        assert!(back.faulting.iter().all(|f| f.process.pid != 11));
    }

    #[test]
    fn a_process_gone_between_the_scan_and_its_details_keeps_its_stat_name() {
        let t = tempfile::tempdir().unwrap();
        let root = Root::at(t.path());
        write_proc(t.path(), 20, "worker", 1, 10, None);
        let (_, _, counts) = scan_with_faults(&root, 3, 1, None, false);
        write_proc(t.path(), 20, "worker", 9, 10, None);
        std::fs::remove_file(t.path().join("proc/20/status")).unwrap();
        let (swap, second, _) = scan_with_faults(&root, 3, 2, Some(&counts), false);
        assert_eq!(swap.with_swap, 0);
        assert_eq!(second.faulting.len(), 1);
        assert_eq!(second.faulting[0].process.name, "worker");
        assert_eq!(second.faulting[0].process.uid, None);
    }

    #[test]
    fn an_unlistable_proc_says_why_in_both_lists() {
        let t = tempfile::tempdir().unwrap();
        let (swap, faults, counts) =
            scan_with_faults(&Root::at(t.path().join("nothing")), 5, 1, None, false);
        assert!(swap.unreadable.is_some());
        assert_eq!(faults.unreadable, swap.unreadable);
        assert!(counts.counts.is_empty());
    }

    fn smaps_fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/tests/fixtures/proc-smaps/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// Values read by hand off the captured files (tests/fixtures/proc-smaps/README.md).
    #[test]
    fn smaps_rollup_files_of_the_capture() {
        for who in ["parent", "child"] {
            let (swap, pss) =
                parse_smaps_rollup(&smaps_fixture(&format!("{who}.smaps_rollup"))).unwrap();
            assert_eq!((swap, pss), (98_304 * 1024, 32_768 * 1024), "{who}");
        }
    }

    #[test]
    fn smaps_rollup_cut_short_or_garbled() {
        let full = smaps_fixture("parent.smaps_rollup");
        let text = String::from_utf8_lossy(&full);
        let cut = text.find("SwapPss:").unwrap();
        assert_eq!(
            parse_smaps_rollup(&full[..cut]),
            Err("no SwapPss line".into())
        );
        assert_eq!(
            parse_smaps_rollup(b"Rss: 1 kB\n"),
            Err("no Swap line".into())
        );
        assert!(
            parse_smaps_rollup(b"Swap: 12\nSwapPss: 1 kB\n").is_err(),
            "no unit"
        );
        assert!(parse_smaps_rollup(b"Swap: x kB\nSwapPss: 1 kB\n").is_err());
        assert!(parse_smaps_rollup(b"\xff\xfe").is_err());
    }

    /// The captured parent in a tree: with smaps asked, its smaps_rollup and its VmSwap read
    /// again; without, nothing read; a process without the file says why.
    #[test]
    fn the_scan_reads_smaps_rollup_of_the_listed_only_when_asked() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("proc/5562");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("status"), smaps_fixture("parent.status")).unwrap();
        std::fs::write(d.join("smaps_rollup"), smaps_fixture("parent.smaps_rollup")).unwrap();
        write_proc(t.path(), 9, "old", 0, 1, Some(4));
        let root = Root::at(t.path());
        let with = scan(&root, 5, true);
        assert!(with.smaps_read);
        let parent = with.top.iter().find(|p| p.pid == 5562).unwrap();
        assert_eq!(
            parent.smaps,
            Some(SmapsSwap {
                swap_bytes: 98_304 * 1024,
                swap_pss_bytes: 32_768 * 1024,
                vm_swap_bytes: 65_536 * 1024,
            })
        );
        let old = with.top.iter().find(|p| p.pid == 9).unwrap();
        assert_eq!(old.smaps, None);
        assert!(
            old.smaps_missing
                .as_ref()
                .is_some_and(|r| r.text().contains("no smaps_rollup")),
            "{old:?}"
        );
        let without = scan(&root, 5, false);
        assert!(!without.smaps_read);
        assert!(
            without
                .top
                .iter()
                .all(|p| p.smaps.is_none() && p.smaps_missing.is_none())
        );
        // A file of another shape says so rather than giving numbers.
        std::fs::write(d.join("smaps_rollup"), b"Rss: 1 kB\n").unwrap();
        let bad = scan(&root, 5, true);
        let parent = bad.top.iter().find(|p| p.pid == 5562).unwrap();
        assert!(matches!(
            parent.smaps_missing,
            Some(Reason::Malformed { .. })
        ));
    }

    /// A process whose only swapped memory is shmem (a memfd it maps shared, paged out) has
    /// VmSwap 0: with smaps asked it is listed all the same, ranked by its shmem swap; a process
    /// with no shared shmem mapping is not looked at, and without smaps nothing changes.
    #[test]
    fn a_process_whose_only_swap_is_shmem_is_listed() {
        let t = tempfile::tempdir().unwrap();
        write_proc(t.path(), 7, "anon", 0, 1, Some(4));
        write_proc(t.path(), 8, "shm", 0, 1, Some(0));
        write_proc(t.path(), 9, "private", 0, 1, Some(0));
        let proc8 = t.path().join("proc/8");
        std::fs::write(proc8.join("cmdline"), "python3\0shm.py\0").unwrap();
        std::fs::write(
            proc8.join("maps"),
            "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1311 /usr/bin/python3.11\n\
             7f3a40000000-7f3a42000000 rw-s 00000000 00:01 2051                       /memfd:shm (deleted)\n",
        )
        .unwrap();
        std::fs::write(
            proc8.join("smaps_rollup"),
            "Rss:                 100 kB\nSwap:              32768 kB\nSwapPss:               0 kB\n",
        )
        .unwrap();
        let proc9 = t.path().join("proc/9");
        std::fs::write(
            proc9.join("maps"),
            "7f3a40000000-7f3a42000000 rw-p 00000000 00:00 0\n\
             7f3a50000000-7f3a52000000 rw-s 00000000 08:01 77 /var/lib/db/file\n",
        )
        .unwrap();
        // Were it read, it would show swap: it must not be, having no shmem mapping.
        std::fs::write(proc9.join("smaps_rollup"), "Swap: 64 kB\nSwapPss: 64 kB\n").unwrap();
        let root = Root::at(t.path());
        let with = scan(&root, 5, true);
        let pids: Vec<u32> = with.top.iter().map(|p| p.pid).collect();
        assert_eq!(pids, [8, 7], "ranked by shmem swap, then VmSwap");
        let shm = &with.top[0];
        assert_eq!(shm.swap_bytes, 0);
        assert_eq!(
            shm.smaps,
            Some(SmapsSwap {
                swap_bytes: 32_768 * 1024,
                swap_pss_bytes: 0,
                vm_swap_bytes: 0,
            })
        );
        assert_eq!(
            shm.command.as_deref(),
            Some("python3 shm.py"),
            "its details filled in"
        );
        // The counts are VmSwap's, as they say.
        assert_eq!((with.with_swap, with.total_swap_bytes), (1, 4096));
        let (faults, ..) = scan_with_faults(&root, 5, 1, None, true);
        assert_eq!(faults.top.iter().map(|p| p.pid).collect::<Vec<_>>(), [8, 7]);
        let without = scan(&root, 5, false);
        assert_eq!(without.top.iter().map(|p| p.pid).collect::<Vec<_>>(), [7]);
    }

    #[test]
    fn truncated_status_is_skipped_not_fatal() {
        assert_eq!(parse_status(9, b"Name:\tx\nVmSwap:\tabc kB"), None);
        assert!(parse_status(9, b"\xff\xfe garbage").is_none());
    }
}
