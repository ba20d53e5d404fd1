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
use std::io::{self, BufRead};
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
pub(crate) fn parse_status(pid: u32, text: &str) -> Option<Process> {
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
pub(crate) fn processes(root: &Root, pids: &[u32]) -> io::Result<Vec<Process>> {
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
pub(crate) fn anon_ranges(maps: &str) -> Vec<(u64, u64)> {
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

/// A mapping to sample: its address range and, when `smaps` told it, how many of its pages are
/// anonymous and in RAM (a walk of the mapping stops once it has found that many).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mapping {
    start: u64,
    end: u64,
    anon_pages: Option<u64>,
}

/// The anonymous mappings of a `smaps` text (as [`anon_ranges`]), with their `Anonymous:` pages;
/// a mapping with none in RAM is left out. Read line by line: a process with many mappings has
/// a `smaps` of tens of MiB.
fn smaps_mappings(smaps: impl BufRead, page_size: u64) -> io::Result<Vec<Mapping>> {
    let mut out: Vec<Mapping> = Vec::new();
    let mut current: Option<Mapping> = None;
    let mut line = Vec::new();
    let mut smaps = smaps.take(u64::MAX);
    loop {
        line.clear();
        // A line longer than this is no smaps line (the longest is a header with a path of at
        // most PATH_MAX, 4 KiB, escaped): it is read in pieces that match nothing.
        smaps.set_limit(64 << 10);
        if smaps.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let first = text.split_whitespace().next().unwrap_or("");
        if first.ends_with(':') {
            if first == "Anonymous:"
                && let Some(m) = current.as_mut()
            {
                let kb = text[first.len()..]
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok();
                m.anon_pages = kb.map(|k| k.saturating_mul(1024) / page_size);
            }
            continue;
        }
        out.extend(current.take().filter(|m| m.anon_pages != Some(0)));
        current = anon_ranges(&text).first().map(|&(start, end)| Mapping {
            start,
            end,
            anon_pages: None,
        });
    }
    out.extend(current.filter(|m| m.anon_pages != Some(0)));
    Ok(out)
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

/// The most pagemap entries one walk of a process reads when the kernel has no `PAGEMAP_SCAN`
/// (before Linux 6.7, or a tree's plain file): 2^22 entries, 16 GiB of address space in 4 KiB
/// pages, 32 MiB of entries (about 0.1 s on the project's VM, which reads ~45 million entries a
/// second; a process that reserves 128 TiB would take 12 minutes unbounded). A process with
/// more anonymous memory mapped than that is sampled from its first 16 GiB.
const PAGEMAP_BUDGET: u64 = 1 << 22;

/// `PAGEMAP_SCAN`'s argument (`struct pm_scan_arg`, linux/fs.h).
#[repr(C)]
#[derive(Debug, Default)]
struct ScanArg {
    size: u64,
    flags: u64,
    start: u64,
    end: u64,
    walk_end: u64,
    vec: u64,
    vec_len: u64,
    max_pages: u64,
    category_inverted: u64,
    category_mask: u64,
    category_anyof_mask: u64,
    return_mask: u64,
}

/// A run of pages `PAGEMAP_SCAN` found (`struct page_region`).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct PageRegion {
    start: u64,
    end: u64,
    categories: u64,
}

/// `PAGEMAP_SCAN` categories: the page is present in RAM; it is a file page or shared.
const PAGE_IS_PRESENT: u64 = 1 << 3;
const PAGE_IS_FILE: u64 = 1 << 2;
/// `_IOWR('f', 16, struct pm_scan_arg)`.
const PAGEMAP_SCAN: rustix::ioctl::Opcode = rustix::ioctl::opcode::read_write::<ScanArg>(b'f', 16);
/// Runs `PAGEMAP_SCAN` returns at once.
const REGIONS: usize = 256;

/// Whether the kernel walks the page tables for us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    Untried,
    Works,
    Absent,
}

/// A process's pagemap: where its own pages in RAM are.
struct Pagemap {
    file: File,
    page_size: u64,
    scan: Scan,
    entries: Vec<u8>,
    regions: Vec<PageRegion>,
}

impl Pagemap {
    /// `PAGEMAP_SCAN` from `start` to `end`, at most `max_pages` pages: the runs of this
    /// process's own pages in RAM, pushed to `runs` as (address, pages), and where the walk
    /// stopped. `Err` when the kernel has no such ioctl (or the file is not a kernel's pagemap).
    fn scan(
        &mut self,
        start: u64,
        end: u64,
        max_pages: u64,
        runs: &mut Vec<(u64, u64)>,
    ) -> io::Result<u64> {
        self.regions.clear();
        self.regions.resize(REGIONS, PageRegion::default());
        let mut arg = ScanArg {
            size: std::mem::size_of::<ScanArg>() as u64,
            start,
            end,
            vec: self.regions.as_mut_ptr() as u64,
            vec_len: REGIONS as u64,
            max_pages,
            category_inverted: PAGE_IS_FILE,
            category_mask: PAGE_IS_PRESENT | PAGE_IS_FILE,
            return_mask: PAGE_IS_PRESENT,
            ..ScanArg::default()
        };
        // SAFETY: PAGEMAP_SCAN reads and writes back the `pm_scan_arg` it is given (`ScanArg`,
        // laid out as linux/fs.h's, its `size` field telling its size), and writes at most
        // `vec_len` `page_region`s to `vec`: `self.regions`, of that length, not touched until
        // the call returns. Another file (a tree's plain file, a kernel before 6.7) fails it
        // with ENOTTY and writes nothing.
        #[allow(unsafe_code)]
        unsafe {
            rustix::ioctl::ioctl(
                &self.file,
                rustix::ioctl::Updater::<PAGEMAP_SCAN, ScanArg>::new(&mut arg),
            )?;
        }
        // The regions filled come first; the rest stay zero.
        runs.extend(
            self.regions
                .iter()
                .take_while(|r| r.end > r.start)
                .map(|r| (r.start, (r.end - r.start) / self.page_size)),
        );
        Ok(arg.walk_end.clamp(start, end))
    }

    /// The pagemap entries of `n` pages from `addr` (fewer when the file ends).
    fn entries(&mut self, addr: u64, n: usize) -> io::Result<&[u8]> {
        self.entries.resize(n * 8, 0);
        let at = addr / self.page_size * 8;
        let mut got = 0;
        while got < self.entries.len() {
            match self.file.read_at(&mut self.entries[got..], at + got as u64) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.entries.truncate(got - got % 8);
        Ok(&self.entries)
    }

    /// The runs of this process's own pages in RAM from `at` to `end`, up to `chunk` pages of
    /// them (`PAGEMAP_SCAN`) or of address space (the entries read, taken from `budget`),
    /// pushed to `runs`; and where to go on from, `None` when nothing more can be read.
    fn runs(
        &mut self,
        at: u64,
        end: u64,
        chunk: u64,
        budget: &mut u64,
        runs: &mut Vec<(u64, u64)>,
    ) -> Option<u64> {
        if self.scan != Scan::Absent {
            match self.scan(at, end, chunk, runs) {
                Ok(next) => {
                    self.scan = Scan::Works;
                    return Some(next);
                }
                Err(_) if self.scan == Scan::Untried => self.scan = Scan::Absent,
                Err(_) => return None,
            }
        }
        let ps = self.page_size;
        let pages = ((end - at) / ps).min(chunk).min(*budget);
        if pages == 0 {
            return None;
        }
        let e = self.entries(at, pages as usize).ok()?;
        if e.is_empty() {
            return None;
        }
        *budget -= pages;
        let mut run: Option<(u64, u64)> = None;
        for (i, c) in e.chunks_exact(8).enumerate() {
            let addr = at + i as u64 * ps;
            if !own_present(c) {
                continue;
            }
            match run.as_mut() {
                Some((a, n)) if *a + *n * ps == addr => *n += 1,
                _ => runs.extend(run.replace((addr, 1))),
            }
        }
        runs.extend(run);
        Some(at + (e.len() / 8) as u64 * ps)
    }
}

/// A process's mappings and its pagemap, walked apart from its memory (read as the walk goes).
struct Walker<'a> {
    mappings: &'a [Mapping],
    pagemap: &'a mut Pagemap,
}

impl Walker<'_> {
    /// Call `run` with each run of this process's own pages in RAM (address, pages), mapping
    /// by mapping in address order, until it returns false or `stop` says so. The pagemap is
    /// read `chunk` pages at a time, each right before `run` sees them.
    ///
    /// Returns the pagemap entries read (none with `PAGEMAP_SCAN`).
    fn walk(
        &mut self,
        chunk: u64,
        stop: &dyn Fn() -> bool,
        run: &mut dyn FnMut(u64, u64) -> bool,
    ) -> u64 {
        let mut budget = PAGEMAP_BUDGET;
        let mut runs = Vec::new();
        'mappings: for m in self.mappings {
            let (mut at, mut found) = (m.start, 0);
            while at < m.end && m.anon_pages.is_none_or(|n| found < n) && !stop() {
                runs.clear();
                let Some(next) = self.pagemap.runs(at, m.end, chunk, &mut budget, &mut runs) else {
                    break;
                };
                for &(a, n) in &runs {
                    found += n;
                    if !run(a, n) {
                        break 'mappings;
                    }
                }
                if next <= at {
                    break;
                }
                at = next;
            }
        }
        PAGEMAP_BUDGET - budget
    }
}

