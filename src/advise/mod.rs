//! `zswaptop advise`: what another compressor would do on this machine's own memory.
//!
//! It samples resident anonymous pages of the machine's processes ([`sample`]), compresses each
//! in memory with every candidate algorithm ([`candidates`], [`codec`]), drops it at once, and
//! turns the compressed sizes into what zswap and zram would spend on them as this kernel
//! handles pages ([`estimate`], with the allocator's size classes from [`zsmalloc`]). The
//! prediction for what runs now is set beside the ratio the kernel achieves ([`report`]), and
//! the data decides a recommendation in the diagnostics' form ([`recommend`]). Page contents are
//! never stored, printed, logged, recorded or exported: only their compressed lengths are kept.

pub mod candidates;
pub mod codec;
pub mod estimate;
pub mod lzo;
pub mod recommend;
pub mod report;
pub mod sample;
pub mod z3fold;
pub mod zbud;
pub mod zsmalloc;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Reason;
use crate::model::Finding;
use crate::root::Root;
use crate::sources::Sample;
use candidates::Candidate;
use codec::Codec;
use estimate::{Allocator, Backend, Fact, Kind, Rules, Stream};
use zsmalloc::Chain;

/// The default sample: 64 MiB of pages.
pub const DEFAULT_SAMPLE: u64 = 64 << 20;

/// What `advise` was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub root: Option<PathBuf>,
    /// Only these processes (in this order); all when empty.
    pub pids: Vec<u32>,
    /// The most bytes of pages to read.
    pub sample_bytes: u64,
    pub json: bool,
}

/// The version of `advise --json`'s shape: raised when a field changes meaning or goes away
/// (a new field does not raise it).
pub const SCHEMA_VERSION: u32 = 1;

/// The JSON document: `{"schema_version": 1, "advise": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Document {
    /// The shape's version ([`SCHEMA_VERSION`]).
    #[schemars(extend("const" = SCHEMA_VERSION))]
    pub schema_version: u32,
    pub advise: Advice,
}

/// Everything `advise` found.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Advice {
    pub sample: SampleSummary,
    pub candidates: Vec<CandidateResult>,
    pub current: Vec<Current>,
    /// The kernel behaviours the estimates rely on, with how each was learned.
    pub kernel: Vec<Fact>,
    pub recommendations: Vec<Finding>,
}

/// What was sampled (counts only: no page content).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SampleSummary {
    pub pages: u64,
    pub bytes: u64,
    pub processes: u64,
    pub zero_pages: u64,
    pub same_filled_pages: u64,
    /// Pages that vanished between their pagemap entry and their read.
    pub vanished_pages: u64,
    /// Processes whose memory could not be read (gone, or not ours to read).
    pub skipped_processes: u64,
    /// False when interrupted (Ctrl-C): the figures are of what was read until then.
    pub complete: bool,
    pub page_size: u64,
    /// CPU time of the run (this process, user + system).
    #[schemars(range(min = 0))]
    pub cpu_seconds: Option<f64>,
    /// The sampled processes, most pages first: pid, name (made safe), pages read.
    pub process_list: Vec<SampledProcess>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SampledProcess {
    pub pid: u32,
    pub name: String,
    pub pages: u64,
}

/// One algorithm on one backend.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CandidateResult {
    pub name: String,
    pub backend: Backend,
    pub in_kernel: bool,
    /// What zswap (or a zram device) runs now.
    pub running: bool,
    pub estimated: bool,
    /// The allocator the backend keeps its pages in (zswap's `zpool`; zram's is zsmalloc).
    pub allocator: Allocator,
    /// Predicted stored ÷ pool, as zswaptop defines the kernel's ratio, for a pool of
    /// `pool_basis_bytes` of the sample's pages.
    #[schemars(range(min = 0))]
    pub ratio: Option<f64>,
    /// zswap on zbud or z3fold: the ratio the same pages would reach in zsmalloc.
    #[schemars(range(min = 0))]
    pub zsmalloc_ratio: Option<f64>,
    /// Predicted pool for what the backend stores now (or, when it stores nothing, for the
    /// sample): see `pool_basis`.
    pub pool_bytes: Option<u64>,
    /// The uncompressed bytes `pool_bytes` is for, and what they are.
    pub pool_basis_bytes: Option<u64>,
    pub pool_basis: Option<String>,
    /// Share of the sample's stored pages kept whole (did not compress enough).
    #[schemars(range(min = 0, max = 1))]
    pub whole_share: Option<f64>,
    /// Pages the backend would refuse (zswap before 6.18: they go to the swap device).
    pub refused_pages: Option<u64>,
    /// Measured in this process, over the sample's pages.
    #[schemars(range(min = 0))]
    pub compress_mib_s: Option<f64>,
    #[schemars(range(min = 0))]
    pub decompress_mib_s: Option<f64>,
    /// CPU per page to compress, relative to the algorithm the backend runs now.
    #[schemars(range(min = 0))]
    pub compress_cpu_relative: Option<f64>,
    /// Why not estimated; or how to get it when the kernel lacks it.
    pub reason: Option<String>,
}

