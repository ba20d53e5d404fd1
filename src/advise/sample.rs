//! Which pages the advisor reads, and reading them: resident anonymous pages of this machine's
//! processes, the biggest swap users first, then the rest by anonymous size, spread evenly over
//! each process's present pages.
//!
//! Only a page `/proc/PID/pagemap` shows present in RAM, and mapped by this process alone (an
//! anonymous page: bit 63 set, bit 61 clear), is read, through `/proc/PID/mem` at the page's
//! address with one `pread`. The pagemap entries of a stretch are read right before its pages,
//! so a page swapped out in between is rare, and a page that vanished (the mapping gone, the
//! process exited) fails the read and is skipped. Reading a page may mark it recently used: it
//! is then less likely to be reclaimed soon. Nothing is written anywhere.
//!
//! Every file is opened through the [`Root`], so a test points the sampler at a tree whose
//! `proc/PID/{status,maps,pagemap,mem}` are plain files.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use crate::error::Reason;
use crate::root::Root;

/// Pagemap: the page is present in RAM.
const PM_PRESENT: u64 = 1 << 63;
/// Pagemap: a file page or a shared anonymous page (not this process's own anonymous page).
const PM_FILE_OR_SHARED: u64 = 1 << 61;
/// Pagemap entries read at once.
const WINDOW: usize = 512;

/// A process as its status file describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    /// Made safe for a terminal ([`crate::sanitize::visible`]).
    pub name: String,
    pub anon_bytes: u64,
    pub swap_bytes: u64,
}

/// Name, RssAnon and VmSwap of a status file; `None` for a kernel thread (no memory of its own)
/// or a file that is not a process's status.
pub fn parse_status(pid: u32, text: &str) -> Option<Process> {
    let (mut name, mut anon, mut swap) = (None, None, 0);
    let kb = |v: &str| {
        v.trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()
            .map(|k| k.saturating_mul(1024))
    };
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        match k {
            "Name" => name = Some(crate::sanitize::visible(v.trim()).into_owned()),
            "RssAnon" => anon = kb(v),
            "VmSwap" => swap = kb(v).unwrap_or(0),
            _ => {}
        }
    }
    Some(Process {
        pid,
        name: name?,
        anon_bytes: anon?,
        swap_bytes: swap,
    })
}

/// The processes to sample, in the order they are sampled: `pids` when given (in that order),
/// else every process but this one, the biggest swap users first, then by anonymous size.
pub fn processes(root: &Root, pids: &[u32]) -> io::Result<Vec<Process>> {
    let listed: Vec<u32> = if pids.is_empty() {
        let mut v = Vec::new();
        for e in root.read_dir(&root.proc(""))? {
            let Ok(e) = e else { continue };
            if let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) {
                v.push(pid);
            }
        }
        let me = std::process::id();
        v.retain(|&p| !(root.is_live() && p == me));
        v
    } else {
        pids.to_vec()
    };
    let mut out: Vec<Process> = listed
        .into_iter()
        .filter_map(|pid| {
            let path = root.proc(&format!("{pid}/status"));
            let text = root.read_text(&path, &Reason::absent("gone")).ok()?;
            parse_status(pid, &text)
        })
        .collect();
    if pids.is_empty() {
        out.sort_by(|a, b| {
            b.swap_bytes
                .cmp(&a.swap_bytes)
                .then(b.anon_bytes.cmp(&a.anon_bytes))
                .then(a.pid.cmp(&b.pid))
        });
    }
    Ok(out)
}

/// The anonymous mappings of a `maps` text: private, with no file (or a `[heap]`, `[stack]`,
/// `[anon:…]` name); the kernel's own (`[vdso]`, `[vvar]`, `[vsyscall]`) left out.
pub fn anon_ranges(maps: &str) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for line in maps.lines() {
        let mut f = line.split_whitespace();
        let (Some(range), Some(perms)) = (f.next(), f.next()) else {
            continue;
        };
        let path = f.nth(3).unwrap_or("");
        let anon = path.is_empty()
            || path == "[heap]"
            || path.starts_with("[stack")
            || path.starts_with("[anon:");
        if !anon || !perms.contains('p') || !perms.starts_with('r') {
            continue;
        }
        let Some((a, b)) = range.split_once('-') else {
            continue;
        };
        if let (Ok(a), Ok(b)) = (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16))
            && a < b
        {
            out.push((a, b));
        }
    }
    out
}

/// Why a process could not be sampled.
#[derive(Debug)]
pub enum Refused {
    /// Its memory is not ours to read (no root, no CAP_SYS_PTRACE).
    Denied,
    /// It is gone, or its files could not be read.
    Gone,
}

/// Open a process file to read: live as it is; in a tree only a regular file inside the tree,
/// without following a last link and without blocking.
fn open(root: &Root, path: &Path) -> io::Result<File> {
    if root.is_live() {
        return File::open(path);
    }
    let real = root.canonicalize(path)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(real)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    Ok(file)
}

fn refused(e: &io::Error) -> Refused {
    if e.kind() == io::ErrorKind::PermissionDenied {
        Refused::Denied
    } else {
        Refused::Gone
    }
}

/// One process opened for sampling.
pub struct Reader {
    ranges: Vec<(u64, u64)>,
    pagemap: File,
    mem: File,
    page_size: u64,
    entries: Vec<u8>,
}

