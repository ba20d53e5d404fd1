//! `--once` as text: the answer on one 80×24 screen (at most [`MAX_LINES`] lines of at most
//! [`WIDTH`] columns). The headline, the real-memory bar and its non-zero buckets, one zswap
//! line, the swap split, a line per zram device, a line per finding (warn and crit; info
//! counted), and what could not be read with the command that gets it. Sections appear only when
//! they apply; `--once --full` is the complete report ([`super::text`]). `--top N` and
//! `--cgroups` add their tables below, as in the full report.

use std::io::{self, Write};

use super::text::{self, Style, WIDTH};
use crate::display as f;
use crate::model::memory::BUCKETS;
use crate::model::metrics::{self, Metric};
use crate::model::{Severity, Snapshot};

/// At most this many lines (a 24-line terminal, less the prompt and the command line).
pub const MAX_LINES: usize = 22;

/// Buckets a line holds in the bucket list, and the width of their labels.
const BUCKETS_PER_LINE: usize = 2;
const LABEL: usize = 18;

pub fn write(snap: &Snapshot, out: &mut impl Write, style: Style) -> io::Result<()> {
    for line in lines(snap, style) {
        writeln!(out, "{line}")?;
    }
    text::processes(snap, out, style)?;
    text::cgroups(snap, out, style)
}

/// The summary's lines, colour codes included when `style` asks for them.
pub fn lines(s: &Snapshot, st: Style) -> Vec<String> {
    let mut fixed = header(s, st);
    fixed.extend(memory(s, st));
    fixed.extend(zswap(s, st));
    fixed.extend(swap(s, st));
    fixed.extend(outlook(s, st));
    let zram = zram(s, st);
    let findings = findings(s, st);
    let unavailable = unavailable(s, st);
    // What does not fit gives way, counted on a line of its own: zram devices first (room is
    // kept for three finding lines), then findings.
    let room = MAX_LINES.saturating_sub(fixed.len() + unavailable.len());
    let zram_room = room.saturating_sub(findings.len().min(3)).max(1);
    let zram = fold(zram, zram_room, |n| {
        format!("  … {n} more zram devices (--full)")
    });
    let findings = fold(findings, room.saturating_sub(zram.len()), |n| {
        format!("  … {n} more findings (--full)")
    });
    let mut all = fixed;
    all.extend(zram);
    all.extend(findings);
    all.extend(unavailable);
    all.truncate(MAX_LINES);
    all
}

/// `lines` cut to `room`, the last kept line saying how many were left out.
fn fold(mut lines: Vec<String>, room: usize, more: impl Fn(usize) -> String) -> Vec<String> {
    if lines.len() <= room {
        return lines;
    }
    let keep = room.saturating_sub(1);
    let left = lines.len() - keep;
    lines.truncate(keep);
    if room > 0 {
        lines.push(more(left));
    }
    lines
}

/// Parts joined by two spaces when that fits the width, else by one, else cut at the end.
fn join(parts: &[String]) -> String {
    fit(&[parts.to_vec()])
}

/// The first of `forms` (the same line, longest first) that fits the width, its parts joined by
/// two spaces or else one; the last form cut at the end when none does.
fn fit(forms: &[Vec<String>]) -> String {
    for parts in forms {
        for sep in ["  ", " "] {
            let line = parts.join(sep);
            if text::visible_width(&line) <= WIDTH {
                return line;
            }
        }
    }
    let line = forms.last().map(|p| p.join(" ")).unwrap_or_default();
    // Colour codes come first (the heading), so a cut at the end keeps them whole.
    let codes = line.chars().count() - text::visible_width(&line);
    f::clip(&line, WIDTH + codes)
}

fn header(s: &Snapshot, st: Style) -> Vec<String> {
    let mut parts = vec![
        format!("{} {}", st.head("zswaptop"), s.tool.version),
        format!("host {}", s.host.hostname.as_deref().unwrap_or(f::MISSING)),
        format!("kernel {}", s.host.kernel.as_deref().unwrap_or(f::MISSING)),
        format!("up {}", f::duration_secs(s.host.uptime_seconds)),
    ];
    parts.push(text::who(s).to_string());
    let mut out = vec![join(&parts)];
    if s.host.root != "/" {
        out.push(st.dim(&f::clip(&format!("reading tree {}", s.host.root), WIDTH)));
    }
    out
}

/// A metric's value (pages as bytes) in the short form, from the registry.
fn short(id: &str, s: &Snapshot) -> String {
    let v = metrics::get(id).and_then(|m| m.value(s));
    f::bytes_short_opt(v.map(|v| v as u64))
}

