//! Swap-in latency by tier, from BPF programs (swapin.bpf.c, built by build.rs with clang): how
//! long each swap-in waited, from the fault to the page being mapped, split by what served it
//! (zswap, zram, a disk, the swap cache, or a zero-filled page). The programs keep per-CPU
//! histograms in kernel memory; this source reads them once a tick (one map lookup for every
//! CPU), so nothing crosses to user space per event.
//!
//! Loading takes time (`Btf::from_sys_fs` parses the kernel's 5 MB of BTF: 0.3 s natively,
//! 2-3.5 s in a TCG guest), so [`start`] loads on a thread of its own and the ticks until it is
//! done say "loading". It loads once per process, and the counters live only while the process
//! keeps the programs loaded: they start from zero when the programs are loaded (`loaded_ns`),
//! so the model takes deltas between two samples of one load, or from zero since the load when
//! the sample before came while loading (`--once -i N`: its first sample does not wait).
//!
//! Each program is loaded and attached on its own, to the functions this kernel has (they moved
//! between 6.1 and 7.2: docs in swapin.bpf.c); a tier whose programs are missing is "unknown"
//! with the reason, never 0. When the fault's own programs cannot load (the kernel refuses
//! fentry, has no BTF, lockdown, not root), the whole section says why.

use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::sys;

/// The tiers, in the programs' order (swapin.bpf.c: `T_ZSWAP` ...).
pub const TIERS: [&str; 5] = ["zswap", "zram", "disk", "swapcache", "zero"];

/// The store side's tiers, after [`TIERS`] in the programs' table (swapin.bpf.c: `S_ZSWAP`
/// ...): a page stored by zswap, written to a zram device, written to any other swap device.
pub const STORES: [&str; 3] = ["zswap", "zram", "disk"];

/// Buckets per tier: log2 x 4 from 1 us to 16 s (swapin.bpf.c: `NB`).
pub const BUCKETS: usize = 96;

/// The lower edge of bucket `i`, in ns: bucket 0 is [0, 1280 ns); then each octave from
/// 2^10 ns in four equal steps (the programs' `bucket()`); the last is open above.
pub fn lower_ns(i: usize) -> f64 {
    if i == 0 {
        return 0.0;
    }
    let k = i + 40;
    let octave = (k / 4) as i32;
    let quarter = (k % 4) as f64;
    2f64.powi(octave) * (1.0 + quarter / 4.0)
}

/// `[bpf] enabled`: whether zswaptop may load its programs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Load when running as root and the kernel allows them.
    #[default]
    Auto,
    /// Load whoever runs zswaptop (the kernel still decides).
    On,
    /// Never call bpf(2).
    Off,
}

/// `[bpf] probes`: which set of programs to load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Probes {
    /// The lean fentry set where the kernel has BTF and takes it, else the kprobe fallback.
    #[default]
    Auto,
    /// The kprobe fallback alone (it costs more; for a kernel whose fentry misbehaves).
    Kprobes,
}

/// One tier's counters since the programs were loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierCounts {
    /// [`BUCKETS`] counts.
    pub buckets: Vec<u64>,
    pub count: u64,
    pub sum_ns: u64,
    /// The longest swap-in since the load.
    pub max_ns: u64,
}

/// A tier: its counters, or why it has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierReading {
    pub tier: String,
    pub counts: Option<TierCounts>,
    pub reason: Option<String>,
}

/// What a tick read: the counters of each tier since the load, or why there are none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapinSample {
    /// Why the programs are not running (`None` when they are).
    pub reason: Option<String>,
    /// CLOCK_MONOTONIC when the programs were loaded: deltas only between samples of one load.
    pub loaded_ns: u64,
    /// Which set is loaded: "fentry" or "kprobes" ("" when none, or in a recording made
    /// before the fallback).
    #[serde(default)]
    pub probes: String,
    pub tiers: Vec<TierReading>,
    /// The store side: [`STORES`], each with its counters or why it has none (none in a
    /// recording made before zswaptop timed stores; none written when empty, so a sample
    /// without them records as before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stores: Vec<TierReading>,
}

impl Default for SwapinSample {
    fn default() -> SwapinSample {
        SwapinSample::unavailable(
            "not read (a recording made before zswaptop measured swap-in latency)",
        )
    }
}

impl SwapinSample {
    pub(crate) fn unavailable(reason: impl Into<String>) -> SwapinSample {
        SwapinSample {
            reason: Some(reason.into()),
            loaded_ns: 0,
            probes: String::new(),
            tiers: Vec::new(),
            stores: Vec::new(),
        }
    }
}

enum State {
    /// [`start`] was not called: this run does not measure (one sample, a `--root` tree).
    NotStarted,
    Loading,
    #[cfg_attr(not(zswaptop_bpf), allow(dead_code))]
    Ready(Box<load::Probe>),
    Refused(String),
}

