//! zbud, zswap's default allocator on Debian 12's 6.1 (6.12 still offers it): at most two
//! compressed objects ("buddies") per page. The arithmetic of `mm/zbud.c`, the same in 6.1 and
//! 6.12 (6.12 only lacks its LRU and eviction, which zswap took over):
//!
//! - A page is 64 chunks (`NCHUNKS_ORDER 6`: `CHUNK_SIZE = PAGE_SIZE >> 6`, 64 bytes on 4 KiB
//!   pages); the header takes the first (`ZHDR_SIZE_ALIGNED = CHUNK_SIZE`), leaving
//!   `NCHUNKS = 63` for the two buddies.
//! - `zbud_alloc(size)` refuses (`-ENOSPC`) a size over `PAGE_SIZE - ZHDR_SIZE_ALIGNED -
//!   CHUNK_SIZE` (3968 bytes): zswap counts it in `reject_compress_poor` and the page goes to the
//!   swap device.
//! - An object takes `⌈size / CHUNK_SIZE⌉` chunks. A page holding one buddy sits on the
//!   unbuddied list of its free chunks (`NCHUNKS - first - last`). An allocation of `c` chunks
//!   takes the first page of the first non-empty list from `c` up (`for_each_unbuddied_list(i,
//!   chunks)`: the fullest page it fits in) and becomes its second buddy; with none, it takes a
//!   new page as its first.
//! - `zbud_zpool_total_size` (zswap's `pool_total_size`, meminfo's `Zswap`) is the pages in use
//!   × `PAGE_SIZE`.
//!
//! Pages that are only filled (as a pool is while reclaim pushes pages out) are simulated
//! exactly: every page on one unbuddied list is alike (one buddy, that many chunks free), so the
//! state is a count per list, and the pool after a sequence of allocations is its page count.
//! Frees (pages swapped back in) leave holes this does not follow.

/// `NCHUNKS_ORDER`: a page is `1 << 6` chunks.
const CHUNKS_PER_PAGE: usize = 64;
/// The header's chunk.
const HEADER_CHUNKS: usize = 1;
/// `NCHUNKS`: chunks left for the buddies.
const NCHUNKS: usize = CHUNKS_PER_PAGE - HEADER_CHUNKS;

/// A zbud pool being filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zbud {
    chunk: usize,
    /// By free chunks: the pages holding one buddy with that many chunks free.
    unbuddied: [u64; NCHUNKS],
    pages: u64,
}

impl Zbud {
    /// An empty pool for `page_size` (a power of two of 4 KiB or more).
    pub(crate) fn new(page_size: usize) -> Zbud {
        Zbud {
            chunk: page_size / CHUNKS_PER_PAGE,
            unbuddied: [0; NCHUNKS],
            pages: 0,
        }
    }

    /// The pool's pages (`pages_nr`).
    pub(crate) fn pages(&self) -> u64 {
        self.pages
    }

    /// The largest object `zbud_alloc` takes: `PAGE_SIZE - ZHDR_SIZE_ALIGNED - CHUNK_SIZE`.
    pub(crate) fn max_size(&self) -> usize {
        (NCHUNKS - 1) * self.chunk
    }

