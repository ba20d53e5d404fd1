//! When will it be full: the time until a store (the zswap pool, a swap area, all swap, a zram
//! device) reaches its limit, from its fill rate over a window of samples. Pure: the points come
//! from the caller (one per sample per target, [`Forecaster::push`]), nothing here reads a clock.
//!
//! The rate is the least-squares slope of (time, bytes used) over the window, not the change
//! between the window's first and last points: the endpoints' difference rests on two samples
//! and moves with the noise of each (a burst just before the last sample, a pool compacted
//! just after the first), while the fitted slope weighs every point and comes with its own
//! standard error, which gives the range. With n points and the slope `b` ± its standard error
//! `se`:
//!
//! - fewer than two points: nothing is guessed ([`ForecastState::TooFew`]);
//! - used already at or above the limit: [`ForecastState::Full`];
//! - `b ≤ 0`, or `b` within the 95 % interval of 0 (`b ≤ t·se`, `t` Student's two-sided 97.5 %
//!   quantile for n − 2 degrees of freedom): flat or draining, [`ForecastState::NotFilling`];
//! - otherwise filling: the time is `(limit − ŷ) ÷ b`, where `ŷ` is the fitted value at the
//!   last point (as Prometheus' `predict_linear` extrapolates from the fitted line, not from the
//!   last sample alone), and the range is the same remainder over `b + t·se` (earliest) and
//!   `b − t·se` (latest). Both ends exist: a rate whose interval reaches 0 is not filling. With
//!   exactly two points there is no standard error (no degree of freedom left): the time is
//!   given without a range.

use std::collections::{BTreeMap, VecDeque};

use schemars::JsonSchema;
use serde::Serialize;

use super::Snapshot;
use crate::sanitize::Sanitize;

/// The window the dashboard forecasts over by default: the last five minutes of samples.
pub const DEFAULT_WINDOW_SECONDS: f64 = 300.0;

/// The most points a series keeps whatever the window: 300 s at 0.1 s a sample is 3000. Bounds
/// memory when samples come faster than expected.
pub const MAX_POINTS: usize = 4096;

/// What a forecast found.
#[derive(Debug, Clone, PartialEq, Sanitize)]
pub enum ForecastState {
    /// Used grows at a rate distinguishable from 0: `seconds` is set.
    Filling,
    /// Flat or draining over the window (the rate is ≤ 0 or within the noise).
    NotFilling,
    /// Already at or above the limit.
    Full,
    /// Fewer than two points.
    TooFew,
    /// No forecast can be made, and why (the limit or the used size is unknown).
    Unknown(String),
}

impl ForecastState {
    /// The state's name in JSON.
    pub fn label(&self) -> &'static str {
        match self {
            ForecastState::Filling => "filling",
            ForecastState::NotFilling => "not_filling",
            ForecastState::Full => "full",
            ForecastState::TooFew => "too_few_samples",
            ForecastState::Unknown(_) => "unknown",
        }
    }
}

/// The time until a store is full, with its range and basis. Serialised through
/// [`ForecastJson`]: the state as a name, with a reason whenever `seconds` is null.
#[derive(Debug, Clone, PartialEq, Sanitize, JsonSchema)]
#[schemars(with = "ForecastJson")]
pub struct Forecast {
    /// Seconds from the last point until used reaches the limit at the fitted rate; 0 when
    /// full; `None` unless filling or full.
    pub seconds: Option<f64>,
    /// The range from the rate's 95 % interval: at the upper rate, and at the lower.
    pub earliest: Option<f64>,
    pub latest: Option<f64>,
    /// The time the points cover (last − first), the basis of the rate.
    pub window_seconds: f64,
    /// How many points the rate is fitted to.
    pub points: usize,
    /// The fitted rate (bytes per second) and its standard error (none with two points).
    pub rate_bytes_per_sec: Option<f64>,
    pub rate_stderr: Option<f64>,
    /// The last point's used size and the limit it is measured against.
    pub used_bytes: Option<f64>,
    pub limit_bytes: Option<f64>,
    pub state: ForecastState,
}

impl Forecast {
    fn empty(state: ForecastState) -> Forecast {
        Forecast {
            seconds: None,
            earliest: None,
            latest: None,
            window_seconds: 0.0,
            points: 0,
            rate_bytes_per_sec: None,
            rate_stderr: None,
            used_bytes: None,
            limit_bytes: None,
            state,
        }
    }

    /// Why `seconds` is null (`None` while filling or full).
    pub fn reason(&self) -> Option<String> {
        match &self.state {
            ForecastState::Filling | ForecastState::Full => None,
            ForecastState::NotFilling => Some(format!(
                "not filling: flat or draining over the last {:.0} s ({} samples)",
                self.window_seconds, self.points
            )),
            ForecastState::TooFew => {
                Some("fewer than two samples: no rate to forecast from".to_string())
            }
            ForecastState::Unknown(why) => Some(why.clone()),
        }
    }
}

