//! The workload: this same test binary re-executed with `ZSWAPTOP_E2E_ROLE=workload`.
//!
//! Protocol (one line each way, over stdin/stdout):
//! - child prints `ready pid=N` and waits for `go` (the parent moves it into the cgroup first);
//! - child allocates the region, fills it and prints
//!   `filled pages=N zero=Z random=R compressible=C page_size=P`;
//! - then it serves commands until EOF:
//!   `touch P` / `touch A B` (rewrite the first byte of P % of the pages, or of the share from A %
//!   to B %, evenly spread over the kinds),
//!   `resident` (per page kind, how many pages /proc/self/pagemap shows present in RAM; and how
//!   many of all pages have a swap entry),
//!   `verify` (every page still holds what was written), `exit`.
//!
//! Paging out is the harness's job: it has the kernel reclaim the workload's cgroup
//! ([`super::machine::Cgroup::reclaim`]).
//!
//! Page kinds are fixed by index: `i % 10 == 0` zero-filled, `i % 10 == 5` random (incompressible),
//! the other 80 % compressible (one third random bytes, two thirds a repeated pattern).

use std::io::{BufRead, Write};

use anyhow::{Context, Result, anyhow, bail};

pub const ROLE_VAR: &str = "ZSWAPTOP_E2E_ROLE";
pub const ROLE_WORKLOAD: &str = "workload";
pub const SIZE_VAR: &str = "ZSWAPTOP_E2E_WORKLOAD_MIB";
pub const DEFAULT_MIB: usize = 768;
/// `advise`: the advisor's mix of page contents ([`fill_advise_page`]) instead of the default.
pub const MIX_VAR: &str = "ZSWAPTOP_E2E_MIX";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Zero,
    Random,
    Compressible,
}

pub fn kind_of(i: usize) -> Kind {
    match i % 10 {
        0 => Kind::Zero,
        5 => Kind::Random,
        _ => Kind::Compressible,
    }
}

/// xorshift64* — fast, deterministic, good enough to defeat lzo/lz4/zstd.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        // splitmix64 of the seed, never 0
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

const PATTERN: &[u8] = b"zswaptop e2e compressible page: the same words again and again. ";

/// Writes the content of page `i` into `buf` (exactly one page).
pub fn fill_page(i: usize, buf: &mut [u8]) {
    match kind_of(i) {
        Kind::Zero => buf.fill(0),
        Kind::Random => XorShift::new(i as u64).fill(buf),
        Kind::Compressible => {
            let third = (buf.len() / 3) & !7;
            XorShift::new(i as u64).fill(&mut buf[..third]);
            for (j, b) in buf[third..].iter_mut().enumerate() {
                *b = PATTERN[j % PATTERN.len()];
            }
        }
    }
}

/// Words for the text pages of the advisor's mix.
const WORDS: &[&str] = &[
    "the",
    "memory",
    "page",
    "kernel",
    "swap",
    "compressed",
    "pool",
    "of",
    "and",
    "a",
    "process",
    "to",
    "is",
    "in",
    "zswap",
    "zram",
    "ratio",
    "allocator",
    "when",
    "that",
    "reclaim",
    "cache",
    "with",
    "for",
    "file",
    "anonymous",
    "resident",
    "cgroup",
    "limit",
    "writeback",
    "bytes",
];

