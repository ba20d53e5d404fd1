//! Swap-in latency by tier (`model::swapin`), worded once for the text report, `--watch` and
//! the dashboard: each tier's percentiles with its swap-ins a second, or why there are none;
//! the table the dashboard's section and `--full` lay out alike ([`layout`], [`row`]), and its
//! histograms on one axis ([`span`], [`axis`], [`histogram`]).

use super::{Depth, Fact, Tone};
use crate::model::Snapshot;
use crate::model::swapin::TierLatency;
use crate::sources::bpf;

pub use crate::display::time_us;

/// One tier: `zswap p50 41µs p99 560µs 1094/s`, `disk none`, or `zram unknown (why)`.
pub fn tier(t: &TierLatency) -> String {
    match (t.count, &t.reason) {
        (None, Some(why)) => format!("{} unknown ({why})", t.tier),
        (None, None) => format!("{} unknown", t.tier),
        (Some(0), _) => format!("{} none", t.tier),
        (Some(n), _) => {
            let p = |v: Option<f64>| v.map_or_else(|| "-".into(), time_us);
            let rate = t
                .per_second
                .map_or_else(|| format!("{n}"), |r| format!("{r:.0}/s"));
            format!(
                "{} p50 {} p99 {} max {} {rate}",
                t.tier,
                p(t.p50_us),
                p(t.p99_us),
                p(t.max_us)
            )
        }
    }
}

/// The store side for a one-line report: `stores:` then a part a tier (as [`tier`]), or one
/// part when every tier is unknown for one reason (the kprobe fallback); none where the stores
/// are not measured at all.
pub fn store_parts(s: &Snapshot) -> Vec<String> {
    let st = &s.swapin_latency.stores;
    let Some(first) = st.first() else {
        return Vec::new();
    };
    if st
        .iter()
        .all(|t| t.count.is_none() && t.reason == first.reason)
    {
        let why = first.reason.as_deref().unwrap_or("no reason given");
        return vec![format!("stores unknown ({why})")];
    }
    std::iter::once("stores:".to_string())
        .chain(st.iter().map(tier))
        .collect()
}

/// Why nothing is measured (`unavailable: why`), or `None` where the tiers have figures.
pub fn unavailable(s: &Snapshot) -> Option<String> {
    let l = &s.swapin_latency;
    (!l.available).then(|| {
        format!(
            "unavailable: {}",
            l.reason.as_deref().unwrap_or("no reason given")
        )
    })
}

/// A column of the latency table, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    P50,
    P90,
    P99,
    Max,
    /// Swap-ins a second.
    Rate,
}

impl Column {
    /// Its heading.
    pub fn heading(self) -> &'static str {
        match self {
            Column::P50 => "p50",
            Column::P90 => "p90",
            Column::P99 => "p99",
            Column::Max => "max",
            Column::Rate => "swap-ins",
        }
    }

    /// Its width, the value right-aligned in it.
    pub fn width(self) -> usize {
        match self {
            Column::Rate => 9,
            _ => 7,
        }
    }
}

/// The tier names' column.
pub const TIER_WIDTH: usize = 10;

/// The narrowest histogram worth drawing (its two axis labels need the room).
pub const MIN_HISTOGRAM: usize = 12;

/// What the table shows in `width` characters: the columns, and the histogram's width (0 for
/// none). Where the room runs short the histogram narrows to its minimum, then p90 goes, then
/// max, then the histogram.
pub fn layout(width: usize) -> (Vec<Column>, usize) {
    use Column::*;
    let fits = |cols: &[Column]| TIER_WIDTH + cols.iter().map(|c| c.width() + 1).sum::<usize>();
    let choices: [&[Column]; 3] = [
        &[P50, P90, P99, Max, Rate],
        &[P50, P99, Max, Rate],
        &[P50, P99, Rate],
    ];
    for cols in choices {
        let room = width.saturating_sub(fits(cols) + 2);
        if room >= MIN_HISTOGRAM {
            return (cols.to_vec(), room);
        }
    }
    let cols = choices
        .into_iter()
        .find(|c| fits(c) <= width)
        .unwrap_or(choices[2]);
    (cols.to_vec(), 0)
}

