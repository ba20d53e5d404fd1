//! The listed processes' facts, where the processes were scanned (`--top N`, the processes
//! view): the one with the largest footprint (resident + swapped), the one whose swap takes the
//! most RAM compressed (an estimate, its basis said), and the one that maps the most swapped
//! shmem (or why that is unknown: smaps_rollup is read only when asked). The table of every
//! listed process stays the processes view's and `--top`'s. Labels are the registry's.

use super::{EVERYWHERE, Fact, Tone};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::metrics::{
    PROCESS_COMPRESSED_ESTIMATE_BYTES, PROCESS_FOOTPRINT_BYTES, PROCESS_SHMEM_SWAP_BYTES,
};
use crate::model::owners::{ProcessRow, Processes};

/// The facts, none where no process was scanned or none is listed.
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    let Some(p) = s
        .processes
        .as_ref()
        .filter(|p| p.unreadable.is_none() && !p.top.is_empty())
    else {
        return Vec::new();
    };
    vec![footprint(p), compressed(p), shmem(p)]
}

/// The listed process with the largest `v`, and it.
fn largest(p: &Processes, v: fn(&ProcessRow) -> Option<u64>) -> Option<(&ProcessRow, u64)> {
    p.top
        .iter()
        .filter_map(|r| Some((r, v(r)?)))
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.pid.cmp(&a.0.pid)))
}

/// `name (pid N)`.
fn who(r: &ProcessRow) -> String {
    format!("{} (pid {})", r.name, r.pid)
}

/// The fact `key` of process `r`'s `bytes`, said in full as `long`.
fn of(key: &'static str, label: &'static str, r: &ProcessRow, bytes: u64, long: String) -> Fact {
    let value = format!("{} {}", f::bytes(Some(bytes)), who(r));
    let short = format!("{} {} ({})", f::bytes_short(bytes), r.name, r.pid);
    let mut fact = Fact::labelled(key, label, value, short);
    fact.long = long;
    fact.tight = format!(
        "{label} {} {}",
        f::bytes_short(bytes),
        f::fit(&r.name, 15, false)
    );
    fact.depths = EVERYWHERE;
    fact
}

/// A fact whose figure is unknown, and why.
fn unknown(key: &'static str, label: &'static str, why: &str) -> Fact {
    let mut fact = Fact::labelled(key, label, f::MISSING.into(), f::MISSING.into());
    fact.long = format!("{label} {} ({why})", f::MISSING);
    fact.depths = EVERYWHERE;
    fact.tone(Tone::Dim)
}

fn footprint(p: &Processes) -> Fact {
    let (key, label) = ("processes.footprint", PROCESS_FOOTPRINT_BYTES.label);
    let Some((r, bytes)) = largest(p, |r| r.footprint_bytes) else {
        return unknown(key, label, "no listed process has VmRSS");
    };
    let long = format!(
        "{} has the largest {label}: {} ({} resident + {} swapped)",
        who(r),
        f::bytes(Some(bytes)),
        f::bytes(r.rss_bytes),
        f::bytes(Some(r.swap_bytes))
    );
    of(key, label, r, bytes, long)
}

fn compressed(p: &Processes) -> Fact {
    let (key, label) = (
        "processes.compressed",
        PROCESS_COMPRESSED_ESTIMATE_BYTES.label,
    );
    let Some((r, bytes)) = largest(p, |r| r.compressed_estimate_bytes) else {
        return unknown(
            key,
            label,
            "no compressed RAM or swap used to estimate from",
        );
    };
    let from = r.compressed_estimate_from.as_deref().unwrap_or("unknown");
    let long = format!(
        "{}'s swap takes the most RAM compressed: ~{} (estimated, {from})",
        who(r),
        f::bytes(Some(bytes))
    );
    of(key, label, r, bytes, long)
}

fn shmem(p: &Processes) -> Fact {
    let (key, label) = ("processes.shmem_swap", PROCESS_SHMEM_SWAP_BYTES.label);
    let Some((r, bytes)) = largest(p, |r| r.shmem_swap_bytes) else {
        let why = p
            .top
            .iter()
            .find_map(|r| r.smaps_missing.as_deref())
            .unwrap_or("smaps_rollup not read");
        return unknown(key, label, why);
    };
    if bytes == 0 {
        let mut fact = Fact::labelled(key, label, "none".into(), "none".into());
        fact.long = "no listed process maps swapped shared memory".into();
        fact.depths = EVERYWHERE;
        return fact.tone(Tone::Dim);
    }
    let long = format!(
        "{} maps the most swapped shared memory: {} (not in its VmSwap)",
        who(r),
        f::bytes(Some(bytes))
    );
    of(key, label, r, bytes, long)
}