fn label(id: &str) -> &'static str {
    metrics::get(id).map_or(f::MISSING, |m: &Metric| m.label)
}

fn memory(s: &Snapshot, st: Style) -> Vec<String> {
    let m = &s.memory;
    let mut out = vec![join(&[
        st.head("MEMORY"),
        format!("total {}", f::bytes(m.total_bytes)),
        format!("used {} (as free says)", f::bytes(m.free_cmd_used_bytes)),
        format!("available {}", f::bytes(m.available_bytes)),
    ])];
    let Some(b) = &m.breakdown else {
        out.push(format!(
            "  {}",
            st.warn("/proc/meminfo could not be read (see below)")
        ));
        return out;
    };
    let buckets = b.buckets();
    // What "used" holds that is not in use by programs: the compressed pools (and the free
    // pages on the per-CPU lists, where the breakdown has them).
    let hidden: Vec<String> = buckets
        .iter()
        .zip(BUCKETS.iter())
        .filter(|(_, info)| info.hidden_in_used())
        .filter_map(|((_, v), info)| {
            let v = (*v)?;
            (v > 0).then(|| format!("{} {}", info.label, f::bytes(Some(v.unsigned_abs()))))
        })
        .collect();
    if !hidden.is_empty() {
        out.push(format!("  of that used: {}", hidden.join(", ")));
    }
    out.push(text::bar(&buckets, st));
    let mut cells = Vec::new();
    let mut zero = Vec::new();
    for ((key, v), info) in buckets.iter().zip(BUCKETS.iter()) {
        match v {
            Some(0) => zero.push(info.label),
            _ => {
                let size = if *key == "unaccounted" {
                    f::bytes_signed(*v)
                } else {
                    f::bytes(v.map(i64::unsigned_abs))
                };
                let pct = f::percent(
                    v.and_then(|v| f::share(Some(v.max(0).unsigned_abs()), m.total_bytes)),
                );
                let glyph = st.paint(text::ansi(info.hue), &info.glyph.to_string());
                cells.push(format!(
                    "{glyph} {:<LABEL$} {size:>9} {pct:>6}",
                    f::clip(info.label, LABEL)
                ));
            }
        }
    }
    for row in cells.chunks(BUCKETS_PER_LINE) {
        out.push(format!("  {}", row.join("   ")).trim_end().to_string());
    }
    if !zero.is_empty() {
        out.push(st.dim(&f::clip(&format!("  zero: {}", zero.join(", ")), WIDTH)));
    }
    out
}

fn zswap(s: &Snapshot, st: Style) -> Vec<String> {
    let z = &s.zswap;
    if !z.available {
        return Vec::new();
    }
    let state = match z.enabled {
        Some(true) => "on",
        Some(false) => "off",
        None => f::MISSING,
    };
    // Nothing to say about a zswap that is off and holds nothing.
    if z.enabled == Some(false) && z.pool_bytes.unwrap_or(0) == 0 {
        return vec![join(&[st.head("ZSWAP"), state.to_string()])];
    }
    let pct = match z.pool_limit_used_percent {
        Some(p) if p.is_finite() => format!(" {p:.0}%"),
        _ => String::new(),
    };
    let pool_bytes = metrics::get("zswap_pool_bytes").and_then(|m| m.value(s));
    let [pool, limit] = f::bytes_short_alike([pool_bytes.map(|v| v as u64), z.pool_limit_bytes]);
    let pool_word = label("zswap_pool_bytes");
    let stored = format!(
        "{} {}",
        label("zswap_stored_bytes"),
        short("zswap_stored_bytes", s)
    );
    let ratio = f::ratio(z.compression_ratio);
    let written = written_back(s);
    let hits = format!(
        "limit hits {}",
        f::num(metrics::get("pool_limit_hit").and_then(|m| m.raw(s)))
    );
    // The writeback series' legend name, for when the words do not fit.
    let wb = metrics::get("zswpwb")
        .and_then(|m| m.series)
        .map_or("wb", |x| x.short);
    let head = [st.head("ZSWAP"), state.to_string()];
    // The same line shorter and shorter, until it fits.
    let forms: Vec<Vec<String>> = [
        [
            format!("{pool_word} {pool} of {limit}{pct}"),
            format!("ratio {ratio}"),
            format!("written back {written}"),
        ],
        [
            format!("{pool_word} {pool}/{limit}{pct}"),
            ratio.clone(),
            format!("written back {written}"),
        ],
        [
            format!("{pool_word} {pool}/{limit}{pct}"),
            ratio.clone(),
            format!("{wb} {written}"),
        ],
        [
            format!("{pool_word} {pool}/{limit}"),
            ratio.clone(),
            format!("{wb} {written}"),
        ],
    ]
    .into_iter()
    .map(|[p, r, w]| {
        let mut line = head.to_vec();
        line.extend([p, stored.clone(), r, w, hits.clone()]);
        line
    })
    .collect();
    vec![fit(&forms)]
}

