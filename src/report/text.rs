//! `--once` as text: fits 80 columns, colour only when asked for (a terminal without NO_COLOR).

use std::io::{self, Write};

use crate::display::{self as f, GaugeCell};
use crate::error::Reason;
use crate::model::Snapshot;
use crate::model::memory::BUCKETS;
use crate::model::metrics::{self, Hue, Metric, Output};
use crate::present::{self, Depth, Tone};

/// ANSI styling, or none at all.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub(super) fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub(super) fn head(&self, s: &str) -> String {
        self.paint("1", s)
    }
    pub(super) fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    pub(super) fn warn(&self, s: &str) -> String {
        self.paint("33", s)
    }
    pub(super) fn pool(&self, s: &str) -> String {
        self.paint("1;35", s)
    }
}

/// A registry hue as an ANSI 16-colour code (each reads on dark and light backgrounds).
pub(super) fn ansi(h: Hue) -> &'static str {
    match h {
        Hue::Green => "32",
        Hue::Cyan => "36",
        Hue::Blue => "34",
        Hue::LightBlue => "94",
        Hue::Yellow => "33",
        Hue::LightYellow => "93",
        Hue::Magenta => "35",
        Hue::LightMagenta => "95",
        Hue::Red => "31",
        Hue::Gray => "37",
        Hue::DarkGray => "90",
    }
}

pub const WIDTH: usize = 80;

pub fn write(snap: &Snapshot, out: &mut impl Write, style: Style) -> io::Result<()> {
    header(snap, out, style)?;
    memory(snap, out, style)?;
    zswap(snap, out, style)?;
    swap(snap, out, style)?;
    zram(snap, out, style)?;
    outlook(snap, out, style)?;
    capacity(snap, out, style)?;
    counters(snap, out, style)?;
    swapin(snap, out, style)?;
    processes_section(snap, out, style, true)?;
    cgroups_section(snap, out, style, true)?;
    diagnostics(snap, out, style)?;
    tunables(snap, out, style)?;
    unavailable(snap, out, style)
}

fn header(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let facts = present::header::facts(s);
    let value =
        |key| present::find(&facts, key).map_or(f::MISSING.to_string(), |f| f.value.clone());
    let said = |key| present::find(&facts, key).map_or(String::new(), |f| f.short.clone());
    let line = |host: &str, kernel: &str| {
        format!(
            "{} {}  host {host}  kernel {kernel}  {}  {}",
            st.head("zswaptop"),
            value("header.tool"),
            said("header.uptime"),
            said("header.who"),
        )
    };
    // A long host name or release (escapes make one longer) is cut in the middle, `…` marking
    // it, so the line keeps to the width.
    let room = WIDTH.saturating_sub(visible_width(&line("", "")));
    let (host, kernel) = share(&value("header.host"), &value("header.kernel"), room);
    writeln!(out, "{}", line(&host, &kernel))?;
    for key in ["header.tree", "header.page_size"] {
        if let Some(fact) = present::find(&facts, key) {
            writeln!(out, "{}", st.dim(&fact.long))?;
        }
    }
    Ok(())
}

/// `a` and `b` fitted ([`f::fit`]) into `room` columns between them: each whole when both fit,
/// else the shorter whole when it takes at most half and the longer the rest.
pub(super) fn share(a: &str, b: &str, room: usize) -> (String, String) {
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la + lb <= room {
        return (a.to_string(), b.to_string());
    }
    let half = room / 2;
    let (wa, wb) = if la <= half {
        (la, room - la)
    } else if lb <= room - half {
        (room - lb, lb)
    } else {
        (half, room - half)
    };
    (f::fit(a, wa, false), f::fit(b, wb, false))
}

fn section(out: &mut impl Write, st: Style, title: &str, right: &str) -> io::Result<()> {
    writeln!(out)?;
    let pad = WIDTH.saturating_sub(title.chars().count() + right.chars().count());
    if right.is_empty() {
        return writeln!(out, "{}", st.head(title));
    }
    writeln!(out, "{}{}{}", st.head(title), " ".repeat(pad), right)
}

fn memory(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let m = &s.memory;
    let facts = present::memory::facts(s);
    let said = |k: &str| present::find(&facts, k).map_or("", |f| f.value.as_str());
    section(
        out,
        st,
        "REAL MEMORY",
        &format!(
            "available {} of {} total",
            said("memory.available"),
            said("memory.total")
        ),
    )?;
    let Some(b) = &m.breakdown else {
        return writeln!(
            out,
            "  {}",
            st.warn("/proc/meminfo could not be read (see UNAVAILABLE)")
        );
    };
    writeln!(out, "{}", bar(&b.buckets(), st))?;
    for ((_, v), (fact, info)) in b.buckets().iter().zip(present::memory::buckets(&facts)) {
        let pct = present::memory::share(s, *v);
        let glyph = st.paint(ansi(info.hue), &info.glyph.to_string());
        let label = format!("{:<18}", fact.label);
        let label = if matches!(info.key, "zswap_pool" | "zram_pool") && v.unwrap_or(0) > 0 {
            st.pool(&label)
        } else {
            label
        };
        let age = (info.key == "pcp_free")
            .then(|| f::age_note(m.pcp_free_age_ms))
            .flatten()
            .map_or_else(String::new, |a| format!(" ({a})"));
        writeln!(
            out,
            "  {glyph} {label} {:>10} {pct:>6}  {}",
            fact.value,
            st.dim(&format!("{}{age}", info.source))
        )?;
    }
    if let Some(mapped) = m.swap_cache_mapped_bytes
        && (mapped > 0 || b.swap_cache.is_some_and(|v| v > 0))
    {
        for line in [
            format!(
                "swap cache: an estimate, over by at most Unevictable; {} more",
                f::bytes(Some(mapped))
            ),
            "of it is mapped again and counted in apps".to_string(),
        ] {
            writeln!(out, "  {}", st.dim(&line))?;
        }
    }
    writeln!(out, "{}", present::memory::free_says(s).concat())?;
    match present::memory::free_says_pcp(b.pcp_free) {
        Some(pcp) => writeln!(out, "  {pcp}"),
        None => Ok(()),
    }
}

