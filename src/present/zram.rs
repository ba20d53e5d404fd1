//! zram's facts beyond its pool: where each device writes back (`backing_dev`, `bd_stat`: what
//! it keeps there, read back and wrote, in 4 KiB units whatever the page size), its writeback
//! limit, the idle pages writeback could move, and recompression (`recomp_algorithm`, the pages
//! it reached). A device without the kernel's writeback or recompression has none of those
//! facts; one never set up has none at all.

use super::{Depth, Fact, Tone};
use crate::display as f;
use crate::model::{Snapshot, Zram};

/// The rest of the outputs: `--full` and the dashboard (the one screen has a line per device,
/// and says only where it writes back).
const DETAIL: &[Depth] = &[Depth::Full, Depth::Dashboard];

/// Every device's facts, in device order (what [`super::sections`] lists).
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    s.zram.iter().flat_map(device_facts).collect()
}

/// The selected secondary algorithms of a `recomp_algorithm` (`#1: lzo [zstd] #2: [lz4hc]` →
/// `zstd, lz4hc`), or the text as it is where none is bracketed.
fn recomp_selected(raw: &str) -> String {
    let chosen: Vec<&str> = raw
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('[')?.strip_suffix(']'))
        .collect();
    if chosen.is_empty() {
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        chosen.join(", ")
    }
}

/// A fact of device `z`: its phrases start with the device's name, so two devices' facts read
/// apart.
fn fact(z: &Zram, key: &'static str, label: &'static str, value: String, short: String) -> Fact {
    let mut fact = Fact::labelled(key, label, value, short);
    fact.long = format!("{} {}", z.device, fact.long);
    fact.short = format!("{} {}", z.device, fact.short);
    fact.depths = DETAIL;
    fact
}

/// The facts of device `z`.
pub fn device_facts(z: &Zram) -> Vec<Fact> {
    if z.initialized == Some(false) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(bd) = &z.backing_dev {
        let set = z.has_backing_dev();
        let holds = f::bytes_short_opt(z.bd_count_bytes);
        let mut b = fact(z, "zram.backing_dev", "backing", bd.clone(), bd.clone());
        if set {
            b.long = format!(
                "{} writes back to {bd}, which holds {}",
                z.device,
                f::bytes(z.bd_count_bytes)
            );
            b.short = format!("{} backing {bd} holds {holds}", z.device);
            b.tight = format!("wb {} {holds}", f::fit(bd, 16, false));
            b.depths = super::EVERYWHERE;
        } else {
            b = b.tone(Tone::Dim);
        }
        out.push(b);
    }
    if z.bd_count_bytes.is_some() {
        for (key, label, v) in [
            ("zram.bd_reads", "read back", z.bd_reads_bytes),
            ("zram.bd_writes", "written back", z.bd_writes_bytes),
        ] {
            out.push(fact(z, key, label, f::bytes(v), f::bytes_short_opt(v)));
        }
    }
    if let Some(on) = z.writeback_limit_enabled {
        let (value, short) = if on {
            (
                format!("{} left", f::bytes(z.writeback_limit_bytes)),
                format!("{} left", f::bytes_short_opt(z.writeback_limit_bytes)),
            )
        } else {
            ("off".to_string(), "off".to_string())
        };
        let mut l = fact(z, "zram.writeback_limit", "writeback limit", value, short);
        if on && z.writeback_limit_bytes == Some(0) {
            l = l.tone(Tone::Warn);
        }
        out.push(l);
    }
    let tracked = z.has_backing_dev() || z.recomp_algorithm.is_some();
    if tracked {
        let why = z
            .unavailable
            .iter()
            .find(|m| m.item == "block_state")
            .map(|m| m.reason.text());
        let mut idle = fact(
            z,
            "zram.idle",
            "idle in RAM",
            f::bytes(z.idle_bytes),
            f::bytes_short_opt(z.idle_bytes),
        );
        if let Some(why) = &why {
            idle.long = format!("{} ({why})", idle.long);
            idle = idle.tone(Tone::Dim);
        }
        out.push(idle);
    }
    if let Some(raw) = &z.recomp_algorithm {
        let algs = recomp_selected(raw);
        out.push(fact(
            z,
            "zram.recomp_algorithm",
            "recompress with",
            algs.clone(),
            algs,
        ));
        out.push(fact(
            z,
            "zram.recompressed",
            "recompressed",
            f::bytes(z.recompressed_bytes),
            f::bytes_short_opt(z.recompressed_bytes),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recomp_names_the_chosen() {
        assert_eq!(
            recomp_selected("#1: lzo-rle lzo lz4 lz4hc [zstd] deflate 842"),
            "zstd"
        );
        assert_eq!(recomp_selected("#1: lzo [zstd] #2: [lz4hc]"), "zstd, lz4hc");
        assert_eq!(recomp_selected("zstd"), "zstd");
    }
}
