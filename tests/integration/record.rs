//! Record and replay as a user runs them: `zswaptop record` (stopped by its duration and by
//! SIGTERM), `--once --from PATH --at TIME`, `zswaptop export` as CSV and JSON lines, and the
//! replay source (a moment reached by a jump shows what the dashboard showed when it got there
//! sample by sample); and against hostile recordings, file names and disks: nothing raw reaches
//! the terminal, nothing takes the memory, a full disk with stderr gone is survived, a second
//! recorder is refused.

use crate::common::crafted;
use crate::common::{self, skip};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;

use zswaptop::app::replay::Cursor;
use zswaptop::app::{Action, App, Msg};
use zswaptop::model::Snapshot;
use zswaptop::record::ReplaySource;
use zswaptop::record::codec;
use zswaptop::record::{Reader, Writer, WriterOptions};
use zswaptop::report::csv;
use zswaptop::root::Root;
use zswaptop::sources::{self, Sample};

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
    let mut child = recorder(&path).stderr(Stdio::piped()).spawn().unwrap();
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

/// `zswaptop record -i 0.1` of a fixture tree into `path`.
fn recorder(path: &Path) -> Command {
    let mut c = bin();
    c.args(["record", "-i", "0.1", "--root"])
        .arg(fixture("linux-6.18-loaded"))
        .arg(path);
    c
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
    let live = zswaptop::pipeline::snapshot(&s[3], Some(&s[2]));
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
    let span = "the recording, which runs from 2026-11-22T03:00:00Z to 2026-11-22T03:00:05Z";
    let said = String::from_utf8_lossy(&before.stderr);
    assert!(said.contains(&format!("is before {span}")), "{said}");
    // After its end is an error too (not the last sample as if it were of that moment), and
    // the end itself is its last sample.
    let after = bin()
        .args(["--once", "--from"])
        .arg(&path)
        .args(["--at", "2026-11-22T03:00:05.001Z"])
        .output()
        .unwrap();
    assert_eq!(after.status.code(), Some(1));
    let said = String::from_utf8_lossy(&after.stderr);
    assert!(said.contains(&format!("is after {span}")), "{said}");
    let end = stdout(
        bin()
            .args(["--once", "--from"])
            .arg(&path)
            .args(["--at", "2026-11-22T03:00:05Z"]),
    );
    assert!(end.starts_with("Recorded sample 6 of 6"), "{end}");
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
    let names: Vec<String> = csv::columns().collect();
    assert_eq!(
        header[3..],
        names.iter().map(String::as_str).collect::<Vec<_>>()
    );
    // Each row: the values of the live snapshot over the sample before it.
    for (i, line) in lines[1..].iter().enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len());
        let snap = zswaptop::pipeline::snapshot(&s[i], i.checked_sub(1).map(|p| &s[p]));
        for (m, cell) in csv::figures().zip(&cells[3..]) {
            let want = m.value(&snap).map(|v| v.to_string()).unwrap_or_default();
            assert_eq!(*cell, want, "row {i}, {}", csv::column(m));
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

/// The bytes export writes for assets/demo.zsr and the crafted hostile-strings recording: as
/// CSV, pinned by length and CRC-32; as JSON lines, each the `--once --json` object of its
/// snapshot serialized whole on one line, with `recorded` added last, as export made them
/// before it made one row for each pair of samples and copied the members a row shares with
/// the row before (the JSON is not pinned: it follows the snapshot's members). A change to
/// what a row holds changes the CSV's pins on purpose: the forecast, following the kernel, says
/// `full` at two rows of the demo where pool_limit_hit rose, and rounds some times in their
/// last digit otherwise.
#[test]
fn export_writes_the_bytes_it_always_wrote() {
    use zswaptop::report::json::{self, Layout};
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.zsr");
    let hostile = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/recording-hostile-strings.zsr"
    );
    for (path, len, crc) in [(demo, 57_243, 0xa811_f7c8), (hostile, 1_693, 0x57ba_70e0)] {
        let out = stdout(bin().args(["export", "--format", "csv", "--from", path]));
        assert_eq!(
            (out.len(), crc32fast::hash(out.as_bytes())),
            (len, crc),
            "{path} as CSV"
        );
        let out = stdout(bin().args(["export", "--format", "jsonl", "--from", path]));
        let mut whole = Vec::new();
        let mut r = Reader::open(path).unwrap();
        let mut prev: Option<Sample> = None;
        for p in 0..r.len() {
            let Ok(s) = r.sample(p) else {
                prev = None;
                continue;
            };
            let snap = zswaptop::pipeline::snapshot(&s, prev.as_ref());
            let mut line = Vec::new();
            json::serialize(&snap, Layout::Line, &mut line).unwrap();
            assert_eq!(line.pop(), Some(b'\n'));
            assert_eq!(line.pop(), Some(b'}'));
            whole.extend_from_slice(&line);
            let recorded = serde_json::json!({
                "position": p,
                "unix_ms": s.unix_ms,
                "time": zswaptop::record::time::rfc3339_utc(s.unix_ms),
            });
            // serde_json's maps sort their keys: the members in the order export writes them.
            let recorded = format!(
                r#","recorded":{{"position":{},"unix_ms":{},"time":{}}}}}"#,
                recorded["position"], recorded["unix_ms"], recorded["time"]
            );
            whole.extend_from_slice(recorded.as_bytes());
            whole.push(b'\n');
            prev = Some(s);
        }
        assert!(out.lines().count() > 2, "{path}");
        assert!(out.as_bytes() == whole, "{path} as JSON lines");
    }
}

