//! The four phases: zswap absorbs, writeback, zram, no root. Each compares `zswaptop --once --json`
//! with the kernel read right before and right after it, then captures a fixture tree.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::capture;
use crate::kernel::{self, Kernel};
use crate::machine::{self, Cgroup};
use crate::rep;
use crate::report::{self, b, f, i, is_null, s, u};
use crate::workload::{Handle, Resident};

const MIB: u64 = 1024 * 1024;
const NOBODY: u32 = 65534;
/// MemFree/MemAvailable/AnonPages move with zswaptop's own process and anything else running.
const LOOSE: u64 = 64 * MIB;
/// How long phase 2 keeps pushing pages for the zswap shrink worker to write some back.
const WRITEBACK_BUDGET: Duration = Duration::from_secs(40);

/// One zswaptop run with the kernel read right before and right after it.
pub struct Snap {
    pub before: Kernel,
    pub json: Value,
    pub after: Kernel,
}

pub struct Ctx {
    pub bin: PathBuf,
    pub nobody_bin: PathBuf,
    pub ps: u64,
    pub cg: Cgroup,
    pub tmp: tempfile::TempDir,
    pub save: Option<PathBuf>,
}

/// Runs zswaptop and parses its JSON. `nobody` runs it as uid/gid 65534.
pub fn run_zswaptop(
    bin: &Path,
    args: &[&str],
    nobody: bool,
) -> Result<(Value, std::process::ExitStatus)> {
    let mut cmd = Command::new(bin);
    cmd.args(["--once", "--json"]).args(args).current_dir("/");
    if nobody {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    // As root, the run also records its samples, read back at the end (record.rs).
    let recorded = (!nobody).then(crate::record::next_file).flatten();
    if let Some(f) = &recorded {
        cmd.arg("--record").arg(f);
    }
    let out = cmd
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout).with_context(|| {
        format!(
            "zswaptop {} printed no JSON ({}); stderr: {}; stdout starts: {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim(),
            stdout.chars().take(300).collect::<String>()
        )
    })?;
    if let Some(f) = recorded.filter(|_| out.status.success()) {
        crate::record::remember(f, args, &json);
    }
    Ok((json, out.status))
}

impl Ctx {
    pub fn snap(&self, nobody: bool) -> Result<Snap> {
        let before = Kernel::read()?;
        let bin = if nobody { &self.nobody_bin } else { &self.bin };
        let (json, status) = run_zswaptop(bin, &[], nobody)?;
        let after = Kernel::read()?;
        if !status.success() {
            bail!("zswaptop --once --json exited with {status}");
        }
        Ok(Snap {
            before,
            json,
            after,
        })
    }

    fn settle(&self, what: &str) -> Result<Kernel> {
        let t = Instant::now();
        let (k, ok) = kernel::settle(Duration::from_millis(400), Duration::from_secs(30))?;
        println!(
            "  {what}: counters {} after {:.1}s",
            if ok {
                "settled"
            } else {
                "still moving (timeout)"
            },
            t.elapsed().as_secs_f64()
        );
        Ok(k)
    }

    fn settle_quiet(&self) -> Result<Kernel> {
        Ok(kernel::settle(Duration::from_millis(300), Duration::from_secs(10))?.0)
    }

    fn fixture_dir(&self, name: &str) -> Result<PathBuf> {
        let dir = match &self.save {
            Some(d) => d.join(name),
            None => self.tmp.path().join(name),
        };
        if dir.exists() {
            // Only our own e2e-* trees are ever replaced.
            if !name.starts_with("e2e-") {
                bail!("refusing to replace {}", dir.display());
            }
            fs::remove_dir_all(&dir)?;
        }
        Ok(dir)
    }

    /// Captures the phase into a fixture tree and checks that `--root TREE` reads the same
    /// pool and stored values as the live run.
    fn capture_phase(
        &self,
        name: &str,
        pid: u32,
        live: &Snap,
        readme: &str,
        strip_debugfs: bool,
    ) -> Result<()> {
        let dest = self.fixture_dir(name)?;
        let kb = Kernel::read()?;
        let how = capture::capture(&dest, Some(pid))?;
        let ka = Kernel::read()?;
        if strip_debugfs {
            // What a non-root capture sees: no debugfs.
            let dbg = dest.join("sys/kernel/debug");
            if dbg.exists() {
                fs::remove_dir_all(&dbg)?;
            }
        }
        let (bytes, files) = capture::tree_size(&dest);
        fs::write(
            dest.join("README.md"),
            format!("{readme}{}", expected_block(&dest)),
        )?;
        rep().note(&format!("fixture: {how}: {files} files, {bytes} bytes"));
        let dest_s = dest.display().to_string();
        let (tree, status) = run_zswaptop(&self.bin, &["--root", &dest_s], false)?;
        let mut r = rep();
        r.check(
            "round-trip: zswaptop --root TREE exits 0",
            status.success(),
            &status.to_string(),
            "exit status: 0",
        );
        for (path, key) in [
            ("zswap.pool_bytes", "Zswap"),
            ("zswap.stored_bytes", "Zswapped"),
        ] {
            // Between the live run's value and the kernel right after the capture (equal when settled),
            // and equal to what the captured meminfo says.
            let live_v = u(&live.json, path);
            let lo_hi = [live_v, kb.mem(key), ka.mem(key)];
            let lo = lo_hi.iter().flatten().min().copied();
            let hi = lo_hi.iter().flatten().max().copied();
            r.bracket(
                &format!("round-trip {path}: tree vs live run/kernel"),
                u(&tree, path),
                lo,
                hi,
                0,
            );
        }
        r.exact(
            "round-trip memory.total_bytes: tree vs live",
            i(&tree, "memory.total_bytes"),
            i(&live.json, "memory.total_bytes"),
        );
        Ok(())
    }
}

fn mem(k: &Kernel, key: &str) -> Option<u64> {
    k.mem(key)
}