impl Reader {
    pub fn open(root: &Root, pid: u32, page_size: u64) -> Result<Reader, Refused> {
        let maps = root
            .read_text(&root.proc(&format!("{pid}/maps")), &Reason::absent("gone"))
            .map_err(|e| match e.reason {
                Reason::NeedsRoot { .. } => Refused::Denied,
                _ => Refused::Gone,
            })?;
        let pagemap = open(root, &root.proc(&format!("{pid}/pagemap"))).map_err(|e| refused(&e))?;
        let mem = open(root, &root.proc(&format!("{pid}/mem"))).map_err(|e| refused(&e))?;
        Ok(Reader {
            ranges: anon_ranges(&maps),
            pagemap,
            mem,
            page_size,
            entries: Vec::new(),
        })
    }

    /// The pagemap entries of `n` pages from `addr` (fewer when the file ends).
    fn entries(&mut self, addr: u64, n: usize) -> io::Result<&[u8]> {
        self.entries.resize(n * 8, 0);
        let at = addr / self.page_size * 8;
        let mut got = 0;
        while got < self.entries.len() {
            match self
                .pagemap
                .read_at(&mut self.entries[got..], at + got as u64)
            {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.entries.truncate(got - got % 8);
        Ok(&self.entries)
    }

    /// Pages present in RAM and this process's own, over all its anonymous mappings (stops
    /// early when `stop` says so).
    pub fn count_present(&mut self, stop: &dyn Fn() -> bool) -> u64 {
        let mut n = 0;
        for (a, b) in self.ranges.clone() {
            let mut addr = a;
            while addr < b && !stop() {
                let pages = (((b - addr) / self.page_size) as usize).min(WINDOW * 128);
                let Ok(e) = self.entries(addr, pages) else {
                    break;
                };
                if e.is_empty() {
                    break;
                }
                n += e.chunks_exact(8).filter(|c| own_present(c)).count() as u64;
                addr += pages as u64 * self.page_size;
            }
        }
        n
    }

    /// Visit `take` of the `present` pages, evenly spread: `page` is called with each page's
    /// contents (in `buf`, overwritten by the next). Returns the pages read and the pages that
    /// vanished before they could be; stops early when `stop` says so.
    pub fn read_spread(
        &mut self,
        present: u64,
        take: u64,
        buf: &mut [u8],
        stop: &dyn Fn() -> bool,
        page: &mut dyn FnMut(&[u8]),
    ) -> (u64, u64) {
        let (mut seen, mut taken, mut read, mut vanished) = (0u64, 0u64, 0u64, 0u64);
        let ps = self.page_size;
        for (a, b) in self.ranges.clone() {
            let mut addr = a;
            while addr < b && taken < take {
                if stop() {
                    return (read, vanished);
                }
                let pages = (((b - addr) / ps) as usize).min(WINDOW);
                let wanted: Vec<u64> = match self.entries(addr, pages) {
                    Ok(e) if !e.is_empty() => e
                        .chunks_exact(8)
                        .enumerate()
                        .filter(|(_, c)| own_present(c))
                        .filter_map(|(i, _)| {
                            seen += 1;
                            // Page k of the present ones is taken when ⌊k·take/present⌋ steps.
                            let due =
                                taken < take && (seen * take).div_ceil(present.max(1)) > taken;
                            due.then(|| {
                                taken += 1;
                                addr + i as u64 * ps
                            })
                        })
                        .collect(),
                    _ => break,
                };
                for at in wanted {
                    match self.mem.read_exact_at(buf, at) {
                        Ok(()) => {
                            read += 1;
                            page(buf);
                        }
                        Err(_) => vanished += 1,
                    }
                }
                addr += pages as u64 * ps;
            }
        }
        (read, vanished)
    }
}

fn own_present(entry: &[u8]) -> bool {
    let mut b = [0u8; 8];
    b.copy_from_slice(entry);
    let e = u64::from_ne_bytes(b);
    e & PM_PRESENT != 0 && e & PM_FILE_OR_SHARED == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_of_a_process_and_of_a_kernel_thread() {
        let p = parse_status(
            7,
            "Name:\tdb\x1b]0;x\x07\nUmask:\t0022\nRssAnon:\t  2048 kB\nVmSwap:\t     4 kB\n",
        )
        .unwrap();
        assert_eq!(p.name, "db\\x1b]0;x\\x07");
        assert_eq!((p.anon_bytes, p.swap_bytes), (2 << 20, 4096));
        assert!(parse_status(2, "Name:\tkthreadd\nKthread:\t1\n").is_none());
    }

    #[test]
    fn only_private_anonymous_mappings() {
        let maps = "\
55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000100000 rw-p 00000000 00:00 0 
7f0000100000-7f0000200000 rw-s 00000000 00:01 1234                       /dev/zero (deleted)
7f0000200000-7f0000300000 r--p 00000000 fd:00 42                         /usr/lib/libc.so.6
7f0000300000-7f0000400000 rw-p 00000000 00:00 0                          [anon:jemalloc]
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]
7ffc00100000-7ffc00102000 r--p 00000000 00:00 0                          [vvar]
7ffc00102000-7ffc00104000 r-xp 00000000 00:00 0                          [vdso]
7f0000500000-7f0000600000 ---p 00000000 00:00 0 
";
        let r = anon_ranges(maps);
        assert_eq!(
            r,
            vec![
                (0x55d0_c000_0000, 0x55d0_c002_1000),
                (0x7f00_0000_0000, 0x7f00_0010_0000),
                (0x7f00_0030_0000, 0x7f00_0040_0000),
                (0x7ffc_0000_0000, 0x7ffc_0002_1000),
            ]
        );
    }
}
