//! The compressors, run in-process with the parameters the kernel gives them.
//!
//! | algorithm | here | the kernel's parameters |
//! |---|---|---|
//! | lzo, lzo-rle | [`super::lzo`] | LZO1X-1, version 0 / 1 (`crypto/lzo.c`, `crypto/lzo-rle.c`, zram `backend_lzo.c`, `backend_lzorle.c`) |
//! | lz4 | lz4_flex block format | `LZ4_compress_fast`, acceleration 1 (`crypto/lz4.c`; zram `backend_lz4.c` with no level set) |
//! | deflate | zlib-rs (flate2) | raw deflate, level 6 (`Z_DEFAULT_COMPRESSION`), window 2^11 (`DEFLATE_DEF_WINBITS 11`), memLevel 8 (`crypto/deflate.c`; zram `backend_deflate.c`: "Use the same value as crypto API") |
//! | zstd | libzstd (zstd crate) | level 3 (`ZSTD_DEF_LEVEL 3` in `crypto/zstd.c`; zram `backend_zstd.c` defaults to zstd's default level, 3) |
//!
//! lz4hc and 842 have no estimate: no permissively licensed pure-Rust lz4hc exists (the `lz4`
//! crate builds the C library), and no permissive 842 implementation at all.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};

use super::lzo::Lzo;

/// Why an algorithm has no estimate, when it has none.
pub fn not_estimated(name: &str) -> Option<&'static str> {
    match name {
        "lzo" | "lzo-rle" | "lz4" | "deflate" | "zstd" => None,
        "lz4hc" => Some(
            "no permissively licensed pure-Rust lz4hc to run (lz4_flex has only the fast \
             compressor)",
        ),
        "842" => Some("no permissively licensed 842 implementation to run"),
        _ => Some("an algorithm zswaptop has no implementation of"),
    }
}

enum Engine {
    Lzo(Lzo),
    Lz4,
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

impl Codec {
    /// The algorithm named, or `None` when it has no implementation here.
    pub fn new(name: &str) -> Option<Codec> {
        let (name, engine) = match name {
            "lzo" => ("lzo", Engine::Lzo(Lzo::new(false))),
            "lzo-rle" => ("lzo-rle", Engine::Lzo(Lzo::new(true))),
            "lz4" => ("lz4", Engine::Lz4),
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
    /// estimates are held to).
    pub fn stride(&self) -> usize {
        match self.engine {
            Engine::Deflate(..) => 2,
            _ => 1,
        }
    }

    /// Compress `src` into `out` (its contents replaced); the compressed length. `None` when the
    /// compressor failed (taken as a page that does not compress).
    pub fn compress(&mut self, src: &[u8], out: &mut Vec<u8>) -> Option<usize> {
        out.clear();
        let room = 2 * src.len() + 1024;
        match &mut self.engine {
            Engine::Lzo(l) => l.compress(src, out),
            Engine::Lz4 => {
                out.resize(lz4_flex::block::get_maximum_output_size(src.len()), 0);
                let n = lz4_flex::block::compress_into(src, out).ok()?;
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
    pub fn decompress(&mut self, src: &[u8], out: &mut Vec<u8>, len: usize) -> bool {
        out.clear();
        match &mut self.engine {
            Engine::Lzo(_) => super::lzo::decompress(src, out, len).is_ok(),
            Engine::Lz4 => {
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
        for name in ["lzo", "lzo-rle", "lz4", "deflate", "zstd"] {
            let mut c = Codec::new(name).unwrap();
            let (mut z, mut back) = (Vec::new(), Vec::new());
            let n = c.compress(&text, &mut z).unwrap();
            assert!(n < 400, "{name}: {n}");
            assert!(c.decompress(&z, &mut back, 4096), "{name}");
            assert_eq!(back, text, "{name}");
            assert!(not_estimated(name).is_none());
        }
        assert!(Codec::new("842").is_none() && not_estimated("842").is_some());
        assert!(Codec::new("lz4hc").is_none() && not_estimated("lz4hc").is_some());
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
}