/// Comparisons that hold in every phase. `root` = the run could read debugfs.
fn common_checks(snap: &Snap, ps: u64, root: bool) {
    let j = &snap.json;
    let (kb, ka) = (&snap.before, &snap.after);
    let mut r = rep();
    let br = |r: &mut report::Report,
              name: &str,
              path: &str,
              k: &dyn Fn(&Kernel) -> Option<u64>,
              slack: u64| {
        r.bracket(
            &format!("{path} vs {name}"),
            u(j, path),
            k(kb),
            k(ka),
            slack,
        )
    };

    // memory
    br(
        &mut r,
        "MemTotal",
        "memory.total_bytes",
        &|k| mem(k, "MemTotal"),
        0,
    );
    br(
        &mut r,
        "MemFree",
        "memory.free_bytes",
        &|k| mem(k, "MemFree"),
        LOOSE,
    );
    br(
        &mut r,
        "MemAvailable",
        "memory.available_bytes",
        &|k| mem(k, "MemAvailable"),
        LOOSE,
    );
    br(
        &mut r,
        "MemTotal-MemAvailable",
        "memory.free_cmd_used_bytes",
        &|k| Some(mem(k, "MemTotal")? - mem(k, "MemAvailable")?),
        LOOSE,
    );
    br(
        &mut r,
        "Zswap + zram mem_used",
        "memory.hidden_in_used_bytes",
        &|k| Some(mem(k, "Zswap")? + k.zram_mem_used()),
        0,
    );
    let buckets = [
        "apps",
        "swap_cache",
        "page_cache",
        "shmem",
        "kernel",
        "hugetlb",
        "zswap_pool",
        "zram_pool",
        "free",
        "pcp_free",
        "unaccounted",
    ];
    let mut sum: i128 = 0;
    let mut missing = Vec::new();
    for bk in buckets {
        match i(j, &format!("memory.breakdown.{bk}_bytes")) {
            Some(v) => sum += v,
            None if is_null(j, &format!("memory.breakdown.{bk}_bytes")) => {}
            None => missing.push(bk),
        }
    }
    if !missing.is_empty() {
        r.check(
            "memory.breakdown has every bucket",
            false,
            &format!("missing {missing:?}"),
            "all 11 keys",
        );
    }
    r.exact(
        "Σ memory.breakdown == memory.total_bytes (exact)",
        Some(sum),
        i(j, "memory.total_bytes"),
    );
    br(
        &mut r,
        "meminfo Zswap",
        "memory.breakdown.zswap_pool_bytes",
        &|k| mem(k, "Zswap"),
        0,
    );
    br(
        &mut r,
        "Σ zram mem_used_total",
        "memory.breakdown.zram_pool_bytes",
        &|k| Some(k.zram_mem_used()),
        0,
    );
    // The swap cache counted once: its unmapped part in the breakdown, the mapped part beside it.
    r.bracket(
        "memory.breakdown.swap_cache_bytes + memory.swap_cache_mapped_bytes vs SwapCached",
        u(j, "memory.breakdown.swap_cache_bytes")
            .zip(u(j, "memory.swap_cache_mapped_bytes"))
            .map(|(a, b)| a + b),
        mem(kb, "SwapCached"),
        mem(ka, "SwapCached"),
        64 * ps,
    );
    // The per-CPU free lists against a direct sum of zoneinfo's counts read around the run;
    // they move with every allocation, so the bracket is loose.
    br(
        &mut r,
        "Σ zoneinfo count × page size",
        "memory.breakdown.pcp_free_bytes",
        &|k| Some(k.pcp_pages? * ps),
        LOOSE,
    );
    let unacc = i(j, "memory.breakdown.unaccounted_bytes");
    // What §4.4 as written gave: the per-CPU lists inside, the mapped swap cache counted twice.
    let plain = unacc
        .zip(i(j, "memory.breakdown.pcp_free_bytes"))
        .zip(i(j, "memory.swap_cache_mapped_bytes"))
        .map(|((a, p), m)| a + p - m);
    let mib = |v: Option<i128>| {
        v.map_or("null".to_string(), |v| {
            format!("{:.1} MiB", v as f64 / MIB as f64)
        })
    };
    r.note(&format!(
        "unaccounted {} (without the per-CPU lists and with the mapped swap cache counted twice: {}); \
         pcp_free {} vs zoneinfo Σcount {} before / {} after; swap cache mapped {}",
        mib(unacc),
        mib(plain),
        mib(i(j, "memory.breakdown.pcp_free_bytes")),
        mib(kb.pcp_pages.map(|p| i128::from(p * ps))),
        mib(ka.pcp_pages.map(|p| i128::from(p * ps))),
        mib(i(j, "memory.swap_cache_mapped_bytes")),
    ));
    r.check(
        "memory.breakdown.unaccounted_bytes within ±64 MiB",
        unacc.is_some_and(|v| v.unsigned_abs() <= u128::from(LOOSE)),
        &mib(unacc),
        "±64 MiB",
    );
    br(
        &mut r,
        "AnonPages",
        "memory.breakdown.apps_bytes",
        &|k| mem(k, "AnonPages"),
        LOOSE,
    );
    br(
        &mut r,
        "MemFree",
        "memory.breakdown.free_bytes",
        &|k| mem(k, "MemFree"),
        LOOSE,
    );
    br(
        &mut r,
        "Shmem",
        "memory.breakdown.shmem_bytes",
        &|k| mem(k, "Shmem"),
        LOOSE,
    );

    // zswap: sizes
    br(
        &mut r,
        "meminfo Zswap",
        "zswap.pool_bytes",
        &|k| mem(k, "Zswap"),
        0,
    );
    if root {
        br(
            &mut r,
            "debugfs pool_total_size",
            "zswap.pool_bytes",
            &|k| k.dbg("pool_total_size"),
            0,
        );
    }
    let src = s(j, "zswap.pool_source");
    r.check(
        "zswap.pool_source is \"meminfo\"",
        src == Some("meminfo"),
        &report::show(report::at(j, "zswap.pool_source")),
        "meminfo",
    );
    br(
        &mut r,
        "meminfo Zswapped",
        "zswap.stored_bytes",
        &|k| mem(k, "Zswapped"),
        0,
    );
    if root {
        br(
            &mut r,
            "debugfs stored_pages × page",
            "zswap.stored_bytes",
            &|k| k.dbg_bytes("stored_pages"),
            0,
        );
        br(
            &mut r,
            "debugfs stored_pages",
            "zswap.stored_pages",
            &|k| k.dbg("stored_pages"),
            0,
        );
    } else {
        br(
            &mut r,
            "Zswapped / page",
            "zswap.stored_pages",
            &|k| Some(mem(k, "Zswapped")? / ps),
            0,
        );
    }
    // Signed: a nearly empty pool of incompressible pages costs more than it stores.
    let saved =
        |k: &Kernel| -> Option<f64> { Some(mem(k, "Zswapped")? as f64 - mem(k, "Zswap")? as f64) };
    r.bracket_f(
        "zswap.saved_bytes vs Zswapped − Zswap (signed)",
        f(j, "zswap.saved_bytes"),
        saved(kb),
        saved(ka),
        0.0,
    );
    let ratio = |k: &Kernel| -> Option<f64> {
        let pool = mem(k, "Zswap")?;
        (pool > 0).then(|| mem(k, "Zswapped").unwrap_or(0) as f64 / pool as f64)
    };
    r.bracket_f(
        "zswap.compression_ratio vs Zswapped/Zswap",
        f(j, "zswap.compression_ratio"),
        ratio(kb),
        ratio(ka),
        0.005,
    );
    if root {
        let cratio = |k: &Kernel| -> Option<f64> {
            let inc = k.dbg_bytes("stored_incompressible_pages")?;
            let den = k.dbg("pool_total_size")?.checked_sub(inc)?;
            let num = k.dbg_bytes("stored_pages")?.checked_sub(inc)?;
            (den > 0).then(|| num as f64 / den as f64)
        };
        r.bracket_f(
            "zswap.compressor_ratio vs (stored−incompr)/(pool−incompr)",
            f(j, "zswap.compressor_ratio"),
            cratio(kb),
            cratio(ka),
            0.005,
        );
        br(
            &mut r,
            "debugfs stored_incompressible_pages × page",
            "zswap.incompressible_bytes",
            &|k| k.dbg_bytes("stored_incompressible_pages"),
            0,
        );
        if kb.dbg("same_filled_pages").is_none() {
            r.check(
                "zswap.same_filled_bytes is null (no same_filled_pages file)",
                is_null(j, "zswap.same_filled_bytes"),
                &report::show(report::at(j, "zswap.same_filled_bytes")),
                "null",
            );
        }
        // Every debugfs file, value by value.
        let names: Vec<String> = kb
            .debugfs
            .as_ref()
            .map(|d| d.keys().cloned().collect())
            .unwrap_or_default();
        for name in names {
            br(
                &mut r,
                &format!("debugfs {name}"),
                &format!("zswap.debugfs.{name}"),
                &|k| k.dbg(&name),
                0,
            );
        }
    }

    // zswap: parameters and limits
    let params = kernel::read_params().unwrap_or_default();
    let pct: u64 = params
        .get("max_pool_percent")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let thr: u64 = params
        .get("accept_threshold_percent")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let enabled = params.get("enabled").map(|v| v == "Y");
    r.check(
        "zswap.enabled vs parameters/enabled",
        b(j, "zswap.enabled") == enabled,
        &report::show(report::at(j, "zswap.enabled")),
        &enabled
            .map(|e| e.to_string())
            .unwrap_or_else(|| "null".into()),
    );
    r.exact(
        "zswap.max_pool_percent vs parameter",
        i(j, "zswap.max_pool_percent"),
        Some(i128::from(pct)),
    );
    let comp = params.get("compressor").cloned().unwrap_or_default();
    r.check(
        "zswap.compressor vs parameter",
        s(j, "zswap.compressor") == Some(comp.as_str()),
        &report::show(report::at(j, "zswap.compressor")),
        &comp,
    );
    if let Some(sh) = params.get("shrinker_enabled") {
        r.check(
            "zswap.shrinker_enabled vs parameter",
            b(j, "zswap.shrinker_enabled") == Some(sh == "Y"),
            &report::show(report::at(j, "zswap.shrinker_enabled")),
            sh,
        );
    }
    // zswap_max_pages() = totalram_pages() * max_pool_percent / 100; accept = max * thr / 100.
    let max_pages = |k: &Kernel| Some(mem(k, "MemTotal")? / ps * pct / 100);
    let limit = max_pages(kb).map(|p| p * ps);
    r.exact(
        "zswap.pool_limit_bytes = MemTotal pages × pct / 100 × page",
        i(j, "zswap.pool_limit_bytes"),
        limit.map(i128::from),
    );
    r.exact(
        "zswap.accept_threshold_bytes = limit pages × thr / 100 × page",
        i(j, "zswap.accept_threshold_bytes"),
        max_pages(kb).map(|p| i128::from(p * thr / 100 * ps)),
    );
    br(
        &mut r,
        "max(0, limit − Zswap)",
        "zswap.pool_headroom_bytes",
        &|k| Some(limit?.saturating_sub(mem(k, "Zswap")?)),
        0,
    );
    let used_pct =
        |k: &Kernel| -> Option<f64> { Some(mem(k, "Zswap")? as f64 * 100.0 / limit? as f64) };
    r.bracket_f(
        "zswap.pool_limit_used_percent vs Zswap/limit×100",
        f(j, "zswap.pool_limit_used_percent"),
        used_pct(kb),
        used_pct(ka),
        0.005,
    );

    // swap
    br(
        &mut r,
        "SwapFree",
        "swap.free_bytes",
        &|k| mem(k, "SwapFree"),
        0,
    );
    br(
        &mut r,
        "SwapTotal",
        "swap.total_bytes",
        &|k| mem(k, "SwapTotal"),
        0,
    );
    br(
        &mut r,
        "SwapTotal − SwapFree",
        "swap.used_bytes",
        &Kernel::swap_used,
        0,
    );
    br(
        &mut r,
        "Zswapped",
        "swap.in_zswap_bytes",
        &|k| mem(k, "Zswapped"),
        0,
    );
    br(
        &mut r,
        "SwapCached",
        "swap.in_swap_cache_bytes",
        &|k| mem(k, "SwapCached"),
        0,
    );
    br(
        &mut r,
        "zram orig_data_size (active swap)",
        "swap.in_zram_bytes",
        &|k| Some(k.zram_swap_orig()),
        0,
    );
    // Computed from four values read at slightly different instants inside the kernel.
    br(
        &mut r,
        "used − Zswapped − SwapCached − zram orig",
        "swap.not_in_ram_bytes",
        &Kernel::not_in_ram,
        4 * ps,
    );
    let parts: Option<i128> = [
        "swap.in_zswap_bytes",
        "swap.in_swap_cache_bytes",
        "swap.in_zram_bytes",
        "swap.not_in_ram_bytes",
    ]
    .iter()
    .map(|p| i(j, p))
    .sum();
    r.exact(
        "swap.used = in_zswap + in_swap_cache + in_zram + not_in_ram",
        i(j, "swap.used_bytes"),
        parts,
    );
    let devices = report::at(j, "swap.devices")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    r.exact(
        "swap.devices count vs /proc/swaps rows",
        Some(devices.len() as i128),
        Some(kb.swaps.len() as i128),
    );
    for row in &kb.swaps {
        let dev = devices
            .iter()
            .find(|d| d.get("path").and_then(Value::as_str) == Some(row.path.as_str()));
        let name = format!("swap.devices[{}]", row.path);
        let Some(dev) = dev else {
            r.check(&format!("{name} present"), false, "absent", "present");
            continue;
        };
        r.exact(
            &format!("{name}.size_bytes vs /proc/swaps Size"),
            i(dev, "size_bytes"),
            Some(i128::from(row.size_kb * 1024)),
        );
        let used = |k: &Kernel| {
            k.swaps
                .iter()
                .find(|x| x.path == row.path)
                .map(|x| x.used_kb * 1024)
        };
        r.bracket(
            &format!("{name}.used_bytes vs /proc/swaps Used"),
            u(dev, "used_bytes"),
            used(kb),
            used(ka),
            0,
        );
        r.exact(
            &format!("{name}.priority"),
            i(dev, "priority"),
            Some(i128::from(row.priority)),
        );
    }

    // vmstat counters
    for key in [
        "zswpin",
        "zswpout",
        "zswpwb",
        "pswpin",
        "pswpout",
        "swpin_zero",
        "swpout_zero",
    ] {
        br(
            &mut r,
            &format!("vmstat {key}"),
            &format!("vmstat.{key}"),
            &|k| k.vm(key),
            0,
        );
    }

    // capacity: MemTotal + SwapTotal less what the pools cost
    br(
        &mut r,
        "MemTotal + SwapTotal − Zswap − zram mem_used",
        "capacity.effective_now_bytes",
        &|k| {
            Some(
                (mem(k, "MemTotal")? + mem(k, "SwapTotal")?)
                    .saturating_sub(mem(k, "Zswap")? + k.zram_mem_used()),
            )
        },
        0,
    );
}

