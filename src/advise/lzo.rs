//! LZO1X-1 and its run-length variant (the kernel's `lzo` and `lzo-rle`), compressor and
//! decompressor, for the advisor's estimates.
//!
//! Why this is written here: no permissively licensed crate compresses the way the kernel does.
//! The reference LZO library and the kernel's `lib/lzo` are GPL; `lzokay-native` (MIT) is a port
//! of lzokay, whose compressor searches a dictionary of match chains like LZO1X-999 and so gives
//! smaller outputs than the kernel's one-probe LZO1X-1 (the sizes the estimate must match), and no
//! crate writes the version-1 stream with its zero runs. This module is written from the stream
//! format as the kernel's `Documentation/staging/lzo.rst` describes it (instructions, length and
//! distance encodings, the version byte and the zero-run instruction) and from the published shape
//! of LZO1X-1 (one hash probe of the next four bytes per position, a dictionary of 2^13 entries,
//! literal runs skipped faster the longer they grow, input taken in pieces of at most 48 KiB);
//! not from the kernel's code. Its outputs decompress with [`decompress`] (tests), and the
//! end-to-end test compares the ratios the kernel reaches running these algorithms with the ones
//! estimated from this module.

/// Entries in the match dictionary (2^13).
const D_BITS: u32 = 13;
const D_SIZE: usize = 1 << D_BITS;
/// The longest piece compressed with one dictionary: the farthest a match may reach back
/// (0xbfff; 0xbffe in the run-length stream, whose distance 0xbfff marks a zero run).
const PIECE: usize = 0xc000;
const PIECE_RLE: usize = 0xbfff;
/// The stream's first byte when a version byte follows (and `17 + n` otherwise starts a run of
/// `n` literals).
const VERSION_MARKER: u8 = 17;
const MIN_ZERO_RUN: usize = 4;
const MAX_ZERO_RUN: usize = 2047 + MIN_ZERO_RUN;

/// A compressor's reusable state: its dictionary.
pub struct Lzo {
    dict: Box<[u16; D_SIZE]>,
    rle: bool,
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Writes the length `len - bias` in the variable encoding: a zero opcode field, then as many zero
/// bytes as 255s fit, then the rest (never zero).
fn push_long_len(out: &mut Vec<u8>, mut rest: usize) {
    while rest > 255 {
        rest -= 255;
        out.push(0);
    }
    out.push(rest as u8);
}

impl Lzo {
    /// `rle`: the version-1 stream (`lzo-rle`), else version 0 (`lzo`).
    pub(crate) fn new(rle: bool) -> Lzo {
        Lzo {
            dict: Box::new([0; D_SIZE]),
            rle,
        }
    }

    /// Compress `src` into `out` (cleared first).
    pub(crate) fn compress(&mut self, src: &[u8], out: &mut Vec<u8>) {
        out.clear();
        if self.rle {
            out.push(VERSION_MARKER);
            out.push(1);
        }
        let data_start = out.len();
        // Where the state bits of the last instruction go (1–3 literals after it).
        let mut state_at = 0usize;
        let piece = if self.rle { PIECE_RLE } else { PIECE };
        let mut pos = 0;
        // Literals not yet written, ending at `pos`.
        let mut pending = 0;
        while src.len() - pos > 20 {
            let len = (src.len() - pos).min(piece);
            self.dict.fill(0);
            pending = self.piece(src, pos, len, pending, out, &mut state_at);
            pos += len;
        }
        pending += src.len() - pos;
        if pending > 0 {
            let lit = &src[src.len() - pending..];
            if out.len() == data_start && pending <= 238 {
                out.push(17 + pending as u8);
            } else {
                push_literal_len(out, pending, state_at);
            }
            out.extend_from_slice(lit);
        }
        // End of stream: a far copy of distance 16384 and length 3.
        out.extend_from_slice(&[16 | 1, 0, 0]);
    }

