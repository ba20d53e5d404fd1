//! `--watch` as text: one row per interval, vmstat-style, under a two-line header (the column
//! names, then their units, so the rows hold bare numbers). The first column is the sample's
//! date and time (ISO 8601, local, with its offset: a row read from a log says when it was);
//! the others are [`COLUMNS`], each with one number style (a fixed number of decimals), and the
//! zram column only where a zram device is set up, and the 99th percentile of each swap-in tier
//! (µs) only where the BPF programs run (`sources::bpf`).

use crate::display as f;
use crate::model::Snapshot;
use crate::model::metrics;
use crate::present::swapin;

/// The time column's name, unit and width (`2026-11-26T05:31:13+01:00`).
const TIME: (&str, &str, usize) = ("time", "local", 25);

/// Narrowest numeric column: "pending" fits.
const MIN_WIDTH: usize = f::PENDING.len();

const MIB: f64 = 1024.0 * 1024.0;
const KIB: f64 = 1024.0;

/// Where a column's value comes from.
#[derive(Debug, Clone, Copy)]
enum Read {
    /// A registry figure's [`metrics::Metric::value`] (a level, or a counter's rate).
    Metric(&'static metrics::Metric),
    /// A figure of the snapshot.
    Snapshot(fn(&Snapshot) -> Option<f64>),
}

/// A column after the time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column {
    pub name: &'static str,
    pub unit: &'static str,
    /// What one of the value is in the unit.
    per: f64,
    decimals: usize,
    /// A rate, which reads "pending" until a second sample exists.
    rate: bool,
    read: Read,
    /// Shown only where a zram device is set up.
    zram: bool,
    /// Shown only where the swap-in latency programs run.
    bpf: bool,
}

const fn col(
    name: &'static str,
    unit: &'static str,
    per: f64,
    decimals: usize,
    rate: bool,
    read: Read,
) -> Column {
    Column {
        name,
        unit,
        per,
        decimals,
        rate,
        read,
        zram: false,
        bpf: false,
    }
}

/// A tier's 99th-percentile swap-in time, in µs (BPF).
const fn p99(name: &'static str, read: fn(&Snapshot) -> Option<f64>) -> Column {
    Column {
        bpf: true,
        ..col(name, "us", 1.0, 0, true, Read::Snapshot(read))
    }
}

/// Every column after the time: memory, the zswap pool, zswap's traffic, its refusals (pool
/// limit hits, pages that went to disk without passing through it), swap I/O, where the swap
/// is, and memory pressure.
pub(crate) const COLUMNS: &[Column] = &[
    col(
        "used",
        "MiB",
        MIB,
        1,
        false,
        Read::Metric(metrics::MEMORY_USED_BYTES),
    ),
    col(
        "avail",
        "MiB",
        MIB,
        1,
        false,
        Read::Metric(metrics::MEMORY_AVAILABLE_BYTES),
    ),
    col(
        "pool",
        "MiB",
        MIB,
        1,
        false,
        Read::Metric(metrics::ZSWAP_POOL_BYTES),
    ),
    col(
        "stored",
        "MiB",
        MIB,
        1,
        false,
        Read::Metric(metrics::ZSWAP_STORED_BYTES),
    ),
    col(
        "ratio",
        ":1",
        1.0,
        2,
        false,
        // The missing mark where too little is stored to tell (an all but empty pool).
        Read::Snapshot(|s| crate::present::zswap::ratio(s).ok()),
    ),
    // The time until the pool reaches its limit at the rate over the forecast's window; the
    // missing mark when it is not filling (or with one sample).
    col(
        "poolfull",
        "s",
        1.0,
        0,
        false,
        Read::Metric(metrics::ZSWAP_POOL_FULL_SECONDS),
    ),
    col(
        "zswpout",
        "KiB/s",
        KIB,
        0,
        true,
        Read::Metric(metrics::ZSWPOUT),
    ),
    col(
        "zswpin",
        "KiB/s",
        KIB,
        0,
        true,
        Read::Metric(metrics::ZSWPIN),
    ),
    col(
        "zswpwb",
        "KiB/s",
        KIB,
        0,
        true,
        Read::Metric(metrics::ZSWPWB),
    ),
    col(
        "limhit",
        "/s",
        1.0,
        1,
        true,
        Read::Metric(metrics::POOL_LIMIT_HIT),
    ),
    col(
        "bypass",
        "KiB/s",
        KIB,
        0,
        true,
        Read::Metric(metrics::BYPASSED_ZSWAP_BYTES_PER_SEC),
    ),
    col(
        "pswpin",
        "KiB/s",
        KIB,
        0,
        true,
        Read::Metric(metrics::PSWPIN),
    ),
    col(
        "pswpout",
        "KiB/s",
        KIB,
        0,
        true,
        Read::Metric(metrics::PSWPOUT),
    ),
    col(
        "swap",
        "MiB",
        MIB,
        1,
        false,
        Read::Snapshot(|s| s.swap.used_bytes.map(|v| v as f64)),
    ),
    col(
        "ondisk",
        "MiB",
        MIB,
        1,
        false,
        Read::Snapshot(|s| s.swap.not_in_ram_bytes.map(|v| v as f64)),
    ),
    Column {
        zram: true,
        ..col(
            "zram",
            "MiB",
            MIB,
            1,
            false,
            Read::Snapshot(|s| s.swap.in_zram_bytes.map(|v| v as f64)),
        )
    },
    col(
        "some",
        "%",
        1.0,
        2,
        false,
        Read::Metric(metrics::PSI_SOME_AVG10),
    ),
    p99("p99zswap", |s| swapin::p99_us(s, "zswap")),
    p99("p99zram", |s| swapin::p99_us(s, "zram")),
    p99("p99disk", |s| swapin::p99_us(s, "disk")),
    p99("p99cache", |s| swapin::p99_us(s, "swapcache")),
    p99("p99zero", |s| swapin::p99_us(s, "zero")),
];

