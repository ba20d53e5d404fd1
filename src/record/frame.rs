//! The file around the records: the header that names a recording and its version, the frame
//! around each record (its length, CRC-32, kind and wall time), and the scan that finds the
//! frames of a file, resynchronising past damage (docs/recording-format.md). What a record's
//! payload holds is [`super::codec`]'s.

use std::io;

/// The first eight bytes of every recording file.
pub const MAGIC: [u8; 8] = *b"\x89ZSR\r\n\x1a\n";
/// The format this code writes and the newest it reads.
pub const VERSION: u16 = 1;
/// Magic, version, flags, CRC-32 of the twelve bytes before it.
pub const HEADER_LEN: usize = 16;
/// Body length and CRC-32 of the body.
pub const FRAME_PREFIX: usize = 8;
/// Kind byte and wall time: the smallest body.
pub const BODY_MIN: usize = 9;
/// The most a record's payload may hold once uncompressed. A keyframe of the fixture trees is
/// 6–18 KB (the largest with 20 processes and a cgroup tree); the bound keeps what one record
/// can make a reader allocate small. The writer refuses a larger sample.
pub const RAW_MAX: usize = 4 << 20;
/// The longest frame body: the kind, the time and a payload of at most [`RAW_MAX`] (a payload
/// is stored compressed only when that is smaller). A larger length is corruption.
pub const BODY_MAX: usize = BODY_MIN + RAW_MAX;
/// A compressed payload may claim at most this many times its own size once uncompressed.
/// The fixtures' keyframes compress 2.9:1 to 4.7:1, assets/demo.zsr's records at most 2.9:1;
/// the writer stores a payload that would pass the bound uncompressed, so every record it
/// writes reads back. A record claiming more is corrupt: the bound keeps the work of decoding a file in
/// proportion to its size (no record expands 20 bytes into megabytes).
pub const RATIO_MAX: usize = 64;

/// The kind byte of a frame.
pub const KIND_KEYFRAME: u8 = 1;
pub const KIND_DELTA: u8 = 2;
/// Set in the kind byte when the payload is zstd-compressed.
pub const FLAG_ZSTD: u8 = 0x80;

/// The 16-byte file header for `version`.
pub fn header(version: u16) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    h[8..10].copy_from_slice(&version.to_le_bytes());
    let crc = crc32fast::hash(&h[..12]);
    h[12..].copy_from_slice(&crc.to_le_bytes());
    h
}

/// What the first bytes of a file say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderCheck {
    /// A header this code reads.
    Good,
    /// Fewer than [`HEADER_LEN`] bytes, all a prefix of a valid header: a file cut while it was
    /// being created (or an empty one).
    Short,
    /// Not a recording.
    NotARecording,
    /// The magic is right but the header's checksum, or a field it covers, is not.
    Corrupt,
    /// An intact header of a format newer than [`VERSION`].
    Newer(u16),
}

