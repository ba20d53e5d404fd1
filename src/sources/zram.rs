//! zram devices: `/sys/block/zram*/{mm_stat,io_stat,bd_stat,comp_algorithm,disksize,initstate}`,
//! `writeback_limit{,_enable}`, and each slot's state from debugfs (`block_state`).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;

/// `mm_stat`: columns 1–5 bytes, 6–9 pages. Older kernels print fewer columns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MmStat {
    pub orig_data_size: u64,
    pub compr_data_size: u64,
    pub mem_used_total: u64,
    pub mem_limit: u64,
    pub mem_used_max: u64,
    pub same_pages: u64,
    pub pages_compacted: u64,
    pub huge_pages: Option<u64>,
    pub huge_pages_since: Option<u64>,
}

/// `io_stat`: failed_reads failed_writes invalid_io notify_free (counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoStat {
    pub failed_reads: u64,
    pub failed_writes: u64,
    pub invalid_io: u64,
    pub notify_free: u64,
}

/// `bd_stat` (CONFIG_ZRAM_WRITEBACK): 4 KiB units whatever the page size, converted to bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BdStat {
    pub bd_count_bytes: u64,
    pub bd_reads_bytes: u64,
    pub bd_writes_bytes: u64,
}

/// debugfs `/sys/kernel/debug/zram/zramN/block_state` (CONFIG_ZRAM_MEMORY_TRACKING, root only,
/// mode 0400), summed: the kernel's only account of which pages are idle and which were
/// recompressed (no sysfs file counts either, 6.1 to 7.x). One line per allocated slot,
/// `index ac_time flags`, the flags one character each where set (`.` where not): `s` same-filled,
/// `w` on the backing device, `p` (7.x) picked for post-processing, `h` huge, `i` idle, `r`
/// recompressed with a secondary algorithm (6.2+), `n` recompression found no gain (6.2+). The
/// letters are told apart by letter, never by column: the column count changed with 6.2 and 7.x.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockState {
    /// Allocated slots (lines).
    pub slots: u64,
    /// Slots marked idle (`i`).
    pub idle: u64,
    /// Idle slots still in RAM that `writeback` can move: idle, neither on the backing device
    /// (`w`) nor same-filled (`s`, which writeback skips: they take no memory).
    pub idle_in_ram: u64,
    /// Slots on the backing device (`w`).
    pub written_back: u64,
    /// Slots a recompression reached (`r` or `n`).
    pub recompressed: u64,
}

/// The most of `block_state` read: 64 bytes a slot (a line is 36 to 40) for a 64 GiB device of
/// 4 KiB pages. Past it the summary is unknown (too large), never a partial count.
pub const BLOCK_STATE_CAP: u64 = 64 << 20;

/// An algorithm selector file: `[lzo-rle] lzo lz4`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selector {
    pub selected: Option<String>,
    pub options: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZramSample {
    pub name: String,
    pub disksize: Reading<u64>,
    pub initstate: Reading<u64>,
    pub comp_algorithm: Reading<Selector>,
    pub mm_stat: Reading<MmStat>,
    pub io_stat: Reading<IoStat>,
    pub bd_stat: Reading<BdStat>,
    /// CONFIG_ZRAM_MULTI_COMP: the secondary (recompression) algorithms.
    #[serde(default = "absent")]
    pub recomp_algorithm: Reading<String>,
    /// The writeback device (`none` when unset), CONFIG_ZRAM_WRITEBACK.
    #[serde(default = "absent")]
    pub backing_dev: Reading<String>,
    /// `writeback_limit_enable` (0/1) and `writeback_limit` (4 KiB units, converted to bytes):
    /// with the limit on, writeback stops (EIO) once the budget is spent.
    #[serde(default = "absent")]
    pub writeback_limit_enable: Reading<u64>,
    #[serde(default = "absent")]
    pub writeback_limit_bytes: Reading<u64>,
    /// debugfs `block_state` summed; read only for a device with a backing device or a
    /// recompression algorithm (the findings that need it), as it lists every slot.
    #[serde(default = "absent")]
    pub block_state: Reading<BlockState>,
    /// CLOCK_MONOTONIC (ns) when `block_state` was read: a reading carried from an earlier
    /// sample keeps its own time, so two samples with the same time hold one reading. `None`
    /// without a reading, or in a recording made before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_state_read_ns: Option<u64>,
}

fn absent<T>() -> Reading<T> {
    Err(Unavailable {
        path: String::new(),
        reason: Reason::NotRecorded,
    })
}

/// Every `zram*` device under `ROOT/sys/block`, sorted by number, read at `now_ns`
/// (CLOCK_MONOTONIC: the sample's).
pub fn read_all(root: &Root, now_ns: u64) -> Vec<ZramSample> {
    devices(root)
        .into_iter()
        .map(|n| read_device(root, &n, None, now_ns))
        .collect()
}

