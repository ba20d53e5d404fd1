//! The "real memory" breakdown over the /proc/meminfo fields (fs/proc/meminfo.c, described in
//! Documentation/filesystems/proc.rst) plus the zswap and zram pools, and what procps-ng `free`
//! calls used (its library/meminfo.c).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Missing, too_large};
use crate::error::Reason;
use crate::model::metrics::Hue;
use crate::sanitize::Sanitize;
use crate::sources::meminfo::MeminfoSample;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Sanitize, JsonSchema)]
pub struct Memory {
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    pub available_bytes: Option<u64>,
    pub free_cmd_used_bytes: Option<u64>,
    pub hidden_in_used_bytes: Option<u64>,
    pub breakdown: Option<Breakdown>,
    /// The swap cache's pages that are mapped again and so already inside `apps` (AnonPages):
    /// SwapCached − `breakdown.swap_cache` (an estimate, see [`swap_cache_split`]).
    #[schemars(
        description = "SwapCached − `breakdown.swap_cache_bytes`: the swap cache's pages that are mapped again and so already inside `breakdown.apps_bytes` (an estimate)."
    )]
    pub swap_cache_mapped_bytes: Option<u64>,
    /// How long before this sample `/proc/zoneinfo` (`breakdown.pcp_free`) was read: 0 when read
    /// with it; more when the dashboard reads it less often than it samples (its cost).
    pub pcp_free_age_ms: Option<u64>,
    /// Figures above that could not be had, and why (a line missing from meminfo, a sum too
    /// large to be real).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<Missing>,
    /// AnonHugePages, for the diagnostics (not in the JSON).
    #[serde(skip)]
    pub anon_huge_pages_bytes: Option<u64>,
}

impl Memory {
    /// The memory section. `zswap_pool` and `zram_pool` are the pools' RAM, from outside
    /// meminfo; `pcp_free` the free pages on the per-CPU lists (bytes, from zoneinfo) and
    /// `pcp_free_age_ms` how old that figure is; `unavailable` what is already known to be
    /// missing from it.
    pub(crate) fn derive(
        mem: Option<&MeminfoSample>,
        zswap_pool: Option<u64>,
        zram_pool: Option<u64>,
        pcp_free: Option<u64>,
        pcp_free_age_ms: Option<u64>,
        mut unavailable: Vec<Missing>,
    ) -> Memory {
        match mem {
            Some(m) => Memory {
                total_bytes: Some(m.mem_total),
                free_bytes: Some(m.mem_free),
                available_bytes: m.mem_available,
                free_cmd_used_bytes: Some(free_cmd_used(m)),
                hidden_in_used_bytes: match (zswap_pool, zram_pool) {
                    (Some(a), Some(b)) => a.checked_add(b).or_else(|| {
                        unavailable.push(too_large("hidden in used", "zswap + zram pools"));
                        None
                    }),
                    _ => None,
                },
                breakdown: Some(breakdown(m, zswap_pool, zram_pool, pcp_free)),
                swap_cache_mapped_bytes: swap_cache_split(m).map(|(_, mapped)| mapped),
                pcp_free_age_ms: pcp_free.and(pcp_free_age_ms),
                unavailable: {
                    unavailable.extend(gaps(m));
                    unavailable
                },
                anon_huge_pages_bytes: m.anon_huge_pages,
            },
            None => Memory {
                total_bytes: None,
                free_bytes: None,
                available_bytes: None,
                free_cmd_used_bytes: None,
                hidden_in_used_bytes: None,
                breakdown: None,
                swap_cache_mapped_bytes: None,
                pcp_free_age_ms: None,
                unavailable,
                anon_huge_pages_bytes: None,
            },
        }
    }
}

/// One bucket of the real-memory breakdown as every view shows it: its
/// key, label, kernel source, glyph and colour, written once.
pub struct Bucket {
    /// Its name in code; the JSON key in `memory.breakdown` is this with `_bytes`.
    pub key: &'static str,
    pub label: &'static str,
    /// Where it comes from, in kernel terms.
    pub source: &'static str,
    /// The character used in bars when colour is off.
    pub glyph: char,
    /// Its colour in bars and swatches.
    pub hue: Hue,
}

impl Bucket {
    /// Memory `free` counts as used that no program uses: the compressed pools, and the free
    /// pages on the per-CPU lists where the breakdown has them (`pcp_free`).
    pub(crate) fn hidden_in_used(&self) -> bool {
        matches!(self.key, "zswap_pool" | "zram_pool" | "pcp_free")
    }
}

