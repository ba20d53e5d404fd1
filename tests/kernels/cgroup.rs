//! The cgroup v2 scenario (`scenario-cgroup.sh`): zswaptop's per-cgroup events, pressure and
//! limits against the cgroups' own files read right before and right after
//! `zswaptop --once --json --cgroups -i 4`, and the `cgroup-oom` finding for the cgroup whose
//! workload the OOM killer took inside that window.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::rep;
use crate::report;

/// The cgroup driven over memory.high, and the one driven into an OOM kill.
const HIGH: &str = "/zt-high";
const OOM: &str = "/zt-oom";
/// avg10's natural movement between the reads around zswaptop: the kernel updates it every 2 s,
/// so zswaptop's value may sit a little outside the two files' (percentage points).
const AVG10_SLACK: f64 = 1.0;

fn read(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok()
}

/// `key value` of a flat keyed file.
fn keyed(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next()? == key).then(|| w.next()?.parse().ok())?
    })
}

/// `some`/`full` line's `avg10` (f64) and `total` (µs) of a pressure file.
fn pressure(text: &str, line: &str) -> Option<(f64, u64)> {
    let l = text.lines().find(|l| l.starts_with(line))?;
    let field = |k: &str| {
        l.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{k}=")))
            .map(str::to_string)
    };
    Some((field("avg10")?.parse().ok()?, field("total")?.parse().ok()?))
}

/// A limit file: bytes, or `None` for "max".
fn limit(text: &str) -> Option<Option<u64>> {
    match text.trim() {
        "max" => Some(None),
        t => t.parse().ok().map(Some),
    }
}

pub fn check(kernel: &str, res: &Path) {
    let dir = res.join("cgroup");
    rep().phase(&format!(
        "{kernel}/cgroup: memory.events, memory.pressure and the limits of {HIGH} and {OOM} vs \
         their files ({} s of guest time)",
        read(&dir.join("seconds")).unwrap_or_default().trim()
    ));
    let Some(json) = read(&dir.join("once.json")) else {
        rep().check(
            "the cgroup scenario ran (cgroup/once.json)",
            false,
            "absent",
            "present",
        );
        return;
    };
    rep().check(
        "zswaptop --once --json --cgroups -i 4 exited 0",
        read(&dir.join("once.rc")).unwrap_or_default().trim() == "0",
        read(&dir.join("once.err")).unwrap_or_default().trim(),
        "0",
    );
    rep().check(
        "the workload in zt-oom was killed (exit status 137)",
        read(&dir.join("oom.rc")).unwrap_or_default().trim() == "137",
        read(&dir.join("oom.rc")).unwrap_or_default().trim(),
        "137",
    );
    let snap: Value = match serde_json::from_str(&json) {
        Ok(v) => v,
        Err(e) => {
            rep().check("cgroup/once.json parses", false, &e.to_string(), "JSON");
            return;
        }
    };
    rep().check(
        "the cgroups' window (interval_seconds) is the 4 s asked for",
        report::f(&snap, "cgroups.interval_seconds").is_some_and(|s| (3.5..6.0).contains(&s)),
        &report::show(report::at(&snap, "cgroups.interval_seconds")),
        "4 s",
    );
    for path in [HIGH, OOM] {
        one(&dir, &snap, path);
    }
    finding(&snap);
}

