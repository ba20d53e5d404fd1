//! The one road from samples to what every front end shows: [`snapshot`] takes a sample (and,
//! for rates, the one before it) to a finished [`Snapshot`] in three named steps:
//!
//! 1. [`Snapshot::derive`]: every figure, by the model's pure arithmetic;
//! 2. [`diagnostics::judge`]: the rules' findings and the tunables' advice;
//! 3. [`make_safe`]: every string made safe for a terminal ([`crate::sanitize`]), last, so the
//!    rules' text is covered too.
//!
//! The dashboard (live and replayed), `--once` (live and `--from`), `--watch`, `--textfile`,
//! `serve`, `export` and `advise` all call it; none derives or judges on its own, so no output
//! can show a figure the others do not, or a string that was not made safe.
//!
//! The forecasts need more than two samples: a front end that takes sample after sample (the
//! dashboard, live and replayed, `--watch`, `serve`) keeps a [`Stream`], the same three steps
//! with a [`Forecaster`] fed one point per sample over a window (5 minutes by default) between
//! the first two. [`snapshot`] is a stream of its one or two samples: the forecasts over the
//! interval (`--once -i N`, `--once --from`, each row of `export`, which is one `--once --from`
//! a row), or "too few samples" from one.
//!
//! The rules judge by the [`Thresholds`] the front end passes in: the configuration's for the
//! dashboard, `--once`, `--watch`, `--textfile` and `replay` (built by [`crate::cli`] into each
//! mode's settings), the built-in ones for the commands that read no configuration (`serve`,
//! `export`, `advise`). No setting of the process is read on the way.

use std::time::Duration;

use crate::diagnostics::{self, Thresholds};
use crate::model::Snapshot;
use crate::model::forecast::{self, Forecaster};
use crate::sanitize::Sanitize;
use crate::sources::sampler::SampleSource;
use crate::sources::{Extras, Sample};

/// The finished snapshot of `curr`, with rates over `prev` when there is one, and the
/// forecasts over the two (the window is the interval), judged by the built-in thresholds.
pub fn snapshot(curr: &Sample, prev: Option<&Sample>) -> Snapshot {
    snapshot_by(curr, prev, &Thresholds::default())
}

/// [`snapshot`], judged by the thresholds `t`.
pub(crate) fn snapshot_by(curr: &Sample, prev: Option<&Sample>, t: &Thresholds) -> Snapshot {
    match prev {
        Some(p) => snapshot_over(curr, Some((p, &Snapshot::derive(p, None))), t),
        None => snapshot_over(curr, None, t),
    }
}

/// [`snapshot_by`], given a snapshot of `prev` already made (any: the forecasts take only the
/// stores' sizes and limits from it, which do not depend on rates), so that a front end going
/// through a recording row by row derives each sample once.
pub fn snapshot_over(
    curr: &Sample,
    prev: Option<(&Sample, &Snapshot)>,
    t: &Thresholds,
) -> Snapshot {
    let mut stream = match prev {
        Some((p, snap)) => {
            let dt = seconds(curr) - seconds(p);
            let mut s = Stream::new(if dt > 0.0 { dt } else { 0.0 });
            s.observe(snap, p);
            s
        }
        None => Stream::default(),
    }
    .judged_by(t.clone());
    stream.snapshot(curr, prev.map(|(p, _)| p))
}

/// A sample's time as the forecasts take it: CLOCK_MONOTONIC (or the recording's) in seconds.
fn seconds(s: &Sample) -> f64 {
    s.monotonic_ns as f64 / 1e9
}

/// The pipeline with a memory: [`snapshot`]'s steps, and between derive and the rules each
/// store's used size fed to a [`Forecaster`], whose forecasts over the window replace the
/// one-sample ones. One per front end that takes sample after sample, with the thresholds its
/// rules judge by (the built-in ones unless [`Stream::judged_by`] says others).
#[derive(Debug, Clone, Default)]
pub struct Stream {
    forecaster: Forecaster,
    thresholds: Thresholds,
}

impl Stream {
    /// Forecasts over the last `window_seconds` of samples (a window of 0 or less, or not a
    /// number: the default, [`forecast::DEFAULT_WINDOW_SECONDS`]).
    pub(crate) fn new(window_seconds: f64) -> Stream {
        Stream {
            forecaster: Forecaster::new(window_seconds),
            thresholds: Thresholds::default(),
        }
    }

