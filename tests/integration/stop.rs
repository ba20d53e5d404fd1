//! The dashboard stopped from outside and continued, on a pseudo-terminal of its own.
//!
//! A plain SIGSTOP (`kill -STOP` from another terminal, not Ctrl-Z), like SIGTTIN and SIGTTOU,
//! stops the process without it being told; a job-control shell then puts its own modes back on
//! the terminal (cooked: a line at a time, echoed) until `fg` continues the job. On SIGCONT the
//! dashboard must take the terminal again for real: raw mode (one `q`, no Enter, quits), the
//! alternate screen, the cursor hidden, everything drawn again.

use crate::common::{self, skip};

use std::fs::File;
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use common::pty::{
    self, ended_within, output_for, read_for, type_keys, wait_for_state, wait_for_text,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rustix::termios::{LocalModes, OptionalActions, Termios, tcgetattr, tcsetattr};

fn fixture() -> String {
    format!(
        "{}/tests/fixtures/linux-6.18-loaded",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The modes of a terminal nobody has touched: what a shell puts back (cooked).
fn cooked() -> Termios {
    let (fresh, _) = pty::open_pty(80, 24);
    let t = tcgetattr(&fresh).unwrap();
    assert!(
        t.local_modes
            .contains(LocalModes::ICANON | LocalModes::ECHO)
    );
    t
}

fn line_at_a_time(master: &File) -> bool {
    tcgetattr(master)
        .unwrap()
        .local_modes
        .intersects(LocalModes::ICANON | LocalModes::ECHO)
}

/// Stop `pid` with SIGSTOP, set the terminal's modes to `reset` while it is stopped (when
/// given), continue it, and return what it wrote until it had drawn the dashboard again.
fn stop_and_continue(pid: u32, master: &mut File, reset: Option<&Termios>) -> Vec<u8> {
    let p = Pid::from_raw(i32::try_from(pid).unwrap());
    // Whatever was drawn before the stop.
    read_for(master, Duration::from_millis(300), None);
    kill(p, Signal::SIGSTOP).unwrap();
    assert!(
        wait_for_state(pid, 'T', Duration::from_secs(5)),
        "not stopped: {:?}",
        pty::state(pid)
    );
    if let Some(modes) = reset {
        tcsetattr(&*master, OptionalActions::Now, modes).unwrap();
        assert!(line_at_a_time(master));
    }
    kill(p, Signal::SIGCONT).unwrap();
    let (out, drawn) = read_for(master, Duration::from_secs(10), Some(b"Real memory"));
    assert!(
        drawn,
        "not drawn again after SIGCONT: {:?}",
        String::from_utf8_lossy(&out)
    );
    out
}

/// The dashboard, killed if the test ends before it does (a failed assertion must not leave a
/// stopped process behind).
struct Dashboard(Child);

impl Drop for Dashboard {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

#[test]
fn a_stop_from_outside_then_sigcont_takes_raw_mode_back() {
    let Some(setsid) = pty::setsid() else {
        skip!("no setsid to give the dashboard a terminal of its own");
    };
    let cooked = cooked();
    let (child, mut master) = pty::spawn(
        &setsid,
        Path::new("/usr/bin:/bin"),
        &["--root", &fixture(), "-i", "0.1"],
    );
    let mut child = Dashboard(child);
    assert!(
        wait_for_text(&mut master, b"Real memory", Duration::from_secs(20)),
        "the dashboard was not drawn"
    );
    assert!(!line_at_a_time(&master), "raw mode at start");
    let pid = child.0.id();

    // Stopped and continued with nothing touching the terminal meanwhile: still raw.
    stop_and_continue(pid, &mut master, None);
    assert!(!line_at_a_time(&master));

    // As a job-control shell does: cooked modes while the job is stopped, then `fg`.
    let out = stop_and_continue(pid, &mut master, Some(&cooked));
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.contains("\x1b[?1049h"),
        "the alternate screen asked for again: {out:?}"
    );
    assert!(
        out.contains("\x1b[?25l"),
        "the cursor hidden again: {out:?}"
    );
    assert!(
        out.contains("\x1b[2J"),
        "the screen cleared and drawn whole"
    );
    let raw_again = !line_at_a_time(&master);

    // One `q`, no Enter.
    output_for(&mut master, Duration::from_millis(200));
    type_keys(&mut master, b"q");
    let ended = ended_within(&mut child.0, Duration::from_secs(3));
    assert!(
        raw_again,
        "the terminal was left a line at a time after SIGCONT (ended: {ended:?})"
    );
    assert_eq!(
        ended.and_then(|(s, _)| s.code()),
        Some(0),
        "a single q did not end the dashboard"
    );
}