/// One cgroup's events, pressure and limits against its files.
fn one(dir: &Path, snap: &Value, path: &str) {
    let file = |when: &str, f: &str| {
        read(
            &dir.join(when)
                .join("sys/fs/cgroup")
                .join(&path[1..])
                .join(f),
        )
    };
    let row = report::at(snap, "cgroups.list").and_then(|l| {
        l.as_array()?
            .iter()
            .find(|c| c.get("path").and_then(Value::as_str) == Some(path))
    });
    let mut r = rep();
    let Some(row) = row else {
        r.check(&format!("cgroups.list has {path}"), false, "absent", path);
        return;
    };
    // Events: counts only rise, so zswaptop's read lies between the two; exact where they agree.
    for key in ["high", "max", "oom", "oom_kill", "oom_group_kill"] {
        let (b, a) = (
            file("before", "memory.events").and_then(|t| keyed(&t, key)),
            file("after", "memory.events").and_then(|t| keyed(&t, key)),
        );
        let zt = report::u(row, &format!("events.{key}"));
        let name = format!("cgroup {path} events.{key} vs memory.events {key}");
        if b.is_none() && a.is_none() {
            r.check(
                &format!("{name} (not in this kernel: null)"),
                zt.is_none(),
                &report::show(report::at(row, &format!("events.{key}"))),
                "null",
            );
            continue;
        }
        r.bracket(&name, zt, b, a, 0);
    }
    // What the window added: no more than the files moved, and for zt-oom's kill, exactly it.
    let moved = |key: &str| {
        Some(
            keyed(&file("after", "memory.events")?, key)?
                - keyed(&file("before", "memory.events")?, key)?,
        )
    };
    let new_kills = report::u(row, "events_new.oom_kill");
    if path == OOM {
        r.exact(
            &format!("cgroup {path} events_new.oom_kill: the kill in the window"),
            new_kills.map(i128::from),
            moved("oom_kill").map(i128::from),
        );
        r.check(
            &format!("cgroup {path} the OOM killer killed in it"),
            moved("oom_kill").is_some_and(|k| k >= 1),
            &format!("{:?}", moved("oom_kill")),
            ">= 1",
        );
    } else {
        r.bracket(
            &format!("cgroup {path} events_new.high within what the file moved"),
            report::u(row, "events_new.high"),
            Some(0),
            moved("high"),
            0,
        );
        r.check(
            &format!("cgroup {path} went over memory.high (memory.events high > 0)"),
            file("before", "memory.events")
                .and_then(|t| keyed(&t, "high"))
                .is_some_and(|h| h > 0),
            &format!(
                "{:?}",
                file("before", "memory.events").and_then(|t| keyed(&t, "high"))
            ),
            "> 0",
        );
    }
    // Pressure: totals only rise; avg10 moves by its 2 s updates.
    for line in ["some", "full"] {
        let (b, a) = (
            file("before", "memory.pressure").and_then(|t| pressure(&t, line)),
            file("after", "memory.pressure").and_then(|t| pressure(&t, line)),
        );
        if b.is_none() && a.is_none() {
            r.check(
                &format!("cgroup {path} pressure (no memory.pressure: null)"),
                report::is_null(row, "pressure"),
                &report::show(report::at(row, "pressure")),
                "null",
            );
            continue;
        }
        r.bracket(
            &format!("cgroup {path} pressure.{line}_total_us vs memory.pressure {line} total"),
            report::u(row, &format!("pressure.{line}_total_us")),
            b.map(|p| p.1),
            a.map(|p| p.1),
            0,
        );
        let zt = report::f(row, &format!("pressure.{line}_avg10"));
        let (lo, hi) = match (b, a) {
            (Some(b), Some(a)) => (b.0.min(a.0) - AVG10_SLACK, b.0.max(a.0) + AVG10_SLACK),
            _ => (f64::NAN, f64::NAN),
        };
        r.check(
            &format!("cgroup {path} pressure.{line}_avg10 vs memory.pressure {line} avg10 (±{AVG10_SLACK} points)"),
            zt.is_some_and(|z| z >= lo && z <= hi),
            &format!("{zt:?}"),
            &format!("{lo:.2}..{hi:.2}"),
        );
    }
    if path == HIGH {
        r.check(
            &format!("cgroup {path} stalled on memory (memory.pressure some total > 0)"),
            report::u(row, "pressure.some_total_us").is_some_and(|t| t > 0),
            &report::show(report::at(row, "pressure.some_total_us")),
            "> 0",
        );
    }
    // Limits: the files' values, and headroom = limit − the usage zswaptop read.
    for (key, f, usage) in [
        ("memory_high", "memory.high", "memory_current_bytes"),
        ("memory_max", "memory.max", "memory_current_bytes"),
        ("swap_max", "memory.swap.max", "swap_current_bytes"),
        ("zswap_max", "memory.zswap.max", "zswap_bytes"),
    ] {
        let want = file("before", f).and_then(|t| limit(&t));
        let name = format!("cgroup {path} limits.{key} vs {f}");
        let Some(want) = want else {
            r.check(
                &format!("{name} (no file: null)"),
                report::is_null(row, &format!("limits.{key}")),
                &report::show(report::at(row, &format!("limits.{key}"))),
                "null",
            );
            continue;
        };
        let got = report::at(row, &format!("limits.{key}.limit_bytes"));
        r.check(
            &name,
            match want {
                Some(b) => got.and_then(Value::as_u64) == Some(b),
                None => got.is_some_and(Value::is_null),
            },
            &report::show(got),
            &want.map_or("null (max)".to_string(), |b| b.to_string()),
        );
        if let (Some(l), Some(u)) = (want, report::u(row, usage)) {
            r.exact(
                &format!("cgroup {path} limits.{key}.headroom_bytes = {f} − {usage}"),
                report::i(row, &format!("limits.{key}.headroom_bytes")),
                Some(i128::from(l) - i128::from(u)),
            );
        }
    }
}

/// The cgroup-oom finding names zt-oom.
fn finding(snap: &Value) {
    let f = report::at(snap, "diagnostics").and_then(|d| {
        d.as_array()?
            .iter()
            .find(|f| f.get("id").and_then(Value::as_str) == Some("cgroup-oom"))
    });
    let summary = f
        .and_then(|f| f.get("summary"))
        .and_then(Value::as_str)
        .unwrap_or("(no cgroup-oom finding)");
    rep().check(
        "the cgroup-oom finding names /zt-oom",
        summary.contains(&format!("in {OOM}")),
        summary,
        OOM,
    );
}
