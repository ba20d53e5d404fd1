//! Terminal safety: every string that comes from the kernel or a captured tree is made safe here,
//! once, on its way into the [`Snapshot`].
//!
//! Unprivileged users choose some of those strings (a process name set with `prctl(PR_SET_NAME)`,
//! a cgroup in a delegated subtree, a swap file's path) and zswaptop is often run as root: a raw
//! ESC, BEL or C1 byte printed to root's terminal could retitle it, clear it or write the
//! clipboard (OSC 52), and an invisible or bidirectional format character makes a name read as
//! another (`<U+202E>gnp.exe` shows as `exe.png`). The last step of [`crate::pipeline`], after
//! the rules (so their text is covered too), is [`Sanitize::sanitize`], which replaces every such
//! character in every string of the snapshot with a visible escape: a control character (C0,
//! DEL, C1 = U+0080–U+009F) as `\x1b`, a format character
//! (Unicode category Cf: the bidi embeddings, overrides and isolates, zero-width spaces and
//! joiners, the BOM, soft hyphen, tag characters …) or a line or paragraph separator (Zl, Zp) as
//! `\u{202e}`. The snapshot is the one road from the sources to every output — the text report,
//! the dashboard, JSON, the metrics and any format added later — so each gets it for free.
//!
//! The impls below destructure each model struct without `..`: a field added to the model that is
//! not visited here is a compile error, so no future string can slip past.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::error::{Fs, Reason, Unavailable};
use crate::model::owners::{CgroupRow, Cgroups, ProcessRow, Processes};
use crate::model::{
    AreaSplit, Breakdown, Capacity, DeviceIo, Finding, Host, Memory, Missing, PriorityGroup, Psi,
    Rates, Severity, Snapshot, SourceStatus, Swap, SwapDevice, Tool, TunableAdvice, Zram, Zswap,
};
use crate::sources::crypto::Compressor;
use crate::sources::host::PageSize;
use crate::sources::swapdev::ZramBacking;
use crate::sources::vmstat::VmstatSample;
use crate::sources::zswap::DebugfsMap;

/// A character that must not reach a terminal raw: a control character (C0 U+0000–U+001F, DEL
/// U+007F, C1 U+0080–U+009F), a format character (category Cf) or a line or paragraph separator
/// (U+2028, U+2029: categories Zl, Zp).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || (!c.is_ascii()
            && matches!(
                get_general_category(c),
                GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
            ))
}

/// `s` with each unsafe character shown as its escape: a control character as `\xNN` (`ESC` →
/// `\x1b`, U+009B → `\x9b`), any other as `\u{NNNN}` (U+202E → `\u{202e}`).
///
/// Every string of every snapshot passes here on every tick, nearly all of them plain ASCII: a
/// string none of whose bytes is an ASCII control or beyond ASCII is borrowed after one pass over
/// its bytes, with no character decoded and nothing allocated.
pub fn visible(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) || !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else if is_unsafe(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Replace every unsafe character ([`is_unsafe`]) in every string with its visible escape.
pub trait Sanitize {
    fn sanitize(&mut self);
}

impl Sanitize for Cow<'static, str> {
    fn sanitize(&mut self) {
        if let Cow::Owned(s) = visible(self) {
            *self = Cow::Owned(s);
        }
    }
}

impl Sanitize for String {
    fn sanitize(&mut self) {
        if let Cow::Owned(s) = visible(self) {
            *self = s;
        }
    }
}

impl<T: Sanitize> Sanitize for Option<T> {
    fn sanitize(&mut self) {
        if let Some(v) = self {
            v.sanitize();
        }
    }
}

impl<T: Sanitize> Sanitize for Vec<T> {
    fn sanitize(&mut self) {
        self.iter_mut().for_each(Sanitize::sanitize);
    }
}

impl<T: Sanitize, E: Sanitize> Sanitize for Result<T, E> {
    fn sanitize(&mut self) {
        match self {
            Ok(v) => v.sanitize(),
            Err(e) => e.sanitize(),
        }
    }
}

