//! A cgroup's memory events, pressure and limits (issue 35): what `memory.events`,
//! `memory.pressure` and the limit files say, with each limit's headroom, and the counts over the
//! window between two reads of the tree.
//!
//! Headroom is the limit less what the kernel compares with it (mm/memcontrol.c): `memory.current`
//! for memory.high and memory.max, `memory.swap.current` for memory.swap.max, memory.stat `zswap`
//! (the compressed bytes charged) for memory.zswap.max. It is negative over memory.high (a
//! throttle, not a wall: usage may pass it while the cgroup is reclaimed).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::rates::{counter_delta, counter_rate};
use crate::sanitize::Sanitize;
use crate::sources::cgroups::{CgroupSample, MemoryEvents};
use crate::sources::psi::PsiSample;

/// `memory.events` counts since the cgroup was made (its own and its descendants'); on cgroup v1
/// only `oom_kill` (memory.oom_control, Linux 4.13+). `null`: not in this kernel's file.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema,
)]
pub struct CgroupEvents {
    /// Times usage went over memory.high (the cgroup was throttled and reclaimed).
    pub high: Option<u64>,
    /// Times usage was about to pass memory.max or memory.swap.max.
    pub max: Option<u64>,
    /// Times the cgroup hit its limit with nothing left to reclaim (an OOM).
    pub oom: Option<u64>,
    /// Processes of the cgroup killed by an OOM killer.
    pub oom_kill: Option<u64>,
    /// Whole-group OOM kills (memory.oom.group), Linux 5.17+.
    pub oom_group_kill: Option<u64>,
}

impl From<&MemoryEvents> for CgroupEvents {
    fn from(e: &MemoryEvents) -> CgroupEvents {
        CgroupEvents {
            high: e.high,
            max: e.max,
            oom: e.oom,
            oom_kill: e.oom_kill,
            oom_group_kill: e.oom_group_kill,
        }
    }
}

impl CgroupEvents {
    /// Every count, in one order.
    fn all(&self) -> [Option<u64>; 5] {
        [
            self.high,
            self.max,
            self.oom,
            self.oom_kill,
            self.oom_group_kill,
        ]
    }

    /// Whether any count is below `prev`'s: the cgroup was made again.
    pub(crate) fn went_back(&self, prev: &CgroupEvents) -> bool {
        self.all()
            .iter()
            .zip(prev.all())
            .any(|(c, p)| matches!((p, c), (Some(p), Some(c)) if *c < p))
    }

    /// How many of each happened since `prev`.
    fn since(&self, prev: &CgroupEvents) -> CgroupEvents {
        CgroupEvents {
            high: counter_delta(prev.high, self.high),
            max: counter_delta(prev.max, self.max),
            oom: counter_delta(prev.oom, self.oom),
            oom_kill: counter_delta(prev.oom_kill, self.oom_kill),
            oom_group_kill: counter_delta(prev.oom_group_kill, self.oom_group_kill),
        }
    }
}

/// The same events per second over the window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct CgroupEventRates {
    #[schemars(range(min = 0))]
    pub high: Option<f64>,
    #[schemars(range(min = 0))]
    pub max: Option<f64>,
    #[schemars(range(min = 0))]
    pub oom: Option<f64>,
    #[schemars(range(min = 0))]
    pub oom_kill: Option<f64>,
    #[schemars(range(min = 0))]
    pub oom_group_kill: Option<f64>,
}

/// `memory.pressure`: the share of time some (or all) of the cgroup's tasks stalled on memory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct CgroupPressure {
    /// `some avg10`, percent (0–100).
    #[schemars(range(min = 0, max = 100))]
    pub some_avg10: f64,
    /// `full avg10`, percent (0–100).
    #[schemars(range(min = 0, max = 100))]
    pub full_avg10: f64,
    /// `some total`: microseconds stalled since the cgroup was made.
    pub some_total_us: u64,
    pub full_total_us: u64,
    /// Microseconds stalled over the window (`some` and `full` totals' deltas); `null` without one.
    pub some_delta_us: Option<u64>,
    pub full_delta_us: Option<u64>,
}