/// The zram devices' names (`zram0`, `zram1`, …), in their number's order.
fn devices(root: &Root) -> Vec<String> {
    let block = root.sys("block");
    let Ok(rd) = root.read_dir(&block) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.strip_prefix("zram")
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    names.sort_by_key(|n| n[4..].parse::<u64>().unwrap_or(u64::MAX));
    names
}

/// Every device again, each one's `block_state` carried from `prev` unless its writeback
/// counter (`bd_stat` writes) moved since: a whole `block_state` costs ~0.1 s a GiB stored
/// ([`read_block_state`]), too much for every tick of the dashboard, which reads it whole at its
/// full samples ([`crate::sources::sampler::FULL_EVERY`]). A writeback moves the counter, so
/// the idle pages it took are never carried past it.
pub fn read_all_carrying(root: &Root, prev: &[ZramSample], now_ns: u64) -> Vec<ZramSample> {
    devices(root)
        .into_iter()
        .map(|n| read_device(root, &n, prev.iter().find(|p| p.name == n), now_ns))
        .collect()
}

/// Device `name`; its `block_state` taken from `carry` instead of read where `carry`'s
/// writeback counter is the one read now (with the time it was read); else read at `now_ns`.
pub(crate) fn read_device(
    root: &Root,
    name: &str,
    carry: Option<&ZramSample>,
    now_ns: u64,
) -> ZramSample {
    let dir = root.sys(&format!("block/{name}"));
    let f = |file: &str| dir.join(file);
    let bd_missing =
        &Reason::absent("no writeback support (kernel built without CONFIG_ZRAM_WRITEBACK)");
    let backing_dev = root
        .read_text(&f("backing_dev"), bd_missing)
        .map(|t| t.trim().to_string());
    let has_backing = backing_dev
        .as_ref()
        .is_ok_and(|b| b != "none" && !b.is_empty());
    let recomp = root
        .read_text(
            &f("recomp_algorithm"),
            &Reason::absent("no recompression (kernel built without CONFIG_ZRAM_MULTI_COMP)"),
        )
        .and_then(|t| {
            let t = t.trim();
            if t.is_empty() {
                Err(Unavailable::absent(
                    &f("recomp_algorithm"),
                    "no recompression algorithm set",
                ))
            } else {
                Ok(t.to_string())
            }
        });
    let bd_stat = root
        .read_text(&f("bd_stat"), bd_missing)
        .and_then(|t| parse_bd_stat(&f("bd_stat"), &t));
    let (block_state, block_state_read_ns) = if has_backing || recomp.is_ok() {
        match carry {
            Some(c) if writes_of(&c.bd_stat) == writes_of(&bd_stat) => {
                (c.block_state.clone(), c.block_state_read_ns)
            }
            _ => {
                let read = read_block_state(root, name);
                let at = read.is_ok().then_some(now_ns);
                (read, at)
            }
        }
    } else {
        let not = Err(Unavailable::absent(
            &root.sys(&format!("kernel/debug/zram/{name}/block_state")),
            "not read: no backing device nor recompression algorithm set",
        ));
        (not, None)
    };
    ZramSample {
        name: name.to_string(),
        disksize: root.read_u64(&f("disksize"), &Reason::absent("no disksize file")),
        initstate: root.read_u64(&f("initstate"), &Reason::absent("no initstate file")),
        comp_algorithm: root
            .read_text(
                &f("comp_algorithm"),
                &Reason::absent("no comp_algorithm file"),
            )
            .map(|t| parse_selector(&t)),
        mm_stat: root
            .read_text(
                &f("mm_stat"),
                &Reason::absent("no mm_stat file (kernel older than 4.1)"),
            )
            .and_then(|t| parse_mm_stat(&f("mm_stat"), &t)),
        io_stat: root
            .read_text(&f("io_stat"), &Reason::absent("no io_stat file"))
            .and_then(|t| parse_io_stat(&f("io_stat"), &t)),
        bd_stat,
        backing_dev: backing_dev.clone(),
        writeback_limit_enable: root.read_u64(&f("writeback_limit_enable"), bd_missing),
        writeback_limit_bytes: root
            .read_u64(&f("writeback_limit"), bd_missing)
            .map(|v| v.saturating_mul(FOUR_K)),
        block_state,
        block_state_read_ns,
        recomp_algorithm: recomp,
    }
}

/// A device's writeback counter, when it could be read.
fn writes_of(bd: &Reading<BdStat>) -> Option<u64> {
    bd.as_ref().ok().map(|b| b.bd_writes_bytes)
}