/// The prediction for what runs now beside what the kernel achieves.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Current {
    pub backend: Backend,
    /// zram: the device.
    pub device: Option<String>,
    pub name: String,
    /// stored ÷ pool now (Zswapped ÷ Zswap; zram orig_data_size ÷ mem_used_total).
    #[schemars(range(min = 0))]
    pub achieved_ratio: Option<f64>,
    #[schemars(range(min = 0))]
    pub predicted_ratio: Option<f64>,
    /// (predicted − achieved) ÷ achieved, in percent.
    pub difference_percent: Option<f64>,
    /// The uncompressed bytes the backend holds now.
    pub stored_bytes: Option<u64>,
    /// Why the two differ, when they differ by more than 10 %; or why one is missing.
    pub note: Option<String>,
}

/// What sampling measured per algorithm.
struct Measured {
    codec: Codec,
    /// Compress one page in this many ([`Codec::stride`], or 1 where the pool's order matters).
    stride: usize,
    /// The pages it compressed, in the order read.
    stream: Stream,
    /// The compressed length of a zero-filled page (every one is the same), once known.
    zero_len: Option<Option<usize>>,
    compress: Duration,
    compressed_bytes_in: u64,
    decompress: Duration,
    decompressed_bytes: u64,
}

impl Measured {
    /// One for each algorithm of `names` that has an implementation. `every_page` when zswap
    /// runs zbud or z3fold: their pools are simulated page by page in the order read, and a
    /// slow algorithm's one page in two packs otherwise than the whole. On the kernel matrix's
    /// workload (a 20-page period of zero, same-filled, random, text and record pages, 4096
    /// pages) with the 6.1 kernel's own deflate lengths, z3fold held every page at 3.00, one
    /// page in two at 3.10 to 3.18 (four choices of the hash): the 6.1 guest's 3.16 against
    /// the 3.00 it achieved. zsmalloc counts objects per class, which any fair half keeps.
    fn all(names: &[&str], every_page: bool) -> Vec<Measured> {
        names
            .iter()
            .filter_map(|n| Codec::new(n))
            .map(|codec| Measured {
                stride: if every_page { 1 } else { codec.stride() },
                stream: Stream::new(if every_page { 1 } else { codec.stride() } as u64),
                zero_len: None,
                codec,
                compress: Duration::ZERO,
                compressed_bytes_in: 0,
                decompress: Duration::ZERO,
                decompressed_bytes: 0,
            })
            .collect()
    }
}

/// Decompress one page in this many (for the speed), the rest are only compressed.
const DECOMPRESS_EVERY: usize = 4;
/// Pages compressed together, so that each algorithm's CPU time is read once per batch (a
/// thread-CPU clock read is a system call: per page and algorithm it would cost more than lz4).
const BATCH: usize = 32;

/// The CPU time this thread has used (compression is timed in CPU, not wall time: the speeds
/// must not depend on what else the machine runs).
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// A fixed mix of the bits of `n` (splitmix64's finaliser).
fn spread(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A few pages held while every algorithm compresses them, then overwritten.
struct Batch {
    page_size: usize,
    pages: Vec<u8>,
    kinds: Vec<Kind>,
    /// Each page's number in the sample, for choosing the pages a slow algorithm compresses.
    numbers: Vec<u64>,
    next_number: u64,
    /// The compressed copies of the pages decompressed for the speed, and the output.
    kept: Vec<Vec<u8>>,
    out: Vec<u8>,
}

impl Batch {
    fn new(page_size: usize) -> Batch {
        Batch {
            page_size,
            pages: Vec::with_capacity(BATCH * page_size),
            kinds: Vec::with_capacity(BATCH),
            numbers: Vec::with_capacity(BATCH),
            next_number: 0,
            kept: Vec::new(),
            out: Vec::new(),
        }
    }

    fn push(&mut self, page: &[u8], kind: Kind) {
        self.pages.extend_from_slice(page);
        self.kinds.push(kind);
        self.numbers.push(self.next_number);
        self.next_number += 1;
    }

    fn full(&self) -> bool {
        self.kinds.len() >= BATCH
    }

    /// Compress every page with every algorithm (and decompress one in [`DECOMPRESS_EVERY`]),
    /// keep the lengths and times, and wipe the pages and every copy.
    fn run(&mut self, measured: &mut [Measured]) {
        let ps = self.page_size;
        for m in measured.iter_mut() {
            self.kept.clear();
            let stride = m.stride;
            let t = thread_cpu();
            let mut done = 0u64;
            let pages = self
                .pages
                .chunks_exact(ps)
                .zip(&self.kinds)
                .zip(&self.numbers);
            for ((page, kind), &number) in pages {
                // One page in `stride`, chosen by a hash of its number: a stride over positions
                // would follow any period in the data (every other page of an array).
                if stride > 1 && !spread(number).is_multiple_of(stride as u64) {
                    continue;
                }
                // Each page compressed stands for `stride` pages of the sample (the stream's
                // weight). Every zero-filled page compresses alike: once is enough.
                if *kind == Kind::Zero {
                    let out = &mut self.out;
                    let len = *m
                        .zero_len
                        .get_or_insert_with(|| m.codec.compress(page, out));
                    m.stream.push(Kind::Zero, len);
                    continue;
                }
                let len = m.codec.compress(page, &mut self.out);
                m.stream.push(*kind, len);
                done += 1;
                if len.is_some() && done % DECOMPRESS_EVERY as u64 == 1 {
                    self.kept.push(std::mem::take(&mut self.out));
                }
            }
            m.compress += thread_cpu().saturating_sub(t);
            m.compressed_bytes_in += done * ps as u64;
            let t = thread_cpu();
            let mut ok = 0;
            for z in &self.kept {
                ok += usize::from(m.codec.decompress(z, &mut self.out, ps));
            }
            m.decompress += thread_cpu().saturating_sub(t);
            m.decompressed_bytes += (ok * ps) as u64;
            for z in &mut self.kept {
                z.fill(0);
            }
        }
        self.pages.fill(0);
        self.pages.clear();
        self.kinds.clear();
        self.numbers.clear();
        self.out.fill(0);
    }
}

/// `zswaptop advise`.
pub(crate) fn run(opts: &Options, out: &mut dyn Write) -> anyhow::Result<()> {
    let root = opts.root.clone().map(Root::at).unwrap_or_else(Root::live);
    if root.is_live() && !may_read_others() {
        bail!(
            "advise reads other processes' memory (/proc/PID/mem): it needs root, or \
             CAP_SYS_PTRACE (ptrace access mode PTRACE_MODE_ATTACH_FSCREDS); run `sudo zswaptop \
             advise`"
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut hooks = Vec::new();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Ok(id) = signal_hook::flag::register(sig, Arc::clone(&stop)) {
            hooks.push(id);
        }
    }
    let advice = advise(&root, opts, &stop);
    for id in hooks {
        signal_hook::low_level::unregister(id);
    }
    let advice = advice?;
    if !advice.sample.complete {
        crate::console::note(format_args!(
            "interrupted: the figures are of the {} pages read until then",
            advice.sample.pages
        ));
    }
    let written = if opts.json {
        crate::report::json::serialize(
            &Document {
                schema_version: SCHEMA_VERSION,
                advise: advice,
            },
            crate::report::json::Layout::Pretty,
            out,
        )
    } else {
        report::write_text(&advice, text_width(), out)
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing the advice"),
    }
}

/// The width the text report is wrapped to: the terminal's when stdout is one, else 80.
fn text_width() -> usize {
    rustix::termios::tcgetwinsize(std::io::stdout())
        .ok()
        .map(|w| usize::from(w.ws_col))
        .filter(|&c| c > 0)
        .unwrap_or(crate::report::text::WIDTH)
}

/// Root, or a process holding CAP_SYS_PTRACE (bit 19 of CapEff).
fn may_read_others() -> bool {
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        })
        .is_some_and(|caps| caps & (1 << 19) != 0)
}

