//! From compressed sizes to what zswap or zram would spend: the kernel's handling of each page
//! (zero-filled, same-filled, incompressible) as this kernel does it, and the allocator's cost.
//! docs/advisor.md lists every fact with the kernel file it comes from.

use schemars::JsonSchema;
use serde::Serialize;

use super::zsmalloc::Zsmalloc;

/// One page in the sample, as the kernel sees it before compressing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Every byte 0.
    Zero,
    /// One 8-byte word repeated, not zero.
    SameFilled,
    /// Anything else: compressed.
    Data,
}

/// What kind a page is (zram's `page_same_filled` test: the page as repeated machine words).
pub fn kind(page: &[u8]) -> Kind {
    let words = page.chunks_exact(8);
    let first = &page[..8.min(page.len())];
    if words.clone().any(|w| w != first) {
        return Kind::Data;
    }
    if first.iter().all(|&b| b == 0) {
        Kind::Zero
    } else {
        Kind::SameFilled
    }
}

/// How this kernel treats pages around the compressor, detected by what it shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rules {
    pub page_size: u64,
    /// `CONFIG_ZSMALLOC_CHAIN_SIZE`.
    pub zsmalloc_chain: usize,
    /// Zero-filled pages stay in the swap layer's zero map and never reach zswap or zram.
    pub zero_map: bool,
    /// zswap keeps same-filled pages as a value, without pool memory.
    pub zswap_same_filled: bool,
    /// zswap keeps a page that does not compress below a page whole (else it refuses it).
    pub zswap_stores_incompressible: bool,
    /// Each fact, its value and where it was learned.
    pub facts: Vec<Fact>,
}

/// One kernel behaviour the estimate relies on.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Fact {
    pub fact: String,
    /// How it was learned: the file read, or `assumed` with why.
    pub evidence: String,
    /// The kernel source that does it.
    pub source: String,
}

/// A backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Zswap,
    Zram,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Zswap => "zswap",
            Backend::Zram => "zram",
        }
    }
}

/// The compressed sizes of the sample's data pages under one algorithm: `sizes[n]` pages came
/// out `n` bytes long; the last slot counts pages that came out a page or longer, or failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Sizes {
    pub sizes: Vec<u64>,
}

impl Sizes {
    pub fn new(page_size: usize) -> Sizes {
        Sizes {
            sizes: vec![0; page_size + 1],
        }
    }

    /// Count one page compressed to `len` bytes (`None`: the compressor failed).
    pub fn add(&mut self, len: Option<usize>) {
        self.add_n(len, 1);
    }

    /// Count `n` pages compressed to `len` bytes.
    pub fn add_n(&mut self, len: Option<usize>, n: u64) {
        let last = self.sizes.len() - 1;
        let slot = len.map_or(last, |l| l.min(last));
        self.sizes[slot] += n;
    }

    pub fn pages(&self) -> u64 {
        self.sizes.iter().sum()
    }
}

/// What a backend would hold for the sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Pages the backend stores (its "stored" figure counts them).
    pub stored_pages: u64,
    /// Pool bytes they take.
    pub pool_bytes: f64,
    /// Stored whole: did not compress below a page (zswap), or below zram's huge class size.
    pub whole_pages: u64,
    /// Refused: stay in RAM or go to the swap device uncompressed (zswap before 6.18).
    pub refused_pages: u64,
}

impl Estimate {
    /// stored ÷ pool, as zswaptop shows the kernel's (Zswapped ÷ Zswap, orig ÷ mem_used).
    pub fn ratio(&self, page_size: u64) -> Option<f64> {
        (self.pool_bytes > 0.0).then(|| (self.stored_pages * page_size) as f64 / self.pool_bytes)
    }
}

