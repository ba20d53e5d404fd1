//! Replay: the dashboard over a recording, with a time cursor.
//!
//! [`Cursor`] is the app's side, pure state: which record is shown, which one the keys or the
//! replay clock ask for (the target), playing or paused, the speed. The recording's side, the
//! source of the samples that bring the app to the target, is
//! [`ReplaySource`](crate::record::replay::ReplaySource); what it feeds becomes a
//! [`Msg::Replayed`].

use std::sync::Arc;
use std::time::Duration;

use jiff::tz::TimeZone;

use super::Msg;
use crate::record::replay::Feed;
use crate::record::time;

/// How often a replay's clock moves on (and the screen with it, when a record was reached).
pub const TICK: Duration = Duration::from_millis(250);

/// The speeds `+`/`-` step through (times real time).
pub const SPEEDS: [u32; 6] = [1, 2, 5, 10, 30, 60];

/// A recording's gap longer than this many seconds of replay time is skipped while playing
/// (the recorder was stopped; nothing happened to watch).
const SKIP_GAP_S: u64 = 5;

/// The app's side of a replay.
#[derive(Debug, Clone)]
pub struct Cursor {
    /// The wall time of each record (ms since the epoch), in recorded order.
    times: Arc<[u64]>,
    /// Positions ordered by wall time (then position), for moments asked by time.
    by_time: Arc<[u32]>,
    /// The record the screen shows (`None` before the first feed).
    pub shown: Option<usize>,
    /// The record asked for.
    pub target: usize,
    pub playing: bool,
    /// Index into [`SPEEDS`].
    speed: usize,
    /// The replay clock while playing (ms since the epoch).
    clock_ms: u64,
    /// The go-to prompt, while open.
    pub goto: Option<String>,
    /// What the last go-to said (a time that does not parse, one outside the recording).
    pub message: Option<String>,
}