fn zswap(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let z = &s.zswap;
    if !z.available {
        section(out, st, "ZSWAP", "not in this kernel")?;
        return missing_lines(&z.unavailable, out, st);
    }
    let mut facts = present::zswap::facts(s);
    facts.retain(|f| f.at(Depth::Full));
    let state = present::zswap::state(s).value;
    section(out, st, "ZSWAP", &state)?;
    settings(z, out)?;
    writeln!(
        out,
        "  pool    {:>10} of {} limit ({})  {}",
        f::bytes(z.pool_bytes),
        f::bytes(z.pool_limit_bytes),
        f::percent(z.pool_limit_used_percent),
        gauge(z.pool_limit_used_percent, z.accept_threshold_percent, 20),
    )?;
    writeln!(
        out,
        "  stored  {:>10} ({} pages)   saves {}",
        f::bytes(z.stored_bytes),
        f::num(z.stored_pages),
        f::bytes_signed(z.saved_bytes),
    )?;
    match present::zswap::ratio(s) {
        Ok(r) => writeln!(
            out,
            "  ratio   {} effective, {} compressor only",
            f::ratio(Some(r)),
            f::ratio(z.compressor_ratio),
        )?,
        Err(why) => writeln!(out, "  ratio   {} ({why})", f::MISSING)?,
    }
    if z.incompressible_bytes.is_some() || z.same_filled_bytes.is_some() {
        writeln!(
            out,
            "  incompressible {} ({} of stored)   same-filled {}",
            f::bytes(z.incompressible_bytes),
            f::percent(f::share(z.incompressible_bytes, z.stored_bytes)),
            f::bytes(z.same_filled_bytes),
        )?;
    }
    // The facts the lines above do not hold, one a line.
    let placed = ["zswap.state", "zswap.pool", "zswap.stored", "zswap.ratio"];
    for fact in facts.iter().filter(|f| !placed.contains(&f.key)) {
        writeln!(out, "  {}", fact.long)?;
    }
    if let Some(d) = &z.debugfs {
        writeln!(out, "  debugfs counters:")?;
        let cells: Vec<String> = d.iter().map(|(k, v)| format!("{k} {v}")).collect();
        write_columns(out, &cells, 4, WIDTH)?;
    }
    if let Some(r) = &s.rates {
        writeln!(
            out,
            "  over {:.1}s: store {}  load {}  writeback {}  bypass {}",
            r.interval_seconds,
            f::rate(r.zswpout_bytes_per_sec),
            f::rate(r.zswpin_bytes_per_sec),
            f::rate(r.zswpwb_bytes_per_sec),
            f::rate(r.bypassed_zswap_bytes_per_sec),
        )?;
    }
    missing_lines(&z.unavailable, out, st)
}

/// zswap's settings: its parameters (the allocator where the kernel offers a choice; the
/// shrinker, or that the kernel has none) and those given at boot.
fn settings(z: &crate::model::Zswap, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "  compressor {}  max_pool_percent {}  accept_threshold {}%",
        z.compressor.as_deref().unwrap_or(f::MISSING),
        f::num(z.max_pool_percent),
        f::num(z.accept_threshold_percent),
    )?;
    writeln!(
        out,
        "  shrinker {}{}",
        f::setting(z.shrinker_enabled, z.lacks("shrinker_enabled")),
        z.allocator()
            .map(|a| format!("  allocator {a}"))
            .unwrap_or_default()
    )?;
    for (k, v) in &z.parameters {
        if !matches!(
            k.as_str(),
            "enabled"
                | "compressor"
                | "zpool"
                | "max_pool_percent"
                | "accept_threshold_percent"
                | "shrinker_enabled"
        ) {
            writeln!(out, "  {k} {v}")?;
        }
    }
    let boot = if z.boot_parameters.is_empty() {
        "none".to_string()
    } else {
        z.boot_parameters
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    writeln!(out, "  boot parameters: {boot}")?;
    Ok(())
}

