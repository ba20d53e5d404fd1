//! The forecast's budgets on a recorded fill of the zswap pool, shared by the e2e
//! (which records the fills on the kernel, `tests/e2e/phases/forecast.rs`) and the fast tests
//! (which replay the committed recordings, `tests/fixtures/forecast-*.zsr`).
//!
//! A recording is replayed sample by sample through the same pipeline as the dashboard
//! (`pipeline::Stream`, the default 5-minute window); the truth is the kernel's own: the first
//! sample where `pool_limit_hit` has risen is when the pool was first full (the kernel refused a
//! store), and the last sample where the pool grew (by more than a page and 1/1024 of its limit)
//! is when growth stopped.
//!
//! Budgets: the forecast 30 s and 15 s before the limit within ±25 %; `full` within 5 s of the
//! first refusal; "not filling" within 30 s of growth stopping (and from then on); the range
//! holding the true time in at least 80 % of the rows that give one.

#![allow(dead_code)]

use std::path::Path;

use zswaptop::model::forecast::ForecastState;
use zswaptop::pipeline::Stream;

/// The forecast within this share of the true time, 30 s and 15 s before the limit.
pub const TOLERANCE: f64 = 0.25;
/// The moments before the limit the forecast is checked at.
pub const BEFORE: [f64; 2] = [30.0, 15.0];
/// `full` at most this long after the kernel's first refusal.
pub const FULL_WITHIN: f64 = 5.0;
/// "not filling" at most this long after growth stopped.
pub const STOPPED_WITHIN: f64 = 30.0;
/// The share of the ranges given that must hold the true time.
pub const COVERAGE: f64 = 0.80;

/// One replayed sample: what the dashboard would show for the pool.
#[derive(Debug, Clone)]
pub struct Row {
    /// Seconds since the recording's first sample.
    pub t: f64,
    pub used: f64,
    pub limit: f64,
    pub hits: Option<u64>,
    pub state: &'static str,
    pub seconds: Option<f64>,
    pub earliest: Option<f64>,
    pub latest: Option<f64>,
    pub model: Option<&'static str>,
    pub doubling: Option<f64>,
    /// The forecast in the words of the dashboard and `--once`.
    pub words: String,
    /// The pool-full finding, as "SEVERITY summary", if any.
    pub finding: Option<String>,
}

/// Every sample of the recording at `path`, replayed.
pub fn replay(path: &Path) -> anyhow::Result<Vec<Row>> {
    let mut reader = zswaptop::record::open(path)?;
    let mut stream = Stream::default();
    let mut prev: Option<zswaptop::sources::Sample> = None;
    let mut rows = Vec::new();
    let mut t0 = None;
    for i in 0..reader.len() {
        let sample = reader.sample(i)?;
        let snap = stream.snapshot(&sample, prev.as_ref());
        let t = sample.monotonic_ns as f64 / 1e9;
        let t0 = *t0.get_or_insert(t);
        let Some(f) = snap.forecast.zswap_pool.as_ref() else {
            prev = Some(sample);
            continue;
        };
        let finding = snap
            .diagnostics
            .iter()
            .find(|d| d.id == "pool-full")
            .map(|d| format!("{:?} {}", d.severity, d.summary));
        rows.push(Row {
            t: t - t0,
            used: f.used_bytes.unwrap_or(f64::NAN),
            limit: f.limit_bytes.unwrap_or(f64::NAN),
            hits: snap
                .zswap
                .debugfs
                .as_ref()
                .and_then(|d| d.get("pool_limit_hit").copied()),
            state: f.state.label(),
            seconds: f.seconds,
            earliest: f.earliest,
            latest: f.latest,
            model: f.model.map(|m| m.label()),
            doubling: f.doubling_seconds,
            words: zswaptop::present::outlook::forecast(f),
            finding,
        });
        debug_assert!(f.state != ForecastState::TooFew || rows.len() < 3);
        prev = Some(sample);
    }
    Ok(rows)
}

/// The forecast at one moment before the limit.
#[derive(Debug, Clone)]
pub struct Moment {
    pub before: f64,
    /// The row's true time to the limit, and the forecast made there.
    pub truth: f64,
    pub forecast: Option<f64>,
    pub state: &'static str,
    pub range: (Option<f64>, Option<f64>),
}

impl Moment {
    pub fn error(&self) -> Option<f64> {
        self.forecast.map(|f| (f - self.truth) / self.truth)
    }
    pub fn in_range(&self) -> bool {
        matches!(self.range, (Some(a), Some(b)) if a <= self.truth && self.truth <= b)
    }
    pub fn within_budget(&self) -> bool {
        self.state == "filling" && self.error().is_some_and(|e| e.abs() <= TOLERANCE)
    }
}

/// What a fill's replay shows against its budgets.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// When the kernel first refused (seconds since the first sample), if it did.
    pub limit_at: Option<f64>,
    pub moments: Vec<Moment>,
    /// Of the rows before the limit that said filling: how many gave a range, how many of
    /// those held the true time, and how many gave none.
    pub ranged: usize,
    pub held: usize,
    pub unranged: usize,
    /// The first `full` after (or at most one sample before) the kernel's first refusal,
    /// seconds after it.
    pub full_after: Option<f64>,
    /// The first row said full while the kernel had not refused yet and used was more than a
    /// page below the limit (a false "full").
    pub early_full: Option<f64>,
    /// When growth stopped, when "not filling" was first said after it, and whether it was
    /// said at every later row.
    pub stopped_at: Option<f64>,
    pub not_filling_after: Option<f64>,
    pub stayed_not_filling: bool,
}

