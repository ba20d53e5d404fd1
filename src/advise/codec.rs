//! The compressors, run in-process with the parameters the kernel gives them.
//!
//! | algorithm | here | the kernel's parameters |
//! |---|---|---|
//! | lzo, lzo-rle | [`super::lzo`] | LZO1X-1, version 0 / 1 (`crypto/lzo.c`, `crypto/lzo-rle.c`, zram `backend_lzo.c`, `backend_lzorle.c`) |
//! | lz4 | lz4_flex block format | `LZ4_compress_fast`, acceleration 1 (`crypto/lz4.c`; zram `backend_lz4.c` with no level set) |
//! | lz4hc | liblz4 (the `lz4` crate) | `LZ4_compress_HC`, level 9 (`LZ4HC_DEFAULT_CLEVEL`), one page a block, no frame (`crypto/lz4hc.c`; zram `backend_lz4hc.c` with no level set) |
//! | deflate | stock zlib (flate2 over libz-sys, built from its bundled source) | raw deflate, level 6 (`Z_DEFAULT_COMPRESSION`), window 2^11 (`DEFLATE_DEF_WINBITS 11`), memLevel 8 (`MAX_MEM_LEVEL`; `crypto/deflate.c`; zram `backend_deflate.c`: "Use the same value as crypto API") |
//! | zstd | libzstd (zstd crate) | level 3 (`ZSTD_DEF_LEVEL 3` in `crypto/zstd.c`; zram `backend_zstd.c` defaults to zstd's default level, 3) |
//!
//! deflate is stock zlib, not zlib-rs: the kernel's `lib/zlib_deflate` is zlib's `deflate_slow` at
//! level 6, and stock zlib writes the same bytes (the workload of `tests/kernels` paged through
//! the 6.1 kernel's `lib/zlib_deflate`, built in user space: the same length on all 4096
//! pages), while zlib-rs runs zlib-ng's `deflate_medium` at level 6, whose lengths differ by a few
//! bytes a page, enough to move objects between z3fold's and zsmalloc's slots (the 6.1 guest's
//! z3fold pool was predicted 5 % small).
//!
//! lz4hc is liblz4 1.10's `LZ4_compress_HC`; the kernel's `lib/lz4/lz4hc_compress.c` is an older
//! liblz4 (1.7-era). On the same 4096 pages the kernel wrote 7 245 071 bytes and liblz4 1.10
//! 7 240 486 (−0.06 %): 62 % of the pages the same length, the rest 1–7 bytes shorter.
//!
//! 842 has no estimate: no permissive 842 implementation.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};

use super::lzo::Lzo;

/// Why an algorithm has no estimate, when it has none.
pub(crate) fn not_estimated(name: &str) -> Option<&'static str> {
    match name {
        "lzo" | "lzo-rle" | "lz4" | "lz4hc" | "deflate" | "zstd" => None,
        "842" => Some("no permissively licensed 842 implementation to run"),
        _ => Some("an algorithm zswaptop has no implementation of"),
    }
}

enum Engine {
    Lzo(Lzo),
    Lz4,
    Lz4hc,
    Deflate(Box<Compress>, Box<Decompress>),
    Zstd(
        Box<zstd::bulk::Compressor<'static>>,
        Box<zstd::bulk::Decompressor<'static>>,
    ),
}

/// One algorithm, ready to compress pages one after another.
pub struct Codec {
    pub name: &'static str,
    engine: Engine,
}

/// The window of the kernel's raw deflate.
const DEFLATE_WINBITS: u8 = 11;
const DEFLATE_LEVEL: u32 = 6;
const ZSTD_LEVEL: i32 = 3;
/// `LZ4HC_DEFAULT_CLEVEL`, the level of the kernel's `crypto/lz4hc.c` (and of zram's lz4hc backend
/// when no level is set).
const LZ4HC_LEVEL: i32 = 9;

impl Codec {
    /// The algorithm named, or `None` when it has no implementation here.
    pub(crate) fn new(name: &str) -> Option<Codec> {
        let (name, engine) = match name {
            "lzo" => ("lzo", Engine::Lzo(Lzo::new(false))),
            "lzo-rle" => ("lzo-rle", Engine::Lzo(Lzo::new(true))),
            "lz4" => ("lz4", Engine::Lz4),
            "lz4hc" => ("lz4hc", Engine::Lz4hc),
            "deflate" => (
                "deflate",
                Engine::Deflate(
                    Box::new(Compress::new_with_window_bits(
                        Compression::new(DEFLATE_LEVEL),
                        false,
                        DEFLATE_WINBITS,
                    )),
                    Box::new(Decompress::new_with_window_bits(false, DEFLATE_WINBITS)),
                ),
            ),
            "zstd" => (
                "zstd",
                Engine::Zstd(
                    Box::new(zstd::bulk::Compressor::new(ZSTD_LEVEL).ok()?),
                    Box::new(zstd::bulk::Decompressor::new().ok()?),
                ),
            ),
            _ => return None,
        };
        Some(Codec { name, engine })
    }

