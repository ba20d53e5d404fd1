//! Where samples come from. Every front end (the dashboard, `--once`, and a recorder or metrics
//! server alike) takes its samples from a [`SampleSource`]; [`Sampler`] is the live one, reading
//! the kernel (or a `--root` tree), and a recording's reader is another.
//!
//! The live sampler for the dashboard takes a full [`sources::collect_with`] at start and again
//! every [`FULL_EVERY`], and [`sources::collect_fast`] on the ticks between, which re-reads what
//! moves or is on screen and takes the rest from the previous sample (see there for the list).
//! The scans that cost more than a file read (every process, the cgroup tree) happen only when
//! the caller's [`Extras`] ask for them: the dashboard asks while their view is visible.
//!
//! The process scan reads `/proc/PID/status` of every process, which the kernel builds for each
//! read (about 15 µs a process): on a machine with thousands of processes it would cost more
//! than everything else together. So it takes at most [`SCAN_SHARE`]⁻¹ of one CPU: after a tick
//! that scanned in `d`, the next scan comes no sooner than `SCAN_SHARE × d` later, and the ticks
//! in between carry the last scan's list. With a few hundred processes that is every tick.
//!
//! The cgroup tree is capped the same way, and also read in slices of at most [`SLICE`]: a
//! walk of tens of thousands of cgroups is spread over many slices with the keys read between
//! them ([`Sampler::work`]), so the dashboard answers at once whatever the tree. Until a walk
//! is done the ticks carry the last complete list, with the time it was read.

use std::time::Duration;

use crate::error::Reading;
use crate::root::Root;
use crate::sources::cgroups::{self, CgroupSample, Walk};
use crate::sources::processes::FaultCounts;
use crate::sources::{self, Extras, Sample};
use crate::sys;

/// The shortest sampling interval (`--interval`, the dashboard's `-` key, `record -i`).
pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

/// The sampling interval when none is given (the dashboard, `--watch`).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// How often the sources nothing on screen shows are read again.
pub const FULL_EVERY: Duration = Duration::from_secs(60);

/// The process scan takes at most 1/SCAN_SHARE of one CPU (2%).
pub const SCAN_SHARE: u64 = 50;

/// The longest piece of cgroup walk done before the keys are read again.
pub const SLICE: Duration = Duration::from_millis(20);

/// The cgroup tree: the walk under way, the last complete list, and what the last walk cost.
#[derive(Debug, Default)]
struct CgroupScan {
    walk: Option<Walk>,
    /// When the walk under way started, and the time its slices took so far (ns).
    started: (u64, u64),
    /// The last complete reading and when it was read.
    list: Option<(Reading<Vec<CgroupSample>>, u64)>,
    /// The last complete walk: when it started and what its slices took (ns).
    last: Option<(u64, u64)>,
}

/// A stream of samples of one system.
pub trait SampleSource {
    /// The next sample. `prev` is the one before it (none at start); `extras` are the costly
    /// scans wanted in it.
    fn next(&mut self, prev: Option<&Sample>, extras: Extras) -> Sample;

    /// How long the process list now waits between scans, when that is longer than `interval`
    /// (`None` while no view scans, or when every tick scans).
    fn scan_every(&self, interval: Duration) -> Option<Duration>;

    /// Do one slice of work under way between samples (a cgroup walk). `None` when there is
    /// none; else whether it is now done (its result goes into the next sample).
    fn work(&mut self) -> Option<bool>;
}

/// The live sampler: reads the kernel, or the tree under `--root`.
#[derive(Debug)]
pub struct Sampler {
    root: Root,
    /// Every sample is a full one, with every scan done at once (`--once`).
    always_full: bool,
    /// When the last full sample was taken.
    last_full_ns: Option<u64>,
    /// The last tick that scanned the processes: when it started and how long it took (ns).
    last_scan: Option<(u64, u64)>,
    cgroups: CgroupScan,
    /// The longest piece of cgroup walk ([`SLICE`]).
    slice: Duration,
    /// Every process's major faults at the last process scan: the next scan's deltas are
    /// taken against them. Dropped while no view scans.
    fault_counts: Option<FaultCounts>,
    /// For `serve`: full samples carry the command line and the compressors registered for
    /// [`FULL_EVERY`] ([`sources::Carried`]).
    carry: bool,
    /// What is carried, with when it was read.
    carried: Option<(u64, sources::Carried)>,
}