/// Check a file's first bytes (at most [`HEADER_LEN`] are looked at). The checksum is checked
/// before the version is believed: a damaged version field is a corrupt header, never "a newer
/// format".
pub(crate) fn check_header(bytes: &[u8]) -> HeaderCheck {
    let n = bytes.len().min(HEADER_LEN);
    if bytes[..n.min(8)] != MAGIC[..n.min(8)] {
        return HeaderCheck::NotARecording;
    }
    if n < HEADER_LEN {
        // Too short to check: a prefix of a header (of the version it names) holds nothing.
        let version = if n >= 10 {
            u16::from_le_bytes([bytes[8], bytes[9]])
        } else {
            VERSION
        };
        return if bytes[..n] == header(version)[..n] {
            HeaderCheck::Short
        } else {
            HeaderCheck::Corrupt
        };
    }
    let crc = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
    if crc32fast::hash(&bytes[..12]) != crc {
        return HeaderCheck::Corrupt;
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version > VERSION {
        return HeaderCheck::Newer(version);
    }
    if bytes[..HEADER_LEN] != header(version) || version == 0 {
        // Flags this version does not define, or version 0.
        return HeaderCheck::Corrupt;
    }
    HeaderCheck::Good
}

/// A frame: `[body length u32 LE][CRC-32 of body u32 LE][body]`, the body being
/// `[kind u8][unix_ms u64 LE][payload]`.
pub fn frame(kind: u8, unix_ms: u64, payload: &[u8]) -> Vec<u8> {
    let body_len = BODY_MIN + payload.len();
    let mut out = Vec::with_capacity(FRAME_PREFIX + body_len);
    out.extend_from_slice(&(body_len as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.push(kind);
    out.extend_from_slice(&unix_ms.to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out[FRAME_PREFIX..]);
    out[4..8].copy_from_slice(&crc.to_le_bytes());
    out
}

/// A frame that checked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameInfo {
    pub kind: u8,
    pub unix_ms: u64,
    /// Prefix and body.
    pub len: usize,
}

/// Why the bytes at an offset are not a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameCheck {
    Good(FrameInfo),
    /// The frame would run past the end of the bytes given (a torn tail, or a bad length).
    Short,
    /// The length is impossible, the kind unknown or the checksum wrong.
    Bad,
}

/// The length, kind and wall time a frame's first [`FRAME_PREFIX`] + [`BODY_MIN`] bytes claim,
/// if they can be a frame's: the length in range and the kind known. Nothing is checksummed.
fn claim(head: &[u8]) -> Option<(usize, u32, FrameInfo)> {
    let body_len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let kind = head[8];
    if !(BODY_MIN..=BODY_MAX).contains(&body_len)
        || !matches!(kind & !FLAG_ZSTD, KIND_KEYFRAME | KIND_DELTA)
    {
        return None;
    }
    let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    let mut ms = [0u8; 8];
    ms.copy_from_slice(&head[9..17]);
    let info = FrameInfo {
        kind,
        unix_ms: u64::from_le_bytes(ms),
        len: FRAME_PREFIX + body_len,
    };
    Some((body_len, crc, info))
}

/// Check the frame at the start of `bytes`.
pub(crate) fn check_frame(bytes: &[u8]) -> FrameCheck {
    if bytes.len() < FRAME_PREFIX + BODY_MIN {
        return FrameCheck::Short;
    }
    let Some((body_len, crc, info)) = claim(bytes) else {
        return FrameCheck::Bad;
    };
    let Some(body) = bytes.get(FRAME_PREFIX..FRAME_PREFIX + body_len) else {
        return FrameCheck::Short;
    };
    if crc32fast::hash(body) != crc {
        return FrameCheck::Bad;
    }
    FrameCheck::Good(info)
}

/// A stretch of a file that is not a whole, intact record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// Nothing intact follows: the file ends in a torn record.
    Torn,
    /// Intact records follow: these bytes were damaged.
    Corrupt,
    /// The search for the next intact record stopped here, its budget spent: what follows was
    /// not searched (only a file crafted to defeat the search gets here).
    Unsearched,
}

/// The frames of a file body and what lies between them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Offset and frame of every intact record, in file order.
    pub frames: Vec<(u64, FrameInfo)>,
    /// Offset, length and kind of every stretch skipped.
    pub gaps: Vec<(u64, u64, Gap)>,
    /// Where the last intact record ends (`start` when there is none).
    pub end: u64,
    /// Bytes checksummed, in all: the scan's work, which stays in proportion to the file's size.
    pub crc_bytes: u64,
}

/// What a scan reads: a file, or bytes in memory.
pub trait Source {
    fn size(&self) -> io::Result<u64>;
    /// Fill `buf` from `offset` (within the size).
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
}

impl Source for [u8] {
    fn size(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let from = usize::try_from(offset).map_err(|_| io::ErrorKind::UnexpectedEof)?;
        let src = from
            .checked_add(buf.len())
            .and_then(|end| self.get(from..end))
            .ok_or(io::ErrorKind::UnexpectedEof)?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

impl Source for std::fs::File {
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
}

/// A scan reads the file through a window of this many bytes: its memory does not grow with
/// the file.
const WINDOW: usize = 1 << 20;

/// Searching for the next intact record checksums at most this many bytes per byte of the
/// file, plus [`RESYNC_SLACK`]. An offset is checksummed only when its first bytes can start a
/// frame (a length in range, a known kind, a wall time before the year 2248), which damage
/// rarely makes: real damage costs a small fraction of this. A file crafted so that every
/// offset claims a long frame would otherwise cost its size times the claimed length (a 4 MiB
/// file took 54 s); with the budget its search stops, said as a [`Gap::Unsearched`].
const RESYNC_PER_BYTE: u64 = 4;
const RESYNC_SLACK: u64 = 2 * BODY_MAX as u64;

/// Wall times from 2^43 ms on (the year 2248) are not believed of a frame found by searching.
const PLAUSIBLE_MS: u64 = 1 << 43;

/// A forward-moving window over a [`Source`], counting what it checksums.
struct Window<'s, S: Source + ?Sized> {
    src: &'s S,
    size: u64,
    buf: Vec<u8>,
    base: u64,
    scratch: Vec<u8>,
    crc_bytes: u64,
    /// Bytes checksummed for frames that turned out not to be intact.
    wasted: u64,
}

impl<S: Source + ?Sized> Window<'_, S> {
    /// `n` bytes at `off` (`off + n` within the size, `n` at most [`WINDOW`]).
    fn bytes(&mut self, off: u64, n: usize) -> io::Result<&[u8]> {
        let end = off + n as u64;
        if off < self.base || end > self.base + self.buf.len() as u64 {
            let len = (self.size - off).min(WINDOW as u64) as usize;
            self.buf.resize(len, 0);
            self.src.read_at(&mut self.buf, off)?;
            self.base = off;
        }
        let at = (off - self.base) as usize;
        Ok(&self.buf[at..at + n])
    }