/// What zswap wrote back to disk since boot: vmstat zswpwb, else debugfs written_back_pages.
fn written_back(s: &Snapshot) -> String {
    let pages = ["zswpwb", "written_back_pages"]
        .into_iter()
        .filter_map(metrics::get)
        .find_map(|m| m.raw(s));
    f::bytes_short_opt(pages.map(|p| (p as u64).saturating_mul(s.page_size.bytes)))
}

fn swap(s: &Snapshot, st: Style) -> Vec<String> {
    let w = &s.swap;
    if w.total_bytes.unwrap_or(0) == 0 && w.devices.is_empty() {
        return vec![join(&[st.head("SWAP"), "none".to_string()])];
    }
    let [used, total] = f::bytes_short_alike([w.used_bytes, w.total_bytes]);
    let mut parts = vec![st.head("SWAP"), format!("{used} used of {total}")];
    for (name, v) in [
        ("zswap", w.in_zswap_bytes),
        ("swap cache", w.in_swap_cache_bytes),
        ("zram", w.in_zram_bytes),
        ("on disk or zero", w.not_in_ram_bytes),
    ] {
        if v != Some(0) {
            parts.push(format!("{name} {}", f::bytes_short_opt(v)));
        }
    }
    if parts.len() > 2 {
        parts[1].push(':');
    }
    vec![join(&parts)]
}

/// With an interval, one line: when the pool and swap will be full at the interval's rate,
/// and whether zswap is helping ("zswap served 94 % of swap-ins; disk swap 3.2 ms a read").
fn outlook(s: &Snapshot, st: Style) -> Vec<String> {
    if s.rates.is_none() {
        return Vec::new();
    }
    use crate::model::forecast::{Forecast, ForecastState};
    let stores = [
        ("pool", s.forecast.zswap_pool.as_ref()),
        ("swap", s.forecast.swap.as_ref()),
    ];
    let stores: Vec<(&str, &Forecast)> = stores
        .into_iter()
        .filter_map(|(n, f)| Some((n, f?)))
        .collect();
    let hit = f::hit_line(s);
    if stores.is_empty() && hit.is_none() {
        return Vec::new();
    }
    // In full ("pool full in ~4 min (~3 min–~6 min) at the last 10s's rate;"), or short with
    // the basis said once ("pool full in ~4 min, swap not filling (10s's rate);").
    let mut long = vec![st.head("OUTLOOK")];
    long.extend(
        stores
            .iter()
            .map(|(n, f)| format!("{n} {};", f::forecast(f))),
    );
    long.extend(hit.clone());
    // Short: the stores that fill, their basis said once ("pool full in ~4 min (5m's rate)"),
    // or those that do not; then the hit line without "(device average)", or only its share.
    let filling: Vec<String> = stores
        .iter()
        .filter_map(|(n, f)| match (&f.state, f.seconds) {
            (ForecastState::Filling, Some(secs)) => Some(format!("{n} full in {}", f::about(secs))),
            (ForecastState::Full, _) => Some(format!("{n} full now")),
            _ => None,
        })
        .collect();
    let quiet: Vec<&str> = stores
        .iter()
        .filter(|(_, f)| f.state == ForecastState::NotFilling)
        .map(|(n, _)| *n)
        .collect();
    let window = stores.first().map_or(0.0, |(_, f)| f.window_seconds);
    let said = if !filling.is_empty() {
        Some(format!(
            "{} ({}'s rate);",
            filling.join(", "),
            f::window(window)
        ))
    } else if !quiet.is_empty() {
        Some(format!("{} not filling;", quiet.join(", ")))
    } else {
        None
    };
    let mut short = vec![st.head("OUTLOOK")];
    short.extend(said.clone());
    short.extend(hit.as_ref().map(|h| h.replace(" (device average)", "")));
    let mut shortest = vec![st.head("OUTLOOK")];
    shortest.extend(said);
    shortest.extend(
        s.zswap
            .swapin_hit_ratio
            .map(|h| format!("{:.0} % of swap-ins from zswap", h * 100.0)),
    );
    for form in [&mut long, &mut short, &mut shortest] {
        if let Some(last) = form.last_mut() {
            *last = last.trim_end_matches(';').to_string();
        }
    }
    vec![fit(&[long, short, shortest])]
}

