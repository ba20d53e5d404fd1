//! The one system call the terminal loop needs that std lacks: `poll(2)` over a few descriptors,
//! to wait for a key, a signal or a hang-up without spinning.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

pub use libc::{POLLERR, POLLHUP, POLLIN, POLLNVAL};

/// One descriptor to watch. `events` 0 still reports hang-ups and errors.
pub fn pollfd(fd: RawFd, events: i16) -> libc::pollfd {
    libc::pollfd {
        fd,
        events,
        revents: 0,
    }
}

/// Whether `revents` says the descriptor is gone (hang-up, error, closed).
pub fn gone(revents: i16) -> bool {
    revents & (POLLHUP | POLLERR | POLLNVAL) != 0
}

/// Wait until one of `fds` is ready or `timeout` passes (`None`: no limit). Returns how many are
/// ready; an interrupted wait (a signal arrived) returns 0.
pub fn poll(fds: &mut [libc::pollfd], timeout: Option<Duration>) -> io::Result<usize> {
    let ms: libc::c_int = match timeout {
        None => -1,
        // Round up: a timeout cut down to 0 ms would turn the wait into a busy loop.
        Some(d) => i32::try_from(d.as_micros().div_ceil(1000)).unwrap_or(i32::MAX),
    };
    let n = libc::nfds_t::try_from(fds.len()).unwrap_or(0);
    for f in fds.iter_mut() {
        f.revents = 0;
    }
    // SAFETY: `fds` is a valid, exclusively borrowed slice of `n` pollfd structs for the duration
    // of the call; poll only writes their `revents` fields.
    let rc = unsafe { libc::poll(fds.as_mut_ptr(), n, ms) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(0);
        }
        return Err(e);
    }
    Ok(usize::try_from(rc).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use std::time::Instant;

    #[test]
    fn waits_for_data_and_times_out() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut fds = [pollfd(a.as_raw_fd(), POLLIN)];
        let t = Instant::now();
        assert_eq!(poll(&mut fds, Some(Duration::from_millis(30))).unwrap(), 0);
        assert!(t.elapsed() >= Duration::from_millis(25));
        b.write_all(b"x").unwrap();
        assert_eq!(poll(&mut fds, Some(Duration::from_secs(5))).unwrap(), 1);
        assert!(fds[0].revents & POLLIN != 0);
    }

    #[test]
    fn reports_a_hang_up_with_no_events_asked() {
        let (a, b) = UnixStream::pair().unwrap();
        drop(b);
        let mut fds = [pollfd(a.as_raw_fd(), 0)];
        assert_eq!(poll(&mut fds, Some(Duration::from_secs(5))).unwrap(), 1);
        assert!(gone(fds[0].revents));
    }

    #[test]
    fn a_sub_millisecond_timeout_still_waits() {
        let (a, _b) = UnixStream::pair().unwrap();
        let mut fds = [pollfd(a.as_raw_fd(), POLLIN)];
        assert_eq!(poll(&mut fds, Some(Duration::from_micros(10))).unwrap(), 0);
    }
}