/// The debugfs `block_state` of device `name`, summed as it streams (it holds a line per
/// slot: megabytes on a large device). Its cost grows with what the device stores: a 10 MiB
/// `block_state` (262144 slots, 1 GiB stored) takes a `--once --json` of a tree from 0.01 s to
/// 0.11 s (release build, this parser; the kernel's own printing comes on top live). The reasons where it is missing: not root (0400), debugfs
/// not mounted, or no CONFIG_ZRAM_MEMORY_TRACKING.
pub(crate) fn read_block_state(root: &Root, name: &str) -> Reading<BlockState> {
    let path = root.sys(&format!("kernel/debug/zram/{name}/block_state"));
    let debug_mounted = root
        .read_dir(&root.sys("kernel/debug"))
        .is_ok_and(|mut d| d.next().is_some());
    let absent = if debug_mounted {
        Reason::absent("no debugfs block_state (kernel built without CONFIG_ZRAM_MEMORY_TRACKING)")
    } else {
        Reason::DebugfsNotMounted
    };
    let file = root.open_file(&path, &absent)?;
    parse_block_state(&path, BufReader::new(file.take(BLOCK_STATE_CAP + 1)))
}

/// Sum a `block_state` stream (see [`BlockState`]).
pub fn parse_block_state(path: &Path, mut r: impl BufRead) -> Reading<BlockState> {
    let mut out = BlockState::default();
    let mut line = String::new();
    let mut read = 0u64;
    let mut n = 0usize;
    loop {
        line.clear();
        let got = r.read_line(&mut line).map_err(|e| {
            Unavailable::new(
                path,
                Reason::Unreadable {
                    error: e.to_string(),
                },
            )
        })?;
        if got == 0 {
            break;
        }
        read += got as u64;
        n += 1;
        if read > BLOCK_STATE_CAP {
            return Err(Unavailable::new(
                path,
                Reason::TooLarge {
                    cap: BLOCK_STATE_CAP,
                },
            ));
        }
        let mut words = line.split_whitespace();
        let (Some(_index), Some(_time), Some(flags), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(Unavailable::malformed(
                path,
                Some(n),
                "expected index, access time and flags",
            ));
        };
        if !flags.bytes().all(|b| b == b'.' || b.is_ascii_lowercase()) {
            return Err(Unavailable::malformed(
                path,
                Some(n),
                "flags not letters and dots",
            ));
        }
        let has = |c: u8| flags.as_bytes().contains(&c);
        out.slots += 1;
        if has(b'i') {
            out.idle += 1;
            if !has(b'w') && !has(b's') {
                out.idle_in_ram += 1;
            }
        }
        if has(b'w') {
            out.written_back += 1;
        }
        if has(b'r') || has(b'n') {
            out.recompressed += 1;
        }
    }
    Ok(out)
}

fn numbers(path: &Path, text: &str, min: usize) -> Reading<Vec<u64>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::with_capacity(words.len());
    for w in &words {
        out.push(
            w.parse::<u64>().map_err(|_| {
                Unavailable::malformed(path, Some(1), format!("not a number: {w:?}"))
            })?,
        );
    }
    if out.len() < min {
        return Err(Unavailable::malformed(
            path,
            Some(1),
            format!("expected at least {min} columns, got {}", out.len()),
        ));
    }
    Ok(out)
}

pub fn parse_mm_stat(path: &Path, text: &str) -> Reading<MmStat> {
    let n = numbers(path, text, 7)?;
    Ok(MmStat {
        orig_data_size: n[0],
        compr_data_size: n[1],
        mem_used_total: n[2],
        mem_limit: n[3],
        mem_used_max: n[4],
        same_pages: n[5],
        pages_compacted: n[6],
        huge_pages: n.get(7).copied(),
        huge_pages_since: n.get(8).copied(),
    })
}

pub fn parse_io_stat(path: &Path, text: &str) -> Reading<IoStat> {
    let n = numbers(path, text, 4)?;
    Ok(IoStat {
        failed_reads: n[0],
        failed_writes: n[1],
        invalid_io: n[2],
        notify_free: n[3],
    })
}

/// `bd_stat` and `writeback_limit` count in 4 KiB units whatever PAGE_SIZE is (zram_drv.c
/// `FOUR_K`).
const FOUR_K: u64 = 4096;

pub fn parse_bd_stat(path: &Path, text: &str) -> Reading<BdStat> {
    let n = numbers(path, text, 3)?;
    Ok(BdStat {
        bd_count_bytes: n[0].saturating_mul(FOUR_K),
        bd_reads_bytes: n[1].saturating_mul(FOUR_K),
        bd_writes_bytes: n[2].saturating_mul(FOUR_K),
    })
}