static STATE: Mutex<State> = Mutex::new(State::NotStarted);

/// The configuration's `[bpf] enabled`, set once the configuration is read.
static MODE: Mutex<(Mode, Probes)> = Mutex::new((Mode::Auto, Probes::Auto));

/// Set what `[bpf] enabled` and `[bpf] probes` say (before [`begin`]).
pub fn configure(mode: Mode, probes: Probes) {
    if let Ok(mut m) = MODE.lock() {
        *m = (mode, probes);
    }
}

/// How long `--watch` waits for the programs to load before its first row: a TCG guest took
/// 3.4 s to parse the kernel's BTF and attach them.
pub const LOAD_WAIT: Duration = Duration::from_secs(30);

/// Start loading as configured (a live run that samples over time); with `wait`, wait for the
/// load to finish (at most [`LOAD_WAIT`]) so that the first interval is measured.
pub fn begin(wait_for_it: bool) {
    let (mode, probes) = MODE.lock().map(|m| *m).unwrap_or((Mode::Off, Probes::Auto));
    start(mode, probes);
    if wait_for_it {
        wait(LOAD_WAIT);
    }
}

/// A tick's reason while the programs load: they are coming (the dashboard says so quietly,
/// not as a refusal).
pub const LOADING: &str = "loading the BPF programs";

/// Why a run that never started the programs has no latency.
const NOT_STARTED: &str = "not measured: a single sample has no interval (the histograms count from when the programs load; use -i N, --watch, serve or the dashboard)";

/// Start loading the programs (once per process), on a thread of its own, unless `mode` says
/// not to.
pub fn start(mode: Mode, probes: Probes) {
    let Ok(mut st) = STATE.lock() else { return };
    if !matches!(*st, State::NotStarted) {
        return;
    }
    if let Some(why) = refusal_before_loading(mode) {
        *st = State::Refused(why);
        return;
    }
    *st = State::Loading;
    drop(st);
    let spawned = std::thread::Builder::new()
        .name("bpf-load".into())
        .spawn(move || {
            let done = match load::Probe::load(probes) {
                Ok(p) => State::Ready(Box::new(p)),
                Err(why) => State::Refused(why),
            };
            if let Ok(mut st) = STATE.lock() {
                *st = done;
            }
        });
    if let Err(e) = spawned
        && let Ok(mut st) = STATE.lock()
    {
        *st = State::Refused(format!("could not start the loading thread: {e}"));
    }
}

/// Wait until the load is done (for `--watch`, which picks its columns from its first row),
/// at most `limit`.
pub fn wait(limit: Duration) {
    let step = Duration::from_millis(10);
    let mut waited = Duration::ZERO;
    while waited < limit {
        match STATE.lock() {
            Ok(st) if matches!(*st, State::Loading) => {}
            _ => return,
        }
        std::thread::sleep(step);
        waited += step;
    }
}

/// This tick's counters, or why there are none.
pub fn read() -> SwapinSample {
    let Ok(st) = STATE.lock() else {
        return SwapinSample::unavailable("the loader failed (a thread panicked)");
    };
    match &*st {
        State::NotStarted => SwapinSample::unavailable(NOT_STARTED),
        State::Loading => SwapinSample::unavailable(LOADING),
        State::Refused(why) => SwapinSample::unavailable(why.clone()),
        #[cfg_attr(not(zswaptop_bpf), allow(unreachable_patterns))]
        State::Ready(p) => p.read(),
    }
}

/// The programs' histogram maps alone, no program attached, and a reader that reads them as
/// a tick does (one lookup for every CPU, summed): for `benches/bpf_read.rs`, which measures
/// that read against its budget (50 µs a tick). Root only; a kernel that refuses the programs
/// still creates their maps. Not an API.
#[doc(hidden)]
pub fn maps_reader() -> Result<impl FnMut() -> SwapinSample, String> {
    let probe = load::Probe::maps_only()?;
    Ok(move || probe.read())
}

/// Whether this zswaptop carries its programs ("bpf: built in" in `--version`).
pub const BUILT_IN: bool = cfg!(zswaptop_bpf);

