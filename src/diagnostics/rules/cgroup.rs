//! The rules on cgroups: an OOM kill in a cgroup within the window, and a cgroup close to one
//! of its limits. They look at the cgroup tree, read only where it was asked for (`--cgroups`,
//! the cgroups view, the exposition).

use super::*;
use crate::model::cgroup_events::Limit;
use crate::model::owners::{CgroupRow, Cgroups, below};

const MIB: u64 = 1 << 20;

/// How many cgroups a finding names one by one (the rest are counted).
const NAMED: usize = 6;

/// The tree read, when it was.
fn tree<'a>(c: &Ctx<'a>) -> Option<&'a Cgroups> {
    c.snap.cgroups.as_ref().filter(|t| t.available)
}

/// A cgroup's directory as the kernel shows it.
fn dir(t: &Cgroups, path: &str) -> String {
    let mount = if t.is_v1() {
        "/sys/fs/cgroup/memory"
    } else {
        "/sys/fs/cgroup"
    };
    format!("{mount}{}", if path == "/" { "" } else { path })
}

/// `bytes` rounded up to whole MiB, as a cgroup file or systemd takes it: `48M`.
fn mib(bytes: f64) -> String {
    format!("{}M", ((bytes / MIB as f64).ceil() as u64).max(1))
}

/// How to set `file` (memory.max, …) of the cgroup at `path` to `value` now: the command.
fn set_now(t: &Cgroups, row: &CgroupRow, file: &str, value: &str) -> String {
    let file = if t.is_v1() {
        "memory.limit_in_bytes"
    } else {
        file
    };
    format!(
        "`echo {value} | sudo tee {}`",
        sh(&format!("{}/{file}", dir(t, &row.path)))
    )
}

/// How to set `file` (memory.max, …) of the cgroup at `path` to `value`, now and for good.
fn set_limit(t: &Cgroups, row: &CgroupRow, file: &str, value: &str) -> String {
    let property = match (t.is_v1(), file) {
        (false, "memory.high") => "MemoryHigh",
        (false, "memory.swap.max") => "MemorySwapMax",
        (false, "memory.zswap.max") => "MemoryZSwapMax",
        _ => "MemoryMax",
    };
    let now = set_now(t, row, file, value);
    match &row.unit {
        Some(unit) => format!(
            "{now}; to keep it (systemd writes a drop-in and sets the file), `sudo systemctl \
             set-property {} {property}={value}`",
            sh(unit)
        ),
        None => format!(
            "{now}; that lasts until the cgroup is made again: set it where the cgroup is made \
             (its container's or service's memory limit)"
        ),
    }
}

/// A row's events and pressure, for the evidence.
fn events_line(t: &Cgroups, r: &CgroupRow) -> String {
    let window = t
        .interval_seconds
        .map_or(String::new(), |s| format!(" in the last {s:.1} s"));
    let mut parts = Vec::new();
    if let (Some(e), new) = (r.events, r.events_new) {
        let n = |k: fn(&crate::model::cgroup_events::CgroupEvents) -> Option<u64>| {
            new.as_ref()
                .and_then(k)
                .filter(|&n| n > 0)
                .map_or(String::new(), |n| format!(" (+{n}{window})"))
        };
        for (name, v, add) in [
            ("oom_kill", e.oom_kill, n(|e| e.oom_kill)),
            ("oom", e.oom, n(|e| e.oom)),
            ("oom_group_kill", e.oom_group_kill, n(|e| e.oom_group_kill)),
            ("max", e.max, n(|e| e.max)),
            ("high", e.high, n(|e| e.high)),
        ] {
            if let Some(v) = v {
                parts.push(format!("{name} {v}{add}"));
            }
        }
    }
    let mut line = format!(
        "{}: memory.current {}, memory.swap.current {}",
        r.path,
        f::bytes(r.memory_current_bytes),
        f::bytes(r.swap_current_bytes)
    );
    if !parts.is_empty() {
        line.push_str(&format!(
            "; {} {}",
            if t.is_v1() {
                "memory.oom_control"
            } else {
                "memory.events"
            },
            parts.join(", ")
        ));
    }
    if let Some(p) = r.pressure {
        line.push_str(&format!(
            "; memory.pressure some avg10 {:.2}%, full avg10 {:.2}%",
            p.some_avg10, p.full_avg10
        ));
    }
    line
}

/// A limit in words: `memory.max 8.0 MiB (usage 7.9 MiB, headroom 100 KiB, 1.2%)`.
fn limit_line(file: &str, l: &Limit) -> String {
    let share = l.headroom_share.map_or(String::new(), |s| {
        format!(", {} of it", f::percent(Some(s * 100.0)))
    });
    format!(
        "{file} {} (usage {}, headroom {}{share})",
        f::bytes(l.limit_bytes),
        f::bytes(l.usage_bytes),
        f::bytes_signed(l.headroom_bytes),
    )
}