/// The JSON form of a [`Forecast`].
#[derive(Serialize, JsonSchema)]
#[schemars(
    description = "The time until a store is full at its fill rate over the window: `seconds` (null unless filling or full, `reason` says why), the range from the rate's 95 % interval, and the basis (the points and the time they cover)."
)]
pub struct ForecastJson {
    /// Seconds until used reaches the limit at the fitted rate; 0 when full.
    #[schemars(range(min = 0))]
    pub seconds: Option<f64>,
    /// At the upper end of the rate's 95 % interval (none from two points).
    #[schemars(range(min = 0))]
    pub earliest_seconds: Option<f64>,
    /// At the lower end of the rate's 95 % interval.
    #[schemars(range(min = 0))]
    pub latest_seconds: Option<f64>,
    /// The time the points cover: the basis of the rate.
    #[schemars(range(min = 0))]
    pub window_seconds: f64,
    pub points: usize,
    /// The least-squares slope of used bytes over time.
    pub rate_bytes_per_sec: Option<f64>,
    pub rate_stderr_bytes_per_sec: Option<f64>,
    /// The last point's used size and the limit, in whole bytes as every size in the JSON.
    pub used_bytes: Option<u64>,
    pub limit_bytes: Option<u64>,
    #[schemars(extend("enum" = ["filling", "not_filling", "full", "too_few_samples", "unknown"]))]
    pub state: &'static str,
    /// Why `seconds` is null.
    pub reason: Option<String>,
}

impl Serialize for Forecast {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ForecastJson {
            seconds: self.seconds,
            earliest_seconds: self.earliest,
            latest_seconds: self.latest,
            window_seconds: self.window_seconds,
            points: self.points,
            rate_bytes_per_sec: self.rate_bytes_per_sec,
            rate_stderr_bytes_per_sec: self.rate_stderr,
            used_bytes: self.used_bytes.map(whole_bytes),
            limit_bytes: self.limit_bytes.map(whole_bytes),
            state: self.state.label(),
            reason: self.reason(),
        }
        .serialize(s)
    }
}

/// A size the forecast holds as a float (its points are fitted as floats), as whole bytes.
fn whole_bytes(v: f64) -> u64 {
    if v.is_finite() && v > 0.0 {
        v.round() as u64
    } else {
        0
    }
}

/// Student's t, two-sided 97.5 % quantile, for `dof` degrees of freedom (1–30 from the
/// tables; above, 1.96 + 2.4/dof, within 0.003 of the table at 40, 60 and 120).
pub fn t_quantile_975(dof: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match dof {
        0 => f64::INFINITY,
        1..=30 => T[dof - 1],
        _ => 1.96 + 2.4 / dof as f64,
    }
}

/// Running sums of points relative to an origin, for the least-squares fit.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sums {
    n: usize,
    t: f64,
    y: f64,
    tt: f64,
    ty: f64,
    yy: f64,
}

impl Sums {
    fn add(&mut self, t: f64, y: f64, sign: f64) {
        if sign > 0.0 {
            self.n += 1;
        } else {
            self.n = self.n.saturating_sub(1);
        }
        self.t += sign * t;
        self.y += sign * y;
        self.tt += sign * t * t;
        self.ty += sign * t * y;
        self.yy += sign * y * y;
    }
}

/// The least-squares line through points given as sums: slope, its standard error (`None` for
/// two points), and the fitted value at `t_at` (all relative to the sums' origin).
fn fit(s: &Sums, t_at: f64) -> Option<(f64, Option<f64>, f64)> {
    if s.n < 2 {
        return None;
    }
    let n = s.n as f64;
    let sxx = s.tt - s.t * s.t / n;
    if sxx.is_nan() || sxx <= 0.0 {
        // Every point at the same time: no rate.
        return None;
    }
    let sxy = s.ty - s.t * s.y / n;
    let syy = s.yy - s.y * s.y / n;
    let slope = sxy / sxx;
    let fitted = s.y / n + slope * (t_at - s.t / n);
    let se = (s.n > 2).then(|| {
        // Rounding can leave a perfect fit's residual a hair below 0.
        let rss = (syy - slope * sxy).max(0.0);
        (rss / (n - 2.0) / sxx).sqrt()
    });
    Some((slope, se, fitted))
}

/// A forecast from points `(t seconds, used bytes)` in time order against `limit`: the pure
/// function the ring below feeds. See the module's notes for how the time and range are made.
pub fn forecast(points: &[(f64, f64)], limit: f64) -> Forecast {
    let mut sums = Sums::default();
    let origin = points.first().copied().unwrap_or((0.0, 0.0));
    for &(t, y) in points {
        sums.add(t - origin.0, y - origin.1, 1.0);
    }
    let last = points.last().copied();
    from_sums(&sums, origin, points.first().map(|p| p.0), last, limit)
}