/// Why nothing is loaded, found before trying: switched off, not built, not root, lockdown.
fn refusal_before_loading(mode: Mode) -> Option<String> {
    if mode == Mode::Off {
        return Some("switched off ([bpf] enabled = \"off\" in the configuration)".into());
    }
    if !BUILT_IN {
        return Some(
            "this zswaptop was built without its BPF programs (no clang at build time)".into(),
        );
    }
    if mode == Mode::Auto && sys::euid() != 0 {
        return Some(
            "needs root (CAP_BPF and CAP_PERFMON): zswaptop loads its BPF programs only as root ([bpf] enabled = \"on\" tries anyway)"
                .into(),
        );
    }
    if let Ok(l) = std::fs::read_to_string("/sys/kernel/security/lockdown")
        && l.contains("[confidentiality]")
    {
        return Some(
            "the kernel is locked down (lockdown=confidentiality forbids kprobes and BPF reads of kernel memory); booting without Secure Boot's lockdown, or with lockdown=integrity, allows them"
                .into(),
        );
    }
    if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists()
        && !std::path::Path::new("/sys/bus/event_source/devices/kprobe").exists()
    {
        return Some(
            "the kernel has neither BTF (no /sys/kernel/btf/vmlinux: built without CONFIG_DEBUG_INFO_BTF), which fentry programs need, nor kprobes (no /sys/bus/event_source/devices/kprobe: built without CONFIG_KPROBES), the fallback"
                .into(),
        );
    }
    None
}

/// The percentile `q` (0..1) of a histogram of [`BUCKETS`] counts, in microseconds,
/// interpolated linearly inside its bucket; the open last bucket ends at `max_ns`.
pub fn percentile_us(buckets: &[u64], q: f64, max_ns: u64) -> Option<f64> {
    let total: u64 = buckets.iter().sum();
    if total == 0 {
        return None;
    }
    let rank = q * total as f64;
    let mut seen = 0u64;
    for (i, &n) in buckets.iter().enumerate() {
        if n == 0 {
            continue;
        }
        if (seen + n) as f64 >= rank {
            let lo = lower_ns(i);
            let hi = if i + 1 < BUCKETS {
                lower_ns(i + 1)
            } else {
                (max_ns as f64).max(lo)
            };
            let hi = hi.min((max_ns as f64).max(lo));
            let frac = ((rank - seen as f64) / n as f64).clamp(0.0, 1.0);
            return Some((lo + (hi - lo) * frac) / 1000.0);
        }
        seen += n;
    }
    None
}

#[cfg(zswaptop_bpf)]
mod load {
    //! The aya side: pick the set (fentry, else kprobes), load, attach by presence, read.

    use std::collections::HashSet;

    use aya::maps::{MapData, PerCpuArray};
    use aya::programs::{FEntry, FExit, KProbe, ProgramError};
    use aya::{Btf, Ebpf, EbpfLoader};

    use super::{BUCKETS, Probes, STORES, SwapinSample, TIERS, TierCounts, TierReading};
    use crate::sys;

