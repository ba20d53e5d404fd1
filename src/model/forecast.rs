//! When will it be full: the time until a store (the zswap pool, a swap area, all swap, a zram
//! device) reaches its limit, from the growth its samples show. Pure: the points come from the
//! caller (one per sample per target, [`Forecaster::push`]), nothing here reads a clock.
//! docs/forecast.md says the model and what it was measured on; in short:
//!
//! - `full` follows the kernel: its refusal counter for the limit rose within the last 5 s (or
//!   the last interval), zswap still refuses since a hit (above its accept threshold), nothing
//!   was stored while pages went around zswap, or used is within one store of the limit;
//! - fewer than two points: nothing is guessed ([`ForecastState::TooFew`]);
//! - growth stopped (no rise for twice the longest pause between rises, 10–25 s), the rate is
//!   ≤ 0, or it is within two standard errors of 0: [`ForecastState::NotFilling`];
//! - otherwise filling, from exponentially weighted fits kept in O(1) a point: a line (30 s
//!   half-life); an exponential whose doubling time explains the points best, when the fill
//!   speeds up smoothly. A fill in bursts is forecast at its mean rate (pauses and all); its
//!   range spans every fit's time, widened by [`RANGE_MARGIN`], one interval and the longest
//!   pause.

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
    /// Flat or draining: growth stopped, the rate is ≤ 0, or it is within the noise.
    NotFilling,
    /// The kernel refuses stores for the limit, or used is within one store of it.
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

/// The fit a time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Sanitize)]
pub enum Model {
    /// A straight line: the rate now, steady.
    Line,
    /// An exponential: the rate now growing by its best-fitting doubling time, for a fill that
    /// speeds up.
    Curve,
}

impl Model {
    /// The model's name in JSON.
    pub fn label(self) -> &'static str {
        match self {
            Model::Line => "line",
            Model::Curve => "accelerating",
        }
    }
}

/// The time until a store is full, with its range and basis. Serialised through
/// [`ForecastJson`]: the state as a name, with a reason whenever `seconds` is null.
#[derive(Debug, Clone, PartialEq, Sanitize, JsonSchema)]
#[schemars(with = "ForecastJson")]
pub struct Forecast {
    /// Seconds from the last point until used reaches the limit; 0 when full; `None` unless
    /// filling or full.
    pub seconds: Option<f64>,
    /// The range: the earliest and latest of the fits' times, widened by the measured margin
    /// ([`RANGE_MARGIN`]); none from fewer than [`RANGE_MIN_POINTS`] points, and no latest
    /// when a fit sees no growth.
    pub earliest: Option<f64>,
    pub latest: Option<f64>,
    /// The time the points of the current stretch of growth cover (since the last change from
    /// flat to growing, within the window), and how many there are.
    pub window_seconds: f64,
    pub points: usize,
    /// The fit the time comes from and its half-life (the age at which a point weighs half).
    pub model: Option<Model>,
    pub half_life_seconds: Option<f64>,
    /// The fitted rate now (bytes per second) and its rise (bytes per second², the curve's).
    pub rate_bytes_per_sec: Option<f64>,
    pub acceleration: Option<f64>,
    /// The accelerating model's doubling time of the growing part (seconds).
    pub doubling_seconds: Option<f64>,
    /// The last point's used size and the limit it is measured against.
    pub used_bytes: Option<f64>,
    pub limit_bytes: Option<f64>,
    pub state: ForecastState,
    /// What made the state: the kernel's refusal for `full`, why it is not filling.
    pub evidence: Option<String>,
}

impl Forecast {
    fn empty(state: ForecastState) -> Forecast {
        Forecast {
            seconds: None,
            earliest: None,
            latest: None,
            window_seconds: 0.0,
            points: 0,
            model: None,
            half_life_seconds: None,
            rate_bytes_per_sec: None,
            acceleration: None,
            doubling_seconds: None,
            used_bytes: None,
            limit_bytes: None,
            state,
            evidence: None,
        }
    }

