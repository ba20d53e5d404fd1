//! Block device I/O counters: `/sys/block/<dev>/stat` (and a partition's own `stat`).
//! 11, 15 or 17 fields; sectors are always 512 bytes; ticks are u32 milliseconds that wrap.
//!
//! The fields (Documentation/block/stat.rst), counted from 1: reads completed (1), reads merged
//! (2), sectors read (3), milliseconds spent reading (4), writes completed (5), writes merged
//! (6), sectors written (7), milliseconds spent writing (8), I/Os in flight (9), milliseconds
//! with I/O in flight (10, `io_ticks`), weighted milliseconds (11); 6.x adds discards (12–15)
//! and flushes (16–17). The millisecond fields are `unsigned int` in the kernel
//! (block/genhd.c prints them with `jiffies_to_msecs`): they wrap at 2^32.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockStat {
    pub read_ios: u64,
    pub read_sectors: u64,
    pub write_ios: u64,
    pub write_sectors: u64,
    pub in_flight: u64,
    /// Milliseconds the device had I/O in flight (u32 in the kernel: wraps after ~49.7 days).
    pub io_ticks_ms: u64,
}

/// The completed-request counts and the time spent on them (fields 1, 4, 5, 8): the average
/// time a read or a write took over an interval is Δ milliseconds ÷ Δ requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoTimes {
    pub reads: u64,
    /// Milliseconds spent on reads, summed over requests (overlapping ones each count): u32 in
    /// the kernel, wraps.
    pub read_ms: u64,
    pub writes: u64,
    pub write_ms: u64,
}

pub const SECTOR: u64 = 512;

pub fn read(root: &Root, path: &Path) -> Reading<BlockStat> {
    let text = root.read_text(path, &Reason::absent("no stat file for this device"))?;
    parse(path, &text)
}

/// [`read`], and the request times from the same read of the file.
pub(crate) fn read_with_times(root: &Root, path: &Path) -> (Reading<BlockStat>, Option<IoTimes>) {
    let text = match root.read_text(path, &Reason::absent("no stat file for this device")) {
        Ok(t) => t,
        Err(e) => return (Err(e), None),
    };
    (parse(path, &text), parse_times(path, &text).ok())
}

/// Fields 1, 4, 5 and 8 of a `stat` file (checked as [`parse`] checks the whole line).
pub(crate) fn parse_times(path: &Path, text: &str) -> Reading<IoTimes> {
    let n = numbers(path, text)?;
    Ok(IoTimes {
        reads: n[0],
        read_ms: n[3],
        writes: n[4],
        write_ms: n[7],
    })
}

pub(crate) fn parse(path: &Path, text: &str) -> Reading<BlockStat> {
    let n = numbers(path, text)?;
    Ok(BlockStat {
        read_ios: n[0],
        read_sectors: n[2],
        write_ios: n[4],
        write_sectors: n[6],
        in_flight: n[8],
        io_ticks_ms: n[9],
    })
}

/// Every field of a `stat` line, which must hold 11, 15 or 17 numbers.
fn numbers(path: &Path, text: &str) -> Reading<Vec<u64>> {
    let mut n = Vec::with_capacity(17);
    for w in text.split_whitespace() {
        n.push(
            w.parse::<u64>().map_err(|_| {
                Unavailable::malformed(path, Some(1), format!("not a number: {w:?}"))
            })?,
        );
    }
    if !matches!(n.len(), 11 | 15 | 17) {
        return Err(Unavailable::malformed(
            path,
            Some(1),
            format!("expected 11, 15 or 17 fields, got {}", n.len()),
        ));
    }
    Ok(n)
}

/// Δ of a u32 millisecond tick counter, allowing one wrap; `None` when it went back otherwise
/// (the device was re-created).
pub(crate) fn ticks_delta(prev: u64, curr: u64) -> Option<u64> {
    const WRAP: u64 = 1 << 32;
    if curr >= prev {
        Some(curr - prev)
    } else if (WRAP / 2..WRAP).contains(&prev) {
        Some(curr + WRAP - prev)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_capture() {
        let p = format!(
            "{}/tests/fixtures/linux-6.18-loaded/sys/block/vda/stat",
            env!("CARGO_MANIFEST_DIR")
        );
        let s = read(&Root::live(), Path::new(&p)).unwrap();
        assert!(s.read_ios > 0);
        assert!(s.write_sectors > 0);
    }

    /// The loaded capture's vda line, fields counted by hand: 29184 reads in 4391 ms, 42797
    /// writes in 80377 ms.
    #[test]
    fn request_times_of_the_capture() {
        let p = format!(
            "{}/tests/fixtures/linux-6.18-loaded/sys/block/vda/stat",
            env!("CARGO_MANIFEST_DIR")
        );
        let (stat, times) = read_with_times(&Root::live(), Path::new(&p));
        assert_eq!(stat.unwrap().read_ios, 29_184);
        assert_eq!(
            times,
            Some(IoTimes {
                reads: 29_184,
                read_ms: 4_391,
                writes: 42_797,
                write_ms: 80_377,
            })
        );
        // A line that is not a stat line gives neither.
        assert!(parse_times(Path::new("s"), "1 2 3").is_err());
        let (stat, times) = read_with_times(&Root::live(), Path::new("/nonexistent/stat"));
        assert!(stat.is_err() && times.is_none());
        // The 11-field form (before 4.18) has the same first eleven.
        assert_eq!(
            parse_times(Path::new("s"), "1 2 3 4 5 6 7 8 9 10 11").unwrap(),
            IoTimes {
                reads: 1,
                read_ms: 4,
                writes: 5,
                write_ms: 8,
            }
        );
    }

    #[test]
    fn field_counts() {
        assert!(parse(Path::new("s"), "1 2 3 4 5 6 7 8 9 10 11").is_ok());
        assert!(parse(Path::new("s"), "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17").is_ok());
        assert!(parse(Path::new("s"), "1 2 3").is_err());
        assert!(parse(Path::new("s"), "1 2 3 4 5 6 7 8 9 10 x").is_err());
    }

    #[test]
    fn tick_wrap_and_reset() {
        assert_eq!(ticks_delta(10, 15), Some(5));
        assert_eq!(ticks_delta((1 << 32) - 5, 5), Some(10));
        assert_eq!(ticks_delta(1000, 5), None);
    }
}