/// One process opened for sampling.
pub struct Reader {
    mappings: Vec<Mapping>,
    pagemap: Pagemap,
    mem: File,
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
        let mut reader = Reader {
            mappings: anon_ranges(&maps)
                .into_iter()
                .map(|(start, end)| Mapping {
                    start,
                    end,
                    anon_pages: None,
                })
                .collect(),
            pagemap: Pagemap {
                file: pagemap,
                page_size,
                scan: Scan::Untried,
                entries: Vec::new(),
                regions: Vec::new(),
            },
            mem,
        };
        // Without PAGEMAP_SCAN, every entry of a mapping is read, populated or not: smaps tells
        // which mappings hold anonymous pages in RAM, and how many (read where it can be: a
        // tree may have no smaps).
        if let Some(first) = reader.mappings.first().map(|m| m.start) {
            reader
                .pagemap
                .runs(first, first + page_size, 1, &mut 1, &mut Vec::new());
        }
        if reader.pagemap.scan == Scan::Absent
            && let Ok(smaps) = open(root, &root.proc(&format!("{pid}/smaps")))
            && let Ok(m) = smaps_mappings(io::BufReader::new(smaps), page_size)
        {
            reader.mappings = m;
        }
        Ok(reader)
    }

    /// Pages present in RAM and this process's own, over all its anonymous mappings (stops
    /// early when `stop` says so).
    pub fn count_present(&mut self, stop: &dyn Fn() -> bool) -> u64 {
        let mut n = 0;
        let mut walker = Walker {
            mappings: &self.mappings,
            pagemap: &mut self.pagemap,
        };
        walker.walk(WINDOW as u64 * 128, stop, &mut |_, k| {
            n += k;
            true
        });
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
        let ps = self.pagemap.page_size;
        let mem = &self.mem;
        let mut walker = Walker {
            mappings: &self.mappings,
            pagemap: &mut self.pagemap,
        };
        walker.walk(WINDOW as u64, stop, &mut |a, n| {
            for i in 0..n {
                if taken >= take || stop() {
                    return false;
                }
                seen += 1;
                // Page k of the present ones is taken when ⌊k·take/present⌋ steps.
                if (seen * take).div_ceil(present.max(1)) > taken {
                    taken += 1;
                    match mem.read_exact_at(buf, a + i * ps) {
                        Ok(()) => {
                            read += 1;
                            page(buf);
                        }
                        Err(_) => vanished += 1,
                    }
                }
            }
            taken < take
        });
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

    #[test]
    fn smaps_keeps_the_anonymous_mappings_with_pages_in_ram() {
        let smaps = "\
55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0                          [heap]
Size:                132 kB
Rss:                   8 kB
Anonymous:             8 kB
VmFlags: rd wr mr mw me ac
7f0000000000-7f0000100000 rw-p 00000000 00:00 0 
Size:               1024 kB
Anonymous:             0 kB
7f0000200000-7f0000300000 r--p 00000000 fd:00 42                         /usr/lib/libc.so.6
Anonymous:             4 kB
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]
Anonymous:            12 kB
";
        let m = smaps_mappings(smaps.as_bytes(), 4096).unwrap();
        let got: Vec<_> = m.iter().map(|m| (m.start, m.end, m.anon_pages)).collect();
        assert_eq!(
            got,
            vec![
                (0x55d0_c000_0000, 0x55d0_c002_1000, Some(2)),
                (0x7ffc_0000_0000, 0x7ffc_0002_1000, Some(3)),
            ]
        );
        // A line with no end is read in bounded pieces, and matches nothing.
        let long = format!(
            "{}\n7ffc00000000-7ffc00021000 rw-p 0 00:00 0\n",
            "7".repeat(1 << 20)
        );
        let m = smaps_mappings(long.as_bytes(), 4096).unwrap();
        assert_eq!(m.len(), 1);
    }

    /// Address space reserved and never touched but in a few pages: what AddressSanitizer's
    /// shadow looks like (unmapped on drop).
    struct Sparse {
        at: *mut std::ffi::c_void,
        len: usize,
    }

    #[allow(unsafe_code)]
    impl Sparse {
        fn new(len: usize) -> Sparse {
            use rustix::mm::{MapFlags, ProtFlags, mmap_anonymous};
            // SAFETY: a new private mapping, at an address the kernel chooses.
            let at = unsafe {
                mmap_anonymous(
                    std::ptr::null_mut(),
                    len,
                    ProtFlags::READ | ProtFlags::WRITE,
                    MapFlags::PRIVATE | MapFlags::NORESERVE,
                )
            }
            .unwrap();
            Sparse { at, len }
        }

        fn addr(&self) -> u64 {
            self.at as u64
        }

        /// Write `byte` at offset `off` (which makes its page this process's own, in RAM).
        fn touch(&self, off: usize, byte: u8) {
            assert!(off < self.len);
            // SAFETY: inside the mapping, which lives as long as `self`.
            unsafe { self.at.cast::<u8>().add(off).write_volatile(byte) };
        }
    }

    #[allow(unsafe_code)]
    impl Drop for Sparse {
        fn drop(&mut self) {
            // SAFETY: the mapping `new` made, not used after this.
            let _ = unsafe { rustix::mm::munmap(self.at, self.len) };
        }
    }

    fn own_reader(m: &Sparse) -> Reader {
        let ps = rustix::param::page_size() as u64;
        let mut r = Reader::open(&Root::live(), std::process::id(), ps).unwrap();
        let (a, b) = (m.addr(), m.addr() + m.len as u64);
        // The kernel may have merged it with a neighbour: only its own part is walked.
        r.mappings.retain(|m| m.start < b && m.end > a);
        assert_eq!(r.mappings.len(), 1, "{:?}", r.mappings);
        r.mappings[0].start = a;
        r.mappings[0].end = b;
        r
    }

    /// A stop that comes after `secs`: what the walk would take unbounded (minutes) fails the
    /// test instead of hanging it.
    fn deadline(secs: u64) -> impl Fn() -> bool {
        let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        move || std::time::Instant::now() > end
    }

    /// 16 TiB reserved, 8 pages touched across it: the pages are found and read, and the walk
    /// costs what the pages do, not what the address space does (it took minutes).
    #[test]
    fn a_sparse_giant_costs_its_pages_not_its_address_space() {
        let ps = rustix::param::page_size();
        let len = 16usize << 40;
        let m = Sparse::new(len);
        for k in 0..8 {
            m.touch(k * (len / 8) + 5 * ps, 0xa0 + k as u8);
        }
        let mut r = own_reader(&m);
        if r.pagemap.scan == Scan::Absent {
            // Before Linux 6.7 the walk is bounded instead (the test below).
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"SKIPPED: no PAGEMAP_SCAN in this kernel\n",
            );
            return;
        }
        let stop = deadline(30);
        let present = r.count_present(&stop);
        assert!(!stop(), "counting the pages of 16 TiB took 30 s");
        assert_eq!(present, 8);
        let mut buf = vec![0u8; ps];
        let mut firsts = Vec::new();
        let (read, vanished) = r.read_spread(present, 8, &mut buf, &stop, &mut |p| {
            firsts.push(p[0]);
        });
        assert!(!stop(), "reading 8 pages of 16 TiB took 30 s");
        assert_eq!((read, vanished), (8, 0));
        assert_eq!(firsts, (0xa0..0xa8).collect::<Vec<u8>>());
    }

    /// Without PAGEMAP_SCAN (a kernel before 6.7), the walk reads only mappings smaps shows
    /// holding anonymous pages, stops at as many as it shows, and reads at most
    /// PAGEMAP_BUDGET entries: the page at the far end of 16 TiB is not found, but the walk
    /// ends in a fraction of a second.
    #[test]
    fn without_pagemap_scan_the_pagemap_read_is_bounded() {
        let ps = rustix::param::page_size();
        let len = 16usize << 40;
        let m = Sparse::new(len);
        for k in 0..8 {
            m.touch(k << 30, 1);
        }
        m.touch(len - ps, 1);
        let mut r = own_reader(&m);
        r.pagemap.scan = Scan::Absent;
        let smaps = File::open("/proc/self/smaps").unwrap();
        let all = smaps_mappings(io::BufReader::new(smaps), ps as u64).unwrap();
        let (a, b) = (m.addr(), m.addr() + len as u64);
        let mut mine: Vec<Mapping> = all
            .into_iter()
            .filter(|x| x.start < b && x.end > a)
            .collect();
        assert_eq!(mine.len(), 1, "{mine:?}");
        // The 9 pages, and those of a neighbour the kernel merged it with.
        assert!(mine[0].anon_pages >= Some(9), "{mine:?}");
        (mine[0].start, mine[0].end, mine[0].anon_pages) = (a, b, Some(9));
        r.mappings = mine;
        let stop = deadline(30);
        assert_eq!(r.count_present(&stop), 8);
        assert!(!stop(), "the pagemap read of 16 TiB is not bounded");
        // Stopped by the count smaps gives: with 8, the walk ends at the eighth page, 7 GiB in.
        r.mappings[0].anon_pages = Some(8);
        let mut seen = 0;
        let entries = Walker {
            mappings: &r.mappings,
            pagemap: &mut r.pagemap,
        }
        .walk(WINDOW as u64, &stop, &mut |_, n| {
            seen += n;
            true
        });
        assert_eq!(seen, 8);
        assert!(
            entries <= (7 << 30) / ps as u64 + WINDOW as u64,
            "{entries}"
        );
    }
}
