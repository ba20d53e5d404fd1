//! The advisor against the kernel: a workload holding the advisor's mix of pages (text,
//! structured binary, zero-filled, same-filled, random) is sampled by `zswaptop advise --pid`,
//! then paged out into zswap running each algorithm the kernel offers it and zswaptop estimates,
//! and into zram0 running each algorithm zram0 offers and zswaptop estimates. The ratio the
//! kernel reaches (Zswapped ÷ Zswap over what the workload added; zram orig_data_size ÷
//! mem_used_total) must lie within ±10 % of the prediction.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::context::Ctx;
use crate::kernel::{self, Kernel, ZRAM0};
use crate::machine::{self, Cgroup};
use crate::rep;
use crate::workload::{Handle, MIX_VAR, SIZE_VAR};

/// The workload fits under the cgroup's 256 MiB limit, so it is all resident when sampled.
const WORKLOAD_MIB: u64 = 160;
/// The tolerance on the ratio.
const TOLERANCE_PERCENT: f64 = 10.0;

/// One calibration row.
struct Row {
    algorithm: String,
    backend: &'static str,
    predicted: Option<f64>,
    achieved: Option<f64>,
}

/// Runs `zswaptop advise ARGS --json` and parses it.
fn advise_json(bin: &Path, args: &[&str]) -> Result<Value> {
    let t = Instant::now();
    let out = Command::new(bin)
        .arg("advise")
        .args(args)
        .arg("--json")
        .current_dir("/")
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    if !out.status.success() {
        bail!(
            "zswaptop advise {} exited with {}: {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    println!(
        "  zswaptop advise {} took {:.1}s",
        args.join(" "),
        t.elapsed().as_secs_f64()
    );
    serde_json::from_slice(&out.stdout).context("advise printed no JSON")
}

fn offered(list: &str) -> Vec<String> {
    list.split_whitespace()
        .map(|w| w.trim_matches(['[', ']']).to_string())
        .collect()
}

/// Every page of the workload back in RAM (a write fault each, so each leaves swap), then
/// settled.
fn bring_back(wl: &mut Handle) -> Result<()> {
    wl.cmd("touch 0 100")?;
    kernel::settle(
        std::time::Duration::from_millis(300),
        std::time::Duration::from_secs(20),
    )?;
    Ok(())
}

/// Pages the workload out through the cgroup and returns the kernel before and after. Reading
/// the pages for the sample marked them recently used, and one reclaim of the cgroup gives up
/// after passes that free nothing (each of them ages the lists a little): it is asked again (at
/// most 30 times) until under 1 % of the workload is left in RAM.
fn page_out(cg: &Cgroup, wl: &mut Handle) -> Result<(Kernel, Kernel)> {
    let before = Kernel::read()?;
    let mut passes = 0;
    for _ in 0..30 {
        cg.reclaim()?;
        passes += 1;
        let r = wl.resident()?;
        if r.zero + r.random + r.compressible < wl.pages / 100 {
            break;
        }
    }
    let (after, _) = kernel::settle(
        std::time::Duration::from_millis(400),
        std::time::Duration::from_secs(30),
    )?;
    println!("    paged out in {passes} reclaim pass(es)");
    Ok((before, after))
}

/// The phase.
pub fn run(ctx: &Ctx) -> Result<()> {
    rep().phase("advise — predicted ratios against the kernel's, per algorithm and backend");
    // zswap on before the workload starts, as in phase 1.
    kernel::set_params_to_keep()?;
    kernel::set_param("enabled", "Y")?;
    kernel::settle(
        std::time::Duration::from_millis(300),
        std::time::Duration::from_secs(10),
    )?;
    let envs = [
        (SIZE_VAR, WORKLOAD_MIB.to_string()),
        (MIX_VAR, "advise".to_string()),
    ];
    let j = sample_a_twin(ctx, &envs)?;
    let mut wl = Handle::spawn_with(&envs, |pid| ctx.cg.add(pid))?;
    println!(
        "  workload {}: {} pages (zero {}, random {}, the rest text, structured, same-filled, half zero)",
        wl.pid, wl.pages, wl.zero, wl.random
    );
    let mut rows = zswap_rounds(ctx, &mut wl, &j)?;
    kernel::set_param("enabled", "N")?;
    rows.extend(zram_rounds(ctx, &mut wl, &j)?);
    verdicts(&mut wl, &rows)?;
    wl.finish()?;
    default_sample_cost(ctx)
}

/// `zswaptop advise --pid` on a workload of the advisor's mix, which must leave its pages as
/// they were; what it predicts, for the rounds. The sample is read from one process and the
/// kernel compresses its twin, whose pages hold the same bytes and were never read: reading pages
/// through /proc/PID/mem (or process_vm_readv) marks them used, and on this 6.18 VM the cgroup's
/// forced reclaim then left them in RAM (30 passes moved almost nothing), where pages never read
/// went out in one.
fn sample_a_twin(ctx: &Ctx, envs: &[(&str, String)]) -> Result<Value> {
    let mut sampled = Handle::spawn_with(envs, |_| Ok(()))?;
    let pid = sampled.pid.to_string();
    let j = advise_json(&ctx.bin, &["--pid", &pid, "--sample", "1G"])?;
    rep().near(
        "advise.sample.pages covers the workload (its pages, ± its own heap)",
        crate::report::u(&j, "advise.sample.pages"),
        sampled.pages,
        sampled.pages / 50,
    );
    let verify = sampled.cmd("verify")?;
    rep().check(
        "the sampled workload's pages are as written (advise changed nothing)",
        verify.contains(" bad=0"),
        &verify,
        "bad=0",
    );
    sampled.finish()?;
    Ok(j)
}

/// zswap: each algorithm the crypto API offers that zswaptop estimates, in front of the
/// swapfile.
fn zswap_rounds(ctx: &Ctx, wl: &mut Handle, j: &Value) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let crypto = std::fs::read_to_string("/proc/crypto").unwrap_or_default();
    for alg in ["lzo", "lzo-rle", "deflate", "lz4", "zstd"] {
        let registered = crypto.split("\n\n").any(|b| {
            b.lines().any(|l| {
                l.split_once(':')
                    .is_some_and(|(k, v)| k.trim() == "name" && v.trim() == alg)
            })
        });
        if !registered {
            continue;
        }
        kernel::set_param("compressor", alg)?;
        kernel::set_param("enabled", "Y")?;
        let (kb, ka) = page_out(&ctx.cg, wl)?;
        let d = |k: &str| {
            ka.mem(k)
                .unwrap_or(0)
                .saturating_sub(kb.mem(k).unwrap_or(0))
        };
        let (stored, pool) = (d("Zswapped"), d("Zswap"));
        let v = |k: &str| ka.vm(k).unwrap_or(0).saturating_sub(kb.vm(k).unwrap_or(0));
        println!(
            "  zswap {alg}: +{} MiB stored in +{} MiB of pool (Δzswpout {}, Δpswpout {}, \
             Δswpout_zero {})",
            stored >> 20,
            pool >> 20,
            v("zswpout"),
            v("pswpout"),
            v("swpout_zero")
        );
        if stored < 16 << 20 {
            let moved: Vec<String> = ka
                .debugfs
                .iter()
                .flatten()
                .filter_map(|(k, a)| {
                    let b = kb.dbg(k).unwrap_or(0);
                    (*a != b).then(|| format!("{k} {b}→{a}"))
                })
                .collect();
            println!("    debugfs moved: {}", moved.join(", "));
        }
        rows.push(Row {
            algorithm: alg.into(),
            backend: "zswap",
            predicted: crate::report::predicted(j, "zswap", alg),
            achieved: (pool > 0 && stored > 16 << 20).then(|| stored as f64 / pool as f64),
        });
        bring_back(wl)?;
    }
    Ok(rows)
}