/// The advisor's mix, by `i % 20`: 10 % zero-filled, 5 % one machine word repeated, 10 % random,
/// 35 % text (words from a small vocabulary, in a pseudo-random order), 30 % structured binary
/// (records of counters, small enums, pointers and doubles), 10 % half text and half zeros.
pub fn fill_advise_page(i: usize, buf: &mut [u8]) {
    let mut rng = XorShift::new(i as u64 ^ 0xad51_5e00);
    let text = |rng: &mut XorShift, out: &mut [u8]| {
        let mut at = 0;
        while at < out.len() {
            let w = WORDS[(rng.next() % WORDS.len() as u64) as usize].as_bytes();
            for &b in w.iter().chain(b" ") {
                if at < out.len() {
                    out[at] = b;
                    at += 1;
                }
            }
        }
    };
    match i % 20 {
        0 | 1 => buf.fill(0),
        2 => {
            let word = (i as u64 | 1).wrapping_mul(0x0101_0101_0101_0101);
            for c in buf.chunks_mut(8) {
                c.copy_from_slice(&word.to_le_bytes()[..c.len()]);
            }
        }
        3 | 4 => rng.fill(buf),
        5..=11 => text(&mut rng, buf),
        12..=17 => {
            for (k, rec) in buf.chunks_mut(32).enumerate() {
                let id = (i * 128 + k) as u32;
                let mut r = [0u8; 32];
                r[..4].copy_from_slice(&id.to_le_bytes());
                r[4..6].copy_from_slice(&((rng.next() % 7) as u16).to_le_bytes());
                r[6..8].copy_from_slice(&((k % 3) as u16).to_le_bytes());
                let ptr = 0x0000_7f3a_1000_0000u64 + (rng.next() % 4096) * 64;
                r[8..16].copy_from_slice(&ptr.to_le_bytes());
                let v = (rng.next() % 100_000) as f64 / 100.0;
                r[16..24].copy_from_slice(&v.to_le_bytes());
                r[24..32].copy_from_slice(&(id as u64 * 1000).to_le_bytes());
                rec.copy_from_slice(&r[..rec.len()]);
            }
        }
        _ => {
            let half = buf.len() / 2;
            text(&mut rng, &mut buf[..half]);
            buf[half..].fill(0);
        }
    }
}

/// Which mix this workload fills with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mix {
    Default,
    Advise,
}

impl Mix {
    fn from_env() -> Mix {
        match std::env::var(MIX_VAR).as_deref() {
            Ok("advise") => Mix::Advise,
            _ => Mix::Default,
        }
    }

    fn fill(self, i: usize, buf: &mut [u8]) {
        match self {
            Mix::Default => fill_page(i, buf),
            Mix::Advise => fill_advise_page(i, buf),
        }
    }

    /// The kind page `i` is counted as (the advisor's mix: zero, random, the rest).
    fn kind(self, i: usize) -> Kind {
        match self {
            Mix::Default => kind_of(i),
            Mix::Advise => match i % 20 {
                0 | 1 => Kind::Zero,
                3 | 4 => Kind::Random,
                _ => Kind::Compressible,
            },
        }
    }

    fn first_byte(self, i: usize, scratch: &mut [u8]) -> u8 {
        match self {
            Mix::Default => first_byte(i),
            Mix::Advise => {
                fill_advise_page(i, scratch);
                scratch[0]
            }
        }
    }
}

/// The first byte of page `i` as [`fill_page`] writes it.
pub fn first_byte(i: usize) -> u8 {
    match kind_of(i) {
        Kind::Zero => 0,
        Kind::Random | Kind::Compressible => XorShift::new(i as u64).next().to_le_bytes()[0],
    }
}

/// Page-aligned anonymous memory: a plain `Vec` (large enough that the allocator maps it
/// afresh, untouched) and the page-aligned stretch of it the workload uses.
struct Region {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl Region {
    fn new(len: usize) -> Result<Self> {
        let ps = super::kernel::page_size() as usize;
        // No THP in this process: zswap and zram then see one small folio per page, and counts
        // are exact.
        nix::sys::prctl::set_thp_disable(true).context("prctl(PR_SET_THP_DISABLE)")?;
        let buf = vec![0u8; len + ps];
        let start = buf.as_ptr().align_offset(ps);
        if start + len > buf.len() {
            bail!("no page-aligned {len} bytes in {} allocated", buf.len());
        }
        Ok(Region { buf, start, len })
    }

    fn bytes(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }

    /// Rewrites one byte so the store (and the page fault it takes) really happens.
    fn write_byte(&mut self, offset: usize, value: u8) {
        *std::hint::black_box(&mut self.bytes()[offset]) = value;
    }

    /// Reads one byte so the load (and the page fault it takes) really happens.
    fn read_byte(&mut self, offset: usize) -> u8 {
        *std::hint::black_box(&self.bytes()[offset])
    }

