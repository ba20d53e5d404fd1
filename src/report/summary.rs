//! `--once` as text: the answer on one 80×24 screen (at most [`MAX_LINES`] lines of at most
//! [`WIDTH`] columns). The headline, the real-memory bar and its non-zero buckets, zswap's
//! settings and its pool, the swap split and a line per swap area, the zram devices that are not
//! swap, the rates (with `-i`), the processes' and cgroups' facts (with `--top`, `--cgroups`), a line per finding, and what could not be read with the command
//! that gets it. `--once --full` is the complete report ([`super::text`]); `--top N` and
//! `--cgroups` add their tables below, as in the full report.
//!
//! Lines are planned, never cut: each is made of parts that carry a figure, each part in forms
//! from the longest to the shortest (the same figure, fewer words). A line takes the longest
//! forms that fit; when even the shortest do not, it becomes two (or more), each part whole.
//! What does not fit the screen gives way in a fixed order, counted on a line of its own
//! ([`Block`]).

use std::io::{self, Write};

use super::text::{self, Style, WIDTH};
use crate::display as f;
use crate::model::memory::BUCKETS;
use crate::model::metrics::{self, Metric};
use crate::model::{Snapshot, SwapDevice, Zram};
use crate::present::{self, Depth, Tone};

/// At most this many lines (a 24-line terminal, less the prompt and the command line).
pub const MAX_LINES: usize = 22;

/// Lines of [`MAX_LINES`] kept free, so one more line of figures can join the summary without
/// anything else folding (the OUTLOOK line took the one that was kept).
pub const SPARE_LINES: usize = 0;

/// Buckets a line holds in the bucket list, and the width of their labels.
const BUCKETS_PER_LINE: usize = 2;
const LABEL: usize = 18;

/// Swap areas shown one a line before the rest are counted.
const AREAS: usize = 3;

/// The indent of a line that continues the one above.
const CONTINUED: &str = "  ";

pub fn write(snap: &Snapshot, out: &mut impl Write, style: Style) -> io::Result<()> {
    for line in lines(snap, style) {
        writeln!(out, "{line}")?;
    }
    text::processes(snap, out, style)?;
    text::cgroups(snap, out, style)
}

/// A part of a line: the same figure in shorter and shorter words.
struct Part(Vec<String>);

impl Part {
    fn one(s: impl Into<String>) -> Part {
        Part(vec![s.into()])
    }
    fn forms<const N: usize>(forms: [String; N]) -> Part {
        Part(forms.into())
    }
    fn form(&self, level: usize) -> &str {
        let last = self.0.len().saturating_sub(1);
        self.0.get(level.min(last)).map_or("", String::as_str)
    }
}

/// `parts` on one line in the longest forms that fit (joined by two spaces, else one); when
/// none do, in their shortest forms on as many lines as it takes, each part whole, the later
/// lines indented. Only a part wider than a line by itself (a name from outside, never a
/// figure) is shortened, in the middle.
fn plan(parts: &[Part]) -> Vec<String> {
    // Each part's form; a step shortens the part whose next form saves the least, so a line
    // loses as few words as it must.
    let mut level = vec![0; parts.len()];
    loop {
        for sep in ["  ", " "] {
            let line = parts
                .iter()
                .zip(&level)
                .map(|(p, &l)| p.form(l))
                .collect::<Vec<_>>()
                .join(sep);
            if text::visible_width(&line) <= WIDTH {
                return vec![line];
            }
        }
        let next = parts
            .iter()
            .zip(&level)
            .enumerate()
            .filter(|(_, (p, l))| **l + 1 < p.0.len())
            .min_by_key(|(_, (p, l))| {
                let now = text::visible_width(p.form(**l));
                now.saturating_sub(text::visible_width(p.form(**l + 1)))
            })
            .map(|(i, _)| i);
        match next {
            Some(i) => level[i] += 1,
            None => break,
        }
    }
    // Two lines or more: in the longest forms, unless the shortest take fewer lines.
    let long = wrapped(parts, 0);
    let short = wrapped(parts, usize::MAX);
    if long.len() <= short.len() {
        long
    } else {
        short
    }
}

