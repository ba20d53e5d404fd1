//! What zsmalloc, the allocator under both zswap and zram, charges for an object of a given
//! size: the arithmetic of `mm/zsmalloc.c` (`zs_create_pool`, `calculate_zspage_chain_size`,
//! `get_size_class_index`, `zs_malloc`), with the page size and chain length as parameters.
//!
//! - Size classes start at `ZS_MIN_ALLOC_SIZE` (32 bytes) and step by `PAGE_SIZE >> 8` (16 bytes
//!   on 4 KiB pages) up to `PAGE_SIZE`.
//! - Each class takes a chain of pages per zspage ([`Chain`]) and holds `pages × PAGE_SIZE /
//!   size` objects in it. Since 6.3 (`calculate_zspage_chain_size`): 1 to
//!   `CONFIG_ZSMALLOC_CHAIN_SIZE` (default 8) pages, the length that wastes least (a power-of-two
//!   size takes 1). Before (`get_pages_per_zspage`, 6.1): 1 to 4 pages (`ZS_MAX_ZSPAGE_ORDER
//!   2`), the length with the highest share used in whole percent, the shortest on a tie.
//! - Built from the largest class down, a class with the same pages and objects per zspage as
//!   the one above it is merged into it: its objects take the larger slot.
//! - `zs_malloc(len)` adds the 8-byte handle before it picks the class; a request of a whole page
//!   lands in the last class (the index is capped).
//! - `huge_class_size`: the size, less 7, of the first class from the top whose zspage holds more
//!   than one page and more than one object. zram stores a page whose compressed length is at
//!   least this much whole (a `huge` page).
//!
//! An object's cost is its class's `pages × PAGE_SIZE / objects`: what a full zspage spends on
//! each of its objects. A pool of many objects fills its zspages; the last, partly filled zspage
//! of each class is left out (a page or a few per class).

/// The handle kept at the start of every object that shares a zspage.
const HANDLE: usize = 8;
/// x86-64's `MAX_POSSIBLE_PHYSMEM_BITS`, for `ZS_MIN_ALLOC_SIZE` (which is 32 bytes on every
/// page size in use whatever this is).
const PHYSMEM_BITS: u32 = 52;

/// How a class's pages per zspage are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chain {
    /// Before 6.3 (`get_pages_per_zspage`): 1 to 4 pages, the most used in whole percent
    /// (`(zspage_size - waste) * 100 / zspage_size`), the shortest on a tie.
    Before6_3,
    /// 6.3+ (`calculate_zspage_chain_size`): 1 to `CONFIG_ZSMALLOC_CHAIN_SIZE` pages, the least
    /// waste, the shortest on a tie; 1 for a power-of-two size.
    Config(usize),
}

impl Chain {
    /// `ZS_MAX_PAGES_PER_ZSPAGE`.
    pub(crate) fn max(self) -> usize {
        match self {
            Chain::Before6_3 => 4,
            Chain::Config(n) => n,
        }
    }

    /// The pages per zspage of a class of `size`.
    fn pages(self, size: usize, page_size: usize) -> usize {
        match self {
            Chain::Config(max) => chain_size(size, page_size, max),
            Chain::Before6_3 => {
                let mut best = (0, 1);
                for pages in 1..=4 {
                    let zspage = pages * page_size;
                    let used = (zspage - zspage % size) * 100 / zspage;
                    if used > best.0 {
                        best = (used, pages);
                    }
                }
                best.1
            }
        }
    }
}

/// One size class as the pool has it after merging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    /// The slot size in bytes.
    pub size: usize,
    pub pages_per_zspage: usize,
    pub objs_per_zspage: usize,
}

impl Class {
    /// Bytes of pool memory one object costs in a full zspage.
    pub(crate) fn cost(&self, page_size: usize) -> f64 {
        (self.pages_per_zspage * page_size) as f64 / self.objs_per_zspage as f64
    }
}

/// The classes of a pool.
#[derive(Debug, Clone, PartialEq)]
pub struct Zsmalloc {
    page_size: usize,
    min_alloc: usize,
    delta: usize,
    /// By class index: the class objects of that index go to (after merging).
    classes: Vec<Class>,
    huge_class_size: usize,
}