/// Sample, estimate and judge (no output).
pub(crate) fn advise(root: &Root, opts: &Options, stop: &AtomicBool) -> anyhow::Result<Advice> {
    let kernel = crate::sources::sampler::Sampler::full(root.clone());
    let mut source = kernel;
    let sample = crate::sources::sampler::SampleSource::next(
        &mut source,
        None,
        crate::sources::Extras::default(),
    );
    let snap = crate::pipeline::snapshot(&sample, None);
    let rules = rules(root, &sample);
    let ps = rules.page_size;
    // zsmalloc needs pages under 256 KiB (HAVE_ZSMALLOC: PAGE_SIZE_LESS_THAN_256KB); a tree
    // saying otherwise is not a kernel zswap or zram runs on (and a page buffer that size would
    // be allocated).
    if !(4096..(256 << 10)).contains(&ps) {
        bail!(
            "page size {ps} ({}): zswap and zram run only with pages of 4 KiB to 128 KiB",
            sample.host.page_size.source
        );
    }

    let crypto = sample.crypto.as_ref().as_ref().ok().map(Vec::as_slice);
    let modules = candidates::Modules::read(root, sample.host.kernel.as_deref());
    let cands = candidates::list(
        crypto,
        snap.zswap.compressor.as_deref(),
        snap.zswap.available,
        &sample.zram,
        modules.as_ref(),
    );
    let mut names: Vec<&'static str> = Vec::new();
    for c in &cands {
        if let Some(codec) = Codec::new(&c.name)
            && !names.contains(&codec.name)
        {
            names.push(codec.name);
        }
    }
    let every_page = snap.zswap.available && rules.zswap_allocator != Allocator::Zsmalloc;
    let mut measured = Measured::all(&names, every_page);

    let procs = sample::processes(root, &opts.pids)
        .with_context(|| format!("listing the processes in {}", root.proc("").display()))?;
    if procs.is_empty() {
        bail!("no process to sample (none has anonymous memory, or the pids given do not exist)");
    }
    let budget = (opts.sample_bytes / ps).max(1);
    let progress = progress_bar(budget);
    let mut summary = SampleSummary {
        pages: 0,
        bytes: 0,
        processes: 0,
        zero_pages: 0,
        same_filled_pages: 0,
        vanished_pages: 0,
        skipped_processes: 0,
        complete: true,
        page_size: ps,
        cpu_seconds: None,
        process_list: Vec::new(),
    };
    let mut denied = 0;
    let mut buf = vec![0u8; ps as usize];
    let mut batch = Batch::new(ps as usize);
    let stopped = || stop.load(Ordering::Relaxed);
    for (i, p) in procs.iter().enumerate() {
        let left = budget - summary.pages;
        if left == 0 || stopped() {
            break;
        }
        let mut reader = match sample::Reader::open(root, p.pid, ps) {
            Ok(r) => r,
            Err(why) => {
                summary.skipped_processes += 1;
                if matches!(why, sample::Refused::Denied) {
                    denied += 1;
                }
                continue;
            }
        };
        let present = reader.count_present(&stopped);
        if present == 0 {
            continue;
        }
        // Half of what is left for each process but the last, so that one large process does
        // not make the whole sample.
        let share = if i + 1 == procs.len() {
            left
        } else {
            left.div_ceil(2)
        };
        let take = present.min(share);
        let (read, vanished) = reader.read_spread(present, take, &mut buf, &stopped, &mut |page| {
            let kind = estimate::kind(page);
            match kind {
                Kind::Zero => summary.zero_pages += 1,
                Kind::SameFilled => summary.same_filled_pages += 1,
                Kind::Data => {}
            }
            batch.push(page, kind);
            if batch.full() {
                batch.run(&mut measured);
            }
            progress.inc(1);
        });
        summary.pages += read;
        summary.vanished_pages += vanished;
        if read > 0 {
            summary.processes += 1;
            summary.process_list.push(SampledProcess {
                pid: p.pid,
                name: p.name.clone(),
                pages: read,
            });
        }
    }
    batch.run(&mut measured);
    buf.fill(0);
    progress.finish_and_clear();
    summary.complete = !stopped();
    if summary.pages == 0 {
        if denied > 0 && denied == summary.skipped_processes {
            bail!(
                "no process's memory could be read: reading /proc/PID/mem needs root, or \
                 CAP_SYS_PTRACE (ptrace access mode PTRACE_MODE_ATTACH_FSCREDS)"
            );
        }
        if !summary.complete {
            bail!("interrupted before any page was read");
        }
        bail!("no resident anonymous page found to sample in the processes chosen");
    }
    summary.bytes = summary.pages * ps;
    summary
        .process_list
        .sort_by_key(|p| std::cmp::Reverse(p.pages));
    summary.cpu_seconds = cpu_seconds();

    let results = results(&cands, &measured, &rules, &summary, &snap, &opts.pids);
    let current = report::calibrate(&results, &snap, &rules, &summary);
    let recommendations = recommend::recommend(&results, &current, &snap, &summary, &rules);
    Ok(Advice {
        sample: summary,
        candidates: results,
        current,
        kernel: rules.facts,
        recommendations,
    })
}

