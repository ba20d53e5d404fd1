//! The prediction for what runs now beside what the kernel achieves, and the text output.

use std::io::{self, Write};

use crate::display as f;
use crate::model::Snapshot;

use super::estimate::{Allocator, Backend, Rules};
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
pub(crate) fn calibrate(
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
            why.push(format!(
                "a pool that has been filled and partly emptied (pages read back) keeps {}, which \
                 the estimate (a pool only filled) does not count",
                match predicted.map(|p| p.allocator) {
                    Some(Allocator::Zbud | Allocator::Z3fold) => "pages with free slots",
                    _ => "partly used zspages",
                }
            ));
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

/// `text` after `first` (prefix of the first line) as it is when it fits `width`, else
/// wrapped, the other lines indented by `indent` spaces; a fix's shell commands are broken only
/// where the shell reads on.
fn para(
    out: &mut dyn Write,
    width: usize,
    first: &str,
    indent: usize,
    text: &str,
    commands: bool,
) -> io::Result<()> {
    if first.chars().count() + text.chars().count() <= width && !text.contains('\n') {
        return writeln!(out, "{first}{text}");
    }
    let wrap = if commands { f::wrap_commands } else { f::wrap };
    let lines = wrap(text, width, first.chars().count(), indent);
    crate::report::text::paragraph_lines(&mut &mut *out, first, indent, &lines)
}

/// The text report, its prose wrapped to `width` columns (the terminal's; 80 when piped).
pub(crate) fn write_text(a: &Advice, width: usize, out: &mut dyn Write) -> io::Result<()> {
    sample_text(a, width, out)?;
    for backend in [Backend::Zswap, Backend::Zram] {
        backend_text(a, backend, width, out)?;
    }
    calibration_text(a, width, out)?;
    kernel_text(a, width, out)?;
    recommendations_text(a, width, out)
}

/// What was sampled: how much, of how many processes, what it was made of, what it cost.
fn sample_text(a: &Advice, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let s = &a.sample;
    let head = format!(
        "sampled {} ({} pages) of {} process{}{}",
        f::bytes_raw(s.bytes),
        s.pages,
        s.processes,
        if s.processes == 1 { "" } else { "es" },
        if s.complete {
            ""
        } else {
            " — interrupted: what was read until then"
        }
    );
    para(out, width, "ADVISE  ", 2, &head, false)?;
    let share = |n: u64| f::percent(Some(n as f64 * 100.0 / s.pages.max(1) as f64));
    let counts = format!(
        "zero-filled {}, same-filled {}, vanished before read {}, processes skipped {}, CPU {}",
        share(s.zero_pages),
        share(s.same_filled_pages),
        s.vanished_pages,
        s.skipped_processes,
        s.cpu_seconds
            .map_or_else(|| f::MISSING.to_string(), |c| format!("{c:.2} s"))
    );
    para(out, width, "  ", 2, &counts, false)?;
    let top: Vec<String> = s
        .process_list
        .iter()
        .take(5)
        .map(|p| format!("{} ({}, {} pages)", p.name, p.pid, p.pages))
        .collect();
    para(out, width, "  most sampled: ", 4, &top.join(", "), false)?;
    writeln!(
        out,
        "  page contents were compressed in memory and dropped: none is kept or shown"
    )?;
    Ok(())
}

/// One backend's predictions: a row per algorithm, then those this kernel lacks.
fn backend_text(a: &Advice, backend: Backend, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let rows: Vec<&CandidateResult> = a
        .candidates
        .iter()
        .filter(|c| c.backend == backend)
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let basis = rows.iter().find_map(|r| {
        Some(format!(
            "{} ({})",
            f::bytes(r.pool_basis_bytes),
            r.pool_basis.as_deref()?
        ))
    });
    let head = format!(
        "pool predicted for {}{}",
        basis.unwrap_or_else(|| f::MISSING.into()),
        match (backend, rows.first().map(|r| r.allocator)) {
            (Backend::Zswap, Some(a)) => format!(", in {}", a.name()),
            _ => String::new(),
        }
    );
    para(
        out,
        width,
        &format!("{}  ", backend.name().to_uppercase()),
        2,
        &head,
        false,
    )?;
    writeln!(
        out,
        "  {:<10} {:<7} {:>6} {:>11} {:>7} {:>11} {:>11} {:>6}",
        "algorithm", "kernel", "ratio", "pool", "whole", "compress", "decompress", "CPU"
    )?;
    for r in rows {
        let name = format!("{}{}", r.name, if r.running { "*" } else { "" });
        if !r.estimated {
            let first = format!(
                "  {:<10} {:<7} not estimated: ",
                name,
                if r.in_kernel { "yes" } else { "no" }
            );
            para(
                out,
                width,
                &first,
                21,
                r.reason.as_deref().unwrap_or(""),
                true,
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
    para(
        out,
        width,
        "  ",
        2,
        "* runs now. ratio: stored ÷ pool, as the kernel's. whole: pages stored whole. CPU: \
         compress time per page ÷ the running one's (— when none runs).",
        false,
    )?;
    let missing: Vec<String> = a
        .candidates
        .iter()
        .filter(|c| c.backend == backend && c.estimated && !c.in_kernel)
        .filter_map(|c| Some(format!("{}: {}", c.name, c.reason.as_deref()?)))
        .collect();
    for m in missing {
        para(out, width, "  not in this kernel — ", 4, &m, true)?;
    }

    Ok(())
}

/// The prediction for what runs now, beside what the kernel achieved.
fn calibration_text(a: &Advice, width: usize, out: &mut dyn Write) -> io::Result<()> {
    if !a.current.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "CALIBRATION  the prediction for what runs now, beside the kernel"
        )?;
        for c in &a.current {
            let row = format!(
                "{:<6} {:<8} predicted {}  achieved {}  difference {}  ({} stored)",
                c.device.as_deref().unwrap_or(c.backend.name()),
                c.name,
                opt_f(c.predicted_ratio, 2),
                opt_f(c.achieved_ratio, 2),
                c.difference_percent
                    .map_or_else(|| f::MISSING.into(), |d| format!("{d:+.1}%")),
                f::bytes(c.stored_bytes)
            );
            para(out, width, "  ", 4, &row, false)?;
            if let Some(n) = &c.note {
                para(out, width, "    ", 4, n, false)?;
            }
        }
    }
    Ok(())
}

/// The kernel facts the estimates rely on.
fn kernel_text(a: &Advice, width: usize, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "KERNEL  what the estimates rely on")?;
    for k in &a.kernel {
        let text = format!("{} [{}; {}]", k.fact, k.evidence, k.source);
        para(out, width, "  - ", 4, &text, false)?;
    }
    Ok(())
}

/// The recommendations, each with its evidence, fix and why (or why there is none).
fn recommendations_text(a: &Advice, width: usize, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    if a.recommendations.is_empty() {
        para(
            out,
            width,
            "RECOMMENDATION  ",
            2,
            "none (no compressed swap in use, or what runs is the best estimated, or what would \
             do better is an algorithm this kernel lacks that saves under 10 % of the pool or \
             32 MiB)",
            false,
        )?;
    }
    for r in &a.recommendations {
        para(out, width, "RECOMMENDATION  ", 2, &r.summary, false)?;
        for e in &r.evidence {
            para(out, width, "  evidence: ", 12, e, false)?;
        }
        para(out, width, "  fix: ", 7, &r.fix, true)?;
        para(out, width, "  why: ", 7, &r.why, false)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Finding, Severity};

    fn advice() -> Advice {
        let sample = SampleSummary {
            pages: 256,
            bytes: 1 << 20,
            processes: 1,
            ..super::super::recommend::tests::sample()
        };
        let long = "word ".repeat(120);
        Advice {
            sample,
            candidates: Vec::new(),
            current: Vec::new(),
            kernel: vec![super::super::estimate::Fact {
                fact: long.clone(),
                evidence: "evidence".into(),
                source: "mm/zswap.c".into(),
            }],
            recommendations: vec![Finding {
                id: "advise-zswap-compressor".into(),
                severity: Severity::Info,
                summary: long.clone(),
                evidence: vec![long.clone()],
                fix: format!(
                    "{long}`echo zstd | sudo tee /sys/module/zswap/parameters/compressor`; {long}"
                ),
                why: long,
            }],
        }
    }

    /// The report's prose fits the width it is given (it once ran to 676 columns), and a fix's
    /// command is never broken where the shell would not read on.
    #[test]
    fn prose_is_wrapped_to_the_width() {
        for width in [80, 120] {
            let mut out = Vec::new();
            write_text(&advice(), width, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            for line in text.lines() {
                assert!(line.chars().count() <= width, "{width}: {line:?}");
            }
            assert!(
                text.contains("`echo zstd | sudo tee /sys/module/zswap/parameters/compressor`")
                    || text.contains("`echo zstd |")
            );
            assert!(text.contains("of 1 process\n"), "{text}");
        }
    }
}
