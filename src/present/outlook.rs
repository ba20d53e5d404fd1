//! The outlook: when the zswap pool and all swap will be full at the recent rate (the
//! forecast's basis said), whether zswap serves the swap-ins, and what a read from the disk
//! costs. Said only with an interval (a rate needs two samples).

use super::swap::has_swap;
use super::{Fact, Tone};
use crate::display as f;
use crate::model::Snapshot;
use crate::model::forecast::{Forecast, ForecastState};

/// A share of swap-ins, as every percentage people read is worded: `94%`.
fn hit_share(h: f64) -> String {
    format!("{:.0}%", h * 100.0)
}

/// A time to come, rounded as a forecast deserves: `~45 s`, `~4 min`, `~3 h`, `~2 d`.
pub fn about(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return f::MISSING.to_string();
    }
    let (v, unit) = if secs < 90.0 {
        (secs, "s")
    } else if secs < 90.0 * 60.0 {
        (secs / 60.0, "min")
    } else if secs < 48.0 * 3600.0 {
        (secs / 3600.0, "h")
    } else {
        (secs / 86_400.0, "d")
    };
    format!("~{} {unit}", v.round().max(1.0))
}

/// The time a forecast's points cover, as [`f::span`] words it (`5m`, `10s`); 0 s for a value
/// that is not a time.
fn window(secs: f64) -> String {
    let secs = if secs.is_finite() {
        secs.clamp(0.0, 1e9)
    } else {
        0.0
    };
    // To the nearest second: a 0.99 s interval is "1s", not "0s".
    f::span(std::time::Duration::from_secs(secs.round() as u64))
}

/// A forecast in words, with its basis: "full in ~4 min (~3 min–~6 min) at the last 5m's
/// rate", "full now", "not filling (last 5m)", "no forecast yet (one sample)", or why none.
pub fn forecast(f: &crate::model::forecast::Forecast) -> String {
    use crate::model::forecast::ForecastState;
    let basis = window(f.window_seconds);
    match &f.state {
        ForecastState::Filling => {
            // A range that rounds to the time itself says nothing more.
            let range = match (f.earliest.map(about), f.latest.map(about)) {
                (Some(a), Some(b)) if a != b => format!(" ({a}–{b})"),
                _ => String::new(),
            };
            let at = f.seconds.map_or_else(|| f::MISSING.to_string(), about);
            match f.model {
                Some(crate::model::forecast::Model::Curve) => {
                    format!("full in {at}{range}, speeding up over the last {basis}")
                }
                _ => format!("full in {at}{range} at the last {basis}'s rate"),
            }
        }
        ForecastState::Full => "full now".to_string(),
        ForecastState::NotFilling => match &f.evidence {
            Some(why) => format!("not filling ({why})"),
            None => format!("not filling (last {basis})"),
        },
        ForecastState::TooFew => "no forecast yet (one sample)".to_string(),
        ForecastState::Unknown(why) => format!("no forecast: {why}"),
    }
}

/// Why an interval has no swap-in share: no swap-ins in it, or a counter this kernel does not
/// report (`zswpin` or `pswpin` missing from /proc/vmstat): then the share is unknown, not 0.
pub fn no_hit_ratio(s: &Snapshot) -> &'static str {
    match s.rates.as_ref() {
        Some(r) if r.zswpin_bytes_per_sec.is_some() && r.pswpin_bytes_per_sec.is_some() => {
            "no swap-ins"
        }
        _ => "swap-in share unknown (no zswpin or pswpin)",
    }
}

/// A forecast's value alone: `~4 min`, `full now`, `not filling`, or that there is none.
fn headline(fc: &Forecast) -> String {
    match (&fc.state, fc.seconds) {
        (ForecastState::Filling, Some(secs)) => about(secs),
        (ForecastState::Full, _) => "full now".to_string(),
        (ForecastState::NotFilling, _) => "not filling".to_string(),
        _ => "no forecast".to_string(),
    }
}

/// A store's forecast as a fact: in full ("pool full in ~4 min (~3 min–~6 min) at the last
/// 10s's rate"), short without the range, the basis said short ("pool full in ~4 min (10s's
/// rate)"). A forecast that could not be made says why in full, else only that there is none
/// (the JSON's `forecast` keeps the reason).
fn store(key: &'static str, label: &'static str, fc: &Forecast) -> Fact {
    let basis = window(fc.window_seconds);
    let short = match (&fc.state, fc.seconds) {
        (ForecastState::Filling, Some(secs)) => {
            format!("{label} full in {} ({basis}'s rate)", about(secs))
        }
        (ForecastState::Unknown(_) | ForecastState::TooFew, _) => format!("{label}: no forecast"),
        (ForecastState::NotFilling, _) => format!("{label} not filling"),
        _ => format!("{label} {}", forecast(fc)),
    };
    let tone = match fc.state {
        ForecastState::Filling | ForecastState::Full => Tone::Warn,
        _ => Tone::Dim,
    };
    Fact {
        key,
        label,
        value: headline(fc),
        value_short: headline(fc),
        long: format!("{label} {}", forecast(fc)),
        tight: short.clone(),
        short,
        tone,
        depths: super::EVERYWHERE,
    }
}

/// Whether the zswap pool can fill at all: zswap on, or holding pages, and swap to hold what
/// it stores (a pool that is off and empty, or has no swap behind it, is not "not filling").
fn pool_can_fill(s: &Snapshot) -> bool {
    let z = &s.zswap;
    let holds = z.pool_bytes.unwrap_or(0) > 0;
    z.available && (z.enabled != Some(false) || holds) && (has_swap(s) || holds)
}