fn pages(n: u64, ps: u64) -> String {
    format!("{n} pages ({:.1} MiB)", (n * ps) as f64 / MIB as f64)
}

fn d(after: &Kernel, before: &Kernel, f: impl Fn(&Kernel) -> Option<u64>) -> u64 {
    f(after).unwrap_or(0).saturating_sub(f(before).unwrap_or(0))
}

fn tol(n: u64) -> u64 {
    (n / 100).max(16)
}

fn readme(title: &str, wl: &Handle, res: Resident, k: &Kernel, held: &str) -> String {
    let params = kernel::read_params().unwrap_or_default();
    let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let swaps: Vec<String> = k
        .swaps
        .iter()
        .map(|s| {
            format!(
                "{} ({}, {} kB, used {} kB, prio {})",
                s.path, s.kind, s.size_kb, s.used_kb, s.priority
            )
        })
        .collect();
    format!(
        "# {title}\n\n\
         Captured live by the end-to-end test (`tests/e2e`, `ZSWAPTOP_E2E_SAVE_FIXTURES`) on Linux {kernel}, \
         PAGE_SIZE {ps}, with the files zswaptop reads copied under this directory as they were at that moment \
         (hostname redacted).\n\n\
         ## Workload\n\n\
         One process (its /proc/PID/status is included) held {mib} MiB of anonymous memory ({pages} pages, no THP) \
         inside memory cgroup `zswaptop-e2e` (limit 256 MiB):\n\n\
         - zero-filled: {zero} pages (10 %), {zr} resident at capture\n\
         - random, incompressible: {random} pages (10 %), {rr} resident\n\
         - compressible (1/3 random bytes, 2/3 a repeated phrase): {comp} pages (80 %), {cr} resident\n\n\
         ## State\n\n{held}\n\n\
         - zswap parameters: {params}\n\
         - swap devices: {swaps}\n\
         - meminfo: Zswap {zswap} kB, Zswapped {zswapped} kB, SwapTotal {st} kB, SwapFree {sf} kB, SwapCached {sc} kB\n\
         - zswap debugfs: {dbg}\n\
         - zram0 mm_stat: {mm}\n",
        kernel = kernel::read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        ps = k.page_size,
        mib = wl.pages * k.page_size / MIB,
        pages = wl.pages,
        zero = wl.zero,
        zr = res.zero,
        random = wl.random,
        rr = res.random,
        comp = wl.compressible,
        cr = res.compressible,
        params = p.join(", "),
        swaps = swaps.join("; "),
        zswap = k.mem("Zswap").unwrap_or(0) / 1024,
        zswapped = k.mem("Zswapped").unwrap_or(0) / 1024,
        st = k.mem("SwapTotal").unwrap_or(0) / 1024,
        sf = k.mem("SwapFree").unwrap_or(0) / 1024,
        sc = k.mem("SwapCached").unwrap_or(0) / 1024,
        dbg = k
            .debugfs
            .as_ref()
            .map(|d| d
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", "))
            .unwrap_or_else(|| "not readable".into()),
        mm = k
            .zram0
            .map(|m| format!(
                "orig_data_size {} B, compr_data_size {} B, mem_used_total {} B, same_pages {}, huge_pages {}",
                m.orig, m.compr, m.mem_used, m.same_pages, m.huge_pages
            ))
            .unwrap_or_else(|| "absent".into()),
    )
}

/// Runs every phase in order. The workload stays alive from phase 1 to the end.
/// `ZSWAPTOP_E2E_PHASES=advise`: only the advisor's phase.
pub fn advise_only() -> bool {
    std::env::var("ZSWAPTOP_E2E_PHASES").as_deref() == Ok("advise")
}