impl Sanitize for Reason {
    fn sanitize(&mut self) {
        match self {
            Reason::Absent { note } => note.sanitize(),
            Reason::Malformed { line: _, detail } => detail.sanitize(),
            Reason::Unreadable { error } => error.sanitize(),
            Reason::NotRegular { what } => what.sanitize(),
            Reason::NeedsRoot { .. }
            | Reason::NoZswap
            | Reason::PsiDisabled
            | Reason::DebugfsNotMounted
            | Reason::ZswapNeverEnabled
            | Reason::DebugfsHidden
            | Reason::TooLarge { .. }
            | Reason::OutOfTree
            | Reason::NotRecorded => {}
        }
    }
}

impl<V: Sanitize> Sanitize for BTreeMap<String, V> {
    fn sanitize(&mut self) {
        // Keys are strings from the tree too (parameter and tunable names).
        if self.keys().any(|k| k.chars().any(is_unsafe)) {
            *self = std::mem::take(self)
                .into_iter()
                .map(|(mut k, v)| {
                    k.sanitize();
                    (k, v)
                })
                .collect();
        }
        self.values_mut().for_each(Sanitize::sanitize);
    }
}

impl<V: Sanitize> Sanitize for DebugfsMap<V> {
    fn sanitize(&mut self) {
        // The catalogue's names are safe; another file's name is a string from the tree.
        self.other.sanitize();
        self.slots.iter_mut().flatten().for_each(Sanitize::sanitize);
    }
}

/// Numbers, flags and enums hold no text.
macro_rules! no_text {
    ($($t:ty),*) => {$(
        impl Sanitize for $t {
            fn sanitize(&mut self) {}
        }
    )*};
}
no_text!(
    bool,
    u8,
    u32,
    u64,
    i64,
    usize,
    f64,
    Severity,
    Breakdown,
    AreaSplit,
    Capacity,
    Psi,
    VmstatSample,
    Fs
);

/// Visit every field of a struct, by name, with no `..`: a new field must be listed here.
macro_rules! fields {
    ($($t:ident { $($f:ident),* $(,)? })*) => {$(
        impl Sanitize for $t {
            fn sanitize(&mut self) {
                let $t { $($f),* } = self;
                $($f.sanitize();)*
            }
        }
    )*};
}