impl Sampler {
    /// For the dashboard: fast ticks between full samples, costly scans spaced out, the cgroup
    /// tree walked in slices.
    pub fn new(root: Root) -> Sampler {
        Sampler {
            root,
            always_full: false,
            last_full_ns: None,
            last_scan: None,
            cgroups: CgroupScan::default(),
            slice: SLICE,
            fault_counts: None,
            carry: false,
            carried: None,
        }
    }

    /// For `serve`: every sample full and every scan done at once, as [`Sampler::full`], but
    /// `/proc/cmdline` and `/proc/crypto` read once every [`FULL_EVERY`], as the dashboard reads
    /// them.
    pub(crate) fn scraper(root: Root) -> Sampler {
        Sampler {
            carry: true,
            ..Sampler::full(root)
        }
    }

    /// For `--once`: every sample full, every scan done at once.
    pub fn full(root: Root) -> Sampler {
        Sampler {
            always_full: true,
            ..Sampler::new(root)
        }
    }

    /// Start a walk of the cgroup tree unless one is under way or the last was too recent for
    /// its cost.
    fn start_walk_if_due(&mut self, now: u64) {
        let c = &mut self.cgroups;
        let due = c.walk.is_none()
            && c.last
                .is_none_or(|(at, took)| now.saturating_sub(at) >= took.saturating_mul(SCAN_SHARE));
        if !due {
            return;
        }
        match cgroups::find(&self.root) {
            Ok(tree) => {
                c.walk = Some(Walk::new(self.root.clone(), tree));
                c.started = (now, 0);
            }
            Err(e) => {
                c.list = Some((Err(e), now));
                c.last = Some((now, sys::monotonic_ns().saturating_sub(now)));
            }
        }
    }
}

impl SampleSource for Sampler {
    fn next(&mut self, prev: Option<&Sample>, extras: Extras) -> Sample {
        if prev.is_none() || extras.top_processes.is_none() {
            // A new run, or no scan: the next scan's faults start afresh.
            self.fault_counts = None;
        }
        if self.always_full {
            let now = sys::monotonic_ns();
            let every = u64::try_from(FULL_EVERY.as_nanos()).unwrap_or(u64::MAX);
            let carried = match &self.carried {
                Some((at, c)) if now.saturating_sub(*at) < every => c.clone(),
                _ => sources::Carried::default(),
            };
            let (s, counts) =
                sources::collect_carrying(&self.root, extras, self.fault_counts.as_ref(), &carried);
            if self.carry && carried.crypto.is_none() {
                self.carried = Some((s.monotonic_ns, sources::Carried::of(&s)));
            }
            self.fault_counts = counts;
            self.last_full_ns = Some(s.monotonic_ns);
            return s;
        }
        let now = sys::monotonic_ns();
        let every = u64::try_from(FULL_EVERY.as_nanos()).unwrap_or(u64::MAX);
        let full_due = self
            .last_full_ns
            .is_none_or(|t| now.saturating_sub(t) >= every);
        // A process list to carry, when the last scan was too recent for its cost.
        let carry = match (extras.top_processes, self.last_scan) {
            (Some(_), Some((at, took))) if now.saturating_sub(at) < took * SCAN_SHARE => prev
                // A list read without smaps_rollup is not carried to a view that now asks for it.
                .filter(|p| !extras.smaps || p.processes.as_ref().is_some_and(|l| l.smaps_read))
                .and_then(|p| {
                    let faults = p.faults.clone().map(|f| (f, p.monotonic_ns));
                    p.processes.clone().map(|list| (list, faults))
                }),
            _ => None,
        };
        let mut ask = extras;
        if carry.is_some() {
            ask.top_processes = None;
        }
        // The cgroup tree is walked here, in slices, not by the sources.
        ask.cgroups = false;
        if extras.cgroups {
            self.start_walk_if_due(now);
            self.work();
        } else {
            self.cgroups = CgroupScan::default();
        }
        let since = self.fault_counts.as_ref();
        let (mut s, counts) = match prev {
            Some(p) if !full_due => sources::collect_fast_since(&self.root, p, ask, since),
            _ => {
                let (s, counts) = sources::collect_with_since(&self.root, ask, since);
                self.last_full_ns = Some(s.monotonic_ns);
                (s, counts)
            }
        };
        if counts.is_some() {
            self.fault_counts = counts;
        }
        if let Some((list, faults)) = carry {
            // The scan carried with its faults, now older by the time since the sample that
            // had it: their rates stay those of that scan.
            s.processes = Some(list);
            s.faults = faults.map(|(mut f, then)| {
                f.age_ns = f.age_ns.saturating_add(s.monotonic_ns.saturating_sub(then));
                f
            });
        } else if ask.top_processes.is_some() {
            self.last_scan = Some((now, sys::monotonic_ns().saturating_sub(now)));
        } else {
            self.last_scan = None;
        }
        if let Some((list, at)) = &self.cgroups.list {
            s.cgroups = Some(list.clone());
            s.cgroups_age_ns = s.monotonic_ns.saturating_sub(*at);
        }
        s
    }