/// The estimate for `backend` from the sample: its `zero` pages, the compressed sizes of its
/// same-filled pages (`same`) and of the rest (`data`).
pub fn estimate(
    backend: Backend,
    rules: &Rules,
    zero: u64,
    same: &Sizes,
    data: &Sizes,
) -> Estimate {
    let ps = rules.page_size as usize;
    let zs = Zsmalloc::new(ps, rules.zsmalloc_chain);
    let mut e = Estimate {
        stored_pages: 0,
        pool_bytes: 0.0,
        whole_pages: 0,
        refused_pages: 0,
    };
    // Zero pages are kept as a value by both when they reach them (before the zero map).
    if !rules.zero_map {
        e.stored_pages += zero;
    }
    let same_kept = match backend {
        Backend::Zswap => rules.zswap_same_filled,
        Backend::Zram => true,
    };
    let mut all = data.clone();
    if same_kept {
        e.stored_pages += same.pages();
    } else {
        for (a, b) in all.sizes.iter_mut().zip(&same.sizes) {
            *a += b;
        }
    }
    let data = all;
    let whole_at = match backend {
        Backend::Zswap => ps,
        Backend::Zram => zs.huge_class_size(),
    };
    for (len, &n) in data.sizes.iter().enumerate() {
        if n == 0 {
            continue;
        }
        if len >= whole_at {
            if backend == Backend::Zswap && !rules.zswap_stores_incompressible {
                e.refused_pages += n;
                continue;
            }
            e.whole_pages += n;
            e.stored_pages += n;
            e.pool_bytes += n as f64 * zs.cost(ps);
        } else {
            e.stored_pages += n;
            e.pool_bytes += n as f64 * zs.cost(len);
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(zero_map: bool, same: bool, whole: bool) -> Rules {
        Rules {
            page_size: 4096,
            zsmalloc_chain: 8,
            zero_map,
            zswap_same_filled: same,
            zswap_stores_incompressible: whole,
            facts: Vec::new(),
        }
    }

    #[test]
    fn kinds() {
        assert_eq!(kind(&[0u8; 4096]), Kind::Zero);
        let w: Vec<u8> = 0xdead_beef_u64.to_le_bytes().repeat(512);
        assert_eq!(kind(&w), Kind::SameFilled);
        let mut d = vec![0u8; 4096];
        d[4095] = 1;
        assert_eq!(kind(&d), Kind::Data);
    }

    /// 5 same-filled pages compressed to 64 bytes.
    fn same() -> Sizes {
        let mut s = Sizes::new(4096);
        for _ in 0..5 {
            s.add(Some(64));
        }
        s
    }

    /// 80 pages of 1000 bytes, 5 that do not compress.
    fn sample() -> Sizes {
        let mut s = Sizes::new(4096);
        for _ in 0..80 {
            s.add(Some(1000));
        }
        for _ in 0..4 {
            s.add(Some(4100));
        }
        s.add(None);
        s
    }

    #[test]
    fn zswap_on_6_18() {
        // Zero pages in the zero map; same-filled pages compressed (64 bytes + 8 → class 80:
        // 4096 % 80 = 16, 2 pages 32, 3 pages 48, 4 pages 64, 5 pages 0 → 5 pages, 256 objects,
        // 80 bytes each); 1000 bytes → 1024 each (zsmalloc tests); 5 whole pages.
        let e = estimate(
            Backend::Zswap,
            &rules(true, false, true),
            10,
            &same(),
            &sample(),
        );
        assert_eq!(e.stored_pages, 90);
        assert_eq!(e.whole_pages, 5);
        let pool = 5.0 * 80.0 + 80.0 * 1024.0 + 5.0 * 4096.0;
        assert!((e.pool_bytes - pool).abs() < 1e-6, "{}", e.pool_bytes);
        assert!((e.ratio(4096).unwrap() - 90.0 * 4096.0 / pool).abs() < 1e-9);
    }

    #[test]
    fn zswap_before_the_zero_map_and_before_6_18() {
        // ≤ 6.11: zero and same-filled pages are entries without pool memory; incompressible
        // pages are refused (they go to the swap device).
        let e = estimate(
            Backend::Zswap,
            &rules(false, true, false),
            10,
            &same(),
            &sample(),
        );
        assert_eq!(e.stored_pages, 10 + 5 + 80);
        assert_eq!(e.refused_pages, 5);
        assert!((e.pool_bytes - 80.0 * 1024.0).abs() < 1e-6);
    }

    #[test]
    fn zram_keeps_same_filled_and_huge_pages() {
        let mut s = sample();
        // 3700 bytes: at or over huge_class_size (3633): stored whole.
        s.add(Some(3700));
        let e = estimate(Backend::Zram, &rules(true, false, true), 10, &same(), &s);
        assert_eq!(e.stored_pages, 5 + 80 + 6);
        assert_eq!(e.whole_pages, 6);
        assert!((e.pool_bytes - (80.0 * 1024.0 + 6.0 * 4096.0)).abs() < 1e-6);
    }
}