/// A tier as a row of the table.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// Swap-ins this interval: a value for each column.
    Busy(Vec<(Column, String)>),
    /// No swap-ins this interval.
    Idle,
    /// Not measured on this kernel, and why (`unknown: why`).
    Unknown(String),
}

/// `t` as a row of `cols`.
pub fn row(t: &TierLatency, cols: &[Column]) -> Row {
    match t.count {
        None => Row::Unknown(match &t.reason {
            Some(why) => format!("unknown: {why}"),
            None => "unknown".into(),
        }),
        Some(0) => Row::Idle,
        Some(n) => Row::Busy(
            cols.iter()
                .map(|&c| {
                    let p = |v: Option<f64>| v.map_or_else(|| "-".into(), time_us);
                    let v = match c {
                        Column::P50 => p(t.p50_us),
                        Column::P90 => p(t.p90_us),
                        Column::P99 => p(t.p99_us),
                        Column::Max => p(t.max_us),
                        Column::Rate => rate(t.per_second, n),
                    };
                    (c, v)
                })
                .collect(),
        ),
    }
}

/// Swap-ins a second (`1094/s`, `0.3/s`: one swap-in in three seconds is not `0/s`), or the
/// count where the interval's length is unknown.
fn rate(per_second: Option<f64>, n: u64) -> String {
    match per_second {
        Some(r) if r >= 10.0 => format!("{r:.0}/s"),
        Some(r) => format!("{r:.1}/s"),
        None => format!("{n}"),
    }
}

/// The buckets the busy tiers' histograms span (the lowest and the highest with a count),
/// one axis for them all so that the tiers compare by position.
pub fn span(tiers: &[TierLatency]) -> Option<(usize, usize)> {
    let used = |b: &[u64]| {
        let lo = b.iter().position(|&n| n > 0)?;
        let hi = b.iter().rposition(|&n| n > 0)?;
        Some((lo, hi))
    };
    tiers
        .iter()
        .filter_map(|t| used(&t.buckets))
        .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
}

/// The axis's two ends: the lower edge of the span's first bucket and the upper edge of its
/// last (`1.3µs`, `4.2ms`); the last bucket is open above (`15s+`).
pub fn axis((lo, hi): (usize, usize)) -> (String, String) {
    let at = |ns: f64| {
        if ns < 1000.0 {
            format!("{ns:.0}ns")
        } else if ns < 10_000.0 {
            format!("{:.1}µs", ns / 1000.0)
        } else {
            time_us(ns / 1000.0)
        }
    };
    let left = at(bpf::lower_ns(lo));
    let right = if hi + 1 < bpf::BUCKETS {
        at(bpf::lower_ns(hi + 1))
    } else {
        format!("{}+", at(bpf::lower_ns(hi)))
    };
    (left, right)
}

/// A tier's histogram over `span` in at most `width` cells (buckets side by side merged
/// evenly where there are more than cells), each cell's height its share of the tallest: a
/// blank cell had no swap-ins, the lowest mark at least one. `ascii` draws the heights with
/// `.:-=+*#@`.
pub fn histogram(buckets: &[u64], (lo, hi): (usize, usize), width: usize, ascii: bool) -> String {
    const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    const ASCII: [char; 8] = ['.', ':', '-', '=', '+', '*', '#', '@'];
    if width == 0 || hi < lo || buckets.len() <= hi {
        return String::new();
    }
    let n = hi - lo + 1;
    let per = n.div_ceil(width);
    let cells: Vec<u64> = buckets[lo..=hi]
        .chunks(per)
        .map(|c| c.iter().sum())
        .collect();
    let top = cells.iter().copied().max().unwrap_or(0);
    let marks = if ascii { &ASCII } else { &BLOCKS };
    cells
        .iter()
        .map(|&v| {
            if v == 0 || top == 0 {
                ' '
            } else {
                // 1..=8 eighths of the tallest, rounded up: any count shows.
                let level = (v as u128 * 8).div_ceil(top as u128).clamp(1, 8) as usize;
                marks[level - 1]
            }
        })
        .collect()
}

