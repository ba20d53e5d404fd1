//! Recording: `zswaptop record`, and the sample source that also records what it hands out
//! (`--record` of the dashboard and of `--once`).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::{Error, Writer, WriterOptions, shown};
use crate::root::Root;
use crate::sources::sampler::{SampleSource, Sampler};
use crate::sources::{Extras, Sample};

/// A sample source that also appends every sample to a recording (the dashboard's
/// `--record`). An append that fails is kept to be said when the dashboard ends (the terminal
/// is the dashboard's meanwhile); recording goes on with the next sample.
pub struct Recording<S> {
    inner: S,
    writer: Writer,
    /// The last failure, and how many appends failed.
    pub failed: Option<(Error, u64)>,
}

impl<S: SampleSource> Recording<S> {
    pub(crate) fn new(inner: S, path: &Path) -> anyhow::Result<Self> {
        let writer = Writer::open(path, WriterOptions::default())
            .with_context(|| format!("recording to {}", shown(path)))?;
        Ok(Recording {
            inner,
            writer,
            failed: None,
        })
    }

    /// Force what was recorded to the disk.
    pub(crate) fn finish(mut self) -> Result<Option<(Error, u64)>, Error> {
        self.writer.sync()?;
        Ok(self.failed)
    }
}

impl<S: SampleSource> SampleSource for Recording<S> {
    fn next(&mut self, prev: Option<&Sample>, extras: Extras) -> Sample {
        let s = self.inner.next(prev, extras);
        if let Err(e) = self.writer.append(&s) {
            let n = self.failed.as_ref().map_or(0, |f| f.1);
            self.failed = Some((e, n + 1));
        }
        s
    }

    fn scan_every(&self, interval: Duration) -> Option<Duration> {
        self.inner.scan_every(interval)
    }

    fn work(&mut self) -> Option<bool> {
        self.inner.work()
    }
}

/// What `zswaptop record` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// A file, or a directory of rotated files.
    pub path: PathBuf,
    /// The time between samples.
    pub interval: Duration,
    /// Stop after this long (`None`: when stopped).
    pub duration: Option<Duration>,
    /// The most the recording may take, in bytes.
    pub max_size: u64,
    /// Also record the N processes using the most swap.
    pub top: Option<usize>,
    /// With `top`: their command lines too.
    pub command_lines: bool,
    /// A captured tree instead of `/`.
    pub root: Option<PathBuf>,
}

/// `zswaptop record`: sample every interval until the duration is over or SIGINT/SIGTERM
/// arrives, then force the records to the disk.
pub(crate) fn record(args: &Options) -> anyhow::Result<()> {
    let root = args.root.clone().map(Root::at).unwrap_or_else(Root::live);
    let (tx, rx) = mpsc::channel();
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ])
    .context("installing signal handlers")?;
    let handle = signals.handle();
    let waiter = std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            let _ = tx.send(sig);
        }
    });
    let opts = WriterOptions {
        max_size: Some(args.max_size),
        command_lines: args.command_lines,
        ..WriterOptions::default()
    };
    let result = record_until(
        &args.path,
        opts,
        &mut Sampler::new(root),
        // Settings on every sample: a replay judges each moment by what was set then.
        Extras {
            top_processes: args.top,
            // Not smaps_rollup: it walks each process's page tables, every sample.
            smaps: false,
            cgroups: false,
            settings: true,
        },
        args.interval,
        args.duration,
        &rx,
    );
    handle.close();
    let _ = waiter.join();
    result
}

