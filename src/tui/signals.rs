//! The signals the dashboard answers, and a guard that ends the process if the loop can't.
//!
//! Handlers only set flags and write a byte to pipes: the loop and the guard sleep in `poll(2)`
//! on those pipes, so a signal wakes them at once. SIGHUP, SIGTERM, SIGINT and SIGQUIT stop the
//! loop; SIGWINCH asks for the size again; SIGTSTP suspends the dashboard (terminal given back,
//! then stopped) and SIGCONT brings it back (raw mode, alternate screen, full redraw), whatever
//! stopped it: a SIGSTOP from another terminal, or SIGTTIN/SIGTTOU, stop the process without
//! it being told, and the shell resets the terminal's modes meanwhile.

use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGWINCH};

use super::tty::{self, POLLIN, PollFlags};

/// After a stop signal or a hang-up, how long the loop gets to finish before the guard ends
/// the process itself.
pub const GRACE: Duration = Duration::from_millis(700);

/// The signals that end the dashboard.
const STOP: [i32; 4] = [SIGHUP, SIGTERM, SIGINT, SIGQUIT];

/// The installed handlers and what they have seen.
pub struct Signals {
    stop: Arc<AtomicUsize>,
    winch: Arc<AtomicBool>,
    tstp: Arc<AtomicBool>,
    cont: Arc<AtomicBool>,
    /// The loop's wake-up pipe (read side).
    wake: UnixStream,
    /// The guard's wake-up pipe (read side) and a write side to wake it when the loop is done.
    guard_rx: UnixStream,
    guard_tx: UnixStream,
    ids: Vec<signal_hook::SigId>,
}

impl Signals {
    pub(crate) fn install() -> io::Result<Signals> {
        let stop = Arc::new(AtomicUsize::new(0));
        let winch = Arc::new(AtomicBool::new(false));
        let tstp = Arc::new(AtomicBool::new(false));
        let cont = Arc::new(AtomicBool::new(false));
        let (wake, wake_tx) = UnixStream::pair()?;
        let (guard_rx, guard_tx) = UnixStream::pair()?;
        for s in [&wake, &guard_rx, &guard_tx, &wake_tx] {
            s.set_nonblocking(true)?;
        }
        let mut ids = Vec::new();
        for sig in STOP {
            // The flag first: whoever wakes up must find it set.
            ids.push(signal_hook::flag::register_usize(
                sig,
                Arc::clone(&stop),
                sig as usize,
            )?);
            ids.push(signal_hook::low_level::pipe::register(
                sig,
                wake_tx.try_clone()?,
            )?);
            ids.push(signal_hook::low_level::pipe::register(
                sig,
                guard_tx.try_clone()?,
            )?);
        }
        for (sig, flag) in [(SIGWINCH, &winch), (SIGTSTP, &tstp), (SIGCONT, &cont)] {
            ids.push(signal_hook::flag::register(sig, Arc::clone(flag))?);
            ids.push(signal_hook::low_level::pipe::register(
                sig,
                wake_tx.try_clone()?,
            )?);
        }
        Ok(Signals {
            stop,
            winch,
            tstp,
            cont,
            wake,
            guard_rx,
            guard_tx,
            ids,
        })
    }

    /// The read side of the pipe the handlers write to.
    pub(crate) fn wake(&self) -> &UnixStream {
        &self.wake
    }

    /// Empty the wake-up pipe (after `poll` said it has bytes).
    pub(crate) fn drain_wake(&self) {
        drain(&self.wake);
    }

    /// The stop signal that arrived, if one did.
    pub(crate) fn stop(&self) -> Option<i32> {
        let sig = self.stop.load(Ordering::SeqCst);
        (sig != 0).then(|| i32::try_from(sig).unwrap_or(SIGTERM))
    }

    /// Whether SIGWINCH arrived since the last call.
    pub(crate) fn take_resize(&self) -> bool {
        self.winch.swap(false, Ordering::SeqCst)
    }

    /// Whether SIGTSTP arrived since the last call.
    pub(crate) fn take_suspend(&self) -> bool {
        self.tstp.swap(false, Ordering::SeqCst)
    }

    /// Whether SIGCONT arrived since the last call.
    pub(crate) fn take_continue(&self) -> bool {
        self.cont.swap(false, Ordering::SeqCst)
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

fn drain(mut s: &UnixStream) {
    let mut buf = [0u8; 64];
    while matches!(s.read(&mut buf), Ok(n) if n > 0) {}
}

/// Ends the process if the loop has not finished [`GRACE`] after a stop signal or a hang-up.
pub struct Guard {
    done: Arc<AtomicBool>,
    tx: UnixStream,
}

impl Guard {
    /// Watch `tty` (a descriptor of the terminal) for a hang-up, and the stop signals.
    pub(crate) fn spawn(tty: OwnedFd, signals: &Signals) -> io::Result<Guard> {
        let done = Arc::new(AtomicBool::new(false));
        let rx = signals.guard_rx.try_clone()?;
        let stop = Arc::clone(&signals.stop);
        let d = Arc::clone(&done);
        thread::Builder::new()
            .name("zswaptop-guard".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                loop {
                    let mut fds = [
                        tty::pollfd(&rx, POLLIN),
                        tty::pollfd(&tty, PollFlags::empty()),
                    ];
                    if tty::poll(&mut fds, None).is_err() {
                        return;
                    }
                    let hung_up = tty::gone(fds[1].revents());
                    drain(&rx);
                    if d.load(Ordering::SeqCst) {
                        return;
                    }
                    let sig = stop.load(Ordering::SeqCst);
                    if sig != 0 || hung_up {
                        thread::sleep(GRACE);
                        if d.load(Ordering::SeqCst) {
                            return;
                        }
                        // The loop is stuck (a write that never returns, e.g. output paused
                        // with Ctrl-S): put the line discipline back unless the terminal is
                        // gone, and leave without writing to it. A hang-up is a normal end.
                        if !hung_up {
                            let _ = super::terminal::cooked_mode();
                        }
                        let code = match i32::try_from(sig) {
                            Ok(s) if s != 0 && !hung_up => 128 + s,
                            _ => 0,
                        };
                        signal_hook::low_level::exit(code);
                    }
                }
            })?;
        Ok(Guard {
            done,
            tx: signals.guard_tx.try_clone()?,
        })
    }

    /// The loop is done: the guard leaves.
    pub(crate) fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = io::Write::write(&mut &self.tx, b"x");
    }
}
