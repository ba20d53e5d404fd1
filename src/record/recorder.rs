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
    pub fn new(inner: S, path: &Path) -> anyhow::Result<Self> {
        let writer = Writer::open(path, WriterOptions::default())
            .with_context(|| format!("recording to {}", shown(path)))?;
        Ok(Recording {
            inner,
            writer,
            failed: None,
        })
    }

    /// Force what was recorded to the disk.
    pub fn finish(mut self) -> Result<Option<(Error, u64)>, Error> {
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
pub fn record(args: &Options) -> anyhow::Result<()> {
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
pub fn record_until(
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
    let mut last_error = String::new();
    let mut ticks: u32 = 0;
    loop {
        let s = source.next(prev.as_ref(), extras);
        match w.append(&s) {
            Ok(()) => last_error.clear(),
            Err(e @ Error::CapReached { .. }) => {
                w.sync()?;
                return Err(e.into());
            }
            // A full disk: said once, tried again at each sample (recording resumes when
            // space returns).
            Err(e) => {
                let msg = e.to_string();
                if msg != last_error {
                    crate::console::warn(format_args!("{msg} (retrying at each sample)"));
                    last_error = msg;
                }
            }
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
