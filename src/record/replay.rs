//! Replay's recording side: [`ReplaySource`], a [`SampleSource`] over a [`Reader`]. It brings
//! the dashboard from the record it shows to the one its time cursor asks for (`app::replay`
//! holds the cursor), one sample at a time going forward (as the live dashboard took them), or,
//! for a jump, from scratch: the samples of the history window before the target, so the
//! graphs, rates and findings are those the live dashboard showed at that moment.

use std::path::Path;
use std::time::Duration;

use super::{Error, Reader, Warning};
use crate::sources::sampler::SampleSource;
use crate::sources::{Extras, Sample};

/// What brings the dashboard from the record it shows to the one asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Feed {
    /// The record the samples end at.
    pub position: usize,
    /// Start the history afresh with the samples: the first is only the rate base of the
    /// second, unless `from_start`.
    pub fresh: bool,
    /// The first sample is the recording's first, shown as the live dashboard showed it.
    pub from_start: bool,
    /// The recorded samples, in order.
    pub samples: Vec<Sample>,
}

/// A recording as a source of samples for the dashboard.
pub struct ReplaySource {
    reader: Reader,
    /// The record last handed out, and its sample.
    at: Option<usize>,
    last: Sample,
    /// How much recorded time a jump fills the graphs with.
    history: Duration,
    /// Go forward one record at a time up to this many records; further, start afresh.
    max_steps: usize,
}

impl ReplaySource {
    /// Open the recording at `path` for a replay from the moment `at` (as `--at`; its start
    /// without): the source, and the position to show first. What the opening skipped is said
    /// on stderr; what reading skips later is in [`warnings`](Self::warnings).
    pub(crate) fn open(
        path: &Path,
        at: Option<&str>,
        history: Duration,
    ) -> anyhow::Result<(ReplaySource, usize)> {
        let reader = super::open(path)?;
        let start = match at {
            Some(at) => {
                let t = super::parse_time(&reader, at)?;
                reader.position_at(t).unwrap_or(0)
            }
            None => 0,
        };
        Ok((ReplaySource::new(reader, history, start)?, start))
    }

    /// A source whose first sample is the first at or after `start` that decodes (an error
    /// when none does).
    pub fn new(mut reader: Reader, history: Duration, start: usize) -> Result<ReplaySource, Error> {
        let mut first = Err(Error::NoSuchRecord(start));
        for p in start..reader.len() {
            first = reader.sample(p).map(|s| (p, s));
            if first.is_ok() {
                break;
            }
        }
        let (p, last) = first?;
        Ok(ReplaySource {
            reader,
            at: p.checked_sub(1),
            last,
            history,
            max_steps: 600,
        })
    }

    /// The wall times of the records, for the dashboard's time cursor.
    pub fn times(&self) -> Vec<u64> {
        (0..self.reader.len())
            .filter_map(|p| self.reader.unix_ms(p))
            .collect()
    }

    /// What brings the app from the record it shows to `target`: the samples after it, in
    /// order, or (going back, or far) a fresh start with the samples of the history window up
    /// to `target`. Records that do not decode are left out (the reader's warnings say so).
    pub fn feed(&mut self, shown: Option<usize>, target: usize) -> Option<Feed> {
        if target >= self.reader.len() {
            return None;
        }
        let forward = shown.filter(|&s| s < target && target - s <= self.max_steps);
        let feed = match forward {
            Some(s) => Feed {
                position: target,
                fresh: false,
                from_start: false,
                samples: self.samples(s + 1, target),
            },
            None => {
                let end = self.reader.unix_ms(target).unwrap_or(0);
                let window = u64::try_from(self.history.as_millis()).unwrap_or(u64::MAX);
                let from_ms = end.saturating_sub(window);
                // Back from the target while in the window (recorded order), and one more
                // before: the rate base of the first (at the recording's start, the first
                // record is shown itself).
                let mut first = target;
                while first > 0
                    && target - first < self.max_steps.max(1) * 4
                    && self.reader.unix_ms(first - 1).is_some_and(|t| t >= from_ms)
                {
                    first -= 1;
                }
                let from_start = first == 0;
                Feed {
                    position: target,
                    fresh: true,
                    from_start,
                    samples: self.samples(first.saturating_sub(1), target),
                }
            }
        };
        self.at = Some(target);
        Some(feed)
    }

    fn samples(&mut self, from: usize, to: usize) -> Vec<Sample> {
        (from..=to)
            .filter_map(|p| self.reader.sample(p).ok())
            .collect()
    }

    /// What the reader skipped or noticed.
    pub(crate) fn warnings(&self) -> &[Warning] {
        self.reader.warnings()
    }
}

impl SampleSource for ReplaySource {
    /// The record after the one last handed out (at start, the one it was made for); at the
    /// end, the last again.
    fn next(&mut self, _prev: Option<&Sample>, _extras: Extras) -> Sample {
        let p = self
            .at
            .map_or(0, |a| (a + 1).min(self.reader.len().saturating_sub(1)));
        self.at = Some(p);
        // A record that does not decode (in the warnings): the last one again.
        if let Ok(s) = self.reader.sample(p) {
            self.last = s;
        }
        self.last.clone()
    }

    fn scan_every(&self, _interval: Duration) -> Option<Duration> {
        None
    }

    fn work(&mut self) -> Option<bool> {
        None
    }
}
