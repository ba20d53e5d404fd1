//! One dispatcher for the modes and the commands: the same exit statuses and the same error
//! messages whichever way in (a bad argument is 2 whether a mode's or a command's, an error
//! while running is 1 and says each cause once).

use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::cargo_bin("zswaptop")
        .unwrap()
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    (
        status.code(),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// What the commands are given is checked as the flags are: status 2, before anything runs.
#[test]
fn a_bad_argument_to_a_command_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("x.zsr");
    let rec = rec.to_str().unwrap();
    for (args, says) in [
        (
            &["record", "-i", "0.01", rec][..],
            "interval '0.01' is not a number of seconds of at least 0.1",
        ),
        (
            &["record", "--duration", "0", rec],
            "duration '0' is not a number of seconds of at least 0.1",
        ),
        (
            &["replay", "--history", "0", rec],
            "history '0' must be a positive number of minutes (at most 1440)",
        ),
        (
            &[
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--root",
                "/nonexistent/tree",
            ],
            "root '/nonexistent/tree' is not a directory",
        ),
        (
            &["--once", "--history", "0"],
            "history '0' must be a positive number of minutes (at most 1440)",
        ),
    ] {
        let (status, out, err) = run(args);
        assert_eq!(status, Some(2), "{args:?}: {err}");
        assert_eq!(err, format!("zswaptop: {says}\n"), "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
    assert!(!dir.path().join("x.zsr").exists(), "nothing was recorded");
}

/// An error while running says its causes once each, whether from a mode (`--once --from`,
/// `--once --record`) or a command (`export`, `record`): a path error that quotes its I/O error
/// is not followed by that error again.
#[test]
fn a_runtime_error_says_each_cause_once() {
    let enoent = std::io::Error::from_raw_os_error(2).to_string();
    let tree = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/linux-6.18-idle"
    );
    for (args, says) in [
        (
            &["--once", "--from", "/nonexistent.zsr", "--at", "-1m"][..],
            format!("/nonexistent.zsr: {enoent}"),
        ),
        (
            &["export", "--from", "/nonexistent.zsr", "--format", "csv"],
            format!("/nonexistent.zsr: {enoent}"),
        ),
        (
            &["--root", tree, "--once", "--record", "/nonexistent/x.zsr"],
            format!("recording to /nonexistent/x.zsr: /nonexistent/x.zsr: {enoent}"),
        ),
        (
            &["record", "--root", tree, "/nonexistent/x.zsr"],
            format!("recording to /nonexistent/x.zsr: /nonexistent/x.zsr: {enoent}"),
        ),
    ] {
        let (status, out, err) = run(args);
        assert_eq!(status, Some(1), "{args:?}: {err}");
        assert_eq!(err, format!("zswaptop: {says}\n"), "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}