    /// Why `seconds` is null (`None` while filling or full).
    pub(crate) fn reason(&self) -> Option<String> {
        match &self.state {
            ForecastState::Filling | ForecastState::Full => None,
            ForecastState::NotFilling => Some(format!(
                "not filling: {}",
                self.evidence.as_deref().unwrap_or("flat or draining")
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
    description = "The time until a store is full (docs/forecast.md): `seconds` (null unless filling or full, `reason` says why), its range, and the basis (the model, its half-life, the points and the time they cover). `full` follows the kernel: it refuses stores for the limit (`evidence` says how it was seen)."
)]
pub struct ForecastJson {
    /// Seconds until used reaches the limit; 0 when full.
    #[schemars(range(min = 0))]
    pub seconds: Option<f64>,
    /// The range's ends: the fits' earliest and latest times widened by the measured margin;
    /// on the recorded fills of tests/fixtures/forecast-*.zsr the true time lay inside in at
    /// least 80 % of the samples. Null when it cannot be given (too few points; no latest when
    /// a fit sees no growth).
    #[schemars(range(min = 0))]
    pub earliest_seconds: Option<f64>,
    #[schemars(range(min = 0))]
    pub latest_seconds: Option<f64>,
    /// The time the points of the current stretch of growth cover (since growth last resumed
    /// after a flat stretch, within the window).
    #[schemars(range(min = 0))]
    pub window_seconds: f64,
    pub points: usize,
    /// The fit the time comes from: a straight line (the mean rate, pauses and all), or an
    /// exponential for a fill that speeds up.
    #[schemars(extend("enum" = ["line", "accelerating", null]))]
    pub model: Option<&'static str>,
    /// The fit's half-life: a point that age weighs half of the newest.
    pub half_life_seconds: Option<f64>,
    /// The fitted rate now, bytes per second.
    pub rate_bytes_per_sec: Option<f64>,
    /// The rate's rise, bytes per second per second (the accelerating model's).
    pub acceleration_bytes_per_sec2: Option<f64>,
    /// The accelerating model's doubling time: the growing part of an exponential fit
    /// a + b·2^(t / doubling), the doubling that explains the points best.
    pub doubling_seconds: Option<f64>,
    /// The last point's used size and the limit, in whole bytes as every size in the JSON.
    pub used_bytes: Option<u64>,
    pub limit_bytes: Option<u64>,
    #[schemars(extend("enum" = ["filling", "not_filling", "full", "too_few_samples", "unknown"]))]
    pub state: &'static str,
    /// Why `seconds` is null.
    pub reason: Option<String>,
    /// What made the state `full` (the kernel's refusal, or used within one store of the
    /// limit) or `not_filling`.
    pub evidence: Option<String>,
}

impl Serialize for Forecast {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ForecastJson {
            seconds: self.seconds,
            earliest_seconds: self.earliest,
            latest_seconds: self.latest,
            window_seconds: self.window_seconds,
            points: self.points,
            model: self.model.map(Model::label),
            half_life_seconds: self.half_life_seconds,
            rate_bytes_per_sec: self.rate_bytes_per_sec,
            acceleration_bytes_per_sec2: self.acceleration,
            doubling_seconds: self.doubling_seconds,
            used_bytes: self.used_bytes.map(whole_bytes),
            limit_bytes: self.limit_bytes.map(whole_bytes),
            state: self.state.label(),
            reason: self.reason(),
            evidence: self.evidence.clone(),
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

/// Exponentially weighted moments of the points (u = time relative to the newest point,
/// y = used relative to the newest point's), kept with the newest point as the origin: each
/// push moves the origin (the binomial shift of each moment), decays every weight by
/// 2^(−Δt / half-life) and adds the new point with weight 1. O(1) a point; nothing is
/// subtracted as points age, so no rounding builds up (an old point's share only shrinks).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ew {
    half_life: f64,
    /// Σw, Σw·u, Σw·u², Σw·u³, Σw·u⁴.
    u: [f64; 5],
    /// Σw², for the effective number of points.
    w2: f64,
    /// Σw·y, Σw·u·y, Σw·u²·y.
    y: [f64; 3],
    /// Σw·y².
    yy: f64,
    /// For each doubling time of [`DOUBLINGS`], with g = 2^(u / doubling): Σw·g, Σw·g²,
    /// Σw·g·y — the sums of an exponential fit y = a + b·g.
    e: [[f64; 3]; DOUBLINGS.len()],
    n: usize,
}

/// The doubling times (seconds) an exponential fit is tried with, √2 apart: the one that
/// explains the points best is taken for a fill that speeds up.
const DOUBLINGS: [f64; 10] = [5.0, 7.0, 10.0, 14.0, 20.0, 28.0, 40.0, 57.0, 80.0, 113.0];

/// An exponential fit y = a + b·2^(u / doubling) at the newest point (u = 0): `b` is the part
/// that grows, `rss` the weighted residual sum of squares.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Growth {
    doubling: f64,
    b: f64,
    rss: f64,
}

impl Growth {
    /// The rate now: b·ln 2 / doubling.
    fn rate(&self) -> f64 {
        self.b * std::f64::consts::LN_2 / self.doubling
    }

    /// The seconds until `room` more bytes: b·(2^(τ/doubling) − 1) = room.
    fn time_to(&self, room: f64) -> Option<f64> {
        if room <= 0.0 {
            return Some(0.0);
        }
        (self.b > 0.0).then(|| self.doubling * (room / self.b).ln_1p() / std::f64::consts::LN_2)
    }
}

/// A fitted line or curve, at the newest point: value (relative to the newest point), rate,
/// curvature (the coefficient of u², 0 for a line) and the standard errors of the rate and the
/// curvature where the points leave degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fit {
    value: f64,
    rate: f64,
    curve: f64,
    rate_se: Option<f64>,
    curve_se: Option<f64>,
    /// The residuals' standard deviation (bytes), where the points leave degrees of freedom.
    sigma: Option<f64>,
}

impl Ew {
    fn new(half_life: f64) -> Ew {
        Ew {
            half_life,
            u: [0.0; 5],
            w2: 0.0,
            y: [0.0; 3],
            yy: 0.0,
            e: [[0.0; 3]; DOUBLINGS.len()],
            n: 0,
        }
    }

    /// A point `dt` seconds after the newest, `dy` bytes above it.
    fn push(&mut self, dt: f64, dy: f64) {
        if self.n > 0 {
            let [s0, s1, s2, s3, s4] = self.u;
            let d = dt;
            let u1 = s1 - d * s0;
            let u2 = s2 - 2.0 * d * s1 + d * d * s0;
            let u3 = s3 - 3.0 * d * s2 + 3.0 * d * d * s1 - d.powi(3) * s0;
            let u4 = s4 - 4.0 * d * s3 + 6.0 * d * d * s2 - 4.0 * d.powi(3) * s1 + d.powi(4) * s0;
            let [y0, y1, y2] = self.y;
            let y1 = y1 - d * y0;
            let y2 = y2 - 2.0 * d * (self.y[1]) + d * d * y0;
            let yy = self.yy - 2.0 * dy * y0 + dy * dy * s0;
            let y0 = y0 - dy * s0;
            let y1 = y1 - dy * u1;
            let y2 = y2 - dy * u2;
            for (e, doubling) in self.e.iter_mut().zip(DOUBLINGS) {
                // g(u − d) = g(u)·2^(−d / doubling); y − dy.
                let s = (-d / doubling).exp2();
                let [g, gg, gy] = *e;
                *e = [g * s, gg * s * s, (gy - dy * g) * s];
            }
            let a = (-dt / self.half_life).exp2();
            for e in &mut self.e {
                e.iter_mut().for_each(|v| *v *= a);
            }
            self.u = [s0 * a, u1 * a, u2 * a, u3 * a, u4 * a];
            self.y = [y0 * a, y1 * a, y2 * a];
            self.yy = yy * a;
            self.w2 *= a * a;
        }
        self.u[0] += 1.0;
        self.w2 += 1.0;
        for e in &mut self.e {
            // The new point: g = 1, y = 0.
            e[0] += 1.0;
            e[1] += 1.0;
        }
        self.n += 1;
    }

    /// The exponential fit that explains the points best, if any grows.
    fn growth(&self) -> Option<Growth> {
        if self.n < 3 {
            return None;
        }
        let w = self.u[0];
        let (y0, yy) = (self.y[0], self.yy);
        self.e
            .iter()
            .zip(DOUBLINGS)
            .filter_map(|(&[g, gg, gy], doubling)| {
                let sgg = gg - g * g / w;
                if sgg.is_nan() || sgg <= 1e-12 * gg.abs().max(1e-300) {
                    return None;
                }
                let sgy = gy - g * y0 / w;
                let b = sgy / sgg;
                let rss = yy - y0 * y0 / w - b * sgy;
                Some(Growth { doubling, b, rss })
            })
            .min_by(|a, b| a.rss.total_cmp(&b.rss))
            .filter(|g| g.b > 0.0)
    }

    /// The degrees of freedom left by `p` fitted parameters (Σw − p·Σw²/Σw: n − p for equal
    /// weights), and the residual variance from the weighted residual sum of squares.
    fn variance(&self, rss: f64, p: f64) -> Option<f64> {
        let w = self.u[0];
        let dof = w - p * self.w2 / w;
        (dof > 1e-9).then(|| rss.max(0.0) / dof)
    }

    /// The weighted least-squares line.
    fn line(&self) -> Option<Fit> {
        if self.n < 2 {
            return None;
        }
        let [w, u1, u2, ..] = self.u;
        let suu = u2 - u1 * u1 / w;
        if suu.is_nan() || suu <= 1e-12 * u2.abs().max(1e-300) {
            return None;
        }
        let suy = self.y[1] - u1 * self.y[0] / w;
        let rate = suy / suu;
        let value = self.y[0] / w - rate * u1 / w;
        let rss = self.yy - self.y[0] * self.y[0] / w - rate * suy;
        let var = self.variance(rss, 2.0);
        Some(Fit {
            value,
            rate,
            curve: 0.0,
            rate_se: var.map(|v| (v / suu).sqrt()),
            curve_se: None,
            sigma: var.map(f64::sqrt),
        })
    }

    /// The weighted least-squares parabola (time scaled by the half-life for the solve).
    fn curve(&self) -> Option<Fit> {
        if self.n < 3 {
            return None;
        }
        let h = self.half_life;
        let m: [f64; 5] = std::array::from_fn(|k| self.u[k] / h.powi(k as i32));
        let r: [f64; 3] = std::array::from_fn(|k| self.y[k] / h.powi(k as i32));
        let a = [[m[0], m[1], m[2]], [m[1], m[2], m[3]], [m[2], m[3], m[4]]];
        let inv = inverse3(&a)?;
        let beta: [f64; 3] =
            std::array::from_fn(|i| inv[i][0] * r[0] + inv[i][1] * r[1] + inv[i][2] * r[2]);
        let rss = self.yy - (beta[0] * r[0] + beta[1] * r[1] + beta[2] * r[2]);
        let var = self.variance(rss, 3.0);
        Some(Fit {
            value: beta[0],
            rate: beta[1] / h,
            curve: beta[2] / (h * h),
            rate_se: var.map(|v| (v * inv[1][1]).max(0.0).sqrt() / h),
            curve_se: var.map(|v| (v * inv[2][2]).max(0.0).sqrt() / (h * h)),
            sigma: var.map(f64::sqrt),
        })
    }
}

/// The inverse of a symmetric 3×3 matrix, `None` when it is singular (points at fewer than
/// three distinct times) or nearly so.
fn inverse3(a: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let c = |i: usize, j: usize| {
        let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
        let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
        a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]
    };
    let det = a[0][0] * c(0, 0) + a[0][1] * c(0, 1) + a[0][2] * c(0, 2);
    let scale = a[0][0] * a[1][1] * a[2][2];
    if !det.is_finite() || det <= 1e-10 * scale.abs() || scale == 0.0 {
        return None;
    }
    Some(std::array::from_fn(|i| {
        std::array::from_fn(|j| c(j, i) / det)
    }))
}

/// The half-lives of the three fits: the steady line, the quick line (the rate of the last
/// seconds, for the range) and the curve. Chosen on the recorded fills (docs/forecast.md).
pub const LINE_HALF_LIFE: f64 = 30.0;
pub const QUICK_HALF_LIFE: f64 = 8.0;
pub const CURVE_HALF_LIFE: f64 = 10.0;

/// Growth has stopped when used has not risen for twice the longest pause between rises
/// within the window, at least [`FLAT_MIN_SECONDS`] and at most [`FLAT_MAX_SECONDS`]: a fill
/// that comes in bursts keeps filling through its pauses, one that stopped reads "not
/// filling" within 25 s.
pub const FLAT_MIN_SECONDS: f64 = 10.0;
/// Growth smaller than this share of the limit (above the level of the last rise) is no rise:
/// after a step the pool creeps by a few pages now and then (measured on a live step of
/// 57 MiB into a pool of 241 MiB: 20–98 KiB every 5–15 s for 45 s, 0.08 % of the limit in
/// all), and counted as growth it kept the forecast at "full in ~41 h" instead of "not
/// filling". A leak that slow (the limit in more than ~4 hours for the pool at 0.1 % per 15 s)
/// may be read as not filling between its rises.
pub const GROWTH_SHARE: f64 = 1.0 / 1024.0;
/// … and at most this much: on a swap area of 64 GiB a share alone would be 64 MiB, and a
/// leak of 1 MiB/s would read as pauses of a minute.
pub const GROWTH_MAX_BYTES: f64 = 1024.0 * 1024.0;
pub const FLAT_MAX_SECONDS: f64 = 25.0;

/// A refusal counted this recently (or over the last interval, when longer) keeps a target
/// full.
pub const REFUSAL_HOLD_SECONDS: f64 = 5.0;

/// The range's ends are the fits' earliest and latest times widened by this share and by one
/// sample interval (the truth is only known to a sample), measured on the recorded fills.
pub const RANGE_MARGIN: f64 = 0.15;
/// The fewest points a range is given from.
pub const RANGE_MIN_POINTS: usize = 5;

/// The curve is taken when its rise is positive at this many standard errors, the quick rate
/// exceeds the steady one by [`CURVE_RATE_RATIO`], and the fill has not paused for
/// [`BURSTY_PAUSE_SECONDS`] within the last [`BURSTY_RECENT_SECONDS`]: the points show a fill
/// speeding up smoothly.
/// Measured on the recorded fills: the quick rate over the steady one stayed ≤ 1.05 on the
/// steady fill (the pool's early catch-up bends it upwards too), and was 1.10 on the
/// accelerating one 30 s before its limit.
const CURVE_T: f64 = 3.0;
const CURVE_RATE_RATIO: f64 = 1.07;
/// A line's rate within this many standard errors of 0 is noise.
const NOISE_T: f64 = 2.0;
/// A fill that paused this long within the window comes in bursts: no curve is fitted to it
/// (a burst's start bends the points like an acceleration), and its range is widened by its
/// longest pause.
pub const BURSTY_PAUSE_SECONDS: f64 = 3.0;
/// A pause counts towards bursts for this long after it ended: three of the curve's half-lives,
/// after which its points weigh under an eighth in the curve's fit. A fill in bursts pauses
/// again within it (every 15 s on the recorded one); one pause before a fill that then grows
/// without stopping is no burst. Measured on a live accelerating fill (the rate doubling every
/// 20 s) whose pool sat still for 8 s before it grew: with the whole window's longest pause
/// it was read as bursts, and so as a line, to its end: +256 % 30 s before the limit.
pub const BURSTY_RECENT_SECONDS: f64 = 3.0 * CURVE_HALF_LIFE;

/// The seconds until `room` more bytes are used at `rate`, rising by `2·curve` a second, the
/// rise taken as exponential (the rate grows by the share `k = 2·curve / rate` a second, as a
/// leak that speeds up does: measured on the rate doubling every 20 s, the parabola itself
/// said +50 % 30 s before the limit, this +10 %).
fn time_to_exp(room: f64, rate: f64, curve: f64) -> Option<f64> {
    if room <= 0.0 {
        return Some(0.0);
    }
    if curve > 0.0 && rate > 0.0 {
        let k = 2.0 * curve / rate;
        return Some((k * room / rate).ln_1p() / k);
    }
    time_to(room, rate, curve)
}

/// The seconds until `room` more bytes are used at `rate`, rising by `2·curve` a second (the
/// parabola).
fn time_to(room: f64, rate: f64, curve: f64) -> Option<f64> {
    if room <= 0.0 {
        return Some(0.0);
    }
    if curve > 0.0 {
        let disc = rate * rate + 4.0 * curve * room;
        let den = rate + disc.sqrt();
        return (den > 0.0).then(|| 2.0 * room / den);
    }
    (rate > 0.0).then(|| room / rate)
}

/// The three fits of one stretch of growth.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Set {
    line: Ew,
    quick: Ew,
    curve: Ew,
}