fn from_sums(
    sums: &Sums,
    origin: (f64, f64),
    first_t: Option<f64>,
    last: Option<(f64, f64)>,
    limit: f64,
) -> Forecast {
    let (Some(first_t), Some((last_t, last_y))) = (first_t, last) else {
        return Forecast::empty(ForecastState::TooFew);
    };
    let base = Forecast {
        window_seconds: last_t - first_t,
        points: sums.n,
        used_bytes: Some(last_y),
        limit_bytes: Some(limit),
        ..Forecast::empty(ForecastState::TooFew)
    };
    if !limit.is_finite() || limit <= 0.0 {
        return Forecast {
            state: ForecastState::Unknown("no limit to fill up to".to_string()),
            ..base
        };
    }
    if last_y >= limit {
        return Forecast {
            seconds: Some(0.0),
            state: ForecastState::Full,
            ..base
        };
    }
    let Some((slope, se, fitted)) = fit(sums, last_t - origin.0) else {
        return base;
    };
    let fitted = fitted + origin.1;
    let base = Forecast {
        rate_bytes_per_sec: Some(slope),
        rate_stderr: se,
        ..base
    };
    let t = t_quantile_975(sums.n.saturating_sub(2));
    let noise = se.map_or(0.0, |se| t * se);
    if slope.is_nan() || slope <= 0.0 || slope <= noise {
        return Forecast {
            state: ForecastState::NotFilling,
            ..base
        };
    }
    let remaining = (limit - fitted).max(0.0);
    Forecast {
        seconds: Some(remaining / slope),
        earliest: se.map(|_| remaining / (slope + noise)),
        latest: se.map(|_| remaining / (slope - noise)),
        state: ForecastState::Filling,
        ..base
    }
}

/// One target's points over the window. The fit is made from the points each time it is asked
/// for (O(n), n ≤ [`MAX_POINTS`]; a 5-minute window at one sample a second is 300 points), not
/// from running sums: the same points always give the same forecast to the last bit, whatever
/// came before them, so `export` (which has read every row before) and `--once --from` (which
/// reads only the window) say the same.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    points: VecDeque<(f64, f64)>,
    limit: Option<f64>,
    /// Why the limit is unknown, when it is.
    no_limit: Option<String>,
}

impl Series {
    /// Add a point at `t` (seconds, from a monotonic clock) and drop those older than
    /// `window` before it. A time before the last point's (a replay moved back) starts the
    /// series afresh; the same time replaces the last point.
    pub fn push(&mut self, t: f64, used: f64, window: f64) {
        if !t.is_finite() || !used.is_finite() {
            return;
        }
        match self.points.back().copied() {
            Some((last_t, _)) if t < last_t => self.points.clear(),
            Some((last_t, _)) if t == last_t => {
                self.points.pop_back();
            }
            _ => {}
        }
        self.points.push_back((t, used));
        while let Some(&(t0, _)) = self.points.front() {
            if t - t0 <= window && self.points.len() <= MAX_POINTS {
                break;
            }
            self.points.pop_front();
        }
    }

    /// How many points the series holds.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The forecast against the latest limit given.
    pub fn forecast(&self) -> Forecast {
        let Some(limit) = self.limit else {
            let why = self
                .no_limit
                .clone()
                .unwrap_or_else(|| "the limit is unknown".to_string());
            let (first, last) = (self.points.front(), self.points.back());
            return Forecast {
                used_bytes: last.map(|p| p.1),
                points: self.points.len(),
                window_seconds: match (first, last) {
                    (Some(a), Some(b)) => b.0 - a.0,
                    _ => 0.0,
                },
                ..Forecast::empty(ForecastState::Unknown(why))
            };
        };
        let (a, b) = self.points.as_slices();
        if b.is_empty() {
            forecast(a, limit)
        } else {
            forecast(&self.points.iter().copied().collect::<Vec<_>>(), limit)
        }
    }
}

/// What a forecast is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Sanitize)]
pub enum Target {
    /// The zswap pool against `max_pool_percent` of RAM: refusals start there.
    ZswapPool,
    /// All swap: SwapTotal − SwapFree against SwapTotal.
    AllSwap,
    /// One swap area (its `/proc/swaps` path): used against its size.
    SwapArea(String),
    /// A zram device's slots: orig_data_size against disksize.
    ZramSlots(String),
    /// A zram device's memory: mem_used_total against mem_limit (only when one is set).
    ZramMemory(String),
}

/// One target's reading in a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub target: Target,
    /// `None` when it could not be read this time (the series keeps its points).
    pub used_bytes: Option<u64>,
    /// The limit, or why there is none known.
    pub limit_bytes: Result<u64, String>,
}