/// One limit and its headroom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct Limit {
    /// The limit in bytes; `null` for "max" (no limit).
    pub limit_bytes: Option<u64>,
    /// What the kernel compares with it (memory.current, memory.swap.current or memory.stat
    /// zswap); `null` when unknown.
    pub usage_bytes: Option<u64>,
    /// limit − usage (negative: over it); `null` without a limit or a usage.
    pub headroom_bytes: Option<i64>,
    /// headroom ÷ limit (0 at the limit, negative over it); `null` as headroom is, or for a 0
    /// limit.
    pub headroom_share: Option<f64>,
}

impl Limit {
    /// `limit`: `None` for "max".
    pub(crate) fn new(limit: Option<u64>, usage: Option<u64>) -> Limit {
        let headroom = match (limit, usage) {
            (Some(l), Some(u)) => Some(l as i128 - u as i128),
            _ => None,
        };
        Limit {
            limit_bytes: limit,
            usage_bytes: usage,
            headroom_bytes: headroom.map(|h| h.clamp(i64::MIN as i128, i64::MAX as i128) as i64),
            headroom_share: match (headroom, limit) {
                (Some(h), Some(l)) if l > 0 => Some(h as f64 / l as f64),
                _ => None,
            },
        }
    }

    /// The share of the limit in use (usage ÷ limit), for a limit that is set and not 0.
    pub fn used_share(&self) -> Option<f64> {
        self.headroom_share.map(|h| 1.0 - h)
    }
}

/// The four limits, each `null` where its file is absent (the root cgroup; cgroup v1, but for
/// memory.max read from memory.limit_in_bytes; memory.zswap.max before 5.19).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct CgroupLimits {
    pub memory_high: Option<Limit>,
    pub memory_max: Option<Limit>,
    pub swap_max: Option<Limit>,
    pub zswap_max: Option<Limit>,
}