    /// Compress one page in this many of the sample. deflate compresses at ~40 MiB/s (measured
    /// on this project's VM, thread CPU time): on every page of the default 64 MiB sample it
    /// took 1.6 s of the 2 s budget alone, so it estimates from one page in two (8192 pages
    /// of the default sample: the ratio's sampling error stays far below the ±10 % the
    /// estimates are held to). lz4hc at level 9 too: the kernel matrix's 4096 pages took it
    /// 217 ms (wall time, C at -O3, on this project's loaded VM), against 76 ms for lz4 and
    /// 444 ms for deflate, ~0.9 s on every page of the default sample. Where zswap runs zbud or
    /// z3fold every page is compressed all the same (`Measured::all`).
    pub(crate) fn stride(&self) -> usize {
        match self.engine {
            Engine::Deflate(..) | Engine::Lz4hc => 2,
            _ => 1,
        }
    }

    /// Compress `src` into `out` (its contents replaced); the compressed length. `None` when the
    /// compressor failed (taken as a page that does not compress).
    pub(crate) fn compress(&mut self, src: &[u8], out: &mut Vec<u8>) -> Option<usize> {
        out.clear();
        let room = 2 * src.len() + 1024;
        match &mut self.engine {
            Engine::Lzo(l) => l.compress(src, out),
            Engine::Lz4 => {
                out.resize(lz4_flex::block::get_maximum_output_size(src.len()), 0);
                let n = lz4_flex::block::compress_into(src, out).ok()?;
                out.truncate(n);
            }
            Engine::Lz4hc => {
                // The bare block, as the kernel's: no size prepended, no frame.
                out.resize(lz4::block::compress_bound(src.len()).ok()?, 0);
                let mode = Some(lz4::block::CompressionMode::HIGHCOMPRESSION(LZ4HC_LEVEL));
                let n = lz4::block::compress_to_buffer(src, mode, false, out).ok()?;
                out.truncate(n);
            }
            Engine::Deflate(c, _) => {
                c.reset();
                out.reserve(room);
                match c.compress_vec(src, out, FlushCompress::Finish) {
                    Ok(flate2::Status::StreamEnd) => {}
                    _ => return None,
                }
            }
            Engine::Zstd(c, _) => {
                out.reserve(room);
                c.compress_to_buffer(src, out).ok()?;
            }
        }
        Some(out.len())
    }

