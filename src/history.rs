//! The dashboard's history: a bounded ring of sample times plus one column per metric.
//!
//! Time is the samples' own (`CLOCK_MONOTONIC` nanoseconds), never the wall clock, and x
//! positions are given relative to the newest sample, so what is drawn depends only on what was
//! pushed. A value that could not be derived is `None`: a gap, drawn as a gap, never a zero.
//!
//! The columns are the registry's graphed figures ([`Output::History`]). Values are kept as
//! `f32` with NaN for a gap (a quarter of an `Option<f64>`: ten minutes of a dozen metrics at 1 s
//! take 30 KiB); the interface speaks `Option<f64>`. Graphs need no more
//! than f32's seven digits; the figures printed as numbers come from the snapshot itself.

use std::collections::VecDeque;
use std::time::Duration;

use crate::model::Snapshot;
use crate::model::metrics::{self, Metric, Output};

/// The graphed figures of the registry, in registry order: one column each.
fn columns() -> impl Iterator<Item = &'static Metric> {
    metrics::reaching(Output::History)
}

/// The column holding `m`, if the history keeps one.
fn column(m: &Metric) -> Option<usize> {
    columns().position(|c| c.id == m.id)
}

/// Never keep more samples than this, whatever the interval and span (bounds memory).
pub const MAX_SAMPLES: usize = 14_400;

#[derive(Debug, Clone)]
pub struct History {
    /// Sample times, oldest first, strictly increasing.
    times_ns: VecDeque<u64>,
    /// One column per metric; NaN is a gap.
    cols: Vec<VecDeque<f32>>,
    max_age: Duration,
    capacity: usize,
}

impl History {
    pub fn new(max_age: Duration) -> History {
        History::with_capacity(max_age, MAX_SAMPLES)
    }

    pub fn with_capacity(max_age: Duration, capacity: usize) -> History {
        History {
            times_ns: VecDeque::new(),
            cols: columns().map(|_| VecDeque::new()).collect(),
            max_age,
            capacity: capacity.max(1),
        }
    }

    /// Make room for `n` samples up front (what the history holds at the expected interval), so
    /// the columns do not grow past it one step at a time.
    pub fn reserve(&mut self, n: usize) {
        let n = n.min(self.capacity).saturating_sub(self.times_ns.len());
        self.times_ns.reserve_exact(n);
        for c in &mut self.cols {
            c.reserve_exact(n);
        }
    }

    /// Before a push: a full history grows by an eighth, not by doubling. It holds a few more
    /// samples than its span at the interval when some come between ticks (a view that needs a
    /// scan is sampled at once when it comes up), and doubling every column for those left half
    /// of them unused: at `-i 0.1` with the views visited in turn the columns went from 6,004 to
    /// 12,008 samples (+360 KB, resident as the ring wrapped round) for ~6,100 held.
    fn make_room(&mut self) {
        let len = self.times_ns.len();
        let more = (len / 8).max(16);
        if self.times_ns.capacity() <= len {
            self.times_ns.reserve_exact(more);
        }
        for c in &mut self.cols {
            if c.capacity() <= len {
                c.reserve_exact(more);
            }
        }
    }

    /// How far back the ring reaches.
    pub fn max_age(&self) -> Duration {
        self.max_age
    }

    pub fn len(&self) -> usize {
        self.times_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times_ns.is_empty()
    }

    /// Time of the newest sample.
    pub fn newest_ns(&self) -> Option<u64> {
        self.times_ns.back().copied()
    }

    /// The samples kept, how many the columns have room for, and the bytes they take (their
    /// capacity), for tests that check a long session stays within bounds.
    pub fn footprint(&self) -> (usize, usize, usize) {
        let bytes = self.times_ns.capacity() * size_of::<u64>()
            + self
                .cols
                .iter()
                .map(|c| c.capacity() * size_of::<f32>())
                .sum::<usize>();
        (self.len(), self.times_ns.capacity(), bytes)
    }

    /// Append one sample taken at `t_ns`, then drop what is older than `max_age` (relative to
    /// this sample) or beyond the capacity. A time that does not move forward means the clock
    /// was reset: the old samples no longer line up, so they are dropped. `values` come in
    /// column order; columns beyond them get a gap.
    pub fn push(&mut self, t_ns: u64, values: &[Option<f64>]) {
        if self.newest_ns().is_some_and(|n| t_ns <= n) {
            self.clear();
        }
        self.make_room();
        self.times_ns.push_back(t_ns);
        for (i, col) in self.cols.iter_mut().enumerate() {
            let v = values.get(i).copied().flatten();
            col.push_back(v.filter(|v| v.is_finite()).map_or(f32::NAN, |v| v as f32));
        }
        self.prune();
    }

