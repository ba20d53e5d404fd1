//! From compressed sizes to what zswap or zram would spend: the kernel's handling of each page
//! (zero-filled, same-filled, incompressible) as this kernel does it, and the allocator's cost.
//! docs/advisor.md lists every fact with the kernel file it comes from.

use schemars::JsonSchema;
use serde::Serialize;

use super::z3fold::Z3fold;
use super::zbud::Zbud;
use std::collections::BTreeMap;

use super::zsmalloc::{Chain, Class, Zsmalloc};

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
pub(crate) fn kind(page: &[u8]) -> Kind {
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

/// The allocator a backend keeps compressed pages in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Allocator {
    /// Size classes (`mm/zsmalloc.c`): zram's always, zswap's where the `zpool` parameter says
    /// so or is gone.
    Zsmalloc,
    /// Two objects per page at most (`mm/zbud.c`).
    Zbud,
    /// Three objects per page at most (`mm/z3fold.c`).
    Z3fold,
}

impl Allocator {
    /// The allocator zswap's `zpool` parameter names; `None` for one this does not model.
    pub(crate) fn parse(name: &str) -> Option<Allocator> {
        match name {
            "zsmalloc" => Some(Allocator::Zsmalloc),
            "zbud" => Some(Allocator::Zbud),
            "z3fold" => Some(Allocator::Z3fold),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Allocator::Zsmalloc => "zsmalloc",
            Allocator::Zbud => "zbud",
            Allocator::Z3fold => "z3fold",
        }
    }

    /// The most compressed pages one page of pool holds (`None`: no fixed cap).
    pub(crate) fn per_page(self) -> Option<u32> {
        match self {
            Allocator::Zsmalloc => None,
            Allocator::Zbud => Some(2),
            Allocator::Z3fold => Some(3),
        }
    }
}

/// How this kernel treats pages around the compressor, detected by what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    pub page_size: u64,
    /// How zsmalloc chooses its zspages (`CONFIG_ZSMALLOC_CHAIN_SIZE`, or 6.1's rule).
    pub zsmalloc_chain: Chain,
    /// The allocator zswap stores new pages in.
    pub zswap_allocator: Allocator,
    /// The kernel's version (major, minor), for what nothing it shows tells.
    pub kernel_version: Option<(u32, u32)>,
    /// Zero-filled pages stay in the swap layer's zero map and never reach zswap or zram.
    pub zero_map: bool,
    /// zswap keeps same-filled (and zero-filled) pages as a value, without pool memory.
    pub zswap_same_filled: bool,
    /// zswap stores pages that are not same-filled (6.1's `non_same_filled_pages_enabled`).
    pub zswap_non_same_filled: bool,
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
    pub(crate) fn name(self) -> &'static str {
        match self {
            Backend::Zswap => "zswap",
            Backend::Zram => "zram",
        }
    }
}

impl Rules {
    /// Bytes zswap writes before each compressed page in a pool of `allocator`: `struct
    /// zswap_header` (the swap entry) while the pool could evict (`zpool_evictable`: zbud and
    /// z3fold, zsmalloc from 6.2), until 6.5 moved the LRU into zswap and dropped it.
    pub(crate) fn zswap_header(&self, allocator: Allocator) -> usize {
        match self.kernel_version {
            Some(v) if v < (6, 5) && (allocator != Allocator::Zsmalloc || v >= (6, 2)) => 8,
            _ => 0,
        }
    }
}

/// The sample's pages under one algorithm, in the order they were read: each page's kind and
/// compressed length. The order is kept because zbud and z3fold pack by it (a page's second
/// and third objects are the next ones that fit): reclaim pushes pages out in LRU order, which
/// for memory written once follows the order it was written, for most programs the order of
/// its addresses, the order the sample reads them in.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    /// Each page here stands for this many of the sample (the algorithm's stride: a slow one
    /// compresses one page in a few).
    pub weight: u64,
    /// The kind in the top two bits, the length below ([`FAILED`] when the compressor failed).
    pages: Vec<u32>,
}