impl Column {
    fn width(&self) -> usize {
        self.name.len().max(self.unit.len()).max(MIN_WIDTH)
    }

    fn value(&self, s: &Snapshot) -> Option<f64> {
        match self.read {
            Read::Metric(m) => m.value(s),
            Read::Snapshot(f) => f(s),
        }
        .filter(|v| v.is_finite())
    }

    fn cell(&self, s: &Snapshot) -> String {
        match self.value(s) {
            Some(v) => format!("{:.*}", self.decimals, v / self.per),
            None if self.rate && s.rates.is_none() => f::PENDING.to_string(),
            None => f::MISSING.to_string(),
        }
    }
}

/// The columns of a run, chosen from its first snapshot (the zram column where a device is set
/// up); every row of the run has them.
#[derive(Debug, Clone)]
pub struct Columns(Vec<Column>);

impl Columns {
    pub fn of(first: &Snapshot) -> Columns {
        let zram = first.zram.iter().any(|z| z.initialized != Some(false));
        Columns(
            COLUMNS
                .iter()
                .filter(|c| !c.zram || zram)
                .filter(|c| !c.bpf || first.swapin_latency.running)
                .copied()
                .collect(),
        )
    }

    /// The two header lines: names, then units.
    pub fn header(&self) -> [String; 2] {
        let mut names = format!("{:<w$}", TIME.0, w = TIME.2);
        let mut units = format!("{:<w$}", TIME.1, w = TIME.2);
        for c in &self.0 {
            let w = c.width();
            names.push_str(&format!(" {:>w$}", c.name));
            units.push_str(&format!(" {:>w$}", c.unit));
        }
        [names, units]
    }

    /// One row for `snap`. Rates read "pending" until a second sample exists (never 0); a
    /// value the kernel does not give is the missing mark.
    pub fn row(&self, snap: &Snapshot) -> String {
        let mut line = format!("{:<w$}", stamp(snap), w = TIME.2);
        for c in &self.0 {
            line.push_str(&format!(" {:>w$}", c.cell(snap), w = c.width()));
        }
        line
    }
}