    /// The same stream, its rules judging by `thresholds`.
    pub(crate) fn judged_by(self, thresholds: Thresholds) -> Stream {
        Stream { thresholds, ..self }
    }

    /// The finished snapshot of `curr` (rates over `prev`), its forecasts over the window.
    pub fn snapshot(&mut self, curr: &Sample, prev: Option<&Sample>) -> Snapshot {
        let mut snap = Snapshot::derive(curr, prev);
        self.observe(&snap, curr);
        snap.forecast = self.forecaster.forecasts();
        make_safe(diagnostics::judge(snap, &self.thresholds))
    }

    /// Feed one derived snapshot of `sample` without finishing it. The targets are named as
    /// made safe, so that a snapshot already made safe and one not yet name a swap area or a
    /// device alike (making safe twice changes nothing).
    fn observe(&mut self, snap: &Snapshot, sample: &Sample) {
        let mut seen = forecast::observe(snap);
        seen.iter_mut().for_each(|o| o.target.sanitize());
        self.forecaster.push(seconds(sample), &seen);
    }

    /// Forget the points (a replay jumped back, a recording's gap).
    pub(crate) fn clear(&mut self) {
        self.forecaster.clear();
    }
}

/// Step 3: every string of the snapshot made safe for a terminal (a control or format character
/// shown as its escape).
pub(crate) fn make_safe(mut snap: Snapshot) -> Snapshot {
    snap.sanitize();
    snap
}

