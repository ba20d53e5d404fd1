//! z3fold, offered to zswap by Debian 12's 6.1 (a module; 6.12 deprecates it): at most three
//! compressed objects per page. The arithmetic of `mm/z3fold.c`, the same in 6.1 and 6.12
//! (6.12 only lacks its LRU and eviction, which zswap took over):
//!
//! - A page is 64 chunks (`NCHUNKS_ORDER 6`, `CHUNK_SIZE = PAGE_SIZE >> 6`). The header is
//!   `struct z3fold_header` rounded up to a chunk (`ZHDR_SIZE_ALIGNED`): 88 bytes on a 64-bit
//!   kernel without lock debugging (a list head 16, a spinlock 4, a kref 4, a work_struct 32,
//!   two pointers 16, five shorts 10 and a 2-byte bit field, padded to 8), so 2 chunks on 4 KiB
//!   pages (`ZHDR_CHUNKS`) and `NCHUNKS = 62` left for the objects.
//! - `z3fold_alloc(size)` refuses (`-ENOSPC`) a size over `PAGE_SIZE`; one over `PAGE_SIZE -
//!   ZHDR_SIZE_ALIGNED - CHUNK_SIZE` (3904 bytes) takes a page of its own ("headless").
//! - Otherwise it takes `⌈size / CHUNK_SIZE⌉` chunks: `__z3fold_alloc` takes the first page
//!   of the first non-empty unbuddied list from `chunks` up (lists by free chunks, the page
//!   added last first), and `get_free_buddy` places the object: the first buddy in an empty
//!   page, the last in a page with only the first, the middle (right after the first) in a
//!   page with both. A page holding fewer than three goes back on the list of its free chunks
//!   (`num_free_chunks`: `NCHUNKS - first - last` while there is no middle). With no page, a
//!   new one takes the object as its first.
//! - `z3fold_zpool_total_size` (zswap's `pool_total_size`) is the pages in use, headless
//!   included, × `PAGE_SIZE`.
//!
//! Pages that are only filled are simulated exactly: objects are never moved while none is
//! freed (compaction is queued by `z3fold_free` only), so a page on the list of `f` free chunks
//! is one of two kinds, one object or two (first and last), and each list is a stack of kinds
//! (the page added last is taken first). One CPU's lists are modelled: the kernel keeps a set
//! per CPU and looks on another CPU's only for an exact fit, so reclaim spread over many CPUs
//! packs a little worse. Frees (pages swapped back in) leave holes this does not follow.

/// `NCHUNKS_ORDER`: a page is `1 << 6` chunks.
const CHUNKS_PER_PAGE: usize = 64;
/// `sizeof(struct z3fold_header)` on a 64-bit kernel without lock debugging.
const HEADER_BYTES: usize = 88;

/// A z3fold pool being filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Z3fold {
    page_size: usize,
    chunk: usize,
    /// `NCHUNKS`.
    nchunks: usize,
    /// By free chunks: a stack of the pages on that list, true for a page holding two objects
    /// (first and last), false for one (the first).
    unbuddied: Vec<Vec<bool>>,
    pages: u64,
}

impl Z3fold {
    /// An empty pool for `page_size` (a power of two of 4 KiB or more).
    pub(crate) fn new(page_size: usize) -> Z3fold {
        let chunk = page_size / CHUNKS_PER_PAGE;
        let nchunks = CHUNKS_PER_PAGE - HEADER_BYTES.div_ceil(chunk);
        Z3fold {
            page_size,
            chunk,
            nchunks,
            unbuddied: vec![Vec::new(); nchunks],
            pages: 0,
        }
    }

    /// `PAGE_SIZE - ZHDR_SIZE_ALIGNED - CHUNK_SIZE`: larger objects take a page each.
    pub(crate) fn max_shared(&self) -> usize {
        (self.nchunks - 1) * self.chunk
    }

    /// `z3fold_alloc(size)`: false when refused (0, or over a page).
    pub(crate) fn alloc(&mut self, size: usize) -> bool {
        if size == 0 || size > self.page_size {
            return false;
        }
        if size > self.max_shared() {
            self.pages += 1;
            return true;
        }
        let chunks = size.div_ceil(self.chunk);
        let found = (chunks..self.nchunks).find_map(|free| {
            let two = self.unbuddied[free].pop()?;
            Some((free, two))
        });
        match found {
            // The middle buddy: three objects, the page is full (on no list).
            Some((_, true)) => {}
            // The last buddy: back on the list of what is left between the two.
            Some((free, false)) => self.unbuddied[free - chunks].push(true),
            None => {
                self.pages += 1;
                self.unbuddied[self.nchunks - chunks].push(false);
            }
        }
        true
    }