impl Set {
    fn new(window: f64) -> Set {
        // A short window (an interval of `--once -i N`) bounds the half-lives too.
        let h = |x: f64| x.min(window / 4.0).max(1e-3);
        Set {
            line: Ew::new(h(LINE_HALF_LIFE)),
            quick: Ew::new(h(QUICK_HALF_LIFE)),
            curve: Ew::new(h(CURVE_HALF_LIFE)),
        }
    }

    fn push(&mut self, dt: f64, dy: f64) {
        self.line.push(dt, dy);
        self.quick.push(dt, dy);
        self.curve.push(dt, dy);
    }

    /// The curve's fit afresh from the newest point.
    fn restart_curve(&mut self) {
        self.curve = Ew::new(self.curve.half_life);
        self.curve.push(0.0, 0.0);
    }
}

/// The fits, forgetting what is older than the window: two sets taking turns, each started
/// afresh at every other boundary of half a window of the samples' clock (t ÷ (window/2)),
/// the older one answering. What they answer then rests on the points of the last window
/// only (half a window to a window of them, a point 150 s old weighing 1/32 at a 30 s
/// half-life), so a replay that jumps and feeds the window before its target says what the
/// dashboard said taking the samples one by one, to the bit.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fits {
    window: f64,
    /// Each set with the half-window it started in.
    sets: [Option<(i64, Set)>; 2],
}

impl Fits {
    fn new(window: f64) -> Fits {
        Fits {
            window,
            sets: [None, None],
        }
    }

    /// A point at `t`, `dt` after the newest and `dy` above it.
    fn push(&mut self, t: f64, dt: f64, dy: f64) {
        let epoch = (t / (self.window / 2.0)).floor() as i64;
        let slot = usize::from(epoch.rem_euclid(2) == 1);
        let other = self.sets[1 - slot].is_some();
        match self.sets[slot] {
            // Its half-window again: it goes on.
            Some((e, _)) if e == epoch => {}
            // Two half-windows old: afresh, once the other set holds the points since.
            Some(_) if !other => {}
            _ => self.sets[slot] = Some((epoch, Set::new(self.window))),
        }
        for (_, set) in self.sets.iter_mut().flatten() {
            set.push(dt, dy);
        }
    }

    /// The curve's fits afresh from the newest point (see [`Series::push`]).
    fn restart_curve(&mut self) {
        for (_, set) in self.sets.iter_mut().flatten() {
            set.restart_curve();
        }
    }

    /// The set that started first.
    fn used(&self) -> Option<&Set> {
        self.sets
            .iter()
            .flatten()
            .min_by_key(|(e, _)| *e)
            .map(|(_, s)| s)
    }
}