/// `calculate_zspage_chain_size`: 1 page for a power-of-two size, else the chain length (1 to
/// `max`) with the least waste at its end, the shortest on a tie.
fn chain_size(size: usize, page_size: usize, max: usize) -> usize {
    if size.is_power_of_two() {
        return 1;
    }
    let mut best = (usize::MAX, 1);
    for pages in 1..=max {
        let waste = pages * page_size % size;
        if waste < best.0 {
            best = (waste, pages);
        }
    }
    best.1
}

impl Zsmalloc {
    /// The pool for `page_size` (a power of two, 4 KiB to 64 KiB) and its `chain` rule (up to
    /// 16 pages per zspage).
    pub(crate) fn new(page_size: usize, chain: Chain) -> Zsmalloc {
        let shift = page_size.trailing_zeros();
        let index_bits = 64 - (PHYSMEM_BITS - shift);
        let min_alloc = 32.max((chain.max() << shift) >> index_bits);
        let delta = page_size >> 8;
        let count = (page_size - min_alloc).div_ceil(delta) + 1;
        let mut classes = vec![
            Class {
                size: page_size,
                pages_per_zspage: 1,
                objs_per_zspage: 1
            };
            count
        ];
        let mut huge_class_size = 0;
        let mut prev: Option<Class> = None;
        for i in (0..count).rev() {
            let size = (min_alloc + i * delta).min(page_size);
            let pages = chain.pages(size, page_size);
            let objs = pages * page_size / size;
            if pages != 1 && objs != 1 && huge_class_size == 0 {
                huge_class_size = size - (HANDLE - 1);
            }
            let class = match prev {
                Some(p) if p.pages_per_zspage == pages && p.objs_per_zspage == objs => p,
                _ => Class {
                    size,
                    pages_per_zspage: pages,
                    objs_per_zspage: objs,
                },
            };
            classes[i] = class;
            prev = Some(class);
        }
        Zsmalloc {
            page_size,
            min_alloc,
            delta,
            classes,
            huge_class_size,
        }
    }

    pub(crate) fn page_size(&self) -> usize {
        self.page_size
    }

    /// zram stores a page whose compressed length is at least this much whole.
    pub(crate) fn huge_class_size(&self) -> usize {
        self.huge_class_size
    }

    /// The class `zs_malloc(len)` allocates from; `None` for 0 or more than a page (refused).
    pub(crate) fn class_for(&self, len: usize) -> Option<Class> {
        if len == 0 || len > self.page_size {
            return None;
        }
        let size = len + HANDLE;
        let index = if size > self.min_alloc {
            (size - self.min_alloc).div_ceil(self.delta)
        } else {
            0
        };
        self.classes.get(index.min(self.classes.len() - 1)).copied()
    }