    /// Decompress `src` (this codec's output) into `out`, expecting `len` bytes.
    pub(crate) fn decompress(&mut self, src: &[u8], out: &mut Vec<u8>, len: usize) -> bool {
        out.clear();
        match &mut self.engine {
            Engine::Lzo(_) => super::lzo::decompress(src, out, len).is_ok(),
            Engine::Lz4 | Engine::Lz4hc => {
                out.resize(len, 0);
                lz4_flex::block::decompress_into(src, out).is_ok_and(|n| n == len)
            }
            Engine::Deflate(_, d) => {
                d.reset(false);
                out.reserve(len);
                matches!(
                    d.decompress_vec(src, out, FlushDecompress::Finish),
                    Ok(flate2::Status::StreamEnd)
                ) && out.len() == len
            }
            Engine::Zstd(_, d) => {
                out.reserve(len);
                d.decompress_to_buffer(src, out).is_ok_and(|n| n == len)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_round_trips_a_page() {
        let text: Vec<u8> = b"zswap compresses pages on their way to swap. "
            .iter()
            .copied()
            .cycle()
            .take(4096)
            .collect();
        for name in ["lzo", "lzo-rle", "lz4", "lz4hc", "deflate", "zstd"] {
            let mut c = Codec::new(name).unwrap();
            let (mut z, mut back) = (Vec::new(), Vec::new());
            let n = c.compress(&text, &mut z).unwrap();
            assert!(n < 400, "{name}: {n}");
            assert!(c.decompress(&z, &mut back, 4096), "{name}");
            assert_eq!(back, text, "{name}");
            assert!(not_estimated(name).is_none());
        }
        assert!(Codec::new("842").is_none() && not_estimated("842").is_some());
    }

    /// The raw deflate stream has no zlib header and its window is 2^11: a match 3 KiB back
    /// (farther than the window) is not found, so a page made of one 3 KiB random block repeated
    /// does not shrink below the block.
    #[test]
    fn deflate_window_is_the_kernels() {
        let mut x: u32 = 1;
        let block: Vec<u8> = (0..3072)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        let mut page = block.clone();
        page.extend_from_slice(&block[..1024]);
        let mut c = Codec::new("deflate").unwrap();
        let mut z = Vec::new();
        let n = c.compress(&page, &mut z).unwrap();
        assert!(n > 3072, "{n}: a 2 KiB window cannot reach 3 KiB back");
        // zstd, with its larger window, does.
        let mut zs = Codec::new("zstd").unwrap();
        assert!(zs.compress(&page, &mut z).unwrap() < 3200);
    }

    /// Two pages every compressor here must size as the kernel does: text from a few words and
    /// 128 records of 32 bytes (ids, small numbers, pointers into one region), drawn from a
    /// 64-bit LCG (the high 31 bits of each step).
    fn kernel_pages() -> [Vec<u8>; 2] {
        let lcg = |x: &mut u64| {
            *x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            *x >> 33
        };
        let words = [
            "zswap",
            "stores",
            "compressed",
            "pages",
            "in",
            "a",
            "pool",
            "of",
        ];
        let (mut x, mut text) = (1u64, Vec::with_capacity(4096));
        while text.len() < 4096 {
            let w = words[(lcg(&mut x) % 8) as usize];
            text.extend(w.bytes().chain([b' ']));
        }
        text.truncate(4096);
        let (mut x, mut records) = (7u64, Vec::with_capacity(4096));
        for k in 0..128u32 {
            records.extend(k.to_le_bytes());
            records.extend(((lcg(&mut x) % 7) as u16).to_le_bytes());
            records.extend(((k % 3) as u16).to_le_bytes());
            records.extend((0x7f3a_1000_0000 + (lcg(&mut x) % 4096) * 64).to_le_bytes());
            records.extend((lcg(&mut x) % 100_000).to_le_bytes());
            records.extend((u64::from(k) * 1000).to_le_bytes());
        }
        [text, records]
    }

    /// The kernel's deflate is zlib's own `deflate_slow` at level 6 over a 2^11 window: the 6.1
    /// kernel's `lib/zlib_deflate`, built in user space and called as `crypto/deflate.c` calls
    /// it, wrote 656 and 1692 bytes for these pages. zlib-rs (zlib-ng's `deflate_medium` at
    /// level 6) wrote other lengths.
    #[test]
    fn deflate_writes_the_kernels_lengths() {
        let [text, records] = kernel_pages();
        let mut c = Codec::new("deflate").unwrap();
        let mut z = Vec::new();
        assert_eq!(c.compress(&text, &mut z), Some(656));
        assert_eq!(c.compress(&records, &mut z), Some(1692));
    }

    /// lz4hc is `LZ4_compress_HC` at level 9 into a bare block, as the kernel's: the 6.1
    /// kernel's `lib/lz4` wrote 995 and 2300 bytes for these pages (its lz4, 1559 and 2698).
    /// liblz4 1.10 writes the text's length exactly and the records' within a few bytes (its
    /// match search is newer than the kernel's copy).
    #[test]
    fn lz4hc_is_the_kernels_level_and_block() {
        let [text, records] = kernel_pages();
        let (mut hc, mut fast) = (Codec::new("lz4hc").unwrap(), Codec::new("lz4").unwrap());
        let (mut z, mut back) = (Vec::new(), Vec::new());
        assert_eq!(hc.compress(&text, &mut z), Some(995));
        assert_eq!(fast.compress(&text, &mut back), Some(1559));
        let n = hc.compress(&records, &mut z).unwrap();
        assert!((2292..=2300).contains(&n), "{n}");
        assert!(n < fast.compress(&records, &mut back).unwrap());
        // A bare block: lz4's block decoder reads it back.
        assert!(hc.decompress(&z, &mut back, 4096));
        assert_eq!(back, records);
        // Random bytes do not compress: the block is a little longer than the page.
        let mut x = 3u64;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let n = hc.compress(&random, &mut z).unwrap();
        assert!((4096..4096 + 4096 / 255 + 16).contains(&n), "{n}");
    }
}