    /// Append a snapshot's metrics.
    pub fn push_snapshot(&mut self, t_ns: u64, s: &Snapshot) {
        let values: Vec<Option<f64>> = columns().map(|m| m.value(s)).collect();
        self.push(t_ns, &values);
    }

    pub fn clear(&mut self) {
        self.times_ns.clear();
        for c in &mut self.cols {
            c.clear();
        }
    }

    /// Drop samples older than `max_age` before the newest one, and any beyond the capacity.
    pub fn prune(&mut self) {
        let Some(newest) = self.newest_ns() else {
            return;
        };
        let age_ns = u64::try_from(self.max_age.as_nanos()).unwrap_or(u64::MAX);
        let cutoff = newest.saturating_sub(age_ns);
        let mut drop = self.times_ns.partition_point(|&t| t < cutoff);
        drop = drop.max(self.times_ns.len().saturating_sub(self.capacity));
        if drop > 0 {
            self.times_ns.drain(..drop);
            for c in &mut self.cols {
                c.drain(..drop);
            }
        }
    }

    /// Index of the first sample inside the last `span` before the newest.
    fn window_start(&self, span: Duration) -> usize {
        let Some(newest) = self.newest_ns() else {
            return 0;
        };
        let span_ns = u64::try_from(span.as_nanos()).unwrap_or(u64::MAX);
        let cutoff = newest.saturating_sub(span_ns);
        self.times_ns.partition_point(|&t| t < cutoff)
    }

    /// The samples of `metric` in the last `span`, oldest first, as
    /// (seconds relative to the newest sample, ≤ 0; value or `None` for a gap).
    /// A metric the history keeps no column for has no samples.
    pub fn window(
        &self,
        metric: &Metric,
        span: Duration,
    ) -> impl Iterator<Item = (f64, Option<f64>)> + '_ {
        let start = self.window_start(span);
        let newest = self.newest_ns().unwrap_or(0);
        let col = column(metric).and_then(|c| self.cols.get(c));
        let n = if col.is_some() {
            self.times_ns.len()
        } else {
            0
        };
        self.times_ns
            .range(start.min(n)..n)
            .zip(col.into_iter().flat_map(move |c| c.range(start..)))
            .map(move |(&t, &v)| (-((newest - t) as f64) / 1e9, value(v)))
    }

    /// The largest value of any of `metrics` in the last `span`.
    pub fn max_in_window(&self, metrics: &[&Metric], span: Duration) -> Option<f64> {
        let start = self.window_start(span);
        metrics
            .iter()
            .filter_map(|m| self.cols.get(column(m)?))
            .flat_map(|c| c.range(start..).filter_map(|&v| value(v)))
            .fold(None, |acc: Option<f64>, v| {
                Some(acc.map_or(v, |a| a.max(v)))
            })
    }

    /// The newest value of `metric`.
    pub fn latest(&self, metric: &Metric) -> Option<f64> {
        self.cols
            .get(column(metric)?)?
            .back()
            .and_then(|&v| value(v))
    }
}