/// The table's heading: the columns' names and, over the histogram, its axis's two ends.
pub fn heading(cols: &[Column], axis_ends: Option<(String, String)>, hist: usize) -> String {
    heading_of(Side::Swapins, cols, axis_ends, hist)
}

/// The two parts of the table: the swap-ins' tiers, then the stores' (a heading of their own,
/// their own axis: a store's times are not a fault's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Swapins,
    Stores,
}

impl Side {
    /// The tiers' column and the rate column's headings.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            Side::Swapins => ("tier", "swap-ins"),
            Side::Stores => ("stored to", "stores"),
        }
    }

    /// This part's tiers in `s` (the stores' empty where they are not measured at all).
    pub fn tiers(self, s: &Snapshot) -> &[TierLatency] {
        match self {
            Side::Swapins => &s.swapin_latency.tiers,
            Side::Stores => &s.swapin_latency.stores,
        }
    }
}

/// A side's heading (see [`heading`]).
pub fn heading_of(
    part: Side,
    cols: &[Column],
    axis_ends: Option<(String, String)>,
    hist: usize,
) -> String {
    let (first, rate) = part.words();
    let mut head = format!("{first:<TIER_WIDTH$}");
    head.push_str(&figures(
        &cols
            .iter()
            .map(|&c| {
                let h = if c == Column::Rate { rate } else { c.heading() };
                (c, h.to_string())
            })
            .collect::<Vec<_>>(),
    ));
    if let Some((left, right)) = axis_ends {
        let gap = hist.saturating_sub(left.chars().count() + right.chars().count());
        head.push_str(&format!("  {left}{}{right}", " ".repeat(gap)));
    }
    head
}

/// A busy row's figures, each right-aligned in its column after a space.
pub fn figures(cells: &[(Column, String)]) -> String {
    cells
        .iter()
        .map(|(c, v)| format!(" {v:>w$}", w = c.width()))
        .collect()
}

/// An unknown tier's reason (a kernel's words can be long) wrapped to `width` under the
/// figures' columns: each line begins with the space after the tier's name.
pub fn wrapped(why: &str, width: usize) -> Vec<String> {
    crate::display::wrap(why, width, TIER_WIDTH + 1, TIER_WIDTH + 1)
        .into_iter()
        .map(|l| format!(" {l}"))
        .collect()
}

/// The table as text lines of at most `width` characters (the `--full` report): a heading
/// with the columns and the histogram's axis, then a row a tier (a reason wrapped under the
/// figures' columns).
pub fn table(s: &Snapshot, width: usize) -> Vec<String> {
    let (cols, hist) = layout(width);
    let mut out = Vec::new();
    for part in [Side::Swapins, Side::Stores] {
        let tiers = part.tiers(s);
        if tiers.is_empty() {
            continue;
        }
        let span = span(tiers).filter(|_| hist > 0);
        out.push(heading_of(part, &cols, span.map(axis), hist));
        rows(tiers, &cols, span, hist, width, &mut out);
    }
    out
}

/// The rows of one part of [`table`].
fn rows(
    tiers: &[TierLatency],
    cols: &[Column],
    span: Option<(usize, usize)>,
    hist: usize,
    width: usize,
    out: &mut Vec<String>,
) {
    for t in tiers {
        let mut line = format!("{:<TIER_WIDTH$}", t.tier);
        match row(t, cols) {
            Row::Busy(cells) => {
                line.push_str(&figures(&cells));
                if let Some(span) = span {
                    line.push_str("  ");
                    line.push_str(&histogram(&t.buckets, span, hist, false));
                }
            }
            Row::Idle => line.push_str(" none"),
            Row::Unknown(why) => {
                for (i, part) in wrapped(&why, width).iter().enumerate() {
                    if i > 0 {
                        out.push(line);
                        line = format!("{:TIER_WIDTH$}", "");
                    }
                    line.push_str(part);
                }
            }
        }
        out.push(line.trim_end().to_string());
    }
}

