//! The dashboard on a pseudo-terminal of its own: started as the leader of a new session whose
//! controlling terminal is the pty (as a login shell over SSH is), with the test holding the
//! master side to read what it draws, type keys, and set the line discipline's modes.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags};
use rustix::pty::OpenptFlags;

pub const BIN: &str = env!("CARGO_BIN_EXE_zswaptop");

/// `setsid`, to start the dashboard as the leader of a session whose controlling terminal is
/// the pseudo-terminal, without unsafe code in the test.
pub fn setsid() -> Option<PathBuf> {
    ["/usr/bin/setsid", "/bin/setsid"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// A pseudo-terminal of `cols`×`rows`: the master side, and the slave side opened for reading
/// and writing (not made the test's controlling terminal).
pub fn open_pty(cols: u16, rows: u16) -> (File, File) {
    let m = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
        .unwrap();
    rustix::pty::grantpt(&m).unwrap();
    rustix::pty::unlockpt(&m).unwrap();
    let name = rustix::pty::ptsname(&m, Vec::new()).unwrap();
    let ws = rustix::termios::Winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    rustix::termios::tcsetwinsize(&m, ws).unwrap();
    let slave = File::options()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
        .open(name.to_str().unwrap())
        .unwrap();
    (File::from(m), slave)
}

/// `zswaptop ARGS` on the slave side of a new 100×30 pseudo-terminal, in a session of its own
/// (the child's id is the dashboard's: `setsid` execs it), with only `path` on PATH.
pub fn spawn<S: AsRef<OsStr>>(setsid: &Path, path: &Path, args: &[S]) -> (Child, File) {
    let (master, slave) = open_pty(100, 30);
    let child = Command::new(setsid)
        .arg("--ctty")
        .arg(BIN)
        .args(args)
        .env_clear()
        .env("PATH", path)
        .env("TERM", "xterm-256color")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    (child, master)
}

/// Read from `master` for `limit`, or until `until` is seen (then true); stops at its end.
pub fn read_for(master: &mut File, limit: Duration, until: Option<&[u8]>) -> (Vec<u8>, bool) {
    let end = Instant::now() + limit;
    let mut seen = Vec::new();
    let mut buf = [0u8; 65536];
    while Instant::now() < end {
        let mut fds = [PollFd::new(&*master, PollFlags::IN)];
        let ts = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 20_000_000,
        };
        if rustix::event::poll(&mut fds, Some(&ts)).unwrap_or(0) == 0 {
            continue;
        }
        match master.read(&mut buf) {
            Ok(n) if n > 0 => seen.extend_from_slice(&buf[..n]),
            _ => return (seen, false),
        }
        if let Some(what) = until
            && seen.windows(what.len()).any(|w| w == what)
        {
            return (seen, true);
        }
    }
    (seen, false)
}

/// Read from `master` until `what` has been drawn; false on a timeout.
pub fn wait_for_text(master: &mut File, what: &[u8], limit: Duration) -> bool {
    read_for(master, limit, Some(what)).1
}

/// What the dashboard writes to its terminal for `limit`, reading all the while.
pub fn output_for(master: &mut File, limit: Duration) -> Vec<u8> {
    read_for(master, limit, None).0
}

/// Type `keys` on the terminal.
pub fn type_keys(master: &mut File, keys: &[u8]) {
    master.write_all(keys).unwrap();
}

/// Wait at most `limit` for `child` to end: its status and how long that took; killed (and
/// `None`) when it does not.
pub fn ended_within(child: &mut Child, limit: Duration) -> Option<(ExitStatus, Duration)> {
    let t = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return Some((st, t.elapsed()));
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        sleep(Duration::from_millis(5));
    }
}

/// The state letter of process `pid` (`R`, `S`, `T` stopped…), `None` once it is gone.
pub fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(") ").next()?.chars().next()
}

/// Wait at most `limit` for process `pid` to be in state `want`.
pub fn wait_for_state(pid: u32, want: char, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if state(pid) == Some(want) {
            return true;
        }
        sleep(Duration::from_millis(5));
    }
    false
}
