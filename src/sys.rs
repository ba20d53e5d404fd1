//! The few facts that come from libc rather than from files.
#![allow(unsafe_code)]

/// The kernel's page size for this process (`sysconf(_SC_PAGESIZE)`).
pub fn host_page_size() -> Option<u64> {
    // SAFETY: sysconf has no preconditions and only reads a constant.
    let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(v).ok().filter(|&v| v > 0)
}

/// Effective user id.
pub fn euid() -> u32 {
    // SAFETY: geteuid cannot fail and has no preconditions.
    unsafe { libc::geteuid() }
}

/// Nanoseconds of CLOCK_MONOTONIC, used to time samples (never goes back, immune to clock changes).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc != 0 {
        return 0;
    }
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nanos)
}

/// Milliseconds since the Unix epoch (wall clock, for display and recordings).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
