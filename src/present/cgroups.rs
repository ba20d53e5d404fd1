//! The cgroups' facts, where the tree was read (`--cgroups`, the cgroups view, a recording that
//! holds it): the cgroup nearest one of its limits and its headroom, the OOM kills (in the window
//! where there is one) naming the deepest cgroups they were in, and the cgroup whose tasks
//! stall on memory most. The table of every cgroup stays the cgroups view's and `--cgroups`'.
//! A tree that could not be read, or a v1 tree's missing figures, say why.

use super::{EVERYWHERE, Fact, Tone};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::owners::{CgroupRow, Cgroups};

/// How many cgroups a fact names one by one (the rest are counted).
const NAMED: usize = 2;

/// The facts, none where the tree was not read.
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    let Some(t) = s.cgroups.as_ref().filter(|t| t.available) else {
        return Vec::new();
    };
    let near = s.diagnostics.iter().find(|d| d.id == "cgroup-near-limit");
    vec![
        nearest(t, near.map(|d| super::findings::tone(d.severity))),
        oom_kills(t),
        pressure(t),
    ]
}

/// A fact said everywhere, its phrases set apart from its label.
fn fact(key: &'static str, label: &'static str, value: String, short: String) -> Fact {
    let mut fact = Fact::labelled(key, label, value, short);
    fact.depths = EVERYWHERE;
    fact
}

/// `path` and how many more: `/a, /b and 3 more`.
fn named(rows: &[(&CgroupRow, u64)]) -> String {
    let mut out = rows
        .iter()
        .take(NAMED)
        .map(|(r, _)| r.path.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if rows.len() > NAMED {
        out.push_str(&format!(" and {} more", rows.len() - NAMED));
    }
    out
}

/// The cgroup whose set limit has the least headroom for its size: `/db memory.max 8.0 MiB,
/// headroom 120 KiB (1.5%)`. Toned as the `cgroup-near-limit` finding, when it fires.
fn nearest(t: &Cgroups, finding: Option<Tone>) -> Fact {
    let Some((r, file, l)) = t.nearest_limit() else {
        let why = if t.limits_missing.is_some() {
            "no memory.max set (cgroup v1 has no other limit)"
        } else {
            "no cgroup has a limit set"
        };
        let mut fact = fact(
            "cgroups.nearest_limit",
            "nearest a limit",
            why.into(),
            "none".into(),
        );
        fact.long = format!("cgroups: {why}");
        fact.tight = "no limit".into();
        return fact.tone(Tone::Dim);
    };
    let share = f::percent(l.headroom_share.map(|s| s * 100.0));
    let value = format!(
        "{} {file} {}, headroom {} ({share})",
        r.path,
        f::bytes(l.limit_bytes),
        f::bytes_signed(l.headroom_bytes)
    );
    let room = match l.headroom_bytes {
        Some(h) if h < 0 => format!("-{}", f::bytes_short(h.unsigned_abs())),
        h => f::bytes_short_opt(h.map(i64::unsigned_abs)),
    };
    let short = format!("{} {file} {room} left", r.path);
    let mut fact = fact("cgroups.nearest_limit", "nearest a limit", value, short);
    fact.long = format!(
        "{} is the cgroup nearest a limit: {file} {}, {} used, headroom {} ({share})",
        r.path,
        f::bytes(l.limit_bytes),
        f::bytes(l.usage_bytes),
        f::bytes_signed(l.headroom_bytes)
    );
    let file_short = file.strip_prefix("memory.").unwrap_or(file);
    fact.tight = format!("{} {file_short} {room} left", f::fit(&r.path, 28, false));
    match finding {
        Some(tone) => fact.tone(tone),
        None => fact,
    }
}

/// The OOM kills: over the window where there is one (a kill there is serious), else the
/// counts since each cgroup was made; the deepest cgroups named.
fn oom_kills(t: &Cgroups) -> Fact {
    let window = t.interval_seconds;
    let hit = match window {
        Some(_) => t.deepest_with(|r| r.events_new.and_then(|e| e.oom_kill)),
        None => t.deepest_with(|r| r.events.and_then(|e| e.oom_kill)),
    };
    let when = window.map_or("since each cgroup was made".to_string(), |s| {
        format!("in the last {s:.1} s")
    });
    if hit.is_empty() {
        let value = format!("none {when}");
        let mut fact = fact("cgroups.oom_kills", "OOM kills", value, "none".into());
        fact.long = format!("no OOM kill in any cgroup {when}");
        fact.tight = "no OOM kill".into();
        return fact.tone(Tone::Dim);
    }
    let kills: u64 = hit.iter().map(|(_, n)| n).sum();
    let value = format!("{kills} in {} {when}", named(&hit));
    let short = format!("{kills} in {}", named(&hit));
    let mut fact = fact("cgroups.oom_kills", "OOM kills", value, short);
    fact.long = format!(
        "the OOM killer killed {kills} process{} in {} {when}",
        if kills == 1 { "" } else { "es" },
        named(&hit)
    );
    fact.tight = format!("OOM {kills} {}", f::fit(&hit[0].0.path, 24, false));
    fact.tone(if window.is_some() {
        Tone::Crit
    } else {
        Tone::Warn
    })
}

/// The cgroup whose tasks stalled on memory most over the last 10 s (memory.pressure).
fn pressure(t: &Cgroups) -> Fact {
    let Some((r, p)) = t.most_pressed() else {
        let why = t
            .pressure_missing
            .as_ref()
            .map_or("no cgroup has memory.pressure".to_string(), |r| r.text());
        let mut fact = fact(
            "cgroups.pressure",
            "highest pressure",
            f::MISSING.into(),
            f::MISSING.into(),
        );
        fact.long = format!("cgroup pressure {} ({why})", f::MISSING);
        fact.tight = format!("PSI {}", f::MISSING);
        return fact.tone(Tone::Dim);
    };
    let figures = format!("some {:.2}% full {:.2}%", p.some_avg10, p.full_avg10);
    let value = format!("{} {figures}", r.path);
    let mut fact = fact("cgroups.pressure", "highest pressure", value.clone(), value);
    fact.long = format!("{} stalls on memory most: avg10 {figures}", r.path);
    fact.tight = format!("{} PSI {:.1}%", f::fit(&r.path, 24, false), p.some_avg10);
    if p.some_avg10 == 0.0 {
        fact.long = "no cgroup stalled on memory over the last 10 s".into();
        fact.value = "0.00% in every cgroup".into();
        fact.value_short = fact.value.clone();
        fact.short = format!("highest pressure {}", fact.value);
        fact.tight = "PSI 0%".into();
        return fact.tone(Tone::Dim);
    }
    match p {
        p if p.full_avg10 >= 10.0 => fact.tone(Tone::Crit),
        p if p.some_avg10 >= 10.0 => fact.tone(Tone::Warn),
        _ => fact,
    }
}