/// One target's state: the fits of its current stretch of growth, when it last rose, and the
/// kernel's refusals. Every push is O(1) (the ring of times for the basis is amortised O(1)).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    window: f64,
    fits: Fits,
    /// The fits before the newest point, to replace it when a point comes at the same time.
    before: Option<(Fits, Option<(f64, f64)>)>,
    /// The newest point, and the one before it.
    last: Option<(f64, f64)>,
    prev: Option<(f64, f64)>,
    /// The times of the stretch's points within the window (for the basis only).
    times: VecDeque<f64>,
    /// Growth: the level at the last rise (a fall moves it down), when that was, and the
    /// pauses between rises within the window (end, length), longest first kept by a
    /// monotonic queue.
    anchor: f64,
    last_rise: f64,
    pauses: VecDeque<(f64, f64)>,
    stopped: bool,
    /// Whether used has risen since the series started.
    rose: bool,
    /// A rise smaller than this is not one: one store (a page).
    step: f64,
    limit: Option<f64>,
    /// Why the limit is unknown, when it is.
    no_limit: Option<String>,
    /// The kernel's refusals: its counter's name and last value, when it last rose and by how
    /// much over what time; whether it refuses until used is below `resume_below` (zswap's
    /// accept threshold) and evidence of refusing seen in the last sample alone.
    counter: Option<(&'static str, u64)>,
    refused: Option<(f64, u64, f64)>,
    holding: bool,
    resume_below: Option<f64>,
    refusing_now: Option<String>,
}

impl Default for Series {
    fn default() -> Self {
        Series::new(DEFAULT_WINDOW_SECONDS)
    }
}

impl Series {
    fn new(window: f64) -> Series {
        Series {
            window,
            fits: Fits::new(window),
            before: None,
            last: None,
            prev: None,
            times: VecDeque::new(),
            anchor: 0.0,
            last_rise: 0.0,
            pauses: VecDeque::new(),
            stopped: false,
            rose: false,
            step: 0.0,
            limit: None,
            no_limit: None,
            counter: None,
            refused: None,
            holding: false,
            resume_below: None,
            refusing_now: None,
        }
    }

    /// Start a stretch at `from` (and `to`, when given).
    fn restart(&mut self, from: (f64, f64)) {
        self.fits = Fits::new(self.window);
        self.fits.push(from.0, 0.0, 0.0);
        self.times.clear();
        self.times.push_back(from.0);
        self.last = Some(from);
    }

    /// Add a point at `t` (seconds, from a monotonic clock). A time before the last point's
    /// (a replay moved back) or after a gap longer than the window starts the series afresh;
    /// the same time replaces the last point.
    pub(crate) fn push(&mut self, t: f64, used: f64, window: f64) {
        if !t.is_finite() || !used.is_finite() {
            return;
        }
        if window != self.window && window.is_finite() && window > 0.0 {
            *self = Series {
                limit: self.limit,
                no_limit: self.no_limit.take(),
                step: self.step,
                ..Series::new(window)
            };
        }
        if let Some((last_t, _)) = self.last {
            if t == last_t
                && let Some((fits, last)) = self.before.take()
            {
                self.fits = fits;
                self.last = last;
                self.times.pop_back();
            } else if t < last_t || t - last_t > self.window {
                *self = Series {
                    limit: self.limit,
                    no_limit: self.no_limit.take(),
                    step: self.step,
                    resume_below: self.resume_below,
                    ..Series::new(self.window)
                };
            }
        }
        let Some((last_t, last_y)) = self.last else {
            self.restart((t, used));
            self.before = None;
            self.prev = None;
            self.anchor = used;
            self.last_rise = t;
            return;
        };
        // Growth resumed after it had stopped: a new stretch, from the last flat point.
        let rises = used > self.anchor + self.rise_step();
        if rises && self.stopped {
            self.restart((last_t, last_y));
            self.stopped = false;
        }
        self.before = Some((self.fits, self.last));
        // Growth after a pause: the curve forgets the flat points before it. It is taken only
        // for a fill that has not paused for [`BURSTY_RECENT_SECONDS`], so it then sees at
        // least that much growth; a flat stretch with the growth after it bends an exponential
        // towards a shorter doubling time. Measured on a live fill whose rate doubled every
        // 20 s after 9.5 s of a still pool: the fit over the whole stretch took 10 s 43 s
        // before the limit and 14 s 30 s before (−21 %); over the growth alone, 20 s.
        if rises && t - self.last_rise >= BURSTY_PAUSE_SECONDS {
            self.fits.restart_curve();
        }
        self.fits.push(t, t - last_t, used - last_y);
        self.prev = self.last;
        self.last = Some((t, used));
        self.times.push_back(t);
        while let Some(&t0) = self.times.front() {
            if t - t0 <= self.window && self.times.len() <= MAX_POINTS {
                break;
            }
            self.times.pop_front();
        }
        if rises {
            // The flat stretch before the first rise is no pause of the fill.
            if self.rose {
                let pause = t - self.last_rise;
                while self.pauses.back().is_some_and(|p| p.1 <= pause) {
                    self.pauses.pop_back();
                }
                self.pauses.push_back((t, pause));
            }
            self.rose = true;
            self.last_rise = t;
            self.anchor = used;
        } else if used < self.anchor - self.rise_step() {
            self.anchor = used;
        }
        while self.pauses.front().is_some_and(|p| t - p.0 > self.window) {
            self.pauses.pop_front();
        }
        if t - self.last_rise >= self.flat_after() {
            self.stopped = true;
        }
    }

    /// The least growth that is a rise: one store, and [`GROWTH_SHARE`] of the limit up to
    /// [`GROWTH_MAX_BYTES`].
    fn rise_step(&self) -> f64 {
        let share = self
            .limit
            .map_or(0.0, |l| (l * GROWTH_SHARE).min(GROWTH_MAX_BYTES));
        self.step.max(share)
    }

    /// The longest pause between rises that ended within the last [`BURSTY_RECENT_SECONDS`]
    /// before `t`, or the one going on. The queue holds the pauses in the order they ended,
    /// each shorter than the one before it, so the first that ended recently is the longest
    /// of those.
    fn recent_pause(&self, t: f64) -> f64 {
        let ended = self
            .pauses
            .iter()
            .find(|p| t - p.0 <= BURSTY_RECENT_SECONDS)
            .map_or(0.0, |p| p.1);
        let going_on = if self.rose { t - self.last_rise } else { 0.0 };
        ended.max(going_on)
    }

    /// How long without a rise means growth has stopped (see [`FLAT_MIN_SECONDS`]).
    fn flat_after(&self) -> f64 {
        let longest = self.pauses.front().map_or(0.0, |p| p.1);
        (2.0 * longest).clamp(FLAT_MIN_SECONDS, FLAT_MAX_SECONDS)
    }

    /// The kernel's refusal counter for this target at `t` (after the point of `t` is pushed).
    fn refusals(&mut self, t: f64, counter: Option<(&'static str, u64)>) {
        if let (Some((_, before)), Some((name, now))) = (self.counter, counter) {
            if now > before {
                let over = self.prev.map_or(0.0, |p| t - p.0);
                self.refused = Some((t, now - before, over));
                self.holding = true;
            }
            self.counter = Some((name, now));
        } else {
            self.counter = counter;
        }
        if let (Some(r), Some((_, used))) = (self.resume_below, self.last)
            && used <= r
        {
            self.holding = false;
        }
    }

    /// How many points the series holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.times.len()
    }

    /// Why the target is full, if the kernel says it is (or used is within one store).
    fn full_evidence(&self, limit: f64) -> Option<String> {
        let (t, used) = self.last?;
        let name = self.counter.map_or("refusals", |c| c.0);
        if let Some((at, by, over)) = self.refused {
            let interval = self.prev.map_or(0.0, |p| t - p.0);
            if t - at <= REFUSAL_HOLD_SECONDS.max(interval * 1.01) {
                return Some(format!(
                    "the kernel refuses stores: {name} rose by {by} over {over:.1} s"
                ));
            }
        }
        if self.holding
            && let Some(r) = self.resume_below
            && used > r
        {
            return Some(format!(
                "the kernel refuses stores since {name} last rose, until used is below its \
                 accept threshold ({} bytes)",
                r.round()
            ));
        }
        if let Some(why) = &self.refusing_now {
            return Some(why.clone());
        }
        (used >= limit - self.step).then(|| {
            if self.step > 0.0 {
                format!(
                    "within one store ({:.0} bytes) of the limit",
                    self.step.round()
                )
            } else {
                "at the limit".to_string()
            }
        })
    }