pub fn run_all(ctx: &Ctx) -> Result<()> {
    if advise_only() {
        return crate::advise::run(ctx);
    }
    let ps = ctx.ps;

    // ---------------------------------------------------------------- phase 1
    rep().phase("phase1 — zswap absorbs (enabled, shrinker off, max_pool_percent 20)");
    kernel::set_params_to_keep()?;
    kernel::set_param("enabled", "Y")?;
    if kernel::read_debugfs().is_err() {
        bail!(
            "{} is not readable after enabling zswap",
            kernel::ZSWAP_DEBUGFS
        );
    }
    let k0 = ctx.settle("before the workload")?;
    let t = Instant::now();
    let mut wl = Handle::spawn(|pid| ctx.cg.add(pid))?;
    println!(
        "  workload {} filled {} in {:.1}s: zero {}, random {}, compressible {}",
        wl.pid,
        pages(wl.pages, ps),
        t.elapsed().as_secs_f64(),
        wl.zero,
        wl.random,
        wl.compressible
    );
    ctx.cg.reclaim()?;
    ctx.settle("after reclaiming the cgroup")?;
    let res = wl.resident()?;
    let snap = ctx.snap(false)?;
    let k1 = &snap.after;
    {
        let r = rep();
        r.note(&format!(
            "workload out of RAM: zero {} / random {} / compressible {} pages (resident {} / {} / {})",
            wl.zero - res.zero,
            wl.random - res.random,
            wl.compressible - res.compressible,
            res.zero,
            res.random,
            res.compressible
        ));
    }
    common_checks(&snap, ps, true);
    {
        let mut r = rep();
        // pagemap: every page the workload wrote is either mapped or has a swap entry, so the
        // pages not resident are exactly the pages swapped out.
        r.near(
            "workload pages with a swap entry (pagemap) vs its pages not present in RAM",
            Some(res.swapped),
            wl.pages - (res.zero + res.random + res.compressible),
            0,
        );
        let random_out = wl.random - res.random;
        let zero_out = wl.zero - res.zero;
        let nonzero_out = random_out + wl.compressible - res.compressible;
        r.near(
            "kernel Δstored_incompressible_pages vs workload random pages out",
            Some(d(k1, &k0, |k| k.dbg("stored_incompressible_pages"))),
            random_out,
            tol(random_out),
        );
        r.near(
            "kernel Δstored_pages vs workload non-zero pages out",
            Some(d(k1, &k0, |k| k.dbg("stored_pages"))),
            nonzero_out,
            tol(nonzero_out),
        );
        let zero_net =
            d(k1, &k0, |k| k.vm("swpout_zero")).saturating_sub(d(k1, &k0, |k| k.vm("swpin_zero")));
        r.near(
            "kernel Δswpout_zero − Δswpin_zero vs workload zero pages out",
            Some(zero_net),
            zero_out,
            tol(zero_out),
        );
        r.near(
            "kernel Δpswpout (nothing reached the disk)",
            Some(d(k1, &k0, |k| k.vm("pswpout"))),
            0,
            0,
        );
        r.near(
            "zswaptop incompressible_bytes/page vs workload random pages out",
            u(&snap.json, "zswap.incompressible_bytes")
                .map(|v| v / ps - k0.dbg("stored_incompressible_pages").unwrap_or(0)),
            random_out,
            tol(random_out),
        );
        let base = k0.not_in_ram().unwrap_or(0) / ps;
        r.note(&format!(
            "not_in_ram = what was outside RAM before ({base} pages) + the zero-filled pages swapped since \
             (Δswpout_zero − Δswpin_zero = {zero_net}) + the disk (Δpswpout − Δpswpin = {})",
            d(k1, &k0, |k| k.vm("pswpout")) as i64 - d(k1, &k0, |k| k.vm("pswpin")) as i64
        ));
        r.near(
            "zswaptop swap.not_in_ram_bytes/page vs zero-filled pages out",
            u(&snap.json, "swap.not_in_ram_bytes").map(|v| v / ps),
            base + zero_out,
            tol(zero_out),
        );
    }
    process_checks(ctx, wl.pid)?;
    ctx.capture_phase(
        "e2e-phase1-zswap",
        wl.pid,
        &snap,
        &readme(
            "e2e phase 1: zswap absorbs the workload",
            &wl,
            res,
            k1,
            "zswap enabled, shrinker off, max_pool_percent 20, a 1.5 GiB swapfile as the only swap device. The \
             workload filled its region under the cgroup limit, then reclaiming the cgroup (memory.force_empty on \
             cgroup v1, memory.reclaim on v2) pushed the rest out: every non-zero \
             page is in zswap (random ones stored as-is: stored_incompressible_pages), the zero-filled pages hold a \
             swap slot through the swap zeromap (vmstat swpout_zero), nothing went to disk (pswpout unchanged).",
        ),
        false,
    )?;

    // Half of the workload swapped back in by reads: those pages stay in the swap cache while
    // mapped again, in both AnonPages and SwapCached (mm/swap_state.c keeps it there while mapped). The breakdown
    // counts them once, and unaccounted stays small (common_checks).
    rep().phase("phase1b — half of the workload read back in (mapped swap cache)");
    let t = Instant::now();
    let read = wl.cmd("read 0 50")?;
    ctx.settle("after reading half back")?;
    println!("  {read} in {:.1}s", t.elapsed().as_secs_f64());
    let snap = ctx.snap(false)?;
    common_checks(&snap, ps, true);
    {
        let mut r = rep();
        r.check(
            "workload read back every page as written",
            read.contains(" wrong=0"),
            &read,
            "wrong=0",
        );
        r.at_least(
            "memory.swap_cache_mapped_bytes/page after reading half back",
            u(&snap.json, "memory.swap_cache_mapped_bytes").map(|v| v / ps),
            1,
        );
    }

    // ---------------------------------------------------------------- phase 2
    rep().phase(
        "phase2 — writeback (max_pool_percent 1: pool limit hit, shrink worker writes back)",
    );
    let k0 = ctx.settle("before lowering the limit")?;
    // The swapfile's disk, found independently of zswaptop, and its I/O counters at the start of
    // this phase (the window the write check below covers).
    let dev = kernel::file_device(machine::SWAPFILE)?;
    let io0 = kernel::block_stat(&dev.dir)?;
    kernel::set_param("max_pool_percent", "1")?;
    // A two-sample snapshot (--once -i 2) runs while the workload is pushed out again: its
    // rates are checked against the counters the kernel moved in that window.
    let rates_before = Kernel::read()?;
    let io_before = kernel::block_stat(&dev.dir)?;
    let bin = ctx.bin.clone();
    let sampler = std::thread::spawn(move || run_zswaptop(&bin, &["-i", "2", "--cgroups"], false));
    let t = Instant::now();
    let touched = cycle(&ctx.cg, &mut wl, 0, 100)?;
    println!(
        "  touched {touched} pages in 5 % steps, each paged out, in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    let (rates_json, rates_status) = sampler
        .join()
        .map_err(|_| anyhow!("the rates sampler thread panicked"))??;
    let rates_after = Kernel::read()?;
    let io_after = kernel::block_stat(&dev.dir)?;
    // Every store attempt while the pool is over its limit queues the shrink worker, but the
    // worker gives each entry a second chance (referenced bit) and gives up after 16 of them, so
    // on a cgroup-v1 machine it writes back only a trickle. More 5 % rounds, within a time budget,
    // until it has written at least one page back.
    let budget = Instant::now();
    let mut step = 0;
    let mut rounds = 0;
    loop {
        let k = ctx.settle_quiet()?;
        if d(&k, &k0, |k| k.dbg("written_back_pages")) > 0 || budget.elapsed() > WRITEBACK_BUDGET {
            break;
        }
        wl.cmd(&format!("touch {step} {}", step + 5))?;
        ctx.cg.reclaim()?;
        step = (step + 5) % 100;
        rounds += 1;
    }
    println!(
        "  {rounds} more 5 % round(s) in {:.1}s for the shrink worker to write back",
        budget.elapsed().as_secs_f64()
    );
    // Settled: every swap write has completed and is in the device's counters.
    let k_end = ctx.settle_quiet()?;
    let io_end = kernel::block_stat(&dev.dir)?;
    let res = wl.resident()?;
    let snap = ctx.snap(false)?;
    let k1 = &snap.after;
    {
        let mut r = rep();
        r.at_least(
            "kernel Δpool_limit_hit > 0",
            Some(d(k1, &k0, |k| k.dbg("pool_limit_hit"))),
            1,
        );
        let wb = d(k1, &k0, |k| k.dbg("written_back_pages"));
        if wb == 0 {
            r.skip(
                "kernel Δwritten_back_pages > 0",
                &format!(
                    "the shrink worker wrote nothing back within {}s (cgroup v1: second-chance LRU); the \
                     writeback counters are still compared below",
                    WRITEBACK_BUDGET.as_secs()
                ),
            );
        } else {
            r.at_least("kernel Δwritten_back_pages > 0", Some(wb), 1);
            r.at_least(
                "kernel Δvmstat zswpwb > 0",
                Some(d(k1, &k0, |k| k.vm("zswpwb"))),
                1,
            );
        }
        r.at_least(
            "kernel Δvmstat pswpout > 0",
            Some(d(k1, &k0, |k| k.vm("pswpout"))),
            1,
        );
    }
    common_checks(&snap, ps, true);
    {
        let mut r = rep();
        let j = &snap.json;
        r.bracket(
            "zswap.debugfs.written_back_pages vs vmstat zswpwb (same counter on 6.8+)",
            u(j, "zswap.debugfs.written_back_pages"),
            snap.before.vm("zswpwb"),
            snap.after.vm("zswpwb"),
            0,
        );
        let wb = d(k1, &k0, |k| k.dbg("written_back_pages"));
        let pin = d(k1, &k0, |k| k.vm("pswpin"));
        let bound = i128::from(wb) - i128::from(pin);
        r.note(&format!(
            "every page zswap wrote back ({wb} this phase) is on disk until read back; at most Δpswpin = {pin} were \
             read back, so at least {bound} pages of swap.not_in_ram are on disk"
        ));
        r.at_least(
            "swap.not_in_ram_bytes/page ≥ Δwritten_back − Δpswpin",
            u(j, "swap.not_in_ram_bytes").map(|v| v / ps),
            bound,
        );
        r.check(
            "rates is null without -i (one sample)",
            is_null(j, "rates"),
            &report::show(report::at(j, "rates")),
            "null",
        );
    }
    rates_checks(&rates_json, rates_status, &rates_before, &rates_after, ps);
    device_checks(
        &rates_json,
        &dev,
        (io_before, io_after),
        d(&rates_after, &rates_before, |k| k.vm("pswpout")),
    );
    writeback_on_disk(&dev, (io0, io_end), (&k0, &k_end), ps);
    cgroups_checks(&rates_json, ctx.cg.kind);
    cgroup_values(ctx)?;
    {
        // Settled now: a two-sample snapshot must show every swap rate as exactly 0.
        let kb = Kernel::read()?;
        let (j, _) = run_zswaptop(&ctx.bin, &["-i", "0.5"], false)?;
        let ka = Kernel::read()?;
        let mut r = rep();
        for c in ["zswpout", "zswpin", "zswpwb", "pswpout", "pswpin"] {
            let moved = d(&ka, &kb, |k| k.vm(c));
            let v = f(&j, &format!("rates.{c}_bytes_per_sec"));
            r.check(
                &format!("settled: rates.{c}_bytes_per_sec is 0 (kernel Δ{c} {moved})"),
                v == Some(0.0) || (moved > 0 && v.is_some_and(|v| v >= 0.0)),
                &report::show(report::at(&j, &format!("rates.{c}_bytes_per_sec"))),
                "0",
            );
        }
    }
    ctx.capture_phase(
        "e2e-phase2-writeback",
        wl.pid,
        &snap,
        &readme(
            "e2e phase 2: zswap writeback to the swapfile",
            &wl,
            res,
            k1,
            "After phase 1, max_pool_percent was lowered to 1 and the workload rewrote one byte of every page (a \
             write fault: each page came back from zswap and lost its swap slot) in 5 % steps, each pushed out \
             again at once by reclaiming the cgroup. The pool hit its limit (pool_limit_hit), the shrink worker wrote entries back to the swapfile \
             (written_back_pages = vmstat zswpwb) and rejected stores went to disk directly (pswpout). Pages are now \
             in zswap, on disk and zero-filled.",
        ),
        false,
    )?;

    // ---------------------------------------------------------------- phase 3
    rep().phase("phase3 — zram (zswap off, zram0 swap at priority 100)");
    match machine::zram0_disksize() {
        None => rep().skip("phase 3", "no /sys/block/zram0 on this kernel"),
        Some(n) if n != 0 => rep().skip(
            "phase 3",
            &format!("zram0 is in use by someone else (disksize {n})"),
        ),
        Some(_) => phase3(ctx, &mut wl)?,
    }

    // ---------------------------------------------------------------- phase 4
    rep().phase("phase4 — no root (uid 65534), zswap on again in front of the swap devices");
    kernel::set_param("max_pool_percent", "20")?;
    kernel::set_param("enabled", "Y")?;
    let touched = cycle(&ctx.cg, &mut wl, 0, 50)?;
    println!("  touched {touched} pages in 5 % steps, each paged out");
    ctx.settle("after reclaim")?;
    let res = wl.resident()?;
    let snap = ctx.snap(true)?;
    let (root_json, _) = run_zswaptop(&ctx.bin, &[], false)?;
    {
        let mut r = rep();
        let j = &snap.json;
        r.check(
            "host.privileged is false",
            b(j, "host.privileged") == Some(false),
            &report::show(report::at(j, "host.privileged")),
            "false",
        );
        r.check(
            "zswap.debugfs is null",
            is_null(j, "zswap.debugfs"),
            &report::show(report::at(j, "zswap.debugfs")),
            "null",
        );
        let unavailable = report::at(j, "zswap.unavailable")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let entry = unavailable
            .iter()
            // The item names debugfs first (it may add what depends on it in parentheses).
            .find(|e| {
                e.get("item")
                    .and_then(Value::as_str)
                    .is_some_and(|i| i.starts_with("debugfs"))
            });
        let reason = entry
            .and_then(|e| e.get("reason"))
            .and_then(Value::as_str)
            .unwrap_or("");
        r.check(
            "zswap.unavailable lists debugfs with a reason naming root",
            reason.contains("root"),
            &report::show(entry),
            "{item: debugfs, reason: …root…}",
        );
        for path in [
            "zswap.incompressible_bytes",
            "zswap.same_filled_bytes",
            "zswap.compressor_ratio",
        ] {
            r.check(
                &format!("{path} is null (debugfs-only)"),
                is_null(j, path),
                &report::show(report::at(j, path)),
                "null",
            );
        }
        let zeros = zero_leaks(j, &root_json);
        r.check(
            "no value is 0 as uid 65534 that is non-zero as root",
            zeros.is_empty(),
            &if zeros.is_empty() {
                "none".into()
            } else {
                zeros.join(", ")
            },
            "none",
        );
    }
    common_checks(&snap, ps, false);
    if let Some(k) = snap
        .after
        .zram0
        .filter(|_| snap.after.swaps.iter().any(|s| s.path == "/dev/zram0"))
    {
        let mut r = rep();
        let z = zram_entry(&snap.json);
        r.bracket(
            "zram[zram0].orig_data_bytes vs mm_stat (as uid 65534)",
            z.as_ref().and_then(|z| u(z, "orig_data_bytes")),
            snap.before.zram0.map(|m| m.orig),
            Some(k.orig),
            0,
        );
    }
    ctx.capture_phase(
        "e2e-phase4-noroot",
        wl.pid,
        &snap,
        &readme(
            "e2e phase 4: what a non-root user can read",
            &wl,
            res,
            &snap.after,
            "zswap enabled again (max_pool_percent 20) in front of zram0 (priority 100) and the swapfile; the \
             workload rewrote half of its pages in 5 % steps, each paged out at once, so pages sit in zswap, in zram and \
             zero-filled. This tree has no sys/kernel/debug: it is what uid 65534 can read (debugfs is 0700), so \
             the pool comes from meminfo and every debugfs-only value must be null.",
        ),
        true,
    )?;

    // ---------------------------------------------------------------- end
    rep().phase("end — workload data intact after zswap, writeback and zram");
    let t = Instant::now();
    let reply = wl.cmd("verify")?;
    rep().near(
        &format!(
            "pages differing from what was written ({:.1}s)",
            t.elapsed().as_secs_f64()
        ),
        crate::workload::field(&reply, "bad"),
        0,
        0,
    );
    wl.finish()?;
    crate::advise::run(ctx)
}

/// Rewrites one byte of the pages from `from` % to `to` % in 5 % steps, paging each step out at
/// once. Pages going to disk stay under writeback for a while, and a cgroup-v1 charge that finds
/// only such pages to reclaim ends in the cgroup's OOM killer; [`Cgroup::reclaim`] never charges,
/// so the cgroup limit is not what pushes here. Returns the number of pages touched.
fn cycle(cg: &Cgroup, wl: &mut Handle, from: u64, to: u64) -> Result<u64> {
    let mut touched = 0;
    let mut step = from;
    while step < to {
        let reply = wl.cmd(&format!("touch {step} {}", (step + 5).min(to)))?;
        touched += crate::workload::field(&reply, "pages").unwrap_or(0);
        cg.reclaim()?;
        wait_for_writeback();
        step += 5;
    }
    Ok(touched)
}

/// Wait (at most 3 s) until few pages are under writeback, so the next step's faults find pages
/// the cgroup can reclaim rather than only pages still in flight to disk (which on cgroup v1
/// ends in the cgroup's OOM killer).
fn wait_for_writeback() {
    const LOW: u64 = 1024 * 1024;
    let deadline = Instant::now() + std::time::Duration::from_secs(3);
    while Instant::now() < deadline {
        let in_flight = kernel::Kernel::read()
            .ok()
            .and_then(|k| k.mem("Writeback"))
            .unwrap_or(0);
        if in_flight <= LOW {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn zram_entry(j: &Value) -> Option<Value> {
    report::at(j, "zram")?
        .as_array()?
        .iter()
        .find(|z| z.get("device").and_then(Value::as_str) == Some("zram0"))
        .cloned()
}

fn phase3(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    let ps = ctx.ps;
    kernel::set_param("enabled", "N")?;
    let alg = machine::zram_setup("1G")?;
    println!("  zram0: {alg}, 1 GiB, swapon -p 100");
    let k0 = ctx.settle("zram0 ready")?;
    let t = Instant::now();
    let touched = cycle(&ctx.cg, wl, 0, 100)?;
    println!(
        "  touched {touched} pages in 5 % steps, each paged out, in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    ctx.settle("after reclaim to zram")?;
    let res = wl.resident()?;
    let snap = ctx.snap(false)?;
    let k1 = &snap.after;
    common_checks(&snap, ps, true);
    let mut r = rep();
    let j = &snap.json;
    let z = zram_entry(j);
    r.check(
        "zram has an entry for zram0",
        z.is_some(),
        &report::show(report::at(j, "zram")),
        "device zram0",
    );
    let z = z.unwrap_or(Value::Null);
    let mm = |k: &Kernel| k.zram0;
    type Col = fn(&kernel::MmStat) -> u64;
    let rows: [(&str, Col); 11] = [
        ("orig_data_bytes", |m| m.orig),
        ("compr_data_bytes", |m| m.compr),
        ("mem_used_bytes", |m| m.mem_used),
        ("mem_limit_bytes", |m| m.mem_limit),
        ("mem_used_max_bytes", |m| m.mem_used_max),
        ("huge_pages", |m| m.huge_pages),
        ("huge_pages_since", |m| m.huge_pages_since),
        ("pages_compacted", |m| m.pages_compacted),
        ("same_pages", |m| m.same_pages),
        // derived: mem_used − compr and orig − mem_used
        ("allocator_overhead_bytes", |m| {
            m.mem_used.saturating_sub(m.compr)
        }),
        ("saved_bytes", |m| m.orig.saturating_sub(m.mem_used)),
    ];
    for (key, get) in rows {
        r.bracket(
            &format!("zram[zram0].{key} vs mm_stat"),
            u(&z, key),
            mm(&snap.before).map(|m| get(&m)),
            mm(k1).map(|m| get(&m)),
            0,
        );
    }
    let eff = |k: &Kernel| {
        k.zram0
            .and_then(|m| (m.mem_used > 0).then(|| m.orig as f64 / m.mem_used as f64))
    };
    r.bracket_f(
        "zram[zram0].effective_ratio vs orig/mem_used",
        f(&z, "effective_ratio"),
        eff(&snap.before),
        eff(k1),
        0.005,
    );
    let ratio = |k: &Kernel| {
        k.zram0
            .and_then(|m| (m.compr > 0).then(|| m.orig as f64 / m.compr as f64))
    };
    r.bracket_f(
        "zram[zram0].compression_ratio vs orig/compr",
        f(&z, "compression_ratio"),
        ratio(&snap.before),
        ratio(k1),
        0.005,
    );
    r.exact(
        "zram[zram0].disksize_bytes",
        i(&z, "disksize_bytes"),
        Some(1 << 30),
    );
    r.check(
        "zram[zram0].algorithm",
        s(&z, "algorithm") == Some(alg.as_str()),
        &report::show(z.get("algorithm")),
        &alg,
    );
    r.check(
        "zram[zram0].is_swap",
        b(&z, "is_swap") == Some(true),
        &report::show(z.get("is_swap")),
        "true",
    );
    r.check(
        "zram[zram0].initialized",
        b(&z, "initialized") == Some(true),
        &report::show(z.get("initialized")),
        "true",
    );
    let zsum: i128 = report::at(j, "zram")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|z| i(z, "mem_used_bytes")).sum())
        .unwrap_or(0);
    r.exact(
        "memory.breakdown.zram_pool_bytes == Σ zram[].mem_used_bytes",
        i(j, "memory.breakdown.zram_pool_bytes"),
        Some(zsum),
    );
    let prio = report::at(j, "swap.devices")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .find(|d| d.get("path").and_then(Value::as_str) == Some("/dev/zram0"))
                .cloned()
        });
    r.exact(
        "swap.devices[/dev/zram0].priority",
        prio.as_ref().and_then(|p| i(p, "priority")),
        Some(100),
    );
    // What the kernel did with the workload (the test's expectations, not zswaptop's numbers).
    // Residency is read again after the kernel snapshot, so a page reclaimed in between counts
    // on either side; a page still in the swap cache is both resident and in zram, so the
    // kernel may be above "pages out" by up to SwapCached.
    let res2 = wl.resident()?;
    let outs = |r: &Resident| {
        let random = wl.random - r.random;
        (random, random + wl.compressible - r.compressible)
    };
    let ((r1, n1), (r2, n2)) = (outs(&res), outs(&res2));
    let cached = k1.mem("SwapCached").unwrap_or(0) / ps;
    r.note(&format!(
        "workload pages out: random {r1} then {r2}, non-zero {n1} then {n2}; swap cache {cached} pages"
    ));
    let (lo, hi) = (r1.min(r2), r1.max(r2) + cached);
    r.bracket(
        "kernel zram huge_pages vs workload random pages out",
        k1.zram0.map(|m| m.huge_pages),
        Some(lo),
        Some(hi),
        tol(lo),
    );
    let (lo, hi) = (n1.min(n2), n1.max(n2) + cached);
    r.bracket(
        "kernel zram orig_data_size/page vs workload non-zero pages out",
        k1.zram0.map(|m| m.orig / ps),
        Some(lo),
        Some(hi),
        tol(lo),
    );
    r.note(&format!(
        "zero-filled pages never reach zram: they take a swap slot through the zeromap (Δswpout_zero {}), same_pages {}",
        d(k1, &k0, |k| k.vm("swpout_zero")),
        k1.zram0.map(|m| m.same_pages).unwrap_or(0)
    ));
    drop(r);
    ctx.capture_phase(
        "e2e-phase3-zram",
        wl.pid,
        &snap,
        &readme(
            "e2e phase 3: zram0 as the preferred swap device",
            wl,
            res,
            k1,
            &format!(
                "zswap disabled (pages already in it stay until loaded), zram0 initialised ({alg}, disksize 1 GiB, \
                 mkswap, swapon -p 100) above the swapfile. The workload rewrote one byte of every page (each came \
                 back from zswap or disk and lost its slot), in 5 % steps each paged out at once: non-zero pages are in zram \
                 (random ones as huge_pages), zero-filled pages only hold swap slots (zeromap)."
            ),
        ),
        false,
    )?;
    Ok(())
}

/// Paths whose value is the number 0 in `nobody` but a non-zero number in `root` (volatile
/// measurements such as uptime, PSI averages and the swap cache's mapped part excepted).
fn zero_leaks(nobody: &Value, root: &Value) -> Vec<String> {
    fn walk(path: &str, a: &Value, b: Option<&Value>, out: &mut Vec<String>) {
        match a {
            Value::Object(m) => {
                for (k, v) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, v, b.and_then(|b| b.get(k)), out);
                }
            }
            Value::Array(items) => {
                for (n, v) in items.iter().enumerate() {
                    walk(&format!("{path}.{n}"), v, b.and_then(|b| b.get(n)), out);
                }
            }
            Value::Number(n) if n.as_f64() == Some(0.0) => {
                // The swap cache's split into mapped and not mapped moves with every fault in
                // the workload and the rest of the machine between the two runs.
                let volatile = path.starts_with("psi.")
                    || path.starts_with("host.")
                    || path.starts_with("rates")
                    || path == "memory.swap_cache_mapped_bytes"
                    || path == "memory.breakdown.swap_cache_bytes";
                if let Some(other) = b.and_then(Value::as_f64)
                    && other != 0.0
                    && !volatile
                {
                    out.push(format!("{path} (root: {other})"));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", nobody, Some(root), &mut out);
    out
}

/// A copy of the binary that uid 65534 can execute: the original when every directory on its
/// path is world-searchable, else a copy in a fresh 0755 temporary directory.
pub fn nobody_binary(bin: &Path, tmp: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let world_x = |p: &Path| {
        fs::metadata(p)
            .map(|m| m.permissions().mode() & 0o001 != 0)
            .unwrap_or(false)
    };
    let ok = bin.ancestors().skip(1).all(world_x) && world_x(bin);
    if ok {
        return Ok(bin.to_path_buf());
    }
    let dir = tmp.join("nobody-bin");
    fs::create_dir_all(&dir)?;
    fs::set_permissions(tmp, fs::Permissions::from_mode(0o755))?;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755))?;
    let copy = dir.join("zswaptop");
    fs::copy(bin, &copy)?;
    fs::set_permissions(&copy, fs::Permissions::from_mode(0o755))?;
    Ok(copy)
}

/// Checks a two-sample snapshot taken while pages moved. zswaptop's second sample must lie between
/// the kernel readings around the run, and the first sample it implies (second − rate × interval)
/// must lie between the reading before the run and the second sample (±1 page for rounding).
fn rates_checks(j: &Value, status: std::process::ExitStatus, kb: &Kernel, ka: &Kernel, ps: u64) {
    let mut r = rep();
    r.check(
        "zswaptop --once --json -i 2 exits 0",
        status.success(),
        &status.to_string(),
        "exit status: 0",
    );
    let dt = f(j, "rates.interval_seconds");
    r.check(
        "rates.interval_seconds ≈ 2",
        dt.is_some_and(|v| (1.9..10.0).contains(&v)),
        &report::show(report::at(j, "rates.interval_seconds")),
        "2 s",
    );
    let dt = dt.unwrap_or(0.0);
    let implied = |second: Option<u64>, rate: Option<f64>, unit: f64| -> Option<u64> {
        let moved = (rate? * dt / unit).round();
        (moved >= 0.0).then(|| second?.checked_sub(moved as u64))?
    };
    for c in [
        "zswpout",
        "zswpin",
        "zswpwb",
        "pswpout",
        "pswpin",
        "swpout_zero",
        "swpin_zero",
    ] {
        let second = u(j, &format!("vmstat.{c}"));
        r.bracket(
            &format!("-i 2: vmstat.{c} (second sample)"),
            second,
            kb.vm(c),
            ka.vm(c),
            0,
        );
        let rate = f(j, &format!("rates.{c}_bytes_per_sec"));
        r.bracket(
            &format!("-i 2: vmstat.{c} − rates.{c}_bytes_per_sec × interval / page"),
            implied(second, rate, ps as f64),
            kb.vm(c),
            second,
            1,
        );
    }
    r.at_least(
        "-i 2: rates.zswpin_bytes_per_sec > 0 (pages came back from zswap in the window)",
        f(j, "rates.zswpin_bytes_per_sec").map(|v| v as u64),
        1,
    );
    for c in ["written_back_pages", "pool_limit_hit"] {
        let second = u(j, &format!("zswap.debugfs.{c}"));
        r.bracket(
            &format!("-i 2: zswap.debugfs.{c} (second sample)"),
            second,
            kb.dbg(c),
            ka.dbg(c),
            0,
        );
        r.bracket(
            &format!("-i 2: debugfs {c} − rates.debugfs_per_sec.{c} × interval"),
            implied(second, f(j, &format!("rates.debugfs_per_sec.{c}")), 1.0),
            kb.dbg(c),
            second,
            1,
        );
    }
    // bypassed = Δpswpout − Δzswpwb (at least 0), from the same two samples.
    let out = f(j, "rates.pswpout_bytes_per_sec");
    let wb = f(j, "rates.zswpwb_bytes_per_sec");
    let want = out.zip(wb).map(|(o, w)| (o - w).max(0.0));
    r.bracket_f(
        "-i 2: rates.bypassed_zswap_bytes_per_sec = pswpout − zswpwb rate",
        f(j, "rates.bypassed_zswap_bytes_per_sec"),
        want,
        want,
        0.001,
    );
}

/// An ```` ```expected ```` block (JSON path = value) computed from the captured files alone, with
/// the formulas of docs/json-schema.md, for the fixture tests.
fn expected_block(tree: &Path) -> String {
    let read = |rel: &str| fs::read_to_string(tree.join(rel)).unwrap_or_default();
    let meminfo = read("proc/meminfo");
    let kb = |key: &str| -> Option<u64> {
        meminfo.lines().find_map(|l| {
            let (k, rest) = l.split_once(':')?;
            (k == key).then(|| rest.split_whitespace().next()?.parse::<u64>().ok())?
        })
    };
    let ps: u64 = read("pagesize")
        .trim()
        .parse()
        .unwrap_or_else(|_| kernel::page_size());
    let dbg = |name: &str| -> Option<u64> {
        read(&format!("sys/kernel/debug/zswap/{name}"))
            .trim()
            .parse()
            .ok()
    };
    let param = |name: &str| -> Option<u64> {
        read(&format!("sys/module/zswap/parameters/{name}"))
            .trim()
            .parse()
            .ok()
    };
    let mut lines: Vec<String> = Vec::new();
    let mut put = |key: &str, v: Option<u64>| {
        lines.push(format!(
            "{key} = {}",
            v.map(|v| v.to_string()).unwrap_or_else(|| "null".into())
        ));
    };
    let b = |v: Option<u64>| v.map(|v| v * 1024);
    put("memory.total_bytes", b(kb("MemTotal")));
    put("memory.free_bytes", b(kb("MemFree")));
    put("memory.breakdown.zswap_pool_bytes", b(kb("Zswap")));
    put("zswap.pool_bytes", b(kb("Zswap")));
    put("zswap.stored_bytes", b(kb("Zswapped")));
    put(
        "zswap.pool_limit_bytes",
        kb("MemTotal")
            .zip(param("max_pool_percent"))
            .map(|(t, pct)| t * 1024 / ps * pct / 100 * ps),
    );
    put("swap.total_bytes", b(kb("SwapTotal")));
    put(
        "swap.used_bytes",
        kb("SwapTotal")
            .zip(kb("SwapFree"))
            .map(|(t, f)| (t - f) * 1024),
    );
    put("swap.in_zswap_bytes", b(kb("Zswapped")));
    put("swap.in_swap_cache_bytes", b(kb("SwapCached")));
    if tree.join("sys/kernel/debug/zswap").is_dir() {
        put(
            "zswap.incompressible_bytes",
            dbg("stored_incompressible_pages").map(|p| p * ps),
        );
        for name in [
            "written_back_pages",
            "pool_limit_hit",
            "stored_pages",
            "pool_total_size",
        ] {
            put(&format!("zswap.debugfs.{name}"), dbg(name));
        }
    } else {
        put("zswap.debugfs", None);
        put("zswap.incompressible_bytes", None);
    }
    let mm: Vec<u64> = read("sys/block/zram0/mm_stat")
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    if mm.len() >= 8 {
        for (n, key) in ["orig_data_bytes", "compr_data_bytes", "mem_used_bytes"]
            .iter()
            .enumerate()
        {
            put(&format!("zram.0.{key}"), Some(mm[n]));
        }
        put("zram.0.huge_pages", Some(mm[7]));
        put("memory.breakdown.zram_pool_bytes", Some(mm[2]));
    }
    format!(
        "\n## Expected values\n\nComputed from the files of this tree alone (kB × 1024, pages × pagesize), \
         independently of zswaptop:\n\n```expected\n{}\n```\n",
        lines.join("\n")
    )
}

/// Phase 1: `--top 5` ranks the workload first, with the kernel's VmSwap, and estimates its zswap
/// share from the global ratio on a v1 machine (from its cgroup on v2).
fn process_checks(ctx: &Ctx, pid: u32) -> Result<()> {
    let vm_before = kernel::vm_swap(pid)?;
    let kb = Kernel::read()?;
    let (j, status) = run_zswaptop(&ctx.bin, &["--top", "5"], false)?;
    let ka = Kernel::read()?;
    let vm_after = kernel::vm_swap(pid)?;
    let mut r = rep();
    r.check(
        "zswaptop --once --json --top 5 exits 0",
        status.success(),
        &status.to_string(),
        "exit status: 0",
    );
    let top = report::at(&j, "processes.top")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    r.check(
        "processes.top has 1 to 5 rows",
        (1..=5).contains(&top.len()),
        &top.len().to_string(),
        "1..=5",
    );
    let first = top.first().cloned().unwrap_or(Value::Null);
    r.exact(
        "processes.top.0.pid is the workload's",
        i(&first, "pid"),
        Some(i128::from(pid)),
    );
    r.bracket(
        "processes.top.0.swap_bytes vs /proc/PID/status VmSwap",
        u(&first, "swap_bytes"),
        Some(vm_before),
        Some(vm_after),
        0,
    );
    r.at_least(
        "processes.total_swap_bytes ≥ the workload's VmSwap",
        u(&j, "processes.total_swap_bytes"),
        i128::from(vm_before.min(vm_after)),
    );
    let from = s(&first, "estimate_from");
    match ctx.cg.kind {
        machine::CgroupKind::V1 => {
            r.check(
                "processes.top.0.estimate_from is \"global ratio\" (cgroup v1)",
                from == Some("global ratio"),
                &report::show(first.get("estimate_from")),
                "global ratio",
            );
            // VmSwap × Zswapped ÷ (SwapTotal − SwapFree), rounded; zswaptop reads VmSwap and
            // meminfo at two instants, so every pairing of the readings around it bounds it.
            let est = |vm: u64, k: &Kernel| -> Option<u64> {
                let (z, used) = (u128::from(k.mem("Zswapped")?), u128::from(k.swap_used()?));
                (used > 0).then(|| {
                    let z = z.min(used);
                    u64::try_from((u128::from(vm) * z + used / 2) / used).unwrap_or(u64::MAX)
                })
            };
            let all: Vec<u64> = [
                (vm_before, &kb),
                (vm_before, &ka),
                (vm_after, &kb),
                (vm_after, &ka),
            ]
            .iter()
            .filter_map(|(vm, k)| est(*vm, k))
            .collect();
            r.bracket(
                "processes.top.0.zswap_estimate_bytes vs VmSwap × Zswapped ÷ swap used",
                u(&first, "zswap_estimate_bytes"),
                all.iter().min().copied(),
                all.iter().max().copied(),
                1,
            );
            r.note(&format!(
                "workload {pid}: VmSwap {vm_before} → {vm_after} B; Zswapped {} B of {} B swap used",
                ka.mem("Zswapped").unwrap_or(0),
                ka.swap_used().unwrap_or(0)
            ));
        }
        machine::CgroupKind::V2 => {
            r.check(
                "processes.top.0.estimate_from is \"cgroup\" (cgroup v2)",
                from == Some("cgroup"),
                &report::show(first.get("estimate_from")),
                "cgroup",
            );
        }
    }
    Ok(())
}

/// Phase 2, the `-i 2` run: the swapfile's device is the one `stat -c %d` names, and its I/O
/// counters lie between the readings taken around the run.
fn device_checks(
    j: &Value,
    dev: &kernel::FileDevice,
    (before, after): (kernel::BlockStat, kernel::BlockStat),
    swapped_out: u64,
) {
    let mut r = rep();
    r.note(&format!(
        "{}: stat -c %d → {} → /sys/dev/block/{} = {} (disk {})",
        machine::SWAPFILE,
        dev.devnum,
        dev.devnum,
        dev.dir.display(),
        dev.disk
    ));
    let entry = report::at(j, "swap.devices")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .find(|d| d.get("path").and_then(Value::as_str) == Some(machine::SWAPFILE))
                .cloned()
        })
        .unwrap_or(Value::Null);
    r.check(
        "swapfile: block_device is its st_dev device (stat -c %d)",
        s(&entry, "block_device") == Some(dev.name.as_str()),
        &report::show(entry.get("block_device")),
        &dev.name,
    );
    r.check(
        "swapfile: io.device is that device",
        s(&entry, "io.device") == Some(dev.name.as_str()),
        &report::show(report::at(&entry, "io.device")),
        &dev.name,
    );
    let disks: Vec<&str> = report::at(&entry, "disks")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    r.check(
        "swapfile: disks is the disk below it",
        disks == [dev.disk.as_str()],
        &format!("{disks:?}"),
        &format!("[{:?}]", dev.disk),
    );
    const SECTOR: u64 = 512;
    let second = u(&entry, "io.write_total_bytes");
    r.bracket(
        "swapfile: io.write_total_bytes vs stat write sectors × 512",
        second,
        Some(before.write_sectors * SECTOR),
        Some(after.write_sectors * SECTOR),
        0,
    );
    r.bracket(
        "swapfile: io.read_total_bytes vs stat read sectors × 512",
        u(&entry, "io.read_total_bytes"),
        Some(before.read_sectors * SECTOR),
        Some(after.read_sectors * SECTOR),
        0,
    );
    // The first sample zswaptop's rate implies: second − rate × interval.
    let dt = f(j, "rates.interval_seconds").unwrap_or(0.0);
    let rate = f(&entry, "io.write_bytes_per_sec");
    let implied = match (second, rate) {
        (Some(b), Some(v)) if v >= 0.0 => b.checked_sub((v * dt).round() as u64),
        _ => None,
    };
    r.bracket(
        "swapfile: io.write_total_bytes − write_bytes_per_sec × interval",
        implied,
        Some(before.write_sectors * SECTOR),
        second,
        SECTOR,
    );
    let busy = f(&entry, "io.busy_percent");
    r.check(
        "swapfile: io.busy_percent in 0..=100",
        busy.is_some_and(|b| (0.0..=100.0).contains(&b)),
        &busy.map_or("null".into(), |b| format!("{b:.1}")),
        "0..=100",
    );
    if swapped_out > 0 {
        r.at_least(
            "swapfile: io.write_bytes_per_sec > 0 (pswpout moved in the window)",
            rate.map(|v| v as u64),
            1,
        );
    }
}

