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
fn write_json_line(m: &Moment, snap: &Snapshot, out: &mut impl Write) -> anyhow::Result<()> {
    let mut line = Vec::new();
    JsonLine::of(snap)?.write(m.position, m.sample.unix_ms, &mut line, out)
}

/// A snapshot's JSON line around its `recorded` member: the part before and the part after, so
/// the rows of one snapshot at different positions are written without serializing it again.
///
/// The object is the snapshot's JSON read back into a `serde_json::Value`, as export's lines have
/// been made since they were first written: so its keys are sorted (a `Value`'s maps are ordered
/// by key), and a float is the one serde_json reads back from its shortest form, which can be an
/// ulp off the snapshot's (`serde_json::to_value` would keep the exact float and change those
/// digits in the output). `recorded` sits in key order among the snapshot's members.
struct JsonLine {
    /// `{` and the members whose keys sort before `recorded`, then `,` if there are any.
    head: Vec<u8>,
    /// `,` and the members whose keys sort after `recorded`, if there are any, then `}`.
    tail: Vec<u8>,
}

impl JsonLine {
    const KEY: &str = "recorded";

    fn of(snap: &Snapshot) -> anyhow::Result<JsonLine> {
        let mut buf = Vec::new();
        json::serialize(snap, json::Layout::Line, &mut buf)?;
        let serde_json::Value::Object(members) = serde_json::from_slice(&buf)? else {
            anyhow::bail!("a snapshot's JSON is not an object");
        };
        let (mut before, mut after) = (serde_json::Map::new(), serde_json::Map::new());
        for (k, v) in members {
            match k.as_str().cmp(Self::KEY) {
                std::cmp::Ordering::Less => before.insert(k, v),
                std::cmp::Ordering::Greater => after.insert(k, v),
                std::cmp::Ordering::Equal => None,
            };
        }
        let compact = |map: serde_json::Map<String, serde_json::Value>| -> io::Result<Vec<u8>> {
            let mut b = Vec::new();
            json::serialize(&map, json::Layout::Line, &mut b)?;
            b.pop(); // the newline
            Ok(b)
        };
        // `{"a":1,"b":2}` less its `}`, or `{` alone.
        let mut head = compact(before)?;
        head.pop();
        if head.len() > 1 {
            head.push(b',');
        }
        // `{"s":3}` less its `{`, or `}` alone.
        let mut tail = compact(after)?;
        if tail.len() > 2 {
            tail[0] = b',';
        } else {
            tail.remove(0);
        }
        Ok(JsonLine { head, tail })
    }

    /// The line of the sample at `position`, built in `line` and written in one write.
    fn write(
        &self,
        position: usize,
        unix_ms: u64,
        line: &mut Vec<u8>,
        out: &mut impl Write,
    ) -> anyhow::Result<()> {
        let recorded = serde_json::json!({
            "position": position,
            "unix_ms": unix_ms,
            "time": time::rfc3339_utc(unix_ms),
        });
        line.clear();
        line.extend_from_slice(&self.head);
        line.extend_from_slice(b"\"recorded\":");
        json::serialize(&recorded, json::Layout::Line, line)?;
        line.pop();
        line.extend_from_slice(&self.tail);
        line.push(b'\n');
        Ok(out.write_all(line)?)
    }
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
    // row's interval take the stores' sizes from it rather than deriving that sample again.
    let mut made: Option<(u64, Snapshot)> = None;
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
                    let snap = crate::pipeline::snapshot_over(&sample, over);
                    let row = match args.format {
                        ExportFormat::Csv => Row::Csv(csv_row(&sample, &snap)?),
                        ExportFormat::Jsonl => Row::Jsonl(JsonLine::of(&snap)?),
                    };
                    made = Some((build, snap));
                    row
                }
            };
            match &row {
                Row::Csv(bytes) => out.write_all(bytes)?,
                Row::Jsonl(j) => j.write(p, sample.unix_ms, &mut line, out)?,
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
    Jsonl(JsonLine),
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