/// The targets a snapshot shows, with their used sizes and limits: the pool (when the kernel
/// has zswap), all swap and each area (when `/proc/swaps` was read and swap exists), and each
/// zram device that is set up (its slots, and its memory when mem_limit is set).
pub fn observe(snap: &Snapshot) -> Vec<Observation> {
    let mut out = Vec::new();
    let z = &snap.zswap;
    if z.available {
        out.push(Observation {
            target: Target::ZswapPool,
            used_bytes: z.pool_bytes,
            limit_bytes: z.pool_limit_bytes.ok_or_else(|| {
                "the pool limit is unknown (max_pool_percent or MemTotal unread)".to_string()
            }),
        });
    }
    let swap = &snap.swap;
    if let Some(total) = swap.total_bytes.filter(|&t| t > 0) {
        out.push(Observation {
            target: Target::AllSwap,
            used_bytes: swap.used_bytes,
            limit_bytes: Ok(total),
        });
    }
    if swap.areas_known {
        for d in &swap.devices {
            out.push(Observation {
                target: Target::SwapArea(d.path.clone()),
                used_bytes: Some(d.used_bytes),
                limit_bytes: Ok(d.size_bytes),
            });
        }
    }
    for d in snap.zram.iter().filter(|d| d.initialized == Some(true)) {
        out.push(Observation {
            target: Target::ZramSlots(d.device.clone()),
            used_bytes: d.orig_data_bytes,
            limit_bytes: d
                .disksize_bytes
                .ok_or_else(|| "disksize is unknown".to_string()),
        });
        if let Some(limit) = d.mem_limit_bytes.filter(|&l| l > 0) {
            out.push(Observation {
                target: Target::ZramMemory(d.device.clone()),
                used_bytes: d.mem_used_bytes,
                limit_bytes: Ok(limit),
            });
        }
    }
    out
}

/// Every target's series, pruned to the window. Feed it one [`Observation`] list per sample
/// ([`Forecaster::push`]); a target missing from a push has vanished (a swap area switched off,
/// a zram device reset) and its series is dropped, so the map never outgrows what the machine
/// has.
#[derive(Debug, Clone, PartialEq)]
pub struct Forecaster {
    window_seconds: f64,
    series: BTreeMap<Target, Series>,
}

impl Default for Forecaster {
    fn default() -> Self {
        Forecaster::new(DEFAULT_WINDOW_SECONDS)
    }
}

impl Forecaster {
    pub fn new(window_seconds: f64) -> Forecaster {
        Forecaster {
            window_seconds: if window_seconds.is_finite() && window_seconds > 0.0 {
                window_seconds
            } else {
                DEFAULT_WINDOW_SECONDS
            },
            series: BTreeMap::new(),
        }
    }

    /// The window asked for.
    pub fn window_seconds(&self) -> f64 {
        self.window_seconds
    }

    /// One sample's observations at `t` (seconds of CLOCK_MONOTONIC, or a recording's time).
    pub fn push(&mut self, t: f64, observations: &[Observation]) {
        self.series
            .retain(|k, _| observations.iter().any(|o| &o.target == k));
        for o in observations {
            let s = self.series.entry(o.target.clone()).or_default();
            match &o.limit_bytes {
                Ok(l) => {
                    s.limit = Some(*l as f64);
                    s.no_limit = None;
                }
                Err(why) => {
                    s.limit = None;
                    s.no_limit = Some(why.clone());
                }
            }
            if let Some(used) = o.used_bytes {
                s.push(t, used as f64, self.window_seconds);
            }
        }
    }

    /// Forget every series (a replay jumped, the machine read changed).
    pub fn clear(&mut self) {
        self.series.clear();
    }

    /// The targets followed now.
    pub fn targets(&self) -> impl Iterator<Item = &Target> {
        self.series.keys()
    }

    /// The forecast for one target; [`ForecastState::Unknown`] for one not followed.
    pub fn forecast(&self, target: &Target) -> Forecast {
        self.series.get(target).map_or_else(
            || Forecast::empty(ForecastState::Unknown("not followed".to_string())),
            Series::forecast,
        )
    }

    /// Every forecast, grouped as the JSON names them.
    pub fn forecasts(&self) -> Forecasts {
        let pool = self
            .series
            .contains_key(&Target::ZswapPool)
            .then(|| self.forecast(&Target::ZswapPool));
        let swap = self
            .series
            .contains_key(&Target::AllSwap)
            .then(|| self.forecast(&Target::AllSwap));
        let mut swap_areas = Vec::new();
        let mut zram = Vec::new();
        for (k, s) in &self.series {
            match k {
                Target::SwapArea(path) => swap_areas.push(AreaForecast {
                    path: path.clone(),
                    forecast: s.forecast(),
                }),
                Target::ZramSlots(dev) => {
                    let memory = self
                        .series
                        .get(&Target::ZramMemory(dev.clone()))
                        .map(Series::forecast);
                    zram.push(ZramForecast::of(dev, s.forecast(), memory));
                }
                _ => {}
            }
        }
        Forecasts {
            window_seconds: self.window_seconds,
            zswap_pool_full_seconds: pool.as_ref().and_then(|f| f.seconds),
            zswap_pool: pool,
            swap_full_seconds: swap.as_ref().and_then(|f| f.seconds),
            swap,
            swap_areas,
            zram,
        }
    }
}