/// zram0 as the preferred swap device, zswap off: each algorithm zram0 offers that zswaptop
/// estimates. After the other phases zram0 is this test's own: switched off and reset first.
fn zram_rounds(ctx: &Ctx, wl: &mut Handle, j: &Value) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    if machine::changes().zram_initialised {
        if kernel::read_swaps()?.iter().any(|s| s.path == "/dev/zram0") {
            machine::run("swapoff", &["/dev/zram0"])?;
        }
        kernel::write_str(format!("{ZRAM0}/reset"), "1")?;
    }
    match machine::zram0_disksize() {
        None => rep().skip("advise on zram", "no /sys/block/zram0 on this kernel"),
        Some(n) if n != 0 => rep().skip(
            "advise on zram",
            &format!("zram0 is in use by someone else (disksize {n})"),
        ),
        Some(_) => {
            let list = kernel::read_trim(format!("{ZRAM0}/comp_algorithm"))?;
            let current = list
                .split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(['[', ']']).to_string())
                .ok_or_else(|| anyhow!("no selected algorithm in {list:?}"))?;
            {
                // The algorithm to restore is the one before the test (kept when an earlier
                // phase recorded it).
                let mut c = machine::changes();
                c.zram_saved_algorithm.get_or_insert(current);
                c.zram_initialised = true;
            }
            for alg in offered(&list) {
                if !["lzo", "lzo-rle", "lz4", "deflate", "zstd"].contains(&alg.as_str()) {
                    continue;
                }
                kernel::write_str(format!("{ZRAM0}/comp_algorithm"), &alg)?;
                kernel::write_str(format!("{ZRAM0}/disksize"), "1G")?;
                machine::run("mkswap", &["/dev/zram0"])?;
                machine::run("swapon", &["-p", "100", "/dev/zram0"])?;
                let (_, ka) = page_out(&ctx.cg, wl)?;
                let mm = ka.zram0.ok_or_else(|| anyhow!("no zram0 mm_stat"))?;
                println!(
                    "  zram {alg}: {} MiB stored in {} MiB (huge pages {}, same pages {})",
                    mm.orig >> 20,
                    mm.mem_used >> 20,
                    mm.huge_pages,
                    mm.same_pages
                );
                rows.push(Row {
                    algorithm: alg.clone(),
                    backend: "zram",
                    predicted: crate::report::predicted(j, "zram", &alg),
                    achieved: (mm.mem_used > 0 && mm.orig > 16 << 20)
                        .then(|| mm.orig as f64 / mm.mem_used as f64),
                });
                bring_back(wl)?;
                machine::run("swapoff", &["/dev/zram0"])?;
                kernel::write_str(format!("{ZRAM0}/reset"), "1")?;
            }
        }
    }
    Ok(rows)
}