/// The real-memory bar, [`WIDTH`] wide: each bucket's share of the total in its glyph (its
/// colour, when styled).
pub(super) fn bar(buckets: &[(&'static str, Option<i64>)], st: Style) -> String {
    let values: Vec<u64> = buckets
        .iter()
        .map(|(_, v)| v.unwrap_or(0).max(0).unsigned_abs())
        .collect();
    let cells = f::proportional_cells(&values, WIDTH - 2);
    let mut bar = String::new();
    for (i, &n) in cells.iter().enumerate() {
        let seg: String = std::iter::repeat_n(BUCKETS[i].glyph, n).collect();
        bar.push_str(&if st.color {
            st.paint(&format!("7;{}", ansi(BUCKETS[i].hue)), &seg)
        } else {
            seg
        });
    }
    format!("[{bar}]")
}

/// `[#####|.....]` with `|` at the accept threshold; nothing when the level is unknown.
pub(crate) fn gauge(pct: Option<f64>, threshold: Option<u64>, width: usize) -> String {
    if !pct.is_some_and(f64::is_finite) {
        return String::new();
    }
    let cells: String = f::gauge(pct, threshold, width)
        .into_iter()
        .map(|c| match c {
            GaugeCell::Mark => '|',
            GaugeCell::Filled => '#',
            GaugeCell::Empty => '.',
        })
        .collect();
    format!("[{cells}]")
}

fn write_columns(
    out: &mut impl Write,
    cells: &[String],
    indent: usize,
    width: usize,
) -> io::Result<()> {
    let col = cells.iter().map(|c| c.chars().count()).max().unwrap_or(0) + 3;
    let per_row = ((width - indent) / col.max(1)).max(1);
    for row in cells.chunks(per_row) {
        let line: String = row.iter().map(|c| format!("{c:<col$}")).collect();
        writeln!(out, "{}{}", " ".repeat(indent), line.trim_end())?;
    }
    Ok(())
}

fn swap(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let w = &s.swap;
    let facts = present::swap::facts(s);
    let used = present::find(&facts, "swap.used").map_or("none", |f| f.long.as_str());
    section(out, st, "SWAP", used)?;
    // Where the used swap is, each part in full: on one line where they fit, else one a line.
    let split: Vec<&str> = present::swap::split(&facts)
        .filter(|f| f.at(Depth::Full))
        .map(|f| f.long.as_str())
        .collect();
    for line in flow(&split, 2) {
        writeln!(out, "  {line}")?;
    }
    if let Some(bad) = s
        .sources
        .iter()
        .find(|x| x.source == "/proc/swaps" && !x.is_ok())
    {
        return writeln!(out, "  swap devices unknown: /proc/swaps {}", bad.status());
    }
    if w.devices.is_empty() {
        return writeln!(out, "  no active swap devices");
    }
    writeln!(
        out,
        "  {:<38} {:<9} {:>10} {:>10} {:>5}",
        "device", "type", "size", "used", "prio"
    )?;
    for d in &w.devices {
        writeln!(
            out,
            "  {:<38} {:<9} {:>10} {:>10} {:>5}",
            f::fit(&d.path, 38, false),
            if d.is_zram { "zram" } else { d.kind.as_str() },
            f::bytes_raw(d.size_bytes),
            f::bytes_raw(d.used_bytes),
            d.priority
        )?;
        writeln!(
            out,
            "      {}",
            st.dim(&format!(
                "in zswap {} · in device {} · elsewhere {}",
                f::bytes(d.split.in_zswap_bytes),
                f::bytes(d.split.in_device_bytes),
                f::bytes(d.split.elsewhere_bytes)
            ))
        )?;
        if let Some(line) = device_line(d) {
            for l in f::wrap(&line, WIDTH, 6, 6) {
                writeln!(out, "      {}", st.dim(&l))?;
            }
        }
    }
    let area_note = format!(
        "per area: in device = in zram's RAM, or on the disk (zero-filled pages included); \
         elsewhere = in zswap, the swap cache, the zero map or zram's backing device; {} = the kernel counts it only \
         for all areas together",
        f::MISSING
    );
    for l in f::wrap(&area_note, WIDTH, 2, 2) {
        writeln!(out, "  {}", st.dim(&l))?;
    }
    for g in w.priority_groups.iter().filter(|g| g.devices.len() > 1) {
        writeln!(
            out,
            "  priority {}: {} devices share pages round-robin",
            g.priority,
            g.devices.len()
        )?;
    }
    if let Some(r) = &s.rates {
        writeln!(
            out,
            "  swap I/O (all devices): in {}  out {}",
            f::rate(r.pswpin_bytes_per_sec),
            f::rate(r.pswpout_bytes_per_sec)
        )?;
    }
    let note = "device I/O counts all traffic on the device, not only swap; zswap's share \
                is known only for all devices together";
    if w.devices.iter().any(|d| d.io.is_some()) {
        for l in f::wrap(note, WIDTH, 2, 2) {
            writeln!(out, "  {}", st.dim(&l))?;
        }
    }
    Ok(())
}

/// "on vda2 (disk vda, SSD) · read 1.2 MiB/s 30 IOPS · write … · busy 3%".
fn device_line(d: &crate::model::SwapDevice) -> Option<String> {
    if d.is_zram {
        return None;
    }
    let dev = d.block_device.as_deref()?;
    let kind = match d.rotational {
        Some(true) => ", rotational",
        Some(false) => ", non-rotational",
        None => "",
    };
    let disks = if d.disks.is_empty() || d.disks == [dev] {
        String::new()
    } else {
        format!(" on {}", d.disks.join("+"))
    };
    let mut line = format!("{dev}{disks}{kind}");
    if let Some(io) = &d.io {
        if io.read_bytes_per_sec.is_some() {
            line.push_str(&format!(
                " · read {} {} IOPS · write {} {} IOPS · busy {}",
                f::rate(io.read_bytes_per_sec),
                f::iops(true, io.read_iops),
                f::rate(io.write_bytes_per_sec),
                f::iops(true, io.write_iops),
                f::percent(io.busy_percent)
            ));
        } else {
            line.push_str(&format!(
                " · {} read, {} written since boot",
                f::bytes_raw(io.read_bytes_total),
                f::bytes_raw(io.write_bytes_total)
            ));
        }
    }
    Some(line)
}

fn zram(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    if s.zram.is_empty() {
        return Ok(());
    }
    section(out, st, "ZRAM", "")?;
    writeln!(
        out,
        "  {:<7} {:<8} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7}",
        "device", "alg", "disksize", "orig", "compr", "mem used", "ratio", "eff."
    )?;
    for z in &s.zram {
        if z.initialized == Some(false) {
            writeln!(out, "  {:<7} not initialised", z.device)?;
            continue;
        }
        writeln!(
            out,
            "  {:<7} {:<8} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7}",
            z.device,
            f::fit(z.algorithm.as_deref().unwrap_or(f::MISSING), 8, false),
            f::bytes(z.disksize_bytes),
            f::bytes(z.orig_data_bytes),
            f::bytes(z.compr_data_bytes),
            f::bytes(z.mem_used_bytes),
            f::ratio(z.compression_ratio),
            f::ratio(z.effective_ratio),
        )?;
        let mut extra = vec![
            format!(
                "limit {}",
                z.mem_limit_bytes
                    .map_or(f::MISSING.to_string(), |l| if l == 0 {
                        "none".into()
                    } else {
                        f::bytes_raw(l)
                    })
            ),
            format!("peak {}", f::bytes(z.mem_used_max_bytes)),
            format!("overhead {}", f::bytes(z.allocator_overhead_bytes)),
            format!("same-filled {}", f::num(z.same_pages)),
            format!("huge {}", f::num(z.huge_pages)),
        ];
        if z.io_failed() {
            extra.push(format!(
                "FAILED reads {} writes {}",
                f::num(z.failed_reads),
                f::num(z.failed_writes)
            ));
        }
        for line in f::wrap(&extra.join(" · "), WIDTH, 10, 10) {
            writeln!(out, "          {}", st.dim(&line))?;
        }
        // Writeback and recompression (present::zram), a fact a line.
        for fact in present::zram::device_facts(z)
            .iter()
            .filter(|f| f.at(Depth::Full))
        {
            for line in f::wrap(&fact.long, WIDTH, 10, 12) {
                writeln!(out, "          {line}")?;
            }
        }
    }
    Ok(())
}

/// With an interval: when the pool and all swap will be full, whether zswap serves the
/// swap-ins and what a disk read costs, each fact in full on a line.
fn outlook(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let mut facts = present::outlook::facts(s);
    facts.retain(|f| f.at(Depth::Full));
    if facts.is_empty() {
        return Ok(());
    }
    section(out, st, "OUTLOOK", "")?;
    for fact in &facts {
        for (i, line) in f::wrap(&fact.long, WIDTH, 2, 4).iter().enumerate() {
            let indent = if i == 0 { "  " } else { "    " };
            writeln!(out, "{indent}{line}")?;
        }
    }
    Ok(())
}

fn capacity(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let c = &s.capacity;
    section(out, st, "CAPACITY", "")?;
    writeln!(
        out,
        "  effective memory now {}   with the pool at its limit {}",
        f::bytes(c.effective_now_bytes),
        f::bytes(c.effective_at_pool_limit_bytes)
    )?;
    writeln!(
        out,
        "  zswap can hold at most {} of pages; room for {} more",
        f::bytes(c.zswap_resident_max_bytes),
        f::bytes(c.fast_tier_headroom_bytes)
    )?;
    if c.ratio_assumed && c.zswap_resident_max_bytes.is_some() {
        let why = match f::pool_ratio(s.zswap.compression_ratio, s.zswap.stored_bytes) {
            Err("nothing stored") | Ok(_) => "the pool is empty",
            Err(why) => why,
        };
        writeln!(
            out,
            "  {}",
            st.dim(&format!("({why}: a 2:1 ratio is assumed)"))
        )?;
    }
    let facts = present::header::facts(s);
    if let Some(p) = present::find(&facts, "header.pressure") {
        writeln!(out, "  {}", p.long)?;
    }
    Ok(())
}

/// The registry's kernel counters (the debugfs ones are listed whole under ZSWAP), one a
/// line: each total since boot as the kernel counts it, and its rate over the interval when
/// there is one; a counter that is part of another also gets its share of that one.
fn counters(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let right = match &s.rates {
        Some(r) => format!("since boot; per second over {:.1}s", r.interval_seconds),
        None => "since boot".to_string(),
    };
    section(out, st, "KERNEL COUNTERS", &right)?;
    let shown = metrics::reaching(Output::CounterLine);
    // "(12.5% of pswpout)" after a counter that counts a part of another.
    let of = |m: &Metric, pct: Option<f64>| match m.part_of {
        Some(whole) => format!(" ({} of {whole})", f::percent(pct)),
        None => String::new(),
    };
    for m in shown {
        let total = f::count(m.raw(s).map(|v| v as u64), m.unit);
        let (since_boot, over_interval) = m.share(s);
        let line = match &s.rates {
            None => format!("  {:<24} {total:>20}{}", m.label, of(m, since_boot)),
            Some(_) => format!(
                "  {:<24} {total:>20}  {}{}",
                m.label,
                f::metric_value(m, s),
                of(m, over_interval)
            ),
        };
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// How long swap-ins waited, by tier (BPF): a row a tier with its percentiles, swap-ins a
/// second and histogram, or why nothing is measured.
fn swapin(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    use crate::present::swapin;
    let right = match s.interval_seconds {
        Some(dt) if s.swapin_latency.available => format!("fault to page, over {dt:.1}s"),
        _ => String::new(),
    };
    section(out, st, "SWAP-IN LATENCY", &right)?;
    if let Some(why) = swapin::unavailable(s) {
        return paragraph(out, "  ", 2, &why);
    }
    for line in swapin::table(s, WIDTH - 2) {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// A process's footprint, its compressed estimate (and its basis) and its smaps_rollup
/// figures, on one line: `footprint 674M · ~compr 84M cgroup · shm swap 0 · SwapPss 293M`.
fn footprint_line(r: &crate::model::owners::ProcessRow) -> String {
    let basis = match r.compressed_estimate_from.as_deref() {
        Some("global ratio") => " global",
        Some(_) => " cgroup",
        None => "",
    };
    format!(
        "footprint {} · ~compr {}{basis} · shm swap {} · SwapPss {}",
        f::bytes_short_opt(r.footprint_bytes),
        f::bytes_short_opt(r.compressed_estimate_bytes),
        f::bytes_short_opt(r.shmem_swap_bytes),
        f::bytes_short_opt(r.swap_pss_bytes),
    )
}

/// The processes' table as the one screen adds it below its lines (which said their facts).
pub(super) fn processes(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    processes_section(s, out, st, false)
}

/// The processes' section; `facts`: with their facts first ([`present::processes`]).
fn processes_section(s: &Snapshot, out: &mut impl Write, st: Style, facts: bool) -> io::Result<()> {
    let Some(p) = &s.processes else {
        return Ok(());
    };
    if let Some(why) = &p.unreadable {
        section(out, st, "PROCESSES BY SWAP", "unknown")?;
        for line in f::wrap(&format!("no process could be read: {why}"), WIDTH, 2, 4) {
            writeln!(out, "  {line}")?;
        }
        return Ok(());
    }
    let title = match p.sorted_by {
        crate::model::owners::ProcessRank::MajorFaultsPerSec => "PROCESSES BY MAJOR FAULTS",
        crate::model::owners::ProcessRank::SwapBytes => "PROCESSES BY SWAP",
    };
    section(
        out,
        st,
        title,
        &format!(
            "{} of {} have swap, {} in all",
            p.with_swap,
            p.scanned,
            f::bytes_raw(p.total_swap_bytes)
        ),
    )?;
    if p.top.is_empty() {
        return writeln!(out, "  no process has swapped memory");
    }
    if facts {
        fact_lines(&present::processes::facts(s), out, st)?;
    }
    // With an interval, major faults per second (the list is ranked by them while any
    // process faults: `processes.sorted_by`).
    let faults = p.faults_interval_seconds.is_some();
    let head = format!(
        "  {:>7} {:<15} {:<9} {:>10} {:>10} {:>12}",
        "pid", "name", "user", "rss", "swap", "~in zswap"
    );
    writeln!(out, "{head}{}", if faults { "  faults/s" } else { "" })?;
    for r in &p.top {
        let row = format!(
            "  {:>7} {:<15} {:<9} {:>10} {:>10} {:>12}",
            r.pid,
            f::fit(&r.name, 15, false),
            f::fit(r.user.as_deref().unwrap_or(f::MISSING), 9, false),
            f::bytes(r.rss_bytes),
            f::bytes_raw(r.swap_bytes),
            f::bytes(r.zswap_estimate_bytes),
        );
        let rate = r
            .major_faults_per_sec
            .map_or_else(|| f::MISSING.to_string(), |v| format!("{v:.1}"));
        if faults {
            writeln!(out, "{row} {rate:>9}")?;
        } else {
            writeln!(out, "{row}")?;
        }
        for line in f::wrap(&footprint_line(r), WIDTH, 10, 10) {
            writeln!(out, "{:10}{}", "", st.dim(&line))?;
        }
        if let Some(cmd) = &r.command {
            writeln!(out, "{:10}{}", "", st.dim(&f::fit(cmd, WIDTH - 10, false)))?;
        }
    }
    let mut sources: Vec<&str> = p
        .top
        .iter()
        .flat_map(|r| [&r.estimate_from, &r.compressed_estimate_from])
        .filter_map(|f| f.as_deref())
        .collect();
    sources.sort_unstable();
    sources.dedup();
    let from = if sources.is_empty() {
        "unknown".to_string()
    } else {
        sources.join(" or ")
    };
    let mut note = format!(
        "footprint: rss + swap. ~in zswap (swap × Zswapped ÷ swap used) and ~compr (the RAM its \
         swap takes compressed: swap × (zswap pool + zram RAM) ÷ swap used) are estimates \
         ({from}); the kernel has no per-process figure. shm swap: swapped shmem it maps \
         (smaps_rollup Swap − VmSwap); SwapPss: its proportional share of its swap"
    );
    if let Some(why) = p.top.iter().find_map(|r| r.smaps_missing.as_deref()) {
        note.push_str(&format!(". shm swap —: {why}"));
    }
    if sources.contains(&"global ratio") {
        note.push_str(&format!(
            ". global ratio: {}",
            crate::model::owners::GLOBAL_ESTIMATE_NOTE
        ));
    }
    if faults {
        note.push_str(
            ". faults/s: major faults (/proc/PID/stat majflt: swap-ins and file reads alike)",
        );
    }
    for line in f::wrap(&note, WIDTH, 2, 2) {
        writeln!(out, "  {}", st.dim(&line))?;
    }
    Ok(())
}

/// A section's facts that `--full` says (their long phrases, toned), then a blank line.
fn fact_lines(facts: &[present::Fact], out: &mut impl Write, st: Style) -> io::Result<()> {
    for fact in facts.iter().filter(|f| f.at(Depth::Full)) {
        let lines = f::wrap(&fact.long, WIDTH, 2, 4);
        for (i, line) in lines.iter().enumerate() {
            let line = match fact.tone {
                Tone::Crit => st.paint("1;31", line),
                Tone::Warn => st.warn(line),
                _ => line.clone(),
            };
            writeln!(out, "{}{line}", if i == 0 { "  " } else { "    " })?;
        }
    }
    writeln!(out)
}

/// The CGROUPS section as the one screen adds it below its lines (which said the cgroups'
/// facts already).
pub(super) fn cgroups(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    cgroups_section(s, out, st, false)
}

/// The CGROUPS section; `facts`: with the cgroups' facts first ([`present::cgroups`]).
fn cgroups_section(s: &Snapshot, out: &mut impl Write, st: Style, facts: bool) -> io::Result<()> {
    let Some(c) = &s.cgroups else {
        return Ok(());
    };
    section(out, st, "CGROUPS", if c.is_v1() { "cgroup v1" } else { "" })?;
    if !c.available {
        let reason = c.reason.as_ref().map_or("unavailable".into(), Reason::text);
        for line in f::wrap(&reason, WIDTH, 2, 2) {
            writeln!(out, "  {line}")?;
        }
        return Ok(());
    }
    if facts {
        fact_lines(&present::cgroups::facts(s), out, st)?;
    }
    for line in c.v1_notes().iter().flat_map(|n| f::wrap(n, WIDTH, 2, 2)) {
        writeln!(out, "  {}", st.dim(&line))?;
    }
    writeln!(
        out,
        "  {:<30} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "cgroup", "memory", "swap", "zswap", "zswapped", "ratio"
    )?;
    let mut rows: Vec<_> = c.list.iter().collect();
    // Largest zswap first; on v1, which has none, largest memory first.
    rows.sort_by(|a, b| {
        c.rank_bytes(b)
            .unwrap_or(0)
            .cmp(&c.rank_bytes(a).unwrap_or(0))
            .then(a.path.cmp(&b.path))
    });
    for r in rows.iter().take(15) {
        let name = r.unit.clone().unwrap_or_else(|| r.path.clone());
        writeln!(
            out,
            "  {:<30} {:>9} {:>9} {:>9} {:>9} {:>7}",
            f::fit(&name, 30, false),
            f::bytes(r.memory_current_bytes),
            f::bytes(r.swap_current_bytes),
            f::bytes(r.zswap_bytes),
            f::bytes(r.zswapped_bytes),
            f::ratio(r.compression_ratio),
        )?;
    }
    cgroup_events(c, out, st)?;
    cgroup_limits(c, out, st)
}

/// The cgroups' memory events (counts, what the window added and its rates) and pressure: those
/// with any event or any pressure, most OOM kills first, then max and high events.
fn cgroup_events(
    c: &crate::model::owners::Cgroups,
    out: &mut impl Write,
    st: Style,
) -> io::Result<()> {
    use crate::model::cgroup_events::CgroupEvents;
    writeln!(out)?;
    let window = c
        .interval_seconds
        .map_or("no window: one read".to_string(), |s| {
            format!("+N: over the last {s:.1} s")
        });
    writeln!(
        out,
        "  {}",
        st.dim(&format!("memory.events and memory.pressure ({window})"))
    )?;
    for why in [&c.events_missing, &c.pressure_missing]
        .into_iter()
        .flatten()
    {
        for line in f::wrap(&why.text(), WIDTH, 2, 2) {
            writeln!(out, "  {}", st.dim(&line))?;
        }
    }
    let key = |e: &CgroupEvents| (e.oom_kill, e.max, e.high);
    let mut rows: Vec<_> = c
        .list
        .iter()
        .filter(|r| {
            r.events.as_ref().is_some_and(|e| {
                [e.oom_kill, e.max, e.high]
                    .iter()
                    .any(|v| v.is_some_and(|v| v > 0))
            }) || r
                .pressure
                .as_ref()
                .is_some_and(|p| p.some_avg10 > 0.0 || p.some_delta_us.is_some_and(|d| d > 0))
        })
        .collect();
    if rows.is_empty() {
        return writeln!(
            out,
            "  no cgroup has had an OOM kill, a max or high event, or pressure"
        );
    }
    rows.sort_by(|a, b| {
        let k = |r: &crate::model::owners::CgroupRow| r.events.as_ref().map(key);
        k(b).cmp(&k(a)).then(a.path.cmp(&b.path))
    });
    writeln!(
        out,
        "  {:<22} {:>8} {:>9} {:>7} {:>8} {:>6} {:>5} {:>5}",
        "cgroup", "oom kill", "high", "high/s", "max", "max/s", "some%", "full%"
    )?;
    let known = c.interval_seconds.is_some();
    for r in rows.iter().take(15) {
        let name = r.unit.clone().unwrap_or_else(|| r.path.clone());
        let ev = |k: fn(&CgroupEvents) -> Option<u64>| {
            f::event_count(
                r.events.as_ref().and_then(k),
                r.events_new.as_ref().and_then(k),
            )
        };
        let rate = |k: fn(&crate::model::cgroup_events::CgroupEventRates) -> Option<f64>| match r
            .events_per_sec
            .as_ref()
            .and_then(k)
        {
            Some(v) => f::iops(known, Some(v)),
            None => f::MISSING.to_string(),
        };
        let psi = |v: Option<f64>| v.map_or(f::MISSING.to_string(), |v| format!("{v:.1}"));
        writeln!(
            out,
            "  {:<22} {:>8} {:>9} {:>7} {:>8} {:>6} {:>5} {:>5}",
            f::fit(&name, 22, false),
            ev(|e| e.oom_kill),
            ev(|e| e.high),
            rate(|e| e.high),
            ev(|e| e.max),
            rate(|e| e.max),
            psi(r.pressure.as_ref().map(|p| p.some_avg10)),
            psi(r.pressure.as_ref().map(|p| p.full_avg10)),
        )?;
    }
    Ok(())
}

/// Every limit set (not "max") with its headroom, the tightest first.
fn cgroup_limits(
    c: &crate::model::owners::Cgroups,
    out: &mut impl Write,
    st: Style,
) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "  {}",
        st.dim("limits set, the tightest first (headroom = limit − usage)")
    )?;
    if let Some(why) = &c.limits_missing {
        for line in f::wrap(&why.text(), WIDTH, 2, 2) {
            writeln!(out, "  {}", st.dim(&line))?;
        }
    }
    let mut rows: Vec<_> = c
        .list
        .iter()
        .flat_map(|r| {
            r.limits
                .named()
                .into_iter()
                .filter_map(move |(file, l)| Some((r, file, l?)))
        })
        .filter(|(_, _, l)| l.limit_bytes.is_some())
        .collect();
    if rows.is_empty() {
        return writeln!(out, "  no cgroup has a limit set: every one read is max");
    }
    let share = |l: &crate::model::cgroup_events::Limit| l.headroom_share.unwrap_or(f64::INFINITY);
    rows.sort_by(|a, b| {
        share(a.2)
            .total_cmp(&share(b.2))
            .then(a.0.path.cmp(&b.0.path))
    });
    writeln!(
        out,
        "  {:<23} {:<16} {:>8} {:>8} {:>10} {:>7}",
        "cgroup", "limit", "bytes", "usage", "headroom", "share"
    )?;
    for (r, file, l) in rows.iter().take(15) {
        let name = r.unit.clone().unwrap_or_else(|| r.path.clone());
        writeln!(
            out,
            "  {:<23} {:<16} {:>8} {:>8} {:>10} {:>7}",
            f::fit(&name, 23, false),
            file,
            f::bytes_short_opt(l.limit_bytes),
            f::bytes_short_opt(l.usage_bytes),
            match l.headroom_bytes {
                Some(h) if h < 0 => format!("-{}", f::bytes_short(h.unsigned_abs())),
                Some(h) => f::bytes_short(h.unsigned_abs()),
                None => f::MISSING.to_string(),
            },
            f::percent(l.headroom_share.map(|s| s * 100.0)),
        )?;
    }
    Ok(())
}

fn diagnostics(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let facts = present::findings::facts(s);
    let right = present::find(&facts, "findings.counts").map_or("none", |f| f.value.as_str());
    section(out, st, "DIAGNOSTICS", right)?;
    if s.diagnostics.is_empty() {
        return writeln!(out, "  no problems found in what the kernel exposes");
    }
    let each = facts.iter().filter(|f| f.key == "findings.finding");
    for (i, (d, fact)) in present::findings::sorted(s)
        .into_iter()
        .zip(each)
        .enumerate()
    {
        if i > 0 {
            writeln!(out)?;
        }
        let code = match fact.tone {
            Tone::Crit => "1;31",
            Tone::Warn => "1;33",
            _ => "36",
        };
        let head = f::wrap(&fact.long, WIDTH, 8, 8);
        for (j, line) in head.iter().enumerate() {
            if j == 0 {
                writeln!(out, "  {}  {line}", st.paint(code, fact.label))?;
            } else {
                writeln!(out, "        {line}")?;
            }
        }
        for e in &d.evidence {
            paragraph(out, "        - ", 10, e)?;
        }
        // A fix holds commands to copy: broken only where the shell reads on.
        let fix = f::wrap_commands(&d.fix, WIDTH, 13, 13);
        paragraph_lines(out, "        fix: ", 13, &fix)?;
        paragraph(out, &format!("        {} ", st.dim("why:")), 13, &d.why)?;
    }
    Ok(())
}

/// `text` wrapped to [`WIDTH`]: the first line after `first` (which may hold colour codes, so
/// its width is counted without them), the others indented by `indent` spaces.
fn paragraph(out: &mut impl Write, first: &str, indent: usize, text: &str) -> io::Result<()> {
    let lines = f::wrap(text, WIDTH, visible_width(first), indent);
    paragraph_lines(out, first, indent, &lines)
}

/// `lines` after `first`, the others indented by `indent` spaces.
pub(crate) fn paragraph_lines(
    out: &mut impl Write,
    first: &str,
    indent: usize,
    lines: &[String],
) -> io::Result<()> {
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            writeln!(out, "{first}{line}")?;
        } else {
            writeln!(out, "{}{line}", " ".repeat(indent))?;
        }
    }
    Ok(())
}

/// `parts` joined by two spaces on lines of [`WIDTH`] less `indent`, each part whole.
fn flow(parts: &[&str], indent: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        match out.last_mut() {
            Some(line) if indent + visible_width(line) + 2 + visible_width(part) <= WIDTH => {
                line.push_str("  ");
                line.push_str(part);
            }
            _ => out.push((*part).to_string()),
        }
    }
    out
}

/// Characters a terminal shows, ANSI colour sequences left out.
pub(super) fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut in_esc = false;
    for ch in s.chars() {
        match (in_esc, ch) {
            (false, '\x1b') => in_esc = true,
            (true, 'm') => in_esc = false,
            (true, _) => {}
            (false, _) => n += 1,
        }
    }
    n
}