const KIND_SHIFT: u32 = 30;
const LEN_MASK: u32 = (1 << KIND_SHIFT) - 1;
/// The length of a page the compressor failed on.
const FAILED: u32 = LEN_MASK;

impl Stream {
    pub(crate) fn new(weight: u64) -> Stream {
        Stream {
            weight: weight.max(1),
            pages: Vec::new(),
        }
    }

    /// One page of `kind` compressed to `len` bytes (`None`: the compressor failed).
    pub(crate) fn push(&mut self, kind: Kind, len: Option<usize>) {
        let len = len.map_or(FAILED, |l| u32::try_from(l).unwrap_or(FAILED).min(FAILED));
        let kind = match kind {
            Kind::Data => 0,
            Kind::SameFilled => 1,
            Kind::Zero => 2,
        };
        self.pages.push(kind << KIND_SHIFT | len);
    }

    /// Each page: its kind and compressed length, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Kind, Option<usize>)> + '_ {
        self.pages.iter().map(|&p| {
            let kind = match p >> KIND_SHIFT {
                0 => Kind::Data,
                1 => Kind::SameFilled,
                _ => Kind::Zero,
            };
            let len = p & LEN_MASK;
            (kind, (len != FAILED).then_some(len as usize))
        })
    }

    /// The sample's pages this stands for.
    #[cfg(test)]
    pub(crate) fn pages(&self) -> u64 {
        self.pages.len() as u64 * self.weight
    }

    /// The compressed bytes of the pages that are neither zero- nor same-filled.
    pub(crate) fn data_bytes(&self) -> u64 {
        self.iter()
            .filter(|(k, _)| *k == Kind::Data)
            .map(|(_, l)| l.unwrap_or(0) as u64)
            .sum::<u64>()
            * self.weight
    }
}

/// What a backend would hold for the sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Pages the backend stores (its "stored" figure counts them).
    pub stored_pages: u64,
    /// Pool bytes they take: zsmalloc's in full zspages (each object its class's share of
    /// one), zbud's and z3fold's in the pages the simulation filled.
    pub pool_bytes: f64,
    /// Stored whole: did not compress below a page (zswap), or below zram's huge class size.
    pub whole_pages: u64,
    /// Refused: stay in RAM or go to the swap device uncompressed (zswap before 6.18).
    pub refused_pages: u64,
    /// zsmalloc: the objects of each class (for [`Estimate::ratio_for`]).
    classes: Vec<(Class, u64)>,
}

impl Estimate {
    /// stored ÷ pool, as zswaptop shows the kernel's (Zswapped ÷ Zswap, orig ÷ mem_used).
    pub(crate) fn ratio(&self, page_size: u64) -> Option<f64> {
        (self.pool_bytes > 0.0).then(|| (self.stored_pages * page_size) as f64 / self.pool_bytes)
    }

    /// The ratio of a pool that holds `stored_pages` pages of the sample's mix, filled from
    /// empty. zsmalloc fills a class's zspages one at a time (`zs_malloc` takes a partly used
    /// zspage first: `find_get_zspage`), so each class's last zspage counts whole: up to 8
    /// pages a class, a few percent of a pool of tens of MiB: the likely cause of the +2 to +7 %
    /// the full-zspage estimate showed against 6.1, 6.12 and 7.2 guests paging 64 MiB out into
    /// an empty pool. zbud's and z3fold's simulated pages grow with the pool.
    pub(crate) fn ratio_for(&self, page_size: u64, stored_pages: u64) -> Option<f64> {
        if self.classes.is_empty() || self.stored_pages == 0 || stored_pages == 0 {
            return self.ratio(page_size);
        }
        let scale = stored_pages as f64 / self.stored_pages as f64;
        let pool: f64 = self
            .classes
            .iter()
            .map(|(c, n)| {
                let zspages = (*n as f64 * scale / c.objs_per_zspage as f64).ceil();
                zspages * (c.pages_per_zspage as u64 * page_size) as f64
            })
            .sum();
        (pool > 0.0).then(|| (stored_pages * page_size) as f64 / pool)
    }
}