/// Compress `pages` (whole pages of `page_size`) with each of the algorithms `names` as a
/// sample is compressed (batches, one page in four also decompressed); the compressed bytes of
/// each. What the bench times.
pub fn compress_pages(names: &[&str], pages: &[u8], page_size: usize) -> Vec<u64> {
    let mut measured = Measured::all(names, false);
    let mut batch = Batch::new(page_size);
    for page in pages.chunks_exact(page_size) {
        batch.push(page, estimate::kind(page));
        if batch.full() {
            batch.run(&mut measured);
        }
    }
    batch.run(&mut measured);
    measured.iter().map(|m| m.stream.data_bytes()).collect()
}

/// A bar on stderr when it is a terminal; hidden otherwise.
fn progress_bar(pages: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(pages),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("sampling {bar:40} {pos}/{len} pages {msg}")
    {
        bar.set_style(style);
    }
    bar.set_message("(Ctrl-C stops and reports what was read)");
    bar
}

/// CPU time of this process so far.
fn cpu_seconds() -> Option<f64> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Some(t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

const MIB: f64 = 1024.0 * 1024.0;

/// What each candidate would do.
fn results(
    cands: &[Candidate],
    measured: &[Measured],
    rules: &Rules,
    summary: &SampleSummary,
    snap: &crate::model::Snapshot,
    pids: &[u32],
) -> Vec<CandidateResult> {
    let ps = rules.page_size;
    let speed = |d: Duration, bytes: u64| {
        (bytes > 0 && !d.is_zero()).then(|| bytes as f64 / MIB / d.as_secs_f64())
    };
    let per_page = |m: &Measured| {
        (m.compressed_bytes_in > 0)
            .then(|| m.compress.as_secs_f64() / (m.compressed_bytes_in / ps) as f64)
    };
    let running_cost = |backend: Backend| {
        cands
            .iter()
            .find(|c| c.backend == backend && c.running)
            .and_then(|c| measured.iter().find(|m| m.codec.name == c.name))
            .and_then(per_page)
    };
    // With --pid the sample is of those processes only: what the backend holds now is other
    // processes' data too, so the pool is predicted for what was sampled.
    let stored_now = |backend: Backend| match backend {
        _ if !pids.is_empty() => None,
        Backend::Zswap => snap.zswap.stored_bytes.filter(|&s| s > 0),
        Backend::Zram => {
            let s: u64 = snap
                .zram
                .iter()
                .filter(|z| z.is_swap)
                .filter_map(|z| z.orig_data_bytes)
                .sum();
            (s > 0).then_some(s)
        }
    };
    cands
        .iter()
        .map(|c| {
            let m = measured.iter().find(|m| m.codec.name == c.name);
            let reason = match (m, codec::not_estimated(&c.name)) {
                (None, Some(r)) => Some(r.to_string()),
                (None, None) => Some("not measured".to_string()),
                (Some(_), _) => c.how.clone(),
            };
            let mut r = CandidateResult {
                name: c.name.clone(),
                backend: c.backend,
                in_kernel: c.in_kernel,
                running: c.running,
                estimated: m.is_some(),
                allocator: match c.backend {
                    Backend::Zswap => rules.zswap_allocator,
                    Backend::Zram => Allocator::Zsmalloc,
                },
                ratio: None,
                zsmalloc_ratio: None,
                pool_bytes: None,
                pool_basis_bytes: None,
                pool_basis: None,
                whole_share: None,
                refused_pages: None,
                compress_mib_s: None,
                decompress_mib_s: None,
                compress_cpu_relative: None,
                reason,
            };
            let Some(m) = m else { return r };
            let e = estimate::estimate(c.backend, rules, &m.stream);
            r.whole_share =
                (e.stored_pages > 0).then(|| e.whole_pages as f64 / e.stored_pages as f64);
            r.refused_pages = Some(e.refused_pages);
            let (basis, what) = match stored_now(c.backend) {
                Some(s) => (s, format!("stored in {} now", c.backend.name())),
                None if !pids.is_empty() => (
                    e.stored_pages * ps,
                    format!(
                        "the sampled {} pages it would store",
                        if summary.processes == 1 {
                            "process's"
                        } else {
                            "processes'"
                        }
                    ),
                ),
                None => (e.stored_pages * ps, "the sample's stored pages".to_string()),
            };
            // The ratio of a pool of the basis's size (zsmalloc's last zspage of each class
            // weighs less in a larger pool).
            r.ratio = e.ratio_for(ps, basis / ps);
            if r.allocator != Allocator::Zsmalloc {
                let zsmalloc = Rules {
                    zswap_allocator: Allocator::Zsmalloc,
                    ..rules.clone()
                };
                r.zsmalloc_ratio =
                    estimate::estimate(c.backend, &zsmalloc, &m.stream).ratio_for(ps, basis / ps);
            }
            r.pool_basis_bytes = Some(basis);
            r.pool_basis = Some(what);
            r.pool_bytes = r.ratio.map(|ratio| (basis as f64 / ratio).round() as u64);
            r.compress_mib_s = speed(m.compress, m.compressed_bytes_in);
            r.decompress_mib_s = speed(m.decompress, m.decompressed_bytes);
            r.compress_cpu_relative = match (per_page(m), running_cost(c.backend)) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            };
            r
        })
        .collect()
}