/// `parts` in their forms of `level`, each whole, on as many lines as they take.
fn wrapped(parts: &[Part], level: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let room = WIDTH - CONTINUED.len();
    for p in parts {
        let word = p.form(level);
        let word = if text::visible_width(word) > room {
            f::fit(word, room, false)
        } else {
            word.to_string()
        };
        if cur.is_empty() {
            cur = word;
        } else if text::visible_width(&cur) + 2 + text::visible_width(&word) <= WIDTH {
            cur = format!("{cur}  {word}");
        } else {
            out.push(std::mem::take(&mut cur));
            cur = format!("{CONTINUED}{word}");
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `head` then `items` joined by commas: in their long forms when that fits the width, else in
/// their short forms, on as many lines as it takes (each item whole), the later lines indented
/// by `indent`.
fn list(head: &str, items: &[Part], indent: usize) -> Vec<String> {
    let joined = |level: usize| {
        let words: Vec<&str> = items.iter().map(|p| p.form(level)).collect();
        format!("{head} {}", words.join(", "))
    };
    for level in [0, usize::MAX] {
        let line = joined(level);
        if text::visible_width(&line) <= WIDTH {
            return vec![line];
        }
    }
    let mut out = Vec::new();
    let mut cur = head.to_string();
    let room = WIDTH - indent;
    for (i, p) in items.iter().enumerate() {
        let comma = if i + 1 < items.len() { "," } else { "" };
        let word = format!("{}{comma}", f::fit(p.form(usize::MAX), room - 1, false));
        if text::visible_width(&cur) + 1 + text::visible_width(&word) <= WIDTH {
            cur = format!("{cur} {word}");
        } else {
            out.push(std::mem::take(&mut cur));
            cur = format!("{}{word}", " ".repeat(indent));
        }
    }
    out.push(cur);
    out
}

/// A run of lines of the summary, and how it gives way when the screen is full.
struct Block {
    /// Its items, each one line or more, with how many things each stands for (for the count
    /// of what was left out).
    items: Vec<(Vec<String>, usize)>,
    /// Blocks give way lowest first; `None` never does.
    gives_way: Option<u8>,
    /// The line that counts what was left out (`None`: it goes without a word, as a line that
    /// only repeats what the full report says).
    more: Option<fn(usize) -> String>,
    /// Things left out so far.
    left: usize,
}

impl Block {
    fn fixed(lines: Vec<String>) -> Block {
        Block {
            items: lines.into_iter().map(|l| (vec![l], 0)).collect(),
            gives_way: None,
            more: None,
            left: 0,
        }
    }
    fn giving(
        items: Vec<(Vec<String>, usize)>,
        order: u8,
        more: Option<fn(usize) -> String>,
    ) -> Block {
        Block {
            items,
            gives_way: Some(order),
            more,
            left: 0,
        }
    }
    fn len(&self) -> usize {
        let more = usize::from(self.left > 0 && self.more.is_some());
        self.items.iter().map(|(l, _)| l.len()).sum::<usize>() + more
    }
    fn lines(self) -> Vec<String> {
        let mut out: Vec<String> = self.items.into_iter().flat_map(|(l, _)| l).collect();
        if let Some(more) = self.more.filter(|_| self.left > 0) {
            out.push(more(self.left));
        }
        out
    }
}

/// The summary's lines, colour codes included when `style` asks for them.
pub fn lines(s: &Snapshot, st: Style) -> Vec<String> {
    let mut blocks = vec![
        Block::fixed(header(s, st)),
        Block::fixed(memory(s, st)),
        Block::giving(zero(s, st), 0, None),
        Block::fixed(zswap(s, st)),
        Block::fixed(swap(s, st)),
        Block::giving(
            areas(s, st),
            3,
            Some(|n| format!("{CONTINUED}+{n} more swap areas (--full)")),
        ),
        Block::giving(
            zram(s, st),
            2,
            Some(|n| format!("+{n} more zram devices (--full)")),
        ),
        Block::fixed(rates(s, st)),
        Block::fixed(latency(s, st)),
        Block::fixed(outlook(s, st)),
        // The processes' facts give way before the cgroups' (an OOM kill is there): with
        // `--top` their table follows the summary anyway.
        Block::giving(
            owners("PROCESSES", present::processes::facts(s), st),
            2,
            Some(|n| format!("+{n} more on processes (--full)")),
        ),
        Block::giving(
            owners("CGROUPS", present::cgroups::facts(s), st),
            3,
            Some(|n| format!("+{n} more on cgroups (--full)")),
        ),
        Block::giving(
            findings(s, st),
            4,
            Some(|n| format!("+{n} more findings (--full)")),
        ),
        Block::fixed(unavailable(s, st)),
        Block::giving(fixes(s), 1, None),
    ];
    let budget = MAX_LINES - SPARE_LINES;
    loop {
        let total: usize = blocks.iter().map(Block::len).sum();
        if total <= budget {
            break;
        }
        // The block that gives way first, of those with an item left.
        let Some(b) = blocks
            .iter_mut()
            .filter(|b| b.gives_way.is_some() && !b.items.is_empty())
            .min_by_key(|b| b.gives_way)
        else {
            break;
        };
        if let Some((_, n)) = b.items.pop() {
            b.left += n.max(1);
        }
    }
    blocks.into_iter().flat_map(Block::lines).collect()
}

fn header(s: &Snapshot, st: Style) -> Vec<String> {
    let facts = present::header::facts(s);
    let said = |key| present::find(&facts, key).map(|f| f.short.clone());
    let mut parts = Vec::new();
    if let Some(tool) = present::find(&facts, "header.tool") {
        parts.push(Part::one(format!("{} {}", st.head(tool.label), tool.value)));
    }
    for key in [
        "header.host",
        "header.kernel",
        "header.uptime",
        "header.who",
    ] {
        parts.extend(said(key).map(Part::one));
    }
    let mut out = plan(&parts);
    if let Some(tree) = present::find(&facts, "header.tree") {
        out.push(st.dim(&f::fit(&tree.long, WIDTH, false)));
    }
    out
}

/// A counter's total since boot as the kernel counts it, from the registry.
fn total(m: &Metric, s: &Snapshot) -> Option<u64> {
    m.raw(s).map(|v| v as u64)
}

/// The headline figures, what "used" holds that no program uses, the bar and the buckets.
/// Sizes in the short form, as everywhere on the one screen ([`present::memory`]).
fn memory(s: &Snapshot, st: Style) -> Vec<String> {
    let facts = present::memory::facts(s);
    let mut line = vec![Part::one(st.head("MEMORY"))];
    line.extend(
        ["memory.total", "memory.used", "memory.available"]
            .iter()
            .filter_map(|k| present::find(&facts, k))
            .map(|f| Part::forms([f.short.clone(), f.tight.clone()])),
    );
    let mut out = plan(&line);
    let Some(b) = &s.memory.breakdown else {
        out.push(format!(
            "  {}",
            st.warn("/proc/meminfo could not be read (see below)")
        ));
        return out;
    };
    let buckets = present::memory::buckets(&facts);
    // What "used" holds that is not in use by programs: the compressed pools (and the free
    // pages on the per-CPU lists, where the breakdown has them).
    let hidden: Vec<Part> = b
        .buckets()
        .iter()
        .zip(&buckets)
        .filter(|((_, v), (_, info))| info.hidden_in_used() && v.is_some_and(|v| v > 0))
        .map(|(_, (fact, _))| Part::one(fact.short.clone()))
        .collect();
    if !hidden.is_empty() {
        out.extend(list("  of that used:", &hidden, 4));
    }
    out.push(text::bar(&b.buckets(), st));
    let mut cells = Vec::new();
    for ((_, v), (fact, info)) in b.buckets().iter().zip(&buckets) {
        if *v == Some(0) {
            continue;
        }
        let pct = present::memory::share(s, *v);
        let glyph = st.paint(text::ansi(info.hue), &info.glyph.to_string());
        cells.push(format!(
            "{glyph} {:<LABEL$} {:>9} {pct:>6}",
            f::fit(fact.label, LABEL, false),
            fact.value_short,
        ));
    }
    for row in cells.chunks(BUCKETS_PER_LINE) {
        out.push(format!("  {}", row.join("   ")).trim_end().to_string());
    }
    out
}

/// The buckets that hold nothing, named on a line of their own (the first to give way).
fn zero(s: &Snapshot, st: Style) -> Vec<(Vec<String>, usize)> {
    let Some(b) = &s.memory.breakdown else {
        return Vec::new();
    };
    let zero: Vec<&str> = b
        .buckets()
        .iter()
        .zip(BUCKETS.iter())
        .filter(|((_, v), _)| *v == Some(0))
        .map(|(_, info)| info.label)
        .collect();
    if zero.is_empty() {
        return Vec::new();
    }
    let items: Vec<Part> = zero.into_iter().map(Part::one).collect();
    let lines = list("  zero:", &items, 4)
        .iter()
        .map(|l| st.dim(l))
        .collect();
    vec![(lines, 1)]
}

/// zswap's settings and rejections on one line, its pool and traffic since boot on the next.
fn zswap(s: &Snapshot, st: Style) -> Vec<String> {
    let z = &s.zswap;
    if !z.available {
        return plan(&[Part::one(st.head("ZSWAP")), Part::one(f::NOT_IN_KERNEL)]);
    }
    let mut facts = present::zswap::facts(s);
    facts.retain(|f| f.at(Depth::OneScreen));
    let mut settings = vec![Part::one(st.head("ZSWAP"))];
    settings.extend(present::find(&facts, "zswap.state").map(|f| Part::one(&f.value)));
    settings.extend(zswap_settings(s));
    settings.push(rejects(s));
    let mut out = plan(&settings);
    let Some(pool) = present::find(&facts, "zswap.pool") else {
        return out;
    };
    let pct = present::zswap::limit_used(s)
        .map(|p| format!(" {p}"))
        .unwrap_or_default();
    let [_, max] = present::zswap::pool_and_limit_short(s);
    let word = pool.label;
    let v = &pool.value_short;
    let mut line = vec![Part::forms([
        format!("  {word} {v} of {max}{pct}"),
        format!("  {word} {v}/{max}{pct}"),
    ])];
    line.extend(
        facts
            .iter()
            .filter(|f| !matches!(f.key, "zswap.state" | "zswap.pool"))
            .map(|f| Part::forms([f.short.clone(), f.tight.clone()])),
    );
    line.push(Part::one(format!(
        "limit hits {}",
        f::num(total(metrics::POOL_LIMIT_HIT, s))
    )));
    out.extend(plan(&line));
    out
}

/// zswap's settings: its compressor (and the allocator, where the kernel offers a choice:
/// zbud, z3fold or zsmalloc), the pool's limit, the accept threshold and the shrinker.
fn zswap_settings(s: &Snapshot) -> [Part; 4] {
    let z = &s.zswap;
    let compressor = z.compressor.as_deref().unwrap_or(f::MISSING);
    let limit = f::num(z.max_pool_percent);
    let accept = f::num(z.accept_threshold_percent);
    let shrinker = f::setting(z.shrinker_enabled, z.lacks("shrinker_enabled"));
    let on = z
        .allocator()
        .map(|a| format!(" on {a}"))
        .unwrap_or_default();
    [
        Part::forms([
            format!("compressor {compressor}{on}"),
            format!("{}{on}", f::fit(compressor, 24, false)),
        ]),
        Part::forms([format!("pool limit {limit}%"), format!("limit {limit}%")]),
        Part::forms([format!("accept at {accept}%"), format!("accept {accept}%")]),
        Part::one(format!("shrinker {shrinker}")),
    ]
}

/// The stores zswap rejected since boot, summed over the debugfs reasons, the largest named.
fn rejects(s: &Snapshot) -> Part {
    let counts: Vec<(&str, u64)> = metrics::REGISTRY
        .iter()
        .filter(|m| m.id.starts_with("reject_"))
        .filter_map(|m| Some((m.id, m.raw(s)? as u64)))
        .collect();
    if counts.is_empty() {
        return Part::one(format!("rejects {}", f::MISSING));
    }
    let sum: u64 = counts.iter().map(|(_, n)| n).sum();
    let largest = counts
        .iter()
        .max_by_key(|(_, n)| *n)
        .filter(|(_, n)| *n > 0 && *n < sum);
    match largest {
        Some((id, n)) => {
            let why = id.trim_start_matches("reject_");
            Part::forms([
                format!("rejects {sum} (most {why} {n})"),
                format!("rejects {sum} ({why} {n})"),
            ])
        }
        None => {
            // All of one reason, or none at all.
            let only = counts.iter().find(|(_, n)| *n > 0);
            match only {
                Some((id, _)) => Part::one(format!(
                    "rejects {sum} ({})",
                    id.trim_start_matches("reject_")
                )),
                None => Part::one(format!("rejects {sum}")),
            }
        }
    }
}

/// The swap split: where the used swap is. "SwapCached" is the kernel's name for the swap
/// pages also in RAM, all of them (the breakdown's "swap cache (est.)" is the part not mapped).
fn swap(s: &Snapshot, st: Style) -> Vec<String> {
    let mut facts = present::swap::facts(s);
    if facts.is_empty() {
        return plan(&[Part::one(st.head("SWAP")), Part::one("none")]);
    }
    facts.retain(|f| f.at(Depth::OneScreen));
    let split: Vec<Part> = present::swap::split(&facts)
        .map(|f| Part::forms([f.short.clone(), f.tight.clone()]))
        .collect();
    let colon = if split.is_empty() { "" } else { ":" };
    let mut parts = vec![Part::one(st.head("SWAP"))];
    parts.extend(
        present::find(&facts, "swap.used")
            .map(|f| Part::forms([format!("{}{colon}", f.short), format!("{}{colon}", f.tight)])),
    );
    parts.extend(split);
    plan(&parts)
}

/// A line per swap area: its name, kind, use and priority; a zram area says its device's
/// compression too.
fn areas(s: &Snapshot, st: Style) -> Vec<(Vec<String>, usize)> {
    let devices = &s.swap.devices;
    let mut items: Vec<(Vec<String>, usize)> = devices
        .iter()
        .take(AREAS)
        .map(|d| (plan(&area(d, zram_of(s, d), st)), 1))
        .collect();
    let rest = devices.len().saturating_sub(AREAS);
    if rest > 0 {
        items.push((
            vec![format!("{CONTINUED}+{rest} more swap areas (--full)")],
            0,
        ));
    }
    items
}

/// The zram device behind a swap area.
fn zram_of<'a>(s: &'a Snapshot, d: &SwapDevice) -> Option<&'a Zram> {
    let name = d.path.rsplit('/').next()?;
    d.is_zram
        .then(|| s.zram.iter().find(|z| z.device == name))
        .flatten()
}

fn area(d: &SwapDevice, z: Option<&Zram>, st: Style) -> Vec<Part> {
    let [used, size] = f::bytes_short_alike([Some(d.used_bytes), Some(d.size_bytes)]);
    let kind = if d.is_zram { "zram" } else { d.kind.as_str() };
    let mut parts = vec![
        Part::one(format!(
            "{CONTINUED}{}",
            st.dim(&f::fit(&d.path, 32, false))
        )),
        Part::one(kind.to_string()),
        Part::forms([format!("{used} used of {size}"), format!("{used}/{size}")]),
        Part::forms([
            format!("priority {}", d.priority),
            format!("prio {}", d.priority),
        ]),
    ];
    if let Some(z) = z {
        let [orig, ram] = f::bytes_short_alike([z.orig_data_bytes, z.mem_used_bytes]);
        let alg = f::fit(z.algorithm.as_deref().unwrap_or(f::MISSING), 12, false);
        parts.push(Part::forms([
            format!("{alg} {orig} in {ram} RAM"),
            format!("{alg} {orig} in {ram}"),
        ]));
        parts.push(Part::one(f::ratio(z.effective_ratio)));
        parts.extend(one_screen_zram(z));
    }
    parts
}

/// What the one screen says of a zram device's writeback (present::zram).
fn one_screen_zram(z: &Zram) -> Vec<Part> {
    present::zram::device_facts(z)
        .into_iter()
        .filter(|f| f.at(Depth::OneScreen))
        .map(|f| Part::forms([f.short, f.tight]))
        .collect()
}

/// A line per zram device set up but not used as swap (those that are are swap areas).
fn zram(s: &Snapshot, st: Style) -> Vec<(Vec<String>, usize)> {
    // A device never set up holds nothing (the full report lists it).
    s.zram
        .iter()
        .filter(|z| z.initialized != Some(false))
        .filter(|z| {
            !z.is_swap
                || !s
                    .swap
                    .devices
                    .iter()
                    .any(|d| zram_of(s, d).is_some_and(|x| x.device == z.device))
        })
        .map(|z| {
            let [orig, used, disk] =
                f::bytes_short_alike([z.orig_data_bytes, z.mem_used_bytes, z.disksize_bytes]);
            let line = plan(
                &[
                    Part::one(st.head(&z.device)),
                    Part::one(f::fit(
                        z.algorithm.as_deref().unwrap_or(f::MISSING),
                        12,
                        false,
                    )),
                    Part::one(format!("{orig} in {used} RAM")),
                    Part::forms([
                        format!("ratio {}", f::ratio(z.effective_ratio)),
                        f::ratio(z.effective_ratio),
                    ]),
                    Part::one(format!("of {disk}")),
                    Part::one(if z.is_swap { "swap" } else { "not swap" }),
                ]
                .into_iter()
                .chain(one_screen_zram(z))
                .collect::<Vec<_>>(),
            );
            (line, 1)
        })
        .collect()
}

/// With an interval: what zswap and swap do per second, the one-screen answer to "is zswap
/// refusing, writing back or thrashing right now?".
fn rates(s: &Snapshot, st: Style) -> Vec<String> {
    let Some(r) = &s.rates else {
        return Vec::new();
    };
    let bytes = |v: Option<f64>| match v {
        Some(v) if v.is_finite() && v >= 0.0 => f::bytes_short(v.round() as u64),
        _ => f::MISSING.to_string(),
    };
    let events = |m: &Metric| match m.per_sec(s) {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
        None => f::MISSING.to_string(),
    };
    let dt = r.interval_seconds;
    plan(&[
        Part::one(st.head("RATES")),
        Part::forms([
            format!("per second over {dt:.1}s:"),
            format!("/s over {dt:.1}s:"),
        ]),
        Part::one(format!("store {}", bytes(r.zswpout_bytes_per_sec))),
        Part::one(format!("load {}", bytes(r.zswpin_bytes_per_sec))),
        Part::forms([
            format!("writeback {}", bytes(r.zswpwb_bytes_per_sec)),
            format!("wb {}", bytes(r.zswpwb_bytes_per_sec)),
        ]),
        Part::one(format!("limit hits {}", events(metrics::POOL_LIMIT_HIT))),
        Part::one(format!("bypass {}", bytes(r.bypassed_zswap_bytes_per_sec))),
        Part::one(format!(
            "disk in {} out {}",
            bytes(r.pswpin_bytes_per_sec),
            bytes(r.pswpout_bytes_per_sec)
        )),
    ])
}

/// With an interval: how long swap-ins waited, by tier (BPF), or why that is not measured.
fn latency(s: &Snapshot, st: Style) -> Vec<String> {
    if s.rates.is_none() {
        return Vec::new();
    }
    let l = &s.swapin_latency;
    let mut parts = vec![Part::one(st.head("LATENCY"))];
    if l.available {
        parts.extend(l.tiers.iter().map(|t| Part::one(present::swapin::tier(t))));
        parts.extend(present::swapin::store_parts(s).into_iter().map(Part::one));
    } else {
        // The reason's first clause here; --full has it whole, with what would allow it.
        let why = l.reason.as_deref().unwrap_or("no reason given");
        let short = why.split([';', '(', ':']).next().unwrap_or(why).trim_end();
        parts.push(Part::forms([
            format!("unavailable: {short} (--full says why)"),
            format!("unavailable: {short}"),
        ]));
    }
    plan(&parts)
}

/// With an interval: when the pool and all swap will be full at the interval's rate (the
/// forecast's basis said), and whether zswap serves the swap-ins and what a disk read costs.
fn outlook(s: &Snapshot, st: Style) -> Vec<String> {
    let mut facts = present::outlook::facts(s);
    facts.retain(|f| f.at(Depth::OneScreen));
    if facts.is_empty() {
        return Vec::new();
    }
    // A part ends in ';' unless it is the line's last.
    let end = |i: usize, t: &str| {
        if i + 1 < facts.len() {
            format!("{t};")
        } else {
            t.to_string()
        }
    };
    let mut parts = vec![Part::one(st.head("OUTLOOK"))];
    parts.extend(
        facts
            .iter()
            .enumerate()
            .map(|(i, f)| Part::forms([end(i, &f.long), end(i, &f.short), end(i, &f.tight)])),
    );
    plan(&parts)
}

/// Where the processes were scanned (`--top N`) or the cgroup tree read (`--cgroups`), their
/// facts ([`present::processes`], [`present::cgroups`]) a line each under `head`; they give way
/// from the last.
fn owners(head: &str, facts: Vec<present::Fact>, st: Style) -> Vec<(Vec<String>, usize)> {
    facts
        .into_iter()
        .filter(|f| f.at(Depth::OneScreen))
        .enumerate()
        .map(|(i, f)| {
            let head = if i == 0 {
                st.head(head)
            } else {
                " ".repeat(head.len())
            };
            let parts = [
                Part::one(head),
                Part::forms([f.long.clone(), f.short.clone(), f.tight.clone()]),
            ];
            (plan(&parts), 1)
        })
        .collect()
}

/// Warn and crit findings, each whole on as many lines as it takes (most severe first, as the
/// rules sort them), then the info ones named on a line.
fn findings(s: &Snapshot, st: Style) -> Vec<(Vec<String>, usize)> {
    let facts = present::findings::facts(s);
    let each = facts.iter().filter(|f| f.key == "findings.finding");
    let mut out: Vec<(Vec<String>, usize)> = each
        .clone()
        .filter(|f| f.tone != Tone::Dim)
        .map(|fact| {
            let tag = fact.label;
            let code = if fact.tone == Tone::Crit {
                "1;31"
            } else {
                "1;33"
            };
            let indent = tag.len() + 1;
            let lines = f::wrap(&fact.long, WIDTH, indent, indent)
                .into_iter()
                .enumerate()
                .map(|(i, l)| {
                    if i == 0 {
                        format!("{} {l}", st.paint(code, tag))
                    } else {
                        format!("{}{l}", " ".repeat(indent))
                    }
                })
                .collect();
            (lines, 1)
        })
        .collect();
    let info: Vec<Part> = each
        .filter(|f| f.tone == Tone::Dim)
        .map(|f| Part::one(f.tight.as_str()))
        .collect();
    if !info.is_empty() {
        let lines = list(&format!("{} info:", info.len()), &info, 2)
            .iter()
            .map(|l| st.dim(l))
            .collect();
        out.push((lines, info.len()));
    }
    out
}

/// What could not be read, named (on as many lines as the names take).
fn unavailable(s: &Snapshot, st: Style) -> Vec<String> {
    let items = f::unavailable(s);
    if items.is_empty() {
        return Vec::new();
    }
    let names: Vec<Part> = items.iter().map(|m| Part::one(m.item.as_str())).collect();
    list(&st.warn("unavailable:"), &names, 2)
}

/// The commands that get what could not be read, one each (at most two), whole.
fn fixes(s: &Snapshot) -> Vec<(Vec<String>, usize)> {
    let items = f::unavailable(s);
    let mut fixes: Vec<&str> = items.iter().filter_map(|m| m.reason.fix()).collect();
    fixes.sort_unstable();
    fixes.dedup();
    fixes
        .into_iter()
        .take(2)
        .map(|fix| {
            let lines = f::wrap_commands(&format!("to get it: {fix}"), WIDTH, 2, 4)
                .into_iter()
                .enumerate()
                .map(|(i, l)| format!("{}{l}", if i == 0 { "  " } else { "    " }))
                .collect();
            (lines, 1)
        })
        .collect()
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
        let all = lines(&two, st);
        assert!(all.len() <= MAX_LINES, "{all:#?}");
        let at: Vec<usize> = (0..all.len())
            .filter(|&i| all[i].starts_with("OUTLOOK"))
            .collect();
        assert_eq!(at.len(), 1, "{all:#?}");
        // The OUTLOOK line and the lines that continue it.
        let said: Vec<&String> = all[at[0]..]
            .iter()
            .enumerate()
            .take_while(|(i, l)| *i == 0 || l.starts_with(CONTINUED))
            .map(|(_, l)| l)
            .collect();
        assert!(
            said.iter().all(|l| text::visible_width(l) <= WIDTH),
            "{said:#?}"
        );
        let l = said.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        // (4.7 GiB limit − 508.7 MiB) at 1 MiB/s: ~72 min; 94 of 100 swap-ins from zswap.
        assert!(l.contains("pool full in ~72 min"), "{l}");
        assert!(l.contains("10s's rate"), "the basis is said: {l}");
        assert!(l.contains("swap not filling"), "{l}");
        assert!(l.contains("94% of swap-ins"), "{l}");
        assert!(!l.contains('…'), "{l}");
    }

    fn parts(words: &[&[&str]]) -> Vec<Part> {
        words
            .iter()
            .map(|f| Part(f.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn a_line_takes_the_longest_forms_that_fit() {
        let long = "x".repeat(40);
        let p = parts(&[&["HEAD"], &[&long, "short 1.0G"], &["tail 2.0M"]]);
        assert_eq!(plan(&p), vec![format!("HEAD  {long}  tail 2.0M")]);
        let longer = "y".repeat(75);
        let p = parts(&[&["HEAD"], &[&longer, "short 1.0G"], &["tail 2.0M"]]);
        assert_eq!(plan(&p), vec!["HEAD  short 1.0G  tail 2.0M".to_string()]);
    }

    #[test]
    fn a_line_that_cannot_fit_becomes_two_each_part_whole() {
        let words: Vec<String> = (0..8).map(|i| format!("figure{i} 123.4M")).collect();
        let p: Vec<Part> = words.iter().map(|w| Part::one(w.clone())).collect();
        let lines = plan(&p);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines.iter().all(|l| l.chars().count() <= WIDTH),
            "{lines:?}"
        );
        assert!(lines[1].starts_with(CONTINUED));
        let joined = lines.join(" ");
        for w in &words {
            assert!(joined.contains(w.as_str()), "{w} cut: {lines:?}");
        }
    }

    #[test]
    fn only_a_part_wider_than_the_line_is_shortened() {
        let name = "h".repeat(200);
        let lines = plan(&parts(&[&["host"], &[&name], &["up 3s"]]));
        assert!(
            lines.iter().all(|l| l.chars().count() <= WIDTH),
            "{lines:?}"
        );
        assert!(lines.iter().any(|l| l.contains('…')));
        assert!(lines.iter().any(|l| l.contains("up 3s")));
    }

    /// The RATES line holds each rate of the interval: 256 pages of 4 KiB stored in one second
    /// is 1 MiB/s, 64 written to disk of which 16 were written back leaves 48 that bypassed.
    #[test]
    fn the_rates_line_says_the_rates_of_the_interval() {
        let root = crate::root::Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-writeback"
        ));
        let a = crate::sources::collect(&root);
        let mut b = a.clone();
        b.monotonic_ns += 1_000_000_000;
        if let Ok(v) = b.vmstat.as_mut() {
            v.zswpout = v.zswpout.map(|n| n + 256);
            v.pswpout = v.pswpout.map(|n| n + 64);
            v.zswpwb = v.zswpwb.map(|n| n + 16);
        }
        let st = Style { color: false };
        let before = lines(&Snapshot::derive(&a, None), st);
        assert!(
            !before.iter().any(|l| l.starts_with("RATES")),
            "{before:#?}"
        );
        let after = lines(&Snapshot::derive(&b, Some(&a)), st);
        let at = after.iter().position(|l| l.starts_with("RATES")).unwrap();
        // The line and the one it continues on.
        let rates = after[at..=at + 1].join("\n");
        assert!(after[at + 1].starts_with(CONTINUED), "{rates}");
        for want in [
            "over 1.0s",
            "store 1M",
            "load 0",
            "64K",
            "bypass 192K",
            "out 256K",
        ] {
            assert!(rates.contains(want), "{want} not in {rates}");
        }
    }

    #[test]
    fn ascii_keeps_the_width() {
        let s = "a — b … c · 3 µs";
        assert_eq!(f::ascii(s), "a - b ~ c . 3 us");
        assert_eq!(f::ascii("host\u{2067}x"), "host?x");
    }
}