fn replay_app(path: &Path, start: usize) -> (App, ReplaySource) {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
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
        app.update(m.into());
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
        let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
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
        let at = zswaptop::record::time::rfc3339_utc(ms).unwrap();
        let out = stdout(
            bin()
                .args(["--json", "--from"])
                .arg(&path)
                .args(["--at", &at]),
        );
        let mut back: serde_json::Value = serde_json::from_str(&out).unwrap();
        back.as_object_mut().unwrap().remove("recorded");
        // The recording says it kept no command lines (the live report had them to show).
        let sources = back["sources"].as_array_mut().unwrap();
        let cmdline = sources
            .iter()
            .position(|s| s["source"] == "/proc/PID/cmdline");
        sources.remove(cmdline.unwrap());
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

// ---- hostile recordings, names and disks ----

/// stdout and stderr of a run, whatever its status.
fn run(c: &mut Command) -> (Option<i32>, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every way a recording is read from the command line, non-interactively: `export` (both
/// formats), `--once --from` (text, full, JSON) and `replay` (whose stdout is not a terminal
/// here: it says what it skipped and what is wrong before it would take the screen).
fn readers_of(path: &Path) -> Vec<(String, Command)> {
    let mut all = Vec::new();
    for format in ["csv", "jsonl"] {
        let mut c = bin();
        c.args(["export", "--format", format, "--from"]).arg(path);
        all.push((format!("export {format}"), c));
    }
    for flags in [&["--once"][..], &["--once", "--full"], &["--json"]] {
        let mut c = bin();
        c.args(flags).arg("--from").arg(path).args(["--at", "-0s"]);
        all.push((format!("{flags:?} --from"), c));
    }
    let mut c = bin();
    c.arg("replay").arg(path);
    all.push(("replay".into(), c));
    all
}

/// A crafted record, a hostile file name in a shared directory, a hostile recording path and
/// hostile strings inside intact samples: every reader's stdout and stderr show them escaped,
/// never raw (a raw OSC retitled root's terminal through export, --once --from and replay).
#[test]
fn hostile_recordings_and_names_never_reach_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    // A good recording, a junk file and a "newer" file with hostile names beside it.
    write(&shared.join("good.zsr"), &samples(3));
    std::fs::write(shared.join(format!("{}.zsr", crafted::HOSTILE)), b"junk").unwrap();
    let mut newer = zswaptop::record::frame::header(zswaptop::record::frame::VERSION + 1).to_vec();
    newer.extend_from_slice(b"later");
    std::fs::write(shared.join(format!("n{}.zsr", crafted::HOSTILE)), newer).unwrap();
    let named = dir.path().join(format!("{}.zsr", crafted::HOSTILE));
    std::fs::write(&named, b"not a recording").unwrap();
    // Each case, and whether the replay says the hostile text too (an intact recording's
    // strings are on the dashboard, which needs a terminal).
    let cases = [
        (crafted::path("escape-variant.zsr"), true),
        (crafted::path("hostile-strings.zsr"), false),
        (shared.clone(), true),
        (named, true),
        (
            dir.path().join(format!("missing{}", crafted::HOSTILE)),
            true,
        ),
    ];
    // Escaped by zswaptop (`\x1b`), its backslash escaped again in JSON.
    let escaped = "x1b]0;pwned";
    for (path, in_replay) in cases {
        for (how, mut c) in readers_of(&path) {
            let what = format!("{how} {}", path.display().to_string().escape_debug());
            let (status, out, err) = run(&mut c);
            assert!(status.is_some(), "{what}: killed by a signal");
            crafted::assert_no_raw_control_or_bidi(&format!("{what}: stdout"), &out);
            crafted::assert_no_raw_control_or_bidi(&format!("{what}: stderr"), &err);
            // CSV holds numbers only.
            if how != "export csv" && (how != "replay" || in_replay) {
                // The hostile text is there, escaped: the check above saw it.
                assert!(
                    out.contains(escaped) || err.contains(escaped),
                    "{what}: nothing escaped was said\nstdout: {out}\nstderr: {err}"
                );
            }
        }
    }
}

/// Crafted recordings that asked for 33 MB a slot, a tree 100,000 deep, megabytes from a few
/// bytes or a quadratic search are read under a 256 MiB address-space limit: every run ends
/// with a status (no abort, no stack overflow) and the records that cannot be decoded are
/// said to be skipped.
#[test]
fn crafted_recordings_stay_within_their_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths: Vec<std::path::PathBuf> = crafted::CASES
        .iter()
        .map(|(n, _)| crafted::path(n))
        .collect();
    let many = dir.path().join("many-slots.zsr");
    std::fs::write(&many, crafted::many_slots()).unwrap();
    let big = dir.path().join("resync-4m.zsr");
    std::fs::write(&big, crafted::resync_bomb(4 << 20)).unwrap();
    paths.extend([many, big]);
    let exe = assert_cmd::cargo::cargo_bin("zswaptop");
    for path in paths {
        for args in [
            vec!["export", "--format", "jsonl", "--from"],
            vec!["--once", "--at", "-0s", "--from"],
        ] {
            let out = Command::new("sh")
                .arg("-c")
                .arg("ulimit -v 262144 && exec \"$@\"")
                .arg("sh")
                .arg(&exe)
                .args(&args)
                .arg(&path)
                .output()
                .unwrap();
            let what = format!("{args:?} {}", path.display());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{what}: {:?}\n{err}",
                out.status
            );
            assert!(!err.contains("memory allocation"), "{what}: {err}");
            assert!(!err.contains("panicked"), "{what}: {err}");
        }
    }
}