    /// The forecast against the latest limit given.
    pub(crate) fn forecast(&self) -> Forecast {
        let (first, last) = (self.times.front(), self.last);
        let base = Forecast {
            used_bytes: last.map(|p| p.1),
            points: self.times.len(),
            window_seconds: match (first, last) {
                (Some(a), Some(b)) => b.0 - a,
                _ => 0.0,
            },
            limit_bytes: self.limit,
            ..Forecast::empty(ForecastState::TooFew)
        };
        let Some(limit) = self.limit else {
            let why = self
                .no_limit
                .clone()
                .unwrap_or_else(|| "the limit is unknown".to_string());
            return Forecast {
                state: ForecastState::Unknown(why),
                ..base
            };
        };
        if !limit.is_finite() || limit <= 0.0 {
            return Forecast {
                state: ForecastState::Unknown("no limit to fill up to".to_string()),
                ..base
            };
        }
        let Some((t, used)) = last else {
            return base;
        };
        if let Some(why) = self.full_evidence(limit) {
            return Forecast {
                seconds: Some(0.0),
                state: ForecastState::Full,
                evidence: Some(why),
                ..base
            };
        }
        let Some((fits, line)) = self.fits.used().and_then(|f| Some((f, f.line.line()?))) else {
            return base;
        };
        let base = Forecast {
            model: Some(Model::Line),
            half_life_seconds: Some(fits.line.half_life),
            rate_bytes_per_sec: Some(line.rate),
            ..base
        };
        let not_filling = |base: &Forecast, why: String| Forecast {
            state: ForecastState::NotFilling,
            evidence: Some(why),
            ..base.clone()
        };
        let idle = t - self.last_rise;
        if self.stopped || idle >= self.flat_after() {
            return not_filling(&base, format!("no growth for {idle:.0} s"));
        }
        if line.rate.is_nan() || line.rate <= 0.0 {
            let how = if line.rate < 0.0 { "draining" } else { "flat" };
            return not_filling(&base, how.to_string());
        }
        if line.rate_se.is_some_and(|se| line.rate <= NOISE_T * se) {
            return not_filling(&base, "the rate is within the noise".to_string());
        }
        let room = limit - used;
        let quick = fits.quick.line();
        let curve = fits.curve.curve().filter(|c| c.curve > 0.0);
        let longest_pause = self.pauses.front().map_or(0.0, |p| p.1);
        let bursty = self.recent_pause(t) >= BURSTY_PAUSE_SECONDS;
        let accelerating = curve.filter(|c| {
            !bursty
                && c.curve_se.is_some_and(|se| c.curve > CURVE_T * se)
                && quick.is_some_and(|q| q.rate > CURVE_RATE_RATIO * line.rate)
        });
        let growth = accelerating.and_then(|_| fits.curve.growth());
        let (seconds, base) = match accelerating.zip(growth) {
            Some((c, g)) => (
                g.time_to(room),
                Forecast {
                    model: Some(Model::Curve),
                    half_life_seconds: Some(fits.curve.half_life),
                    rate_bytes_per_sec: Some(g.rate()),
                    acceleration: Some(2.0 * c.curve),
                    doubling_seconds: Some(g.doubling),
                    ..base
                },
            ),
            None => (time_to(room, line.rate, 0.0), base),
        };
        let Some(seconds) = seconds else {
            return not_filling(&base, "draining".to_string());
        };
        // The range: every fit's time, widened; no latest when a fit sees no growth.
        let (mut earliest, mut latest) = (seconds, Some(seconds));
        let times = [
            Some(time_to(room, line.rate, 0.0)),
            quick.map(|q| time_to(room, q.rate, 0.0)),
            curve.map(|c| time_to(room, c.rate, c.curve)),
            // A significant rise not taken for the time still bounds how early it may come.
            curve
                .filter(|c| c.curve_se.is_some_and(|se| c.curve > CURVE_T * se))
                .map(|c| time_to_exp(room, c.rate, c.curve)),
        ];
        for x in times.into_iter().flatten() {
            match x {
                Some(x) => {
                    earliest = earliest.min(x);
                    latest = latest.map(|l| l.max(x));
                }
                None => latest = None,
            }
        }
        // Widened by the margin and one interval, and a fill that pauses by its longest pause
        // (the limit may come before the next pause, or after one more).
        // A noisy fill: the time its scatter about the line takes at the line's rate, and the
        // rate's own uncertainty over the time (both at 2 standard errors). Measured on a fill
        // whose rate varied 0.2–1.8× each second: without them the range held the truth in
        // 61 % of the rows.
        let dt = self.prev.map_or(0.0, |p| t - p.0);
        let scatter = line.sigma.map_or(0.0, |s| NOISE_T * s / line.rate)
            + line
                .rate_se
                .map_or(0.0, |se| NOISE_T * se / line.rate * seconds);
        let slack = dt + scatter + if bursty { longest_pause } else { 0.0 };
        let ranged = self.times.len() >= RANGE_MIN_POINTS;
        Forecast {
            seconds: Some(seconds),
            earliest: ranged.then(|| (earliest * (1.0 - RANGE_MARGIN) - slack).max(0.0)),
            latest: latest
                .filter(|_| ranged)
                .map(|l| l * (1.0 + RANGE_MARGIN) + slack),
            state: ForecastState::Filling,
            ..base
        }
    }
}