    /// `zbud_alloc(size)`: false when refused (0, or over [`Zbud::max_size`]).
    pub(crate) fn alloc(&mut self, size: usize) -> bool {
        if size == 0 || size > self.max_size() {
            return false;
        }
        let chunks = size.div_ceil(self.chunk);
        if let Some(free) = (chunks..NCHUNKS).find(|&i| self.unbuddied[i] > 0) {
            // The page's second buddy: it is full (on the buddied list).
            self.unbuddied[free] -= 1;
        } else {
            self.pages += 1;
            self.unbuddied[NCHUNKS - chunks] += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_object_on_4k_pages() {
        let mut z = Zbud::new(4096);
        // 4096 − 64 (header) − 64 = 3968.
        assert_eq!(z.max_size(), 3968);
        assert!(!z.alloc(3969) && !z.alloc(0) && !z.alloc(4096));
        assert_eq!(z.pages(), 0);
        assert!(z.alloc(3968));
        // 62 chunks leave 1 free: nothing but a 1-chunk object (≤ 64 bytes) pairs with it.
        assert!(z.alloc(65));
        assert_eq!(z.pages(), 2);
        assert!(z.alloc(64));
        assert_eq!(z.pages(), 2);
    }

    #[test]
    fn two_per_page_at_most() {
        // Objects of 100 bytes (2 chunks): 31 of them would fit a page's 63 chunks, zbud puts 2.
        let mut z = Zbud::new(4096);
        for _ in 0..1000 {
            assert!(z.alloc(100));
        }
        assert_eq!(z.pages(), 500);
    }

    #[test]
    fn the_fullest_page_that_fits_is_taken() {
        // Worked by hand: 2000 bytes → 32 chunks, page A has 31 free; 1000 → 16 chunks: the
        // first list from 16 up with a page is A's (31): A is full. 3000 → 47 chunks: new page
        // B, 16 free. 1500 → 24 chunks: no list from 24 up has a page: new page C, 39 free.
        // 1000 → 16: list 16 (B) comes before 39 (C): B is full. 600 → 10: C.
        let mut z = Zbud::new(4096);
        for (size, pages) in [
            (2000, 1),
            (1000, 1),
            (3000, 2),
            (1500, 3),
            (1000, 3),
            (600, 3),
        ] {
            assert!(z.alloc(size));
            assert_eq!(z.pages(), pages, "after {size}");
        }
        assert!(z.unbuddied.iter().all(|&n| n == 0));
        // The order decides: big ones first, then small ones pair with them; small ones
        // first pair among themselves and leave every big one alone.
        let mut mixed = Zbud::new(4096);
        let mut grouped = Zbud::new(4096);
        for _ in 0..100 {
            mixed.alloc(3000);
            mixed.alloc(1000);
        }
        for _ in 0..100 {
            grouped.alloc(1000);
        }
        for _ in 0..100 {
            grouped.alloc(3000);
        }
        assert_eq!(mixed.pages(), 100);
        assert_eq!(grouped.pages(), 150);
    }

    #[test]
    fn larger_pages() {
        // 64 KiB pages: chunks of 1 KiB, the largest object 62 KiB.
        let mut z = Zbud::new(65536);
        assert_eq!(z.max_size(), 62 * 1024);
        assert!(z.alloc(1));
        assert!(z.alloc(62 * 1024));
        assert_eq!(z.pages(), 1);
    }

    proptest::proptest! {
        /// The model's count of pages is that of `mm/zbud.c` followed line by line: each page
        /// with its first and last chunks, the unbuddied lists of page numbers (`list_add` puts
        /// a page first, `list_first_entry` takes it).
        #[test]
        fn as_the_kernel_places_them(sizes in proptest::collection::vec(1usize..4100, 1..600)) {
            let mut model = Zbud::new(4096);
            let mut pages: Vec<(usize, usize)> = Vec::new();
            let mut lists: Vec<Vec<usize>> = vec![Vec::new(); 63];
            for &size in &sizes {
                let kernel = size <= 4096 - 64 - 64;
                proptest::prop_assert_eq!(model.alloc(size), kernel);
                if !kernel {
                    continue;
                }
                let chunks = size.div_ceil(64);
                let p = match (chunks..63).find_map(|i| lists[i].pop()) {
                    Some(p) => p,
                    None => {
                        pages.push((0, 0));
                        pages.len() - 1
                    }
                };
                if pages[p].0 == 0 {
                    pages[p].0 = chunks;
                } else {
                    pages[p].1 = chunks;
                }
                if pages[p].0 == 0 || pages[p].1 == 0 {
                    lists[63 - pages[p].0 - pages[p].1].push(p);
                }
                proptest::prop_assert_eq!(model.pages(), pages.len() as u64);
            }
        }
    }
}