/// One swap area's forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct AreaForecast {
    pub path: String,
    #[serde(flatten)]
    pub forecast: Forecast,
}

/// Which of a zram device's two limits comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Sanitize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ZramBound {
    /// Its slots: orig_data_size reaches disksize.
    Disksize,
    /// Its memory: mem_used_total reaches mem_limit.
    MemLimit,
}

/// A zram device's forecast: its slots and, when mem_limit is set, its memory; the earlier of
/// the two, and which.
#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct ZramForecast {
    pub device: String,
    /// The earlier of the two (`null` when neither is filling or full, see `forecast.reason`).
    pub full_seconds: Option<f64>,
    /// The limit reached first; `null` when neither is filling or full.
    pub bound: Option<ZramBound>,
    /// The forecast `full_seconds` comes from (the slots' when neither fills).
    pub forecast: Forecast,
    pub slots: Forecast,
    pub memory: Option<Forecast>,
}

impl ZramForecast {
    /// The earlier of `slots` and `memory`.
    pub fn of(device: &str, slots: Forecast, memory: Option<Forecast>) -> ZramForecast {
        let (forecast, bound) = match (&slots.seconds, memory.as_ref().and_then(|m| m.seconds)) {
            (Some(s), Some(m)) if m < *s => (memory.clone(), Some(ZramBound::MemLimit)),
            (Some(_), _) => (Some(slots.clone()), Some(ZramBound::Disksize)),
            (None, Some(_)) => (memory.clone(), Some(ZramBound::MemLimit)),
            (None, None) => (Some(slots.clone()), None),
        };
        let forecast = forecast.unwrap_or_else(|| slots.clone());
        ZramForecast {
            device: device.to_string(),
            full_seconds: forecast.seconds,
            bound,
            forecast,
            slots,
            memory,
        }
    }
}

/// Every forecast of a sample, as `--once --json` and the views show them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Sanitize, JsonSchema)]
pub struct Forecasts {
    /// The window the rates are taken over (each forecast says what its points covered).
    pub window_seconds: f64,
    /// When the zswap pool reaches its limit (refusals start there); `null` unless filling.
    pub zswap_pool_full_seconds: Option<f64>,
    pub zswap_pool: Option<Forecast>,
    /// When all swap is used; `null` unless filling.
    pub swap_full_seconds: Option<f64>,
    pub swap: Option<Forecast>,
    pub swap_areas: Vec<AreaForecast>,
    pub zram: Vec<ZramForecast>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1_048_576.0;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// A straight line: 2 MiB/s from 100 MiB, limit 400 MiB, points every second for 30 s.
    /// By hand: at t = 29 used is 158 MiB, 242 MiB remain, 121 s at 2 MiB/s; no noise, so the
    /// range closes on the time.
    #[test]
    fn a_steady_fill() {
        let pts: Vec<(f64, f64)> = (0..30)
            .map(|i| (1000.0 + f64::from(i), (100.0 + 2.0 * f64::from(i)) * MIB))
            .collect();
        let f = forecast(&pts, 400.0 * MIB);
        assert_eq!(f.state, ForecastState::Filling);
        assert!(close(f.seconds.unwrap(), 121.0, 1e-6), "{f:?}");
        assert!(close(f.rate_bytes_per_sec.unwrap(), 2.0 * MIB, 1e-3));
        assert!(close(f.earliest.unwrap(), 121.0, 1e-3));
        assert!(close(f.latest.unwrap(), 121.0, 1e-3));
        assert_eq!((f.points, f.window_seconds), (30, 29.0));
        assert_eq!(f.reason(), None);
    }

