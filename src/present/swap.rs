//! Swap's facts: how much is used of all swap, and where the used swap is (in zswap, in the
//! swap cache, in zram, on disk or zero-filled). Sizes as [`super::memory`] says: the short
//! form on the one screen, the long form in `--full` and on the dashboard.

use super::{Depth, Fact, Tone};
use crate::display as f;
use crate::model::Snapshot;

/// Whether there is swap at all (a size, or an area listed).
pub fn has_swap(s: &Snapshot) -> bool {
    s.swap.total_bytes.unwrap_or(0) > 0 || !s.swap.devices.is_empty()
}

/// How much of all swap is used: "1.0 GiB used of 2.0 GiB", short "1G used of 2G", tight
/// "1G/2G" (the two short sizes with the same precision).
fn used(s: &Snapshot) -> Fact {
    let w = &s.swap;
    let [u, t] = f::bytes_short_alike([w.used_bytes, w.total_bytes]);
    let mut fact = Fact::labelled("swap.used", "used", f::bytes(w.used_bytes), u.clone());
    fact.long = format!("{} used of {}", fact.value, f::bytes(w.total_bytes));
    fact.short = format!("{u} used of {t}");
    fact.tight = format!("{u}/{t}");
    fact
}

/// Where the used swap is, a fact each: the label in full (`in zswap`), the fewest words
/// (`zswap`).
const SPLIT: [(&str, &str, &str); 4] = [
    ("swap.in_zswap", "in zswap", "zswap"),
    ("swap.in_swap_cache", "in SwapCached", "SwapCached"),
    ("swap.in_zram", "in zram", "zram"),
    ("swap.not_in_ram", "on disk or zero-filled", "disk or zero"),
];

/// Every fact of the section; none without swap (the outputs say there is none). "in zram" is
/// said where a zram device is swap (or holds swap); a part that holds nothing is left off the
/// one screen.
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    if !has_swap(s) {
        return Vec::new();
    }
    let w = &s.swap;
    let zram = w.devices.iter().any(|d| d.is_zram) || w.in_zram_bytes.unwrap_or(0) > 0;
    let mut out = vec![used(s)];
    let values = [
        w.in_zswap_bytes,
        w.in_swap_cache_bytes,
        w.in_zram_bytes,
        w.not_in_ram_bytes,
    ];
    for ((key, label, tight), v) in SPLIT.into_iter().zip(values) {
        if key == "swap.in_zram" && !zram {
            continue;
        }
        let short = f::bytes_short_opt(v);
        let mut fact = Fact::labelled(key, label, f::bytes(v), short.clone())
            .tight(format!("{tight} {short}"));
        if v == Some(0) {
            fact.depths = &[Depth::Full, Depth::Dashboard];
        }
        if v.is_none() {
            fact = fact.tone(Tone::Dim);
        }
        out.push(fact);
    }
    out
}

/// The facts of where the used swap is (all but the headline).
pub fn split(facts: &[Fact]) -> impl Iterator<Item = &Fact> {
    facts.iter().filter(|f| f.key != "swap.used")
}