fn zram(s: &Snapshot, st: Style) -> Vec<String> {
    // A device never set up holds nothing (the full report lists it).
    s.zram
        .iter()
        .filter(|z| z.initialized != Some(false))
        .map(|z| {
            let [orig, used, disk] =
                f::bytes_short_alike([z.orig_data_bytes, z.mem_used_bytes, z.disksize_bytes]);
            join(&[
                st.head(&z.device),
                z.algorithm.as_deref().unwrap_or(f::MISSING).to_string(),
                format!("{orig} in {used} RAM"),
                format!("ratio {}", f::ratio(z.effective_ratio)),
                format!("of {disk}"),
                if z.is_swap { "swap" } else { "not swap" }.to_string(),
            ])
        })
        .collect()
}

/// Warn and crit findings a line each (most severe first, as the rules sort them), then the
/// info ones counted on one line.
fn findings(s: &Snapshot, st: Style) -> Vec<String> {
    let mut out: Vec<String> = s
        .diagnostics
        .iter()
        .filter(|d| d.severity > Severity::Info)
        .map(|d| {
            let tag = f::severity_tag(d.severity);
            let code = if d.severity == Severity::Crit {
                "1;31"
            } else {
                "1;33"
            };
            let rest = f::clip(&format!("{}: {}", d.id, d.summary), WIDTH - tag.len() - 1);
            format!("{} {rest}", st.paint(code, tag))
        })
        .collect();
    let info: Vec<&str> = s
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Info)
        .map(|d| d.id.as_str())
        .collect();
    if !info.is_empty() {
        let line = format!("{} info: {}", info.len(), info.join(", "));
        out.push(st.dim(&f::clip(&line, WIDTH)));
    }
    out
}

/// What could not be read, named on one line, and the command that gets it (a line per
/// distinct command).
fn unavailable(s: &Snapshot, st: Style) -> Vec<String> {
    let items = f::unavailable(s);
    if items.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = items.iter().map(|m| m.item.as_str()).collect();
    let head = "unavailable:";
    let mut out = vec![format!(
        "{} {}",
        st.warn(head),
        f::clip(&names.join(", "), WIDTH - head.len() - 1)
    )];
    let mut fixes: Vec<&str> = items.iter().filter_map(|m| m.reason.fix()).collect();
    fixes.sort_unstable();
    fixes.dedup();
    for fix in fixes.into_iter().take(2) {
        out.push(f::clip(&format!("  to get it: {fix}"), WIDTH));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (crate::sources::Sample, crate::sources::Sample) {
        let root = crate::root::Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-loaded"
        ));
        let a = crate::sources::collect(&root);
        let mut b = a.clone();
        b.monotonic_ns += 10_000_000_000;
        if let Ok(m) = b.meminfo.as_mut() {
            m.zswap = m.zswap.map(|p| p + 10 * 1_048_576);
        }
        if let Ok(v) = b.vmstat.as_mut() {
            (v.zswpin, v.pswpin) = (v.zswpin.map(|n| n + 94), v.pswpin.map(|n| n + 6));
        }
        (a, b)
    }

    /// With an interval, one OUTLOOK line within the width: the pool's forecast at the
    /// interval's rate, swap's, and the share of swap-ins zswap served; without, none.
    #[test]
    fn one_outlook_line_with_an_interval() {
        let st = Style { color: false };
        let (a, b) = pair();
        let one = crate::pipeline::snapshot(&a, None);
        assert!(lines(&one, st).iter().all(|l| !l.starts_with("OUTLOOK")));
        let two = crate::pipeline::snapshot(&b, Some(&a));
        let said: Vec<String> = lines(&two, st)
            .into_iter()
            .filter(|l| l.starts_with("OUTLOOK"))
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        let l = &said[0];
        assert!(text::visible_width(l) <= WIDTH, "{l}");
        // (4.7 GiB limit − 508.7 MiB) at 1 MiB/s: ~72 min; 94 of 100 swap-ins from zswap.
        assert!(l.contains("pool full in ~72 min (10s's rate)"), "{l}");
        assert!(l.contains("zswap served 94 % of swap-ins"), "{l}");
        assert!(!l.contains('…'), "{l}");
    }
}