    /// One piece `src[start..start + len]`, with `pending` literals before it not yet written.
    /// Returns the literals left unwritten at its end.
    fn piece(
        &mut self,
        src: &[u8],
        start: usize,
        len: usize,
        pending: usize,
        out: &mut Vec<u8>,
        state_at: &mut usize,
    ) -> usize {
        let end = start + len;
        let limit = end - 20;
        let mut lit = start - pending;
        let mut ip = start + 4usize.saturating_sub(pending);
        // Each probe after a miss (and the first) moves on by one byte, and by one more for
        // every 32 literals already pending.
        let mut advance = true;
        loop {
            if advance {
                ip += 1 + ((ip - lit) >> 5);
            }
            advance = true;
            if ip >= limit {
                break;
            }
            let dv = le32(src, ip);
            let mut run = 0;
            let mut from = 0;
            if self.rle && dv == 0 {
                let stop = limit.min(ip + MAX_ZERO_RUN + 1);
                let mut ir = ip + 4;
                while ir < stop && src[ir] == 0 {
                    ir += 1;
                }
                run = (ir - ip).min(MAX_ZERO_RUN);
            } else {
                let h = (dv.wrapping_mul(0x1824_429d) >> (32 - D_BITS)) as usize & (D_SIZE - 1);
                from = start + usize::from(self.dict[h]);
                self.dict[h] = (ip - start) as u16;
                if le32(src, from) != dv {
                    continue;
                }
            }
            let n = ip - lit;
            if n > 0 {
                push_literal_len(out, n, *state_at);
                out.extend_from_slice(&src[lit..ip]);
            }
            if run > 0 {
                ip += run;
                let r = run - MIN_ZERO_RUN;
                out.extend_from_slice(&[0x18 | (r & 7) as u8, 0xfc, 0xff, (r >> 3) as u8]);
                *state_at = out.len() - 3;
                lit = ip;
                advance = false;
                continue;
            }
            let mut m_len = 4;
            while ip + m_len < limit && src[ip + m_len] == src[from + m_len] {
                m_len += 1;
            }
            let dist = ip - from;
            if self.rle && dist & 0x803f == 0x803f && (261..=264).contains(&m_len) {
                // Would read as a zero run: shorter, so the encoding differs.
                m_len = 260;
            }
            ip += m_len;
            push_match(out, m_len, dist);
            *state_at = out.len() - 2;
            lit = ip;
            advance = false;
        }
        end - lit
    }
}

/// The count of a literal run: in the last instruction's state bits (1–3), or its own opcode.
fn push_literal_len(out: &mut Vec<u8>, n: usize, state_at: usize) {
    if n <= 3 {
        out[state_at] |= n as u8;
    } else if n <= 18 {
        out.push((n - 3) as u8);
    } else {
        out.push(0);
        push_long_len(out, n - 18);
    }
}

/// A copy of `len` (≥ 4) bytes from `dist` back.
fn push_match(out: &mut Vec<u8>, len: usize, dist: usize) {
    if len <= 8 && dist <= 0x800 {
        let d = dist - 1;
        out.push((((len - 1) << 5) | ((d & 7) << 2)) as u8);
        out.push((d >> 3) as u8);
        return;
    }
    let d = if dist <= 0x4000 {
        if len <= 33 {
            out.push(32 | (len - 2) as u8);
        } else {
            out.push(32);
            push_long_len(out, len - 33);
        }
        dist - 1
    } else {
        let d = dist - 0x4000;
        let high = ((d >> 11) & 8) as u8;
        if len <= 9 {
            out.push(16 | high | (len - 2) as u8);
        } else {
            out.push(16 | high);
            push_long_len(out, len - 9);
        }
        d
    };
    out.push((d << 2) as u8);
    out.push((d >> 6) as u8);
}

/// Why a stream does not decompress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the stream ends inside an instruction")]
    Truncated,
    #[error("the output would exceed its limit")]
    TooLong,
    #[error("a copy reaches before the start of the output")]
    BadDistance,
    #[error("bytes after the end of the stream")]
    Trailing,
}

