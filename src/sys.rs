//! The few facts that come from system calls rather than from files.

/// The kernel's page size for this process (from the auxiliary vector, as `sysconf` reads it).
pub(crate) fn host_page_size() -> Option<u64> {
    u64::try_from(rustix::param::page_size())
        .ok()
        .filter(|&v| v > 0)
}

/// Effective user id.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Nanoseconds of CLOCK_MONOTONIC, used to time samples (never goes back, immune to clock changes).
pub(crate) fn monotonic_ns() -> u64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nanos)
}

/// Whole seconds of CLOCK_BOOTTIME: the time since boot, suspend included, as the first field
/// of /proc/uptime gives it.
pub(crate) fn boottime_s() -> f64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    ts.tv_sec.max(0) as f64
}

/// Milliseconds since the Unix epoch (wall clock, for display and recordings).
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Whether debugfs is mounted on `dir` (the live `/sys/kernel/debug`): one `statfs(2)` where
/// the mount table would be read and parsed. `None` when `dir` cannot be asked.
pub(crate) fn is_debugfs(dir: &std::path::Path) -> Option<bool> {
    /// `DEBUGFS_MAGIC` of the kernel's `include/uapi/linux/magic.h`.
    const DEBUGFS_MAGIC: u64 = 0x6462_6720;
    let st = rustix::fs::statfs(dir).ok()?;
    Some(u64::try_from(st.f_type).ok() == Some(DEBUGFS_MAGIC))
}

/// Whether a file that the kernel flags with POLLPRI/POLLERR when it changes (the mount table)
/// is unflagged: asked without waiting. A failed `poll` counts as flagged.
pub(crate) fn unflagged(file: &std::fs::File) -> bool {
    use rustix::event::{PollFd, PollFlags};
    let mut fds = [PollFd::new(file, PollFlags::PRI)];
    let zero = rustix::time::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    matches!(rustix::event::poll(&mut fds, Some(&zero)), Ok(0))
}

/// Why a small file given by name (a configuration, a certificate) was not read.
#[derive(Debug, thiserror::Error)]
pub enum SmallFileError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a regular file")]
    NotAFile,
    #[error("larger than {0} bytes")]
    TooLarge(u64),
}

/// The regular file at `path`, opened to read without blocking (a FIFO in its place cannot hang
/// the opener before it is refused), and its metadata; anything else (a directory, a device, a
/// FIFO, a socket) is refused as not a regular file.
pub(crate) fn open_regular(
    path: &std::path::Path,
) -> Result<(std::fs::File, std::fs::Metadata), SmallFileError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(SmallFileError::NotAFile);
    }
    Ok((file, meta))
}

/// The whole of `file` (from [`open_regular`]), refused when it holds more than `max` bytes:
/// never more than `max` + 1 bytes are read, whatever the file claims or grows to.
pub(crate) fn read_capped(file: std::fs::File, max: u64) -> Result<Vec<u8>, SmallFileError> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(SmallFileError::TooLarge(max));
    }
    Ok(bytes)
}

/// The regular file at `path`, read whole, at most `max` bytes ([`open_regular`] then
/// [`read_capped`]).
pub(crate) fn read_small_file(path: &std::path::Path, max: u64) -> Result<Vec<u8>, SmallFileError> {
    let (file, _) = open_regular(path)?;
    read_capped(file, max)
}