fn tunables(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    let Some(first) = s.tunables_advice.first() else {
        return Ok(());
    };
    section(
        out,
        st,
        "TUNABLES",
        &format!("suggested for {}", first.setup),
    )?;
    writeln!(
        out,
        "  {}",
        st.dim(&format!(
            "{:<30} {:>9}  {:<9}",
            "setting", "now", "suggested"
        ))
    )?;
    for a in &s.tunables_advice {
        let now = a.current.as_deref().unwrap_or(f::MISSING);
        let mark = match &a.current {
            Some(c) if c.trim() == a.suggested => st.dim("ok"),
            Some(_) => st.warn("change"),
            None => String::new(),
        };
        let row = format!(
            "  {:<30} {:>9}  {:<9} {mark}",
            a.name,
            f::fit(now, 9, false),
            f::fit(&a.suggested, 9, false)
        );
        writeln!(out, "{}", row.trim_end())?;
        let why = if a.opinion {
            format!("{} (opinion)", a.why)
        } else {
            a.why.to_string()
        };
        paragraph(out, "      ", 6, &why)?;
    }
    Ok(())
}

fn unavailable(s: &Snapshot, out: &mut impl Write, st: Style) -> io::Result<()> {
    // zswap's own are said in its section, where its figures are.
    let items: Vec<_> = f::unavailable(s)
        .into_iter()
        .filter(|m| !s.zswap.unavailable.contains(m))
        .collect();
    if items.is_empty() {
        return Ok(());
    }
    section(out, st, "UNAVAILABLE", "")?;
    missing_lines(&items, out, st)
}

