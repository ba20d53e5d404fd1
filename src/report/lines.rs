//! `--watch` as text: one row per interval, vmstat-style, under a two-line header (the column
//! names, then their units, so the rows hold bare numbers). The columns are catalogue metrics
//! ([`COLUMNS`]), after the time.

use crate::display as f;
use crate::model::Snapshot;
use crate::model::metrics::{self, Kind, Metric, Unit};

/// The columns after the time, by catalogue id.
pub const COLUMNS: &[&str] = &[
    "memory_used_bytes",
    "memory_available_bytes",
    "zswap_pool_bytes",
    "zswap_stored_bytes",
    "zswap_compression_ratio",
    "zswap_pool_full_seconds",
    "zswpout",
    "zswpin",
    "zswpwb",
    "pswpin",
    "pswpout",
    "psi_some_avg10",
];

/// The time column: local wall-clock time.
const TIME: (&str, &str, usize) = ("time", "hh:mm:ss", 8);

/// Narrowest numeric column: "pending" fits.
const MIN_WIDTH: usize = f::PENDING.len();

const MIB: f64 = 1024.0 * 1024.0;
const KIB: f64 = 1024.0;

fn columns() -> impl Iterator<Item = &'static Metric> {
    COLUMNS.iter().filter_map(|id| metrics::get(id))
}

/// A column's name: a counter by its kernel name, a gauge by its legend name.
fn name(m: &Metric) -> &'static str {
    match (m.kind, m.series) {
        (Kind::Gauge, Some(s)) => s.short,
        _ => m.label,
    }
}

/// The unit a column's numbers are in, and what one of its [`Metric::value`] is in it.
fn unit(m: &Metric) -> (&'static str, f64) {
    match m.shown_unit() {
        Unit::Bytes | Unit::Pages => ("MiB", MIB),
        Unit::BytesPerSec => ("KiB/s", KIB),
        Unit::Ratio => (":1", 1.0),
        Unit::Share => ("%", 0.01),
        Unit::Percent => ("%", 1.0),
        Unit::Seconds => ("s", 1.0),
        Unit::Milliseconds => ("ms", 1.0),
        Unit::Microseconds => ("µs/s", 1.0),
        Unit::Events => ("/s", 1.0),
        Unit::Number => ("", 1.0),
    }
}

fn width(m: &Metric) -> usize {
    name(m).chars().count().max(MIN_WIDTH)
}

/// The two header lines: names, then units.
pub fn header() -> [String; 2] {
    let mut names = format!("{:>w$}", TIME.0, w = TIME.2);
    let mut units = format!("{:>w$}", TIME.1, w = TIME.2);
    for m in columns() {
        let w = width(m);
        names.push_str(&format!(" {:>w$}", name(m)));
        units.push_str(&format!(" {:>w$}", unit(m).0));
    }
    [names, units]
}

/// A number in a column: one decimal under 100, none above; ratios and percentages with two.
fn number(v: f64, unit: &str) -> String {
    match unit {
        ":1" | "%" => format!("{v:.2}"),
        _ if v.abs() < 100.0 => format!("{v:.1}"),
        _ => format!("{v:.0}"),
    }
}

/// One row for `snap`. Rates read "pending" until a second sample exists (never 0); a value the
/// kernel does not give is the missing mark.
pub fn row(snap: &Snapshot) -> String {
    let time = snap
        .timestamp
        .parse::<jiff::Timestamp>()
        .map(|t| {
            t.to_zoned(jiff::tz::TimeZone::system())
                .strftime("%H:%M:%S")
                .to_string()
        })
        .unwrap_or_else(|_| f::MISSING.to_string());
    let mut line = format!("{time:>w$}", w = TIME.2);
    for m in columns() {
        let (u, per) = unit(m);
        let cell = match m.value(snap) {
            Some(v) => number(v / per, u),
            None if m.kind == Kind::Counter && snap.rates.is_none() => f::PENDING.to_string(),
            None => f::MISSING.to_string(),
        };
        line.push_str(&format!(" {cell:>w$}", w = width(m)));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;
    use crate::sources;

    #[test]
    fn every_column_is_in_the_catalogue() {
        for id in COLUMNS {
            assert!(metrics::get(id).is_some(), "{id}");
        }
    }

    fn snaps() -> (Snapshot, Snapshot) {
        let root = Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-loaded"
        ));
        let a = sources::collect(&root);
        let mut b = a.clone();
        b.monotonic_ns += 1_000_000_000;
        if let Ok(v) = b.vmstat.as_mut() {
            v.zswpout = v.zswpout.map(|n| n + 256);
        }
        (Snapshot::derive(&a, None), Snapshot::derive(&b, Some(&a)))
    }

    #[test]
    fn the_first_row_says_pending_never_zero() {
        let (first, second) = snaps();
        let [names, units] = header();
        let r1 = row(&first);
        let r2 = row(&second);
        for l in [&names, &units, &r1, &r2] {
            assert_eq!(l.chars().count(), names.chars().count(), "{l}");
        }
        assert_eq!(r1.matches(f::PENDING).count(), 5, "{r1}");
        assert!(!r2.contains(f::PENDING), "{r2}");
        // 256 pages of 4 KiB in one second: 1024 KiB/s under zswpout.
        // In characters: a cell may hold the missing mark, more than one byte.
        let at = names[..names.find("zswpout").unwrap()].chars().count() + "zswpout".len();
        let upto: String = r2.chars().take(at).collect();
        assert_eq!(upto.trim_end().rsplit(' ').next(), Some("1024"), "{r2}");
        assert!(units.contains("MiB") && units.contains("KiB/s") && units.contains('%'));
    }
}
