//! The one formatting layer shared by `--once` and the dashboard: values in their units (here),
//! wrapping (`wrap`), gauges and proportional cells (`gauge`), the findings' and missing values'
//! phrases (`phrases`) and the ASCII fallback (`ascii`). A value that is unknown is always shown
//! as [`MISSING`], never as 0.

mod ascii;
mod gauge;
mod phrases;
mod wrap;

pub(crate) use ascii::{AsciiOut, ascii};
pub(crate) use gauge::{GaugeCell, gauge, proportional_cells};
pub use phrases::unavailable;
pub(crate) use phrases::{severity_counts, severity_tag};
pub use wrap::fit;
pub(crate) use wrap::{wrap, wrap_commands};

use crate::model::Snapshot;
use crate::model::metrics::{Metric, Unit};
use humansize::{BINARY, format_size};

/// How an unknown value is shown.
pub(crate) const MISSING: &str = "—";
/// The ASCII stand-in for [`MISSING`].
pub(crate) const MISSING_ASCII: &str = "-";
/// A setting the running kernel does not have (a parameter file that is not there).
pub(crate) const NOT_IN_KERNEL: &str = "not in this kernel";

/// An on/off setting, or [`NOT_IN_KERNEL`] when the kernel `lacks` it.
pub(crate) fn setting(v: Option<bool>, lacks: bool) -> &'static str {
    if lacks { NOT_IN_KERNEL } else { on_off(v) }
}

/// Bytes as `1.5 GiB`, `0 B`, or the missing mark.
pub fn bytes(v: Option<u64>) -> String {
    v.map(bytes_raw).unwrap_or_else(|| MISSING.to_string())
}

/// Bytes as `1.5 GiB`, `1.0 GiB`, `512 B`: one decimal always (both sides of "X of Y" alike),
/// and never `1024.0 MiB` — a figure that rounds up to 1024 of a unit is one of the next.
pub(crate) fn bytes_raw(v: u64) -> String {
    use humansize::FixedAt;
    if v < 1024 {
        return format!("{v} B");
    }
    let opts = BINARY.decimal_places(1).decimal_zeroes(1);
    let s = format_size(v, opts);
    let next = match s.strip_prefix("1024.0 ") {
        Some("KiB") => FixedAt::Mega,
        Some("MiB") => FixedAt::Giga,
        Some("GiB") => FixedAt::Tera,
        Some("TiB") => FixedAt::Peta,
        Some("PiB") => FixedAt::Exa,
        _ => return s,
    };
    format_size(v, opts.fixed_at(Some(next)))
}

/// Signed bytes: `-12.0 MiB`.
pub(crate) fn bytes_signed(v: Option<i64>) -> String {
    match v {
        Some(v) if v < 0 => format!("-{}", bytes_raw(v.unsigned_abs())),
        Some(v) => bytes_raw(v.unsigned_abs()),
        None => MISSING.to_string(),
    }
}

/// A rate in bytes per second: `12.0 MiB/s`.
pub(crate) fn rate(v: Option<f64>) -> String {
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => format!("{}/s", bytes_raw(r.round() as u64)),
        _ => MISSING.to_string(),
    }
}

/// An event rate: `3.5/s`.
pub(crate) fn per_sec(v: Option<f64>) -> String {
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => {
            if r >= 100.0 {
                format!("{r:.0}/s")
            } else {
                format!("{r:.1}/s")
            }
        }
        _ => MISSING.to_string(),
    }
}

/// A registry figure's shown value ([`Metric::value`]: a level, or a counter's rate) in
/// its unit.
pub fn metric_value(m: &Metric, s: &Snapshot) -> String {
    let v = m.value(s);
    match m.shown_unit() {
        Unit::Bytes | Unit::Pages => bytes(v.map(|v| v as u64)),
        Unit::BytesPerSec => rate(v),
        Unit::Ratio => ratio(v),
        Unit::Share => percent(v.map(|v| v * 100.0)),
        Unit::Percent => percent(v),
        Unit::Seconds => duration_secs(v),
        Unit::Milliseconds => v.map_or(MISSING.to_string(), |v| format!("{v:.1} ms")),
        Unit::Microseconds => per_sec(v).replace("/s", " µs/s"),
        Unit::Events => per_sec(v),
        Unit::Number => num(v),
    }
}

/// A count in its unit as the kernel keeps it: `1234 pages`, `17`, `582815 µs`.
pub(crate) fn count(v: Option<u64>, unit: Unit) -> String {
    match (v, unit) {
        (None, _) => MISSING.to_string(),
        (Some(_), Unit::Pages) => pages(v),
        (Some(n), Unit::Microseconds) => format!("{n} µs"),
        (Some(n), Unit::Bytes) => bytes_raw(n),
        (Some(n), _) => n.to_string(),
    }
}

