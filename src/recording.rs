//! The front ends over the [`store`](crate::store): `zswaptop record`, the dashboard's
//! `--record`, `--once --from PATH --at TIME` and `zswaptop export`. Every recorded moment goes
//! through today's [`pipeline`](crate::pipeline), as a live one does.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::cli::{ExportArgs, ExportFormat, MIN_INTERVAL, RecordArgs};
use crate::model::Snapshot;
use crate::model::metrics::CATALOGUE;
use crate::report::{self, OutputFormat, json};
use crate::root::Root;
use crate::sources::sampler::{SampleSource, Sampler};
use crate::sources::{Extras, Sample};
use crate::store::{self, Moment, Reader, Writer, WriterOptions};

/// Open a recording and say on stderr what was skipped in it.
pub fn open(path: &Path) -> anyhow::Result<Reader> {
    let r = Reader::open(path)?;
    for w in r.warnings() {
        crate::console::warn(w);
    }
    if r.is_empty() {
        bail!("{}: no samples recorded", store::shown(path));
    }
    Ok(r)
}

/// A TIME typed by the user, read against the recording's bounds in the local time zone.
pub fn parse_time(r: &Reader, input: &str) -> anyhow::Result<Timestamp> {
    let bounds = r.bounds().context("the recording has no readable times")?;
    Ok(store::time::parse(input, bounds, &TimeZone::system())?)
}

/// How a recorded moment is named: its time (RFC 3339 UTC) and host.
pub fn describe(s: &Sample) -> String {
    let time = store::time::rfc3339_utc(s.unix_ms).unwrap_or_else(|| s.unix_ms.to_string());
    // The raw sample's host name, as recorded: made safe here, as the snapshot's strings are.
    let host = s
        .host
        .hostname
        .as_deref()
        .map_or("unknown host".into(), crate::sanitize::visible);
    format!("{time} on {host}")
}

/// `--once --from PATH --at TIME`: the report of the sample at or before TIME, headed (text)
/// or tagged (JSON, `recorded`) with which sample it is.
pub fn once_from(
    path: &Path,
    at: &str,
    format: OutputFormat,
    color: bool,
    full: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut r = open(path)?;
    let t = parse_time(&r, at)?;
    let Some(m) = r.at(t)? else {
        let first = r.bounds().map(|b| b.first.to_string()).unwrap_or_default();
        bail!("nothing was recorded at or before {t} (the recording starts at {first})");
    };
    let snap = crate::pipeline::snapshot(&m.sample, m.prev.as_ref());
    match format {
        OutputFormat::Text => {
            writeln!(
                out,
                "Recorded sample {} of {}: {}{}",
                m.position + 1,
                r.len(),
                describe(&m.sample),
                if m.prev.is_none() {
                    " (the first: no rates)"
                } else {
                    ""
                }
            )?;
            report::write(format, &snap, out, color, full)?;
        }
        OutputFormat::Json => write_json_line(&m, &snap, out)?,
        // The metrics of the recorded moment, as a scrape at that moment would have had them.
        OutputFormat::Openmetrics | OutputFormat::Prometheus => {
            report::write(format, &snap, out, color, full)?
        }
    }
    Ok(out.flush()?)
}

/// One `--once --json` object on one line, with `recorded`: which sample it is.
///
/// The object is the snapshot's JSON read back into a `serde_json::Value`, as export's lines have
/// been made since they were first written: so its keys are sorted (a `Value`'s maps are ordered
/// by key), and a float is the one serde_json reads back from its shortest form, which can be an
/// ulp off the snapshot's (`serde_json::to_value` would keep the exact float and change those
/// digits in the output).
fn write_json_line(m: &Moment, snap: &Snapshot, out: &mut impl Write) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    json::serialize(snap, json::Layout::Line, &mut buf)?;
    let mut v: serde_json::Value = serde_json::from_slice(&buf)?;
    if let Some(o) = v.as_object_mut() {
        o.insert(
            "recorded".into(),
            serde_json::json!({
                "position": m.position,
                "unix_ms": m.sample.unix_ms,
                "time": store::time::rfc3339_utc(m.sample.unix_ms),
            }),
        );
    }
    Ok(json::serialize(&v, json::Layout::Line, out)?)
}