impl CgroupLimits {
    /// Each limit that is set, with its file's name.
    pub fn named(&self) -> [(&'static str, Option<&Limit>); 4] {
        [
            ("memory.max", self.memory_max.as_ref()),
            ("memory.high", self.memory_high.as_ref()),
            ("memory.swap.max", self.swap_max.as_ref()),
            ("memory.zswap.max", self.zswap_max.as_ref()),
        ]
    }

    /// The set limit with the least headroom for its size (smallest headroom ÷ limit), with its
    /// file's name; `None` when no limit is set.
    pub fn tightest(&self) -> Option<(&'static str, &Limit)> {
        self.named()
            .into_iter()
            .filter_map(|(n, l)| Some((n, l?)))
            .filter(|(_, l)| l.headroom_share.is_some())
            .min_by(|a, b| {
                let share = |l: &Limit| l.headroom_share.unwrap_or(f64::INFINITY);
                share(a.1).total_cmp(&share(b.1))
            })
    }

    /// Whether any limit file was read.
    pub fn any(&self) -> bool {
        self.named().iter().any(|(_, l)| l.is_some())
    }
}

/// A row's events, pressure and limits: (events, events over the window, their rates,
/// pressure, limits). `prev`: the same cgroup's previous read (not re-created), `dt` seconds
/// before.
pub(crate) fn derive(
    c: &CgroupSample,
    prev: Option<&CgroupSample>,
    dt: f64,
) -> (
    Option<CgroupEvents>,
    Option<CgroupEvents>,
    Option<CgroupEventRates>,
    Option<CgroupPressure>,
    CgroupLimits,
) {
    let events = c.events.as_ref().map(CgroupEvents::from);
    let windowed = prev.filter(|_| dt > 0.0 && dt.is_finite());
    let prev_events = windowed
        .and_then(|p| p.events.as_ref())
        .map(CgroupEvents::from);
    let new = events.zip(prev_events).map(|(e, p)| e.since(&p));
    let rates = events.zip(prev_events).map(|(e, p)| {
        let r = |f: fn(&CgroupEvents) -> Option<u64>| counter_rate(f(&p), f(&e), dt);
        CgroupEventRates {
            high: r(|e| e.high),
            max: r(|e| e.max),
            oom: r(|e| e.oom),
            oom_kill: r(|e| e.oom_kill),
            oom_group_kill: r(|e| e.oom_group_kill),
        }
    });
    let pressure = c.pressure.as_ref().map(|p: &PsiSample| {
        let before = windowed.and_then(|w| w.pressure.as_ref());
        CgroupPressure {
            some_avg10: p.some.avg10,
            full_avg10: p.full.avg10,
            some_total_us: p.some.total_us,
            full_total_us: p.full.total_us,
            some_delta_us: before.and_then(|b| p.some.total_us.checked_sub(b.some.total_us)),
            full_delta_us: before.and_then(|b| p.full.total_us.checked_sub(b.full.total_us)),
        }
    });
    let limit = |l: Option<Option<u64>>, usage: Option<u64>| l.map(|l| Limit::new(l, usage));
    let limits = CgroupLimits {
        memory_high: limit(c.memory_high, c.memory_current),
        memory_max: limit(c.memory_max, c.memory_current),
        swap_max: limit(c.swap_max, c.swap_current),
        zswap_max: limit(c.zswap_max, c.zswap),
    };
    (events, new, rates, pressure, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headroom_under_at_and_over() {
        let l = Limit::new(Some(1000), Some(900));
        assert_eq!((l.headroom_bytes, l.headroom_share), (Some(100), Some(0.1)));
        assert_eq!(l.used_share(), Some(0.9));
        let over = Limit::new(Some(1000), Some(1500));
        assert_eq!(over.headroom_bytes, Some(-500));
        let max = Limit::new(None, Some(5));
        assert_eq!((max.headroom_bytes, max.headroom_share), (None, None));
        let zero = Limit::new(Some(0), Some(0));
        assert_eq!((zero.headroom_bytes, zero.headroom_share), (Some(0), None));
    }

    /// Counts over a 2 s window, rates, pressure deltas; none without the previous read.
    #[test]
    fn counts_over_the_window() {
        let ev = |high, kill| MemoryEvents {
            high: Some(high),
            max: Some(0),
            oom: Some(kill),
            oom_kill: Some(kill),
            oom_group_kill: None,
        };
        let psi = |total| {
            let mut p = PsiSample::default();
            p.some.total_us = total;
            p.full.total_us = total / 2;
            p.some.avg10 = 12.5;
            p
        };
        let prev = CgroupSample {
            events: Some(ev(10, 0)),
            pressure: Some(psi(1000)),
            ..Default::default()
        };
        let curr = CgroupSample {
            events: Some(ev(30, 1)),
            pressure: Some(psi(5000)),
            memory_current: Some(900),
            memory_max: Some(Some(1000)),
            memory_high: Some(None),
            ..Default::default()
        };
        let (e, new, rates, p, limits) = derive(&curr, Some(&prev), 2.0);
        assert_eq!(e.unwrap().high, Some(30));
        let new = new.unwrap();
        assert_eq!(
            (new.high, new.oom_kill, new.oom_group_kill),
            (Some(20), Some(1), None)
        );
        assert_eq!(rates.unwrap().high, Some(10.0));
        let p = p.unwrap();
        assert_eq!((p.some_delta_us, p.full_delta_us), (Some(4000), Some(2000)));
        assert_eq!(p.some_avg10, 12.5);
        assert_eq!(limits.memory_max.unwrap().headroom_bytes, Some(100));
        assert_eq!(limits.memory_high.unwrap().limit_bytes, None);
        assert_eq!(limits.swap_max, None, "no file: no limit row");
        let (_, new, rates, p, _) = derive(&curr, None, 2.0);
        assert_eq!((new, rates), (None, None));
        assert_eq!(p.unwrap().some_delta_us, None);
        let (a, b) = (
            CgroupEvents::from(&ev(10, 0)),
            CgroupEvents::from(&ev(30, 1)),
        );
        assert!(!b.went_back(&a));
        assert!(a.went_back(&b));
    }
}
