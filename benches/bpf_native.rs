//! What the swap-in programs cost natively, on this machine's own kernel: the median time of a
//! zswap hit with no programs, with the floor (two empty programs) and with the bodies a zswap hit
//! runs (the fault's entry, zswap's mark and the fault's exit, from src/sources/bpf/swapin.bpf.c
//! built with -DPROXY), rounds in rotating order.
//!
//! The kernel matrix measures the real fentry programs, but in guests under QEMU's emulation (TCG),
//! where every instruction is emulated. This measures natively on a kernel that refuses fentry and
//! takes raw tracepoints (the developers' hosts): the same program bodies, run on every user page
//! fault (the raw tracepoint `page_fault_user`) instead of from a trampoline on do_swap_page.
//!
//!   scripts/bench-bpf-native.sh    (as root: swap file, zswap on, then off again; calls this)
//!   ROUNDS=3 cargo bench --bench bpf_native    (where swap and zswap are already on)
//!
//! Needs root, swap with zswap enabled, clang and raw tracepoints; elsewhere it says which is
//! missing and measures nothing. CI compiles it without running it: a measurement, not a test.
//! With kernel.bpf_stats_enabled = 1 it also prints each program's own time a run (the kernel's
//! run_time_ns over run_cnt), which then includes two clock reads a run: the A/B medians are
//! taken with it off. That run also attaches, with the bodies, one program per operation (a clock
//! read, a state lookup, the task id, a histogram update): each one's time over the empty
//! program's is what that operation costs.

use std::io::Write;
use std::time::Instant;

use aya::EbpfLoader;
use aya::programs::RawTracePoint;

const PAGE: usize = 4096;
const MIB: usize = 64;
const ORDERS: [[Set; 3]; 3] = [
    [Set::None, Set::Floor, Set::Bodies],
    [Set::Bodies, Set::None, Set::Floor],
    [Set::Floor, Set::Bodies, Set::None],
];

/// The bodies a zswap hit runs, and the empty program.
const PROXIES: &[&str] = &["proxy_enter", "proxy_zswap", "proxy_exit", "proxy_empty"];
/// One operation each (a clock read, a state lookup, the task id, a histogram update, a task
/// storage lookup: aya 0.14 loads that map type only with `allow_unsupported_maps`): attached
/// only with kernel.bpf_stats_enabled, whose per-program times they are for.
const OPS: &[&str] = &["op_ktime", "op_lookup", "op_pid", "op_hist", "op_task"];

#[derive(Clone, Copy, PartialEq)]
enum Set {
    None = 0,
    Floor = 1,
    Bodies = 2,
}

impl Set {
    fn name(self) -> &'static str {
        match self {
            Set::None => "none",
            Set::Floor => "floor",
            Set::Bodies => "bodies",
        }
    }
    /// The programs, attached in this order (a tracepoint runs its programs in attach order).
    fn programs(self) -> &'static [&'static str] {
        match self {
            Set::None => &[],
            Set::Floor => &["proxy_empty", "proxy_empty"],
            Set::Bodies => &["proxy_enter", "proxy_zswap", "proxy_exit"],
        }
    }
}

/// One line on stdout, made safe: it may carry the kernel's words (the verifier's log through
/// aya's errors, /sys values) or clang's.
fn say(s: &str) {
    let _ = writeln!(std::io::stdout(), "{}", zswaptop::sanitize::visible(s));
}

fn vmstat(name: &str) -> u64 {
    std::fs::read_to_string("/proc/vmstat")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0)
}

/// Why this machine cannot measure, if it cannot.
fn missing() -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some("not root (loading BPF programs needs it)".into());
    }
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    if swaps.lines().count() < 2 {
        return Some("no swap (scripts/bench-bpf-native.sh makes a swap file)".into());
    }
    let zswap = std::fs::read_to_string("/sys/module/zswap/parameters/enabled").unwrap_or_default();
    if zswap.trim() != "Y" {
        return Some("zswap is not enabled (scripts/bench-bpf-native.sh enables it)".into());
    }
    let cluster = std::fs::read_to_string("/proc/sys/vm/page-cluster").unwrap_or_default();
    if cluster.trim() != "0" {
        return Some(format!(
            "vm.page-cluster is {} (swap readahead: most touches would be swap-cache hits, not \
             zswap loads); scripts/bench-bpf-native.sh sets it to 0",
            cluster.trim()
        ));
    }
    None
}

