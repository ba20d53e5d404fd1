//! `--watch`: a line per interval until interrupted (or `--count` lines): vmstat-style text rows
//! ([`crate::report::lines`]) or JSON Lines (each line the `--once --json` snapshot, compact,
//! through [`crate::report::json`]).
//!
//! Each line is flushed as it is written, so it works under `nohup`, into `| tee` and `>> log`.
//! SIGINT and SIGTERM end it with status 0 between lines, and so does a reader that went away
//! (`| head -2`, or a terminal that hung up under `nohup`). The text header comes again every
//! screenful on a terminal (and when its height changes), elsewhere every [`HEADER_EVERY`] rows.
//! With `ascii`, the text is ASCII only.

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use signal_hook::consts::{SIGINT, SIGTERM, SIGWINCH};

use crate::diagnostics::Thresholds;
use crate::report::{json, lines};
use crate::root::Root;
use crate::sources::Extras;
use crate::sources::sampler::{SampleSource, Sampler};

/// The header is repeated after this many rows where the height is not known (a pipe, a file).
pub const HEADER_EVERY: usize = 20;

/// Lines of a screen the header takes.
const HEADER_LINES: u16 = 2;

/// How often a wait between samples looks for a signal.
const TICK: Duration = Duration::from_millis(50);

/// Run `--watch` on `root`, on standard output.
pub(crate) fn run(root: Root, opts: Options) -> anyhow::Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("catching signals")?;
    }
    let tty = io::stdout().is_terminal();
    let resized = Arc::new(AtomicBool::new(false));
    if tty {
        signal_hook::flag::register(SIGWINCH, Arc::clone(&resized)).context("catching signals")?;
    }
    let mut out = crate::console::Stdout::lock();
    let mut first = true;
    let written = watch(&mut Sampler::new(root), &mut out, opts, &stop, || {
        let asked = std::mem::take(&mut first) || resized.swap(false, Ordering::Relaxed);
        (tty && asked).then(terminal_rows).flatten()
    });
    match written {
        // Nobody reads any more: a pipe's reader left, or the terminal hung up.
        Err(_) if out.gone() => Ok(()),
        other => other.context("writing to standard output"),
    }
}

/// The height of the terminal on stdout, when it can be had (the kernel's window size; `None`
/// when stdout is no terminal or says 0 rows).
fn terminal_rows() -> Option<u16> {
    let ws = rustix::termios::tcgetwinsize(io::stdout()).ok()?;
    (ws.ws_row > 0).then_some(ws.ws_row)
}

/// What `--watch` was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// JSON Lines rather than text rows.
    pub json: bool,
    /// Text rows in ASCII characters only.
    pub ascii: bool,
    /// Stop after this many lines.
    pub count: Option<u64>,
    /// The time between lines.
    pub interval: Duration,
    /// What the rules judge by (the configuration's `[thresholds]`).
    pub thresholds: Thresholds,
}

/// The loop, over any sample source and writer. `stop` ends it between lines; `height` says the
/// terminal's height when it is first asked and when it changed since it was last asked.
pub(crate) fn watch(
    source: &mut impl SampleSource,
    out: &mut impl Write,
    opts: Options,
    stop: &AtomicBool,
    mut height: impl FnMut() -> Option<u16>,
) -> io::Result<()> {
    let start = Instant::now();
    let mut prev = None;
    let mut stream = crate::pipeline::Stream::default().judged_by(opts.thresholds.clone());
    let mut rows_since_header = None;
    let mut last_height = None;
    let mut columns = None;
    let mut n: u64 = 0;
    while !stop.load(Ordering::Relaxed) {
        let sample = source.next(prev.as_ref(), Extras::default());
        let snap = stream.snapshot(&sample, prev.as_ref());
        if opts.json {
            json::serialize(&snap, json::Layout::Line, out)?;
        } else {
            let h = height();
            let new_height = h.is_some() && h != last_height;
            if h.is_some() {
                last_height = h;
            }
            // A screenful of rows under the header on a terminal.
            let every = last_height.map_or(HEADER_EVERY, |h: u16| {
                usize::from(h.saturating_sub(HEADER_LINES).max(1))
            });
            let cols = columns.get_or_insert_with(|| lines::Columns::of(&snap));
            let text = |l: String| {
                if opts.ascii {
                    crate::display::ascii(&l)
                } else {
                    l
                }
            };
            if rows_since_header.is_none_or(|r| r >= every) || new_height {
                for l in cols.header() {
                    writeln!(out, "{}", text(l))?;
                }
                rows_since_header = Some(0);
            }
            writeln!(out, "{}", text(cols.row(&snap)))?;
            rows_since_header = rows_since_header.map(|r| r + 1);
        }
        out.flush()?;
        n += 1;
        if opts.count.is_some_and(|c| n >= c) {
            break;
        }
        prev = Some(sample);
        // The next sample on the grid of start + k × interval, so rows do not drift.
        let due = start
            + opts
                .interval
                .saturating_mul(u32::try_from(n).unwrap_or(u32::MAX));
        while !stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now >= due {
                break;
            }
            std::thread::sleep((due - now).min(TICK));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(json: bool, count: u64) -> Options {
        Options {
            json,
            ascii: false,
            count: Some(count),
            interval: Duration::from_millis(1),
            thresholds: Thresholds::default(),
        }
    }

    fn source() -> Sampler {
        Sampler::new(Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-loaded"
        )))
    }

    /// What `watch` writes for `count` lines, with no terminal and no stop.
    fn output(json: bool, count: u64) -> String {
        let mut out = Vec::new();
        let stop = AtomicBool::new(false);
        watch(&mut source(), &mut out, opts(json, count), &stop, || None).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_header_comes_again_every_twenty_rows_and_on_a_new_height() {
        let text = output(false, 45);
        let stop = AtomicBool::new(false);
        let first = crate::pipeline::snapshot(&source().next(None, Extras::default()), None);
        let [names, _] = lines::Columns::of(&first).header();
        assert_eq!(text.lines().filter(|l| *l == names).count(), 3);
        assert_eq!(text.lines().count(), 45 + 3 * 2);

        // On a terminal of 24 rows, every 22 rows; a height that changes after the fifth row
        // brings the header back once.
        let mut out = Vec::new();
        let mut calls = 0;
        watch(&mut source(), &mut out, opts(false, 10), &stop, || {
            calls += 1;
            Some(if calls > 5 { 40 } else { 24 })
        })
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let at: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| *l == names)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(at, vec![0, 7], "{text}");
    }

    #[test]
    fn json_lines_are_snapshots_with_rates_after_the_first() {
        let text = output(true, 3);
        let rows: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 3);
        assert!(rows[0]["rates"].is_null() && rows[0]["interval_seconds"].is_null());
        assert!(rows[1]["rates"].is_object() && rows[2]["interval_seconds"].is_f64());
    }

    #[test]
    fn a_stop_ends_it_between_lines() {
        let mut out = Vec::new();
        let stop = AtomicBool::new(true);
        watch(&mut source(), &mut out, opts(false, 5), &stop, || None).unwrap();
        assert!(out.is_empty());
    }
}