/// Each missing item with its reason and, where there is one, how to get it.
fn missing_lines(
    items: &[crate::model::Missing],
    out: &mut impl Write,
    st: Style,
) -> io::Result<()> {
    for m in items {
        let text = format!("{}: {}", m.label(), m.reason.text());
        for (i, line) in f::wrap(&text, WIDTH, 4, 6).iter().enumerate() {
            if i == 0 {
                writeln!(out, "  {} {line}", st.warn("!"))?;
            } else {
                writeln!(out, "      {line}")?;
            }
        }
        if let Some(fix) = m.reason.fix() {
            for line in f::wrap(&format!("to get it: {fix}"), WIDTH, 6, 8) {
                writeln!(out, "      {line}")?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn two_names_share_the_room() {
        let s = |a: &str, b: &str, room| share(a, b, room);
        assert_eq!(s("host", "6.18.0", 20), ("host".into(), "6.18.0".into()));
        // The shorter keeps its length when it takes at most half; the longer gets the rest.
        assert_eq!(
            s("h", "6.18.0-1-cloud-amd64", 10),
            ("h".into(), "6.18…md64".into())
        );
        assert_eq!(
            s("a-very-long-host-name", "6.1", 10),
            ("a-v…ame".into(), "6.1".into())
        );
        // Both long: half each.
        let (a, b) = s("aaaaaaaaaaaa", "bbbbbbbbbbbb", 10);
        assert_eq!((a.chars().count(), b.chars().count()), (5, 5));
    }
}