/// `[lzo-rle] lzo lz4` → selected `lzo-rle`. Newer kernels may print `#0: [lzo]` style lines too.
pub fn parse_selector(text: &str) -> Selector {
    let mut sel = Selector::default();
    for w in text.split_whitespace() {
        if w.ends_with(':') {
            continue;
        }
        let (name, chosen) = match w.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            Some(inner) => (inner, true),
            None => (w, false),
        };
        if chosen && sel.selected.is_none() {
            sel.selected = Some(name.to_string());
        }
        sel.options.push(name.to_string());
    }
    sel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector() {
        let s = parse_selector("[lzo-rle] lzo lz4 \n");
        assert_eq!(s.selected.as_deref(), Some("lzo-rle"));
        assert_eq!(s.options, vec!["lzo-rle", "lzo", "lz4"]);
        let t = parse_selector("always [madvise] never");
        assert_eq!(t.selected.as_deref(), Some("madvise"));
    }

    #[test]
    fn mm_stat_nine_columns() {
        let m = parse_mm_stat(
            Path::new("m"),
            "314572800 104857600 109051904        0 109051904     1024        0      512      600\n",
        )
        .unwrap();
        assert_eq!(m.orig_data_size, 314_572_800);
        assert_eq!(m.huge_pages, Some(512));
    }

    #[test]
    fn mm_stat_short_is_malformed() {
        assert!(parse_mm_stat(Path::new("m"), "1 2 3\n").is_err());
    }

    #[test]
    fn bd_stat_is_4k_units() {
        let b = parse_bd_stat(Path::new("b"), "       2        3        4\n").unwrap();
        assert_eq!(b.bd_count_bytes, 8192);
    }

    /// The three layouts the kernels print (6.1: four flags; 6.2-6.x: six; 7.x: seven, with
    /// `p`), told apart by letter.
    #[test]
    fn block_state_letters_not_columns() {
        let text = "           0        12.500000 ...i\n\
                               1        13.000000 .w.i\n\
                               2        14.000000 s..i..\n\
                               3        15.000000 ...hi.\n\
                               4        16.000000 ....ir.\n\
                               5        17.000000 ......n\n";
        let b = parse_block_state(Path::new("b"), text.as_bytes()).unwrap();
        assert_eq!(b.slots, 6);
        assert_eq!(b.idle, 5);
        assert_eq!(b.idle_in_ram, 3);
        assert_eq!(b.written_back, 1);
        assert_eq!(b.recompressed, 2);
        assert!(parse_block_state(Path::new("b"), "1 2\n".as_bytes()).is_err());
        assert!(parse_block_state(Path::new("b"), "1 2 x7\n".as_bytes()).is_err());
    }

    #[test]
    fn idle_fixture_device() {
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-idle",
            env!("CARGO_MANIFEST_DIR")
        ));
        let all = read_all(&root, 0);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].name, "zram0");
        assert_eq!(all[0].mm_stat.as_ref().unwrap().orig_data_size, 0);
        assert!(all[0].bd_stat.is_err());
    }

    /// Between full samples `block_state` is carried while the writeback counter stands, and
    /// read again once it moved (a writeback took idle pages: the carried count is stale).
    #[test]
    fn block_state_is_carried_until_a_writeback() {
        let root = Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/zram-writeback-idle"
        ));
        let fresh = read_all(&root, 1);
        let read = |d: &[ZramSample]| -> Vec<Option<BlockState>> {
            d.iter()
                .map(|z| z.block_state.as_ref().ok().copied())
                .collect()
        };
        assert!(read(&fresh).iter().any(Option::is_some), "{fresh:?}");
        let marked = BlockState {
            slots: 1,
            idle: 1,
            ..BlockState::default()
        };
        let mut prev = fresh.clone();
        for z in &mut prev {
            if z.block_state.is_ok() {
                z.block_state = Ok(marked);
            }
        }
        // The counter as read now: the carried count stays.
        let carried = read_all_carrying(&root, &prev, 2);
        for (c, p) in carried.iter().zip(&prev) {
            assert_eq!(c.block_state.as_ref().ok(), p.block_state.as_ref().ok());
            // With the time it was read.
            assert_eq!(c.block_state_read_ns, p.block_state_read_ns);
        }
        // The counter moved since: read again.
        for z in &mut prev {
            if let Ok(bd) = z.bd_stat.as_mut() {
                bd.bd_writes_bytes += 4096;
            }
        }
        let again = read_all_carrying(&root, &prev, 3);
        assert_eq!(read(&again), read(&fresh));
        assert!(
            again
                .iter()
                .all(|z| z.block_state_read_ns == z.block_state.is_ok().then_some(3))
        );
    }
}
