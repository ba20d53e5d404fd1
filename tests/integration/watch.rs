//! `zswaptop --watch` as a process: a header and N rows into a pipe, into a file (flushed line by
//! line, as under `nohup` or `>> log`) and on a pseudo-terminal (through util-linux `script`);
//! SIGINT, SIGTERM and a reader that goes away (`| head -2`) end it with status 0 and nothing on
//! stderr.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_zswaptop");

fn fixture() -> String {
    common::fixture_dir("linux-6.18-loaded")
        .to_string_lossy()
        .into_owned()
}

fn watch(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["--watch", "--root", &fixture()]).args(args);
    c
}

/// Check the output of `--watch --count 5`: the two header lines, then five rows; the first
/// row's rates are "pending", the later ones are numbers.
fn assert_header_and_five_rows(text: &str) {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    assert_eq!(lines.len(), 7, "{text}");
    let root = zswaptop::root::Root::at(fixture());
    let first = zswaptop::pipeline::snapshot(&zswaptop::sources::collect(&root), None);
    let [names, units] = zswaptop::report::lines::Columns::of(&first).header();
    assert_eq!(lines[0], names);
    assert_eq!(lines[1], units);
    // The rates: zswpout, zswpin, zswpwb, pool limit hits, bypass, pswpin, pswpout.
    assert_eq!(lines[2].matches("pending").count(), 7, "{text}");
    for name in [" limhit", " bypass", " swap", " ondisk"] {
        assert!(names.contains(name), "{name} not in {names}");
    }
    let today = jiff::Zoned::now().strftime("%Y-%m-%dT").to_string();
    for row in &lines[2..] {
        assert_eq!(row.chars().count(), names.chars().count(), "{row}");
        // Stamped with the date and time and the offset: `2026-11-26T05:31:13+00:00`.
        let stamp = row.split(' ').next().unwrap_or("");
        assert!(stamp.starts_with(&today) && stamp.len() == 25, "{row}");
    }
    for row in &lines[3..] {
        assert!(!row.contains("pending"), "{row}");
    }
}

/// `--watch --top` and `--watch --cgroups` are refused with what to use instead, not ignored.
#[test]
fn tables_it_does_not_list_are_refused() {
    for args in [&["--top", "5"][..], &["--cgroups"]] {
        let out = watch(args).arg("--count").arg("1").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(args[0]) && err.contains("--once"), "{err}");
        assert!(out.stdout.is_empty());
    }
}

/// `--ascii`, and a locale that is not UTF-8, give ASCII only.
#[test]
fn ascii_rows_are_ascii() {
    for (args, lang) in [(&["--ascii"][..], "C.UTF-8"), (&[][..], "C")] {
        // The no-swap tree: a figure is missing there, shown as the missing mark.
        let out = Command::new(BIN)
            .args(["--watch", "-i", "0.1", "--count", "2", "--root"])
            .arg(common::fixture_dir("linux-6.18-no-swap"))
            .args(args)
            .env("LANG", lang)
            .env_remove("LC_ALL")
            .env_remove("LC_CTYPE")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.stdout.is_ascii(), "{text}");
        assert_eq!(text.lines().count(), 4, "{text}");
    }
}

#[test]
fn five_rows_into_a_pipe() {
    let t = Instant::now();
    let out = watch(&["-i", "1", "--count", "5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert_header_and_five_rows(&String::from_utf8(out.stdout).unwrap());
    // Four intervals between five rows, on a grid: neither faster nor drifting much.
    let took = t.elapsed();
    assert!(
        took >= Duration::from_secs(4) && took < Duration::from_secs(8),
        "{took:?}"
    );
}

#[test]
fn five_rows_on_a_terminal() {
    // `script` runs the command on a new pseudo-terminal and copies what it prints.
    let cmd = format!("{BIN} --watch -i 1 --count 5 --root {}", fixture());
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_header_and_five_rows(&String::from_utf8(out.stdout).unwrap());
}

/// Wait for `child` to end, at most `limit`.
fn wait(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let end = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if Instant::now() > end {
            child.kill().unwrap();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// `cmd` started with its output piped, once it has printed `lines` lines; the reader of the
/// rest.
fn started(cmd: &mut Command, lines: usize) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for _ in 0..lines {
        line.clear();
        out.read_line(&mut line).unwrap();
    }
    (child, out)
}

#[test]
fn sigint_and_sigterm_end_it_with_status_zero() {
    for sig in ["-INT", "-TERM"] {
        // The header and two rows: it is running.
        let (mut child, _out) = started(&mut watch(&["-i", "0.2"]), 4);
        signal(&child, sig);
        let status = wait(&mut child, Duration::from_secs(3));
        assert_eq!(status.code(), Some(0), "{sig}: {status:?}");
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(err.is_empty(), "{sig}: {err}");
    }
}

#[test]
fn a_reader_that_goes_away_ends_it_quietly() {
    // As `zswaptop --watch | head -2`: the reader takes the header and leaves.
    for json in [false, true] {
        let mut cmd = watch(&["-i", "0.1"]);
        if json {
            cmd.arg("--json");
        }
        let (mut child, out) = started(&mut cmd, 2);
        drop(out);
        let status = wait(&mut child, Duration::from_secs(3));
        assert_eq!(status.code(), Some(0), "json {json}: {status:?}");
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(err.is_empty(), "json {json}: {err}");
    }
    // And through a shell pipeline, as typed.
    let cmd = format!(
        "set -o pipefail; {BIN} --watch -i 0.1 --root {} | head -2",
        fixture()
    );
    let out = Command::new("bash").args(["-c", &cmd]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    assert!(out.stderr.is_empty(), "{out:?}");
}

#[test]
fn each_line_reaches_a_file_as_it_is_written() {
    // As under `nohup zswaptop --watch >> log`: a file, no terminal, lines there before it ends.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let file = std::fs::File::create(&log).unwrap();
    let mut child = Command::new("nohup")
        .arg(BIN)
        .args(["--watch", "-i", "0.2", "--root", &fixture()])
        .stdout(Stdio::from(file))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    let lines = loop {
        let n = std::fs::read_to_string(&log).unwrap().lines().count();
        if n >= 5 || Instant::now() > end {
            break n;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(lines >= 5, "only {lines} lines in the file while it runs");
    signal(&child, "-TERM");
    assert_eq!(wait(&mut child, Duration::from_secs(3)).code(), Some(0));
}