/// The kernel's version, `(major, minor)`, from its release (`6.1.0-28-amd64`).
fn version(release: Option<&str>) -> Option<(u32, u32)> {
    let mut parts = release?.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// How this kernel treats pages around the compressor, each fact from what the kernel shows.
pub(crate) fn rules(root: &Root, sample: &Sample) -> Rules {
    let ps = sample.host.page_size.bytes;
    let release = sample.host.kernel.as_deref();
    let version = version(release);
    let release_said = release.map_or_else(
        || "kernel release unknown".to_string(),
        |r| format!("kernel {}", crate::sanitize::visible(r)),
    );
    let mut facts = Vec::new();
    let vmstat = sample.vmstat.as_ref().ok();
    let debugfs = sample.zswap_debugfs.as_ref().ok();
    let params = sample.zswap_params.as_ref().ok();
    let param = |k: &str| params.and_then(|p| p.values.get(k)).map(String::as_str);
    let dbg_has = |k: &str| debugfs.map(|d| d.values.contains_key(k));
    let zero_map = vmstat.is_some_and(|v| v.swpout_zero.is_some());
    facts.push(Fact {
        fact: if zero_map {
            "zero-filled pages stay in the swap layer's zero map: they never reach zswap or zram"
        } else {
            "zero-filled pages reach zswap and zram (zram keeps them as a value; zswap as the \
             same-filled rule below says)"
        }
        .into(),
        evidence: format!(
            "/proc/vmstat {} swpout_zero",
            if zero_map { "has" } else { "has no" }
        ),
        source: "mm/page_io.c (swap_writeout: the zero map, 6.12+)".into(),
    });
    // 6.1 has a switch for it (same_filled_pages_enabled, default Y); without the switch, the
    // debugfs counter tells; without debugfs, the zero map's absence.
    let (same, same_ev) = match (
        param("same_filled_pages_enabled"),
        dbg_has("same_filled_pages"),
    ) {
        (Some(v), _) => (
            v == "Y",
            format!(
                "/sys/module/zswap/parameters/same_filled_pages_enabled = {}",
                crate::sanitize::visible(v)
            ),
        ),
        (None, Some(true)) => (true, "zswap debugfs has same_filled_pages".to_string()),
        (None, Some(false)) => (false, "zswap debugfs has no same_filled_pages".to_string()),
        (None, None) => (
            !zero_map,
            format!(
                "zswap debugfs not readable; inferred from the zero map ({})",
                if zero_map {
                    "present: same-filled handling left zswap with it, 6.12"
                } else {
                    "absent"
                }
            ),
        ),
    };
    facts.push(Fact {
        fact: if same {
            "zswap keeps same-filled and zero-filled pages as a value, without pool memory \
             (6.10–6.11: zero-filled pages only)"
        } else {
            "zswap compresses same-filled pages like any other"
        }
        .into(),
        evidence: same_ev,
        source: "mm/zswap.c (zswap_frontswap_store / zswap_store: same-filled pages, up to 6.11)"
            .into(),
    });
    let non_same = param("non_same_filled_pages_enabled").is_none_or(|v| v == "Y");
    if !non_same {
        facts.push(Fact {
            fact: "zswap stores only same-filled pages: every other page goes to the swap device"
                .into(),
            evidence: "/sys/module/zswap/parameters/non_same_filled_pages_enabled = N".into(),
            source: "mm/zswap.c (zswap_frontswap_store, 6.1)".into(),
        });
    }
    let (whole, whole_ev) = match dbg_has("stored_incompressible_pages") {
        Some(v) => (
            v,
            format!(
                "zswap debugfs {} stored_incompressible_pages",
                if v { "has" } else { "has no" }
            ),
        ),
        None => (
            true,
            "assumed (zswap debugfs not readable: `sudo mount -t debugfs none /sys/kernel/debug`)"
                .to_string(),
        ),
    };
    facts.push(Fact {
        fact: if whole {
            "zswap stores a page that does not compress below a page whole (a page of pool)"
        } else {
            "zswap refuses a page that does not compress below a page (it goes to the swap device)"
        }
        .into(),
        evidence: whole_ev,
        source: "mm/zswap.c (zswap_compress: dlen >= PAGE_SIZE stored as-is, 6.18+)".into(),
    });
    let (allocator, alloc_ev) = zswap_allocator(params.is_some(), param("zpool"));
    facts.push(allocator_fact(allocator, alloc_ev, ps));
    let mut rules = Rules {
        page_size: ps,
        zsmalloc_chain: Chain::Config(8),
        zswap_allocator: allocator,
        kernel_version: version,
        zero_map,
        zswap_same_filled: same,
        zswap_non_same_filled: non_same,
        zswap_stores_incompressible: whole,
        facts: Vec::new(),
    };
    let header = rules.zswap_header(allocator);
    if header > 0 || version.is_none() {
        facts.push(Fact {
            fact: if header > 0 {
                format!(
                    "zswap writes an {header}-byte header (the swap entry) before each compressed \
                     page in its {} pool",
                    allocator.name()
                )
            } else {
                "zswap writes no header before a compressed page (assumed: 6.5 and later)".into()
            },
            evidence: release_said.clone(),
            source: "mm/zswap.c (zswap_frontswap_store: hlen = zpool_evictable() ? \
                     sizeof(struct zswap_header) : 0; the header went in 6.5)"
                .into(),
        });
    }
    facts.push(Fact {
        fact: "zram keeps same-filled pages as a value (mm_stat same_pages) and stores a page \
               whose compressed length reaches zsmalloc's huge class size whole (huge_pages)"
            .into(),
        evidence: "zram mm_stat columns 6 and 8".into(),
        source: "drivers/block/zram/zram_drv.c (zram_write_page, write_incompressible_page)".into(),
    });
    let (chain, chain_ev) = zsmalloc_chain(root, release, version);
    let zs = zsmalloc::Zsmalloc::new(ps as usize, chain);
    facts.push(Fact {
        fact: format!(
            "zsmalloc: {}-byte pages, size classes every {} bytes, up to {} pages per zspage \
             ({}), 8-byte handle per object, huge class from {} bytes",
            ps,
            ps >> 8,
            chain.max(),
            match chain {
                Chain::Before6_3 => "the most used in whole percent, as before 6.3",
                Chain::Config(_) => "the least waste",
            },
            zs.huge_class_size()
        ),
        evidence: format!(
            "page size {} ({}); {chain_ev}",
            ps, sample.host.page_size.source
        ),
        source: match chain {
            Chain::Before6_3 => "mm/zsmalloc.c (zs_create_pool, get_pages_per_zspage, zs_malloc)",
            Chain::Config(_) => {
                "mm/zsmalloc.c (zs_create_pool, calculate_zspage_chain_size, zs_malloc)"
            }
        }
        .into(),
    });
    rules.zsmalloc_chain = chain;
    rules.facts = facts;
    rules
}

/// zswap's allocator, by presence: its `zpool` parameter names it; where the parameter is gone
/// (6.18+), zsmalloc is the only one. With how it was learned.
fn zswap_allocator(params_read: bool, zpool: Option<&str>) -> (Allocator, String) {
    match zpool {
        Some(name) => match Allocator::parse(name) {
            Some(a) => (a, format!("/sys/module/zswap/parameters/zpool = {name}")),
            None => (
                Allocator::Zsmalloc,
                format!(
                    "/sys/module/zswap/parameters/zpool = {}: not an allocator modelled here, \
                     estimated as zsmalloc",
                    crate::sanitize::visible(name)
                ),
            ),
        },
        None if params_read => (
            Allocator::Zsmalloc,
            "no zpool parameter in /sys/module/zswap/parameters: zsmalloc is zswap's only \
             allocator"
                .into(),
        ),
        None => (
            Allocator::Zsmalloc,
            "assumed (zswap's parameters not readable)".into(),
        ),
    }
}

fn allocator_fact(allocator: Allocator, evidence: String, ps: u64) -> Fact {
    let chunk = ps / 64;
    let (fact, source) = match allocator {
        Allocator::Zsmalloc => (
            "zswap stores compressed pages in zsmalloc (size classes, below)".to_string(),
            "mm/zswap.c (zswap_pool_create: zpool_create_pool)",
        ),
        Allocator::Zbud => (
            format!(
                "zswap stores compressed pages in zbud: at most 2 per page, in {chunk}-byte \
                 chunks after a 1-chunk header, the fullest page that fits first; one over {} \
                 bytes is refused (it goes to the swap device)",
                zbud::Zbud::new(ps as usize).max_size()
            ),
            "mm/zbud.c (zbud_alloc, NCHUNKS, num_free_chunks)",
        ),
        Allocator::Z3fold => {
            let z = z3fold::Z3fold::new(ps as usize);
            (
                format!(
                    "zswap stores compressed pages in z3fold: at most 3 per page, in {chunk}-byte \
                     chunks after an 88-byte header, the fullest page that fits first; one over \
                     {} bytes takes a page of its own, one over a page is refused",
                    z.max_shared()
                ),
                "mm/z3fold.c (z3fold_alloc, __z3fold_alloc, get_free_buddy, num_free_chunks)",
            )
        }
    };
    Fact {
        fact,
        evidence,
        source: source.into(),
    }
}

/// How zsmalloc chooses its zspages: `CONFIG_ZSMALLOC_CHAIN_SIZE` from the kernel's config
/// (`/proc/config.gz`, else `/boot/config-RELEASE`); a config without it is a kernel before 6.3
/// (at most 4 pages, 6.1's rule); with no config, the release decides.
fn zsmalloc_chain(
    root: &Root,
    release: Option<&str>,
    version: Option<(u32, u32)>,
) -> (Chain, String) {
    let boot = release
        .filter(|r| !r.contains('/') && !r.starts_with('.'))
        .map(|r| format!("boot/config-{r}"));
    let configs = [
        (config_gz(root), "/proc/config.gz".to_string()),
        (
            boot.as_ref().and_then(|b| {
                root.read_text(&root.file(b), &Reason::absent("no config"))
                    .ok()
            }),
            boot.as_ref().map_or(String::new(), |b| format!("/{b}")),
        ),
    ];
    for (text, name) in configs {
        let Some(text) = text else { continue };
        let name = crate::sanitize::visible(&name).into_owned();
        let chain = text
            .lines()
            .find_map(|l| l.strip_prefix("CONFIG_ZSMALLOC_CHAIN_SIZE="))
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|c| (1..=16).contains(c));
        if let Some(c) = chain {
            return (
                Chain::Config(c),
                format!("{name} CONFIG_ZSMALLOC_CHAIN_SIZE={c}"),
            );
        }
        if text.lines().any(|l| l.starts_with("CONFIG_ZSMALLOC=")) {
            return (
                Chain::Before6_3,
                format!("{name} has CONFIG_ZSMALLOC but no CONFIG_ZSMALLOC_CHAIN_SIZE: before 6.3"),
            );
        }
    }
    match version {
        Some(v) if v < (6, 3) => (
            Chain::Before6_3,
            "no kernel config readable; before 6.3 by its release".into(),
        ),
        _ => (
            Chain::Config(8),
            "assumed 8, the default (no CONFIG_ZSMALLOC_CHAIN_SIZE in a readable kernel config)"
                .into(),
        ),
    }
}

