//! Block device I/O counters: `/sys/block/<dev>/stat` (and a partition's own `stat`).
//! 11, 15 or 17 fields; sectors are always 512 bytes; ticks are u32 milliseconds that wrap.

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

pub const SECTOR: u64 = 512;

pub fn read(root: &Root, path: &Path) -> Reading<BlockStat> {
    let text = root.read_text(path, &Reason::absent("no stat file for this device"))?;
    parse(path, &text)
}

pub fn parse(path: &Path, text: &str) -> Reading<BlockStat> {
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
    Ok(BlockStat {
        read_ios: n[0],
        read_sectors: n[2],
        write_ios: n[4],
        write_sectors: n[6],
        in_flight: n[8],
        io_ticks_ms: n[9],
    })
}

/// Δ of a u32 millisecond tick counter, allowing one wrap; `None` when it went back otherwise
/// (the device was re-created).
pub fn ticks_delta(prev: u64, curr: u64) -> Option<u64> {
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