/// Decompress `src` into `out` (cleared first), writing at most `max` bytes. Accepts both
/// versions (a version-1 stream starts with 17, 1).
pub(crate) fn decompress(src: &[u8], out: &mut Vec<u8>, max: usize) -> Result<(), Error> {
    out.clear();
    let mut r = Reader { src, at: 0 };
    let mut version = 0;
    if src.len() >= 5 && src[0] == VERSION_MARKER {
        version = src[1];
        r.at = 2;
    }
    let literals = |r: &mut Reader, out: &mut Vec<u8>, n: usize| -> Result<(), Error> {
        if out.len() + n > max {
            return Err(Error::TooLong);
        }
        out.extend_from_slice(r.take(n)?);
        Ok(())
    };
    // The literals the last instruction copied: 0, 1–3, or 4 for a longer run.
    let mut state: usize = 0;
    if r.peek()? > 17 {
        let n = usize::from(r.byte()? - 17);
        literals(&mut r, out, n)?;
        state = n.min(4);
    }
    loop {
        let t = usize::from(r.byte()?);
        let (len, dist, next) = if t < 16 {
            match state {
                0 => {
                    let n = 3 + if t == 0 { 15 + r.long_len()? } else { t };
                    literals(&mut r, out, n)?;
                    state = 4;
                    continue;
                }
                4 => (
                    3,
                    (usize::from(r.byte()?) << 2) + ((t >> 2) & 3) + 2049,
                    t & 3,
                ),
                _ => (2, (usize::from(r.byte()?) << 2) + ((t >> 2) & 3) + 1, t & 3),
            }
        } else if t < 32 {
            let b = r.peek2()?;
            if version == 1 && b & 0xfffc == 0xfffc && t & 0xf8 == 0x18 {
                r.at += 2;
                let n = ((t & 7) | (usize::from(r.byte()?) << 3)) + MIN_ZERO_RUN;
                if out.len() + n > max {
                    return Err(Error::TooLong);
                }
                out.resize(out.len() + n, 0);
                let s = b & 3;
                literals(&mut r, out, s)?;
                state = s;
                continue;
            }
            let len = 2 + if t & 7 == 0 { 7 + r.long_len()? } else { t & 7 };
            let b = r.le16()?;
            let dist = 0x4000 + ((t & 8) << 11) + (b >> 2);
            if dist == 0x4000 {
                return if r.at == src.len() {
                    Ok(())
                } else {
                    Err(Error::Trailing)
                };
            }
            (len, dist, b & 3)
        } else if t < 64 {
            let len = 2 + if t & 31 == 0 {
                31 + r.long_len()?
            } else {
                t & 31
            };
            let b = r.le16()?;
            (len, (b >> 2) + 1, b & 3)
        } else {
            let len = if t < 128 {
                3 + ((t >> 5) & 1)
            } else {
                5 + ((t >> 5) & 3)
            };
            (
                len,
                (usize::from(r.byte()?) << 3) + ((t >> 2) & 7) + 1,
                t & 3,
            )
        };
        if dist > out.len() {
            return Err(Error::BadDistance);
        }
        if out.len() + len > max {
            return Err(Error::TooLong);
        }
        let from = out.len() - dist;
        for i in 0..len {
            let b = out[from + i];
            out.push(b);
        }
        literals(&mut r, out, next)?;
        state = next;
    }
}

