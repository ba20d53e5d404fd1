//! Record and replay as a user runs them: `zswaptop record` (stopped by its duration and by
//! SIGTERM), `--once --from PATH --at TIME`, `zswaptop export` as CSV and JSON lines, and the
//! replay source (a moment reached by a jump shows what the dashboard showed when it got there
//! sample by sample).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use clap::Parser;

use zswaptop::app::replay::{Cursor, ReplaySource};
use zswaptop::app::{Action, App, Msg};
use zswaptop::cli::{Cli, Settings};
use zswaptop::model::Snapshot;
use zswaptop::model::metrics::CATALOGUE;
use zswaptop::root::Root;
use zswaptop::sources::{self, Sample};
use zswaptop::store::{Reader, Writer, WriterOptions};

/// 2026-11-22T03:00:00Z.
const T0: u64 = 1_795_316_400_000;

fn bin() -> Command {
    Command::cargo_bin("zswaptop").unwrap()
}

fn fixture(name: &str) -> String {
    common::fixture_dir(name).display().to_string()
}

/// The idle then the loaded fixture, alternating, one a second from T0.
fn samples(n: u64) -> Vec<Sample> {
    let idle = sources::collect(&Root::at(fixture("linux-6.18-idle")));
    let loaded = sources::collect(&Root::at(fixture("linux-6.18-loaded")));
    (0..n)
        .map(|i| {
            let mut s = if i % 2 == 0 {
                idle.clone()
            } else {
                loaded.clone()
            };
            s.unix_ms = T0 + i * 1000;
            s.monotonic_ns = 1_000_000_000_000 + i * 1_000_000_000;
            s
        })
        .collect()
}

fn write(path: &Path, samples: &[Sample]) {
    let mut w = Writer::open(path, WriterOptions::default()).unwrap();
    for s in samples {
        w.append(s).unwrap();
    }
    w.sync().unwrap();
}

fn json(snap: &Snapshot) -> serde_json::Value {
    let mut buf = Vec::new();
    zswaptop::report::json::write(snap, &mut buf).unwrap();
    serde_json::from_slice(&buf).unwrap()
}

fn stdout(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn record_stops_after_its_duration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    let out = bin()
        .args([
            "record",
            "-i",
            "0.1",
            "--duration",
            "0.55",
            "--top",
            "3",
            "--root",
        ])
        .arg(fixture("linux-6.18-loaded"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let r = Reader::open(&path).unwrap();
    assert!((5..=7).contains(&r.len()), "{} records", r.len());
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
}

#[test]
fn record_ends_with_status_0_on_sigterm_and_keeps_every_sample() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rotated/");
    let mut child = bin()
        .args(["record", "-i", "0.1", "--root"])
        .arg(fixture("linux-6.18-loaded"))
        .arg(&path)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while Reader::open(&path).map_or(0, |r| r.len()) < 3 {
        assert!(start.elapsed() < Duration::from_secs(10), "no records");
        std::thread::sleep(Duration::from_millis(50));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let r = Reader::open(&path).unwrap();
    assert!(
        r.len() >= 3 && r.warnings().is_empty(),
        "{:?}",
        r.warnings()
    );
}

#[test]
fn record_refuses_a_bad_size() {
    let out = bin()
        .args(["record", "--max-size", "lots", "x.zsr"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("64M"));
}

/// The JSON of a recorded moment is the live JSON of the same two samples, with `recorded`
/// saying which sample it is.
#[test]
fn once_at_a_recorded_moment_is_the_live_snapshot_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    let s = samples(6);
    write(&path, &s);
    // 3.5 s after the start: the sample at 3 s, its predecessor the one at 2 s.
    let out = stdout(
        bin()
            .args(["--json", "--from"])
            .arg(&path)
            .args(["--at", "2026-11-22T03:00:03.500Z"]),
    );
    let mut got: serde_json::Value = serde_json::from_str(&out).unwrap();
    let recorded = got.as_object_mut().unwrap().remove("recorded").unwrap();
    assert_eq!(recorded["position"], 3);
    assert_eq!(recorded["time"], "2026-11-22T03:00:03.000Z");
    let live = zswaptop::diagnostics::judged(Snapshot::derive(&s[3], Some(&s[2])));
    assert_eq!(got, json(&live));
    assert!(got["rates"].is_object(), "rates over the sample before");

    // Text says which sample, relative times work, and a time before the start is an error.
    let text = stdout(
        bin()
            .args(["--once", "--from"])
            .arg(&path)
            .args(["--at", "-2s"]),
    );
    assert!(
        text.starts_with("Recorded sample 4 of 6: 2026-11-22T03:00:03.000Z"),
        "{text}"
    );
    let before = bin()
        .args(["--once", "--from"])
        .arg(&path)
        .args(["--at", "2026-11-22T02:00:00Z"])
        .output()
        .unwrap();
    assert!(!before.status.success());
    assert!(String::from_utf8_lossy(&before.stderr).contains("nothing was recorded"));
}

#[test]
fn export_csv_has_the_catalogue_columns_and_a_row_per_sample() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    let s = samples(5);
    write(&path, &s);
    let out = stdout(
        bin()
            .args(["export", "--format", "csv", "--from"])
            .arg(&path),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(&header[..3], ["time", "unix_ms", "interval_seconds"]);
    let names: Vec<String> = CATALOGUE.iter().map(|m| m.csv_name()).collect();
    assert_eq!(
        header[3..],
        names.iter().map(String::as_str).collect::<Vec<_>>()
    );
    // Each row: the values of the live snapshot over the sample before it.
    for (i, line) in lines[1..].iter().enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len());
        let snap =
            zswaptop::diagnostics::judged(Snapshot::derive(&s[i], i.checked_sub(1).map(|p| &s[p])));
        for (m, cell) in CATALOGUE.iter().zip(&cells[3..]) {
            let want = m.value(&snap).map(|v| v.to_string()).unwrap_or_default();
            assert_eq!(*cell, want, "row {i}, {}", m.csv_name());
        }
        assert_eq!(cells[2].is_empty(), i == 0, "no interval on the first row");
    }
    // A range: only its rows, the first with its rates over the one before.
    let out = stdout(
        bin()
            .args(["export", "--format", "csv", "--from"])
            .arg(&path)
            .args(["--since", "03:00:02", "--until", "2026-11-22T03:00:03Z"])
            .env("TZ", "UTC"),
    );
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(
        rows[0].starts_with("2026-11-22T03:00:02.000Z,1795316402000,1,"),
        "{}",
        rows[0]
    );
}

