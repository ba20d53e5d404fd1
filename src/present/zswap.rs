//! zswap's facts: whether it is on, its pool against its limit, what it stores and how well
//! that compresses, and what it wrote back to disk.

use super::{Depth, Fact, Tone};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::metrics;

/// The pool's share of its limit (`10%`), where the kernel says both.
pub fn limit_used(s: &Snapshot) -> Option<String> {
    match s.zswap.pool_limit_used_percent {
        Some(p) if p.is_finite() => Some(format!("{p:.0}%")),
        _ => None,
    }
}

/// The pool's compression ratio (stored ÷ pool) where it says how pages compress, else why not
/// ([`f::pool_ratio`]: nothing stored, or under 1 MiB, too little to tell).
pub fn ratio(s: &Snapshot) -> Result<f64, &'static str> {
    f::pool_ratio(s.zswap.compression_ratio, s.zswap.stored_bytes)
}

/// The pool and its limit short, with the same precision ("241.0M of 241.1M", "7.5M of
/// 230.0M"): the two are said together.
pub fn pool_and_limit_short(s: &Snapshot) -> [String; 2] {
    let pool = metrics::ZSWAP_POOL_BYTES.value(s).map(|v| v as u64);
    f::bytes_short_alike([pool, s.zswap.pool_limit_bytes])
}

/// Whether zswap is on: `on`, `off`, or the missing mark.
pub fn state(s: &Snapshot) -> Fact {
    let z = &s.zswap;
    let value = f::on_off(z.enabled).to_string();
    let tone = match z.enabled {
        Some(true) => Tone::Ok,
        Some(false) => Tone::Warn,
        None => Tone::Dim,
    };
    Fact::labelled("zswap.state", "zswap", value.clone(), value).tone(tone)
}

/// What zswap wrote back to disk since boot, in bytes: vmstat zswpwb, else debugfs
/// written_back_pages.
fn written_back_bytes(s: &Snapshot) -> Option<u64> {
    [metrics::ZSWPWB, metrics::WRITTEN_BACK_PAGES]
        .into_iter()
        .find_map(|m| m.raw(s))
        .map(|p| (p as u64).saturating_mul(s.page_size.bytes))
}

/// Every fact of the section: none for a kernel without zswap. Of a zswap that is off and holds
/// nothing, the one screen says only that it is off; the full report and the dashboard still
/// show its (empty) pool.
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    let z = &s.zswap;
    if !z.available {
        return Vec::new();
    }
    let mut out = pool_facts(s);
    if z.enabled == Some(false) && z.pool_bytes.unwrap_or(0) == 0 {
        for f in &mut out {
            f.depths = &[Depth::Full, Depth::Dashboard];
        }
    }
    out.insert(0, state(s));
    out
}

/// The pool, what it stores, how well, and what it wrote back.
fn pool_facts(s: &Snapshot) -> Vec<Fact> {
    let mut out = Vec::new();
    let pool = metrics::ZSWAP_POOL_BYTES;
    let pool_bytes = pool.value(s).map(|v| v as u64);
    let [short, _] = pool_and_limit_short(s);
    out.push(Fact::labelled(
        "zswap.pool",
        pool.label,
        f::bytes(pool_bytes),
        short,
    ));
    let stored = metrics::ZSWAP_STORED_BYTES;
    let stored_bytes = stored.value(s).map(|v| v as u64);
    out.push(Fact::labelled(
        "zswap.stored",
        stored.label,
        f::bytes(stored_bytes),
        f::bytes_short_opt(stored_bytes),
    ));
    let (value, why) = match ratio(s) {
        Ok(r) => (f::ratio(Some(r)), None),
        Err(why) => (f::MISSING.to_string(), Some(why)),
    };
    let mut fact =
        Fact::labelled("zswap.ratio", "ratio", value.clone(), value.clone()).tight(value);
    if let Some(why) = why {
        fact.long = format!("{} ({why})", fact.long);
    }
    out.push(fact);
    let wb = written_back_bytes(s);
    // The writeback series' legend name, for when the words do not fit.
    let legend = metrics::ZSWPWB.series.map_or("wb", |x| x.short);
    let short = f::bytes_short_opt(wb);
    let tight = format!("{legend} {short}");
    out.push(
        Fact::labelled("zswap.written_back", "written back", f::bytes(wb), short).tight(tight),
    );
    // Of the pages zswap stored since boot, the share it wrote back to disk (vmstat).
    let share = match (metrics::ZSWPWB.raw(s), metrics::ZSWPOUT.raw(s)) {
        (Some(wb), Some(stored)) if stored > 0.0 => Some(wb * 100.0 / stored),
        _ => None,
    };
    let share = f::percent(share);
    let mut fact = Fact::labelled(
        "zswap.written_back_share",
        "stores written back",
        share.clone(),
        share.clone(),
    )
    // Tight: it follows the written-back bytes ("wb 12M (3.1% of stores)"), never a second "wb".
    .tight(format!("({share} of stores)"));
    fact.short = format!("{share} of stores written back");
    out.push(fact);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An all but empty pool (8 KiB stored in a 24 KiB pool, as on an idle host) has no ratio
    /// to say: the allocator's first pages are not how pages compress.
    #[test]
    fn an_all_but_empty_pool_has_no_ratio() {
        let root = crate::root::Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-pcp"
        ));
        let s = crate::pipeline::snapshot(&crate::sources::collect(&root), None);
        assert_eq!(s.zswap.stored_bytes, Some(8 * 1024));
        assert!(s.zswap.compression_ratio.is_some_and(|r| r < 1.0));
        assert_eq!(ratio(&s), Err("too little stored to tell"));
        let f = facts(&s);
        let r = crate::present::find(&f, "zswap.ratio").unwrap();
        assert_eq!(r.value, f::MISSING);
        assert!(r.long.contains("too little stored"), "{}", r.long);
        // Nor do the capacity figures take its 0.33:1: they assume the empty pool's ratio.
        assert!(s.capacity.ratio_assumed);
        assert_eq!(
            s.capacity.ratio,
            Some(crate::model::capacity::ASSUMED_RATIO)
        );
        let watch = crate::report::lines::Columns::of(&s);
        assert!(!watch.row(&s).contains("0.33"), "{}", watch.row(&s));
    }
}