    /// The pool's pages, headless ones too (`pages_nr`).
    pub(crate) fn pages(&self) -> u64 {
        self.pages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_limits_on_4k_pages() {
        let z = Z3fold::new(4096);
        // 88 bytes → 2 chunks of 64: 62 left; 4096 − 128 − 64 = 3904 shared at most.
        assert_eq!(z.nchunks, 62);
        assert_eq!(z.max_shared(), 3904);
        let mut z = z;
        assert!(!z.alloc(4097) && !z.alloc(0));
        // A whole page and 3905 bytes: a headless page each, never shared.
        assert!(z.alloc(4096) && z.alloc(3905));
        assert_eq!(z.pages(), 2);
        assert!(z.alloc(10));
        assert_eq!(z.pages(), 3);
        // 64 KiB pages: the header fits one chunk of 1 KiB.
        assert_eq!(Z3fold::new(65536).nchunks, 63);
    }

    #[test]
    fn three_per_page_at_most() {
        // 100-byte objects (2 chunks): 31 would fit 62 chunks, z3fold puts 3.
        let mut z = Z3fold::new(4096);
        assert!((0..999).all(|_| z.alloc(100)));
        assert_eq!(z.pages(), 333);
    }

    #[test]
    fn placement_worked_by_hand() {
        // 1300 bytes → 21 chunks: page A, first, 41 free. 1300 again: list 41 holds A (the
        // first list from 21 up with a page): last, 20 free. 1300: lists 21… are empty (A is
        // on 20): page B, 41 free. 1200 → 19 chunks: list 20 (A, two objects) comes first:
        // A's middle, A is full. 2500 → 40 chunks: list 41 (B): B's last, 1 free. 64 → 1
        // chunk: list 1 (B): B's middle. 3 objects a page, 2 pages for 6 objects.
        let mut z = Z3fold::new(4096);
        let pages: Vec<u64> = [1300, 1300, 1300, 1200, 2500, 64]
            .into_iter()
            .map(|size| {
                assert!(z.alloc(size));
                z.pages()
            })
            .collect();
        assert_eq!(pages, [1, 1, 2, 2, 2, 2]);
        assert!(z.unbuddied.iter().all(Vec::is_empty));
        // The fullest page the object fits in is taken, whichever kind it is.
        let mut z = Z3fold::new(4096);
        z.alloc(1300);
        z.alloc(3000); // 47 chunks: no list from 47 up: a new page, 15 free
        z.alloc(1300); // 21: list 41 (the first page): its last, 20 free
        assert_eq!(z.unbuddied[20], [true]);
        assert_eq!(z.unbuddied[15], [false]);
        z.alloc(900); // 15 chunks: list 15 comes before 20: the second page's last, 0 free
        assert_eq!(z.unbuddied[0], [true]);
        assert_eq!(z.pages(), 2);
    }

    /// `mm/z3fold.c` followed line by line, without the shortcut the model takes: each page
    /// with its first, middle and last chunks and where the middle starts; the unbuddied lists
    /// of page numbers (`list_add` puts a page first, `list_first_entry` takes it).
    struct Literal {
        pages: Vec<[usize; 4]>, // first, middle, last, start_middle
        unbuddied: Vec<Vec<usize>>,
        headless: u64,
        nchunks: usize,
        header_chunks: usize,
        chunk: usize,
    }

    impl Literal {
        fn new() -> Literal {
            Literal {
                pages: Vec::new(),
                unbuddied: vec![Vec::new(); 62],
                headless: 0,
                nchunks: 62,
                header_chunks: 2,
                chunk: 64,
            }
        }

        fn num_free_chunks(&self, p: usize) -> usize {
            let [first, middle, last, start] = self.pages[p];
            if middle != 0 {
                let before = if first != 0 {
                    0
                } else {
                    start - self.header_chunks
                };
                let after = if last != 0 { 0 } else { 64 - (start + middle) };
                before.max(after)
            } else {
                self.nchunks - first - last
            }
        }

        fn alloc(&mut self, size: usize) -> bool {
            if size == 0 || size > 4096 {
                return false;
            }
            if size > 4096 - self.header_chunks * self.chunk - self.chunk {
                self.headless += 1;
                return true;
            }
            let chunks = size.div_ceil(self.chunk);
            let found = (chunks..self.nchunks).find_map(|i| self.unbuddied[i].pop());
            let p = found.unwrap_or_else(|| {
                self.pages.push([0; 4]);
                self.pages.len() - 1
            });
            let [first, middle, last, start] = self.pages[p];
            // get_free_buddy
            let slot = if middle != 0 {
                if first == 0 && chunks <= start - self.header_chunks {
                    0
                } else {
                    assert_eq!(last, 0);
                    2
                }
            } else if first == 0 {
                0
            } else if last == 0 {
                2
            } else {
                1
            };
            self.pages[p][slot] = chunks;
            if slot == 1 {
                self.pages[p][3] = first + self.header_chunks;
            }
            let [first, middle, last, _] = self.pages[p];
            if first == 0 || middle == 0 || last == 0 {
                let free = self.num_free_chunks(p);
                self.unbuddied[free].push(p);
            }
            true
        }
    }

    proptest::proptest! {
        /// The model's count of pages is the kernel's, placement by placement.
        #[test]
        fn as_the_kernel_places_them(sizes in proptest::collection::vec(1usize..4200, 1..600)) {
            let mut model = Z3fold::new(4096);
            let mut literal = Literal::new();
            for &size in &sizes {
                proptest::prop_assert_eq!(model.alloc(size), literal.alloc(size));
                proptest::prop_assert_eq!(
                    model.pages(),
                    literal.pages.len() as u64 + literal.headless
                );
            }
        }
    }
}
