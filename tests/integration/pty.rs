//! The dashboard on a pseudo-terminal whose other end goes away, as when an SSH connection drops
//! or a terminal window is closed: it must end by itself within a second, with an exit status
//! (not killed by a signal, not aborted), and it must not run any program to learn the size of
//! the terminal that is gone (crossterm falls back to `tput` from PATH, which for root means
//! whatever `tput` is first on PATH). The PATH given to it holds only a fake `tput` that leaves a
//! mark when run.

use crate::common::{self, skip};

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::pty::{self, BIN, ended_within, open_pty, output_for, setsid, wait_for_text};

fn fixture() -> String {
    format!(
        "{}/tests/fixtures/linux-6.18-loaded",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The dashboard on the slave side of a new pseudo-terminal, with only `path` on PATH.
fn start(setsid: &Path, path: &Path) -> (Child, File) {
    start_on(setsid, path, Path::new(&fixture()))
}

/// The same over the tree at `root`.
fn start_on(setsid: &Path, path: &Path, root: &Path) -> (Child, File) {
    let args = [
        OsStr::new("--root"),
        root.as_os_str(),
        OsStr::new("-i"),
        OsStr::new("0.1"),
    ];
    pty::spawn(setsid, path, &args)
}

/// A directory holding only a `tput` that leaves `marker` behind when run.
fn fake_path(dir: &Path, marker: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir(&bin).unwrap();
    let tput = bin.join("tput");
    fs::write(
        &tput,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\necho 80\n",
            marker.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&tput, fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn closing_the_terminal_ends_it_cleanly_without_running_tput() {
    let Some(setsid) = setsid() else {
        skip!("no setsid to give the dashboard a terminal of its own");
    };
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("tput-ran");
    let path = fake_path(dir.path(), &marker);
    let mut times = Vec::new();
    for trial in 0..20 {
        let (mut child, mut master) = start(&setsid, &path);
        assert!(
            wait_for_text(&mut master, b"Real memory", Duration::from_secs(20)),
            "trial {trial}: the dashboard was not drawn"
        );
        // Let it draw a few more ticks, then hang up.
        sleep(Duration::from_millis(50 * (trial % 5)));
        drop(master);
        let ended = ended_within(&mut child, Duration::from_secs(1));
        let Some((status, took)) = ended else {
            panic!("trial {trial}: still running 1 s after its terminal went away");
        };
        assert_eq!(
            status.signal(),
            None,
            "trial {trial}: ended by signal {:?} (core dumped: {})",
            status.signal(),
            status.core_dumped()
        );
        assert!(
            matches!(status.code(), Some(0 | 129)),
            "trial {trial}: exit status {status}"
        );
        times.push(took);
    }
    assert!(
        !marker.exists(),
        "tput was run: {}",
        fs::read_to_string(&marker).unwrap_or_default()
    );
    let max = times.iter().max().unwrap();
    println!("20 hang-ups: each ended within {max:?} with status 0 or 129");
}

/// A copy of the loaded fixture with a cgroup v2 tree of `n` cgroups (100 slices of n/100).
fn tree_with_cgroups(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("root");
    let ok = Command::new("cp")
        .args(["-r", &fixture()])
        .arg(&root)
        .status()
        .unwrap();
    assert!(ok.success());
    let cg = root.join("sys/fs/cgroup");
    fs::create_dir_all(&cg).unwrap();
    fs::write(cg.join("cgroup.controllers"), "cpu io memory pids\n").unwrap();
    let stat = "anon 4096\nzswap 1000\nzswapped 3000\nzswpin 1\nzswpout 2\nzswpwb 0\n";
    fs::write(cg.join("memory.stat"), stat).unwrap();
    for i in 0..n {
        let d = cg.join(format!("s{}.slice/u{i}.service", i / 100));
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("memory.stat"), stat).unwrap();
        fs::write(d.join("memory.current"), "8192\n").unwrap();
    }
    root
}

/// 20,000 cgroups at `-i 0.1` on the cgroups view: `q` still ends the dashboard at once (the
/// tree is read in slices with the keys read between them).
#[test]
fn q_answers_at_once_over_a_huge_cgroup_tree() {
    let Some(setsid) = setsid() else {
        skip!("no setsid to give the dashboard a terminal of its own");
    };
    // In memory when possible: 20,000 directories are slow to write and remove on a disk.
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let made = Instant::now();
    let root = tree_with_cgroups(dir.path(), 20_000);
    println!("tree written in {:?}", made.elapsed());
    let (mut child, mut master) = start_on(&setsid, Path::new("/usr/bin:/bin"), &root);
    assert!(wait_for_text(
        &mut master,
        b"Real memory",
        Duration::from_secs(20)
    ));
    std::io::Write::write_all(&mut master, b"6").unwrap();
    assert!(
        wait_for_text(&mut master, b"cgroup", Duration::from_secs(20)),
        "the cgroups view"
    );
    println!("cgroups view up after {:?}", made.elapsed());
    // Into the middle of the walks.
    let drain = Instant::now();
    while drain.elapsed() < Duration::from_millis(1500) {
        wait_for_text(&mut master, b"\0never", Duration::from_millis(100));
    }
    std::io::Write::write_all(&mut master, b"q").unwrap();
    let t = Instant::now();
    // Keep reading so its writes never block.
    while t.elapsed() < Duration::from_secs(3) && child.try_wait().unwrap().is_none() {
        wait_for_text(&mut master, b"\0never", Duration::from_millis(5));
    }
    let took = t.elapsed();
    let status = child.try_wait().unwrap();
    if status.is_none() {
        let _ = child.kill();
    }
    println!("q over 20,000 cgroups: ended after {took:?}");
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{status:?}");
    assert!(
        took < Duration::from_millis(500),
        "q took {took:?} over 20,000 cgroups"
    );
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// A tick whose frame is the last one's writes nothing to the terminal (no colour reset, no
/// second "hide the cursor"): on a fixture tree every sample is the same, and at 0.1 s a second
/// holds ten ticks. A key still draws at once.
#[test]
fn an_unchanged_frame_writes_nothing() {
    let Some(setsid) = setsid() else {
        skip!("no setsid to give the dashboard a terminal of its own");
    };
    let (mut child, mut master) = start(&setsid, Path::new("/usr/bin:/bin"));
    assert!(wait_for_text(
        &mut master,
        b"Real memory",
        Duration::from_secs(20)
    ));
    output_for(&mut master, Duration::from_millis(500));
    let idle = output_for(&mut master, Duration::from_secs(1));
    let hides = count(&idle, b"\x1b[?25l");
    println!(
        "one idle second at 0.1 s: {} bytes written, {hides} cursor hides",
        idle.len()
    );
    // A graph gaining a column may change a frame; ten ticks writing would be ten hides.
    assert!(
        hides <= 1,
        "{hides} cursor hides in {:?}",
        String::from_utf8_lossy(&idle)
    );
    assert!(
        idle.len() < 400,
        "{} bytes: {:?}",
        idle.len(),
        String::from_utf8_lossy(&idle)
    );
    std::io::Write::write_all(&mut master, b"2").unwrap();
    assert!(
        wait_for_text(&mut master, b"last 10m", Duration::from_secs(5)),
        "the graphs view drawn after a key"
    );
    std::io::Write::write_all(&mut master, b"q").unwrap();
    let ended = ended_within(&mut child, Duration::from_secs(5));
    assert_eq!(ended.and_then(|(s, _)| s.code()), Some(0), "{ended:?}");
}

/// Where a program run on a hung-up terminal sends its stderr.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stderr {
    /// A pipe the test reads: it must stay empty (no message, no panic).
    Pipe,
    /// The same terminal as stdout, hung up too.
    Terminal,
    /// Closed (`2>&-`).
    Closed,
}

/// `zswaptop ARGS` with stdout on a pseudo-terminal that hangs up: as its session's controlling
/// terminal with SIGHUP ignored (what `nohup` does, without its redirection to nohup.out), so
/// the program lives on and its writes fail (EIO). The terminal hangs up once `first` has been
/// written to it, or before the program starts when `first` is `None`. Returns how it ended and
/// its stderr (when a pipe).
fn on_hung_up_terminal(
    args: &[&str],
    stderr: Stderr,
    first: Option<&[u8]>,
) -> (ExitStatus, String) {
    let (mut master, slave) = open_pty(100, 30);
    // `trap "" HUP` sets SIGHUP to ignored, which exec keeps; the shell execs the program.
    let script = if stderr == Stderr::Closed {
        r#"trap "" HUP; exec "$0" "$@" 2>&-"#
    } else {
        r#"trap "" HUP; exec "$0" "$@""#
    };
    let mut cmd = match first {
        // A terminal that hung up already cannot become a controlling terminal.
        None => Command::new("/bin/sh"),
        Some(_) => {
            let mut c = Command::new(setsid().unwrap());
            c.args(["--ctty", "/bin/sh"]);
            c
        }
    };
    cmd.args(["-c", script, BIN])
        .args(args)
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(match stderr {
            Stderr::Pipe => Stdio::piped(),
            Stderr::Terminal => Stdio::from(slave.try_clone().unwrap()),
            Stderr::Closed => Stdio::null(),
        });
    if first.is_none() {
        drop(master);
        drop(slave);
        let out = cmd.output().unwrap();
        return (
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
    }
    let mut child = cmd.spawn().unwrap();
    drop(slave);
    let shown = wait_for_text(&mut master, first.unwrap(), Duration::from_secs(20));
    drop(master);
    assert!(shown, "{args:?}: nothing written before the hang-up");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut err).unwrap();
    }
    let Some((status, _)) = ended_within(&mut child, Duration::from_secs(20)) else {
        panic!("{args:?}: still running 20 s after its terminal hung up");
    };
    (status, err)
}

/// `--watch` under `nohup` whose SSH session drops: the next row's write fails with EIO, and
/// that ends it as a reader going away does (status 0, nothing said) — not a panic (101), not
/// an error. With stderr on a pipe, on the same dead terminal, or closed.
#[test]
fn watch_ends_quietly_when_its_terminal_hangs_up() {
    if setsid().is_none() {
        skip!("no setsid to give zswaptop a terminal of its own");
    }
    let root = fixture();
    for (json, stderr) in [
        (false, Stderr::Pipe),
        (true, Stderr::Pipe),
        (false, Stderr::Terminal),
        (false, Stderr::Closed),
        (true, Stderr::Closed),
    ] {
        let mut args = vec!["--root", &root, "--watch", "--count", "3", "-i", "0.3"];
        if json {
            args.push("--json");
        }
        let (status, err) = on_hung_up_terminal(&args, stderr, Some(b"\n"));
        let what = format!("json {json}, stderr {stderr:?}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert_eq!(status.signal(), None, "{what}: {status}");
        assert_eq!(status.code(), Some(0), "{what}: {status}; stderr {err:?}");
        assert_eq!(err, "", "{what}");
    }
}

/// Every mode that writes to stdout (and `record`, which does not), started on a terminal that
/// hung up already: each ends quietly with status 0, as on a closed pipe.
#[test]
fn every_stdout_mode_ends_quietly_on_a_hung_up_terminal() {
    let root = fixture();
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let rec = rec.to_str().unwrap();
    let made = Command::new(BIN)
        .args([
            "record",
            rec,
            "--root",
            &root,
            "-i",
            "0.1",
            "--duration",
            "0.3",
        ])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let modes: &[&[&str]] = &[
        &["--root", &root, "--once"],
        &["--root", &root, "--once", "--full"],
        &["--root", &root, "--once", "--json"],
        &["--root", &root, "--once", "--format", "openmetrics"],
        &["--root", &root, "--watch", "--count", "2", "-i", "0.1"],
        &[
            "--root", &root, "--watch", "--json", "--count", "2", "-i", "0.1",
        ],
        &["man"],
        &["completions", "bash"],
        &["export", "--from", rec, "--format", "csv"],
        &["export", "--from", rec, "--format", "jsonl"],
        &["--once", "--from", rec, "--at", "-0s"],
        &["--once", "--from", rec, "--at", "-0s", "--json"],
        // Writes nothing to stdout; what it says goes to stderr.
        &[
            "record",
            rec,
            "--root",
            &root,
            "-i",
            "0.1",
            "--duration",
            "0.2",
        ],
    ];
    for args in modes {
        for stderr in [Stderr::Pipe, Stderr::Closed] {
            let (status, err) = on_hung_up_terminal(args, stderr, None);
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert_eq!(
                status.code(),
                Some(0),
                "{args:?} stderr {stderr:?}: {status}; {err:?}"
            );
            assert_eq!(err, "", "{args:?}");
        }
    }
}

/// `serve` started on a terminal that hung up: its start line goes nowhere and it serves on
/// until it is stopped (by SIGTERM, its default action) — no panic on the failed write.
#[test]
fn serve_outlives_a_hung_up_terminal() {
    let (master, slave) = open_pty(100, 30);
    drop(master);
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--root", &fixture()])
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    sleep(Duration::from_millis(500));
    let running = child.try_wait().unwrap();
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    let status = child.wait().unwrap();
    assert_eq!(running, None, "serve ended by itself: {running:?}");
    assert_eq!(status.signal(), Some(15), "{status}");
}