/// Phase 2 over the whole phase: what swap wrote out (pswpout: zswap writeback and rejected
/// stores) went to the swapfile's disk, so the disk's written bytes rose at least as much. Other
/// writers on the disk can only add to it.
fn writeback_on_disk(
    dev: &kernel::FileDevice,
    (io0, io1): (kernel::BlockStat, kernel::BlockStat),
    (k0, k1): (&Kernel, &Kernel),
    ps: u64,
) {
    const SLACK_PAGES: u64 = 16;
    let mut r = rep();
    let written = io1.write_sectors.saturating_sub(io0.write_sectors) * 512;
    let pswpout = d(k1, k0, |k| k.vm("pswpout"));
    let bound = i128::from(pswpout * ps) - i128::from(SLACK_PAGES * ps);
    r.note(&format!(
        "phase 2 window: {} wrote {} sectors = {written} B ({} write requests); vmstat pswpout +{pswpout} pages \
         = {} B; slack {SLACK_PAGES} pages",
        dev.name,
        io1.write_sectors.saturating_sub(io0.write_sectors),
        io1.write_ios.saturating_sub(io0.write_ios),
        pswpout * ps
    ));
    r.at_least(
        &format!(
            "Δ{} write sectors × 512 ≥ Δpswpout × page − slack",
            dev.name
        ),
        Some(written),
        bound,
    );
}

