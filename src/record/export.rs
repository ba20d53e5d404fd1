//! Reading a recording out: `zswaptop export` (every sample of a stretch as CSV or JSON Lines)
//! and `--once --from PATH --at TIME` (the report of one recorded moment). Every recorded moment
//! goes through today's [`pipeline`](crate::pipeline), as a live one does.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::bail;
use jiff::Timestamp;

use super::{Moment, Reader, describe, open, parse_time, time};
use crate::diagnostics::Thresholds;
use crate::model::Snapshot;
use crate::report::{self, OutputFormat, json};
use crate::sources::Sample;

/// `--once --from PATH --at TIME`: the report of the sample at or before TIME, headed (text)
/// or tagged (JSON, `recorded`) with which sample it is.
pub(crate) fn once_from(
    path: &Path,
    at: &str,
    format: OutputFormat,
    color: bool,
    full: bool,
    thresholds: &Thresholds,
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
    let snap = crate::pipeline::snapshot_by(&m.sample, m.prev.as_ref(), thresholds);
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
fn write_json_line(m: &Moment, snap: &Snapshot, out: &mut impl Write) -> anyhow::Result<()> {
    let mut members = json::Members::default();
    let body = members.body(snap, 0, None)?;
    write_line(body, m.position, m.sample.unix_ms, &mut Vec::new(), out)
}

/// A line of JSON Lines: a snapshot's `body` ([`json::Members`]: the object less its closing
/// brace) with `recorded` last, which sample it is, built in `line` and written in one write.
fn write_line(
    body: &[u8],
    position: usize,
    unix_ms: u64,
    line: &mut Vec<u8>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    #[derive(serde::Serialize)]
    struct Recorded {
        position: usize,
        unix_ms: u64,
        time: Option<String>,
    }
    let recorded = Recorded {
        position,
        unix_ms,
        time: time::rfc3339_utc(unix_ms),
    };
    line.clear();
    line.extend_from_slice(body);
    line.extend_from_slice(b",\"recorded\":");
    json::serialize(&recorded, json::Layout::Line, line)?;
    line.pop();
    line.extend_from_slice(b"}\n");
    Ok(out.write_all(line)?)
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
    write_rows(&mut r, args, out)?;
    // What reading the records found (the warnings of the opening were said then).
    for w in &r.warnings()[said..] {
        crate::console::warn(w);
    }
    Ok(out.flush()?)
}

/// What [`write_rows`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exported {
    /// Rows written (after the CSV header).
    pub rows: usize,
    /// Rows made through the pipeline; each of the others was the row before it again, over
    /// the same two samples.
    pub made: usize,
}

/// The rows `args` asks for from `r` (CSV with its header; `args.from` is not looked at).
pub fn write_rows(
    r: &mut Reader,
    args: &Options,
    out: &mut impl Write,
) -> anyhow::Result<Exported> {
    let since = args
        .since
        .as_deref()
        .map(|t| parse_time(r, t))
        .transpose()?;
    let until = args
        .until
        .as_deref()
        .map(|t| parse_time(r, t))
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
    // for the live dashboard; samples are decoded in order, so each costs one record. Each
    // sample goes with the reader's count of rebuilds after it was read: equal counts, the
    // same build, the same sample bit for bit.
    let mut prev: Option<(Sample, u64)> = None;
    // The last row made, with the builds it was made of: a row over the same two builds is
    // that row again (the pipeline is a function of the two samples alone), written without
    // deriving, judging and formatting it again. A run of records that change nothing (the
    // most records a MiB can hold) costs a copy a row.
    let mut last: Option<((Option<u64>, u64), Row)> = None;
    let mut line = Vec::new();
    let mut done = Exported { rows: 0, made: 0 };
    // The snapshot of the last row made, with its sample's build: the forecasts over the next
    // row's interval take the stores' sizes from it rather than deriving that sample again,
    // and a JSON line copies the members it shares with it (named by `done.made`).
    let mut made: Option<(u64, Snapshot)> = None;
    let mut members = json::Members::default();
    for p in 0..r.len() {
        let wanted = in_range(r, p);
        if !wanted && !in_range(r, p + 1) {
            prev = None;
            continue;
        }
        // A record that does not decode is in the reader's warnings (printed below); the
        // next row then has no rates.
        let Ok(sample) = r.sample(p) else {
            prev = None;
            continue;
        };
        let build = r.rebuilds();
        if wanted {
            let made_of = (prev.as_ref().map(|(_, b)| *b), build);
            let row = match last.take() {
                Some((k, row)) if k == made_of => row,
                _ => {
                    done.made += 1;
                    let derived;
                    let over = match (prev.as_ref(), made.as_ref()) {
                        (Some((p, b)), Some((m, snap))) if b == m => Some((p, snap)),
                        (Some((p, _)), _) => {
                            derived = Snapshot::derive(p, None);
                            Some((p, &derived))
                        }
                        (None, _) => None,
                    };
                    let snap =
                        crate::pipeline::snapshot_over(&sample, over, &Thresholds::default());
                    let id = done.made as u64;
                    let row = match args.format {
                        ExportFormat::Csv => Row::Csv(csv_row(&sample, &snap)?),
                        ExportFormat::Jsonl => {
                            let before = made.as_ref().map(|(_, s)| (s, id - 1));
                            members.body(&snap, id, before)?;
                            Row::Jsonl
                        }
                    };
                    made = Some((build, snap));
                    row
                }
            };
            match &row {
                Row::Csv(bytes) => out.write_all(bytes)?,
                Row::Jsonl => write_line(members.last(), p, sample.unix_ms, &mut line, out)?,
            }
            last = Some((made_of, row));
            done.rows += 1;
        }
        prev = Some((sample, build));
    }
    Ok(done)
}

/// A row of export, made once for each pair of samples.
enum Row {
    Csv(Vec<u8>),
    /// The body `members` made last: a row written again is always the last one made.
    Jsonl,
}

fn csv_row(s: &Sample, snap: &Snapshot) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(1024);
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
    writeln!(out)?;
    Ok(out)
}
