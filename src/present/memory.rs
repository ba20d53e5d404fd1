//! Real memory's facts: the total, what `free` calls used and what is available, and each of
//! the breakdown's buckets with its size.
//!
//! Sizes: every output words a size one way at each depth. The one screen uses the short form
//! (`498.7M`) throughout — the form its ZSWAP, SWAP and area lines need to keep to 80 columns,
//! so MEMORY follows them rather than mixing `498.7M` and `498.7 MiB` on one screen; `--full`
//! and the dashboard (which have the room) the long form with its binary unit (`498.7 MiB`). A
//! fact carries both: [`Fact::value`] and its phrases `long` for the long form, `value_short`,
//! `short` and `tight` for the short one.

use super::{Depth, EVERYWHERE, Fact};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::memory::BUCKETS;
use crate::model::metrics;

/// What `free` calls used (the compressed pools inside): "free says 1.2 GiB used" in full,
/// "used 1.2G (as free says)" short.
fn used(s: &Snapshot) -> Fact {
    let v = s.memory.free_cmd_used_bytes;
    let label = metrics::MEMORY_USED_BYTES.label;
    let short = f::bytes_short_opt(v);
    let mut fact = Fact::labelled("memory.used", label, f::bytes(v), short.clone());
    fact.long = format!("free says {} {label}", fact.value);
    fact.short = format!("{label} {short} (as free says)");
    fact.tight = format!("{label} {short} (free)");
    fact
}

/// What is available for new work without swapping.
fn available(s: &Snapshot) -> Fact {
    let v = s.memory.available_bytes;
    let short = f::bytes_short_opt(v);
    let mut fact = Fact::labelled(
        "memory.available",
        metrics::MEMORY_AVAILABLE_BYTES.label,
        f::bytes(v),
        short.clone(),
    );
    fact.long = format!("available {}", fact.value);
    fact.short = format!("available {short}");
    fact
}

/// A bucket's size: signed for the unaccounted rest (the counters can overlap), else whole.
fn bucket_size(key: &str, v: Option<i64>) -> (String, String) {
    match v {
        None => (f::MISSING.to_string(), f::MISSING.to_string()),
        Some(v) if key == "unaccounted" && v < 0 => (
            f::bytes_signed(Some(v)),
            format!("-{}", f::bytes_short(v.unsigned_abs())),
        ),
        Some(v) => (
            f::bytes_raw(v.unsigned_abs()),
            f::bytes_short(v.unsigned_abs()),
        ),
    }
}

/// A bucket's share of the total (`2.1%`), or the missing mark.
pub fn share(s: &Snapshot, v: Option<i64>) -> String {
    f::percent(v.and_then(|v| f::share(Some(v.max(0).unsigned_abs()), s.memory.total_bytes)))
}

/// Every fact of the section: the headline figures, then a fact a bucket (its key is the
/// bucket's, `zswap_pool`), in the breakdown's order. A bucket that holds nothing is listed in
/// `--full` only (the one screen names it on its "zero:" line, which gives way first); one
/// that is unknown is said where the buckets are listed whole (the dashboard's legend shows
/// the buckets that hold something).
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    let m = &s.memory;
    let mut out = vec![
        Fact::labelled(
            "memory.total",
            "total",
            f::bytes(m.total_bytes),
            f::bytes_short_opt(m.total_bytes),
        ),
        used(s),
        available(s),
    ];
    let Some(b) = &m.breakdown else {
        return out;
    };
    for ((_, v), info) in b.buckets().iter().zip(BUCKETS.iter()) {
        let (value, value_short) = bucket_size(info.key, *v);
        let mut fact = Fact::labelled(info.key, info.label, value, value_short);
        fact.depths = match v {
            Some(0) => &[Depth::Full],
            None => &[Depth::OneScreen, Depth::Full],
            Some(_) => EVERYWHERE,
        };
        out.push(fact);
    }
    out
}

/// The facts of the buckets (those after the headline's three), in the breakdown's order,
/// each with its bucket.
pub fn buckets(facts: &[Fact]) -> Vec<(&Fact, &'static crate::model::memory::Bucket)> {
    BUCKETS
        .iter()
        .filter_map(|info| Some((super::find(facts, info.key)?, info)))
        .collect()
}

/// The sentence on what `free` calls used, in three pieces (the words before the pools'
/// figure, the figure, the words after) so a front end can set the figure apart: "free says
/// 1.2 GiB used — 498.7 MiB of it is compressed swap".
pub fn free_says(s: &Snapshot) -> [String; 3] {
    let m = &s.memory;
    [
        format!("{} — ", used(s).long),
        f::bytes(m.hidden_in_used_bytes),
        " of it is compressed swap".to_string(),
    ]
}

/// The rest of what `free`'s "used" hides: the free pages on the per-CPU lists (`None` when
/// zoneinfo was not read).
pub fn free_says_pcp(pcp_free: Option<u64>) -> Option<String> {
    pcp_free.map(|p| {
        format!(
            "and {} of it is free pages on the per-CPU lists",
            f::bytes(Some(p))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded() -> Snapshot {
        let root = crate::root::Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-loaded"
        ));
        crate::pipeline::snapshot(&crate::sources::collect(&root), None)
    }

    #[test]
    fn free_says_line() {
        let mut s = loaded();
        s.memory.free_cmd_used_bytes = Some(1 << 30);
        s.memory.hidden_in_used_bytes = Some(512 << 20);
        assert_eq!(
            free_says(&s).concat(),
            "free says 1.0 GiB used — 512.0 MiB of it is compressed swap"
        );
        assert_eq!(
            free_says_pcp(Some(3 << 20)).as_deref(),
            Some("and 3.0 MiB of it is free pages on the per-CPU lists")
        );
        assert_eq!(free_says_pcp(None), None);
        (s.memory.free_cmd_used_bytes, s.memory.hidden_in_used_bytes) = (None, None);
        assert_eq!(
            free_says(&s).concat(),
            "free says — used — — of it is compressed swap"
        );
    }

    /// One size a fact, in a form for each depth: the long form with its binary unit, the
    /// short form in its short phrases (the one screen's), never the two mixed in a phrase.
    #[test]
    fn sizes_in_one_form_a_depth() {
        let s = loaded();
        for fact in facts(&s) {
            if fact.value == f::MISSING {
                continue;
            }
            assert!(fact.value.ends_with('B'), "{fact:?}");
            assert!(!fact.value_short.ends_with('B'), "{fact:?}");
            assert!(
                !fact.short.contains("iB") && !fact.tight.contains("iB"),
                "{fact:?}"
            );
        }
    }
}