    /// The CRC-32 of `n` bytes at `off`: from the window when they are in it, else read in
    /// pieces (the window stays where it is).
    fn crc(&mut self, off: u64, n: u64) -> io::Result<u32> {
        self.crc_bytes += n;
        let end = off + n;
        if off >= self.base && end <= self.base + self.buf.len() as u64 {
            let at = (off - self.base) as usize;
            return Ok(crc32fast::hash(&self.buf[at..at + n as usize]));
        }
        self.scratch.resize(64 << 10, 0);
        let mut h = crc32fast::Hasher::new();
        let mut at = off;
        while at < end {
            let k = (end - at).min(self.scratch.len() as u64) as usize;
            self.src.read_at(&mut self.scratch[..k], at)?;
            h.update(&self.scratch[..k]);
            at += k as u64;
        }
        Ok(h.finalize())
    }

    /// The intact frame at `off`, if there is one. A frame searched for must also have a
    /// plausible wall time.
    fn frame_at(&mut self, off: u64, searching: bool) -> io::Result<Option<FrameInfo>> {
        const HEAD: usize = FRAME_PREFIX + BODY_MIN;
        if off + HEAD as u64 > self.size {
            return Ok(None);
        }
        let Some((body_len, crc, info)) = claim(self.bytes(off, HEAD)?) else {
            return Ok(None);
        };
        if off + info.len as u64 > self.size || (searching && info.unix_ms >= PLAUSIBLE_MS) {
            return Ok(None);
        }
        if self.crc(off + FRAME_PREFIX as u64, body_len as u64)? == crc {
            return Ok(Some(info));
        }
        self.wasted += body_len as u64;
        Ok(None)
    }
}

/// Walk the frames of `src` from `start`. A frame that fails its length or checksum is
/// skipped up to the next offset where an intact frame begins, or to the end. The work is
/// linear in the size: intact frames do not overlap, so each byte is checksummed once as part
/// of one, and checksums that fail have a budget in proportion to the size.
pub fn scan<S: Source + ?Sized>(src: &S, start: u64) -> io::Result<Scan> {
    let size = src.size()?;
    let mut w = Window {
        src,
        size,
        buf: Vec::new(),
        base: 0,
        scratch: Vec::new(),
        crc_bytes: 0,
        wasted: 0,
    };
    let mut out = Scan {
        end: start,
        ..Scan::default()
    };
    let budget = RESYNC_PER_BYTE.saturating_mul(size) + RESYNC_SLACK;
    let mut at = start;
    let mut found: Option<FrameInfo> = None;
    while at < size {
        let here = match found.take() {
            Some(info) => Some(info),
            None if w.wasted > budget => None,
            None => w.frame_at(at, false)?,
        };
        if let Some(info) = here {
            out.frames.push((at, info));
            at += info.len as u64;
            out.end = at;
            continue;
        }
        let mut gap = Gap::Torn;
        let mut to = size;
        let mut p = at + 1;
        while p + (FRAME_PREFIX + BODY_MIN) as u64 <= size {
            if w.wasted > budget {
                gap = Gap::Unsearched;
                break;
            }
            if let Some(info) = w.frame_at(p, true)? {
                found = Some(info);
                gap = Gap::Corrupt;
                to = p;
                break;
            }
            p += 1;
        }
        out.gaps.push((at, to - at, gap));
        at = to;
    }
    out.crc_bytes = w.crc_bytes;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_checked() {
        let h = header(VERSION);
        assert_eq!(check_header(&h), HeaderCheck::Good);
        assert_eq!(check_header(&[]), HeaderCheck::Short);
        assert_eq!(check_header(&h[..11]), HeaderCheck::Short);
        assert_eq!(
            check_header(b"MemTotal: 1 kB\n..."),
            HeaderCheck::NotARecording
        );
        assert_eq!(
            check_header(&header(VERSION + 1)),
            HeaderCheck::Newer(VERSION + 1)
        );
        let mut flipped = h;
        flipped[11] ^= 1;
        assert_eq!(check_header(&flipped), HeaderCheck::Corrupt);
    }

    #[test]
    fn frames_are_checked() {
        let f = frame(KIND_DELTA, 42, b"abc");
        assert_eq!(
            check_frame(&f),
            FrameCheck::Good(FrameInfo {
                kind: KIND_DELTA,
                unix_ms: 42,
                len: f.len()
            })
        );
        assert_eq!(check_frame(&f[..f.len() - 1]), FrameCheck::Short);
        let mut g = f.clone();
        g[12] ^= 0x10;
        assert_eq!(check_frame(&g), FrameCheck::Bad);
    }
}
