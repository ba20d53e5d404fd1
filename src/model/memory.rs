//! The "real memory" breakdown (kernel reference §4.4) and what `free` calls used (§4.5).

use serde::{Deserialize, Serialize};

use crate::sources::meminfo::MeminfoSample;

/// Ten buckets that sum exactly to MemTotal. A `None` bucket is unknown; its memory is then
/// inside `unaccounted`, so the known buckets still sum to the total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdown {
    pub apps: Option<u64>,
    pub swap_cache: Option<u64>,
    pub page_cache: Option<u64>,
    pub shmem: Option<u64>,
    pub kernel: Option<u64>,
    pub hugetlb: Option<u64>,
    pub zswap_pool: Option<u64>,
    pub zram_pool: Option<u64>,
    pub free: Option<u64>,
    pub unaccounted: Option<i64>,
}

impl Breakdown {
    /// Buckets in display order with their labels, `unaccounted` last.
    pub fn buckets(&self) -> [(&'static str, Option<i64>); 10] {
        let s = |v: Option<u64>| v.map(|v| i64::try_from(v).unwrap_or(i64::MAX));
        [
            ("apps", s(self.apps)),
            ("swap_cache", s(self.swap_cache)),
            ("page_cache", s(self.page_cache)),
            ("shmem", s(self.shmem)),
            ("kernel", s(self.kernel)),
            ("hugetlb", s(self.hugetlb)),
            ("zswap_pool", s(self.zswap_pool)),
            ("zram_pool", s(self.zram_pool)),
            ("free", s(self.free)),
            ("unaccounted", self.unaccounted),
        ]
    }
}

/// Derive the breakdown. `zswap_pool` and `zram_pool` come from outside meminfo where needed.
pub fn breakdown(m: &MeminfoSample, zswap_pool: Option<u64>, zram_pool: Option<u64>) -> Breakdown {
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
        swap_cache: Some(m.swap_cached),
        page_cache: Some(page_cache),
        shmem: m.shmem,
        kernel: Some(kernel),
        hugetlb,
        zswap_pool,
        zram_pool,
        free: Some(m.mem_free),
        unaccounted: None,
    };
    let known: i128 = b.buckets()[..9]
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
pub fn gaps(m: &MeminfoSample) -> Vec<super::Missing> {
    let mut out = Vec::new();
    if m.shmem.is_none() {
        out.push(super::Missing {
            item: "shmem/tmpfs (meminfo Shmem)".into(),
            reason: "no Shmem line in /proc/meminfo: tmpfs is counted in the page cache".into(),
            fix: None,
        });
    }
    if hugetlb(m).is_none() {
        out.push(super::too_large(
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