/// Take one finished snapshot from `source`: of one sample, or with `interval` of two that far
/// apart (so rates are filled in), judged by the thresholds `t`.
pub fn take(
    source: &mut impl SampleSource,
    interval: Option<Duration>,
    extras: Extras,
    t: &Thresholds,
) -> Snapshot {
    let first = source.next(None, extras);
    match interval {
        Some(dt) => {
            std::thread::sleep(dt);
            let second = source.next(Some(&first), extras);
            snapshot_by(&second, Some(&first), t)
        }
        None => snapshot_by(&first, None, t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;

    fn sample(tree: &str) -> Sample {
        crate::sources::collect(&Root::at(format!(
            "{}/tests/fixtures/{tree}",
            env!("CARGO_MANIFEST_DIR")
        )))
    }

    /// The steps: derive leaves the findings and advice empty, the rules fill them, and the
    /// finished snapshot has them with every string safe (no raw ESC, in text or in JSON).
    #[test]
    fn the_three_steps() {
        let mut s = sample("linux-6.18-loaded");
        s.host.hostname = Some("h\u{1b}]0;x\u{7}".into());
        let derived = Snapshot::derive(&s, None);
        let judged = diagnostics::judge(derived.clone(), &Thresholds::default());
        assert!(derived.diagnostics.is_empty() && derived.tunables_advice.is_empty());
        assert!(!judged.diagnostics.is_empty() && !judged.tunables_advice.is_empty());
        let done = snapshot(&s, None);
        assert_eq!(done.host.hostname.as_deref(), Some(r"h\x1b]0;x\x07"));
        assert_eq!(done.diagnostics.len(), judged.diagnostics.len());
        let text = serde_json::to_string(&done).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains("\\u001b"),
            "{text}"
        );
    }

    /// A compressor name (a module parameter any module can be loaded with) that a rule quotes
    /// in its evidence reaches the finished snapshot escaped.
    #[test]
    fn a_string_a_rule_quotes_is_made_safe() {
        // The idle tree's page-cluster finding names the compressor of the fast tier.
        let mut s = sample("linux-6.18-idle");
        let hostile = "lz\u{9b}2J";
        if let Ok(p) = s.zswap_params.as_mut() {
            p.values.insert("compressor".into(), hostile.into());
        }
        let judged = diagnostics::judge(Snapshot::derive(&s, None), &Thresholds::default());
        let quoted = |snap: &Snapshot, what: &str| {
            snap.diagnostics
                .iter()
                .flat_map(|f| f.evidence.iter().chain([&f.summary, &f.fix, &f.why]))
                .any(|t| t.contains(what))
        };
        assert!(quoted(&judged, hostile), "a rule quotes the compressor");
        let done = snapshot(&s, None);
        assert!(!quoted(&done, hostile));
        assert!(quoted(&done, r"lz\x9b2J"));
    }

    /// The loaded tree's pool grown by `mib` MiB, `secs` seconds later.
    fn grown(base: &Sample, secs: u64, mib: u64) -> Sample {
        let mut s = base.clone();
        s.monotonic_ns += secs * 1_000_000_000;
        s.unix_ms += secs * 1000;
        if let Ok(m) = s.meminfo.as_mut() {
            m.zswap = m.zswap.map(|p| p + mib * 1_048_576);
        }
        s
    }

    /// One sample: every store followed, none forecast ("too few"). Two: over their interval,
    /// by hand: 498.7 MiB of a 4.7 GiB limit growing 10 MiB in 10 s. A stream over a window:
    /// every sample in it counts, and the window is what it says.
    #[test]
    fn forecasts_over_the_interval_or_the_stream_window() {
        let a = sample("linux-6.18-loaded");
        let one = snapshot(&a, None);
        let pool = one.forecast.zswap_pool.as_ref().unwrap();
        assert_eq!(pool.state, forecast::ForecastState::TooFew);
        assert_eq!(one.forecast.zswap_pool_full_seconds, None);
        let b = grown(&a, 10, 10);
        let two = snapshot(&b, Some(&a));
        let pool = two.forecast.zswap_pool.as_ref().unwrap();
        let limit = two.zswap.pool_limit_bytes.unwrap() as f64;
        let used = two.zswap.pool_bytes.unwrap() as f64;
        let by_hand = (limit - used) / (1_048_576.0);
        assert_eq!((pool.points, pool.window_seconds), (2, 10.0));
        assert_eq!(two.forecast.window_seconds, 10.0);
        assert!(
            (two.forecast.zswap_pool_full_seconds.unwrap() - by_hand).abs() < 1e-6,
            "{pool:?}"
        );
        let mut stream = Stream::default();
        stream.snapshot(&a, None);
        stream.snapshot(&b, Some(&a));
        let c = grown(&a, 20, 20);
        let three = stream.snapshot(&c, Some(&b));
        let pool = three.forecast.zswap_pool.as_ref().unwrap();
        assert_eq!((pool.points, pool.window_seconds), (3, 20.0));
        assert_eq!(
            three.forecast.window_seconds,
            forecast::DEFAULT_WINDOW_SECONDS
        );
        assert_eq!(pool.state, forecast::ForecastState::Filling);
        // Three points: too few for a range (model::forecast::RANGE_MIN_POINTS).
        assert_eq!((pool.earliest, pool.latest), (None, None));
        stream.clear();
        let again = stream.snapshot(&c, None);
        assert_eq!(
            again.forecast.zswap_pool.unwrap().state,
            forecast::ForecastState::TooFew
        );
    }

    /// The thresholds travel with the stream: two streams in one process, one judging by a
    /// stricter poor ratio, see the loaded tree's zswap ratio (1.95:1) differently, whichever
    /// was made first; no setting of the process decides.
    #[test]
    fn each_stream_judges_by_its_own_thresholds() {
        let s = sample("linux-6.18-loaded");
        let strict = Thresholds {
            poor_ratio: 2.5,
            ..Thresholds::default()
        };
        let poor = |snap: &Snapshot| snap.diagnostics.iter().any(|f| f.id == "poor-compression");
        let mut by_strict = Stream::default().judged_by(strict.clone());
        let mut by_default = Stream::default();
        assert!(poor(&by_strict.snapshot(&s, None)));
        assert!(!poor(&by_default.snapshot(&s, None)));
        assert!(poor(&snapshot_by(&s, None, &strict)));
        assert!(!poor(&snapshot(&s, None)));
        let mut source = crate::sources::sampler::Sampler::full(Root::at(format!(
            "{}/tests/fixtures/linux-6.18-loaded",
            env!("CARGO_MANIFEST_DIR")
        )));
        assert!(poor(&take(&mut source, None, Extras::default(), &strict)));
    }

    #[test]
    fn take_fills_rates_with_an_interval_only() {
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-idle",
            env!("CARGO_MANIFEST_DIR")
        ));
        let mut source = crate::sources::sampler::Sampler::full(root);
        let one = take(&mut source, None, Extras::default(), &Thresholds::default());
        assert!(one.rates.is_none() && one.interval_seconds.is_none());
        let two = take(
            &mut source,
            Some(Duration::from_millis(10)),
            Extras::default(),
            &Thresholds::default(),
        );
        assert!(two.rates.is_some() && two.interval_seconds.is_some());
    }
}