/// The recorder's loop: a sample every `interval` (on a fixed cadence), until `duration` or a
/// message on `stop`.
pub(crate) fn record_until(
    path: &PathBuf,
    opts: WriterOptions,
    source: &mut impl SampleSource,
    extras: Extras,
    interval: Duration,
    duration: Option<Duration>,
    stop: &mpsc::Receiver<i32>,
) -> anyhow::Result<()> {
    let mut w =
        Writer::open(path, opts).with_context(|| format!("recording to {}", shown(path)))?;
    let start = Instant::now();
    let mut prev: Option<Sample> = None;
    let mut outage: Option<Outage> = None;
    let mut ticks: u32 = 0;
    loop {
        let s = source.next(prev.as_ref(), extras);
        let said = match w.append(&s) {
            Ok(()) => Outage::ended(&mut outage, s.unix_ms),
            Err(e @ Error::CapReached { .. }) => {
                w.sync()?;
                return Err(e.into());
            }
            // A full disk: tried again at each sample (recording resumes when space
            // returns), said when it starts, at most once a minute while it lasts, and when
            // it ends.
            Err(e) => Outage::failed(&mut outage, &e, s.unix_ms, Instant::now()),
        };
        if let Some(msg) = said {
            crate::console::warn(msg);
        }
        prev = Some(s);
        ticks = ticks.saturating_add(1);
        let due = start + interval.saturating_mul(ticks);
        if duration.is_some_and(|d| due > start + d) {
            break;
        }
        match stop.recv_timeout(due.saturating_duration_since(Instant::now())) {
            Ok(_) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    w.sync()?;
    Ok(())
}

/// How often appends that keep failing are said again.
const REMIND_EVERY: Duration = Duration::from_secs(60);

/// Appends failing in a row (a full disk): said when they start, at most once a minute while
/// they last with how many samples were not written, and when they end. (One line per sample
/// was 600 lines a minute at `-i 0.1`, each naming the new file it could not start.)
#[derive(Debug)]
struct Outage {
    /// The first sample not written (its wall time, ms since the epoch).
    since_ms: u64,
    /// When it was last said.
    said: Instant,
    /// Samples not written.
    missed: u64,
}

impl Outage {
    /// An append failed with `e`: what to say, if anything.
    fn failed(
        outage: &mut Option<Outage>,
        e: &Error,
        unix_ms: u64,
        now: Instant,
    ) -> Option<String> {
        let Some(o) = outage else {
            *outage = Some(Outage {
                since_ms: unix_ms,
                said: now,
                missed: 1,
            });
            return Some(format!(
                "{e} (retrying at each sample; said again at most once a minute)"
            ));
        };
        o.missed += 1;
        if now.duration_since(o.said) < REMIND_EVERY {
            return None;
        }
        o.said = now;
        let what = if no_space(e) {
            "still no space"
        } else {
            "still failing"
        };
        Some(format!(
            "{what}: {} samples not written since {} ({e})",
            o.missed,
            clock(o.since_ms)
        ))
    }

    /// An append succeeded: what to say if it ends an outage.
    fn ended(outage: &mut Option<Outage>, unix_ms: u64) -> Option<String> {
        let o = outage.take()?;
        Some(format!(
            "recording again at {}: {} {} not written since {}",
            clock(unix_ms),
            o.missed,
            if o.missed == 1 { "sample" } else { "samples" },
            clock(o.since_ms)
        ))
    }
}

/// A full disk or quota.
fn no_space(e: &Error) -> bool {
    let Error::Io { source, .. } = e else {
        return false;
    };
    [rustix::io::Errno::NOSPC, rustix::io::Errno::DQUOT]
        .iter()
        .any(|n| source.raw_os_error() == Some(n.raw_os_error()))
}

/// The UTC time of day of `unix_ms`.
fn clock(unix_ms: u64) -> String {
    super::time::timestamp(unix_ms).map_or_else(
        || format!("{unix_ms} ms after the epoch"),
        |t| t.strftime("%H:%M:%S UTC").to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(path: &str) -> Error {
        Error::io(
            std::path::Path::new(path),
            std::io::Error::from_raw_os_error(rustix::io::Errno::NOSPC.raw_os_error()),
        )
    }

    /// A minute of full disk at -i 0.1 (600 samples): said when it starts, once more a minute
    /// later with the count, and when space returns.
    #[test]
    fn a_full_disk_is_said_once_a_minute_with_a_count() {
        let t0 = Instant::now();
        let ms0 = 1_700_000_000_000u64; // 22:13:20 UTC
        let mut outage = None;
        let mut said = Vec::new();
        for i in 0..=600u64 {
            let e = full(&format!("/rec/zswaptop-{i:06}.zsr"));
            let now = t0 + Duration::from_millis(i * 100);
            said.extend(Outage::failed(&mut outage, &e, ms0 + i * 100, now));
        }
        said.extend(Outage::ended(&mut outage, ms0 + 601 * 100));
        assert_eq!(said.len(), 3, "{said:#?}");
        assert!(said[0].contains("zswaptop-000000.zsr") && said[0].contains("retrying"));
        assert!(
            said[1].starts_with("still no space: 601 samples not written since 22:13:20 UTC ("),
            "{}",
            said[1]
        );
        assert_eq!(
            said[2],
            "recording again at 22:14:20 UTC: 601 samples not written since 22:13:20 UTC"
        );
        // Nothing more to say while appends succeed.
        assert!(Outage::ended(&mut outage, ms0).is_none());
        let other = Error::io(
            std::path::Path::new("/rec"),
            std::io::ErrorKind::PermissionDenied.into(),
        );
        Outage::failed(&mut outage, &other, ms0, t0);
        let again = Outage::failed(&mut outage, &other, ms0, t0 + REMIND_EVERY).unwrap();
        assert!(again.starts_with("still failing: 2 samples"), "{again}");
    }
}
