//! `zswaptop --once` into a pipe whose reader goes away early (`| head -1`) ends quietly with
//! status 0, in text and JSON; `--top 0` is refused.

use crate::common::{self, skip};

use std::io::Read;
use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;

/// A tree whose `--top 2000` report is far larger than a pipe's buffer (64 KiB): the
/// depth-many-processes tree plus 1,500 more processes with swap.
fn big_tree() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("depth-many-processes"), tmp.path());
    let status =
        std::fs::read_to_string(common::fixture_dir("depth-cgroup-v2/proc/6000/status")).unwrap();
    for pid in 20_000..21_500 {
        let dir = tmp.path().join(format!("proc/{pid}"));
        std::fs::create_dir_all(&dir).unwrap();
        let s = status
            .replace("Pid:\t6000\n", &format!("Pid:\t{pid}\n"))
            .replace("Tgid:\t6000\n", &format!("Tgid:\t{pid}\n"))
            .replace("VmSwap:\t   95000 kB", &format!("VmSwap:\t   {pid} kB"));
        std::fs::write(dir.join("status"), s).unwrap();
    }
    tmp
}

#[test]
fn a_reader_that_goes_away_is_not_an_error() {
    let tree = big_tree();
    for json in [false, true] {
        let mut cmd = Command::cargo_bin("zswaptop").unwrap();
        cmd.arg("--root")
            .arg(tree.path())
            .args(["--once", "--top", "2000"]);
        if json {
            cmd.arg("--json");
        }
        // The whole report is big enough that it can't all sit in the pipe before it closes.
        let full = cmd.output().unwrap().stdout.len();
        assert!(full > 96 * 1024, "json {json}: only {full} bytes");

        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The read end is closed here (dropped), as `head -c 16` would.
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "json {json}: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "json {json}: {out:?}");
    }
}

#[test]
fn top_zero_is_refused() {
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg("--root")
        .arg(common::fixture_dir("depth-many-processes"))
        .args(["--once", "--top", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value '0' for '--top <N>'"), "{err}");
}

/// A write that fails for another reason than a reader going away is still an error: a full
/// device (/dev/full, a character device like a terminal) gives ENOSPC, said on stderr with
/// status 1, not taken for a hung-up terminal.
#[test]
fn a_full_device_is_an_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        skip!("no /dev/full");
    };
    for args in [&["--once"][..], &["--watch", "--count", "2", "-i", "0.1"]] {
        let out = Command::cargo_bin("zswaptop")
            .unwrap()
            .arg("--root")
            .arg(common::fixture_dir("linux-6.18-loaded"))
            .args(args)
            .stdout(Stdio::from(full.try_clone().unwrap()))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
    }
}