/// The workload's pages intact after every round, and each prediction within the tolerance of
/// what the kernel reached (a table of them printed).
fn verdicts(wl: &mut Handle, rows: &[Row]) -> Result<()> {
    let verify = wl.cmd("verify")?;
    {
        let mut r = rep();
        r.check(
            "workload pages intact after every round",
            verify.contains(" bad=0"),
            &verify,
            "bad=0",
        );
        println!();
        println!(
            "  {:<10} {:<7} {:>10} {:>10} {:>8}",
            "algorithm", "backend", "predicted", "achieved", "error"
        );
        for row in rows {
            let err = match (row.predicted, row.achieved) {
                (Some(p), Some(a)) => Some((p - a) / a * 100.0),
                _ => None,
            };
            println!(
                "  {:<10} {:<7} {:>10} {:>10} {:>8}",
                row.algorithm,
                row.backend,
                row.predicted.map_or("null".into(), |p| format!("{p:.3}")),
                row.achieved.map_or("null".into(), |a| format!("{a:.3}")),
                err.map_or("—".into(), |e| format!("{e:+.1}%"))
            );
            r.check(
                &format!(
                    "{} on {}: predicted ratio within ±{TOLERANCE_PERCENT}% of the kernel's",
                    row.algorithm, row.backend
                ),
                err.is_some_and(|e| e.abs() <= TOLERANCE_PERCENT),
                &err.map_or("no figure".into(), |e| format!("{e:+.1}%")),
                &format!("±{TOLERANCE_PERCENT}%"),
            );
        }
    }
    Ok(())
}

/// The default sample of the whole machine: what it costs.
fn default_sample_cost(ctx: &Ctx) -> Result<()> {
    let all = advise_json(&ctx.bin, &[])?;
    let cpu = crate::report::f(&all, "advise.sample.cpu_seconds");
    rep().note(&format!(
        "default sample (64 MiB over every process), this test's debug build: {} pages, CPU {}",
        crate::report::u(&all, "advise.sample.pages").unwrap_or(0),
        cpu.map_or("unknown".into(), |c| format!("{c:.2} s"))
    ));
    Ok(())
}
