//! What to do, in the diagnostics' form (evidence, the exact fix and how to keep it, why), when
//! the estimates say another algorithm, or no compression, would serve better.

use crate::diagnostics::{cmdline, sh};
use crate::display as f;
use crate::model::{Finding, Severity, Snapshot};

use super::estimate::Backend;
use super::{CandidateResult, Current, SampleSummary};

/// A better ratio must save at least this share of the pool to be worth a change.
const MIN_GAIN: f64 = 0.05;
/// Below this ratio the pages barely compress: compression costs CPU for nothing.
const POOR_RATIO: f64 = 1.15;

/// Ratios this close to the best count as the best: among them the cheapest in CPU is chosen.
const NEAR_BEST: f64 = 0.97;

/// The candidate with the best ratio on `backend` (among those `keep` accepts); of those within
/// 3 % of it, the cheapest to compress.
fn best_where(
    results: &[CandidateResult],
    backend: Backend,
    keep: impl Fn(&CandidateResult) -> bool,
) -> Option<&CandidateResult> {
    let rated = || {
        results
            .iter()
            .filter(|r| r.backend == backend && r.ratio.is_some() && keep(r))
    };
    let top = rated().filter_map(|r| r.ratio).fold(f64::NAN, f64::max);
    rated()
        .filter(|r| r.ratio.is_some_and(|x| x >= top * NEAR_BEST))
        .min_by(|a, b| {
            let cpu = |r: &CandidateResult| r.compress_cpu_relative.unwrap_or(f64::MAX);
            cpu(a)
                .partial_cmp(&cpu(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

/// The best on `backend`, offered by the kernel or not.
fn best(results: &[CandidateResult], backend: Backend) -> Option<&CandidateResult> {
    best_where(results, backend, |_| true)
}

fn sample_line(s: &SampleSummary) -> String {
    format!(
        "sampled {} of resident anonymous memory ({} pages, {} processes{})",
        f::bytes_raw(s.bytes),
        s.pages,
        s.processes,
        if s.complete { "" } else { ", interrupted" }
    )
}

fn candidate_line(r: &CandidateResult) -> String {
    format!(
        "{} on {}: predicted ratio {}, pool {} for {}, compress {} MiB/s, decompress {} MiB/s{}",
        r.name,
        r.backend.name(),
        f::ratio(r.ratio),
        f::bytes(r.pool_bytes),
        f::bytes(r.pool_basis_bytes),
        r.compress_mib_s.map_or("—".into(), |v| format!("{v:.0}")),
        r.decompress_mib_s.map_or("—".into(), |v| format!("{v:.0}")),
        if r.in_kernel {
            ""
        } else {
            " (not in this kernel)"
        }
    )
}

fn calibration_line(c: &Current) -> String {
    format!(
        "{} {}: predicted {} beside the {} the kernel achieves now{}",
        c.device.as_deref().unwrap_or("zswap"),
        c.name,
        f::ratio(c.predicted_ratio),
        f::ratio(c.achieved_ratio),
        c.difference_percent
            .map_or(String::new(), |d| format!(" ({d:+.0}%)"))
    )
}

/// "~3× the CPU per page" or "~40 % less CPU per page".
fn cpu_words(rel: Option<f64>) -> String {
    match rel {
        Some(r) if r >= 1.15 => format!("at ~{r:.1}× the CPU per page"),
        Some(r) if r <= 0.87 => format!("with ~{:.0}% less CPU per page", (1.0 - r) * 100.0),
        Some(_) => "at about the same CPU per page".into(),
        None => "(CPU not measured)".into(),
    }
}

/// Every recommendation the estimates support.
pub fn recommend(
    results: &[CandidateResult],
    current: &[Current],
    snap: &Snapshot,
    sample: &SampleSummary,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let zswap_on = snap.zswap.enabled == Some(true);
    let zram_swaps: Vec<_> = snap
        .zram
        .iter()
        .filter(|z| z.is_swap && z.algorithm.is_some())
        .collect();
    if zswap_on && let Some(name) = &snap.zswap.compressor {
        out.extend(switch(results, current, sample, Backend::Zswap, name, None));
    }
    for z in &zram_swaps {
        if let Some(name) = &z.algorithm {
            out.extend(switch(
                results,
                current,
                sample,
                Backend::Zram,
                name,
                Some((z.device.as_str(), z.disksize_bytes)),
            ));
        }
    }
    // Nothing compresses: compressed swap only costs CPU.
    for (backend, on) in [
        (Backend::Zswap, zswap_on),
        (Backend::Zram, !zram_swaps.is_empty()),
    ] {
        let Some(b) = best(results, backend).filter(|b| b.ratio.is_some_and(|r| r < POOR_RATIO))
        else {
            continue;
        };
        if !on {
            continue;
        }
        let fix = match backend {
            Backend::Zswap => format!(
                "Turn zswap off: `echo N | sudo tee /sys/module/zswap/parameters/enabled` (pages \
                 already stored stay until read back); to keep it off, {}.",
                cmdline("zswap.enabled=0")
            ),
            Backend::Zram => "Swap to a disk instead of zram: create a swap file or partition, \
                 `swapon` it, and `swapoff` the zram device (it needs free RAM for what it holds); \
                 remove the zram-generator config or udev rule that sets zram up."
                .into(),
        };
        out.push(Finding {
            id: format!("advise-{}-incompressible", backend.name()),
            severity: Severity::Warn,
            summary: format!(
                "this machine's pages barely compress: even {} reaches only {}, so {} costs CPU \
                 for almost no RAM",
                b.name,
                f::ratio(b.ratio),
                backend.name()
            ),
            evidence: vec![sample_line(sample), candidate_line(b)],
            fix,
            why: "A page that does not compress is kept whole (or refused) after the CPU spent \
                  trying: with data that is already compressed or encrypted, compressed swap \
                  holds as much RAM as it saves and adds latency to every swap-out and swap-in. \
                  A disk swap area takes such pages at no CPU cost."
                .into(),
        });
    }
    if !zswap_on && zram_swaps.is_empty() {
        let zswap_best = best(results, Backend::Zswap)
            .filter(|b| b.in_kernel && b.ratio.is_some_and(|r| r >= 2.0));
        if let Some(b) = zswap_best
            && snap.swap.total_bytes.is_some_and(|t| t > 0)
        {
            out.push(Finding {
                id: "advise-zswap-off".into(),
                severity: Severity::Info,
                summary: format!(
                    "swap is not compressed, and this machine's pages compress {}:1 with {}",
                    f::ratio(b.ratio).trim_end_matches(":1"),
                    b.name
                ),
                evidence: vec![sample_line(sample), candidate_line(b)],
                fix: format!(
                    "`echo {} | sudo tee /sys/module/zswap/parameters/compressor && echo Y | sudo \
                     tee /sys/module/zswap/parameters/enabled`; to keep it, {}.",
                    sh(&b.name),
                    cmdline(&format!("zswap.enabled=1 zswap.compressor={}", b.name))
                ),
                why: "zswap keeps compressed copies of pages on their way to the swap area in \
                      RAM, so most swap-ins are decompressions instead of disk reads; at this \
                      ratio each page swapped costs a fraction of its size."
                    .into(),
            });
        }
    }
    out
}

/// A better algorithm for a backend running `running` (`zram`: the device and its disksize).
fn switch(
    results: &[CandidateResult],
    current: &[Current],
    sample: &SampleSummary,
    backend: Backend,
    running: &str,
    zram: Option<(&str, Option<u64>)>,
) -> Option<Finding> {
    let now = results
        .iter()
        .find(|r| r.backend == backend && r.name == running)?;
    let (now_ratio, now_pool) = (now.ratio?, now.pool_bytes?);
    let better = |r: &CandidateResult| {
        r.name != running && r.ratio.is_some_and(|x| x >= now_ratio * (1.0 + MIN_GAIN))
    };
    // What the kernel offers first; a module or a rebuild only when nothing offered is better.
    let b = best_where(results, backend, |r| r.in_kernel && better(r))
        .or_else(|| best_where(results, backend, better))?;
    let (b_ratio, b_pool) = (b.ratio?, b.pool_bytes?);
    if b_ratio < POOR_RATIO {
        return None;
    }
    // One the kernel lacks that would do about as well for less CPU: said, not chosen.
    let alternative = best_where(results, backend, |r| !r.in_kernel && better(r)).filter(|a| {
        a.name != b.name
            && a.ratio.is_some_and(|x| x >= b_ratio * NEAR_BEST)
            && a.compress_cpu_relative.unwrap_or(f64::MAX)
                < b.compress_cpu_relative.unwrap_or(f64::MAX) * 0.75
    });
    let basis = b.pool_basis_bytes?;
    let saved = now_pool.saturating_sub(b_pool);
    let mut evidence = vec![sample_line(sample), candidate_line(now), candidate_line(b)];
    let device = zram.map(|(d, _)| d);
    evidence.extend(
        current
            .iter()
            .filter(|c| c.backend == backend && c.device.as_deref() == device)
            .filter(|c| c.achieved_ratio.is_some())
            .map(calibration_line),
    );
    if let Some(a) = alternative {
        evidence.push(format!(
            "{} would do about as well ({}) {}, but this kernel does not offer it: {}",
            a.name,
            f::ratio(a.ratio),
            cpu_words(a.compress_cpu_relative),
            a.reason.as_deref().unwrap_or("")
        ));
    }
    let load = if b.in_kernel {
        String::new()
    } else {
        format!(
            "{} is not in this kernel ({}). Then: ",
            b.name,
            b.reason.as_deref().unwrap_or("")
        )
    };
    let fix = match zram {
        None => format!(
            "{load}`echo {} | sudo tee /sys/module/zswap/parameters/compressor` (new pages only: \
             those stored stay {running} until read back); to make it permanent, {}.",
            sh(&b.name),
            cmdline(&format!("zswap.compressor={}", b.name))
        ),
        Some((dev, size)) => {
            let block = |file: &str| sh(&format!("/sys/block/{dev}/{file}"));
            let d = sh(&format!("/dev/{dev}"));
            format!(
                "{load}The algorithm changes only on a reset device: `sudo swapoff {d} && echo 1 | \
                 sudo tee {} && echo {} | sudo tee {} && echo {} | sudo tee {} && sudo mkswap {d} \
                 && sudo swapon {d}` (swapoff needs free RAM for what {dev} holds); to keep it, \
                 `compression-algorithm = {}` in /etc/systemd/zram-generator.conf, or \
                 ATTR{{comp_algorithm}}=\"{}\" in the udev rule that sets {dev} up.",
                block("reset"),
                sh(&b.name),
                block("comp_algorithm"),
                size.map_or_else(|| "SIZE".to_string(), |s| s.to_string()),
                block("disksize"),
                sh(&b.name),
                sh(&b.name),
            )
        }
    };
    Some(Finding {
        id: format!("advise-{}-compressor", backend.name()),
        severity: Severity::Info,
        summary: format!(
            "{} would hold {}'s {} in {} instead of {} (−{}) {}",
            b.name,
            device.unwrap_or("zswap"),
            f::bytes_raw(basis),
            f::bytes_raw(b_pool),
            f::bytes_raw(now_pool),
            f::bytes_raw(saved),
            cpu_words(b.compress_cpu_relative)
        ),
        evidence,
        fix,
        why: format!(
            "{} compresses every page on its own and keeps the result in zsmalloc size classes; \
             these figures come from compressing {} pages of this machine's own memory with each \
             algorithm as the kernel runs it, and the allocator's classes. A stronger compressor \
             costs CPU on every swap-out and swap-in: worth it when RAM is short and swap is \
             busy with pages that compress.",
            backend.name(),
            sample.pages
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Snapshot;
    use crate::root::Root;

    fn snap() -> Snapshot {
        // zswap enabled with lzo, ~974 MiB stored.
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-loaded",
            env!("CARGO_MANIFEST_DIR")
        ));
        Snapshot::derive(&crate::sources::collect(&root), None)
    }

    fn cand(name: &str, in_kernel: bool, ratio: f64, cpu: f64) -> CandidateResult {
        let basis = 1000 << 20;
        CandidateResult {
            name: name.into(),
            backend: Backend::Zswap,
            in_kernel,
            running: name == "lzo",
            estimated: true,
            ratio: Some(ratio),
            pool_bytes: Some((basis as f64 / ratio) as u64),
            pool_basis_bytes: Some(basis),
            pool_basis: Some("stored in zswap now".into()),
            whole_share: Some(0.0),
            refused_pages: Some(0),
            compress_mib_s: Some(300.0 / cpu),
            decompress_mib_s: Some(600.0),
            compress_cpu_relative: Some(cpu),
            reason: (!in_kernel).then(|| "`sudo modprobe zstd`".into()),
        }
    }

    fn sample() -> SampleSummary {
        SampleSummary {
            pages: 16384,
            bytes: 64 << 20,
            processes: 3,
            zero_pages: 0,
            same_filled_pages: 0,
            vanished_pages: 0,
            skipped_processes: 0,
            complete: true,
            page_size: 4096,
            cpu_seconds: None,
            process_list: Vec::new(),
        }
    }

    #[test]
    fn a_better_offered_compressor_with_its_trade() {
        let snap = snap();
        assert_eq!(snap.zswap.enabled, Some(true));
        let results = vec![
            cand("lzo", true, 2.0, 1.0),
            cand("deflate", true, 3.0, 8.0),
            cand("zstd", false, 2.95, 1.6),
        ];
        let f = recommend(&results, &[], &snap, &sample());
        assert_eq!(f.len(), 1, "{f:?}");
        let f = &f[0];
        assert_eq!(f.id, "advise-zswap-compressor");
        // 1000 MiB at 2.0 is 500 MiB; at 3.0, 333.3 MiB: 166.7 MiB less.
        assert_eq!(
            f.summary,
            "deflate would hold zswap's 1000.0 MiB in 333.3 MiB instead of 500.0 MiB (−166.7 MiB) \
             at ~8.0× the CPU per page"
        );
        assert!(
            f.fix
                .contains("echo deflate | sudo tee /sys/module/zswap/parameters/compressor")
        );
        assert!(f.fix.contains("zswap.compressor=deflate"));
        // zstd, not offered, does about as well for a fifth of the CPU: said in the evidence.
        assert!(
            f.evidence
                .iter()
                .any(|e| e.starts_with("zstd would do about as well"))
        );
    }

    #[test]
    fn nothing_when_the_running_one_is_best_and_a_warning_when_nothing_compresses() {
        let snap = snap();
        let results = vec![
            cand("lzo", true, 2.0, 1.0),
            cand("deflate", true, 2.05, 8.0),
        ];
        assert!(recommend(&results, &[], &snap, &sample()).is_empty());
        let results = vec![
            cand("lzo", true, 1.05, 1.0),
            cand("deflate", true, 1.1, 8.0),
        ];
        let f = recommend(&results, &[], &snap, &sample());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].id, "advise-zswap-incompressible");
        assert!(
            f[0].fix
                .contains("echo N | sudo tee /sys/module/zswap/parameters/enabled")
        );
    }
}