/// Keyframes of as many slots under unknown names as the format took (131,072: 73 MB of RSS
/// from 1.5 MB of file) and of as many slots and path bytes as it takes now: each reader stays
/// under 32 MiB of peak RSS. Needs /usr/bin/time (apt-get install time).
#[test]
fn keyframes_of_many_slots_stay_under_32_mib() {
    if !Path::new("/usr/bin/time").exists() {
        skip!("no /usr/bin/time here (apt-get install time)");
    }
    let dir = tempfile::tempdir().unwrap();
    let name = codec::PATH_BYTES_MAX / codec::SLOTS_MAX - 3;
    let cases = [
        ("unknown-131072.zsr", crafted::unknown_slots(1 << 17, 8)),
        (
            "at-the-bounds.zsr",
            crafted::unknown_slots(codec::SLOTS_MAX, name),
        ),
    ];
    for (file, bytes) in cases {
        let path = dir.path().join(file);
        std::fs::write(&path, bytes).unwrap();
        for args in [
            vec!["export", "--format", "jsonl", "--from"],
            vec!["export", "--format", "csv", "--from"],
            vec!["--once", "--at", "-0s", "--from"],
        ] {
            let out = Command::new("/usr/bin/time")
                .args(["-f", "peak-rss-kb %M"])
                .arg(assert_cmd::cargo::cargo_bin("zswaptop"))
                .args(&args)
                .arg(&path)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            let kb: u64 = err
                .lines()
                .find_map(|l| l.strip_prefix("peak-rss-kb "))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("{file} {args:?}: {err}"));
            assert!(
                kb <= 32 << 10,
                "{file} {args:?}: {kb} KiB of peak RSS\n{err}"
            );
            assert!(!err.contains("panicked"), "{file} {args:?}: {err}");
        }
    }
}

/// Kills and reaps a child when a test ends early, so a mount can be undone.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn records(path: &Path) -> usize {
    Reader::open(path).map_or(0, |r| r.len())
}

fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(secs), "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn sigterm(child: &std::process::Child) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
}