/// The pool of one allocator being filled.
enum Pool {
    /// The classes, the bytes charged so far (full zspages: order does not matter) and the
    /// objects of each class, by its size.
    Zsmalloc(Zsmalloc, f64, BTreeMap<usize, (Class, u64)>),
    Zbud(Box<Zbud>),
    Z3fold(Z3fold),
}

impl Pool {
    fn new(allocator: Allocator, zs: &Zsmalloc) -> Pool {
        let ps = zs.page_size();
        match allocator {
            Allocator::Zsmalloc => Pool::Zsmalloc(zs.clone(), 0.0, BTreeMap::new()),
            Allocator::Zbud => Pool::Zbud(Box::new(Zbud::new(ps))),
            Allocator::Z3fold => Pool::Z3fold(Z3fold::new(ps)),
        }
    }

    /// `zpool_malloc(size)`: false when the allocator refuses it.
    fn alloc(&mut self, size: usize) -> bool {
        match self {
            Pool::Zsmalloc(zs, bytes, classes) => {
                let Some(class) = zs.class_for(size) else {
                    return false;
                };
                *bytes += class.cost(zs.page_size());
                classes.entry(class.size).or_insert((class, 0)).1 += 1;
                true
            }
            Pool::Zbud(z) => z.alloc(size),
            Pool::Z3fold(z) => z.alloc(size),
        }
    }

    /// `pool_total_size`.
    fn bytes(&self, page_size: usize) -> f64 {
        match self {
            Pool::Zsmalloc(_, bytes, _) => *bytes,
            Pool::Zbud(z) => (z.pages() * page_size as u64) as f64,
            Pool::Z3fold(z) => (z.pages() * page_size as u64) as f64,
        }
    }
}