/// Give back the resident pages of this process's own executable that start-up alone needed:
/// its argument parsing, configuration, the static-pie start-up's relocation table
/// (`.rela.dyn`), the first sample's and frame's code. The executable's private, read-only
/// mappings that hold only the file's own pages (none written since, none swapped: `Anonymous`
/// and `Swap` both 0 in `/proc/self/smaps`) are unmapped from the page tables (`MADV_DONTNEED`);
/// the pages stay in the page cache and the next touch maps them again, so what a loop runs
/// afterwards comes back and the rest costs nothing. The writable data and the relocated
/// read-only data (RELRO, anonymous once relocated) are left alone: nothing the program wrote is
/// lost. Returns the resident bytes of the mappings given back (0 when none could be read).
///
/// Measured on the static build at 120×40 (the same binary with and without it, side by side,
/// the most VmRSS over 20 s): 4,960 → 4,196 KiB with a stale link order, 4,204 → 3,752 KiB with
/// a fresh one (scripts/build-static.sh), all of it file pages, and no more CPU per tick. `malloc_trim(0)` at the same point was
/// tried and gave back nothing measurable (anonymous 888 → 884 KiB).
pub(crate) fn release_startup_pages() -> u64 {
    use procfs_core::FromRead as _;
    use procfs_core::process::{MMPermissions, MMapPath, MemoryMaps};
    use std::os::unix::fs::MetadataExt as _;
    let Ok(exe) = std::fs::metadata("/proc/self/exe") else {
        return 0;
    };
    let dev = (rustix::fs::major(exe.dev()), rustix::fs::minor(exe.dev()));
    let Ok(maps) = MemoryMaps::from_file("/proc/self/smaps") else {
        return 0;
    };
    let mut given = 0;
    for m in maps.0 {
        let ours = matches!(m.pathname, MMapPath::Path(_))
            && m.inode == exe.ino()
            && u32::try_from(m.dev.0).ok() == Some(dev.0)
            && u32::try_from(m.dev.1).ok() == Some(dev.1);
        let clean = m.perms.contains(MMPermissions::PRIVATE)
            && !m.perms.contains(MMPermissions::WRITE)
            && m.extension.map.get("Anonymous") == Some(&0)
            && m.extension.map.get("Swap") == Some(&0);
        let Ok(len) = usize::try_from(m.address.1.saturating_sub(m.address.0)) else {
            continue;
        };
        let Ok(start) = usize::try_from(m.address.0) else {
            continue;
        };
        if !ours || !clean || len == 0 {
            continue;
        }
        // SAFETY: the range is one whole mapping of the executable file, private, not writable
        // and holding no anonymous page: every resident page in it is the file's, unmodified,
        // and `MADV_DONTNEED` only unmaps it (the next touch maps the page cache's page again,
        // the same bytes). No code unmaps or remaps the executable in between.
        #[allow(unsafe_code)]
        let done = unsafe {
            rustix::mm::madvise(
                start as *mut core::ffi::c_void,
                len,
                rustix::mm::Advice::LinuxDontNeed,
            )
        };
        if done.is_ok() {
            given += m.extension.map.get("Rss").copied().unwrap_or(0);
        }
    }
    given
}

#[cfg(test)]
mod tests {
    #[test]
    fn debugfs_is_told_by_the_file_system() {
        assert_eq!(
            super::is_debugfs(std::path::Path::new("/proc")),
            Some(false)
        );
        assert_eq!(
            super::is_debugfs(std::path::Path::new("/no/such/dir")),
            None
        );
    }

    /// `RssFile` of /proc/self/status, in KiB.
    fn rss_file_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("RssFile:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    #[test]
    fn startup_pages_leave_the_resident_set_and_what_was_written_stays() {
        use std::sync::atomic::{AtomicU64, Ordering};
        static WRITTEN: AtomicU64 = AtomicU64::new(0);
        WRITTEN.store(0x5eed, Ordering::Relaxed);
        let before = rss_file_kib();
        let given = super::release_startup_pages();
        let after = rss_file_kib();
        assert!(given > 0, "no page of the executable was given back");
        assert!(
            after < before,
            "file pages resident: {before} KiB before, {after} KiB after"
        );
        // Writable data keeps its value, and code and read-only data come back on a touch.
        assert_eq!(WRITTEN.load(Ordering::Relaxed), 0x5eed);
        assert_eq!(format!("{:?}", ["a", "b"]), "[\"a\", \"b\"]");
    }
}