/// A recorder whose stderr is gone (a pipe nobody reads any more: each warning's write fails)
/// fills its disk: it keeps sampling, records again once space returns, and ends with status
/// 0 on SIGTERM with every record it kept intact. Root only: it mounts a small tmpfs under the
/// kernel lock.
#[test]
fn a_recorder_survives_a_full_disk_with_its_stderr_gone() {
    let disk = match crafted::disk::SmallDisk::mount("256k") {
        Ok(d) => d,
        Err(why) => skip!("{why}"),
    };
    for target in ["one.zsr", "rotated/"] {
        let path = disk.path().join(target);
        let mut child = bin()
            .args(["record", "-i", "0.1", "--top", "5", "--root"])
            .arg(fixture("depth-many-processes"))
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Nobody reads stderr from here on: every message fails with EPIPE.
        drop(child.stderr.take());
        let child = Reaped(child);
        wait_for("first records", 20, || records(&path) >= 3);
        disk.fill("filler");
        // The disk is full once the records stop for ten samples (the last page of the file
        // may take a few more): each of those samples failed, and said so to a dead stderr.
        let mut full = records(&path);
        let mut still = Instant::now();
        wait_for("the disk to fill", 30, || {
            let n = records(&path);
            if n != full {
                (full, still) = (n, Instant::now());
            }
            still.elapsed() >= Duration::from_secs(1)
        });
        let mut reaped = child;
        assert!(
            reaped.0.try_wait().unwrap().is_none(),
            "{target}: the recorder died"
        );
        disk.free("filler");
        wait_for("records after space returned", 20, || {
            records(&path) >= full + 3
        });
        sigterm(&reaped.0);
        let status = reaped.0.wait().unwrap();
        assert!(status.success(), "{target}: {status:?}");
        let r = Reader::open(&path).unwrap();
        assert!(r.warnings().is_empty(), "{target}: {:?}", r.warnings());
    }
}

/// A recorder started on a full disk says so once, not at each sample (it said it 600 times a
/// minute at -i 0.1, each line naming a new file), says when space returns, and every sample
/// from then on is kept, one every interval. Root only: it mounts a small tmpfs.
#[test]
fn a_full_disk_at_start_is_said_once_and_its_end_too() {
    let disk = match crafted::disk::SmallDisk::mount("256k") {
        Ok(d) => d,
        Err(why) => skip!("{why}"),
    };
    disk.fill("filler");
    let path = disk.path().join("rotated/");
    std::fs::create_dir(&path).unwrap();
    let mut child = recorder(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let said = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let mut child = Reaped(child);
    // Thirty samples that could not be written.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(records(&path), 0);
    disk.free("filler");
    let back = Instant::now();
    wait_for("records after space returned", 20, || records(&path) >= 10);
    sigterm(&child.0);
    let status = child.0.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let err = said.join().unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("No space left on device"), "{err}");
    assert!(
        lines[0].contains("said again at most once a minute"),
        "{err}"
    );
    assert!(lines[1].contains("recording again at "), "{err}");
    assert!(lines[1].contains("samples not written since "), "{err}");
    // Every sample since space returned is in the recording, one each 0.1 s.
    let mut r = Reader::open(&path).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let times: Vec<u64> = (0..r.len())
        .map(|i| r.sample(i).unwrap().monotonic_ns)
        .collect();
    let span = back.elapsed().as_secs_f64();
    assert!(
        times.len() as f64 >= span * 10.0 - 5.0,
        "{} records in {span:.1} s",
        times.len()
    );
    for w in times.windows(2) {
        assert!(w[1] - w[0] < 200_000_000, "a sample missing: {times:?}");
    }
}

/// Two recorders on one directory deleted each other's files: the second is now refused,
/// naming the first, and the first goes on.
#[test]
fn a_second_recorder_on_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec/");
    let first = Reaped(recorder(&path).stderr(Stdio::piped()).spawn().unwrap());
    wait_for("first records", 20, || records(&path) >= 2);
    let (status, _, err) = run(&mut recorder(&path));
    assert_eq!(status, Some(1), "{err}");
    assert!(err.contains("another recorder is writing to it"), "{err}");
    assert!(err.contains(&format!("pid {}", first.0.id())), "{err}");
    let before = records(&path);
    wait_for("the first goes on", 20, || records(&path) > before);
    let mut first = first;
    sigterm(&first.0);
    assert!(first.0.wait().unwrap().success());
}

#[test]
fn record_refuses_a_cap_under_two_files() {
    for size in ["0", "10K", "131071"] {
        let (status, _, err) = run(bin().args(["record", "--max-size", size, "x.zsr"]));
        assert_eq!(status, Some(2), "{size}: {err}");
        assert!(
            err.contains("the least a recording needs: 128KiB"),
            "{size}: {err}"
        );
    }
    assert!(!Path::new("x.zsr").exists());
}

/// A copy of a fixture tree whose processes have command lines (one with a token in it).
fn tree_with_command_lines(dir: &Path) -> std::path::PathBuf {
    let tree = dir.join("tree");
    common::copy_dir(&common::fixture_dir("depth-many-processes"), &tree);
    for e in std::fs::read_dir(tree.join("proc")).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().parse::<u32>().is_ok() {
            std::fs::write(
                e.path().join("cmdline"),
                b"/usr/bin/worker\0--token\0s3cret\0",
            )
            .unwrap();
        }
    }
    tree
}