fields! {
    Snapshot {
        schema_version, timestamp, interval_seconds, tool, host, page_size, memory, zswap, swap, zram, capacity, psi, vmstat,
        rates, tunables, diagnostics, tunables_advice, sources, processes, cgroups,
    }
    Tool { name, version }
    Host { hostname, kernel, uptime_seconds, privileged, root }
    PageSize { bytes, source }
    Memory {
        total_bytes, free_bytes, available_bytes, free_cmd_used_bytes, hidden_in_used_bytes,
        breakdown, swap_cache_mapped_bytes, pcp_free_age_ms, unavailable, anon_huge_pages_bytes,
    }
    Zswap {
        available, enabled, compressor, boot_compressor, max_pool_percent,
        accept_threshold_percent, shrinker_enabled, pool_bytes, pool_source, stored_bytes,
        stored_pages, saved_bytes, compression_ratio, compressor_ratio, incompressible_bytes,
        same_filled_bytes, pool_limit_bytes, accept_threshold_bytes, pool_headroom_bytes,
        pool_limit_used_percent, parameters, boot_parameters, debugfs, unavailable,
        registered_compressors,
    }
    Missing { item, path, holds, reason }
    Unavailable { path, reason }
    Compressor { name, driver, module, kind, priority }
    ZramBacking { name, backing_dev }
    Swap {
        total_bytes, free_bytes, used_bytes, in_zswap_bytes, in_swap_cache_bytes, in_zram_bytes,
        not_in_ram_bytes, devices, priority_groups, areas_known,
    }
    SwapDevice {
        path, kind, size_bytes, used_bytes, priority, is_zram, block_device, disks, rotational,
        priority_group, io, unmapped, zram_backing, split,
    }
    DeviceIo {
        device, read_bytes_total, write_bytes_total, read_iops, write_iops, read_bytes_per_sec,
        write_bytes_per_sec, busy_percent,
    }
    PriorityGroup { priority, devices }
    Zram {
        device, initialized, is_swap, algorithm, algorithms, disksize_bytes, orig_data_bytes,
        compr_data_bytes, mem_used_bytes, mem_limit_bytes, mem_used_max_bytes, same_pages,
        huge_pages, compression_ratio, effective_ratio, allocator_overhead_bytes, saved_bytes,
        huge_pages_since, pages_compacted, failed_reads, failed_writes, backing_dev,
        bd_count_bytes, bd_reads_bytes, bd_writes_bytes, recomp_algorithm, unavailable,
    }
    Rates {
        interval_seconds, zswpout_bytes_per_sec, zswpin_bytes_per_sec, zswpwb_bytes_per_sec,
        pswpout_bytes_per_sec, pswpin_bytes_per_sec, swpout_zero_bytes_per_sec,
        swpin_zero_bytes_per_sec, bypassed_zswap_bytes_per_sec, debugfs_per_sec, per_sec,
        psi_some_percent, psi_full_percent,
    }
    Finding { id, severity, summary, evidence, fix, why }
    TunableAdvice { name, current, suggested, why, opinion, setup }
    SourceStatus { source, reason }
    Processes { scanned, with_swap, total_swap_bytes, top, unreadable }
    ProcessRow {
        pid, name, user, rss_bytes, swap_bytes, zswap_estimate_bytes, estimate_from, command,
        cgroup,
    }
    Cgroups { available, reason, version, zswap_missing, swap_missing, list }
    CgroupRow {
        path, unit, depth, memory_current_bytes, swap_current_bytes, zswap_bytes, zswapped_bytes,
        compression_ratio, zswpin_bytes_per_sec, zswpout_bytes_per_sec, zswpwb_bytes_per_sec,
        zswap_max_bytes, zswap_max_is_max, zswap_writeback,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(visible("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
        assert_eq!(visible("a\u{9b}2J\u{7f}\n\tb"), "a\\x9b2J\\x7f\\x0a\\x09b");
        assert_eq!(visible("zstd ä ✓"), "zstd ä ✓");
        assert!(matches!(visible("plain"), Cow::Borrowed(_)));
    }

    /// The characters the audit named, listed by hand from the Unicode tables (not asked of the
    /// category lookup under test), each shown as `\u{…}`; letters, marks, spaces and symbols
    /// beyond ASCII stay as they are, borrowed.
    #[test]
    fn format_characters_and_separators_become_visible() {
        let named = [
            (0x202a..=0x202e, "bidi embeddings and overrides"),
            (0x2066..=0x2069, "bidi isolates"),
            (
                0x200b..=0x200f,
                "zero-width space, non-joiner, joiner, LRM, RLM",
            ),
            (0x2028..=0x2029, "line and paragraph separators"),
            (0x2060..=0x2064, "word joiner and invisible operators"),
            (0xfeff..=0xfeff, "byte order mark"),
            (0x00ad..=0x00ad, "soft hyphen"),
            (0x061c..=0x061c, "Arabic letter mark"),
            (0xfff9..=0xfffb, "interlinear annotation"),
            (0xe0001..=0xe0001, "language tag"),
            (0xe0020..=0xe007f, "tag characters"),
        ];
        for (range, what) in named {
            for u in range {
                let c = char::from_u32(u).unwrap();
                assert!(is_unsafe(c), "U+{u:04X} ({what})");
                assert_eq!(
                    visible(&format!("a{c}b")),
                    format!("a\\u{{{u:x}}}b"),
                    "{what}"
                );
            }
        }
        assert_eq!(visible("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(visible("x\u{2028}\x1b\u{85}"), "x\\u{2028}\\x1b\\x85");
        for safe in [
            "zstd ä ✓",
            "中文 名前",
            "e\u{301}",               // a combining mark (Mn)
            "a\u{a0}b\u{3000}c",      // no-break and ideographic spaces (Zs)
            "👩🔬 \u{fe0f}",          // emoji and a variation selector (Mn)
            "ελληνικά עברית العربية", // right-to-left letters themselves are not format characters
        ] {
            assert!(matches!(visible(safe), Cow::Borrowed(_)), "{safe:?}");
        }
    }

    #[test]
    fn map_keys_and_values() {
        let mut m = BTreeMap::from([("k\x1b".to_string(), "v\u{85}".to_string())]);
        m.sanitize();
        assert_eq!(
            m,
            BTreeMap::from([("k\\x1b".to_string(), "v\\x85".to_string())])
        );
    }
}