/// The dashboard's outlook line, where the programs measured the interval: each tier that
/// served swap-ins with its median and 99th percentile (`swap-in wait p50/p99: zswap
/// 41µs/560µs, disk 4.7ms/16.1ms`). The one screen and the full report have their own line.
pub fn fact(s: &Snapshot) -> Option<Fact> {
    let l = &s.swapin_latency;
    if !l.available {
        return None;
    }
    let busy: Vec<&TierLatency> = l
        .tiers
        .iter()
        .filter(|t| t.count.unwrap_or(0) > 0)
        .collect();
    let p = |v: Option<f64>| v.map_or_else(|| "-".into(), time_us);
    let each = |f: &dyn Fn(&TierLatency) -> String| {
        if busy.is_empty() {
            "no swap-ins".to_string()
        } else {
            busy.iter().map(|t| f(t)).collect::<Vec<_>>().join(", ")
        }
    };
    let long = format!(
        "swap-in wait p50/p99: {}",
        each(&|t| format!("{} {}/{}", t.tier, p(t.p50_us), p(t.p99_us)))
    );
    let short = format!(
        "wait p99: {}",
        each(&|t| format!("{} {}", t.tier, p(t.p99_us)))
    );
    Some(Fact {
        key: "outlook.swapin_latency",
        label: "swap-in wait",
        value: short.clone(),
        value_short: short.clone(),
        long,
        tight: short.clone(),
        short,
        tone: Tone::Ok,
        depths: &[Depth::Dashboard],
    })
}