    /// The region's entries of /proc/self/pagemap, one per page (plain file I/O: 8 bytes per
    /// page at offset `address / page_size * 8`). Bit 63: present in RAM (mapped); bit 62: a swap
    /// entry in the page table. A page still in the swap cache but unmapped counts as swapped
    /// here (mincore(2) would call it resident); the harness's reclaim leaves no such page.
    fn pagemap(&self) -> Result<Vec<u64>> {
        use std::os::unix::fs::FileExt;
        let ps = super::kernel::page_size() as usize;
        let addr = self.buf.as_ptr().addr() + self.start;
        let mut raw = vec![0u8; self.len / ps * 8];
        std::fs::File::open(PAGEMAP)
            .and_then(|f| f.read_exact_at(&mut raw, (addr / ps * 8) as u64))
            .with_context(|| format!("reading {PAGEMAP} at page {:#x}", addr / ps))?;
        Ok(raw
            .as_chunks::<8>()
            .0
            .iter()
            .map(|e| u64::from_ne_bytes(*e))
            .collect())
    }
}

const PAGEMAP: &str = "/proc/self/pagemap";
const PM_PRESENT: u64 = 1 << 63;
const PM_SWAPPED: u64 = 1 << 62;

fn say(out: &mut impl Write, line: &str) -> Result<()> {
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}

/// Entry point of the workload role. Returns when stdin closes or on `exit`.
pub fn run() -> Result<()> {
    let mib: usize = std::env::var(SIZE_VAR)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_MIB);
    let ps = super::kernel::page_size() as usize;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout().lock();
    say(&mut out, &format!("ready pid={}", std::process::id()))?;
    match lines.next() {
        Some(Ok(l)) if l.trim() == "go" => {}
        other => bail!("workload expected 'go', got {other:?}"),
    }
    let pages = mib * 1024 * 1024 / ps;
    let mix = Mix::from_env();
    let mut scratch = vec![0u8; ps];
    let mut region = Region::new(pages * ps)?;
    let (mut zero, mut random, mut compressible) = (0usize, 0usize, 0usize);
    {
        let mem = region.bytes();
        for (i, page) in mem.chunks_mut(ps).enumerate() {
            mix.fill(i, page);
            match mix.kind(i) {
                Kind::Zero => zero += 1,
                Kind::Random => random += 1,
                Kind::Compressible => compressible += 1,
            }
        }
    }
    say(
        &mut out,
        &format!(
            "filled pages={pages} zero={zero} random={random} compressible={compressible} page_size={ps}"
        ),
    )?;
    for line in lines {
        let line = line.context("reading a command")?;
        let mut words = line.split_whitespace();
        match words.next() {
            Some("touch") => {
                // `touch P` = the first P % of every 1000 pages; `touch A B` = from A % to B %.
                let a: usize = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| anyhow!("touch needs a percent"))?;
                let (from, to) = match words.next().and_then(|w| w.parse::<usize>().ok()) {
                    Some(b) => (a, b),
                    None => (0, a),
                };
                let mut n = 0usize;
                for i in 0..pages {
                    if (from..to).contains(&((i / 10) % 100)) {
                        // A pure write of the byte the page already holds: a write fault swaps the
                        // page in and releases its swap slot (a read fault would keep the slot, and
                        // the next reclaim would reuse it on whatever device it was on).
                        let b = mix.first_byte(i, &mut scratch);
                        region.write_byte(i * ps, b);
                        n += 1;
                    }
                }
                say(&mut out, &format!("ok touch pages={n}"))?;
            }
            Some("read") => {
                // `read A B`: a read fault on every page from A % to B % of every 1000. A read
                // swap-in keeps the page in the swap cache while it is mapped again, so it is in
                // both AnonPages and SwapCached (mm/swap_state.c keeps it there while mapped).
                let mut range = words.filter_map(|w| w.parse::<usize>().ok());
                let (from, to) = match (range.next(), range.next()) {
                    (Some(a), Some(b)) => (a, b),
                    _ => bail!("read needs two percents"),
                };
                let (mut n, mut wrong) = (0usize, 0usize);
                for i in 0..pages {
                    if (from..to).contains(&((i / 10) % 100)) {
                        let b = mix.first_byte(i, &mut scratch);
                        wrong += usize::from(region.read_byte(i * ps) != b);
                        n += 1;
                    }
                }
                say(&mut out, &format!("ok read pages={n} wrong={wrong}"))?;
            }
            Some("resident") => {
                let v = region.pagemap()?;
                let (mut z, mut r, mut c) = (0usize, 0usize, 0usize);
                let swapped = v.iter().filter(|e| *e & PM_SWAPPED != 0).count();
                for (i, e) in v.iter().enumerate() {
                    if e & PM_PRESENT != 0 {
                        match mix.kind(i) {
                            Kind::Zero => z += 1,
                            Kind::Random => r += 1,
                            Kind::Compressible => c += 1,
                        }
                    }
                }
                say(
                    &mut out,
                    &format!("resident zero={z} random={r} compressible={c} swapped={swapped}"),
                )?;
            }
            Some("verify") => {
                let mut expect = vec![0u8; ps];
                let mut bad = 0usize;
                let mem = region.bytes();
                for (i, page) in mem.chunks(ps).enumerate() {
                    mix.fill(i, &mut expect);
                    if page != expect.as_slice() {
                        bad += 1;
                    }
                }
                say(&mut out, &format!("ok verify bad={bad}"))?;
            }
            Some("exit") | None => break,
            Some(other) => say(&mut out, &format!("error unknown command {other}"))?,
        }
    }
    Ok(())
}