impl Cursor {
    /// A cursor over records with these wall times, at `start`, paused.
    pub fn new(times: Vec<u64>, start: usize) -> Cursor {
        let mut by_time: Vec<u32> = (0..times.len() as u32).collect();
        by_time.sort_by_key(|&i| (times[i as usize], i));
        let start = start.min(times.len().saturating_sub(1));
        Cursor {
            clock_ms: times.get(start).copied().unwrap_or(0),
            times: times.into(),
            by_time: by_time.into(),
            shown: None,
            target: start,
            playing: false,
            speed: 0,
            goto: None,
            message: None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.times.len()
    }

    pub(crate) fn speed(&self) -> u32 {
        SPEEDS[self.speed]
    }

    /// The wall time of the record at `position`.
    pub(crate) fn time_of(&self, position: usize) -> Option<u64> {
        self.times.get(position).copied()
    }

    /// The feed is behind what is asked.
    pub(crate) fn wants_samples(&self) -> bool {
        self.shown != Some(self.target)
    }

    /// The record with the latest wall time at or before `ms` (`None`: before the first).
    fn position_at(&self, ms: u64) -> Option<usize> {
        let n = self
            .by_time
            .partition_point(|&i| self.times[i as usize] <= ms);
        n.checked_sub(1).map(|k| self.by_time[k] as usize)
    }

    fn go(&mut self, position: usize) {
        self.target = position.min(self.times.len().saturating_sub(1));
        self.clock_ms = self.times.get(self.target).copied().unwrap_or(0);
        if self.target + 1 >= self.times.len() {
            self.playing = false;
        }
    }

    fn here(&self) -> usize {
        self.target
    }

    /// One record forward (`+1`) or back (`-1`).
    pub(crate) fn step(&mut self, by: isize) {
        let p = self.here().saturating_add_signed(by);
        self.go(p);
    }

    /// Jump by `secs` of recorded time (negative: back). Forward, at least one record.
    pub(crate) fn jump(&mut self, secs: i64) {
        let now = self.time_of(self.here()).unwrap_or(0);
        let to = now.saturating_add_signed(secs.saturating_mul(1000));
        let p = match self.position_at(to) {
            Some(p) if secs > 0 => p.max(self.here() + 1),
            Some(p) => p,
            None => 0,
        };
        self.go(p);
    }

    pub(crate) fn toggle_play(&mut self) {
        if !self.playing && self.here() + 1 >= self.times.len() {
            // At the end: play from the start again.
            self.go(0);
        }
        self.playing = !self.playing;
        self.clock_ms = self.time_of(self.here()).unwrap_or(0);
    }

    pub(crate) fn faster(&mut self) {
        self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
    }

    pub(crate) fn slower(&mut self) {
        self.speed = self.speed.saturating_sub(1);
    }

    /// A tick of `real` time passed: while playing, the replay clock moves on by `real` times
    /// the speed, and the target to the last record it reached.
    pub(crate) fn tick(&mut self, real: Duration) {
        if !self.playing {
            return;
        }
        let ms = u64::try_from(real.as_millis()).unwrap_or(u64::MAX);
        self.clock_ms = self
            .clock_ms
            .saturating_add(ms.saturating_mul(u64::from(self.speed())));
        let mut p = self.here();
        while let Some(&next) = self.times.get(p + 1) {
            if next <= self.clock_ms {
                p += 1;
            } else {
                if next - self.clock_ms > SKIP_GAP_S * 1000 * u64::from(self.speed()) {
                    // A long gap: on to the next record at once.
                    p += 1;
                }
                break;
            }
        }
        let clock = self.clock_ms;
        self.go(p);
        if self.playing {
            self.clock_ms = clock.max(self.clock_ms);
        }
    }

    /// Go to a time typed at the `g` prompt (see [`time::parse`]).
    pub(crate) fn goto_text(&mut self, text: &str) {
        let (Some(&first), Some(&last)) = (self.times.first(), self.times.last()) else {
            return;
        };
        let (Some(first), Some(last)) = (time::timestamp(first), time::timestamp(last)) else {
            return;
        };
        let bounds = time::Bounds { first, last };
        match time::parse(text, bounds, &TimeZone::system()) {
            Ok(t) => {
                let ms = u64::try_from(t.as_millisecond()).unwrap_or(0);
                match self.position_at(ms) {
                    Some(p) => {
                        self.message = None;
                        self.go(p);
                    }
                    None => {
                        self.message = Some(format!(
                            "{text}: before the recording's start; shown: its first sample"
                        ));
                        self.go(0);
                    }
                }
            }
            Err(e) => self.message = Some(e.to_string()),
        }
    }
}

impl From<Feed> for Msg {
    fn from(f: Feed) -> Msg {
        Msg::Replayed {
            position: f.position,
            fresh: f.fresh,
            from_start: f.from_start,
            samples: f.samples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor() -> Cursor {
        // A record a second, with a stop of an hour after the 100th.
        let mut t: Vec<u64> = (0..100).map(|i| 1_000_000 + i * 1000).collect();
        t.extend((0..100).map(|i| 1_000_000 + 3_600_000 + i * 1000));
        Cursor::new(t, 0)
    }

    #[test]
    fn steps_and_jumps_stay_in_the_recording() {
        let mut c = cursor();
        c.step(-1);
        assert_eq!(c.target, 0);
        c.step(1);
        assert_eq!(c.target, 1);
        c.jump(60);
        assert_eq!(c.target, 61);
        c.jump(-600);
        assert_eq!(c.target, 0);
        c.jump(600);
        assert_eq!(c.target, 99, "the last record at or before +10 min");
        c.jump(60);
        assert_eq!(c.target, 100, "forward: at least one record");
        c.jump(600);
        c.jump(600);
        assert_eq!(c.target, 199);
    }

    #[test]
    fn playing_moves_with_the_clock_and_the_speed_and_skips_gaps() {
        let mut c = cursor();
        c.toggle_play();
        c.tick(Duration::from_millis(500));
        assert_eq!(c.target, 0);
        c.tick(Duration::from_millis(500));
        assert_eq!(c.target, 1);
        c.faster();
        c.faster();
        assert_eq!(c.speed(), 5);
        c.tick(Duration::from_secs(1));
        assert_eq!(c.target, 6);
        c.go(99);
        c.tick(Duration::from_millis(100));
        assert_eq!(c.target, 100, "an hour without records is skipped");
        c.go(198);
        c.tick(Duration::from_secs(1));
        assert_eq!(c.target, 199);
        assert!(!c.playing, "stops at the end");
        c.toggle_play();
        assert_eq!(c.target, 0, "play again from the start");
    }

    #[test]
    fn go_to_a_time() {
        let mut c = cursor();
        c.goto_text("1970-01-01T00:17:00Z");
        assert_eq!(c.target, 20, "{:?}", c.message);
        c.goto_text("1970-01-01T00:00:00Z");
        assert_eq!(c.target, 0);
        assert!(
            c.message
                .as_deref()
                .unwrap()
                .contains("before the recording")
        );
        c.goto_text("nonsense");
        assert!(c.message.as_deref().unwrap().contains("not a time"));
        assert_eq!(c.target, 0);
        c.goto_text("-10s");
        assert_eq!(c.target, 189);
    }
}