/// src/sources/bpf/swapin.bpf.c built with -DPROXY (the raw-tracepoint copies of the bodies).
fn object(dir: &std::path::Path) -> Result<Vec<u8>, String> {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src/sources/bpf/swapin.bpf.c");
    let out = dir.join("proxy.bpf.o");
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let o = std::process::Command::new(&clang)
        .args(["-target", "bpf", "-O2", "-g", "-DPROXY", "-c", src, "-o"])
        .arg(&out)
        .output()
        .map_err(|e| format!("{clang}: {e}"))?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    std::fs::read(&out).map_err(|e| e.to_string())
}

/// The object's raw tracepoint program `name`.
fn prog<'a>(ebpf: &'a mut aya::Ebpf, name: &str) -> Result<&'a mut RawTracePoint, String> {
    ebpf.program_mut(name)
        .ok_or_else(|| format!("{name} is not in the object"))?
        .try_into()
        .map_err(|e: aya::programs::ProgramError| format!("{name}: {e}"))
}

/// madvise(2) on the whole pages of `mem` (page-aligned at its start).
#[allow(unsafe_code)]
fn advise(mem: &mut [u8], advice: rustix::mm::Advice) {
    let len = mem.len() / PAGE * PAGE;
    // SAFETY: the range is inside `mem`, which stays borrowed for the call; MADV_NOHUGEPAGE and
    // MADV_PAGEOUT change no contents (a paged-out page reads back the same).
    let _ = unsafe { rustix::mm::madvise(mem.as_mut_ptr().cast(), len, advice) };
}

