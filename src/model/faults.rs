//! Who is faulting pages back in now: major faults per second per process (from the deltas the
//! process scan takes, `sources::processes`) and swap-ins per second per cgroup. Pure.
//!
//! A process's major faults (`/proc/PID/stat` `majflt`) are every fault that waited for I/O:
//! swap-ins from zswap and from a swap device, and file pages read from disk. The kernel keeps no
//! per-process count of swap-ins alone.
//!
//! Per cgroup, v2's memory.stat counts `zswpin` (loads from zswap) and, where the kernel lists
//! them, `pswpin` (reads from a swap device): together the cgroup's swap-ins, and their split
//! is the cgroup's own hit ratio. cgroup v1 has neither: only `total_pgmajfault`, every major
//! fault of the cgroup ([`V1_SWAPINS`]).

use serde::Serialize;

use super::rates::counter_rate;
use crate::sources::cgroups::CgroupSample;
use crate::sources::processes::{FaultRow, FaultScan};

/// What cgroup v1 lacks for swap-ins per cgroup.
pub const V1_SWAPINS: &str = "cgroup v1 counts no swap-ins per cgroup (no zswpin or pswpin in \
    memory.stat): major faults (total_pgmajfault: swap-ins and file reads alike) are shown instead";

/// A row's major faults per second over its scan's interval; `None` without a delta (first
/// scan, a process new since the baseline, a reused pid) or without an interval.
pub fn row_rate(row: &FaultRow, scan: &FaultScan) -> Option<f64> {
    let dt = scan.interval_ns.filter(|&ns| ns > 0)? as f64 / 1e9;
    Some(row.major_faults_delta? as f64 / dt)
}

/// One process's major faults per second.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessFaultRate {
    pub pid: u32,
    pub name: String,
    pub major_faults_per_sec: f64,
}

/// The processes faulting most, most first (the scan's list, as rates).
pub fn faulting(scan: &FaultScan) -> Vec<ProcessFaultRate> {
    scan.faulting
        .iter()
        .filter_map(|f| {
            Some(ProcessFaultRate {
                pid: f.process.pid,
                name: f.process.name.clone(),
                major_faults_per_sec: row_rate(&f.faults, scan)?,
            })
        })
        .collect()
}

/// Major faults per second of each process in the swap list, in its order.
pub fn swap_list_rates(scan: &FaultScan) -> Vec<Option<f64>> {
    scan.swap_list
        .iter()
        .map(|r| r.as_ref().and_then(|r| row_rate(r, scan)))
        .collect()
}

/// Whether any process took a major fault over the scan's interval: the processes view sorts
/// by faults per second while this holds.
pub fn anything_faulting(scan: &FaultScan) -> bool {
    scan.interval_ns.is_some() && scan.faulting_count > 0
}

/// One cgroup's swap-ins over an interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CgroupSwapIns {
    pub path: String,
    /// Loads from zswap, pages per second (v2).
    pub zswpin_per_sec: Option<f64>,
    /// Reads from a swap device, pages per second (v2, where the kernel counts them).
    pub pswpin_per_sec: Option<f64>,
    /// zswpin ÷ (zswpin + pswpin), 0–1; `None` without both or without swap-ins.
    pub hit_ratio: Option<f64>,
    /// Every major fault, per second (v2 `pgmajfault`, v1 `total_pgmajfault`).
    pub major_faults_per_sec: Option<f64>,
}