    /// Whether the kernel has the kprobe PMU, and if not, the words for it.
    pub(super) fn kprobes_absent() -> Option<&'static str> {
        (!std::path::Path::new("/sys/bus/event_source/devices/kprobe").exists()).then_some(
            "has no kprobes (no /sys/bus/event_source/devices/kprobe: built without CONFIG_KPROBES)",
        )
    }

    /// The lean set (fentry/fexit, CO-RE), built from swapin.bpf.c by build.rs.
    static LEAN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/swapin.bpf.o"));
    /// The kprobe fallback (`-DKPROBES`), for kernels without BTF or whose fentry is refused.
    static KPROBES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/swapin-kprobe.bpf.o"));

    /// The tiers of `struct hist` in swapin.bpf.c: the swap-ins', then the stores'.
    const NT: usize = TIERS.len() + STORES.len();
    /// `struct hist` of swapin.bpf.c, flat: 8 x 96 buckets, then count, sum_ns and max_ns per tier.
    const WORDS: usize = NT * BUCKETS + 3 * NT;
    type Hist = [u64; WORDS];
    /// The histogram map's entries: 0 counted from task context, 1 from an asynchronous
    /// write's completion (interrupt context: swapin.bpf.c).
    const ENTRIES: u32 = 2;

    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        FEntry,
        FExit,
        /// A kprobe or a kretprobe (the program's section says which).
        KProbe,
    }

    impl Kind {
        fn word(self, name: &str) -> &'static str {
            match self {
                Kind::FEntry => "fentry",
                Kind::FExit => "fexit",
                Kind::KProbe if name.starts_with("kr_") => "kretprobe",
                Kind::KProbe => "kprobe",
            }
        }
    }

    /// A role in the measurement: the programs that can fill it (every one this kernel takes
    /// is attached), each with its kind and the kernel function. A kprobe program may be
    /// listed with several functions: it is loaded once and attached to each.
    struct Role {
        what: &'static str,
        progs: &'static [(&'static str, Kind, &'static str)],
    }

    /// A set of programs: its object and its roles.
    struct Set {
        name: &'static str,
        object: &'static [u8],
        fault_entry: Role,
        fault_exit: Role,
        /// The read window (kprobes only: the lean set tells a read by its bio).
        read: Option<(Role, Role)>,
        zswap: Role,
        disk: Role,
        zram: Role,
        /// A swap-cache hit is a fault that read nothing; a migration entry's wait returns
        /// the same way and is told by this role.
        migration: Role,
        /// The store side, or why this set does not time it.
        stores: Result<Stores, &'static str>,
    }

    /// The store side's roles: each store's start and end, and an asynchronous write's
    /// completion (its start is `disk`'s submit_bio, with end_swap_bio_write's address).
    struct Stores {
        zswap: (Role, Role),
        /// A device write's call (timed where it is synchronous: zram).
        write: (Role, Role),
        /// 6.1's rw_page write, which names the device without a bio (where the kernel has it).
        rw_write: Role,
        write_done: Role,
    }

    /// The function whose address marks an asynchronous swap write's bio (its `bi_end_io`).
    const SWAP_END_IO: &str = "end_swap_bio_write";

    const LEAN_SET: Set = Set {
        name: "fentry",
        object: LEAN,
        fault_entry: Role {
            what: "the fault's start",
            progs: &[("BPF_PROG_dsp_enter", Kind::FEntry, "do_swap_page")],
        },
        fault_exit: Role {
            what: "the fault's end",
            progs: &[("BPF_PROG_dsp_exit", Kind::FExit, "do_swap_page")],
        },
        read: None,
        zswap: Role {
            what: "zswap loads",
            progs: &[
                ("BPF_PROG_zswap_load", Kind::FEntry, "zswap_load"),
                (
                    "BPF_PROG_zswap_fs_load",
                    Kind::FEntry,
                    "zswap_frontswap_load",
                ),
            ],
        },
        disk: Role {
            what: "block I/O",
            progs: &[("BPF_PROG_submit_bio", Kind::FEntry, "submit_bio")],
        },
        // 6.1's zram reads a swapped page through rw_page, without a bio.
        zram: Role {
            what: "rw_page reads",
            progs: &[("BPF_PROG_bdev_read_page", Kind::FEntry, "bdev_read_page")],
        },
        migration: Role {
            what: "migration-entry waits",
            progs: &[(
                "BPF_PROG_migration_wait",
                Kind::FEntry,
                "migration_entry_wait",
            )],
        },
        stores: Ok(Stores {
            zswap: (
                Role {
                    what: "the start of zswap stores",
                    progs: &[
                        ("BPF_PROG_zswap_store", Kind::FEntry, "zswap_store"),
                        (
                            "BPF_PROG_zswap_fs_store",
                            Kind::FEntry,
                            "zswap_frontswap_store",
                        ),
                    ],
                },
                Role {
                    what: "the end of zswap stores",
                    progs: &[
                        ("BPF_PROG_zswap_store_exit", Kind::FExit, "zswap_store"),
                        (
                            "BPF_PROG_zswap_fs_store_exit",
                            Kind::FExit,
                            "zswap_frontswap_store",
                        ),
                    ],
                },
            ),
            write: (
                Role {
                    what: "the start of swap writes",
                    progs: &[("BPF_PROG_swap_write", Kind::FEntry, "__swap_writepage")],
                },
                Role {
                    what: "the end of swap writes",
                    progs: &[("BPF_PROG_swap_write_exit", Kind::FExit, "__swap_writepage")],
                },
            ),
            rw_write: Role {
                what: "rw_page writes",
                progs: &[("BPF_PROG_rw_write", Kind::FEntry, "bdev_write_page")],
            },
            write_done: Role {
                what: "the completion of asynchronous swap writes",
                progs: &[("BPF_PROG_swap_write_done", Kind::FEntry, SWAP_END_IO)],
            },
        }),
    };

    const KPROBE_SET: Set = Set {
        name: "kprobes",
        object: KPROBES,
        fault_entry: Role {
            what: "the fault's start",
            progs: &[("kp_dsp_enter", Kind::KProbe, "do_swap_page")],
        },
        fault_exit: Role {
            what: "the fault's end",
            progs: &[("kr_dsp_exit", Kind::KProbe, "do_swap_page")],
        },
        read: Some((
            Role {
                what: "the read's start",
                progs: &[
                    ("kp_read_enter", Kind::KProbe, "swap_read_folio"),
                    ("kp_read_enter", Kind::KProbe, "swap_readpage"),
                ],
            },
            Role {
                what: "the read's end",
                progs: &[
                    ("kr_read_exit", Kind::KProbe, "swap_read_folio"),
                    ("kr_read_exit", Kind::KProbe, "swap_readpage"),
                ],
            },
        )),
        zswap: Role {
            what: "zswap loads",
            progs: &[
                ("kp_zswap", Kind::KProbe, "zswap_load"),
                ("kp_zswap", Kind::KProbe, "zswap_frontswap_load"),
            ],
        },
        disk: Role {
            what: "block I/O",
            progs: &[("kp_bio", Kind::KProbe, "submit_bio")],
        },
        zram: Role {
            what: "zram reads",
            progs: &[
                ("kp_zram", Kind::KProbe, "zram_submit_bio"),
                ("kp_zram", Kind::KProbe, "zram_rw_page"),
            ],
        },
        migration: Role {
            what: "migration-entry waits",
            progs: &[("kp_migration_wait", Kind::KProbe, "migration_entry_wait")],
        },
        stores: Err(
            "the kprobe fallback times swap-ins only: a store timed there would take two more traps a page (the fentry set times them)",
        ),
    };

    pub(super) struct Probe {
        /// Keeps the programs loaded and attached.
        _ebpf: Ebpf,
        hist: PerCpuArray<MapData, Hist>,
        loaded_ns: u64,
        /// "fentry" or "kprobes".
        set: &'static str,
        /// Per tier: why it is unknown, if it is.
        unknown: [Option<String>; 5],
        /// Per store tier: why it is unknown, if it is.
        unknown_stores: [Option<String>; 3],
    }

    /// The kernel's words for a refusal: the errno of BPF_PROG_LOAD and the verifier's last
    /// line, or aya's message.
    fn describe(e: &ProgramError) -> String {
        match e {
            ProgramError::LoadError {
                io_error,
                verifier_log,
            } => {
                // The verifier's complaint: its last line before the statistics it ends with.
                let log = verifier_log.to_string();
                let stats = ["verification time", "stack depth", "processed ", "}"];
                let complaint = log.lines().rev().find(|l| {
                    let l = l.trim();
                    !l.is_empty() && !stats.iter().any(|s| l.starts_with(s))
                });
                match complaint {
                    Some(last) => format!("BPF_PROG_LOAD: {io_error}; verifier: {}", last.trim()),
                    None => format!("BPF_PROG_LOAD: {io_error}"),
                }
            }
            other => chain(other),
        }
    }

    /// An error with its sources, joined.
    fn chain(e: &dyn std::error::Error) -> String {
        let mut s = e.to_string();
        let mut src = e.source();
        while let Some(inner) = src {
            s.push_str(": ");
            s.push_str(&inner.to_string());
            src = inner.source();
        }
        s
    }

    /// What one load needs while it attaches.
    struct Attacher<'a> {
        ebpf: Ebpf,
        btf: Option<&'a Btf>,
        kallsyms: String,
        /// The kprobe programs already loaded (one may attach to several functions).
        loaded: HashSet<&'static str>,
    }

    impl Attacher<'_> {
        fn attach(&mut self, name: &'static str, kind: Kind, func: &str) -> Result<(), String> {
            let Some(prog) = self.ebpf.program_mut(name) else {
                return Err(format!("{name} is not in the object"));
            };
            let r = match kind {
                Kind::FEntry | Kind::FExit => match self.btf {
                    None => Err("the kernel has no BTF".to_string()),
                    Some(btf) if kind == Kind::FEntry => <&mut FEntry>::try_from(prog)
                        .map_err(|e| describe(&e))
                        .and_then(|p| {
                            p.load(func, btf).map_err(|e| describe(&e))?;
                            p.attach().map(drop).map_err(|e| describe(&e))
                        }),
                    Some(btf) => <&mut FExit>::try_from(prog)
                        .map_err(|e| describe(&e))
                        .and_then(|p| {
                            p.load(func, btf).map_err(|e| describe(&e))?;
                            p.attach().map(drop).map_err(|e| describe(&e))
                        }),
                },
                Kind::KProbe => {
                    let present = self
                        .kallsyms
                        .lines()
                        .any(|l| l.split_whitespace().nth(2) == Some(func));
                    if !present {
                        return Err(format!("{func} is not in /proc/kallsyms"));
                    }
                    if let Some(why) = kprobes_absent() {
                        return Err(format!("the kernel {why}"));
                    }
                    let first = !self.loaded.contains(name);
                    <&mut KProbe>::try_from(prog)
                        .map_err(|e| describe(&e))
                        .and_then(|p| {
                            if first {
                                p.load().map_err(|e| describe(&e))?;
                            }
                            p.attach(func, 0).map(drop).map_err(|e| describe(&e))
                        })
                        .inspect(|()| {
                            self.loaded.insert(name);
                        })
                }
            };
            r.map_err(|e| format!("{} {func}: {e}", kind.word(name)))
        }

        /// Attach every program of `role` this kernel takes (6.1 has both of zram's request
        /// functions, and swap-ins reach only `zram_rw_page`); when none, every refusal, joined.
        fn role(&mut self, role: &Role) -> Result<(), String> {
            let mut why = Vec::new();
            let mut any = false;
            for &(name, kind, func) in role.progs {
                match self.attach(name, kind, func) {
                    Ok(()) => any = true,
                    Err(e) => why.push(e),
                }
            }
            if any {
                return Ok(());
            }
            Err(format!("no probe for {}: {}", role.what, why.join("; ")))
        }

        /// Whether the kernel has `func` (/proc/kallsyms).
        fn has(&self, func: &str) -> bool {
            self.kallsyms
                .lines()
                .any(|l| l.split_whitespace().nth(2) == Some(func))
        }
    }

    /// The address of `func` in /proc/kallsyms (`None` when absent, or shown as 0: hidden).
    fn kallsyms_address(kallsyms: &str, func: &str) -> Option<u64> {
        kallsyms.lines().find_map(|l| {
            let mut f = l.split_whitespace();
            let (addr, _, name) = (f.next()?, f.next()?, f.next()?);
            (name == func)
                .then(|| u64::from_str_radix(addr, 16).ok())
                .flatten()
                .filter(|&a| a != 0)
        })
    }

    impl Probe {
        /// The lean set where the kernel has BTF and takes it, else the kprobe fallback (or
        /// the fallback alone, as `[bpf] probes = "kprobes"` asks).
        pub(super) fn load(probes: Probes) -> Result<Probe, String> {
            let kallsyms = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
            // Why the lean set did not load (`None`: not tried, as the configuration asks).
            let lean_refused = match probes {
                Probes::Kprobes => None,
                Probes::Auto => match Btf::from_sys_fs() {
                    Err(e) => Some(format!(
                        "could not read the kernel's BTF (/sys/kernel/btf/vmlinux): {}",
                        chain(&e)
                    )),
                    Ok(btf) => match Probe::load_set(&LEAN_SET, Some(&btf), &kallsyms) {
                        Ok(p) => return Ok(p),
                        Err(why) => Some(why),
                    },
                },
            };
            const ALLOW: &str = "a kernel that allows fentry programs (BTF and CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, as Debian's and Fedora's do) would allow it";
            let fallback = |what: String| match &lean_refused {
                Some(lean) => {
                    format!(
                        "the kernel refuses the fentry programs ({lean}), and it {what}; {ALLOW}"
                    )
                }
                None => format!(
                    "[bpf] probes = \"kprobes\" asks for the kprobe fallback, and the kernel {what}; [bpf] probes = \"auto\" would try the fentry programs first"
                ),
            };
            if let Some(k) = kprobes_absent() {
                return Err(fallback(k.to_string()));
            }
            Probe::load_set(&KPROBE_SET, None, &kallsyms)
                .map_err(|why| fallback(format!("refuses the kprobe fallback ({why})")))
        }

        fn load_set(set: &Set, btf: Option<&Btf>, kallsyms: &str) -> Result<Probe, String> {
            // An asynchronous swap write is a bio whose completion is end_swap_bio_write: its
            // address, for the lean set's submit_bio (0 where /proc/kallsyms hides it).
            let swap_end_io = kallsyms_address(kallsyms, SWAP_END_IO).unwrap_or(0);
            let mut loader = EbpfLoader::new();
            loader.btf(btf);
            if set.stores.is_ok() {
                loader.override_global("swap_end_io", &swap_end_io, true);
            }
            // One BTF parse for the relocations and the fentry attach points (a TCG guest
            // takes 1-2 s a parse).
            let ebpf = loader.load(set.object).map_err(|e| {
                format!(
                    "the kernel refused the {} programs' object (BPF_MAP_CREATE or BTF): {}",
                    set.name,
                    chain(&e)
                )
            })?;
            let mut a = Attacher {
                ebpf,
                btf,
                kallsyms: kallsyms.to_string(),
                loaded: HashSet::new(),
            };
            // The fault itself: without both ends there is nothing to measure. Its end, which
            // counts, is attached last: every fault it counts then ran with every marker, and
            // the counters start from zero at `loaded_ns`.
            a.role(&set.fault_entry)?;
            let read = set
                .read
                .as_ref()
                .and_then(|(enter, exit)| a.role(enter).and_then(|()| a.role(exit)).err());
            let zswap = a.role(&set.zswap).err();
            let disk = a.role(&set.disk).err();
            // The lean set's zram role is 6.1's rw_page read: needed only where the kernel
            // has it; later kernels read zram through a bio, which `disk` sees.
            let zram = if set.read.is_none() {
                let (_, _, func) = set.zram.progs[0];
                if a.has(func) {
                    a.role(&set.zram).err()
                } else {
                    None
                }
            } else {
                a.role(&set.zram).err()
            };
            let migration = a.role(&set.migration).err().map(|why| {
                format!("migration-entry waits cannot be told from swap-cache hits ({why})")
            });
            let unknown_stores = match &set.stores {
                Err(why) => [0; 3].map(|_| Some((*why).to_string())),
                Ok(st) => {
                    let pair = |a: &mut Attacher, (enter, exit): &(Role, Role)| {
                        a.role(enter).and_then(|()| a.role(exit)).err()
                    };
                    let zswap = pair(&mut a, &st.zswap);
                    let write = pair(&mut a, &st.write);
                    // 6.1's zram writes through rw_page, without a bio.
                    let (_, _, rw) = st.rw_write.progs[0];
                    let rw = if a.has(rw) || a.kallsyms.is_empty() {
                        a.role(&st.rw_write).err()
                    } else {
                        None
                    };
                    let done = a.role(&st.write_done).err().or_else(|| {
                        (swap_end_io == 0).then(|| format!("the address of {SWAP_END_IO} is not in /proc/kallsyms (kernel.kptr_restrict hides it, or the kernel has no such function): asynchronous swap writes cannot be told from other writes"))
                    });
                    // A synchronous write's device is named by its bio (submit_bio) or, on 6.1,
                    // by rw_page.
                    let zram = write.clone().or(rw).or_else(|| disk.clone());
                    // An asynchronous write is told by its bio, timed to its completion.
                    let disk_write = done.or_else(|| disk.clone());
                    [zswap, zram, disk_write]
                }
            };
            a.role(&set.fault_exit)?;
            let loaded_ns = sys::monotonic_ns();
            let zram_loaded = std::path::Path::new("/sys/class/zram-control").exists();
            let mut unknown: [Option<String>; 5] = Default::default();
            // Which tier a read was is told by what it called: without the read window (the
            // kprobes) or the device reads, none is.
            let need = |other: &Option<String>| {
                read.clone()
                    .or_else(|| other.clone())
                    .or_else(|| disk.clone())
            };
            unknown[0] = need(&zswap);
            unknown[1] = need(&zram);
            // A zram read unseen would count as a disk read (kprobes) or a zero page (6.1's
            // rw_page, lean).
            unknown[2] = need(&None).or_else(|| {
                zram.clone()
                    .filter(|_| zram_loaded && set.read.is_some())
                    .map(|z| format!("zram reads cannot be told from disk reads ({z})"))
            });
            unknown[3] = migration;
            // A read that called nothing is a zero-filled page; it needs every other marker.
            unknown[4] = need(&zswap).or_else(|| {
                zram.clone()
                    .filter(|_| zram_loaded)
                    .map(|z| format!("zram reads cannot be told from zero-filled pages ({z})"))
            });
            let map = a
                .ebpf
                .take_map("hist")
                .ok_or_else(|| "the programs' object has no histogram map".to_string())?;
            let hist = PerCpuArray::try_from(map)
                .map_err(|e| format!("the histogram map is not the expected one: {e}"))?;
            Ok(Probe {
                _ebpf: a.ebpf,
                hist,
                loaded_ns,
                set: set.name,
                unknown,
                unknown_stores,
            })
        }

        /// The maps alone, no program attached (the read-cost bench: a kernel that refuses
        /// the programs still creates their maps).
        pub(super) fn maps_only() -> Result<Probe, String> {
            let mut ebpf = EbpfLoader::new().load(LEAN).map_err(|e| chain(&e))?;
            let map = ebpf.take_map("hist").ok_or("no histogram map")?;
            let hist = PerCpuArray::try_from(map).map_err(|e| e.to_string())?;
            Ok(Probe {
                _ebpf: ebpf,
                hist,
                loaded_ns: 1,
                set: "fentry",
                unknown: Default::default(),
                unknown_stores: Default::default(),
            })
        }

        /// One lookup of each entry (task context's, interrupt context's) for every CPU,
        /// summed.
        pub(super) fn read(&self) -> SwapinSample {
            let nt = NT;
            let mut sum = [0u64; WORDS];
            for entry in 0..ENTRIES {
                let per_cpu = match self.hist.get(&entry, 0) {
                    Ok(v) => v,
                    Err(e) => {
                        return SwapinSample::unavailable(format!(
                            "could not read the histograms (BPF_MAP_LOOKUP_ELEM): {e}"
                        ));
                    }
                };
                for h in per_cpu.iter() {
                    for (i, (s, v)) in sum.iter_mut().zip(h.iter()).enumerate() {
                        let is_max = i >= nt * BUCKETS + 2 * nt;
                        *s = if is_max {
                            (*s).max(*v)
                        } else {
                            s.wrapping_add(*v)
                        };
                    }
                }
            }
            // Tier `t` of the table (a swap-in's, or a store's after them), named `name`.
            let reading = |t: usize, name: &str, unknown: &Option<String>| match unknown {
                Some(why) => TierReading {
                    tier: name.into(),
                    counts: None,
                    reason: Some(why.clone()),
                },
                None => TierReading {
                    tier: name.into(),
                    counts: Some(TierCounts {
                        buckets: sum[t * BUCKETS..(t + 1) * BUCKETS].to_vec(),
                        count: sum[nt * BUCKETS + t],
                        sum_ns: sum[nt * BUCKETS + nt + t],
                        max_ns: sum[nt * BUCKETS + 2 * nt + t],
                    }),
                    reason: None,
                },
            };
            let tiers = TIERS
                .iter()
                .enumerate()
                .map(|(t, name)| reading(t, name, &self.unknown[t]))
                .collect();
            let stores = STORES
                .iter()
                .enumerate()
                .map(|(i, name)| reading(TIERS.len() + i, name, &self.unknown_stores[i]))
                .collect();
            SwapinSample {
                reason: None,
                loaded_ns: self.loaded_ns,
                probes: self.set.to_string(),
                tiers,
                stores,
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A read of the maps alone gives every tier, all zero (no program counts into
        /// them). Its cost is measured by `benches/bpf_read.rs`. Where the maps cannot be
        /// made (not root), there is nothing to read.
        #[test]
        fn the_maps_read_every_tier() {
            let Ok(p) = Probe::maps_only() else { return };
            let s = p.read();
            assert!(s.reason.is_none(), "{:?}", s.reason);
            assert_eq!(s.tiers.len(), TIERS.len());
            assert_eq!(s.stores.len(), STORES.len());
            for t in s.tiers.iter().chain(&s.stores) {
                let c = t.counts.as_ref().expect("counted");
                assert_eq!(
                    (c.count, c.buckets.iter().sum::<u64>()),
                    (0, 0),
                    "{}",
                    t.tier
                );
            }
        }

        #[test]
        fn an_address_comes_from_kallsyms_and_a_hidden_one_is_none() {
            let k = "ffffffff8123a0f0 t __end_swap_bio_write\nffffffff8123a1b0 t end_swap_bio_write\nffffffffc0a01000 t zram_submit_bio\t[zram]\n";
            assert_eq!(
                kallsyms_address(k, "end_swap_bio_write"),
                Some(0xffff_ffff_8123_a1b0)
            );
            assert_eq!(
                kallsyms_address(k, "zram_submit_bio"),
                Some(0xffff_ffff_c0a0_1000)
            );
            assert_eq!(kallsyms_address(k, "swap_writeout"), None);
            let hidden = "0000000000000000 t end_swap_bio_write\n";
            assert_eq!(kallsyms_address(hidden, "end_swap_bio_write"), None);
        }

        /// Both objects load their maps here (the host refuses the programs, not the maps):
        /// each set's hash of tasks and histogram.
        #[test]
        fn both_objects_make_their_maps() {
            if sys::euid() != 0 {
                return;
            }
            for (name, obj) in [("lean", LEAN), ("kprobes", KPROBES)] {
                let r = EbpfLoader::new().load(obj);
                assert!(r.is_ok(), "{name}: {:?}", r.err().map(|e| chain(&e)));
            }
        }
    }
}

#[cfg(not(zswaptop_bpf))]
mod load {
    //! Built without clang: nothing to load (the reason is given before trying).

    use super::SwapinSample;

    pub(super) struct Probe;

    impl Probe {
        pub(super) fn load(_: super::Probes) -> Result<Probe, String> {
            Err("this zswaptop was built without its BPF programs (no clang at build time)".into())
        }

        pub(super) fn maps_only() -> Result<Probe, String> {
            Probe::load(super::Probes::Auto)
        }

        pub(super) fn read(&self) -> SwapinSample {
            SwapinSample::unavailable(
                "this zswaptop was built without its BPF programs (no clang at build time)",
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_edges_follow_the_programs_log2_by_4() {
        assert_eq!(lower_ns(0), 0.0);
        assert_eq!(lower_ns(1), 1280.0);
        assert_eq!(lower_ns(4), 2048.0);
        assert_eq!(lower_ns(BUCKETS - 1), 2f64.powi(33) * 1.75);
    }

    #[test]
    fn percentiles_interpolate_in_the_bucket_and_none_without_counts() {
        let mut b = vec![0u64; BUCKETS];
        assert_eq!(percentile_us(&b, 0.5, 0), None);
        // 100 swap-ins in [4096, 5120) ns: the median half way.
        b[8] = 100;
        let p50 = percentile_us(&b, 0.5, 5000).unwrap_or_default();
        assert!((p50 - 4.55).abs() < 0.01, "{p50}");
        // never above the largest seen
        let p99 = percentile_us(&b, 0.99, 4200).unwrap_or_default();
        assert!(p99 <= 4.2 + 1e-9, "{p99}");
    }

    #[test]
    fn not_started_says_it_needs_an_interval() {
        let s = SwapinSample::unavailable(NOT_STARTED);
        assert!(s.reason.unwrap_or_default().contains("-i N"));
    }
}
