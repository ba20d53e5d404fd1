//! What `zswaptop advise`'s default sample costs in compression: 64 MiB of pages (16384 of
//! 4 KiB) compressed with every algorithm this project's test kernel offers and zswaptop
//! estimates — lzo, lzo-rle, deflate (zswap), lz4 (zram) and zstd (not loaded, estimated all the
//! same) — as `advise` runs them (batches, one page in four also decompressed). The budget is
//! 2 s of CPU for the whole sample on the project's 2-core VM; `/usr/bin/time zswaptop advise`
//! gives the real run (pages read from /proc/PID/mem included).
//!
//! `cargo bench --bench advise`. The pages are a mix like a machine's memory: text, structured
//! records, zero-filled, same-filled and random pages.

use zswaptop::advise::compress_pages;

const PAGE: usize = 4096;
const PAGES: usize = 16384;
const ALGORITHMS: &[&str] = &["lzo", "lzo-rle", "deflate", "lz4", "zstd"];

fn main() {
    divan::main();
}

/// xorshift64, enough for contents the compressors cannot predict.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn sample() -> Vec<u8> {
    const WORDS: &[&str] = &[
        "page",
        "memory",
        "the",
        "swap",
        "of",
        "compressed",
        "kernel",
        "a",
        "pool",
        "process",
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut v = vec![0u8; PAGES * PAGE];
    for (i, page) in v.chunks_mut(PAGE).enumerate() {
        match i % 10 {
            0 => {}
            1 => page.fill(0x5a),
            2 => page.iter_mut().for_each(|b| *b = next(&mut x) as u8),
            3..=6 => {
                let mut at = 0;
                while at < PAGE {
                    let w = WORDS[(next(&mut x) % WORDS.len() as u64) as usize];
                    for &b in w.as_bytes().iter().chain(b" ") {
                        if at < PAGE {
                            page[at] = b;
                            at += 1;
                        }
                    }
                }
            }
            _ => {
                for (k, r) in page.chunks_mut(16).enumerate() {
                    r[..4].copy_from_slice(&((i * 256 + k) as u32).to_le_bytes());
                    r[4..8].copy_from_slice(&((next(&mut x) % 9) as u32).to_le_bytes());
                    r[8..].copy_from_slice(
                        &(0x7f00_0000_0000 + (next(&mut x) % 512) * 64).to_le_bytes(),
                    );
                }
            }
        }
    }
    v
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn default_sample_every_candidate(b: divan::Bencher) {
    let pages = sample();
    b.bench(|| compress_pages(divan::black_box(ALGORITHMS), &pages, PAGE));
}

#[divan::bench(sample_count = 3, sample_size = 1, args = ["lzo", "lzo-rle", "deflate", "lz4", "zstd"])]
fn default_sample_one_algorithm(b: divan::Bencher, name: &str) {
    let pages = sample();
    b.bench(|| compress_pages(divan::black_box(&[name]), &pages, PAGE));
}