/// Parses `key=value` words of a workload reply.
pub fn field(line: &str, key: &str) -> Option<u64> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse().ok())
}

/// The parent's handle on a running workload.
pub struct Handle {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    out: std::io::BufReader<std::process::ChildStdout>,
    pub pid: u32,
    pub pages: u64,
    pub zero: u64,
    pub random: u64,
    pub compressible: u64,
}

/// How many pages of each kind are present in RAM (pagemap) at one moment, and how many pages
/// in all have a swap entry instead.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resident {
    pub zero: u64,
    pub random: u64,
    pub compressible: u64,
    pub swapped: u64,
}

impl Handle {
    /// Starts the workload, moves it into the cgroup (via `enter`) before it touches memory,
    /// and waits until its region is filled.
    pub fn spawn(enter: impl FnOnce(u32) -> Result<()>) -> Result<Self> {
        Self::spawn_with(&[], enter)
    }

    /// [`Handle::spawn`] with more environment for the workload (its size, its mix).
    pub fn spawn_with(
        envs: &[(&str, String)],
        enter: impl FnOnce(u32) -> Result<()>,
    ) -> Result<Self> {
        let exe = std::env::current_exe().context("current_exe")?;
        let mut child = std::process::Command::new(exe)
            .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
            .env(ROLE_VAR, ROLE_WORKLOAD)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .context("starting the workload")?;
        let pid = child.id();
        super::machine::set_workload(i32::try_from(pid).ok());
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| anyhow!("workload stdin"))?;
        let out = std::io::BufReader::new(
            child
                .stdout
                .take()
                .ok_or_else(|| anyhow!("workload stdout"))?,
        );
        let mut h = Handle {
            child,
            stdin: Some(stdin),
            out,
            pid,
            pages: 0,
            zero: 0,
            random: 0,
            compressible: 0,
        };
        let ready = h.read_line()?;
        if !ready.starts_with("ready") {
            bail!("workload said {ready:?}");
        }
        enter(pid)?;
        let filled = h.cmd("go")?;
        let get =
            |k| field(&filled, k).ok_or_else(|| anyhow!("workload reply {filled:?} lacks {k}"));
        h.pages = get("pages")?;
        h.zero = get("zero")?;
        h.random = get("random")?;
        h.compressible = get("compressible")?;
        Ok(h)
    }

    fn read_line(&mut self) -> Result<String> {
        let mut line = String::new();
        if self.out.read_line(&mut line)? == 0 {
            bail!("workload {} closed its output (exited?)", self.pid);
        }
        Ok(line.trim().to_string())
    }

    /// Sends one command and returns its one-line reply.
    pub fn cmd(&mut self, command: &str) -> Result<String> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("workload stdin closed"))?;
        writeln!(stdin, "{command}")?;
        stdin.flush()?;
        let reply = self.read_line()?;
        if reply.starts_with("error") {
            bail!("workload: {reply}");
        }
        Ok(reply)
    }

    pub fn resident(&mut self) -> Result<Resident> {
        let r = self.cmd("resident")?;
        let get = |k| field(&r, k).ok_or_else(|| anyhow!("workload reply {r:?} lacks {k}"));
        Ok(Resident {
            zero: get("zero")?,
            random: get("random")?,
            compressible: get("compressible")?,
            swapped: get("swapped")?,
        })
    }

    /// Closes stdin and waits for a clean exit.
    pub fn finish(mut self) -> Result<()> {
        drop(self.stdin.take());
        let status = self.child.wait()?;
        super::machine::set_workload(None);
        if !status.success() {
            bail!("workload exited with {status}");
        }
        Ok(())
    }
}