impl Verdict {
    pub fn coverage(&self) -> Option<f64> {
        (self.ranged > 0).then(|| self.held as f64 / self.ranged as f64)
    }
}

/// The verdict on replayed rows. `stops`: the fill ends with a flat stretch (growth stopping
/// is judged); otherwise the fill runs to the limit.
pub fn judge(rows: &[Row], stops: bool) -> Verdict {
    let mut v = Verdict::default();
    let Some(first) = rows.first() else {
        return v;
    };
    let hits0 = first.hits;
    let limit_row = rows
        .iter()
        .position(|r| matches!((r.hits, hits0), (Some(h), Some(h0)) if h > h0));
    v.limit_at = limit_row.map(|i| rows[i].t);
    if let Some(li) = limit_row {
        let at = rows[li].t;
        for before in BEFORE {
            if let Some(r) = rows[..li].iter().rev().find(|r| r.t <= at - before) {
                v.moments.push(Moment {
                    before,
                    truth: at - r.t,
                    forecast: r.seconds,
                    state: r.state,
                    range: (r.earliest, r.latest),
                });
            }
        }
        for r in &rows[..li] {
            if r.state != "filling" {
                continue;
            }
            let truth = at - r.t;
            match (r.earliest, r.latest) {
                (Some(a), Some(b)) => {
                    v.ranged += 1;
                    v.held += usize::from(a <= truth && truth <= b);
                }
                _ => v.unranged += 1,
            }
        }
        v.full_after = rows[li.saturating_sub(1)..]
            .iter()
            .find(|r| r.state == "full")
            .map(|r| r.t - at);
        v.early_full = rows[..li.saturating_sub(1)]
            .iter()
            .find(|r| r.state == "full" && r.limit - r.used > 4096.0)
            .map(|r| r.t);
    }
    if stops {
        // The last rise: used more than a page and 1/1024 of the limit above the level of
        // the rise before it (the pool creeps by a few pages after a step: no growth).
        let mut stop = None;
        let mut level = rows.first().map_or(0.0, |r| r.used);
        for (i, r) in rows.iter().enumerate() {
            let least = (r.limit / 1024.0).clamp(4096.0, 1_048_576.0);
            if r.used > level + least {
                stop = Some(i);
                level = r.used;
            } else if r.used < level - least {
                level = r.used;
            }
        }
        if let Some(si) = stop {
            v.stopped_at = Some(rows[si].t);
            let after = &rows[si + 1..];
            if let Some(k) = after.iter().position(|r| r.state == "not_filling") {
                v.not_filling_after = Some(after[k].t - rows[si].t);
                v.stayed_not_filling = after[k..].iter().all(|r| r.state == "not_filling");
            }
        }
    }
    v
}

/// The table rows for the report: fill, seconds before the limit, forecast, truth, error, in
/// range.
pub fn table(name: &str, v: &Verdict) -> Vec<String> {
    let mut out = Vec::new();
    for m in &v.moments {
        out.push(format!(
            "| {name} | {:.0} | {} | {:.1} s | {} | {} |",
            m.before,
            match (m.state, m.forecast) {
                ("filling", Some(f)) => format!(
                    "{f:.1} s ({} … {})",
                    m.range.0.map_or("–".into(), |x| format!("{x:.1}")),
                    m.range.1.map_or("–".into(), |x| format!("{x:.1}"))
                ),
                (s, _) => s.to_string(),
            },
            m.truth,
            m.error()
                .map_or("–".to_string(), |e| format!("{:+.1} %", e * 100.0)),
            if m.in_range() { "yes" } else { "no" },
        ));
    }
    out
}

/// Every budget the verdict misses, in words (empty: all met).
pub fn misses(v: &Verdict, stops: bool) -> Vec<String> {
    let mut out = Vec::new();
    if stops {
        match (v.stopped_at, v.not_filling_after) {
            (None, _) => out.push("growth never seen to stop".to_string()),
            (Some(_), Some(d)) if d <= STOPPED_WITHIN && v.stayed_not_filling => {}
            (Some(_), d) => out.push(format!(
                "not filling {d:?} s after growth stopped (stayed: {})",
                v.stayed_not_filling
            )),
        }
        if v.limit_at.is_some() {
            out.push("the step reached the limit".to_string());
        }
        return out;
    }
    if v.limit_at.is_none() {
        out.push("the limit was never hit".to_string());
        return out;
    }
    for m in &v.moments {
        if !m.within_budget() {
            out.push(format!(
                "{:.0} s before: {} {:?} vs {:.1} s",
                m.before, m.state, m.forecast, m.truth
            ));
        }
    }
    if v.moments.len() < BEFORE.len() {
        out.push("the fill was shorter than 30 s".to_string());
    }
    match v.full_after {
        Some(d) if d <= FULL_WITHIN => {}
        d => out.push(format!("full {d:?} s after the first refusal")),
    }
    if let Some(t) = v.early_full {
        out.push(format!("full at {t:.1} s, before any refusal"));
    }
    match v.coverage() {
        Some(c) if c >= COVERAGE => {}
        c => out.push(format!("range coverage {c:?} ({} of {})", v.held, v.ranged)),
    }
    out
}
