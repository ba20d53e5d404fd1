//! `/proc/zoneinfo` (mm/vmstat.c `zoneinfo_show_print`): the free pages parked on the per-CPU
//! page lists. Those pages are not in `MemFree` (the counter drops when a batch moves from the
//! buddy allocator to a CPU's list), so every tool that reads only meminfo calls them used.
//!
//! Each zone has a `pagesets` block with one `cpu: N` entry per possible CPU, each with a
//! `count:` of pages on that CPU's list for that zone. The file is world-readable; it grows with
//! zones × CPUs, so the dashboard reads it at the rate its cost allows ([`due`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;
use crate::sys;

/// A full read waits at least this many times its own cost before the next, so that zoneinfo
/// never takes more than 0.1 % of a CPU. Measured (`cargo bench --bench zoneinfo`): 35 µs on a
/// live 2-CPU 6.18 machine (16 µs for the same file from a tree), 0.3 ms for a generated
/// 256-CPU file from a tree (the kernel's own printing roughly doubles a live read), so such a
/// machine reads it every 0.3–0.6 s: every tick at the default interval, every few ticks at the
/// shortest ones, and the view then says how old the figure is.
pub const COST_FACTOR: u64 = 1000;

/// What one read of `/proc/zoneinfo` gave.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneinfoSample {
    /// Σ `count` over every zone's `pagesets` and every CPU, in pages.
    pub pcp_free_pages: u64,
    /// `cpu:` entries summed (zones × CPUs).
    pub pagesets: u64,
    /// `count:` lines read (one per `cpu:` entry on every kernel that has them).
    pub counts: u64,
    /// Zones that have a `pagesets` block.
    pub zones: u64,
    /// CLOCK_MONOTONIC when the read started.
    pub read_ns: u64,
    /// How long the read and parse took.
    pub cost_ns: u64,
}

pub fn read(root: &Root) -> Reading<ZoneinfoSample> {
    let start = sys::monotonic_ns();
    let path = root.proc("zoneinfo");
    let text = root.read_text(
        &path,
        &Reason::absent("no /proc/zoneinfo (is /proc mounted?)"),
    )?;
    let mut z = parse(&path, &text)?;
    z.read_ns = start;
    z.cost_ns = sys::monotonic_ns().saturating_sub(start);
    Ok(z)
}

/// Whether a tick at `now_ns` should read zoneinfo again rather than keep `prev`: always when
/// `prev` is not a reading, else once [`COST_FACTOR`] times its cost has passed.
pub(crate) fn due(prev: &Reading<ZoneinfoSample>, now_ns: u64) -> bool {
    match prev {
        Ok(z) => now_ns.saturating_sub(z.read_ns) >= z.cost_ns.saturating_mul(COST_FACTOR),
        Err(_) => true,
    }
}

/// Parse the text of a zoneinfo file read from `path` (times left at 0).
pub fn parse(path: &Path, text: &str) -> Reading<ZoneinfoSample> {
    let mut z = ZoneinfoSample::default();
    let mut in_pagesets = false;
    let mut zone_seen = false;
    for (i, line) in text.lines().enumerate() {
        let lineno = Some(i + 1);
        let t = line.trim();
        if line.starts_with("Node ") {
            if !t.contains(", zone ") {
                return Err(Unavailable::malformed(
                    path,
                    lineno,
                    "a Node line without \", zone\"",
                ));
            }
            zone_seen = true;
            in_pagesets = false;
            continue;
        }
        if t == "pagesets" {
            if !zone_seen {
                return Err(Unavailable::malformed(
                    path,
                    lineno,
                    "pagesets before any Node line",
                ));
            }
            in_pagesets = true;
            z.zones += 1;
            continue;
        }
        if !in_pagesets {
            continue;
        }
        let Some((key, value)) = t.split_once(':') else {
            continue;
        };
        let number = |what: &str| {
            value.trim().parse::<u64>().map_err(|_| {
                Unavailable::malformed(
                    path,
                    lineno,
                    format!("{what}: expected a number, got {:?}", value.trim()),
                )
            })
        };
        match key.trim() {
            "cpu" => {
                number("cpu")?;
                z.pagesets += 1;
            }
            "count" => {
                z.counts += 1;
                z.pcp_free_pages =
                    z.pcp_free_pages
                        .checked_add(number("count")?)
                        .ok_or_else(|| {
                            Unavailable::malformed(path, lineno, "count: the sum overflows")
                        })?;
            }
            _ => {}
        }
    }
    if z.counts == 0 {
        return Err(Unavailable::new(
            path,
            Reason::absent("no per-CPU page lists (pagesets counts) in /proc/zoneinfo"),
        ));
    }
    Ok(z)
}

/// A recording made before zoneinfo was read.
pub(crate) fn not_recorded() -> Reading<ZoneinfoSample> {
    Err(Unavailable::new(
        Path::new("/proc/zoneinfo"),
        Reason::NotRecorded,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_ZONES: &str = "\
Node 0, zone      DMA
  pages free     3840
        protection: (0, 1, 2)
  pagesets
    cpu: 0
              count:    5
              high:     0
              batch:    1
  vm stats threshold: 4
    cpu: 1
              count:    7
              high:     0
  node_unreclaimable:  0
  start_pfn:           1
Node 0, zone   Normal
  pages free     100
  pagesets
    cpu: 0
              count:    1000
    cpu: 1
              count:    24
  node_unreclaimable:  0
Node 0, zone  Movable
  pages free     0
";

    #[test]
    fn counts_are_summed_over_zones_and_cpus() {
        let z = parse(Path::new("zoneinfo"), TWO_ZONES).unwrap();
        assert_eq!(z.pcp_free_pages, 5 + 7 + 1000 + 24);
        assert_eq!((z.pagesets, z.counts, z.zones), (4, 4, 2));
    }

    #[test]
    fn a_bad_count_is_located() {
        let text = TWO_ZONES.replace("count:    1000", "count:    lots");
        let err = parse(Path::new("/proc/zoneinfo"), &text).unwrap_err();
        assert_eq!(
            err.reason,
            Reason::Malformed {
                line: Some(19),
                detail: "count: expected a number, got \"lots\"".into()
            }
        );
    }

    #[test]
    fn no_pagesets_is_absent_not_zero() {
        let text: String = TWO_ZONES
            .lines()
            .filter(|l| !l.contains("count:"))
            .map(|l| format!("{l}\n"))
            .collect();
        let err = parse(Path::new("z"), &text).unwrap_err();
        assert!(matches!(err.reason, Reason::Absent { .. }), "{err:?}");
    }

    #[test]
    fn a_cheap_read_is_due_at_once_and_a_dear_one_waits() {
        let cheap = Ok(ZoneinfoSample {
            read_ns: 1_000,
            cost_ns: 0,
            ..ZoneinfoSample::default()
        });
        assert!(due(&cheap, 1_000));
        let dear = Ok(ZoneinfoSample {
            read_ns: 1_000,
            cost_ns: 2_000_000,
            ..ZoneinfoSample::default()
        });
        assert!(!due(&dear, 1_000 + 1_999_999_999));
        assert!(due(&dear, 1_000 + 2_000_000_000));
        assert!(due(&not_recorded(), 0));
    }
}