fn main() {
    if let Some(why) = missing() {
        say(&format!("bpf_native: nothing measured: {why}"));
        return;
    }
    let dir = std::env::temp_dir().join(format!("zswaptop-bpf-native-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let bytes = object(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => return say(&format!("bpf_native: nothing measured: clang: {e}")),
    };
    let mut ebpf = match EbpfLoader::new().allow_unsupported_maps().load(&bytes) {
        Ok(e) => e,
        Err(e) => return say(&format!("bpf_native: nothing measured: the object: {e}")),
    };
    for name in PROXIES.iter().chain(OPS) {
        if let Err(e) = prog(&mut ebpf, name).and_then(|p| p.load().map_err(|e| e.to_string())) {
            return say(&format!(
                "bpf_native: nothing measured: loading {name}: {e}"
            ));
        }
    }

    // The memory: text-like pages (they compress, and none is zero-filled), no huge pages.
    let pages = MIB * 1024 * 1024 / PAGE;
    let mut mem = vec![0u8; pages * PAGE];
    let words: [&[u8]; 6] = [
        b"swap ", b"page ", b"zswap ", b"pool ", b"memory ", b"cgroup ",
    ];
    for (i, page) in mem.chunks_mut(PAGE).enumerate() {
        let mut at = 0;
        let mut k = i;
        while at < PAGE {
            let w = words[k % words.len()];
            let n = w.len().min(PAGE - at);
            page[at..at + n].copy_from_slice(&w[..n]);
            at += n;
            k = k.wrapping_mul(31).wrapping_add(7 + i);
        }
    }
    let skip = mem.as_ptr().align_offset(PAGE);
    advise(&mut mem[skip..], rustix::mm::Advice::LinuxNoHugepage);

    // ROUNDS (9 by default): each set runs once a round; the orders rotate every round.
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let comp =
        std::fs::read_to_string("/sys/module/zswap/parameters/compressor").unwrap_or_default();
    say(&format!(
        "bpf_native: kernel {}, zswap {}, {MIB} MiB ({pages} pages) a round, {rounds} rounds",
        kernel.trim(),
        comp.trim()
    ));
    let stats = std::fs::read_to_string("/proc/sys/kernel/bpf_stats_enabled").unwrap_or_default();
    let stats = stats.trim() == "1";
    // Each round's median of each set (None: not counted).
    let mut table: Vec<[Option<f64>; 3]> = Vec::new();
    for round in 0..rounds {
        let mut row = [None; 3];
        for set in ORDERS[round % ORDERS.len()] {
            // Out to zswap: MADV_PAGEOUT, then check the pages went (zswpout rose by most of them).
            let out0 = vmstat("zswpout");
            advise(&mut mem[skip..], rustix::mm::Advice::LinuxPageOut);
            let stored = vmstat("zswpout").saturating_sub(out0);
            let mut links = Vec::new();
            let ops = if stats && set == Set::Bodies {
                OPS
            } else {
                &[]
            };
            for name in set.programs().iter().chain(ops) {
                let attached = prog(&mut ebpf, name)
                    .and_then(|p| p.attach("page_fault_user").map_err(|e| e.to_string()));
                match attached {
                    Ok(l) => links.push((*name, l)),
                    Err(e) => return say(&format!("bpf_native: attaching {name}: {e}")),
                }
            }
            let in0 = vmstat("zswpin");
            let mut ns = Vec::with_capacity(pages);
            let mut sink = 0u64;
            for i in 0..pages - 1 {
                let at = skip + i * PAGE + PAGE / 2;
                let t = Instant::now();
                sink = sink.wrapping_add(std::hint::black_box(&mem)[at] as u64);
                ns.push(t.elapsed().as_nanos() as u64);
            }
            let loaded = vmstat("zswpin").saturating_sub(in0);
            for (name, l) in links {
                if let Ok(p) = prog(&mut ebpf, name) {
                    let _ = p.detach(l);
                }
            }
            ns.sort_unstable();
            let p50 = ns[ns.len() / 2] as f64;
            say(&format!(
                "  round {} {:<6} p50 {:>7.0} ns p90 {:>7} ns (zswap stored {stored}, loaded {loaded} of {} pages)",
                round + 1,
                set.name(),
                p50,
                ns[ns.len() * 9 / 10],
                pages - 1,
            ));
            std::hint::black_box(sink);
            if (loaded as usize) < (pages - 1) * 9 / 10 {
                say("  (fewer than 90 % of the pages were zswap hits: this round is not counted)");
                continue;
            }
            row[set as usize] = Some(p50);
        }
        table.push(row);
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    say(
        "bpf_native: a zswap hit's median: the median of the rounds, and of each round's difference to none in that round:",
    );
    for set in [Set::None, Set::Floor, Set::Bodies] {
        let v: Vec<f64> = table.iter().filter_map(|r| r[set as usize]).collect();
        let Some(m) = median(&v) else {
            say(&format!("  {:<6} no round counted", set.name()));
            continue;
        };
        let paired: Vec<f64> = table
            .iter()
            .filter_map(|r| Some(r[set as usize]? - r[Set::None as usize]?))
            .collect();
        let base: Vec<f64> = table.iter().filter_map(|r| r[Set::None as usize]).collect();
        let vs = match (median(&paired), median(&base)) {
            (Some(d), Some(b)) if set != Set::None => {
                format!(", {d:+.0} ns ({:+.1} %) against none", d / b * 100.0)
            }
            _ => String::new(),
        };
        say(&format!(
            "  {:<6} {:.2} µs ({} rounds){vs}",
            set.name(),
            m / 1000.0,
            v.len()
        ));
    }
    if stats {
        say(
            "bpf_native: each program's own time (kernel.bpf_stats_enabled: two clock reads a run included):",
        );
        for name in PROXIES.iter().chain(OPS) {
            if let Some(Ok(info)) = ebpf.program(name).map(|p| p.info()) {
                let runs = info.run_count();
                let t = info.run_time().as_nanos() as u64;
                say(&format!(
                    "  {name:<12} {:>6.1} ns a run ({runs} runs)",
                    t as f64 / runs.max(1) as f64
                ));
            }
        }
    }
}