#[test]
fn export_jsonl_is_one_once_json_object_per_sample() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    let s = samples(4);
    write(&path, &s);
    let out = stdout(
        bin()
            .args(["export", "--format", "jsonl", "--from"])
            .arg(&path),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4);
    for (i, line) in lines.iter().enumerate() {
        let one = stdout(
            bin()
                .args(["--json", "--from"])
                .arg(&path)
                .args(["--at", &format!("2026-11-22T03:00:0{i}Z")]),
        );
        let a: serde_json::Value = serde_json::from_str(line).unwrap();
        let b: serde_json::Value = serde_json::from_str(&one).unwrap();
        assert_eq!(a, b, "line {i}");
    }
}

fn replay_app(path: &Path, start: usize) -> (App, ReplaySource) {
    let settings = Settings::from_cli(Cli::parse_from(["zswaptop"]), true, true).unwrap();
    let reader = Reader::open(path).unwrap();
    let mut source = ReplaySource::new(reader, settings.history, start).unwrap();
    let cursor = Cursor::new(source.times(), start);
    use zswaptop::sources::sampler::SampleSource;
    let first = source.next(None, sources::Extras::default());
    let mut app = App::replaying(settings, first, cursor);
    feed(&mut app, &mut source);
    (app, source)
}

fn feed(app: &mut App, source: &mut ReplaySource) {
    while app.wants_replay() {
        let c = app.replay.as_ref().unwrap();
        let m = source.feed(c.shown, c.target).unwrap();
        app.update(m);
    }
}

/// A jump shows the rates, findings and graphs the live dashboard showed when it took the same
/// samples one by one: at the recording's start, and past the history window (the graphs
/// then hold its last 10 minutes); stepping and jumping back likewise.
#[test]
fn a_jump_shows_what_the_live_dashboard_showed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    let all = samples(800);
    write(&path, &all);
    let live_at = |p: usize| {
        let settings = Settings::from_cli(Cli::parse_from(["zswaptop"]), true, true).unwrap();
        let mut app = App::new(settings, all[0].clone());
        for s in &all[1..=p] {
            app.update(Msg::Sampled(Box::new(s.clone())));
        }
        app
    };
    let series = |a: &App| format!("{:?}", a.history);
    let (mut replay, mut src) = replay_app(&path, 0);
    let check = |replay: &App, p: usize| {
        let live = live_at(p);
        assert_eq!(replay.replay.as_ref().unwrap().shown, Some(p));
        assert_eq!(replay.shown, live.shown, "the snapshot at {p}");
        assert_eq!(series(replay), series(&live), "the graphs at {p}");
    };
    check(&replay, 0);
    for _ in 0..3 {
        replay.update(Msg::Key(Action::ReplayStep(1)));
        feed(&mut replay, &mut src);
    }
    check(&replay, 3);
    replay.update(Msg::Key(Action::ReplayJump(600)));
    replay.update(Msg::Key(Action::ReplayJump(600)));
    feed(&mut replay, &mut src);
    check(&replay, 799);
    replay.update(Msg::Key(Action::ReplayJump(-60)));
    replay.update(Msg::Key(Action::ReplayStep(-1)));
    feed(&mut replay, &mut src);
    check(&replay, 738);
    assert!(replay.shown.rates.is_some());
}

/// `--once --record`: what a live `--once --json -i` printed is what `--from --at` says of the
/// moment it recorded (same figures, same findings), for each of a series of runs appended to
/// one recording.
#[test]
fn once_recorded_then_read_back_is_the_same_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("once.zsr");
    let mut printed = Vec::new();
    for _ in 0..3 {
        let out = stdout(
            bin()
                .args(["--once", "--json", "-i", "0.2", "--top", "3", "--root"])
                .arg(fixture("linux-6.18-loaded"))
                .arg("--record")
                .arg(&path),
        );
        printed.push(serde_json::from_str::<serde_json::Value>(&out).unwrap());
    }
    let r = Reader::open(&path).unwrap();
    assert_eq!(r.len(), 6, "two samples a run");
    for (k, live) in printed.iter().enumerate() {
        // The second sample of each run.
        let ms = r.unix_ms(2 * k + 1).unwrap();
        let at = zswaptop::store::time::rfc3339_utc(ms).unwrap();
        let out = stdout(
            bin()
                .args(["--json", "--from"])
                .arg(&path)
                .args(["--at", &at]),
        );
        let mut back: serde_json::Value = serde_json::from_str(&out).unwrap();
        back.as_object_mut().unwrap().remove("recorded");
        assert_eq!(&back, live, "run {k} at {at}");
    }
}

/// `zswaptop export ... | head -1`: the reader going away ends the export quietly, status 0.
#[test]
fn export_into_a_closed_pipe_is_quiet() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    write(&path, &samples(400));
    for format in ["csv", "jsonl"] {
        let mut child = bin()
            .args(["export", "--format", format, "--from"])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(!line.is_empty());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{format}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{format}");
    }
}