    /// Pool bytes an object of `len` bytes costs (a full page for a whole page).
    #[cfg(test)]
    pub(crate) fn cost(&self, len: usize) -> f64 {
        self.class_for(len.min(self.page_size))
            .map_or(0.0, |c| c.cost(self.page_size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Worked by hand from mm/zsmalloc.c for 4 KiB pages and CONFIG_ZSMALLOC_CHAIN_SIZE=8.

    #[test]
    fn classes_on_4k_pages() {
        let z = Zsmalloc::new(4096, Chain::Config(8));
        // 255 classes, 32 to 4096 bytes by 16.
        assert_eq!(z.classes.len(), 255);
        // 24 bytes + the 8-byte handle = 32: the first class, a power of two: 1 page, 128 objects.
        let c = z.class_for(24).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (32, 1, 128)
        );
        assert_eq!(z.cost(24), 32.0);
        // 25 + 8 = 33 → index ⌈1/16⌉ = 1: size 48. Waste of 1, 2, 3 pages: 16, 32, 0 → 3 pages,
        // 12288 / 48 = 256 objects: 48 bytes each.
        let c = z.class_for(25).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (48, 3, 256)
        );
        // 1000 + 8 = 1008: index 61. Waste of 1..8 pages: 64, 128, …, 512 → 1 page, 4 objects;
        // the class above, 1024, is a power of two with 1 page and 4 objects too, so 1008 is
        // merged into it: 1024 bytes.
        let c = z.class_for(1000).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (1024, 1, 4)
        );
        assert_eq!(z.cost(1000), 1024.0);
        // 970 + 8 = 978 → index ⌈946/16⌉ = 60: size 992. 8 pages waste 32768 − 33 × 992 = 32,
        // the least → 8 pages, 33 objects: 32768 / 33 bytes each.
        let c = z.class_for(970).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (992, 8, 33)
        );
        assert!((z.cost(970) - 32768.0 / 33.0).abs() < 1e-9);
        // A whole page (+8) is capped at the last class: one page.
        assert_eq!(z.cost(4096), 4096.0);
        assert!(z.class_for(0).is_none() && z.class_for(4097).is_none());
    }

    #[test]
    fn huge_class_size_on_4k_pages() {
        // From the top: 4096 … 3648 all take 1 page for 1 object (3648: waste 448 with 1 page,
        // more with 2..8). 3632: 8 pages waste 32768 − 9 × 3632 = 80, the least: 8 pages, 9
        // objects, the first class of more than one of each. huge_class_size = 3632 − 7.
        let z = Zsmalloc::new(4096, Chain::Config(8));
        assert_eq!(z.huge_class_size(), 3625);
        // 3630 + 8 → index ⌈3606/16⌉ = 226: 3648, one page for one object, like every class
        // above it, so all of them are merged into the last: 4096.
        let c = z.class_for(3630).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (4096, 1, 1)
        );
        let c = z.class_for(3624).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (3632, 8, 9)
        );
    }

    #[test]
    fn other_page_sizes_and_chains() {
        // 16 KiB pages: steps of 64 bytes from 32.
        let z = Zsmalloc::new(16384, Chain::Config(8));
        assert_eq!(z.classes.len(), (16384 - 32usize).div_ceil(64) + 1);
        assert_eq!(z.cost(16384), 16384.0);
        // The old chain of 4: 1008 waste over 1..4 pages is 64, 128, 192, 256: still 1 page.
        let z4 = Zsmalloc::new(4096, Chain::Config(4));
        assert_eq!(z4.class_for(1000).unwrap().size, 1024);
        // Costs never fall below the object itself.
        let z = Zsmalloc::new(4096, Chain::Config(8));
        for len in 1..=4096 {
            assert!(z.cost(len) >= (len + HANDLE).min(4096) as f64, "{len}");
        }
    }

    #[test]
    fn before_6_3_at_most_4_pages_by_whole_percent() {
        // Worked by hand from 6.1's get_pages_per_zspage (and checked against a separate
        // script): 970 + 8 → class 992: 1..4 pages use 96.875 % each, 96 in whole percent: a
        // tie, 1 page and 4 objects, like 1008 (98 % each) and 1024 above it: merged into 1024.
        let z = Zsmalloc::new(4096, Chain::Before6_3);
        assert_eq!(z.cost(970), 1024.0);
        // 6.3+ with a chain of 8 gives 992 its own class of 8 pages and 33 objects.
        assert!((Zsmalloc::new(4096, Chain::Config(8)).cost(970) - 32768.0 / 33.0).abs() < 1e-9);
        // 25 + 8 → 48: 3 pages waste nothing (100 %): 256 objects.
        let c = z.class_for(25).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (48, 3, 256)
        );
        // From the top, 3264 is the first class with more than one page (4: 16384 % 3264 =
        // 64, 99 %) and more than one object (5): zram's huge class from 3257 on 6.1.
        assert_eq!(z.huge_class_size(), 3257);
        let c = z.class_for(3256).unwrap();
        assert_eq!(
            (c.size, c.pages_per_zspage, c.objs_per_zspage),
            (3264, 4, 5)
        );
        assert_eq!(z.cost(3400), 4096.0);
    }
}