/// Buckets in display order (the same order as `Breakdown::buckets`).
pub const BUCKETS: [Bucket; 11] = [
    Bucket {
        key: "apps",
        label: "apps",
        source: "AnonPages",
        glyph: 'a',
        hue: Hue::Green,
    },
    Bucket {
        key: "swap_cache",
        label: "swap cache (est.)",
        source: "SwapCached not mapped again",
        glyph: 's',
        hue: Hue::Cyan,
    },
    Bucket {
        key: "page_cache",
        label: "page cache",
        source: "Buffers+Cached-Shmem",
        glyph: 'c',
        hue: Hue::Blue,
    },
    Bucket {
        key: "shmem",
        label: "shmem/tmpfs",
        source: "Shmem",
        glyph: 'm',
        hue: Hue::LightBlue,
    },
    Bucket {
        key: "kernel",
        label: "kernel",
        source: "Slab+PageTables+stacks+vmalloc+percpu",
        glyph: 'k',
        hue: Hue::Yellow,
    },
    Bucket {
        key: "hugetlb",
        label: "hugetlb",
        source: "Hugetlb",
        glyph: 'h',
        hue: Hue::LightYellow,
    },
    Bucket {
        key: "zswap_pool",
        label: "zswap pool",
        source: "Zswap (hidden in used)",
        glyph: 'Z',
        hue: Hue::Magenta,
    },
    Bucket {
        key: "zram_pool",
        label: "zram pool",
        source: "zram mem_used_total",
        glyph: 'R',
        hue: Hue::LightMagenta,
    },
    Bucket {
        key: "free",
        label: "free",
        source: "MemFree",
        glyph: '.',
        hue: Hue::Gray,
    },
    Bucket {
        key: "pcp_free",
        label: "per-CPU free lists",
        source: "zoneinfo pagesets, not in MemFree",
        glyph: ':',
        hue: Hue::Gray,
    },
    Bucket {
        key: "unaccounted",
        label: "unaccounted",
        source: "drivers, GPU, network buffers…",
        glyph: '?',
        hue: Hue::DarkGray,
    },
];

/// Eleven buckets that sum exactly to MemTotal. A `None` bucket is unknown; its memory is then
/// inside `unaccounted`, so the known buckets still sum to the total.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema,
)]
pub struct Breakdown {
    #[serde(rename = "apps_bytes", alias = "apps")]
    pub apps: Option<u64>,
    #[serde(rename = "swap_cache_bytes", alias = "swap_cache")]
    pub swap_cache: Option<u64>,
    #[serde(rename = "page_cache_bytes", alias = "page_cache")]
    pub page_cache: Option<u64>,
    #[serde(rename = "shmem_bytes", alias = "shmem")]
    pub shmem: Option<u64>,
    #[serde(rename = "kernel_bytes", alias = "kernel")]
    pub kernel: Option<u64>,
    #[serde(rename = "hugetlb_bytes", alias = "hugetlb")]
    pub hugetlb: Option<u64>,
    #[serde(rename = "zswap_pool_bytes", alias = "zswap_pool")]
    pub zswap_pool: Option<u64>,
    #[serde(rename = "zram_pool_bytes", alias = "zram_pool")]
    pub zram_pool: Option<u64>,
    #[serde(rename = "free_bytes", alias = "free")]
    pub free: Option<u64>,
    /// Free pages on the per-CPU lists (`/proc/zoneinfo`), not in MemFree.
    #[serde(default, rename = "pcp_free_bytes", alias = "pcp_free")]
    pub pcp_free: Option<u64>,
    #[serde(rename = "unaccounted_bytes", alias = "unaccounted")]
    pub unaccounted: Option<i64>,
}