/// At a quiet moment: the test's cgroup's memory and swap as `--once --cgroups` prints them,
/// against the kernel's own files read just before and after the run (v1
/// `memory.usage_in_bytes` and memory.stat `total_swap`; v2 `memory.current` and
/// `memory.swap.current`).
fn cgroup_values(ctx: &Ctx) -> Result<()> {
    let dir = &ctx.cg.dir;
    let read = || -> Result<(u64, u64)> {
        let num = |f: &str| -> Result<u64> { Ok(kernel::read_trim(dir.join(f))?.parse()?) };
        Ok(match ctx.cg.kind {
            machine::CgroupKind::V1 => {
                let stat = fs::read_to_string(dir.join("memory.stat"))?;
                let swap = stat
                    .lines()
                    .find_map(|l| l.strip_prefix("total_swap "))
                    .ok_or_else(|| anyhow!("no total_swap in memory.stat"))?
                    .trim()
                    .parse()?;
                (num("memory.usage_in_bytes")?, swap)
            }
            machine::CgroupKind::V2 => (num("memory.current")?, num("memory.swap.current")?),
        })
    };
    let before = read()?;
    let (j, status) = run_zswaptop(&ctx.bin, &["--cgroups"], false)?;
    let after = read()?;
    let row = test_cgroup(&j);
    let mut r = rep();
    r.check(
        "--once --cgroups at rest exits 0",
        status.success(),
        &status.to_string(),
        "success",
    );
    // The kernel's stats flush is rate-limited (memory.stat may lag the page counter by its
    // per-CPU batches): 1 MiB of slack.
    let slack = 1 << 20;
    r.bracket(
        "cgroups[test].memory_current_bytes vs the kernel's page counter",
        row.and_then(|c| u(c, "memory_current_bytes")),
        Some(before.0),
        Some(after.0),
        slack,
    );
    r.bracket(
        "cgroups[test].swap_current_bytes vs the kernel's swap figure",
        row.and_then(|c| u(c, "swap_current_bytes")),
        Some(before.1),
        Some(after.1),
        slack,
    );
    Ok(())
}