// --- cgroup-oom --------------------------------------------------------------------------------

pub(crate) fn cgroup_oom(c: &Ctx) -> Option<Finding> {
    let t = tree(c)?;
    // memory.events counts a kill in every ancestor too (v2): the deepest cgroups with new kills.
    let hit = t.deepest_with(|r| r.events_new.and_then(|e| e.oom_kill));
    let deepest: Vec<&CgroupRow> = hit.iter().map(|(r, _)| *r).collect();
    let first = *deepest.first()?;
    let kills: u64 = hit.iter().map(|(_, n)| n).sum();
    let window = t.interval_seconds.unwrap_or(0.0);
    let mut ev = Vec::new();
    for r in deepest.iter().take(NAMED) {
        ev.push(events_line(t, r));
        for (file, l) in r.limits.named() {
            if let Some(l) = l.filter(|l| l.limit_bytes.is_some()) {
                ev.push(format!("{}: {}", r.path, limit_line(file, l)));
            }
        }
    }
    if deepest.len() > NAMED {
        ev.push(format!("and {} more cgroups", deepest.len() - NAMED));
    }
    // The limit that bound: memory.max of the cgroup or its nearest ancestor that has one.
    let bound = t
        .list
        .iter()
        .filter(|a| a.path == first.path || below(&first.path, &a.path))
        .filter(|a| a.limits.memory_max.is_some_and(|l| l.limit_bytes.is_some()))
        .max_by_key(|a| a.path.len());
    let no_swap = first
        .limits
        .swap_max
        .is_some_and(|l| l.limit_bytes == Some(0));
    let fix = match bound {
        Some(a) => {
            let l = a.limits.memory_max.unwrap_or(Limit::new(None, None));
            let to = mib(l.limit_bytes.unwrap_or(0) as f64 * 1.5);
            let mut fix = format!(
                "Give {} room: raise memory.max of {} (now {}) to {to}: {}",
                first.path,
                a.path,
                f::bytes(l.limit_bytes),
                set_limit(t, a, "memory.max", &to)
            );
            if no_swap && !t.is_v1() {
                fix.push_str(&format!(
                    ". Or let it swap, into zswap where it is on: {}{}",
                    set_now(t, first, "memory.swap.max", "max"),
                    first.unit.as_ref().map_or(String::new(), |u| format!(
                        " (for good: `sudo systemctl set-property {} MemorySwapMax=infinity`)",
                        sh(u)
                    ))
                ));
            }
            fix.push_str(
                ". Or make the workload use less: the kill was its limit, not the machine's.",
            );
            fix
        }
        None => "No memory.max binds this cgroup or its parents: the machine itself ran out of \
                 memory and swap. Add swap (zswap in front of it stretches RAM further), or run \
                 less; the kernel log (`sudo dmesg | grep -i oom`) names the process killed."
            .to_string(),
    };
    Some(finding(
        "cgroup-oom",
        Severity::Crit,
        format!(
            "the OOM killer killed {kills} process{} in {}{} in the last {window:.1} s",
            if kills == 1 { "" } else { "es" },
            first.path,
            if deepest.len() > 1 {
                format!(" and {} other cgroups", deepest.len() - 1)
            } else {
                String::new()
            }
        ),
        ev,
        fix,
        "A cgroup that reaches memory.max and cannot reclaim enough (its anonymous pages have \
         nowhere to go: memory.swap.max reached or 0, or no swap) runs the OOM killer inside \
         it; memory.events counts each kill (oom_kill) in the cgroup and its parents. zswap and \
         zram only help a cgroup allowed to swap; a page they hold still counts: zswap's \
         compressed bytes in memory.current, its slot in memory.swap.current.",
    ))
}

// --- cgroup-near-limit ---------------------------------------------------------------------------