/// The estimate for `backend` from the sample's pages in order.
pub(crate) fn estimate(backend: Backend, rules: &Rules, stream: &Stream) -> Estimate {
    let ps = rules.page_size as usize;
    let zs = Zsmalloc::new(ps, rules.zsmalloc_chain);
    let (allocator, header) = match backend {
        Backend::Zswap => (
            rules.zswap_allocator,
            rules.zswap_header(rules.zswap_allocator),
        ),
        Backend::Zram => (Allocator::Zsmalloc, 0),
    };
    let mut pool = Pool::new(allocator, &zs);
    let (mut stored, mut whole, mut refused) = (0u64, 0u64, 0u64);
    for (kind, len) in stream.iter() {
        let value = match (backend, kind) {
            // The zero map takes them before either sees them.
            (_, Kind::Zero) if rules.zero_map => continue,
            (Backend::Zram, Kind::Zero | Kind::SameFilled) => true,
            (Backend::Zswap, Kind::Zero | Kind::SameFilled) => rules.zswap_same_filled,
            (_, Kind::Data) => false,
        };
        if value {
            stored += 1;
            continue;
        }
        if backend == Backend::Zswap && kind == Kind::Data && !rules.zswap_non_same_filled {
            refused += 1;
            continue;
        }
        let (size, as_is) = match backend {
            // zram stores a page whose compressed length reaches the huge class size whole.
            Backend::Zram => match len {
                Some(l) if l < zs.huge_class_size() => (l, false),
                _ => (ps, true),
            },
            // 6.18+: a page that does not compress below a page is stored as it is.
            Backend::Zswap if rules.zswap_stores_incompressible && len.is_none_or(|l| l >= ps) => {
                (ps, true)
            }
            Backend::Zswap => match len {
                Some(l) => (l + header, false),
                None => {
                    refused += 1;
                    continue;
                }
            },
        };
        if pool.alloc(size) {
            stored += 1;
            whole += u64::from(as_is);
        } else {
            refused += 1;
        }
    }
    let w = stream.weight;
    let pool_bytes = pool.bytes(ps) * w as f64;
    let classes = match pool {
        Pool::Zsmalloc(_, _, classes) => classes.into_values().map(|(c, n)| (c, n * w)).collect(),
        Pool::Zbud(_) | Pool::Z3fold(_) => Vec::new(),
    };
    Estimate {
        stored_pages: stored * w,
        pool_bytes,
        whole_pages: whole * w,
        refused_pages: refused * w,
        classes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(zero_map: bool, same: bool, whole: bool) -> Rules {
        Rules {
            page_size: 4096,
            zsmalloc_chain: Chain::Config(8),
            zswap_allocator: Allocator::Zsmalloc,
            kernel_version: Some((6, 18)),
            zero_map,
            zswap_same_filled: same,
            zswap_non_same_filled: true,
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

    #[test]
    fn a_stream_keeps_kind_length_and_order() {
        let mut s = Stream::new(2);
        s.push(Kind::Data, Some(1000));
        s.push(Kind::SameFilled, Some(64));
        s.push(Kind::Zero, Some(20));
        s.push(Kind::Data, None);
        s.push(Kind::Data, Some(5000));
        let got: Vec<_> = s.iter().collect();
        assert_eq!(
            got,
            [
                (Kind::Data, Some(1000)),
                (Kind::SameFilled, Some(64)),
                (Kind::Zero, Some(20)),
                (Kind::Data, None),
                (Kind::Data, Some(5000)),
            ]
        );
        assert_eq!(s.pages(), 10);
        assert_eq!(s.data_bytes(), 2 * 6000);
    }

    /// 10 zero pages, 5 same-filled (64 bytes compressed), 80 pages of 1000 bytes, 4 that do
    /// not compress (4100 bytes) and 1 the compressor failed on.
    fn sample() -> Stream {
        let mut s = Stream::new(1);
        for _ in 0..10 {
            s.push(Kind::Zero, Some(20));
        }
        for _ in 0..5 {
            s.push(Kind::SameFilled, Some(64));
        }
        for _ in 0..80 {
            s.push(Kind::Data, Some(1000));
        }
        for _ in 0..4 {
            s.push(Kind::Data, Some(4100));
        }
        s.push(Kind::Data, None);
        s
    }

    #[test]
    fn zswap_on_6_18() {
        // Zero pages in the zero map; same-filled pages compressed (64 bytes + 8 → class 80:
        // 4096 % 80 = 16, 2 pages 32, 3 pages 48, 4 pages 64, 5 pages 0 → 5 pages, 256 objects,
        // 80 bytes each); 1000 bytes → 1024 each (zsmalloc tests); 5 whole pages.
        let e = estimate(Backend::Zswap, &rules(true, false, true), &sample());
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
        let e = estimate(Backend::Zswap, &rules(false, true, false), &sample());
        assert_eq!(e.stored_pages, 10 + 5 + 80);
        assert_eq!(e.refused_pages, 5);
        assert!((e.pool_bytes - 80.0 * 1024.0).abs() < 1e-6);
        // 6.1 with same_filled_pages_enabled=N: zero pages compressed too (20 bytes + 8 → 32:
        // 32 bytes each), same-filled ones 80 each.
        let e = estimate(Backend::Zswap, &rules(false, false, false), &sample());
        assert_eq!(e.stored_pages, 95);
        let pool = 10.0 * 32.0 + 5.0 * 80.0 + 80.0 * 1024.0;
        assert!((e.pool_bytes - pool).abs() < 1e-6, "{}", e.pool_bytes);
        // non_same_filled_pages_enabled=N: only the value pages are stored.
        let mut r = rules(false, true, false);
        r.zswap_non_same_filled = false;
        let e = estimate(Backend::Zswap, &r, &sample());
        assert_eq!((e.stored_pages, e.refused_pages), (15, 85));
        assert_eq!(e.ratio(4096), None);
    }

    #[test]
    fn zram_keeps_same_filled_and_huge_pages() {
        let mut s = sample();
        // 3700 bytes: at or over huge_class_size (3625): stored whole.
        s.push(Kind::Data, Some(3700));
        let e = estimate(Backend::Zram, &rules(true, false, true), &s);
        assert_eq!(e.stored_pages, 5 + 80 + 6);
        assert_eq!(e.whole_pages, 6);
        assert!((e.pool_bytes - (80.0 * 1024.0 + 6.0 * 4096.0)).abs() < 1e-6);
    }

    /// Debian 12's zswap: zbud, the 8-byte zswap_header before each object, same-filled pages
    /// as values, no zero map, incompressible pages refused.
    fn debian_6_1(allocator: Allocator) -> Rules {
        Rules {
            zsmalloc_chain: Chain::Before6_3,
            zswap_allocator: allocator,
            kernel_version: Some((6, 1)),
            ..rules(false, true, false)
        }
    }

    #[test]
    fn zbud_and_z3fold_on_6_1() {
        // 80 pages of 1000 bytes + 8: 16 chunks each. zbud: 2 a page → 40 pages; z3fold: 3 a
        // page (16 + 16 + 16 ≤ 62) → 26 full pages and one with 2: 27. The 5 that do not
        // compress are refused by both (4108 and more, and the failure).
        let zbud = estimate(Backend::Zswap, &debian_6_1(Allocator::Zbud), &sample());
        assert_eq!((zbud.stored_pages, zbud.refused_pages), (95, 5));
        assert_eq!(zbud.pool_bytes, 40.0 * 4096.0);
        // stored ÷ pool: 95 pages in 40 (the 15 zero and same-filled pages cost nothing).
        assert!((zbud.ratio(4096).unwrap() - 95.0 / 40.0).abs() < 1e-12);
        let z3 = estimate(Backend::Zswap, &debian_6_1(Allocator::Z3fold), &sample());
        assert_eq!((z3.stored_pages, z3.refused_pages), (95, 5));
        assert_eq!(z3.pool_bytes, 27.0 * 4096.0);
        // zsmalloc on 6.1 (no header: it cannot evict): 1000 → class 1024, 4 a page.
        let zs = debian_6_1(Allocator::Zsmalloc);
        assert_eq!(zs.zswap_header(Allocator::Zsmalloc), 0);
        let e = estimate(Backend::Zswap, &zs, &sample());
        assert_eq!(e.pool_bytes, 80.0 * 1024.0);
    }

    #[test]
    fn the_header_decides_a_borderline_object() {
        // 3962 bytes fit zbud (≤ 3968); with the 8-byte header, 3970 does not: refused.
        let mut s = Stream::new(3);
        s.push(Kind::Data, Some(3962));
        let r = Rules {
            kernel_version: Some((6, 12)),
            ..debian_6_1(Allocator::Zbud)
        };
        let e = estimate(Backend::Zswap, &r, &s);
        assert_eq!((e.stored_pages, e.refused_pages), (3, 0));
        assert_eq!(e.pool_bytes, 3.0 * 4096.0);
        let e = estimate(Backend::Zswap, &debian_6_1(Allocator::Zbud), &s);
        assert_eq!((e.stored_pages, e.refused_pages), (0, 3));
    }

    #[test]
    fn the_last_zspage_of_each_class_counts_whole() {
        // 80 objects of 1000 bytes (class 1024: 1 page, 4 objects) and 5 of 64 (class 80: 5
        // pages, 256 objects), on 6.18 with no zero or same-filled pages kept: full zspages
        // cost 80 × 1024 + 5 × 80 bytes; filled from empty, 20 pages + one zspage of 5 pages
        // (the 80-byte class's first, 5 objects in it) + 5 whole pages for the 4100s and the
        // failure.
        // The sample's 10 zero pages are in the zero map.
        let s = sample();
        let e = estimate(Backend::Zswap, &rules(true, false, true), &s);
        assert_eq!(e.stored_pages, 90);
        let got = e.ratio_for(4096, 90).unwrap();
        assert!((got - 90.0 / (20.0 + 5.0 + 5.0)).abs() < 1e-12, "{got}");
        // Ten times the pool (the same mix): 800 of 1024 in 200 pages, 50 of 80 still in one
        // zspage, 50 whole: 900 ÷ 255.
        let got = e.ratio_for(4096, 900).unwrap();
        assert!((got - 900.0 / 255.0).abs() < 1e-12, "{got}");
        // A pool without end tends to full zspages.
        let full = e.ratio(4096).unwrap();
        assert!((e.ratio_for(4096, 90_000_000).unwrap() - full).abs() < 1e-4);
        // zbud's simulated pages are the pool whatever its size.
        let r = Rules {
            zswap_allocator: Allocator::Zbud,
            ..rules(true, false, true)
        };
        let e = estimate(Backend::Zswap, &r, &s);
        assert_eq!(e.ratio_for(4096, 900), e.ratio(4096));
    }

    #[test]
    fn the_header_by_version() {
        let at = |v| Rules {
            kernel_version: Some(v),
            ..rules(false, true, false)
        };
        for (v, zbud, zsmalloc) in [
            ((5, 15), 8, 0),
            ((6, 1), 8, 0),
            ((6, 2), 8, 8),
            ((6, 4), 8, 8),
            ((6, 5), 0, 0),
            ((6, 12), 0, 0),
        ] {
            assert_eq!(at(v).zswap_header(Allocator::Zbud), zbud, "{v:?}");
            assert_eq!(at(v).zswap_header(Allocator::Z3fold), zbud, "{v:?}");
            assert_eq!(at(v).zswap_header(Allocator::Zsmalloc), zsmalloc, "{v:?}");
        }
    }

    #[test]
    fn zswap_on_6_12_with_zbud() {
        // The zero map takes zero pages; same-filled ones are compressed (64 bytes: 1 chunk);
        // no header. Pages 1–2 hold the first 4 same-filled pages in pairs, page 3 the 5th and
        // the first 1000 (16 chunks ≤ its 62 free), then 79 more 1000s: 39 pairs and one
        // alone, 40 pages. 43 in all; the 4100s and the failure are refused.
        let r = Rules {
            zswap_allocator: Allocator::Zbud,
            ..rules(true, false, false)
        };
        let e = estimate(Backend::Zswap, &r, &sample());
        assert_eq!(e.stored_pages, 85);
        assert_eq!(e.pool_bytes, 43.0 * 4096.0);
    }

    proptest::proptest! {
        /// Whatever the sizes: zbud never holds more than 2 objects a page nor z3fold more than
        /// 3, both need at least the compressed bytes, and zsmalloc's estimate never exceeds
        /// a page per object.
        #[test]
        fn caps_hold(lens in proptest::collection::vec(1usize..4200, 1..400)) {
            let mut s = Stream::new(1);
            for &l in &lens {
                s.push(Kind::Data, Some(l));
            }
            for (allocator, cap, max) in [(Allocator::Zbud, 2, 3968), (Allocator::Z3fold, 3, 4096)] {
                let r = Rules { zswap_allocator: allocator, ..rules(true, false, false) };
                let e = estimate(Backend::Zswap, &r, &s);
                let pages = e.pool_bytes as u64 / 4096;
                proptest::prop_assert!(e.stored_pages <= cap * pages);
                let kept: Vec<usize> = lens.iter().copied().filter(|&l| l <= max).collect();
                proptest::prop_assert_eq!(e.stored_pages, kept.len() as u64);
                proptest::prop_assert!(pages * 4096 >= kept.iter().sum::<usize>() as u64);
                // Never worse than a page per object.
                proptest::prop_assert!(pages <= e.stored_pages);
            }
            let e = estimate(Backend::Zswap, &rules(true, false, false), &s);
            proptest::prop_assert!(e.pool_bytes <= e.stored_pages as f64 * 4096.0 + 1e-6);
        }
    }
}