/// The test's cgroup in `cgroups.list`, if listed.
fn test_cgroup(j: &Value) -> Option<&Value> {
    report::at(j, "cgroups.list")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| {
            c.get("path")
                .and_then(Value::as_str)
                .is_some_and(|p| p.ends_with(machine::CGROUP_NAME))
        })
}

/// `--cgroups`: on cgroup v1 the test's cgroup is listed with memory and swap (the kernel keeps
/// both there), its zswap figures null with the reason (v1 neither charges nor reports zswap per
/// cgroup), never zeros.
fn cgroups_checks(j: &Value, kind: machine::CgroupKind) {
    let mut r = rep();
    match kind {
        machine::CgroupKind::V1 => {
            r.check(
                "--cgroups on cgroup v1: cgroups.available, version 1",
                b(j, "cgroups.available") == Some(true) && i(j, "cgroups.version") == Some(1),
                &format!(
                    "{} v{}",
                    report::show(report::at(j, "cgroups.available")),
                    report::show(report::at(j, "cgroups.version"))
                ),
                "true v1",
            );
            let row = test_cgroup(j);
            r.check(
                "--cgroups on cgroup v1: the test's cgroup is listed with memory and swap",
                row.is_some_and(|c| {
                    u(c, "memory_current_bytes").is_some() && u(c, "swap_current_bytes").is_some()
                }),
                &row.map_or("not listed".to_string(), |c| {
                    format!(
                        "memory {} swap {}",
                        report::show(c.get("memory_current_bytes")),
                        report::show(c.get("swap_current_bytes"))
                    )
                }),
                "memory and swap",
            );
            let zswap_null =
                row.is_some_and(|c| is_null(c, "zswap_bytes") && is_null(c, "zswapped_bytes"));
            let reason = s(j, "cgroups.zswap_missing").unwrap_or("");
            r.check(
                "--cgroups on cgroup v1: zswap per cgroup null, with the reason",
                zswap_null && reason.contains("v1"),
                reason,
                "null, …v1…",
            );
        }
        machine::CgroupKind::V2 => {
            let listed = test_cgroup(j).is_some();
            r.check(
                "--cgroups on cgroup v2: the test's cgroup is listed",
                b(j, "cgroups.available") == Some(true) && listed,
                &report::show(report::at(j, "cgroups.available")),
                "true, listed",
            );
        }
    }
}