/// A compression ratio: `1.95:1`.
pub(crate) fn ratio(v: Option<f64>) -> String {
    match v {
        Some(r) if r.is_finite() => format!("{r:.2}:1"),
        _ => MISSING.to_string(),
    }
}

/// The model's rule for when a pool's ratio says how pages compress ([`crate::model::zswap`]).
pub(crate) use crate::model::zswap::{RATIO_MIN_STORED, usable_ratio as pool_ratio};

/// A percentage with one decimal: `12.5%`.
pub(crate) fn percent(v: Option<f64>) -> String {
    match v {
        Some(p) if p.is_finite() => format!("{p:.1}%"),
        _ => MISSING.to_string(),
    }
}

/// `part` as a percentage of `whole`.
pub(crate) fn share(part: Option<u64>, whole: Option<u64>) -> Option<f64> {
    match (part, whole) {
        (Some(p), Some(w)) if w > 0 => Some(p as f64 * 100.0 / w as f64),
        _ => None,
    }
}

/// A yes/no setting.
pub(crate) fn on_off(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "on",
        Some(false) => "off",
        None => MISSING,
    }
}

/// A plain number or the missing mark.
pub(crate) fn num<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|v| v.to_string())
        .unwrap_or_else(|| MISSING.to_string())
}

/// A time in microseconds as people read it: `41µs`, `4.7ms`, `1.20s`.
pub fn time_us(us: f64) -> String {
    if us < 1000.0 {
        format!("{us:.0}µs")
    } else if us < 1_000_000.0 {
        format!("{:.1}ms", us / 1000.0)
    } else {
        format!("{:.2}s", us / 1e6)
    }
}

/// Uptime as `3d 4h`, `2h 13m`, `45s`.
pub fn duration_secs(secs: Option<f64>) -> String {
    let Some(s) = secs.filter(|s| s.is_finite() && *s >= 0.0) else {
        return MISSING.to_string();
    };
    let s = s as u64;
    let (d, h, m) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60);
    if d > 0 {
        format!("{d}d {h}h")
    } else if h > 0 {
        format!("{h}h {m}m")
    } else if m > 0 {
        format!("{m}m {}s", s % 60)
    } else {
        format!("{s}s")
    }
}

/// How a per-second rate is shown until a second sample exists.
pub(crate) const PENDING: &str = "pending";

/// How old a figure read less often than the view samples is ("read 2.5 s ago"); `None` when
/// it was read with this sample.
pub(crate) fn age_note(age_ms: Option<u64>) -> Option<String> {
    age_ms
        .filter(|&ms| ms > 0)
        .map(|ms| format!("read {:.1} s ago", ms as f64 / 1000.0))
}

/// Bytes in at most 6 characters for axes and tight columns: `498.7M`, `1.2G`, `512K`, `0`.
pub(crate) fn bytes_short(v: u64) -> String {
    let (n, unit) = short_parts(v);
    format!("{}{unit}", n.strip_suffix(".0").unwrap_or(&n))
}

/// The number (one decimal below 1000 of a unit) and the unit letter of the short form.
fn short_parts(v: u64) -> (String, &'static str) {
    const UNITS: [&str; 6] = ["K", "M", "G", "T", "P", "E"];
    if v < 1024 {
        return (v.to_string(), "");
    }
    let mut x = v as f64 / 1024.0;
    let mut i = 0;
    // 1023.5 and up would show as "1024": one of the next unit.
    while x >= 1023.5 && i + 1 < UNITS.len() {
        x /= 1024.0;
        i += 1;
    }
    let n = if x >= 1000.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    };
    (n, UNITS[i])
}

/// An optional size in the short form, or the missing mark.
pub(crate) fn bytes_short_opt(v: Option<u64>) -> String {
    v.map(bytes_short).unwrap_or_else(|| MISSING.to_string())
}

/// Sizes said together ("X of Y") in the short form with the same precision: when one of them
/// needs its decimal, the others keep theirs (`654.6M of 1.0G`, not `654.6M of 1G`).
pub(crate) fn bytes_short_alike<const N: usize>(vs: [Option<u64>; N]) -> [String; N] {
    let parts = vs.map(|v| v.map(short_parts));
    let decimal = parts
        .iter()
        .flatten()
        .any(|(n, _)| n.contains('.') && !n.ends_with(".0"));
    parts.map(|p| match p {
        None => MISSING.to_string(),
        Some((n, unit)) if decimal => format!("{n}{unit}"),
        Some((n, unit)) => format!("{}{unit}", n.strip_suffix(".0").unwrap_or(&n)),
    })
}