    /// Five points worked through by hand. t = 0..4, y = 10, 12, 15, 15, 19 (MiB); limit 40.
    /// t̄ = 2, ȳ = 14.2; Sxx = 10; Sxy = (−2)(−4.2) + (−1)(−2.2) + 0 + (1)(0.8) + (2)(4.8)
    /// = 8.4 + 2.2 + 0.8 + 9.6 = 21; b = 2.1 MiB/s. Fitted at t = 4: 14.2 + 2.1 × 2 = 18.4;
    /// remaining 21.6 → 10.2857 s. Residuals: 10 − 10, 12 − 12.1, 15 − 14.2, 15 − 16.3,
    /// 19 − 18.4 → 0, −0.1, 0.8, −1.3, 0.6; RSS = 0 + 0.01 + 0.64 + 1.69 + 0.36 = 2.7;
    /// se = √(2.7 / 3 / 10) = 0.3; t(3) = 3.182 → ±0.9546: rate 1.1454 … 3.0546 MiB/s,
    /// 21.6 ÷ those: 7.0713 … 18.858 s.
    #[test]
    fn a_noisy_fill_by_hand() {
        let ys = [10.0, 12.0, 15.0, 15.0, 19.0];
        let pts: Vec<(f64, f64)> = ys
            .iter()
            .enumerate()
            .map(|(i, y)| (i as f64, y * MIB))
            .collect();
        let f = forecast(&pts, 40.0 * MIB);
        assert_eq!(f.state, ForecastState::Filling);
        assert!(close(f.rate_bytes_per_sec.unwrap() / MIB, 2.1, 1e-9));
        assert!(close(f.rate_stderr.unwrap() / MIB, 0.3, 1e-9));
        assert!(close(f.seconds.unwrap(), 21.6 / 2.1, 1e-9));
        assert!(close(f.earliest.unwrap(), 21.6 / (2.1 + 3.182 * 0.3), 1e-9));
        assert!(close(f.latest.unwrap(), 21.6 / (2.1 - 3.182 * 0.3), 1e-9));
    }

    #[test]
    fn flat_draining_noise_and_too_few() {
        let flat = [(0.0, 5.0), (1.0, 5.0), (2.0, 5.0)];
        assert_eq!(forecast(&flat, 10.0).state, ForecastState::NotFilling);
        let draining = [(0.0, 9.0), (1.0, 7.0), (2.0, 5.0)];
        let f = forecast(&draining, 10.0);
        assert_eq!(f.state, ForecastState::NotFilling);
        assert_eq!(f.seconds, None);
        assert!(f.reason().unwrap().contains("not filling"));
        // Up on average but within the noise: b = 0.1, se = √(5.1 / 3 / 10) = 0.41, and
        // t(3) × se = 1.31 > b → not filling.
        let noisy = [(0.0, 0.0), (1.0, 2.0), (2.0, -1.0), (3.0, 1.0), (4.0, 1.0)];
        let f = forecast(&noisy, 100.0);
        assert_eq!(f.state, ForecastState::NotFilling, "{f:?}");
        assert!(f.rate_bytes_per_sec.unwrap() > 0.0);
        assert_eq!(forecast(&[(0.0, 1.0)], 10.0).state, ForecastState::TooFew);
        assert_eq!(forecast(&[], 10.0).state, ForecastState::TooFew);
        // Two points: the time from their slope, no range.
        let f = forecast(&[(0.0, 2.0), (2.0, 4.0)], 10.0);
        assert_eq!(f.state, ForecastState::Filling);
        assert_eq!((f.seconds, f.earliest, f.latest), (Some(6.0), None, None));
        // Two points at the same time: no rate.
        assert_eq!(
            forecast(&[(1.0, 2.0), (1.0, 4.0)], 10.0).state,
            ForecastState::TooFew
        );
    }

    #[test]
    fn full_and_without_a_limit() {
        let f = forecast(&[(0.0, 2.0), (1.0, 10.0)], 10.0);
        assert_eq!(
            (f.state.clone(), f.seconds),
            (ForecastState::Full, Some(0.0))
        );
        let f = forecast(&[(0.0, 2.0), (1.0, 3.0)], 0.0);
        assert!(matches!(f.state, ForecastState::Unknown(_)));
        // The fitted line past the limit while the last point is below: full in 0 s. By hand:
        // b = 47, fitted at t = 3 is 143 > 142 (the last point 140).
        let f = forecast(
            &[(0.0, 0.0), (1.0, 50.0), (2.0, 100.0), (3.0, 140.0)],
            142.0,
        );
        assert_eq!(f.state, ForecastState::Filling);
        assert_eq!(f.seconds, Some(0.0));
    }

    /// The ring gives what the pure function gives over the points still in the window, at
    /// every step of a long run, and never holds more than the window.
    #[test]
    fn the_ring_equals_a_fit_of_its_window() {
        let mut s = Series::default();
        let window = 30.0;
        let mut all = Vec::new();
        for i in 0..2000u32 {
            let t = 1e6 + f64::from(i) * 0.5;
            // A saw-tooth with a trend: the sums must follow points leaving.
            let y = 5e9 + f64::from(i) * 1e5 + f64::from(i % 7) * 3e4;
            all.push((t, y));
            s.push(t, y, window);
            s.limit = Some(1e11);
            let inside: Vec<(f64, f64)> =
                all.iter().copied().filter(|p| t - p.0 <= window).collect();
            assert_eq!(s.len(), inside.len());
            if i > 2 && (i % 97 == 0 || i == 1999) {
                let a = s.forecast();
                let b = forecast(&inside, 1e11);
                assert_eq!(a.state, b.state);
                assert_eq!(a.points, b.points);
                let (x, y) = (a.seconds.unwrap(), b.seconds.unwrap());
                assert!((x - y).abs() <= 1e-6 * y, "step {i}: {x} vs {y}");
            }
        }
        assert_eq!(s.len(), 61);
    }