/// The share of the interval's swap-ins zswap served, or why there is none.
fn hit(s: &Snapshot) -> Fact {
    let (value, long, short, tone) = match s.zswap.swapin_hit_ratio {
        Some(h) => {
            let v = hit_share(h);
            let long = format!("zswap served {v} of swap-ins");
            let short = format!("swap-ins {v} from zswap");
            (v, long, short, Tone::Ok)
        }
        None => {
            let why = no_hit_ratio(s).to_string();
            (why.clone(), why.clone(), why, Tone::Dim)
        }
    };
    Fact {
        key: "outlook.hit",
        label: "swap-ins from zswap",
        value_short: value.clone(),
        value,
        long,
        tight: short.clone(),
        short,
        tone,
        depths: super::EVERYWHERE,
    }
}

/// The disk area swapped to first (highest priority) that completed reads: its average per
/// request over the interval.
fn disk_read(s: &Snapshot) -> Option<Fact> {
    let (_, ms) = s
        .swap
        .devices
        .iter()
        .filter(|d| !d.is_zram)
        .filter_map(|d| Some((d.priority, d.read_latency_ms?)))
        .max_by_key(|(p, _)| *p)?;
    let value = format!("{ms:.1} ms");
    Some(Fact {
        key: "outlook.disk_read",
        label: "disk swap read",
        long: format!("disk swap {value} a read (device average)"),
        short: format!("disk swap {value} a read"),
        tight: format!("disk {value} a read"),
        value_short: value.clone(),
        value,
        tone: Tone::Ok,
        depths: super::EVERYWHERE,
    })
}

/// Every fact of the outlook, with an interval; none without.
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    if s.rates.is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(fc) = s.forecast.zswap_pool.as_ref().filter(|_| pool_can_fill(s)) {
        out.push(store("outlook.pool", "pool", fc));
    }
    if let Some(fc) = s.forecast.swap.as_ref().filter(|_| has_swap(s)) {
        out.push(store("outlook.swap", "swap", fc));
    }
    if s.zswap.available {
        out.push(hit(s));
    }
    out.extend(disk_read(s));
    out.extend(super::swapin::fact(s));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interval without swap-ins says so; one where /proc/vmstat lacks a swap-in counter
    /// says the share is unknown, never "no swap-ins".
    #[test]
    fn a_missing_swap_in_counter_is_unknown_not_none() {
        let root = crate::root::Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-loaded"
        ));
        let a = crate::sources::collect(&root);
        let mut b = a.clone();
        b.monotonic_ns += 1_000_000_000;
        let quiet = crate::pipeline::snapshot(&b, Some(&a));
        assert_eq!(quiet.zswap.swapin_hit_ratio, None);
        assert_eq!(no_hit_ratio(&quiet), "no swap-ins");
        assert_eq!(hit(&quiet).value, "no swap-ins");
        let mut lacking = quiet.clone();
        if let Some(r) = lacking.rates.as_mut() {
            r.pswpin_bytes_per_sec = None;
        }
        assert!(no_hit_ratio(&lacking).contains("unknown"));
        assert!(!hit(&lacking).long.contains("no swap-ins"));
    }

    /// A forecast in words: filling with its range and basis, two points without a range,
    /// the other states, and times rounded as a forecast deserves.
    #[test]
    fn forecasts_in_words() {
        use crate::model::forecast::{ForecastState, forecast as fit};
        let mib = 1_048_576.0;
        // 2 MiB/s, 121 s from the last point (model::forecast's own worked example).
        let line: Vec<(f64, f64)> = (0..30)
            .map(|i| (f64::from(i), (100.0 + 2.0 * f64::from(i)) * mib))
            .collect();
        let f = fit(&line, 400.0 * mib);
        assert_eq!(forecast(&f), "full in ~2 min at the last 29s's rate");
        // Noisy: 10.3 s at the line's rate; the range spans the fits' times, widened by the
        // margin, the points' scatter and the rate's uncertainty.
        let noisy: Vec<(f64, f64)> = [10.0, 12.0, 15.0, 15.0, 19.0]
            .iter()
            .enumerate()
            .map(|(i, y)| (i as f64, y * mib))
            .collect();
        assert_eq!(
            forecast(&fit(&noisy, 40.0 * mib)),
            "full in ~10 s (~1 s–~16 s) at the last 4s's rate"
        );
        let two = fit(&[(0.0, 0.0), (300.0, 100.0)], 400.0);
        assert_eq!(forecast(&two), "full in ~15 min at the last 5m's rate");
        let flat = fit(&[(0.0, 5.0), (60.0, 5.0), (120.0, 5.0)], 10.0);
        assert_eq!(flat.state, ForecastState::NotFilling);
        assert_eq!(forecast(&flat), "not filling (no growth for 120 s)");
        assert_eq!(forecast(&fit(&[(0.0, 9.0), (1.0, 10.0)], 10.0)), "full now");
        assert_eq!(
            forecast(&fit(&[(0.0, 1.0)], 10.0)),
            "no forecast yet (one sample)"
        );
        assert_eq!(
            [
                about(44.6),
                about(89.0),
                about(240.0),
                about(5400.0),
                about(3.0 * 86_400.0)
            ],
            ["~45 s", "~89 s", "~4 min", "~2 h", "~3 d"]
        );
        assert_eq!(about(f64::NAN), f::MISSING);
        assert_eq!(
            (window(f64::NAN), window(0.99)),
            ("0s".to_string(), "1s".to_string())
        );
    }
}
