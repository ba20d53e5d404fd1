//! The workload: this same test binary re-executed with `ZSWAPTOP_E2E_ROLE=workload`.
//!
//! Protocol (one line each way, over stdin/stdout):
//! - child prints `ready pid=N` and waits for `go` (the parent moves it into the cgroup first);
//! - child allocates the region, fills it and prints
//!   `filled pages=N zero=Z random=R compressible=C page_size=P`;
//! - then it serves commands until EOF:
//!   `pageout` (madvise MADV_PAGEOUT over the whole region),
//!   `touch P` / `touch A B` (rewrite the first byte of P % of the pages, or of the share from A %
//!   to B %, evenly spread over the kinds),
//!   `resident` (mincore residency per page kind),
//!   `verify` (every page still holds what was written), `exit`.
//!
//! Page kinds are fixed by index: `i % 10 == 0` zero-filled, `i % 10 == 5` random (incompressible),
//! the other 80 % compressible (one third random bytes, two thirds a repeated pattern).

use std::io::{BufRead, Write};

use anyhow::{Context, Result, anyhow, bail};

pub const ROLE_VAR: &str = "ZSWAPTOP_E2E_ROLE";
pub const ROLE_WORKLOAD: &str = "workload";
pub const SIZE_VAR: &str = "ZSWAPTOP_E2E_WORKLOAD_MIB";
pub const DEFAULT_MIB: usize = 768;

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

    /// MADV_PAGEOUT over the region. Neither rustix nor nix (nor memmap2) has a safe wrapper for
    /// this advice: it is `unsafe fn` in all of them.
    #[allow(unsafe_code)]
    fn pageout(&mut self) -> Result<()> {
        let mem = self.bytes();
        // SAFETY: the range is our own live, page-aligned allocation, borrowed mutably for the
        // call; MADV_PAGEOUT only reclaims, it never changes what the pages hold.
        let rc = unsafe { libc::madvise(mem.as_mut_ptr().cast(), mem.len(), libc::MADV_PAGEOUT) };
        if rc != 0 {
            bail!("madvise(MADV_PAGEOUT): {}", std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// mincore(2): one byte per page, bit 0 set when resident. No crate wraps mincore safely
    /// (neither rustix nor nix has it at all).
    #[allow(unsafe_code)]
    fn mincore(&mut self) -> Result<Vec<u8>> {
        let ps = super::kernel::page_size() as usize;
        let mem = self.bytes();
        let mut vec = vec![0u8; mem.len().div_ceil(ps)];
        // SAFETY: the range is our own page-aligned allocation; vec has one byte per page of it.
        let rc = unsafe { libc::mincore(mem.as_mut_ptr().cast(), mem.len(), vec.as_mut_ptr()) };
        if rc != 0 {
            bail!("mincore: {}", std::io::Error::last_os_error());
        }
        Ok(vec)
    }
}

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
    let mut region = Region::new(pages * ps)?;
    let (mut zero, mut random, mut compressible) = (0usize, 0usize, 0usize);
    {
        let mem = region.bytes();
        for (i, page) in mem.chunks_mut(ps).enumerate() {
            fill_page(i, page);
            match kind_of(i) {
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
            Some("pageout") => {
                region.pageout()?;
                say(&mut out, "ok pageout")?;
            }
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
                        // the next pageout would reuse it on whatever device it was on).
                        region.write_byte(i * ps, first_byte(i));
                        n += 1;
                    }
                }
                say(&mut out, &format!("ok touch pages={n}"))?;
            }
            Some("resident") => {
                let v = region.mincore()?;
                let (mut z, mut r, mut c) = (0usize, 0usize, 0usize);
                for (i, b) in v.iter().enumerate() {
                    if b & 1 == 1 {
                        match kind_of(i) {
                            Kind::Zero => z += 1,
                            Kind::Random => r += 1,
                            Kind::Compressible => c += 1,
                        }
                    }
                }
                say(
                    &mut out,
                    &format!("resident zero={z} random={r} compressible={c}"),
                )?;
            }
            Some("verify") => {
                let mut expect = vec![0u8; ps];
                let mut bad = 0usize;
                let mem = region.bytes();
                for (i, page) in mem.chunks(ps).enumerate() {
                    fill_page(i, &mut expect);
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

/// How many pages of each kind are resident (mincore) at one moment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resident {
    pub zero: u64,
    pub random: u64,
    pub compressible: u64,
}

impl Handle {
    /// Starts the workload, moves it into the cgroup (via `enter`) before it touches memory,
    /// and waits until its region is filled.
    pub fn spawn(enter: impl FnOnce(u32) -> Result<()>) -> Result<Self> {
        let exe = std::env::current_exe().context("current_exe")?;
        let mut child = std::process::Command::new(exe)
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
