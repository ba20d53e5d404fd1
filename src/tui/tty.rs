//! Waiting on a few descriptors with `poll(2)` (through rustix), for a key, a signal or a
//! hang-up without spinning.

use std::io;
use std::os::fd::AsFd;
use std::time::Duration;

pub use rustix::event::{PollFd, PollFlags};

/// What to wait for on a descriptor: input. Hang-ups and errors are reported whatever is asked.
pub const POLLIN: PollFlags = PollFlags::IN;

/// One descriptor to watch. Empty `events` still reports hang-ups and errors.
pub(crate) fn pollfd<F: AsFd>(fd: &F, events: PollFlags) -> PollFd<'_> {
    PollFd::new(fd, events)
}

/// Whether `revents` says the descriptor is gone (hang-up, error, closed).
pub(crate) fn gone(revents: PollFlags) -> bool {
    revents.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
}

/// Wait until one of `fds` is ready or `timeout` passes (`None`: no limit). Returns how many are
/// ready; an interrupted wait (a signal arrived) returns 0.
pub(crate) fn poll(fds: &mut [PollFd<'_>], timeout: Option<Duration>) -> io::Result<usize> {
    // Round up to whole milliseconds, as poll(2) would wait: a timeout cut down to 0 would turn
    // the wait into a busy loop.
    let ts = timeout.map(|d| {
        let ms = d.as_micros().div_ceil(1000);
        rustix::time::Timespec {
            tv_sec: i64::try_from(ms / 1000).unwrap_or(i64::MAX),
            tv_nsec: i64::try_from(ms % 1000).unwrap_or(0) * 1_000_000,
        }
    });
    for f in fds.iter_mut() {
        f.clear_revents();
    }
    match rustix::event::poll(fds, ts.as_ref()) {
        Ok(n) => Ok(n),
        Err(rustix::io::Errno::INTR) => Ok(0),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::time::Instant;

    #[test]
    fn waits_for_data_and_times_out() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut fds = [pollfd(&a, POLLIN)];
        let t = Instant::now();
        assert_eq!(poll(&mut fds, Some(Duration::from_millis(30))).unwrap(), 0);
        assert!(t.elapsed() >= Duration::from_millis(25));
        b.write_all(b"x").unwrap();
        assert_eq!(poll(&mut fds, Some(Duration::from_secs(5))).unwrap(), 1);
        assert!(fds[0].revents().contains(POLLIN));
    }

    #[test]
    fn reports_a_hang_up_with_no_events_asked() {
        let (a, b) = UnixStream::pair().unwrap();
        drop(b);
        let mut fds = [pollfd(&a, PollFlags::empty())];
        assert_eq!(poll(&mut fds, Some(Duration::from_secs(5))).unwrap(), 1);
        assert!(gone(fds[0].revents()));
    }

    #[test]
    fn a_sub_millisecond_timeout_still_waits() {
        let (a, _b) = UnixStream::pair().unwrap();
        let mut fds = [pollfd(&a, POLLIN)];
        let t = Instant::now();
        assert_eq!(poll(&mut fds, Some(Duration::from_micros(10))).unwrap(), 0);
        assert!(t.elapsed() >= Duration::from_micros(900));
    }
}