/// A forecast from points `(t seconds, used bytes)` in time order against `limit`, as a
/// series fed those points gives it.
#[cfg(test)]
pub(crate) fn forecast(points: &[(f64, f64)], limit: f64) -> Forecast {
    let mut s = Series {
        limit: Some(limit),
        ..Series::default()
    };
    for &(t, y) in points {
        s.push(t, y, DEFAULT_WINDOW_SECONDS);
    }
    s.forecast()
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
    /// One store: what the next store takes at most (a page); used within this of the limit
    /// is full, and growth smaller than this is not growth.
    pub store_bytes: u64,
    /// The kernel's count of stores it refused for this limit (its name and value): the
    /// pool's `pool_limit_hit`, a zram device's `failed_writes` against its mem_limit.
    pub refusals: Option<(&'static str, u64)>,
    /// After a refusal the kernel refuses every store until used is at or below this (zswap's
    /// accept threshold).
    pub resume_below: Option<u64>,
    /// Evidence, in this sample alone, that the kernel refuses every store.
    pub refusing: Option<String>,
}

impl Observation {
    /// A reading with no refusal evidence and stores of one byte.
    pub(crate) fn plain(
        target: Target,
        used_bytes: Option<u64>,
        limit_bytes: Result<u64, String>,
    ) -> Self {
        Observation {
            target,
            used_bytes,
            limit_bytes,
            store_bytes: 0,
            refusals: None,
            resume_below: None,
            refusing: None,
        }
    }
}

/// Evidence in one snapshot that zswap refuses every store since a limit hit: nothing stored
/// over the interval while pages went to swap around zswap, with the pool above its accept
/// threshold after a hit (mm/zswap.c `zswap_check_limits`: once full, every store is refused
/// until the pool is at or below the threshold, and those refusals are not counted).
fn pool_refusing(snap: &Snapshot) -> Option<String> {
    let z = &snap.zswap;
    let r = snap.rates.as_ref()?;
    let hits = z
        .debugfs
        .as_ref()
        .and_then(|d| d.get("pool_limit_hit").copied());
    let above = z.pool_bytes? > z.accept_threshold_bytes?;
    let bypassed = r.bypassed_zswap_bytes_per_sec.filter(|&b| b > 0.0)?;
    (z.enabled == Some(true)
        && above
        && r.zswpout_bytes_per_sec == Some(0.0)
        && hits != Some(0))
    .then(|| {
        format!(
            "the kernel refuses every store: none accepted over {:.1} s while {:.0} bytes/s went \
             to swap around zswap, the pool above its accept threshold after a limit hit",
            r.interval_seconds, bypassed
        )
    })
}

/// The targets a snapshot shows, with their used sizes and limits: the pool (when the kernel
/// has zswap), all swap and each area (when `/proc/swaps` was read and swap exists), and each
/// zram device that is set up (its slots, and its memory when mem_limit is set), each with the
/// kernel's evidence of refusing stores where it keeps any.
pub(crate) fn observe(snap: &Snapshot) -> Vec<Observation> {
    let mut out = Vec::new();
    let page = snap.page_size.bytes;
    let z = &snap.zswap;
    if z.available {
        out.push(Observation {
            store_bytes: page,
            refusals: z
                .debugfs
                .as_ref()
                .and_then(|d| d.get("pool_limit_hit").copied())
                .map(|n| ("pool_limit_hit", n)),
            resume_below: z.accept_threshold_bytes,
            refusing: pool_refusing(snap),
            ..Observation::plain(
                Target::ZswapPool,
                z.pool_bytes,
                z.pool_limit_bytes.ok_or_else(|| {
                    "the pool limit is unknown (max_pool_percent or MemTotal unread)".to_string()
                }),
            )
        });
    }
    let swap = &snap.swap;
    if let Some(total) = swap.total_bytes.filter(|&t| t > 0) {
        out.push(Observation {
            store_bytes: page,
            ..Observation::plain(Target::AllSwap, swap.used_bytes, Ok(total))
        });
    }
    if swap.areas_known {
        for d in &swap.devices {
            out.push(Observation {
                store_bytes: page,
                ..Observation::plain(
                    Target::SwapArea(d.path.clone()),
                    Some(d.used_bytes),
                    Ok(d.size_bytes),
                )
            });
        }
    }
    for d in snap.zram.iter().filter(|d| d.initialized == Some(true)) {
        out.push(Observation {
            store_bytes: page,
            ..Observation::plain(
                Target::ZramSlots(d.device.clone()),
                d.orig_data_bytes,
                d.disksize_bytes
                    .ok_or_else(|| "disksize is unknown".to_string()),
            )
        });
        if let Some(limit) = d.mem_limit_bytes.filter(|&l| l > 0) {
            out.push(Observation {
                store_bytes: page,
                refusals: d.failed_writes.map(|n| ("failed_writes", n)),
                ..Observation::plain(
                    Target::ZramMemory(d.device.clone()),
                    d.mem_used_bytes,
                    Ok(limit),
                )
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
    pub(crate) fn new(window_seconds: f64) -> Forecaster {
        Forecaster {
            window_seconds: if window_seconds.is_finite() && window_seconds > 0.0 {
                window_seconds
            } else {
                DEFAULT_WINDOW_SECONDS
            },
            series: BTreeMap::new(),
        }
    }

    /// One sample's observations at `t` (seconds of CLOCK_MONOTONIC, or a recording's time).
    pub(crate) fn push(&mut self, t: f64, observations: &[Observation]) {
        self.series
            .retain(|k, _| observations.iter().any(|o| &o.target == k));
        for o in observations {
            let s = self
                .series
                .entry(o.target.clone())
                .or_insert_with(|| Series::new(self.window_seconds));
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
            s.step = o.store_bytes as f64;
            s.resume_below = o.resume_below.map(|r| r as f64);
            s.refusing_now.clone_from(&o.refusing);
            if let Some(used) = o.used_bytes {
                s.push(t, used as f64, self.window_seconds);
                s.refusals(t, o.refusals);
            }
        }
    }

    /// Forget every series (a replay jumped, the machine read changed).
    pub(crate) fn clear(&mut self) {
        self.series.clear();
    }

    /// The targets followed now.
    #[cfg(test)]
    pub(crate) fn targets(&self) -> impl Iterator<Item = &Target> {
        self.series.keys()
    }

    /// The forecast for one target; [`ForecastState::Unknown`] for one not followed.
    pub(crate) fn forecast(&self, target: &Target) -> Forecast {
        self.series.get(target).map_or_else(
            || Forecast::empty(ForecastState::Unknown("not followed".to_string())),
            Series::forecast,
        )
    }

    /// Every forecast, grouped as the JSON names them.
    pub(crate) fn forecasts(&self) -> Forecasts {
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
    pub(crate) fn of(device: &str, slots: Forecast, memory: Option<Forecast>) -> ZramForecast {
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

    fn series(limit: f64, points: impl IntoIterator<Item = (f64, f64)>) -> Series {
        let mut s = Series {
            limit: Some(limit),
            ..Series::default()
        };
        for (t, y) in points {
            s.push(t, y, DEFAULT_WINDOW_SECONDS);
        }
        s
    }

    /// A straight line: 2 MiB/s from 100 MiB, limit 400 MiB, points every second for 30 s.
    /// By hand: at t = 29 used is 158 MiB, 242 MiB remain, 121 s at 2 MiB/s. Every fit sees the
    /// same rate, so the range is the time widened by the margin and one interval.
    #[test]
    fn a_steady_fill() {
        let pts: Vec<(f64, f64)> = (0..30)
            .map(|i| (1000.0 + f64::from(i), (100.0 + 2.0 * f64::from(i)) * MIB))
            .collect();
        let f = forecast(&pts, 400.0 * MIB);
        assert_eq!(f.state, ForecastState::Filling);
        assert_eq!(f.model, Some(Model::Line));
        assert!(close(f.seconds.unwrap(), 121.0, 1e-6), "{f:?}");
        assert!(close(f.rate_bytes_per_sec.unwrap(), 2.0 * MIB, 1e-3));
        assert!(
            close(f.earliest.unwrap(), 121.0 * 0.85 - 1.0, 1e-3),
            "{f:?}"
        );
        assert!(close(f.latest.unwrap(), 121.0 * 1.15 + 1.0, 1e-3), "{f:?}");
        assert_eq!((f.points, f.window_seconds), (30, 29.0));
        assert_eq!(f.half_life_seconds, Some(LINE_HALF_LIFE));
        assert_eq!(f.reason(), None);
    }

    /// The moments kept in O(1) a point give what a weighted least-squares fit computed from
    /// every point with its weight 2^(−age / half-life) gives, at every step of a long run.
    #[test]
    fn the_running_moments_equal_a_direct_weighted_fit() {
        let mut ew = Ew::new(7.0);
        let mut all: Vec<(f64, f64)> = Vec::new();
        let mut last = (0.0, 0.0);
        for i in 0..400u32 {
            let t = 1e6 + f64::from(i) * 0.7 + f64::from(i % 3) * 0.1;
            let y = 5e9 + f64::from(i) * 1e5 + f64::from(i % 7) * 3e4 + f64::from(i * i) * 40.0;
            if i > 0 {
                ew.push(t - last.0, y - last.1);
            } else {
                ew.push(0.0, 0.0);
            }
            last = (t, y);
            all.push((t, y));
            if i < 3 || i % 37 != 0 {
                continue;
            }
            // By the definition: weighted sums over every point, relative to the newest.
            let w: Vec<f64> = all.iter().map(|p| (-(t - p.0) / 7.0).exp2()).collect();
            let sum = |f: &dyn Fn(f64, f64) -> f64| -> f64 {
                all.iter()
                    .zip(&w)
                    .map(|(p, w)| w * f(p.0 - t, p.1 - y))
                    .sum()
            };
            let (s0, s1, s2) = (sum(&|_, _| 1.0), sum(&|u, _| u), sum(&|u, _| u * u));
            let (y0, y1) = (sum(&|_, v| v), sum(&|u, v| u * v));
            let slope = (y1 - s1 * y0 / s0) / (s2 - s1 * s1 / s0);
            let line = ew.line().unwrap();
            assert!(
                (line.rate - slope).abs() <= 1e-6 * slope.abs(),
                "step {i}: {} vs {slope}",
                line.rate
            );
        }
    }

    /// A parabola through exact points is found exactly: rate and curvature at the newest.
    #[test]
    fn the_curve_of_a_parabola() {
        let mut ew = Ew::new(15.0);
        let y = |t: f64| 3.0 * t * t + 5.0 * t + 7.0;
        for i in 0..40 {
            let t = f64::from(i);
            let d = if i == 0 { 0.0 } else { 1.0 };
            ew.push(d, y(t) - if i == 0 { 0.0 } else { y(t - 1.0) });
        }
        let c = ew.curve().unwrap();
        // At t = 39: rate 2·3·39 + 5 = 239, curvature 3.
        assert!(close(c.rate, 239.0, 1e-6), "{c:?}");
        assert!(close(c.curve, 3.0, 1e-8), "{c:?}");
        assert!(close(c.value, 0.0, 1e-6), "{c:?}");
    }

    /// One quick fill, then the same byte count for minutes (the issue's flat pool): "not
    /// filling" 10 s after the last rise, and from then on, never "full in ~19 d".
    #[test]
    fn a_step_then_flat_is_not_filling_within_seconds() {
        let mut pts: Vec<(f64, f64)> = (0..8)
            .map(|i| (f64::from(i), f64::from(i) * 20.0 * MIB))
            .collect();
        let top = 140.0 * MIB;
        for i in 8..400 {
            pts.push((f64::from(i), top));
        }
        let mut s = series(241.0 * MIB, []);
        for (k, &(t, y)) in pts.iter().enumerate() {
            s.push(t, y, DEFAULT_WINDOW_SECONDS);
            let f = s.forecast();
            if t >= 7.0 + FLAT_MIN_SECONDS {
                assert_eq!(f.state, ForecastState::NotFilling, "at {t}: {f:?}");
                assert!(f.reason().unwrap().contains("no growth for"), "{f:?}");
            } else if (1..7).contains(&k) {
                assert_eq!(f.state, ForecastState::Filling, "at {t}: {f:?}");
            }
        }
        // Growth again: a new stretch from the last flat point, filling at once.
        s.push(400.0, top + 2.0 * MIB, DEFAULT_WINDOW_SECONDS);
        s.push(401.0, top + 4.0 * MIB, DEFAULT_WINDOW_SECONDS);
        let f = s.forecast();
        assert_eq!(f.state, ForecastState::Filling, "{f:?}");
        assert!(
            close(f.rate_bytes_per_sec.unwrap(), 2.0 * MIB, 1.0),
            "{f:?}"
        );
        assert_eq!((f.points, f.window_seconds), (3, 2.0));
    }

    /// Bursts of 5 s every 15 s: the pauses are part of the fill, so it keeps filling through
    /// them (growth stops only after twice the longest pause), at the bursts' mean rate.
    #[test]
    fn bursts_keep_filling_through_their_pauses() {
        let mut s = series(1e12, []);
        let mut y = 0.0;
        for i in 0..120 {
            let t = f64::from(i);
            if i % 15 < 5 {
                y += 3.0 * MIB;
            }
            s.push(t, y, DEFAULT_WINDOW_SECONDS);
            let f = s.forecast();
            if i > 20 {
                assert_eq!(f.state, ForecastState::Filling, "at {t}: {f:?}");
            }
        }
        let f = s.forecast();
        // The mean rate is 1 MiB/s; the steady line sees it within a third.
        assert!(
            (f.rate_bytes_per_sec.unwrap() / MIB - 1.0).abs() < 0.35,
            "{f:?}"
        );
    }

    /// The rate doubling every 20 s from the first point: the accelerating model is taken
    /// (its best doubling time 20 s), and 30 s and 15 s before the limit the time is within a
    /// quarter and inside its range, where the line alone says +150 %.
    #[test]
    fn an_accelerating_fill_is_seen_as_one() {
        let d = 20.0;
        let r0 = 1.0 * MIB;
        let used = |t: f64| r0 * d / std::f64::consts::LN_2 * ((t / d).exp2() - 1.0);
        let limit_at = 90.0;
        let limit = used(limit_at);
        let mut s = series(limit, []);
        for i in 0..=80 {
            let t = f64::from(i);
            s.push(t, used(t), DEFAULT_WINDOW_SECONDS);
            if i == 60 || i == 75 {
                let f = s.forecast();
                let truth = limit_at - t;
                let err = (f.seconds.unwrap() - truth) / truth;
                assert_eq!(f.model, Some(Model::Curve), "at {t}: {f:?}");
                let budget = 0.25;
                assert!(err.abs() <= budget, "at {t}: {f:?} vs {truth}");
                assert!(
                    f.earliest.unwrap() <= truth && truth <= f.latest.unwrap(),
                    "{f:?}"
                );
                assert_eq!(f.doubling_seconds, Some(20.0), "{f:?}");
            }
        }
    }

    /// A few pages stored, the pool still for 8 s, then the rate doubling every 20 s: the
    /// pause before the fill grew is no burst once it is 30 s old, and the accelerating model
    /// is taken (with the window's longest pause counted, the line was taken to the end:
    /// +256 % 30 s before the limit on the live fill this is shaped after).
    #[test]
    fn one_pause_before_an_accelerating_fill_is_no_burst() {
        let d = 20.0;
        let r0 = 1.0 * MIB;
        let start = 10.0;
        let used = |t: f64| {
            let grown = if t > start {
                r0 * d / std::f64::consts::LN_2 * (((t - start) / d).exp2() - 1.0)
            } else {
                0.0
            };
            if t >= 2.0 { 60.0 * 1024.0 + grown } else { 0.0 }
        };
        let limit_at = 100.0;
        let limit = used(limit_at);
        let mut s = series(limit, []);
        for i in 0..=170 {
            let t = f64::from(i) * 0.5;
            s.push(t, used(t), DEFAULT_WINDOW_SECONDS);
            if i == 140 || i == 170 {
                let f = s.forecast();
                let truth = limit_at - t;
                let err = (f.seconds.unwrap() - truth) / truth;
                assert_eq!(f.model, Some(Model::Curve), "at {t}: {f:?}");
                assert!(err.abs() <= 0.25, "at {t}: {f:?} vs {truth}");
            }
        }
    }

    #[test]
    fn flat_draining_noise_and_too_few() {
        let flat = [(0.0, 5.0), (1.0, 5.0), (2.0, 5.0)];
        assert_eq!(forecast(&flat, 10.0).state, ForecastState::NotFilling);
        let draining = [(0.0, 9.0), (1.0, 7.0), (2.0, 5.0)];
        let f = forecast(&draining, 10.0);
        assert_eq!(f.state, ForecastState::NotFilling);
        assert_eq!(f.seconds, None);
        assert!(f.reason().unwrap().contains("draining"), "{f:?}");
        // Up on average but within the noise: b = 0.1, se = √(5.1 / 3 / 10) = 0.41 > b / 2.
        let noisy = [(0.0, 0.0), (1.0, 2.0), (2.0, -1.0), (3.0, 1.0), (4.0, 1.0)];
        let f = forecast(&noisy, 100.0);
        assert_eq!(f.state, ForecastState::NotFilling, "{f:?}");
        assert!(f.reason().unwrap().contains("noise"), "{f:?}");
        assert_eq!(forecast(&[(0.0, 1.0)], 10.0).state, ForecastState::TooFew);
        assert_eq!(forecast(&[], 10.0).state, ForecastState::TooFew);
        // Two points: the time from their slope, no range.
        let f = forecast(&[(0.0, 2.0), (2.0, 4.0)], 10.0);
        assert_eq!(f.state, ForecastState::Filling);
        assert_eq!((f.seconds, f.earliest, f.latest), (Some(6.0), None, None));
        // Two points at the same time: the second replaces the first.
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
    }

    fn pool(used: u64, hits: u64) -> Observation {
        Observation {
            store_bytes: 4096,
            refusals: Some(("pool_limit_hit", hits)),
            resume_below: Some(900 * 4096),
            ..Observation::plain(Target::ZswapPool, Some(used), Ok(1000 * 4096))
        }
    }

    /// The pool sat one page under its limit while pool_limit_hit rose: full, whatever
    /// the bytes say, as soon as the counter rises; still full while the kernel keeps refusing
    /// (above the accept threshold since the hit); filling again once below it.
    #[test]
    fn full_follows_the_kernels_refusals() {
        let mut f = Forecaster::default();
        for i in 0..10u64 {
            f.push(i as f64, &[pool(800 * 4096 + i * 10 * 4096, 0)]);
        }
        assert_eq!(f.forecast(&Target::ZswapPool).state, ForecastState::Filling);
        // Well below the limit but refusals counted: full.
        f.push(10.0, &[pool(950 * 4096, 3)]);
        let p = f.forecast(&Target::ZswapPool);
        assert_eq!(p.state, ForecastState::Full, "{p:?}");
        assert!(p.evidence.unwrap().contains("pool_limit_hit rose by 3"));
        // Flat just under the limit, no further hit counted: the kernel refuses until the
        // pool is at its accept threshold.
        for i in 11..60 {
            f.push(f64::from(i), &[pool(999 * 4096, 3)]);
            let p = f.forecast(&Target::ZswapPool);
            assert_eq!(p.state, ForecastState::Full, "at {i}: {p:?}");
        }
        // Drained to the threshold: no longer refusing, and not filling.
        for i in 60..75 {
            f.push(f64::from(i), &[pool(890 * 4096, 3)]);
        }
        assert_eq!(
            f.forecast(&Target::ZswapPool).state,
            ForecastState::NotFilling
        );
        // One page under the limit with no counter known: within one store, full.
        let mut g = Forecaster::default();
        let at = |u| Observation {
            refusals: None,
            ..pool(u, 0)
        };
        g.push(0.0, &[at(990 * 4096)]);
        g.push(1.0, &[at(999 * 4096)]);
        let p = g.forecast(&Target::ZswapPool);
        assert_eq!(p.state, ForecastState::Full, "{p:?}");
        assert!(p.evidence.unwrap().contains("within one store"));
        // A hit over a long interval (`--once -i 30`) still counts at its end.
        let mut h = Forecaster::new(30.0);
        h.push(0.0, &[pool(100 * 4096, 7)]);
        h.push(30.0, &[pool(500 * 4096, 9)]);
        assert_eq!(h.forecast(&Target::ZswapPool).state, ForecastState::Full);
    }

    /// A zram device's failed writes against its mem_limit: full while they rise.
    #[test]
    fn zram_failed_writes_are_full() {
        let mem = |used: u64, failed: u64| Observation {
            store_bytes: 4096,
            refusals: Some(("failed_writes", failed)),
            ..Observation::plain(Target::ZramMemory("zram0".into()), Some(used), Ok(1 << 30))
        };
        let mut f = Forecaster::default();
        f.push(0.0, &[mem(1 << 20, 0)]);
        f.push(1.0, &[mem(2 << 20, 0)]);
        assert_eq!(
            f.forecast(&Target::ZramMemory("zram0".into())).state,
            ForecastState::Filling
        );
        f.push(2.0, &[mem(2 << 20, 5)]);
        let p = f.forecast(&Target::ZramMemory("zram0".into()));
        assert_eq!(p.state, ForecastState::Full);
        assert!(p.evidence.unwrap().contains("failed_writes rose by 5"));
        // 5 s without another: the hold ends (no accept threshold for zram).
        for i in 3..9 {
            f.push(f64::from(i), &[mem(2 << 20, 5)]);
        }
        assert_ne!(
            f.forecast(&Target::ZramMemory("zram0".into())).state,
            ForecastState::Full
        );
    }

    #[test]
    fn time_going_back_starts_again_and_the_same_time_replaces() {
        let mut s = series(100.0, (0..5).map(|i| (f64::from(i), f64::from(i))));
        s.push(4.0, 8.0, 300.0);
        assert_eq!(s.len(), 5);
        assert_eq!(s.forecast().used_bytes, Some(8.0));
        // The replaced point is gone from the fit: 0..3 then 8 at t = 4.
        let direct = forecast(
            &[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (4.0, 8.0)],
            100.0,
        );
        assert_eq!(s.forecast().rate_bytes_per_sec, direct.rate_bytes_per_sec);
        s.push(2.0, 1.0, 300.0);
        assert_eq!(s.len(), 1, "a replay moved back: a new series");
        s.push(f64::NAN, 1.0, 300.0);
        assert_eq!(s.len(), 1);
        s.push(400.0, 2.0, 300.0);
        assert_eq!(s.len(), 1, "a gap longer than the window: a new series");
    }

    #[test]
    fn at_most_max_points_whatever_the_window() {
        let mut s = Series::default();
        for i in 0..(MAX_POINTS as u32 + 500) {
            s.push(f64::from(i) * 1e-3, f64::from(i), 300.0);
        }
        assert_eq!(s.len(), MAX_POINTS);
    }

    fn obs(target: Target, used: u64, limit: u64) -> Observation {
        Observation::plain(target, Some(used), Ok(limit))
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
        assert!(close(all.zswap_pool_full_seconds.unwrap(), 81.0, 1e-9));
        assert_eq!(all.swap_full_seconds, None);
        assert_eq!(all.swap.unwrap().state, ForecastState::NotFilling);
        assert!(all.swap_areas.is_empty());
        // An unknown limit says why; a reading missing once keeps the points.
        f.push(
            10.0,
            &[Observation::plain(
                Target::ZswapPool,
                None,
                Err("no limit here".into()),
            )],
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
        assert_eq!(z0.bound, Some(ZramBound::MemLimit));
        assert!(close(z0.full_seconds.unwrap(), 11.0, 1e-9));
        assert!(close(z0.slots.seconds.unwrap(), 81.0, 1e-9));
        let z1 = &all.zram[1];
        assert_eq!((z1.bound, z1.full_seconds), (None, None));
        assert_eq!(z1.forecast.state, ForecastState::NotFilling);
        let j = serde_json::to_value(&all).unwrap();
        assert!(close(
            j["zram"][0]["full_seconds"].as_f64().unwrap(),
            11.0,
            1e-9
        ));
        assert_eq!(j["zram"][0]["bound"], "mem_limit");
        assert_eq!(j["zram"][1]["full_seconds"], serde_json::Value::Null);
        assert_eq!(j["zram"][1]["forecast"]["state"], "not_filling");
        assert!(j["zram"][1]["forecast"]["reason"].is_string());
    }

    proptest::proptest! {
        /// Any sequence: whatever the forecast, its numbers are finite, its range holds its
        /// time, and filling has a time.
        #[test]
        fn any_sequence_gives_finite_ordered_forecasts(
            steps in proptest::collection::vec((0.01f64..5.0, -1e7f64..1e7), 2..400),
            limit in 1e6f64..1e11,
        ) {
            let (mut t, mut y) = (5e5, 1e9);
            let mut s = series(limit, []);
            for (dt, dy) in steps {
                t += dt;
                y = (y + dy).max(0.0);
                s.push(t, y, DEFAULT_WINDOW_SECONDS);
                let f = s.forecast();
                for v in [f.seconds, f.earliest, f.latest, f.rate_bytes_per_sec, f.acceleration].into_iter().flatten() {
                    proptest::prop_assert!(v.is_finite(), "{f:?}");
                }
                if let (Some(e), Some(x), Some(l)) = (f.earliest, f.seconds, f.latest) {
                    proptest::prop_assert!(e <= x * (1.0 + 1e-9) && x <= l * (1.0 + 1e-9), "{f:?}");
                }
                if f.state == ForecastState::Filling {
                    proptest::prop_assert!(f.seconds.is_some_and(|x| x >= 0.0));
                }
            }
        }

        /// A straight line: the time is what arithmetic gives, from any origin and scale. Its
        /// rate at least 200 kB/s: slower, a line rises by less than [`GROWTH_MAX_BYTES`] in
        /// [`FLAT_MIN_SECONDS`] and reads "not filling" (a pool creeping by a few pages).
        #[test]
        fn a_line_is_forecast_exactly(
            t0 in 0.0f64..1e7,
            y0 in 0.0f64..1e10,
            rate in 2e5f64..1e8,
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
}