/// A byte rate in the short form (`974.3M/s`); `pending` before the second sample (`None`
/// rates), the missing mark when the rate itself is unknown.
pub(crate) fn rate_short(rates_known: bool, v: Option<f64>) -> String {
    if !rates_known {
        return PENDING.to_string();
    }
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => format!("{}/s", bytes_short(r.round() as u64)),
        _ => MISSING.to_string(),
    }
}

/// I/O operations per second for a tight column: `0`, `12`, `3.4k`, `12k`; `pending` before the
/// second sample, the missing mark when unknown.
pub(crate) fn iops(rates_known: bool, v: Option<f64>) -> String {
    if !rates_known {
        return PENDING.to_string();
    }
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => {
            if r < 1_000.0 {
                format!("{r:.0}")
            } else if r < 10_000.0 {
                format!("{:.1}k", r / 1_000.0)
            } else {
                format!("{:.0}k", r / 1_000.0)
            }
        }
        _ => MISSING.to_string(),
    }
}

/// A percentage for a tight column, with `pending` before the second sample: `3.5%`.
pub(crate) fn percent_rate(rates_known: bool, v: Option<f64>) -> String {
    if rates_known {
        percent(v)
    } else {
        PENDING.to_string()
    }
}

/// A memory limit where 0 means none (zram `mem_limit`): `none`, `2 GiB`.
pub(crate) fn limit(v: Option<u64>) -> String {
    match v {
        Some(0) => "none".to_string(),
        other => bytes(other),
    }
}

/// A cgroup's `memory.zswap.max` in the short form: `max` (no limit), `512M`; the missing
/// mark when the kernel has no such file (`charged`: whether it charges zswap to cgroups at
/// all, which came with the file).
pub(crate) fn zswap_max(v: Option<u64>, charged: bool) -> String {
    match (v, charged) {
        (Some(b), _) => bytes_short(b),
        (None, true) => "max".to_string(),
        (None, false) => MISSING.to_string(),
    }
}

/// A rotational flag: `yes`, `no`, or the missing mark.
pub(crate) fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => MISSING,
    }
}

/// A count of pages: `1234 pages`, `1 page`.
pub(crate) fn pages(v: Option<u64>) -> String {
    match v {
        Some(1) => "1 page".to_string(),
        Some(n) => format!("{n} pages"),
        None => MISSING.to_string(),
    }
}

/// A sampling interval: `100ms`, `1s`, `2.5s`.
pub(crate) fn interval(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// A stretch of time, rounded to its largest units: `45s`, `10m`, `1h30m`, `2d`.
pub(crate) fn span(d: std::time::Duration) -> String {
    let s = d.as_secs();
    let (days, h, m, sec) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60, s % 60);
    match (days, h, m, sec) {
        (0, 0, 0, s) => format!("{s}s"),
        (0, 0, m, 0) => format!("{m}m"),
        (0, 0, m, s) => format!("{m}m{s}s"),
        (0, h, 0, _) => format!("{h}h"),
        (0, h, m, _) => format!("{h}h{m}m"),
        (d, 0, _, _) => format!("{d}d"),
        (d, h, _, _) => format!("{d}d{h}h"),
    }
}

/// An event count for a tight column, with what the window added: `3`, `3+1`.
pub(crate) fn event_count(count: Option<u64>, new: Option<u64>) -> String {
    match (count, new) {
        (None, _) => MISSING.to_string(),
        (Some(c), Some(n)) if n > 0 => format!("{c}+{n}"),
        (Some(c), _) => c.to_string(),
    }
}