/// `/proc/config.gz`, unpacked, when the kernel has it.
fn config_gz(root: &Root) -> Option<String> {
    use std::io::Read;
    let mut gz = Vec::new();
    root.read_into(
        &root.proc("config.gz"),
        &mut gz,
        &Reason::absent("no config"),
    )
    .ok()?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz.as_slice())
        .take(4 << 20)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree with `files` (path, contents) and the rest missing.
    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    fn rules_of(files: &[(&str, &str)]) -> Rules {
        let dir = tree(files);
        let root = Root::at(dir.path());
        rules(&root, &crate::sources::collect(&root))
    }

    const PARAMS: &str = "sys/module/zswap/parameters";

    /// deflate and lz4hc compress one page in two, except where zswap's pool is zbud or
    /// z3fold, simulated in the order read: there every page (a half packs otherwise).
    #[test]
    fn every_page_where_the_pools_order_matters() {
        let pages: Vec<u8> = (0..64u8)
            .flat_map(|i| {
                b"a page of words "
                    .iter()
                    .map(move |&b| b ^ (i & 7))
                    .cycle()
                    .take(4096)
            })
            .collect();
        let names = ["deflate", "lz4hc", "lz4"];
        for (every_page, strides) in [(false, [2, 2, 1]), (true, [1, 1, 1])] {
            let mut measured = Measured::all(&names, every_page);
            let mut batch = Batch::new(4096);
            for page in pages.chunks_exact(4096) {
                batch.push(page, estimate::kind(page));
                if batch.full() {
                    batch.run(&mut measured);
                }
            }
            batch.run(&mut measured);
            for (m, stride) in measured.iter().zip(strides) {
                assert_eq!(m.stream.weight, stride, "{} {every_page}", m.codec.name);
                let compressed = m.stream.iter().count() as u64;
                if stride == 1 {
                    assert_eq!(compressed, 64, "{}", m.codec.name);
                } else {
                    assert!(compressed < 64, "{}: {compressed}", m.codec.name);
                }
            }
        }
    }

    #[test]
    fn debian_12_on_6_1() {
        // As seen in the 6.1 guest: zpool zbud, same-filled switches, no zero map; Debian has
        // no /proc/config.gz, only /boot/config-RELEASE, without a chain size (before 6.3).
        let r = rules_of(&[
            ("pagesize", "4096\n"),
            ("uname-r", "6.1.0-28-amd64\n"),
            ("proc/sys/kernel/osrelease", "6.1.0-28-amd64\n"),
            ("proc/vmstat", "nr_free_pages 1000\npswpout 0\n"),
            (&format!("{PARAMS}/enabled"), "Y\n"),
            (&format!("{PARAMS}/compressor"), "lzo\n"),
            (&format!("{PARAMS}/zpool"), "zbud\n"),
            (&format!("{PARAMS}/same_filled_pages_enabled"), "Y\n"),
            (&format!("{PARAMS}/non_same_filled_pages_enabled"), "Y\n"),
            (
                "boot/config-6.1.0-28-amd64",
                "CONFIG_ZSWAP=y\nCONFIG_ZSMALLOC=m\nCONFIG_ZBUD=y\n",
            ),
        ]);
        assert_eq!(r.zswap_allocator, Allocator::Zbud);
        assert_eq!(r.kernel_version, Some((6, 1)));
        assert_eq!(r.zswap_header(r.zswap_allocator), 8);
        assert_eq!(r.zsmalloc_chain, Chain::Before6_3);
        assert!(!r.zero_map && r.zswap_same_filled && r.zswap_non_same_filled);
        let said = |what: &str| {
            r.facts
                .iter()
                .any(|f| f.fact.contains(what) || f.evidence.contains(what))
        };
        assert!(said("/sys/module/zswap/parameters/zpool = zbud"));
        assert!(said(
            "zswap stores compressed pages in zbud: at most 2 per page"
        ));
        assert!(said("8-byte header"));
        assert!(said(
            "/boot/config-6.1.0-28-amd64 has CONFIG_ZSMALLOC but no CONFIG_ZSMALLOC_CHAIN_SIZE"
        ));
        // same_filled_pages_enabled=N: zswap compresses them.
        let r = rules_of(&[
            ("pagesize", "4096\n"),
            ("uname-r", "6.1.0-28-amd64\n"),
            (&format!("{PARAMS}/zpool"), "z3fold\n"),
            (&format!("{PARAMS}/same_filled_pages_enabled"), "N\n"),
        ]);
        assert_eq!(r.zswap_allocator, Allocator::Z3fold);
        assert!(!r.zswap_same_filled);
        // No config at all: the release says before 6.3.
        assert_eq!(r.zsmalloc_chain, Chain::Before6_3);
    }

    #[test]
    fn debian_13_on_6_12_and_the_newest() {
        let r = rules_of(&[
            ("pagesize", "4096\n"),
            ("uname-r", "6.12.57+deb13-amd64\n"),
            ("proc/vmstat", "nr_free_pages 1000\nswpout_zero 0\n"),
            (&format!("{PARAMS}/zpool"), "zsmalloc\n"),
            (&format!("{PARAMS}/shrinker_enabled"), "Y\n"),
            (
                "boot/config-6.12.57+deb13-amd64",
                "CONFIG_ZSMALLOC=y\nCONFIG_ZSMALLOC_CHAIN_SIZE=8\n",
            ),
        ]);
        assert_eq!(r.zswap_allocator, Allocator::Zsmalloc);
        assert_eq!(r.zswap_header(Allocator::Zbud), 0);
        assert_eq!(r.zsmalloc_chain, Chain::Config(8));
        assert!(r.zero_map && !r.zswap_same_filled);
        // 6.12 with zbud chosen.
        let r = rules_of(&[
            ("uname-r", "6.12.57+deb13-amd64\n"),
            ("proc/vmstat", "swpout_zero 0\n"),
            (&format!("{PARAMS}/zpool"), "zbud\n"),
        ]);
        assert_eq!(r.zswap_allocator, Allocator::Zbud);
        assert_eq!(r.zswap_header(Allocator::Zbud), 0);
        // 7.x: no zpool parameter: zsmalloc, the only allocator.
        let r = rules_of(&[
            ("uname-r", "7.2.0-1-amd64\n"),
            ("proc/vmstat", "swpout_zero 0\n"),
            (&format!("{PARAMS}/enabled"), "Y\n"),
        ]);
        assert_eq!(r.zswap_allocator, Allocator::Zsmalloc);
        assert!(
            r.facts
                .iter()
                .any(|f| f.evidence.contains("no zpool parameter"))
        );
        assert_eq!(r.zsmalloc_chain, Chain::Config(8));
    }

    #[test]
    fn versions() {
        assert_eq!(version(Some("6.1.0-28-amd64")), Some((6, 1)));
        assert_eq!(version(Some("6.12.57+deb13-amd64")), Some((6, 12)));
        assert_eq!(version(Some("7.2")), Some((7, 2)));
        assert_eq!(version(Some("garbage")), None);
        assert_eq!(version(None), None);
    }
}