/// Each cgroup of `curr` with its rates since `prev` (`dt_secs` apart). A cgroup absent from
/// `prev`, or one re-created since (a new inode: a restarted unit), has none.
pub fn cgroup_swap_ins(
    prev: &[CgroupSample],
    curr: &[CgroupSample],
    dt_secs: f64,
) -> Vec<CgroupSwapIns> {
    curr.iter()
        .map(|c| {
            let p = prev.iter().find(|p| p.path == c.path && p.inode == c.inode);
            let rate =
                |f: fn(&CgroupSample) -> Option<u64>| counter_rate(p.and_then(f), f(c), dt_secs);
            let zswpin = rate(|s| s.zswpin);
            let pswpin = rate(|s| s.pswpin);
            CgroupSwapIns {
                path: c.path.clone(),
                zswpin_per_sec: zswpin,
                pswpin_per_sec: pswpin,
                hit_ratio: match (zswpin, pswpin) {
                    (Some(z), Some(d)) if z + d > 0.0 => Some(z / (z + d)),
                    _ => None,
                },
                major_faults_per_sec: rate(|s| s.pgmajfault),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::processes::{Faulting, ProcSample};

    fn row(pid: u32, delta: Option<u64>) -> FaultRow {
        FaultRow {
            pid,
            start_time_ticks: 1,
            major_faults: 1000,
            major_faults_delta: delta,
        }
    }

    fn proc(pid: u32) -> ProcSample {
        ProcSample {
            pid,
            name: format!("p{pid}"),
            uid: None,
            rss_bytes: None,
            swap_bytes: 0,
            user: None,
            command: None,
            cgroup: None,
            cgroup_zswapped: None,
            cgroup_swap: None,
        }
    }

    #[test]
    fn rates_over_the_scan_interval() {
        let scan = FaultScan {
            age_ns: 0,
            interval_ns: Some(2_500_000_000),
            faulting: vec![
                Faulting {
                    process: proc(7),
                    faults: row(7, Some(5000)),
                },
                Faulting {
                    process: proc(3),
                    faults: row(3, Some(10)),
                },
            ],
            faulting_count: 2,
            swap_list: vec![Some(row(3, Some(10))), None, Some(row(9, None))],
            unreadable: None,
        };
        let f = faulting(&scan);
        assert_eq!(
            f.iter()
                .map(|p| (p.pid, p.major_faults_per_sec))
                .collect::<Vec<_>>(),
            vec![(7, 2000.0), (3, 4.0)]
        );
        assert_eq!(swap_list_rates(&scan), vec![Some(4.0), None, None]);
        assert!(anything_faulting(&scan));
        let first = FaultScan {
            interval_ns: None,
            ..scan.clone()
        };
        assert!(faulting(&first).is_empty() && !anything_faulting(&first));
        let zero = FaultScan {
            interval_ns: Some(0),
            ..scan
        };
        assert_eq!(row_rate(&row(1, Some(5)), &zero), None);
    }

    fn cg(path: &str, inode: u64, zin: u64, pin: Option<u64>, maj: u64) -> CgroupSample {
        CgroupSample {
            path: path.into(),
            inode,
            zswpin: Some(zin),
            pswpin: pin,
            pgmajfault: Some(maj),
            ..Default::default()
        }
    }

    #[test]
    fn cgroup_swap_ins_with_restarts_and_v1() {
        let prev = [
            cg("/a", 1, 100, Some(10), 50),
            cg("/b", 2, 0, None, 0),
            cg("/r", 3, 500, Some(0), 0),
        ];
        let curr = [
            // 180 from zswap and 20 from disk in 2 s: 90/s and 10/s, 90 %.
            cg("/a", 1, 280, Some(30), 250),
            // A kernel without pswpin: no device figure, no ratio.
            cg("/b", 2, 40, None, 8),
            // Restarted: a new inode, counters from 0.
            cg("/r", 4, 5, Some(0), 0),
            cg("/new", 5, 1, Some(1), 1),
        ];
        let r = cgroup_swap_ins(&prev, &curr, 2.0);
        assert_eq!(
            (r[0].zswpin_per_sec, r[0].pswpin_per_sec, r[0].hit_ratio),
            (Some(90.0), Some(10.0), Some(0.9))
        );
        assert_eq!(r[0].major_faults_per_sec, Some(100.0));
        assert_eq!(
            (r[1].zswpin_per_sec, r[1].pswpin_per_sec, r[1].hit_ratio),
            (Some(20.0), None, None)
        );
        assert_eq!(
            (r[2].zswpin_per_sec, r[2].major_faults_per_sec),
            (None, None)
        );
        assert_eq!(r[3].zswpin_per_sec, None);
        // v1: only major faults.
        let v1 = |maj| CgroupSample {
            path: "/x".into(),
            pgmajfault: Some(maj),
            version: 1,
            ..Default::default()
        };
        let r = cgroup_swap_ins(&[v1(10)], &[v1(30)], 1.0);
        assert_eq!(
            (
                r[0].zswpin_per_sec,
                r[0].hit_ratio,
                r[0].major_faults_per_sec
            ),
            (None, None, Some(20.0))
        );
    }
}