/// A cgroup's tightest limit for a tight column: its headroom and which (`12M max`, `-3M high`,
/// `8% swap`... in bytes), `none` when every limit file says "max", the missing mark without
/// any limit file.
pub(crate) fn headroom_short(l: &crate::model::cgroup_events::CgroupLimits) -> String {
    let Some((name, limit)) = l.tightest() else {
        return if l.any() {
            "none".into()
        } else {
            MISSING.into()
        };
    };
    let which = match name {
        "memory.high" => "high",
        "memory.max" => "max",
        "memory.swap.max" => "swap",
        _ => "zswap",
    };
    match limit.headroom_bytes {
        Some(h) if h < 0 => format!("-{} {which}", bytes_short(h.unsigned_abs())),
        Some(h) => format!("{} {which}", bytes_short(h.unsigned_abs())),
        None => MISSING.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(bytes(None), MISSING);
        assert_eq!(bytes(Some(0)), "0 B");
        assert_eq!(bytes(Some(1536)), "1.5 KiB");
        assert_eq!(bytes(Some(522_948_608)), "498.7 MiB");
        assert_eq!(bytes_signed(Some(-2048)), "-2.0 KiB");
        assert_eq!(bytes(Some(1023)), "1023 B");
        assert_eq!(bytes(Some(1 << 30)), "1.0 GiB");
        assert_eq!(bytes(Some(32 << 10)), "32.0 KiB");
    }

    #[test]
    fn a_size_just_under_a_unit_is_one_of_that_unit() {
        // A 1 GiB zram disksize less one page: never "1024.0 MiB".
        assert_eq!(bytes(Some(1_048_572 * 1024)), "1.0 GiB");
        assert_eq!(bytes(Some((1 << 20) - 1)), "1.0 MiB");
        assert_eq!(bytes(Some((1 << 40) - 1)), "1.0 TiB");
        assert_eq!(bytes(Some(1_023 * 1024 * 1024)), "1023.0 MiB");
        assert!(bytes(Some(u64::MAX)).ends_with("EiB"));
        assert_eq!(bytes_short(1_048_572 * 1024), "1G");
        assert_eq!(bytes_short((1 << 30) - (1 << 19) - 1), "1023M");
    }

    #[test]
    fn ratios_and_rates() {
        assert_eq!(ratio(Some(1.953_5)), "1.95:1");
        assert_eq!(ratio(None), MISSING);
        assert_eq!(rate(Some(1_048_576.0)), "1.0 MiB/s");
        assert_eq!(per_sec(Some(2.25)), "2.2/s");
    }

    #[test]
    fn short_forms() {
        assert_eq!(bytes_short(0), "0");
        assert_eq!(bytes_short(1023), "1023");
        assert_eq!(bytes_short(1024), "1K");
        assert_eq!(bytes_short(522_948_608), "498.7M");
        assert_eq!(bytes_short(1 << 30), "1G");
        assert_eq!(bytes_short(150 << 20), "150M");
        // Said together, the sizes share their precision.
        assert_eq!(
            bytes_short_alike([Some(686_400_000), Some(1 << 30)]),
            ["654.6M", "1.0G"]
        );
        assert_eq!(
            bytes_short_alike([Some(512 << 20), Some(1 << 30)]),
            ["512M", "1G"]
        );
        assert_eq!(
            bytes_short_alike([None, Some(3 << 29), Some(100)]),
            [MISSING, "1.5G", "100"]
        );
        assert_eq!(rate_short(false, Some(1.0)), PENDING);
        assert_eq!(rate_short(true, None), MISSING);
        assert_eq!(rate_short(true, Some(2048.0)), "2K/s");
        assert_eq!(interval(std::time::Duration::from_millis(100)), "100ms");
        assert_eq!(interval(std::time::Duration::from_secs(1)), "1s");
        assert_eq!(interval(std::time::Duration::from_millis(2500)), "2.5s");
        assert_eq!(span(std::time::Duration::from_secs(600)), "10m");
        assert_eq!(span(std::time::Duration::from_secs(45)), "45s");
        assert_eq!(span(std::time::Duration::from_secs(5400)), "1h30m");
        assert_eq!(span(std::time::Duration::from_secs(86_400)), "1d");
    }

    #[test]
    fn tight_columns() {
        assert_eq!(iops(false, Some(1.0)), PENDING);
        assert_eq!(iops(true, None), MISSING);
        assert_eq!(iops(true, Some(12.4)), "12");
        assert_eq!(iops(true, Some(3_456.0)), "3.5k");
        assert_eq!(iops(true, Some(12_345.0)), "12k");
        assert_eq!(percent_rate(false, Some(1.0)), PENDING);
        assert_eq!(percent_rate(true, Some(12.25)), "12.2%");
        assert_eq!(limit(Some(0)), "none");
        assert_eq!(limit(Some(1 << 30)), "1.0 GiB");
        assert_eq!(limit(None), MISSING);
        assert_eq!(zswap_max(None, true), "max");
        assert_eq!(zswap_max(None, false), MISSING);
        assert_eq!(zswap_max(Some(512 << 20), true), "512M");
        assert_eq!(yes_no(Some(false)), "no");
        assert_eq!(pages(Some(1)), "1 page");
        assert_eq!(pages(Some(19_661)), "19661 pages");
    }

    #[test]
    fn age_notes() {
        assert_eq!(age_note(Some(0)), None);
        assert_eq!(age_note(Some(2500)).as_deref(), Some("read 2.5 s ago"));
    }
}