/// A tier's 99th percentile in µs (for `--watch`), `None` where unknown or idle.
pub fn p99_us(s: &Snapshot, tier: &str) -> Option<f64> {
    s.swapin_latency
        .tiers
        .iter()
        .find(|t| t.tier == tier)
        .and_then(|t| t.p99_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(tier: &str, spread: &[(usize, u64)], per_second: f64) -> TierLatency {
        let mut buckets = vec![0; bpf::BUCKETS];
        for &(b, n) in spread {
            buckets[b] = n;
        }
        TierLatency {
            tier: tier.into(),
            count: Some(buckets.iter().sum()),
            per_second: Some(per_second),
            p50_us: Some(41.0),
            p90_us: Some(120.0),
            p99_us: Some(560.0),
            max_us: Some(1200.0),
            reason: None,
            buckets,
        }
    }

    #[test]
    fn the_columns_give_way_to_the_width_histogram_first_then_p90_then_max() {
        use Column::*;
        assert_eq!(layout(80), (vec![P50, P90, P99, Max, Rate], 26));
        assert_eq!(layout(60), (vec![P50, P99, Max, Rate], 14));
        assert_eq!(layout(50), (vec![P50, P99, Rate], 12));
        // Below the room for a histogram, the figures alone.
        assert_eq!(layout(40), (vec![P50, P99, Rate], 0));
        assert_eq!(layout(20), (vec![P50, P99, Rate], 0));
    }

    #[test]
    fn a_histogram_shows_every_bucket_with_a_count_and_merges_to_fit() {
        let mut b = vec![0u64; bpf::BUCKETS];
        b[10] = 1;
        b[12] = 800;
        b[13] = 100;
        // One cell a bucket: the lone swap-in still shows, the empty bucket is blank.
        assert_eq!(histogram(&b, (10, 13), 20, false), "▁ █▁");
        assert_eq!(histogram(&b, (10, 13), 20, true), ". @.");
        // Two buckets a cell where four do not fit in three.
        assert_eq!(histogram(&b, (10, 13), 3, false), "▁█");
        assert_eq!(histogram(&b, (10, 13), 0, false), "");
        // A span past the buckets draws nothing rather than panicking.
        assert_eq!(histogram(&b[..5], (10, 13), 20, false), "");
    }

    #[test]
    fn the_axis_spans_every_tier_and_names_its_ends() {
        let tiers = [
            busy("zswap", &[(17, 5), (22, 1)], 6.0),
            busy("disk", &[(48, 2)], 2.0),
        ];
        assert_eq!(span(&tiers), Some((17, 48)));
        // Bucket 17 starts at 2^14 x 1.25 ns; bucket 49 (after 48) at 2^22 x 1.25 ns.
        assert_eq!(axis((17, 48)), ("20µs".to_string(), "5.2ms".to_string()));
        assert_eq!(axis((0, bpf::BUCKETS - 1)).0, "0ns");
        assert!(axis((0, bpf::BUCKETS - 1)).1.ends_with('+'));
        assert_eq!(span(&[]), None);
    }

    #[test]
    fn rows_say_figures_none_or_why() {
        let cols = [Column::P50, Column::P90, Column::Rate];
        let t = busy("zswap", &[(17, 5)], 1.0 / 3.0);
        let Row::Busy(cells) = row(&t, &cols) else {
            panic!("busy")
        };
        // One swap-in in three seconds is not "0/s".
        assert_eq!(figures(&cells), "    41µs   120µs     0.3/s");
        let idle = TierLatency {
            count: Some(0),
            ..busy("zram", &[], 0.0)
        };
        assert_eq!(row(&idle, &cols), Row::Idle);
        let unknown = TierLatency {
            count: None,
            reason: Some("no probe".into()),
            ..busy("zero", &[], 0.0)
        };
        assert_eq!(
            row(&unknown, &cols),
            Row::Unknown("unknown: no probe".into())
        );
    }

    /// `--full`: p90 and the histogram beside p50, p99 and max; a long reason wrapped.
    #[test]
    fn the_full_report_has_p90_and_the_histogram() {
        let mut s = crate::model::Snapshot::derive(
            &crate::sources::collect(&crate::root::Root::at("tests/fixtures/linux-6.18-idle")),
            None,
        );
        s.swapin_latency = crate::model::swapin::SwapinLatency {
            available: true,
            reason: None,
            probes: Some("fentry".into()),
            running: true,
            tiers: vec![
                busy("zswap", &[(17, 5), (18, 9)], 14.0),
                TierLatency {
                    count: None,
                    reason: Some("word ".repeat(30)),
                    ..busy("zero", &[], 0.0)
                },
            ],
            stores: vec![
                busy("zswap", &[(13, 40)], 40.0),
                TierLatency {
                    count: Some(0),
                    ..busy("disk", &[], 0.0)
                },
            ],
        };
        let lines = table(&s, 78);
        assert_eq!(
            lines[0],
            "tier           p50     p90     p99     max  swap-ins  20µs                29µs"
        );
        assert_eq!(
            lines[1],
            "zswap         41µs   120µs   560µs   1.2ms      14/s  ▅█"
        );
        assert!(
            lines[2].starts_with("zero       unknown: word word"),
            "{lines:#?}"
        );
        assert!(lines[3].starts_with("           word"), "{lines:#?}");
        // The stores under their own heading and axis (bucket 13: 10.2 to 12.3 µs, shown as
        // the table's times are).
        let at = lines
            .iter()
            .position(|l| l.starts_with("stored to"))
            .expect("a store heading");
        assert_eq!(
            lines[at],
            "stored to      p50     p90     p99     max    stores  10µs                12µs"
        );
        assert_eq!(
            lines[at + 1],
            "zswap         41µs   120µs   560µs   1.2ms      40/s  █"
        );
        assert_eq!(lines[at + 2], "disk       none");
        assert!(lines.iter().all(|l| l.chars().count() <= 78), "{lines:#?}");
        assert_eq!(unavailable(&s), None);
        assert_eq!(
            store_parts(&s),
            [
                "stores:",
                "zswap p50 41µs p99 560µs max 1.2ms 40/s",
                "disk none"
            ]
        );
        let mut refused = s.clone();
        for t in &mut refused.swapin_latency.stores {
            *t = TierLatency {
                count: None,
                reason: Some("the kprobe fallback times swap-ins only".into()),
                ..busy(&t.tier, &[], 0.0)
            };
        }
        assert_eq!(
            store_parts(&refused),
            ["stores unknown (the kprobe fallback times swap-ins only)"]
        );
    }

    #[test]
    fn times_read_in_their_unit() {
        assert_eq!(time_us(41.4), "41µs");
        assert_eq!(time_us(4744.0), "4.7ms");
        assert_eq!(time_us(1_200_000.0), "1.20s");
    }
}