    #[test]
    fn time_going_back_starts_again_and_the_same_time_replaces() {
        let mut s = Series {
            limit: Some(100.0),
            ..Series::default()
        };
        for i in 0..5 {
            s.push(f64::from(i), f64::from(i), 300.0);
        }
        s.push(4.0, 8.0, 300.0);
        assert_eq!(s.len(), 5);
        assert_eq!(s.forecast().used_bytes, Some(8.0));
        s.push(2.0, 1.0, 300.0);
        assert_eq!(s.len(), 1, "a replay moved back: a new series");
        s.push(f64::NAN, 1.0, 300.0);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn at_most_max_points_whatever_the_window() {
        let mut s = Series::default();
        for i in 0..(MAX_POINTS as u32 + 500) {
            s.push(f64::from(i) * 1e-3, 1.0, 300.0);
        }
        assert_eq!(s.len(), MAX_POINTS);
    }

    fn obs(target: Target, used: u64, limit: u64) -> Observation {
        Observation {
            target,
            used_bytes: Some(used),
            limit_bytes: Ok(limit),
        }
    }

    #[test]
    fn targets_that_vanish_are_dropped() {
        let mut f = Forecaster::new(60.0);
        for i in 0..10u64 {
            let mut o = vec![
                obs(Target::ZswapPool, 100 + i * 10, 1000),
                obs(Target::AllSwap, 10, 100),
            ];
            if i < 5 {
                o.push(obs(Target::SwapArea("/swapfile".into()), 10, 100));
            }
            f.push(i as f64, &o);
        }
        let targets: Vec<&Target> = f.targets().collect();
        assert_eq!(targets, vec![&Target::ZswapPool, &Target::AllSwap]);
        let all = f.forecasts();
        // 190 used at t = 9, 10 a second: 81 s.
        assert_eq!(all.zswap_pool_full_seconds, Some(81.0));
        assert_eq!(all.swap_full_seconds, None);
        assert_eq!(all.swap.unwrap().state, ForecastState::NotFilling);
        assert!(all.swap_areas.is_empty());
        // An unknown limit says why; a reading missing once keeps the points.
        f.push(
            10.0,
            &[Observation {
                target: Target::ZswapPool,
                used_bytes: None,
                limit_bytes: Err("no limit here".into()),
            }],
        );
        let p = f.forecast(&Target::ZswapPool);
        assert_eq!(p.state, ForecastState::Unknown("no limit here".into()));
        assert_eq!(p.points, 10);
        assert_eq!(p.reason().as_deref(), Some("no limit here"));
    }

    #[test]
    fn zram_takes_the_earlier_limit_and_says_which() {
        let mut f = Forecaster::new(60.0);
        for i in 0..10u64 {
            f.push(
                i as f64,
                &[
                    // Slots: 10/s to 1000 from 100 + 90 → 81 s; memory: 5/s to 200 from 145 → 11 s.
                    obs(Target::ZramSlots("zram0".into()), 100 + i * 10, 1000),
                    obs(Target::ZramMemory("zram0".into()), 100 + i * 5, 200),
                    obs(Target::ZramSlots("zram1".into()), 100, 1000),
                ],
            );
        }
        let all = f.forecasts();
        assert_eq!(all.zram.len(), 2);
        let z0 = &all.zram[0];
        assert_eq!(
            (z0.bound, z0.full_seconds),
            (Some(ZramBound::MemLimit), Some(11.0))
        );
        assert_eq!(z0.slots.seconds, Some(81.0));
        let z1 = &all.zram[1];
        assert_eq!((z1.bound, z1.full_seconds), (None, None));
        assert_eq!(z1.forecast.state, ForecastState::NotFilling);
        let j = serde_json::to_value(&all).unwrap();
        assert_eq!(j["zram"][0]["full_seconds"], 11.0);
        assert_eq!(j["zram"][0]["bound"], "mem_limit");
        assert_eq!(j["zram"][1]["full_seconds"], serde_json::Value::Null);
        assert_eq!(j["zram"][1]["forecast"]["state"], "not_filling");
        assert!(j["zram"][1]["forecast"]["reason"].is_string());
    }

    proptest::proptest! {
        /// Any sequence: the ring and a fit of the points in its window agree, and whatever
        /// the forecast, its numbers are finite and its range holds the time.
        #[test]
        fn the_ring_agrees_and_the_range_holds_the_time(
            steps in proptest::collection::vec((0.01f64..5.0, -1e7f64..1e7), 2..400),
            window in 1.0f64..120.0,
            limit in 1e6f64..1e11,
        ) {
            let mut s = Series {
                limit: Some(limit),
                ..Series::default()
            };
            let (mut t, mut y) = (5e5, 1e9);
            let mut all = Vec::new();
            for (dt, dy) in steps {
                t += dt;
                y = (y + dy).max(0.0);
                all.push((t, y));
                s.push(t, y, window);
            }
            let inside: Vec<(f64, f64)> = all.iter().copied().filter(|p| t - p.0 <= window).collect();
            let (a, b) = (s.forecast(), forecast(&inside, limit));
            proptest::prop_assert_eq!(&a.state, &b.state);
            proptest::prop_assert_eq!(a.points, b.points);
            for f in [&a, &b] {
                for v in [f.seconds, f.earliest, f.latest, f.rate_bytes_per_sec, f.rate_stderr].into_iter().flatten() {
                    proptest::prop_assert!(v.is_finite());
                }
                if let (Some(e), Some(x), Some(l)) = (f.earliest, f.seconds, f.latest) {
                    proptest::prop_assert!(e <= x * (1.0 + 1e-9) && x <= l * (1.0 + 1e-9), "{f:?}");
                }
                if f.state == ForecastState::Filling {
                    proptest::prop_assert!(f.seconds.is_some_and(|x| x >= 0.0));
                }
            }
            if let (Some(x), Some(z)) = (a.seconds, b.seconds) {
                proptest::prop_assert!((x - z).abs() <= 1e-6 * z.max(1.0), "{x} vs {z}");
            }
        }

        /// A straight line: the time is what arithmetic gives, from any origin and scale.
        #[test]
        fn a_line_is_forecast_exactly(
            t0 in 0.0f64..1e7,
            y0 in 0.0f64..1e10,
            rate in 1.0f64..1e8,
            n in 2usize..200,
            dt in 0.1f64..10.0,
            room in 1e3f64..1e11,
        ) {
            let pts: Vec<(f64, f64)> = (0..n).map(|i| (t0 + i as f64 * dt, y0 + rate * i as f64 * dt)).collect();
            let last = pts[n - 1].1;
            let f = forecast(&pts, last + room);
            proptest::prop_assert_eq!(&f.state, &ForecastState::Filling);
            let x = f.seconds.unwrap_or(f64::NAN);
            proptest::prop_assert!((x - room / rate).abs() <= 1e-6 * (room / rate) + 1e-6, "{x} vs {}", room / rate);
        }
    }

    /// What a snapshot of a capture gives to forecast: the pool against its limit (in
    /// linux-6.18-loaded max_pool_percent 20 of MemTotal 24682416 kB, in whole pages as the
    /// kernel counts it: 6170604 × 20 / 100 = 1234120 pages), all swap and the swapfile against
    /// their sizes.
    #[test]
    fn observations_of_a_capture() {
        let root = crate::root::Root::at(format!(
            "{}/tests/fixtures/linux-6.18-loaded",
            env!("CARGO_MANIFEST_DIR")
        ));
        let snap = Snapshot::derive(&crate::sources::collect(&root), None);
        let o = observe(&snap);
        let get = |t: &Target| o.iter().find(|x| &x.target == t).unwrap();
        let pool = get(&Target::ZswapPool);
        assert_eq!(pool.used_bytes, Some(510_692 * 1024));
        const LIMIT: u64 = 1_234_120 * 4096;
        assert_eq!(pool.limit_bytes, Ok(LIMIT));
        assert_eq!(
            get(&Target::AllSwap).limit_bytes,
            Ok(2_097_148 * 1024),
            "SwapTotal"
        );
        let area = get(&Target::SwapArea("/swapfile-test".into()));
        assert_eq!(
            (area.used_bytes, area.limit_bytes.clone()),
            (Some(1_050_260 * 1024), Ok(2_097_148 * 1024))
        );
        assert_eq!(o.len(), 3, "zram0 is not set up there: {o:?}");
        // Two samples of it 10 s apart, the pool 5 MiB larger in the second: 0.5 MiB/s.
        let mut f = Forecaster::default();
        f.push(100.0, &o);
        let mut later = o.clone();
        later[0].used_bytes = pool.used_bytes.map(|u| u + 5 * 1_048_576);
        f.push(110.0, &later);
        let p = f.forecast(&Target::ZswapPool);
        let room = (LIMIT - 510_692 * 1024 - 5 * 1_048_576) as f64;
        assert_eq!(p.state, ForecastState::Filling);
        assert!(close(p.seconds.unwrap(), room / (0.5 * MIB), 1e-6));
        assert_eq!((p.points, p.window_seconds), (2, 10.0));
    }

    #[test]
    fn student_quantiles() {
        assert_eq!(t_quantile_975(1), 12.706);
        assert_eq!(t_quantile_975(30), 2.042);
        for (dof, table) in [(40, 2.021), (60, 2.000), (120, 1.980)] {
            assert!(close(t_quantile_975(dof), table, 0.003), "{dof}");
        }
        assert!(t_quantile_975(0).is_infinite());
    }
}
