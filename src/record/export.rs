//! Reading a recording out: `zswaptop export` (every sample of a stretch as CSV or JSON Lines)
//! and `--once --from PATH --at TIME` (the report of one recorded moment). Every recorded moment
//! goes through today's [`pipeline`](crate::pipeline), as a live one does.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::bail;
use jiff::Timestamp;

use super::{Moment, Reader, describe, open, parse_time, time};
use crate::model::Snapshot;
use crate::report::{self, OutputFormat, json};
use crate::sources::Sample;

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
    // A moment outside the recording is an error either side: after its end, the last sample
    // would be shown as if it were of that moment.
    if let Some(b) = r.bounds()
        && (t < b.first || t > b.last)
    {
        let side = if t < b.first { "before" } else { "after" };
        bail!(
            "{t} is {side} the recording, which runs from {} to {}",
            b.first,
            b.last
        );
    }
    let Some(m) = r.at(t)? else {
        bail!("nothing was recorded at or before {t}");
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
                "time": time::rfc3339_utc(m.sample.unix_ms),
            }),
        );
    }
    Ok(json::serialize(&v, json::Layout::Line, out)?)
}

/// What `zswaptop export` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The recording file or directory.
    pub from: PathBuf,
    /// From this moment on (as `--at`).
    pub since: Option<String>,
    /// Up to this moment.
    pub until: Option<String>,
    pub format: ExportFormat,
}

/// `zswaptop export --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// A header of metric names (the catalogue's CSV names), one row per sample.
    Csv,
    /// One --once --json object per line.
    Jsonl,
}

/// `zswaptop export`: every sample of `since..=until` as CSV or JSON lines.
pub fn export(args: &Options, out: &mut impl Write) -> anyhow::Result<()> {
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
        header.extend(report::csv::columns());
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
    let time = time::rfc3339_utc(s.unix_ms).unwrap_or_default();
    let interval = snap
        .rates
        .as_ref()
        .map(|r| r.interval_seconds.to_string())
        .unwrap_or_default();
    write!(out, "{time},{},{interval}", s.unix_ms)?;
    for m in report::csv::figures() {
        // A value that is not there (first sample, unreadable source) is an empty cell.
        match m.value(snap) {
            Some(v) => write!(out, ",{v}")?,
            None => write!(out, ",")?,
        }
    }
    writeln!(out)
}