/// `zswaptop export`: every sample of `since..=until` as CSV or JSON lines.
pub fn export(args: &ExportArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let mut r = open(&args.from)?;
    let said = r.warnings().len();
    let since = args
        .since
        .as_deref()
        .map(|t| parse_time(&r, t))
        .transpose()?;
    let until = args
        .until
        .as_deref()
        .map(|t| parse_time(&r, t))
        .transpose()?;
    if args.format == ExportFormat::Csv {
        let mut header = vec![
            "time".to_string(),
            "unix_ms".into(),
            "interval_seconds".into(),
        ];
        header.extend(CATALOGUE.iter().map(|m| m.csv_name()));
        writeln!(out, "{}", header.join(","))?;
    }
    let ms = |t: Option<Timestamp>| t.and_then(|t| u64::try_from(t.as_millisecond()).ok());
    let (lo, hi) = (ms(since).unwrap_or(0), ms(until).unwrap_or(u64::MAX));
    let in_range = |r: &Reader, p: usize| r.unix_ms(p).is_some_and(|u| (lo..=hi).contains(&u));
    // Each row's rates are over the sample recorded just before it (in recorded order), as
    // for the live dashboard; samples are decoded in order, so each costs one record.
    let mut prev: Option<Sample> = None;
    for p in 0..r.len() {
        let wanted = in_range(&r, p);
        if !wanted && !in_range(&r, p + 1) {
            prev = None;
            continue;
        }
        // A record that does not decode is in the reader's warnings (printed below); the
        // next row then has no rates.
        let Ok(sample) = r.sample(p) else {
            prev = None;
            continue;
        };
        let m = Moment {
            position: p,
            prev: prev.take(),
            sample,
        };
        if wanted {
            let snap = crate::pipeline::snapshot(&m.sample, m.prev.as_ref());
            match args.format {
                ExportFormat::Csv => write_csv_row(&m.sample, &snap, out)?,
                ExportFormat::Jsonl => write_json_line(&m, &snap, out)?,
            }
        }
        prev = Some(m.sample);
    }
    // What reading the records found (the warnings of the opening were said then).
    for w in &r.warnings()[said..] {
        crate::console::warn(w);
    }
    Ok(out.flush()?)
}

fn write_csv_row(s: &Sample, snap: &Snapshot, out: &mut impl Write) -> io::Result<()> {
    let time = store::time::rfc3339_utc(s.unix_ms).unwrap_or_default();
    let interval = snap
        .rates
        .as_ref()
        .map(|r| r.interval_seconds.to_string())
        .unwrap_or_default();
    write!(out, "{time},{},{interval}", s.unix_ms)?;
    for m in CATALOGUE {
        // A value that is not there (first sample, unreadable source) is an empty cell.
        match m.value(snap) {
            Some(v) => write!(out, ",{v}")?,
            None => write!(out, ",")?,
        }
    }
    writeln!(out)
}

/// A sample source that also appends every sample to a recording (the dashboard's
/// `--record`). An append that fails is kept to be said when the dashboard ends (the terminal
/// is the dashboard's meanwhile); recording goes on with the next sample.
pub struct Recording<S> {
    inner: S,
    writer: Writer,
    /// The last failure, and how many appends failed.
    pub failed: Option<(store::Error, u64)>,
}

impl<S: SampleSource> Recording<S> {
    pub fn new(inner: S, path: &Path) -> anyhow::Result<Self> {
        let writer = Writer::open(path, WriterOptions::default())
            .with_context(|| format!("recording to {}", store::shown(path)))?;
        Ok(Recording {
            inner,
            writer,
            failed: None,
        })
    }

    /// Force what was recorded to the disk.
    pub fn finish(mut self) -> Result<Option<(store::Error, u64)>, store::Error> {
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

/// `zswaptop record`: sample every interval until the duration is over or SIGINT/SIGTERM
/// arrives, then force the records to the disk.
pub fn record(args: &RecordArgs) -> anyhow::Result<()> {
    let secs = |s: f64, what: &str| {
        if s.is_finite() && s >= MIN_INTERVAL.as_secs_f64() && s <= 366.0 * 86_400.0 {
            Ok(Duration::from_secs_f64(s))
        } else {
            Err(anyhow::anyhow!(
                "{what} '{s}' is not a number of seconds of at least 0.1"
            ))
        }
    };
    let interval = secs(args.interval, "interval")?;
    let duration = args.duration.map(|d| secs(d, "duration")).transpose()?;
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
        interval,
        duration,
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
        Writer::open(path, opts).with_context(|| format!("recording to {}", store::shown(path)))?;
    let start = Instant::now();
    let mut prev: Option<Sample> = None;
    let mut last_error = String::new();
    let mut ticks: u32 = 0;
    loop {
        let s = source.next(prev.as_ref(), extras);
        match w.append(&s) {
            Ok(()) => last_error.clear(),
            Err(e @ store::Error::CapReached { .. }) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded host name is printed in the `--from` heading: its control characters show
    /// escaped, as every other string from the kernel or a tree does.
    #[test]
    fn a_recorded_host_name_is_made_safe() {
        let mut s = crate::sources::collect(&crate::root::Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-idle"
        )));
        s.host.hostname = Some("h\u{1b}]0;pwned\u{7}\u{9b}2J".into());
        let d = describe(&s);
        assert!(!d.chars().any(crate::sanitize::is_unsafe), "{d:?}");
        assert!(d.ends_with(r" on h\x1b]0;pwned\x07\x9b2J"), "{d:?}");
    }
}
