//! The prediction for what runs now beside what the kernel achieves, and the text output.

use std::io::{self, Write};

use crate::display as f;
use crate::model::Snapshot;

use super::estimate::{Backend, Rules};
use super::{Advice, CandidateResult, Current, SampleSummary};

/// A difference past this share is explained, not only shown.
pub const EXPLAIN_PERCENT: f64 = 10.0;
/// Below this much stored, a backend's achieved ratio says little.
const MIN_STORED: u64 = 4 << 20;

fn find<'a>(
    results: &'a [CandidateResult],
    backend: Backend,
    name: &str,
) -> Option<&'a CandidateResult> {
    results
        .iter()
        .find(|r| r.backend == backend && r.name == name)
}

/// For zswap's compressor and each zram swap device's algorithm: predicted beside achieved.
pub fn calibrate(
    results: &[CandidateResult],
    snap: &Snapshot,
    rules: &Rules,
    sample: &SampleSummary,
) -> Vec<Current> {
    let mut out = Vec::new();
    let z = &snap.zswap;
    if z.available
        && let Some(name) = &z.compressor
    {
        let stored = z.stored_bytes;
        let achieved = z
            .compression_ratio
            .filter(|_| stored.is_some_and(|s| s > 0));
        let kernel_whole = match (z.incompressible_bytes, stored) {
            (Some(i), Some(s)) if s > 0 => Some(i as f64 / s as f64),
            _ => None,
        };
        out.push(compare(
            Backend::Zswap,
            None,
            name,
            achieved,
            stored,
            kernel_whole,
            find(results, Backend::Zswap, name),
            rules,
            sample,
        ));
    }
    for zr in snap.zram.iter().filter(|zr| zr.is_swap) {
        let Some(name) = &zr.algorithm else { continue };
        let stored = zr.orig_data_bytes;
        let kernel_whole = match (zr.huge_pages, stored) {
            (Some(h), Some(s)) if s > 0 => Some((h * rules.page_size) as f64 / s as f64),
            _ => None,
        };
        out.push(compare(
            Backend::Zram,
            Some(zr.device.clone()),
            name,
            zr.effective_ratio.filter(|_| stored.is_some_and(|s| s > 0)),
            stored,
            kernel_whole,
            find(results, Backend::Zram, name),
            rules,
            sample,
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn compare(
    backend: Backend,
    device: Option<String>,
    name: &str,
    achieved: Option<f64>,
    stored: Option<u64>,
    kernel_whole: Option<f64>,
    predicted: Option<&CandidateResult>,
    rules: &Rules,
    sample: &SampleSummary,
) -> Current {
    let predicted_ratio = predicted.and_then(|p| p.ratio);
    let difference_percent = match (predicted_ratio, achieved) {
        (Some(p), Some(a)) if a > 0.0 => Some((p - a) / a * 100.0),
        _ => None,
    };
    let where_ = device.clone().unwrap_or_else(|| "zswap".into());
    let note = if predicted.is_none_or(|p| !p.estimated) {
        Some(format!(
            "{name} is not estimated: {}",
            predicted
                .and_then(|p| p.reason.clone())
                .unwrap_or_else(|| "no implementation".into())
        ))
    } else if achieved.is_none() {
        Some(format!(
            "{where_} stores nothing now: no achieved ratio to compare with"
        ))
    } else if stored.is_some_and(|s| s < MIN_STORED) {
        Some(format!(
            "{where_} holds only {}: too little for its ratio to say much",
            f::bytes(stored)
        ))
    } else if let Some(d) = difference_percent.filter(|d| d.abs() > EXPLAIN_PERCENT) {
        let mut why = vec![format!(
            "{where_} compresses {} than predicted. Likely reasons: the sample is of the pages \
             resident now (the hotter ones), while {where_} holds the pages reclaim chose to push \
             out, other data",
            if d > 0.0 { "worse" } else { "better" }
        )];
        let pred_whole = predicted.and_then(|p| p.whole_share);
        if let (Some(k), Some(p)) = (kernel_whole, pred_whole)
            && (k - p).abs() > 0.05
        {
            why.push(format!(
                "{} of what {where_} holds is stored whole (did not compress), against {} of the \
                 sample",
                f::percent(Some(k * 100.0)),
                f::percent(Some(p * 100.0))
            ));
        }
        if rules.zero_map && sample.zero_pages * 10 > sample.pages {
            why.push(format!(
                "{} of the sample is zero-filled pages, which never reach {} (the swap zero map) \
                 and so do not count",
                f::percent(Some(sample.zero_pages as f64 * 100.0 / sample.pages as f64)),
                backend.name()
            ));
        }
        if d > 0.0 {
            why.push(
                "a pool that has been filled and partly emptied (pages read back) keeps partly \
                 used zspages, which the estimate (full zspages) does not count"
                    .into(),
            );
        }
        Some(why.join("; "))
    } else {
        None
    };
    Current {
        backend,
        device,
        name: name.to_string(),
        achieved_ratio: achieved,
        predicted_ratio,
        difference_percent,
        stored_bytes: stored,
        note,
    }
}

fn opt_f(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| f::MISSING.to_string(), |v| format!("{v:.digits$}"))
}

/// The text report.
pub fn write_text(a: &Advice, out: &mut dyn Write) -> io::Result<()> {
    let s = &a.sample;
    writeln!(
        out,
        "ADVISE  sampled {} ({} pages) of {} process{}{}",
        f::bytes_raw(s.bytes),
        s.pages,
        s.processes,
        if s.processes == 1 { "" } else { "es" },
        if s.complete {
            ""
        } else {
            " — interrupted: what was read until then"
        }
    )?;
    let share = |n: u64| f::percent(Some(n as f64 * 100.0 / s.pages.max(1) as f64));
    writeln!(
        out,
        "  zero-filled {}  same-filled {}  vanished before read {}  processes skipped {}  CPU {}",
        share(s.zero_pages),
        share(s.same_filled_pages),
        s.vanished_pages,
        s.skipped_processes,
        s.cpu_seconds
            .map_or_else(|| f::MISSING.to_string(), |c| format!("{c:.2} s"))
    )?;
    let top: Vec<String> = s
        .process_list
        .iter()
        .take(5)
        .map(|p| format!("{} ({}, {} pages)", p.name, p.pid, p.pages))
        .collect();
    writeln!(out, "  most sampled: {}", top.join(", "))?;
    writeln!(
        out,
        "  page contents were compressed in memory and dropped: none is kept or shown"
    )?;
    for backend in [Backend::Zswap, Backend::Zram] {
        let rows: Vec<&CandidateResult> = a
            .candidates
            .iter()
            .filter(|c| c.backend == backend)
            .collect();
        if rows.is_empty() {
            continue;
        }
        writeln!(out)?;
        let basis = rows.iter().find_map(|r| {
            Some(format!(
                "{} ({})",
                f::bytes(r.pool_basis_bytes),
                r.pool_basis.as_deref()?
            ))
        });
        writeln!(
            out,
            "{}  pool predicted for {}",
            backend.name().to_uppercase(),
            basis.unwrap_or_else(|| f::MISSING.into())
        )?;
        writeln!(
            out,
            "  {:<10} {:<7} {:>6} {:>11} {:>7} {:>11} {:>11} {:>6}",
            "algorithm", "kernel", "ratio", "pool", "whole", "compress", "decompress", "CPU"
        )?;
        for r in rows {
            let name = format!("{}{}", r.name, if r.running { "*" } else { "" });
            if !r.estimated {
                writeln!(
                    out,
                    "  {:<10} {:<7} not estimated: {}",
                    name,
                    if r.in_kernel { "yes" } else { "no" },
                    r.reason.as_deref().unwrap_or("")
                )?;
                continue;
            }
            writeln!(
                out,
                "  {:<10} {:<7} {:>6} {:>11} {:>7} {:>11} {:>11} {:>6}",
                name,
                if r.in_kernel { "yes" } else { "no" },
                opt_f(r.ratio, 2),
                f::bytes(r.pool_bytes),
                f::percent(r.whole_share.map(|w| w * 100.0)),
                r.compress_mib_s
                    .map_or_else(|| f::MISSING.into(), |v| format!("{v:.0} MiB/s")),
                r.decompress_mib_s
                    .map_or_else(|| f::MISSING.into(), |v| format!("{v:.0} MiB/s")),
                r.compress_cpu_relative
                    .map_or_else(|| f::MISSING.into(), |v| format!("{v:.1}×")),
            )?;
        }
        writeln!(
            out,
            "  * runs now. ratio: stored ÷ pool, as the kernel's. whole: pages stored whole. CPU: \
             compress time per page ÷ the running one's (— when none runs)."
        )?;
        let missing: Vec<String> = a
            .candidates
            .iter()
            .filter(|c| c.backend == backend && c.estimated && !c.in_kernel)
            .filter_map(|c| Some(format!("{}: {}", c.name, c.reason.as_deref()?)))
            .collect();
        for m in missing {
            writeln!(out, "  not in this kernel — {m}")?;
        }
    }
    if !a.current.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "CALIBRATION  the prediction for what runs now, beside the kernel"
        )?;
        for c in &a.current {
            writeln!(
                out,
                "  {:<6} {:<8} predicted {}  achieved {}  difference {}  ({} stored)",
                c.device.as_deref().unwrap_or(c.backend.name()),
                c.name,
                opt_f(c.predicted_ratio, 2),
                opt_f(c.achieved_ratio, 2),
                c.difference_percent
                    .map_or_else(|| f::MISSING.into(), |d| format!("{d:+.1}%")),
                f::bytes(c.stored_bytes)
            )?;
            if let Some(n) = &c.note {
                writeln!(out, "    {n}")?;
            }
        }
    }
    writeln!(out)?;
    writeln!(out, "KERNEL  what the estimates rely on")?;
    for k in &a.kernel {
        writeln!(out, "  - {} [{}; {}]", k.fact, k.evidence, k.source)?;
    }
    writeln!(out)?;
    if a.recommendations.is_empty() {
        writeln!(
            out,
            "RECOMMENDATION  none (no compressed swap in use, or what runs is the best estimated)"
        )?;
    }
    for r in &a.recommendations {
        writeln!(out, "RECOMMENDATION  {}", r.summary)?;
        for e in &r.evidence {
            writeln!(out, "  evidence: {e}")?;
        }
        writeln!(out, "  fix: {}", r.fix)?;
        writeln!(out, "  why: {}", r.why)?;
    }
    Ok(())
}