impl Breakdown {
    /// Buckets in display order with their keys (as in [`BUCKETS`]), `unaccounted` last.
    pub fn buckets(&self) -> [(&'static str, Option<i64>); BUCKETS.len()] {
        let s = |v: Option<u64>| v.map(|v| i64::try_from(v).unwrap_or(i64::MAX));
        let v = [
            s(self.apps),
            s(self.swap_cache),
            s(self.page_cache),
            s(self.shmem),
            s(self.kernel),
            s(self.hugetlb),
            s(self.zswap_pool),
            s(self.zram_pool),
            s(self.free),
            s(self.pcp_free),
            self.unaccounted,
        ];
        std::array::from_fn(|i| (BUCKETS[i].key, v[i]))
    }
}

/// SwapCached split into (not mapped, mapped) by kernel-reference §4.4a: a swapped-in page stays
/// in the swap cache while mapped again, so it is in AnonPages as well. Swap-cache pages, mapped
/// or not, sit on the anon LRU (as does shmem), so the unmapped part is about
/// `clamp(Active(anon) + Inactive(anon) + Unevictable − AnonPages − Shmem, 0, SwapCached)`.
/// Unevictable also holds mlocked file pages and ramfs, so this over-estimates the unmapped part
/// by at most Unevictable. `None` without those lines (or AnonPages, Shmem).
pub fn swap_cache_split(m: &MeminfoSample) -> Option<(u64, u64)> {
    let lru = m
        .active_anon?
        .saturating_add(m.inactive_anon?)
        .saturating_add(m.unevictable?);
    let unmapped = lru
        .saturating_sub(m.anon_pages?)
        .saturating_sub(m.shmem?)
        .min(m.swap_cached);
    Some((unmapped, m.swap_cached - unmapped))
}

/// Derive the breakdown. `zswap_pool`, `zram_pool` and `pcp_free` come from outside meminfo.
pub fn breakdown(
    m: &MeminfoSample,
    zswap_pool: Option<u64>,
    zram_pool: Option<u64>,
    pcp_free: Option<u64>,
) -> Breakdown {
    // Cached includes Shmem; a racing read can make the difference negative, clamp at 0.
    // Without a Shmem line tmpfs is unknown and stays inside the page cache.
    let page_cache = m
        .buffers
        .saturating_add(m.cached)
        .saturating_sub(m.shmem.unwrap_or(0));
    let kstack = m.kernel_stack.unwrap_or(0);
    let kernel = [
        m.slab,
        m.page_tables.unwrap_or(0),
        m.sec_page_tables.unwrap_or(0),
        kstack,
        // With CONFIG_VMAP_STACK kernel stacks are inside VmallocUsed too: count them once.
        m.vmalloc_used.saturating_sub(kstack),
        m.percpu.unwrap_or(0),
    ]
    .iter()
    .fold(0u64, |a, &b| a.saturating_add(b));
    let hugetlb = hugetlb(m);
    let mut b = Breakdown {
        // No AnonPages line: unknown (its memory stays in unaccounted), not 0.
        apps: m.anon_pages,
        // Only the part not already inside AnonPages; without the LRU lines, all of it (§4.4).
        swap_cache: Some(swap_cache_split(m).map_or(m.swap_cached, |(unmapped, _)| unmapped)),
        page_cache: Some(page_cache),
        shmem: m.shmem,
        kernel: Some(kernel),
        hugetlb,
        zswap_pool,
        zram_pool,
        free: Some(m.mem_free),
        pcp_free,
        unaccounted: None,
    };
    let known: i128 = b.buckets()[..BUCKETS.len() - 1]
        .iter()
        .filter_map(|(_, v)| v.map(i128::from))
        .sum();
    b.unaccounted = i64::try_from(i128::from(m.mem_total) - known).ok();
    b
}

/// Hugetlb (6.0+), else HugePages_Total × Hugepagesize; 0 on a kernel without hugetlb pages
/// (no lines at all); `None` when the product is past 2^64 bytes.
fn hugetlb(m: &MeminfoSample) -> Option<u64> {
    match (m.hugetlb, m.hugepages_total, m.hugepage_size) {
        (Some(h), _, _) => Some(h),
        (None, Some(n), Some(size)) => n.checked_mul(size),
        _ => Some(0),
    }
}

/// Breakdown buckets meminfo leaves unknown, and why.
pub(crate) fn gaps(m: &MeminfoSample) -> Vec<Missing> {
    let mut out = Vec::new();
    if m.shmem.is_none() {
        out.push(Missing {
            item: "shmem/tmpfs".into(),
            path: None,
            holds: Some("meminfo Shmem".into()),
            reason: Reason::absent(
                "no Shmem line in /proc/meminfo: tmpfs is counted in the page cache",
            ),
        });
    }
    if hugetlb(m).is_none() {
        out.push(too_large(
            "hugetlb",
            "meminfo HugePages_Total × Hugepagesize",
        ));
    }
    out
}

/// What procps-ng ≥ 4.0.1 `free` and `top` print as "used": MemTotal − MemAvailable, with its
/// guards (available > total → MemFree; negative → MemTotal − MemFree). Without MemAvailable
/// (kernels before 3.14) the ≤ 4.0.0 formula applies.
pub fn free_cmd_used(m: &MeminfoSample) -> u64 {
    let available = match m.mem_available {
        Some(a) if a > m.mem_total || a == 0 => m.mem_free,
        Some(a) => a,
        None => {
            let cache = m
                .buffers
                .saturating_add(m.cached)
                .saturating_add(m.s_reclaimable.unwrap_or(0));
            return match m.mem_total.checked_sub(m.mem_free.saturating_add(cache)) {
                Some(u) => u,
                None => m.mem_total.saturating_sub(m.mem_free),
            };
        }
    };
    m.mem_total
        .checked_sub(available)
        .unwrap_or_else(|| m.mem_total.saturating_sub(m.mem_free))
}