struct Reader<'a> {
    src: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Result<u8, Error> {
        self.src.get(self.at).copied().ok_or(Error::Truncated)
    }
    fn byte(&mut self) -> Result<u8, Error> {
        let b = self.peek()?;
        self.at += 1;
        Ok(b)
    }
    fn peek2(&self) -> Result<usize, Error> {
        match self.src.get(self.at..self.at + 2) {
            Some(b) => Ok(usize::from(b[0]) | usize::from(b[1]) << 8),
            None => Err(Error::Truncated),
        }
    }
    fn le16(&mut self) -> Result<usize, Error> {
        let v = self.peek2()?;
        self.at += 2;
        Ok(v)
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let s = self.src.get(self.at..self.at + n).ok_or(Error::Truncated)?;
        self.at += n;
        Ok(s)
    }
    /// The extension of a length: 255 for each zero byte, then a non-zero byte.
    fn long_len(&mut self) -> Result<usize, Error> {
        let mut n = 0usize;
        loop {
            match self.byte()? {
                0 => n = n.checked_add(255).ok_or(Error::TooLong)?,
                b => return Ok(n + usize::from(b)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages() -> Vec<Vec<u8>> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let text = b"the kernel compresses each page on its own; a page of text compresses well. ";
        let mut v = vec![vec![0u8; 4096], vec![0xa5u8; 4096]];
        v.push((0..4096).map(|i| text[i % text.len()]).collect());
        v.push((0..4096).map(|_| rnd() as u8).collect());
        // Structured: records of small integers, a zero gap, then random bytes.
        let mut s: Vec<u8> = (0u32..512).flat_map(|i| (i * 3).to_le_bytes()).collect();
        s.resize(3000, 0);
        s.extend((0..1096).map(|_| rnd() as u8));
        v.push(s);
        // Runs of zeros of every length class around the run encoding's limits.
        let mut z = Vec::new();
        for run in [3usize, 4, 5, 11, 12, 260, 2051, 2052, 300] {
            z.push(0x41);
            z.resize(z.len() + run, 0);
        }
        z.resize(4096, 7);
        v.push(z);
        v.push(Vec::new());
        v.push(b"short".to_vec());
        v.push(vec![1u8; 200_000]);
        v.push((0..100_000).map(|_| (rnd() % 4) as u8).collect());
        v
    }

    #[test]
    fn round_trips_both_versions() {
        for rle in [false, true] {
            let mut c = Lzo::new(rle);
            let (mut z, mut back) = (Vec::new(), Vec::new());
            for p in pages() {
                c.compress(&p, &mut z);
                decompress(&z, &mut back, p.len()).unwrap();
                assert_eq!(back, p, "rle {rle}, {} bytes", p.len());
            }
        }
    }

    #[test]
    fn sizes_are_those_of_a_one_probe_compressor() {
        let p = pages();
        let mut c = Lzo::new(false);
        let mut z = Vec::new();
        // A zero page, worked by hand: the first probe is at byte 5, so 5 literals (1 + 5 bytes),
        // then one match 5 back running to 20 bytes before the end: 4071 bytes, a 16 KiB-window
        // copy with its length past 33 in 16 extension bytes (15 zeros, 213) and 2 distance
        // bytes; then 20 literals (0, 2, and the 20 bytes) and the 3-byte end: 50 bytes.
        c.compress(&p[0], &mut z);
        assert_eq!(z.len(), 1 + 5 + 1 + 16 + 2 + 2 + 20 + 3);
        // Random bytes do not compress: the page plus its literal-run overhead.
        c.compress(&p[3], &mut z);
        assert!(z.len() > 4096 && z.len() < 4096 + 32, "{}", z.len());
        // The run-length stream: the version (2 bytes), the same 5 literals, a zero run of the
        // most (2051, 4 bytes), one of the 2020 left before the last 20 bytes (4), the 20
        // literals (22) and the end (3): 41 bytes.
        let mut r = Lzo::new(true);
        r.compress(&p[0], &mut z);
        assert_eq!(z.len(), 2 + 6 + 4 + 4 + 22 + 3);
        assert_eq!(&z[..2], &[17, 1]);
    }

    #[test]
    fn hostile_streams_fail_cleanly() {
        let mut out = Vec::new();
        for bad in [
            &[][..],
            &[0x11],
            &[0x20, 0xff, 0xff],
            &[0x12, b'a', 0x40],
            &[0x15, 1, 2, 3, 4, 0xff, 0x00, 0x00],
            &[0x11, 0x01, 0x19, 0xfc, 0xff, 0xff, 0x11, 0, 0],
        ] {
            assert!(decompress(bad, &mut out, 4096).is_err(), "{bad:?}");
        }
        // A zero run longer than the limit.
        assert_eq!(
            decompress(
                &[0x11, 0x01, 0x12, b'a', 0x1f, 0xfc, 0xff, 0xff, 0x11, 0, 0],
                &mut out,
                100
            ),
            Err(Error::TooLong)
        );
    }
}