fn value(v: f32) -> Option<f64> {
    (!v.is_nan()).then_some(f64::from(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds between the oldest and the newest sample kept.
    fn span_secs(h: &History) -> f64 {
        match (h.times_ns.front(), h.times_ns.back()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e9,
            _ => 0.0,
        }
    }

    const S: u64 = 1_000_000_000;

    fn pool() -> &'static Metric {
        metrics::ZSWAP_POOL_BYTES
    }

    fn ratio() -> &'static Metric {
        metrics::ZSWAP_COMPRESSION_RATIO
    }

    fn row(pool_bytes: Option<f64>) -> Vec<Option<f64>> {
        let mut r = vec![None; columns().count()];
        r[column(pool()).unwrap()] = pool_bytes;
        r
    }

    #[test]
    fn gaps_stay_gaps() {
        let mut h = History::new(Duration::from_secs(600));
        h.push(10 * S, &row(Some(1.0)));
        h.push(11 * S, &row(None));
        h.push(12 * S, &row(Some(3.0)));
        let w: Vec<_> = h.window(pool(), Duration::from_secs(600)).collect();
        assert_eq!(w, vec![(-2.0, Some(1.0)), (-1.0, None), (0.0, Some(3.0))]);
        assert_eq!(
            h.max_in_window(&[pool()], Duration::from_secs(600)),
            Some(3.0)
        );
        // A column never filled is all gaps, and has no maximum.
        assert!(
            h.window(ratio(), Duration::from_secs(600))
                .all(|(_, v)| v.is_none())
        );
        assert_eq!(h.max_in_window(&[ratio()], Duration::from_secs(600)), None);
    }

    #[test]
    fn large_values_keep_graph_precision() {
        let mut h = History::new(Duration::from_secs(60));
        h.push(S, &row(Some(522_948_608.0)));
        let v = h.latest(pool()).unwrap();
        assert!((v - 522_948_608.0).abs() / 522_948_608.0 < 1e-6);
        h.reserve(100);
        assert_eq!(h.len(), 1);
    }

    #[test]
    fn non_finite_values_are_gaps() {
        let mut h = History::new(Duration::from_secs(60));
        h.push(S, &row(Some(f64::NAN)));
        h.push(2 * S, &row(Some(f64::INFINITY)));
        assert_eq!(h.latest(pool()), None);
        assert_eq!(h.max_in_window(&[pool()], Duration::from_secs(60)), None);
    }

    #[test]
    fn prunes_by_sample_age() {
        let mut h = History::new(Duration::from_secs(10));
        for i in 0..=30u64 {
            h.push(i * S, &row(Some(i as f64)));
        }
        // Kept: samples no older than 10 s before the newest (20..=30).
        assert_eq!(h.len(), 11);
        assert_eq!(span_secs(&h), 10.0);
        let first = h.window(pool(), Duration::from_secs(3600)).next();
        assert_eq!(first, Some((-10.0, Some(20.0))));
    }

    #[test]
    fn bounded_by_capacity() {
        let mut h = History::with_capacity(Duration::from_secs(3600), 5);
        for i in 0..100u64 {
            h.push(i * S, &row(Some(1.0)));
        }
        assert_eq!(h.len(), 5);
        assert_eq!(h.newest_ns(), Some(99 * S));
    }

    #[test]
    fn zoom_window_is_relative_to_the_newest_sample() {
        let mut h = History::new(Duration::from_secs(600));
        for i in 0..100u64 {
            h.push(1_000 * S + i * S, &row(Some(i as f64)));
        }
        let w: Vec<_> = h.window(pool(), Duration::from_secs(5)).collect();
        assert_eq!(w.len(), 6, "the window includes its edge");
        assert_eq!(w.first(), Some(&(-5.0, Some(94.0))));
        assert_eq!(w.last(), Some(&(0.0, Some(99.0))));
        assert_eq!(
            h.max_in_window(&[pool()], Duration::from_secs(5)),
            Some(99.0)
        );
        assert_eq!(h.window(pool(), Duration::from_secs(600)).count(), 100);
    }

    /// A few samples more than the reserve (some came between ticks): the columns grow by an
    /// eighth, not to twice the reserve.
    #[test]
    fn a_full_history_grows_by_an_eighth() {
        let mut h = History::new(Duration::from_secs(600));
        h.reserve(6_004);
        let (_, room, _) = h.footprint();
        assert!((6_004..6_100).contains(&room), "{room}");
        // 6,100 samples in ten minutes: ten ticks a second and a hundred more between them.
        for i in 0..6_100u64 {
            h.push(1_000 * S + i * 600 * S / 6_100, &row(Some(i as f64)));
        }
        let (len, room, bytes) = h.footprint();
        assert_eq!(len, 6_100);
        assert!(room <= 6_004 + 6_004 / 8 + 16, "room for {room}");
        let per_sample = size_of::<u64>() + columns().count() * size_of::<f32>();
        assert!(bytes <= room * per_sample + per_sample, "{bytes} bytes");
    }

    #[test]
    fn clock_going_back_restarts_the_ring() {
        let mut h = History::new(Duration::from_secs(600));
        h.push(50 * S, &row(Some(1.0)));
        h.push(51 * S, &row(Some(2.0)));
        h.push(10 * S, &row(Some(3.0)));
        assert_eq!(h.len(), 1);
        assert_eq!(h.latest(pool()), Some(3.0));
    }

    #[test]
    fn a_metric_off_the_graphs_has_no_column() {
        let mut h = History::new(Duration::from_secs(600));
        h.push(S, &row(Some(1.0)));
        let off = metrics::OOM_KILL;
        assert!(off.series.is_none());
        assert_eq!(h.window(off, Duration::from_secs(600)).count(), 0);
        assert_eq!(h.latest(off), None);
        assert_eq!(h.window(pool(), Duration::from_secs(600)).count(), 1);
    }

    #[test]
    fn empty_history() {
        let h = History::new(Duration::from_secs(600));
        assert!(h.is_empty());
        assert_eq!(h.window(pool(), Duration::from_secs(60)).count(), 0);
        assert_eq!(span_secs(&h), 0.0);
    }
}
