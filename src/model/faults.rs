//! Who is faulting pages back in now: major faults per second per process (from the deltas the
//! process scan takes, `sources::processes`) and swap-ins per second per cgroup. Pure.
//!
//! A process's major faults (`/proc/PID/stat` `majflt`) are every fault that waited for I/O:
//! swap-ins from zswap and from a swap device, and file pages read from disk. The kernel keeps no
//! per-process count of swap-ins alone.
//!
//! Per cgroup, v2's memory.stat counts `zswpin` (loads from zswap) and, where the kernel lists
//! them, `pswpin` (reads from a swap device): together the cgroup's swap-ins, and their split
//! is the cgroup's own hit ratio (the rows of `owners::cgroups`). cgroup v1 has neither: only
//! `total_pgmajfault`, every major fault of the cgroup ([`V1_SWAPINS`]).

use crate::sources::processes::{FaultRow, FaultScan};

/// What cgroup v1 lacks for swap-ins per cgroup.
pub const V1_SWAPINS: &str = "cgroup v1 counts no swap-ins per cgroup (no zswpin or pswpin in \
    memory.stat): major faults (total_pgmajfault: swap-ins and file reads alike) are shown instead";

/// A row's major faults per second over its scan's interval; `None` without a delta (first
/// scan, a process new since the baseline, a reused pid) or without an interval.
pub(crate) fn row_rate(row: &FaultRow, scan: &FaultScan) -> Option<f64> {
    let dt = scan.interval_ns.filter(|&ns| ns > 0)? as f64 / 1e9;
    Some(row.major_faults_delta? as f64 / dt)
}

/// Major faults per second of each process in the swap list, in its order.
pub(crate) fn swap_list_rates(scan: &FaultScan) -> Vec<Option<f64>> {
    scan.swap_list
        .iter()
        .map(|r| r.as_ref().and_then(|r| row_rate(r, scan)))
        .collect()
}

/// Whether any process took a major fault over the scan's interval: the processes view sorts
/// by faults per second while this holds.
pub(crate) fn anything_faulting(scan: &FaultScan) -> bool {
    scan.interval_ns.is_some() && scan.faulting_count > 0
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
            cgroup_zswap: None,
            smaps: None,
            smaps_missing: None,
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
        let rates: Vec<Option<f64>> = scan
            .faulting
            .iter()
            .map(|f| row_rate(&f.faults, &scan))
            .collect();
        assert_eq!(rates, vec![Some(2000.0), Some(4.0)]);
        assert_eq!(swap_list_rates(&scan), vec![Some(4.0), None, None]);
        assert!(anything_faulting(&scan));
        let first = FaultScan {
            interval_ns: None,
            ..scan.clone()
        };
        assert!(!anything_faulting(&first));
        assert_eq!(row_rate(&row(7, Some(5000)), &first), None);
        let zero = FaultScan {
            interval_ns: Some(0),
            ..scan
        };
        assert_eq!(row_rate(&row(1, Some(5)), &zero), None);
    }
}