/// `record --top N` keeps no command line unless asked: the file does not hold them, and
/// replaying it says they were not recorded (JSON: `command` null and /proc/PID/cmdline "not
/// in this recording" among the sources; the full text lists it with what is not shown).
#[test]
fn command_lines_are_recorded_only_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let tree = tree_with_command_lines(dir.path());
    for keep in [false, true] {
        let path = dir.path().join(format!("r-{keep}.zsr"));
        let mut c = bin();
        c.args([
            "record",
            "-i",
            "0.1",
            "--duration",
            "0.25",
            "--top",
            "3",
            "--root",
        ])
        .arg(&tree)
        .arg(&path);
        if keep {
            c.arg("--command-lines");
        }
        let (status, _, err) = run(&mut c);
        assert_eq!(status, Some(0), "{err}");
        let bytes = std::fs::read(&path).unwrap();
        let holds = bytes.windows(6).any(|w| w == b"s3cret");
        // The payloads are compressed: read the samples back to be sure.
        let r = Reader::open(&path).unwrap();
        let mut r = r;
        let s = r.sample(0).unwrap();
        let top = &s.processes.as_ref().unwrap().top;
        assert!(!top.is_empty());
        assert_eq!(
            top.iter()
                .all(|p| p.command.as_deref() == Some("/usr/bin/worker --token s3cret")),
            keep
        );
        assert!(keep || !holds);
        let out = stdout(
            bin()
                .args(["--json", "--from"])
                .arg(&path)
                .args(["--at", "-0s"]),
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let cmd = &v["processes"]["top"][0]["command"];
        let cmdline_source = v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["source"] == "/proc/PID/cmdline")
            .cloned();
        let text = stdout(
            bin()
                .args(["--once", "--full", "--from"])
                .arg(&path)
                .args(["--at", "-0s"]),
        );
        if keep {
            assert_eq!(cmd, "/usr/bin/worker --token s3cret");
            assert!(cmdline_source.is_none());
            assert!(text.contains("--token s3cret"), "{text}");
        } else {
            assert!(cmd.is_null());
            let src = cmdline_source.unwrap();
            assert!(
                src["reason"]
                    .as_str()
                    .unwrap()
                    .contains("not in this recording"),
                "{src}"
            );
            assert!(!text.contains("s3cret"));
            assert!(
                text.lines()
                    .any(|l| l.contains("/proc/PID/cmdline") && l.contains("not in this recording")),
                "{text}"
            );
        }
    }
}

/// The manual page and `record --help` say what a recording holds and who may read it.
#[test]
fn the_manual_says_what_a_recording_holds() {
    let man = stdout(bin().arg("man"));
    let help = stdout(bin().args(["record", "--help"]));
    for (what, text, flag) in [
        ("man", &man, r"\-\-command\-lines"),
        ("help", &help, "--command-lines"),
    ] {
        assert!(text.contains("What a recording holds"), "{what}: {text}");
        assert!(text.contains(flag), "{what}");
        assert!(text.contains("(0600)"), "{what}");
    }
}

/// A recording made without command lines shows "not recorded" in the dashboard's command
/// column (replayed), not an empty cell or the mark of a value that could not be read.
#[test]
fn a_replay_says_command_lines_were_not_recorded() {
    use ratatui::{Terminal, backend::TestBackend};
    use zswaptop::app::View;
    let dir = tempfile::tempdir().unwrap();
    let samples: Vec<Sample> = (0..3).map(crafted::hostile_sample).collect();
    for (keep, name) in [(false, "plain.zsr"), (true, "kept.zsr")] {
        let path = dir.path().join(name);
        let mut w = Writer::open(
            &path,
            WriterOptions {
                command_lines: keep,
                ..WriterOptions::default()
            },
        )
        .unwrap();
        for s in &samples {
            w.append(s).unwrap();
        }
        drop(w);
        let (mut app, _source) = replay_app(&path, 2);
        app.update(Msg::Resize(220, 40));
        app.update(Msg::Key(Action::Show(View::Processes)));
        app.update(zswaptop::ui::lay_out(&app));
        let mut term = Terminal::new(TestBackend::new(220, 40)).unwrap();
        term.draw(|f| zswaptop::ui::draw(f, &app)).unwrap();
        let shown: String = term
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        assert_eq!(shown.contains("not recorded"), !keep, "{shown}");
        assert_eq!(shown.contains("/bin/p0 --token"), keep, "{shown}");
    }
}