    fn work(&mut self) -> Option<bool> {
        let c = &mut self.cgroups;
        let walk = c.walk.as_mut()?;
        let t = sys::monotonic_ns();
        let done = walk.step(Some(self.slice));
        c.started.1 = c
            .started
            .1
            .saturating_add(sys::monotonic_ns().saturating_sub(t));
        if done && let Some(walk) = c.walk.take() {
            c.list = Some((Ok(walk.into_list()), c.started.0));
            c.last = Some(c.started);
        }
        Some(done)
    }

    fn scan_every(&self, interval: Duration) -> Option<Duration> {
        let (_, took) = self.last_scan?;
        let every = Duration::from_nanos(took.saturating_mul(SCAN_SHARE));
        (every > interval).then_some(every)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_full_sample_first_then_fast_ones() {
        let mut s = Sampler::new(Root::at("tests/fixtures/linux-6.18-loaded"));
        let a = s.next(None, Extras::default());
        let full_at = s.last_full_ns;
        assert!(full_at.is_some());
        let b = s.next(Some(&a), Extras::default());
        assert_eq!(s.last_full_ns, full_at, "the second tick is a fast one");
        assert!(b.monotonic_ns >= a.monotonic_ns);
        assert_eq!(a.meminfo, b.meminfo);
        assert_eq!(a.tunables, b.tunables);
    }

    #[test]
    fn a_full_sample_again_once_due() {
        let mut s = Sampler::new(Root::at("tests/fixtures/linux-6.18-loaded"));
        let a = s.next(None, Extras::default());
        s.last_full_ns = Some(0);
        let b = s.next(Some(&a), Extras::default());
        assert_eq!(s.last_full_ns, Some(b.monotonic_ns));
    }

    #[test]
    fn a_costly_scan_waits_and_its_list_is_carried() {
        let mut s = Sampler::new(Root::at("tests/fixtures/depth-many-processes"));
        let procs = Extras {
            smaps: false,
            top_processes: Some(10),
            cgroups: false,
            settings: false,
        };
        let a = s.next(None, procs);
        assert!(a.processes.is_some() && s.last_scan.is_some());
        // As if that scan had taken 10 s: the next ticks carry its list.
        let mut b_in = a.clone();
        if let Some(p) = b_in.processes.as_mut() {
            p.scanned = 4242;
        }
        s.last_scan = Some((a.monotonic_ns, 10_000_000_000));
        let b = s.next(Some(&b_in), procs);
        assert_eq!(
            b.processes.as_ref().map(|p| p.scanned),
            Some(4242),
            "carried"
        );
        // Its faults with it, as old as the time since that scan: no new rate over it.
        let (fa, fb) = (a.faults.as_ref().unwrap(), b.faults.as_ref().unwrap());
        assert_eq!(fb.age_ns, b.monotonic_ns - a.monotonic_ns);
        assert_eq!(
            (&fb.faulting, fb.interval_ns),
            (&fa.faulting, fa.interval_ns)
        );
        assert_eq!(
            s.scan_every(Duration::from_secs(1)),
            Some(Duration::from_secs(500))
        );
        // Once the wait is over, it scans again, its faults taken since the carried scan.
        s.last_scan = Some((0, 1));
        let c = s.next(Some(&b), procs);
        assert_ne!(c.processes.as_ref().map(|p| p.scanned), Some(4242));
        let fc = c.faults.as_ref().unwrap();
        assert_eq!(fc.interval_ns, Some(c.monotonic_ns - a.monotonic_ns));
        assert_eq!(fc.age_ns, 0);
        assert!(s.last_scan.is_some_and(|(at, _)| at >= b.monotonic_ns));
        // A scan that took 1 ms (well under 1/SCAN_SHARE of the interval) runs every tick. Set,
        // not measured: how long the fixture's scan takes depends on the machine's load.
        s.last_scan = Some((c.monotonic_ns, 1_000_000));
        assert_eq!(
            s.scan_every(Duration::from_secs(1)),
            None,
            "cheap: every tick"
        );
        // Leaving the view forgets it: coming back scans at once.
        let d = s.next(Some(&c), Extras::default());
        assert!(d.processes.is_none() && s.last_scan.is_none());
    }

    /// `serve`'s sampler reads every sample whole but for `/proc/cmdline` and `/proc/crypto`,
    /// carried from the sample that read them for [`FULL_EVERY`], then read again; `--once`'s
    /// reads them each time.
    #[test]
    fn the_scraper_reads_the_command_line_and_the_compressors_once_a_minute() {
        // A tree of the two files is enough: every other source is missing, with its reason.
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("t");
        std::fs::create_dir_all(tree.join("proc")).unwrap();
        std::fs::copy(
            "tests/fixtures/depth-cgroup-v2/proc/crypto",
            tree.join("proc/crypto"),
        )
        .unwrap();
        std::fs::write(tree.join("proc/cmdline"), "quiet\n").unwrap();
        let (mut scraper, mut once) = (
            Sampler::scraper(Root::at(&tree)),
            Sampler::full(Root::at(&tree)),
        );
        let a = scraper.next(None, Extras::default());
        let names = |s: &Sample| -> Vec<String> {
            let list = s.crypto.as_ref().as_deref().unwrap_or_default();
            list.iter().map(|c| c.name.clone()).collect()
        };
        assert!(
            names(&a).contains(&"lzo-rle".to_string()),
            "{:?}",
            names(&a)
        );
        let crypto = std::fs::read_to_string(tree.join("proc/crypto")).unwrap();
        std::fs::write(
            tree.join("proc/crypto"),
            crypto.replace("lzo-rle", "lzo-xyz"),
        )
        .unwrap();
        std::fs::write(tree.join("proc/cmdline"), "zswap.enabled=0\n").unwrap();
        let b = scraper.next(Some(&a), Extras::default());
        assert!(Arc::ptr_eq(&a.crypto, &b.crypto) && Arc::ptr_eq(&a.boot_params, &b.boot_params));
        let c = once.next(None, Extras::default());
        assert!(names(&c).contains(&"lzo-xyz".to_string()));
        assert_eq!(
            c.boot_params
                .as_ref()
                .as_ref()
                .unwrap()
                .get("zswap.enabled")
                .map(String::as_str),
            Some("0")
        );
        // A minute on: read again.
        if let Some((at, _)) = scraper.carried.as_mut() {
            *at = at.saturating_sub(u64::try_from(FULL_EVERY.as_nanos()).unwrap());
        }
        let d = scraper.next(Some(&b), Extras::default());
        assert_eq!(names(&d), names(&c));
        assert_eq!(d.boot_params, c.boot_params);
    }

    /// `--once` reads everything on every sample and never carries a process list over.
    #[test]
    fn the_full_sampler_never_takes_shortcuts() {
        let mut s = Sampler::full(Root::at("tests/fixtures/depth-many-processes"));
        let procs = Extras {
            smaps: false,
            top_processes: Some(10),
            cgroups: false,
            settings: false,
        };
        let a = s.next(None, procs);
        let mut a_in = a.clone();
        if let Some(p) = a_in.processes.as_mut() {
            p.scanned = 4242;
        }
        // As if the scan had taken 10 s: the dashboard's sampler would carry the list.
        s.last_scan = Some((a.monotonic_ns, 10_000_000_000));
        let b = s.next(Some(&a_in), procs);
        assert_ne!(b.processes.as_ref().map(|p| p.scanned), Some(4242));
        assert_eq!(s.last_full_ns, Some(b.monotonic_ns), "a full sample");
        // The second sample of `--once -i N` takes its faults since the first.
        let (fa, fb) = (a.faults.as_ref().unwrap(), b.faults.as_ref().unwrap());
        assert_eq!(
            (fa.interval_ns, fb.interval_ns),
            (None, Some(b.monotonic_ns - a.monotonic_ns))
        );
    }

    #[test]
    fn scans_only_what_the_extras_ask_for() {
        let mut s = Sampler::new(Root::at("tests/fixtures/linux-6.18-loaded"));
        let a = s.next(None, Extras::default());
        assert!(a.processes.is_none() && a.cgroups.is_none());
        let procs = Extras {
            smaps: false,
            top_processes: Some(10),
            cgroups: false,
            settings: false,
        };
        let b = s.next(Some(&a), procs);
        assert!(b.processes.is_some() && b.cgroups.is_none());
        let c = s.next(Some(&b), Extras::default());
        assert!(c.processes.is_none(), "no scan once the view is left");
    }

    /// A cgroup tree read in slices: no list until the walk is done, then that list, carried
    /// with its age while the next walk waits for its share of CPU.
    #[test]
    fn the_cgroup_walk_resumes_and_its_list_is_carried_with_its_age() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("sys/fs/cgroup");
        for i in 0..5 {
            std::fs::create_dir_all(base.join(format!("s{i}.slice"))).unwrap();
            std::fs::write(base.join(format!("s{i}.slice/memory.stat")), "zswpout 1\n").unwrap();
        }
        std::fs::write(base.join("cgroup.controllers"), "memory\n").unwrap();
        std::fs::write(base.join("memory.stat"), "zswpout 1\n").unwrap();
        let mut s = Sampler::new(Root::at(tmp.path()));
        // One directory per slice.
        s.slice = Duration::ZERO;
        let cg = Extras {
            smaps: false,
            top_processes: None,
            cgroups: true,
            settings: false,
        };
        let a = s.next(None, cg);
        assert!(a.cgroups.is_none(), "no list before the walk is done");
        let mut steps = 1;
        while s.work() == Some(false) {
            steps += 1;
        }
        assert_eq!(steps + 1, 6, "one directory per slice, resumed each time");
        assert_eq!(s.work(), None, "nothing under way");
        let b = s.next(Some(&a), cg);
        let list = b.cgroups.as_ref().unwrap().as_ref().unwrap();
        assert_eq!(list.len(), 6);
        assert_eq!(list[5].path, "/s4.slice");
        let read_at = b.cgroups_read_ns().unwrap();
        // As if that walk had cost 10 s: the next waits, and the ticks carry the list.
        s.cgroups.last = Some((read_at, 10_000_000_000));
        s.cgroups.walk = None;
        std::thread::sleep(Duration::from_millis(5));
        let c = s.next(Some(&b), cg);
        assert!(s.cgroups.walk.is_none(), "not due yet");
        assert_eq!(c.cgroups, b.cgroups, "carried");
        assert_eq!(c.cgroups_read_ns(), Some(read_at));
        assert!(c.cgroups_age_ns >= 5_000_000, "{}", c.cgroups_age_ns);
        // Leaving the view forgets it all.
        let d = s.next(Some(&c), Extras::default());
        assert!(d.cgroups.is_none() && s.cgroups.list.is_none());
    }
}