pub(crate) fn cgroup_near_limit(c: &Ctx) -> Option<Finding> {
    let t = tree(c)?;
    let near = c.t.cgroup_near_limit_percent / 100.0;
    let mut hits: Vec<(&CgroupRow, &'static str, &Limit)> = t
        .set_limits()
        .filter(|(_, _, l)| l.used_share().is_some_and(|u| u >= near))
        .collect();
    if hits.is_empty() {
        return None;
    }
    hits.sort_by(|a, b| {
        let share = |l: &Limit| l.headroom_share.unwrap_or(f64::INFINITY);
        share(a.2)
            .total_cmp(&share(b.2))
            .then(a.0.path.cmp(&b.0.path))
    });
    // Pressing: in the window it was throttled or reclaimed at the limit, or stalled.
    let pressing = |r: &CgroupRow| {
        r.events_new
            .is_some_and(|e| e.max.is_some_and(|n| n > 0) || e.high.is_some_and(|n| n > 0))
            || r.pressure.is_some_and(|p| p.some_avg10 > 0.0)
    };
    let warn = hits.iter().any(|(r, _, _)| pressing(r));
    let mut ev = Vec::new();
    for (r, file, l) in hits.iter().take(NAMED) {
        ev.push(format!("{}: {}", r.path, limit_line(file, l)));
    }
    if hits.len() > NAMED {
        ev.push(format!("and {} more limits", hits.len() - NAMED));
    }
    let mut shown: Vec<&str> = Vec::new();
    for (r, _, _) in hits.iter().take(NAMED) {
        if !shown.contains(&r.path.as_str()) {
            shown.push(&r.path);
            if r.events.is_some() || r.pressure.is_some() {
                ev.push(events_line(t, r));
            }
        }
    }
    let (r, file, l) = hits[0];
    let to = mib(l.limit_bytes.unwrap_or(0).max(l.usage_bytes.unwrap_or(0)) as f64 * 1.25);
    // A quarter above the limit, or above the usage where that is past it (memory.high).
    let others = hits.len() - 1;
    Some(finding(
        "cgroup-near-limit",
        if warn { Severity::Warn } else { Severity::Info },
        format!(
            "{} is at {} of its {file}{}",
            r.path,
            f::percent(l.used_share().map(|u| u * 100.0)),
            if others > 0 {
                format!(" ({others} more limits near theirs)")
            } else {
                String::new()
            }
        ),
        ev,
        format!(
            "If the cgroup needs the room, raise {file} (to {to} here, a quarter more): {}. If the limit is meant to hold, nothing to do while its events and \
             pressure stay quiet.",
            set_limit(t, r, file, &to)
        ),
        "Near memory.max the kernel reclaims the cgroup's own pages at every charge (max \
         events), and past it, with nothing left to reclaim, runs the OOM killer in it; above \
         memory.high it throttles its tasks (high events, pressure). memory.swap.max and \
         memory.zswap.max, once reached, send pages to disk swap or keep them in RAM. Page \
         cache counts in memory.current and is dropped first, so a cgroup at its memory limit \
         with quiet events and no pressure is using its cache, not short of memory: this is a \
         warning only when it was throttled, reclaimed at the limit or stalled in the window.",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Thresholds;
    use crate::model::Snapshot;
    use crate::sources::cgroups::{CgroupSample, MemoryEvents};

    fn root_sample(path: &str) -> CgroupSample {
        CgroupSample {
            path: path.into(),
            inode: 1,
            version: 2,
            ..Default::default()
        }
    }

    /// A snapshot of the linux-6.18-idle tree with `cgroups` as its cgroup list, read twice
    /// `dt` seconds apart (`prev`, then `curr`).
    fn snap(prev: &[CgroupSample], curr: &[CgroupSample], dt: f64) -> Snapshot {
        let mut s = crate::sources::collect(&crate::root::Root::at(format!(
            "{}/tests/fixtures/linux-6.18-idle",
            env!("CARGO_MANIFEST_DIR")
        )));
        let mut p = s.clone();
        p.cgroups = Some(Ok(prev.to_vec()));
        s.cgroups = Some(Ok(curr.to_vec()));
        s.monotonic_ns = p.monotonic_ns + (dt * 1e9) as u64;
        crate::pipeline::snapshot(&s, Some(&p))
    }

    fn ids(s: &Snapshot) -> Vec<&str> {
        s.diagnostics.iter().map(|f| f.id.as_str()).collect()
    }

    fn oom_tree(
        kills_before: u64,
        kills_after: u64,
        name: &str,
    ) -> (Vec<CgroupSample>, Vec<CgroupSample>) {
        let cg = |kills: u64, path: &str| CgroupSample {
            memory_current: Some(8 * MIB - 4096),
            swap_current: Some(0),
            memory_max: Some(Some(8 * MIB)),
            memory_high: Some(None),
            swap_max: Some(Some(0)),
            events: Some(MemoryEvents {
                high: Some(0),
                max: Some(40 + kills),
                oom: Some(kills),
                oom_kill: Some(kills),
                oom_group_kill: Some(0),
            }),
            ..root_sample(path)
        };
        let parent = format!("/{name}");
        let child = format!("/{name}/job");
        let list = |k| vec![root_sample("/"), cg(k, &parent), cg(k, &child)];
        (list(kills_before), list(kills_after))
    }

    /// A kill in the window names the deepest cgroup (the parent counts it too), with the
    /// limit that bound and the fix raising it; no kill in the window, or no window: nothing.
    #[test]
    fn an_oom_kill_in_the_window_names_the_cgroup() {
        let (before, after) = oom_tree(2, 3, "batch");
        let s = snap(&before, &after, 2.0);
        let f = s.diagnostics.iter().find(|f| f.id == "cgroup-oom").unwrap();
        assert_eq!(f.severity, Severity::Crit);
        assert!(
            f.summary.contains("killed 1 process in /batch/job"),
            "{}",
            f.summary
        );
        assert!(!f.summary.contains("other cgroups"), "{}", f.summary);
        assert!(
            f.evidence
                .iter()
                .any(|e| e.contains("oom_kill 3 (+1 in the last 2.0 s)")),
            "{:?}",
            f.evidence
        );
        assert!(
            f.fix
                .contains("echo 12M | sudo tee /sys/fs/cgroup/batch/job/memory.max"),
            "{}",
            f.fix
        );
        assert!(f.fix.contains("memory.swap.max"), "swap.max 0: {}", f.fix);
        let (same, _) = oom_tree(3, 3, "batch");
        assert!(!ids(&snap(&same, &after, 2.0)).contains(&"cgroup-oom"));
        let one = crate::pipeline::snapshot(
            &{
                let mut s = crate::sources::collect(&crate::root::Root::at(format!(
                    "{}/tests/fixtures/linux-6.18-idle",
                    env!("CARGO_MANIFEST_DIR")
                )));
                s.cgroups = Some(Ok(after.clone()));
                s
            },
            None,
        );
        assert!(!ids(&one).contains(&"cgroup-oom"), "one read: no window");
    }

    /// A cgroup's name reaches the terminal made safe.
    #[test]
    fn a_hostile_cgroup_name_is_made_safe() {
        let (before, after) = oom_tree(0, 1, "x\u{1b}]0;owned\u{7}");
        let s = snap(&before, &after, 1.0);
        let f = s.diagnostics.iter().find(|f| f.id == "cgroup-oom").unwrap();
        let all = format!("{} {:?} {}", f.summary, f.evidence, f.fix);
        assert!(!all.contains('\u{1b}') && !all.contains('\u{7}'), "{all}");
        assert!(f.summary.contains(r"x\x1b]0;owned\x07"), "{}", f.summary);
    }

    /// Usage at 95 % of memory.max: an info while quiet, a warning with max events in the
    /// window; a limit further off, or a stricter threshold, says nothing.
    #[test]
    fn near_a_limit_by_the_threshold() {
        let cg = |max_events: u64, usage: u64| CgroupSample {
            memory_current: Some(usage),
            memory_max: Some(Some(100 * MIB)),
            memory_high: Some(None),
            swap_max: Some(None),
            events: Some(MemoryEvents {
                high: Some(0),
                max: Some(max_events),
                oom: Some(0),
                oom_kill: Some(0),
                oom_group_kill: Some(0),
            }),
            ..root_sample("/system.slice/db.service")
        };
        let quiet = |usage| vec![root_sample("/"), cg(5, usage)];
        let s = snap(&quiet(95 * MIB), &quiet(95 * MIB), 2.0);
        let f = s
            .diagnostics
            .iter()
            .find(|f| f.id == "cgroup-near-limit")
            .unwrap();
        assert_eq!(f.severity, Severity::Info);
        assert!(
            f.summary
                .contains("/system.slice/db.service is at 95.0% of its memory.max"),
            "{}",
            f.summary
        );
        assert!(
            f.fix
                .contains("systemctl set-property db.service MemoryMax=125M"),
            "{}",
            f.fix
        );
        let busy = vec![root_sample("/"), cg(9, 95 * MIB)];
        let s = snap(&quiet(95 * MIB), &busy, 2.0);
        let f = s
            .diagnostics
            .iter()
            .find(|f| f.id == "cgroup-near-limit")
            .unwrap();
        assert_eq!(f.severity, Severity::Warn);
        let s = snap(&quiet(50 * MIB), &quiet(50 * MIB), 2.0);
        assert!(!ids(&s).contains(&"cgroup-near-limit"));
        let strict = Thresholds {
            cgroup_near_limit_percent: 99.0,
            ..Thresholds::default()
        };
        let derived = snap(&quiet(95 * MIB), &quiet(95 * MIB), 2.0);
        assert!(
            !crate::diagnostics::evaluate(&derived, &strict)
                .iter()
                .any(|f| f.id == "cgroup-near-limit")
        );
    }
}