/// The sample's time in ISO 8601, local, to the second, with the offset.
fn stamp(snap: &Snapshot) -> String {
    snap.timestamp
        .parse::<jiff::Timestamp>()
        .map(|t| {
            t.to_zoned(jiff::tz::TimeZone::system())
                .strftime("%Y-%m-%dT%H:%M:%S%:z")
                .to_string()
        })
        .unwrap_or_else(|_| f::MISSING.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::metrics::Kind;
    use crate::root::Root;
    use crate::sources;

    #[test]
    fn every_column_reads_the_catalogue_and_rates_are_rates() {
        for c in COLUMNS {
            if let Read::Metric(m) = c.read {
                let id = m.id;
                // A rate column is a counter's rate or a figure already per second.
                assert_eq!(
                    c.rate,
                    m.kind == Kind::Counter || m.shown_unit() == metrics::Unit::BytesPerSec,
                    "{id}"
                );
            }
        }
    }

    fn snaps(tree: &str) -> (Snapshot, Snapshot) {
        let root = Root::at(format!(
            "{}/tests/fixtures/{tree}",
            env!("CARGO_MANIFEST_DIR")
        ));
        let a = sources::collect(&root);
        let mut b = a.clone();
        b.monotonic_ns += 1_000_000_000;
        if let Ok(v) = b.vmstat.as_mut() {
            v.zswpout = v.zswpout.map(|n| n + 256);
        }
        (Snapshot::derive(&a, None), Snapshot::derive(&b, Some(&a)))
    }

    /// The number under `name` in `row`.
    /// The value in `row` under the column `name`, counted in characters: a cell may hold the
    /// missing mark, more than one byte.
    fn under(names: &str, row: &str, name: &str) -> String {
        let at = names[..names.find(&format!(" {name}")).unwrap()]
            .chars()
            .count()
            + 1
            + name.len();
        let upto: String = row.chars().take(at).collect();
        upto.trim_end().rsplit(' ').next().unwrap().to_string()
    }

    #[test]
    fn the_first_row_says_pending_never_zero() {
        let (first, second) = snaps("linux-6.18-loaded");
        let cols = Columns::of(&first);
        let [names, units] = cols.header();
        let r1 = cols.row(&first);
        let r2 = cols.row(&second);
        for l in [&names, &units, &r1, &r2] {
            assert_eq!(l.chars().count(), names.chars().count(), "{l}");
        }
        let rates = COLUMNS.iter().filter(|c| c.rate && !c.bpf).count();
        assert_eq!(r1.matches(f::PENDING).count(), rates, "{r1}");
        assert!(!r2.contains(f::PENDING), "{r2}");
        // 256 pages of 4 KiB in one second: 1024 KiB/s under zswpout.
        assert_eq!(under(&names, &r2, "zswpout"), "1024", "{r2}");
        assert!(units.contains("MiB") && units.contains("KiB/s") && units.contains('%'));
        // No zram device in this tree: no zram column.
        assert!(!names.contains(" zram"), "{names}");
    }

    /// One number style per column: the same number of decimals in every row, whatever the
    /// size of the number.
    #[test]
    fn a_column_keeps_its_number_style() {
        let (first, mut second) = snaps("tiers-zswap-zram-disk");
        let cols = Columns::of(&first);
        let [names, _] = cols.header();
        assert!(
            names.contains(" zram") && names.contains(" limhit"),
            "{names}"
        );
        assert!(
            names.contains(" bypass") && names.contains(" ondisk"),
            "{names}"
        );
        let small = cols.row(&second);
        second.swap.used_bytes = Some(31_065 * 1024 * 1024);
        let large = cols.row(&second);
        assert_eq!(under(&names, &large, "swap"), "31065.0", "{large}");
        let decimals = |v: &str| v.split_once('.').map_or(0, |(_, d)| d.len());
        for c in &cols.0 {
            let (a, b) = (under(&names, &small, c.name), under(&names, &large, c.name));
            if a.parse::<f64>().is_ok() && b.parse::<f64>().is_ok() {
                assert_eq!(decimals(&a), c.decimals, "{} {a}", c.name);
                assert_eq!(decimals(&b), c.decimals, "{} {b}", c.name);
            }
        }
    }

    #[test]
    fn rows_carry_the_date_time_and_offset() {
        let (first, _) = snaps("linux-6.18-loaded");
        let row = Columns::of(&first).row(&first);
        let stamp = &row[..TIME.2];
        assert!(
            jiff::Timestamp::strptime("%Y-%m-%dT%H:%M:%S%:z", stamp.trim()).is_ok(),
            "{stamp:?}"
        );
    }
}
