//! The bytes of a recording: the file header, the frame around each record, and the slot
//! encoding of a [`Sample`] (docs/recording-format.md describes all three).
//!
//! A sample is flattened into slots: one per leaf of its serde tree, named by its path (struct
//! fields and map keys by name, list items by index), holding a scalar. A keyframe lists every
//! slot; a delta lists only the slots that changed since the record before it, counters as the
//! difference. Names, not positions, make a recording outlive changes to [`Sample`]: a field
//! added later reads as its serde default, a field removed is ignored.

use std::collections::HashMap;

use std::collections::BTreeMap;

use serde_value::Value;

use crate::sources::Sample;

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
/// No record comes near this; a larger length is corruption.
pub const BODY_MAX: usize = 64 << 20;

/// The most a compressed payload may claim to expand to (a keyframe is a few KiB): a record
/// claiming more is corrupt, and is not given the memory.
pub const RAW_MAX: usize = 16 << 20;

/// The kind byte of a frame.
pub const KIND_KEYFRAME: u8 = 1;
pub const KIND_DELTA: u8 = 2;
/// Set in the kind byte when the payload is zstd-compressed.
pub const FLAG_ZSTD: u8 = 0x80;

/// Why bytes do not decode. The reader turns it into a warning or an error with the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

fn bad(what: impl Into<String>) -> DecodeError {
    DecodeError(what.into())
}

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
    /// The magic is right but the header's checksum is not.
    Corrupt,
    /// A recording in a format newer than [`VERSION`].
    Newer(u16),
}

pub fn check_header(bytes: &[u8]) -> HeaderCheck {
    let n = bytes.len().min(HEADER_LEN);
    if bytes[..n.min(8)] != MAGIC[..n.min(8)] {
        return HeaderCheck::NotARecording;
    }
    if n < 10 {
        return HeaderCheck::Short;
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version > VERSION {
        return HeaderCheck::Newer(version);
    }
    if n < HEADER_LEN {
        return if bytes[..n] == header(version)[..n] {
            HeaderCheck::Short
        } else {
            HeaderCheck::Corrupt
        };
    }
    if version == 0 || bytes[..HEADER_LEN] != header(version) {
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

/// Check the frame at the start of `bytes`.
pub fn check_frame(bytes: &[u8]) -> FrameCheck {
    if bytes.len() < FRAME_PREFIX {
        return FrameCheck::Short;
    }
    let body_len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    if !(BODY_MIN..=BODY_MAX).contains(&body_len) {
        return FrameCheck::Bad;
    }
    let Some(body) = bytes.get(FRAME_PREFIX..FRAME_PREFIX + body_len) else {
        return FrameCheck::Short;
    };
    let kind = body[0];
    if !matches!(kind & !FLAG_ZSTD, KIND_KEYFRAME | KIND_DELTA) {
        return FrameCheck::Bad;
    }
    let crc = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    if crc32fast::hash(body) != crc {
        return FrameCheck::Bad;
    }
    let mut ms = [0u8; 8];
    ms.copy_from_slice(&body[1..9]);
    FrameCheck::Good(FrameInfo {
        kind,
        unix_ms: u64::from_le_bytes(ms),
        len: FRAME_PREFIX + body_len,
    })
}

/// A stretch of a file that is not a whole, intact record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// Nothing intact follows: the file ends in a torn record.
    Torn,
    /// Intact records follow: these bytes were damaged.
    Corrupt,
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
}

/// Walk the frames of `bytes` from `start`. A frame that fails its length or checksum is
/// skipped up to the next offset where an intact frame begins, or to the end.
pub fn scan(bytes: &[u8], start: usize) -> Scan {
    let mut out = Scan {
        end: start as u64,
        ..Scan::default()
    };
    let mut at = start;
    while at < bytes.len() {
        if let FrameCheck::Good(info) = check_frame(&bytes[at..]) {
            out.frames.push((at as u64, info));
            at += info.len;
            out.end = at as u64;
            continue;
        }
        let last = bytes.len().saturating_sub(FRAME_PREFIX + BODY_MIN);
        let next =
            (at + 1..=last).find(|&p| matches!(check_frame(&bytes[p..]), FrameCheck::Good(_)));
        let (to, gap) = match next {
            Some(p) => (p, Gap::Corrupt),
            None => (bytes.len(), Gap::Torn),
        };
        out.gaps.push((at as u64, (to - at) as u64, gap));
        at = to;
    }
    out
}

// ---- varints (LEB128) ----

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A cursor over a payload.
pub struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Input { bytes, at: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.at
    }

    fn byte(&mut self) -> Result<u8, DecodeError> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| bad("payload ends early"))?;
        self.at += 1;
        Ok(b)
    }

    pub fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(bad("varint longer than 64 bits"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| bad("payload ends early"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn len(&mut self) -> Result<usize, DecodeError> {
        usize::try_from(self.varint()?).map_err(|_| bad("length out of range"))
    }

    fn bytes_with_len(&mut self) -> Result<&'a [u8], DecodeError> {
        let n = self.len()?;
        self.take(n)
    }
}

// ---- leaves ----

/// One slot's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Leaf {
    /// `None`.
    Null,
    /// `()` and unit structs.
    Unit,
    Bool(bool),
    U64(u64),
    I64(i64),
    /// A float that is a whole number of hundredths (what the kernel prints: PSI averages,
    /// uptime), kept as that number so it varies in few bytes.
    Centi(i64),
    F64(f64),
    Str(String),
    EmptySeq,
    EmptyMap,
}

const T_NULL: u8 = 0;
const T_FALSE: u8 = 1;
const T_TRUE: u8 = 2;
const T_U64: u8 = 3;
const T_I64: u8 = 4;
const T_F64: u8 = 5;
const T_CENTI: u8 = 6;
const T_STR: u8 = 7;
const T_EMPTY_SEQ: u8 = 8;
const T_EMPTY_MAP: u8 = 9;
/// Only in deltas, over a `U64`: the wrapping difference, zigzagged.
const T_U64_DIFF: u8 = 10;
/// Only in deltas, over a `Centi`: the difference, zigzagged.
const T_CENTI_DIFF: u8 = 11;
const T_UNIT: u8 = 12;

impl Leaf {
    fn float(f: f64) -> Leaf {
        let c = (f * 100.0).round();
        if c.abs() < 9.0e15 && c / 100.0 == f && !(f == 0.0 && f.is_sign_negative()) {
            Leaf::Centi(c as i64)
        } else {
            Leaf::F64(f)
        }
    }

    fn to_value(&self) -> Value {
        match self {
            Leaf::Null => Value::Option(None),
            Leaf::Unit => Value::Unit,
            Leaf::Bool(b) => Value::Bool(*b),
            Leaf::U64(u) => Value::U64(*u),
            Leaf::I64(i) => Value::I64(*i),
            Leaf::Centi(c) => Value::F64(*c as f64 / 100.0),
            Leaf::F64(f) => Value::F64(*f),
            Leaf::Str(s) => Value::String(s.clone()),
            Leaf::EmptySeq => Value::Seq(Vec::new()),
            Leaf::EmptyMap => Value::Map(BTreeMap::new()),
        }
    }

    /// Append this leaf, as a difference from `prev` where that is shorter.
    fn put(&self, prev: Option<&Leaf>, out: &mut Vec<u8>) {
        match (self, prev) {
            (Leaf::U64(v), Some(Leaf::U64(p))) => {
                out.push(T_U64_DIFF);
                put_varint(out, zigzag(v.wrapping_sub(*p) as i64));
            }
            (Leaf::Centi(v), Some(Leaf::Centi(p))) => {
                out.push(T_CENTI_DIFF);
                put_varint(out, zigzag(v.wrapping_sub(*p)));
            }
            _ => self.put_full(out),
        }
    }

    fn put_full(&self, out: &mut Vec<u8>) {
        match self {
            Leaf::Null => out.push(T_NULL),
            Leaf::Unit => out.push(T_UNIT),
            Leaf::Bool(false) => out.push(T_FALSE),
            Leaf::Bool(true) => out.push(T_TRUE),
            Leaf::U64(u) => {
                out.push(T_U64);
                put_varint(out, *u);
            }
            Leaf::I64(i) => {
                out.push(T_I64);
                put_varint(out, zigzag(*i));
            }
            Leaf::Centi(c) => {
                out.push(T_CENTI);
                put_varint(out, zigzag(*c));
            }
            Leaf::F64(f) => {
                out.push(T_F64);
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
            Leaf::Str(s) => {
                out.push(T_STR);
                put_varint(out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
            Leaf::EmptySeq => out.push(T_EMPTY_SEQ),
            Leaf::EmptyMap => out.push(T_EMPTY_MAP),
        }
    }

    fn get(input: &mut Input<'_>, prev: Option<&Leaf>) -> Result<Leaf, DecodeError> {
        Ok(match input.byte()? {
            T_NULL => Leaf::Null,
            T_UNIT => Leaf::Unit,
            T_FALSE => Leaf::Bool(false),
            T_TRUE => Leaf::Bool(true),
            T_U64 => Leaf::U64(input.varint()?),
            T_I64 => Leaf::I64(unzigzag(input.varint()?)),
            T_CENTI => Leaf::Centi(unzigzag(input.varint()?)),
            T_F64 => {
                let mut b = [0u8; 8];
                b.copy_from_slice(input.take(8)?);
                Leaf::F64(f64::from_bits(u64::from_le_bytes(b)))
            }
            T_STR => Leaf::Str(
                std::str::from_utf8(input.bytes_with_len()?)
                    .map_err(|_| bad("a string is not UTF-8"))?
                    .to_owned(),
            ),
            T_EMPTY_SEQ => Leaf::EmptySeq,
            T_EMPTY_MAP => Leaf::EmptyMap,
            T_U64_DIFF => match prev {
                Some(Leaf::U64(p)) => Leaf::U64(p.wrapping_add(unzigzag(input.varint()?) as u64)),
                _ => {
                    return Err(bad(
                        "a counter difference over a slot that holds no counter",
                    ));
                }
            },
            T_CENTI_DIFF => match prev {
                Some(Leaf::Centi(p)) => Leaf::Centi(p.wrapping_add(unzigzag(input.varint()?))),
                _ => return Err(bad("a difference over a slot that holds no decimal")),
            },
            t => return Err(bad(format!("unknown value tag {t}"))),
        })
    }
}

// ---- paths ----

/// A path segment in a slot name: a field or map key, a list index, the inside of a `Some`
/// or of a newtype.
const SEG_KEY: u8 = 0;
const SEG_INDEX: u8 = 1;
const SEG_SOME: u8 = 2;
const SEG_NEWTYPE: u8 = 3;

/// Walk a serde tree, calling `emit(path, leaf)` for every leaf. `path` is the encoded path:
/// segments of `[SEG_KEY][len][utf-8]`, `[SEG_INDEX][index]`, `[SEG_SOME]` or `[SEG_NEWTYPE]`.
fn walk(
    value: &Value,
    path: &mut Vec<u8>,
    emit: &mut dyn FnMut(&[u8], Leaf),
) -> Result<(), DecodeError> {
    let mark = path.len();
    match value {
        Value::Option(None) => emit(path, Leaf::Null),
        Value::Unit => emit(path, Leaf::Unit),
        Value::Bool(b) => emit(path, Leaf::Bool(*b)),
        Value::U8(u) => emit(path, Leaf::U64(u64::from(*u))),
        Value::U16(u) => emit(path, Leaf::U64(u64::from(*u))),
        Value::U32(u) => emit(path, Leaf::U64(u64::from(*u))),
        Value::U64(u) => emit(path, Leaf::U64(*u)),
        Value::I8(i) => emit(path, Leaf::I64(i64::from(*i))),
        Value::I16(i) => emit(path, Leaf::I64(i64::from(*i))),
        Value::I32(i) => emit(path, Leaf::I64(i64::from(*i))),
        Value::I64(i) => emit(path, Leaf::I64(*i)),
        Value::F32(f) => emit(path, Leaf::F64(f64::from(*f))),
        Value::F64(f) => emit(path, Leaf::float(*f)),
        Value::Char(c) => emit(path, Leaf::Str(c.to_string())),
        Value::String(s) => emit(path, Leaf::Str(s.clone())),
        Value::Bytes(b) => emit(path, Leaf::Str(String::from_utf8_lossy(b).into_owned())),
        Value::Seq(items) if items.is_empty() => emit(path, Leaf::EmptySeq),
        Value::Map(map) if map.is_empty() => emit(path, Leaf::EmptyMap),
        Value::Option(Some(inner)) => {
            path.push(SEG_SOME);
            walk(inner, path, emit)?;
        }
        Value::Newtype(inner) => {
            path.push(SEG_NEWTYPE);
            walk(inner, path, emit)?;
        }
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(SEG_INDEX);
                put_varint(path, i as u64);
                walk(item, path, emit)?;
                path.truncate(mark);
            }
        }
        Value::Map(map) => {
            for (k, v) in map {
                let Value::String(k) = k else {
                    return Err(bad(format!("a map key that is not a string: {k:?}")));
                };
                path.push(SEG_KEY);
                put_varint(path, k.len() as u64);
                path.extend_from_slice(k.as_bytes());
                walk(v, path, emit)?;
                path.truncate(mark);
            }
        }
    }
    path.truncate(mark);
    Ok(())
}

/// Put `leaf` at `path` in the tree under `root`.
fn insert(root: &mut Value, path: &[u8], leaf: &Leaf) -> Result<(), DecodeError> {
    let mut input = Input::new(path);
    let mut node = root;
    while !input.is_empty() {
        node = match input.byte()? {
            SEG_KEY => {
                let key = std::str::from_utf8(input.bytes_with_len()?)
                    .map_err(|_| bad("a slot name is not UTF-8"))?;
                if !matches!(node, Value::Map(_)) {
                    *node = Value::Map(BTreeMap::new());
                }
                match node {
                    Value::Map(map) => map
                        .entry(Value::String(key.to_owned()))
                        .or_insert(Value::Unit),
                    _ => return Err(bad("slot path conflict")),
                }
            }
            SEG_INDEX => {
                let i = input.len()?;
                if i > 1 << 20 {
                    return Err(bad("list index out of range"));
                }
                if !matches!(node, Value::Seq(_)) {
                    *node = Value::Seq(Vec::new());
                }
                match node {
                    Value::Seq(items) => {
                        if items.len() <= i {
                            items.resize(i + 1, Value::Unit);
                        }
                        &mut items[i]
                    }
                    _ => return Err(bad("slot path conflict")),
                }
            }
            SEG_SOME => {
                if !matches!(node, Value::Option(Some(_))) {
                    *node = Value::Option(Some(Box::new(Value::Unit)));
                }
                match node {
                    Value::Option(Some(inner)) => inner.as_mut(),
                    _ => return Err(bad("slot path conflict")),
                }
            }
            SEG_NEWTYPE => {
                if !matches!(node, Value::Newtype(_)) {
                    *node = Value::Newtype(Box::new(Value::Unit));
                }
                match node {
                    Value::Newtype(inner) => inner.as_mut(),
                    _ => return Err(bad("slot path conflict")),
                }
            }
            s => return Err(bad(format!("unknown path segment {s}"))),
        };
    }
    *node = leaf.to_value();
    Ok(())
}

/// A readable rendering of an encoded path, for error messages (`meminfo.Ok.mem_free`).
pub fn path_text(path: &[u8]) -> String {
    let mut input = Input::new(path);
    let mut out = String::new();
    while !input.is_empty() {
        match (input.byte(), &mut input) {
            (Ok(SEG_KEY), i) => match i.bytes_with_len() {
                Ok(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&String::from_utf8_lossy(k));
                }
                Err(_) => break,
            },
            (Ok(SEG_INDEX), i) => match i.varint() {
                Ok(n) => out.push_str(&format!("[{n}]")),
                Err(_) => break,
            },
            (Ok(SEG_SOME | SEG_NEWTYPE), _) => {}
            _ => break,
        }
    }
    out
}

// ---- the slot table ----

/// The slots of the latest sample, as both ends keep them: the writer to find what changed,
/// the reader to rebuild the sample.
#[derive(Debug, Clone, Default)]
pub struct Slots {
    paths: Vec<Vec<u8>>,
    values: Vec<Option<Leaf>>,
}

impl Slots {
    /// Rebuild the sample the slots hold.
    pub fn sample(&self) -> Result<Sample, DecodeError> {
        let mut root = Value::Map(BTreeMap::new());
        for (path, value) in self.paths.iter().zip(&self.values) {
            if let Some(leaf) = value {
                insert(&mut root, path, leaf)?;
            }
        }
        root.deserialize_into()
            .map_err(|e| bad(format!("not a sample: {e}")))
    }

    /// Read a keyframe payload: every slot, replacing what was there.
    pub fn read_keyframe(&mut self, payload: &[u8]) -> Result<(), DecodeError> {
        self.paths.clear();
        self.values.clear();
        let mut input = Input::new(payload);
        let n = input.len()?;
        for _ in 0..n {
            let path = input.bytes_with_len()?.to_vec();
            let leaf = Leaf::get(&mut input, None)?;
            self.paths.push(path);
            self.values.push(Some(leaf));
        }
        trailing(&input)
    }

    /// Apply a delta payload to the slots of the record before it.
    pub fn read_delta(&mut self, payload: &[u8]) -> Result<(), DecodeError> {
        let mut input = Input::new(payload);
        let changed = input.len()?;
        for _ in 0..changed {
            let id = input.len()?;
            let slot = self
                .values
                .get_mut(id)
                .ok_or_else(|| bad(format!("slot {id} does not exist")))?;
            *slot = Some(Leaf::get(&mut input, slot.as_ref())?);
        }
        let added = input.len()?;
        for _ in 0..added {
            let path = input.bytes_with_len()?.to_vec();
            let leaf = Leaf::get(&mut input, None)?;
            self.paths.push(path);
            self.values.push(Some(leaf));
        }
        let removed = input.len()?;
        for _ in 0..removed {
            let id = input.len()?;
            *self
                .values
                .get_mut(id)
                .ok_or_else(|| bad(format!("slot {id} does not exist")))? = None;
        }
        trailing(&input)
    }
}

fn trailing(input: &Input<'_>) -> Result<(), DecodeError> {
    if input.is_empty() {
        Ok(())
    } else {
        Err(bad("bytes left over after the record"))
    }
}

/// The writer's side: the slots plus a lookup by path and the encoding of the next record.
#[derive(Debug, Default)]
pub struct Encoder {
    slots: Slots,
    ids: HashMap<Vec<u8>, usize>,
    /// The slot ids in the order the last sample's walk met them: the next walk meets the same
    /// paths in the same order almost always, so it compares with the expected path first and
    /// hashes only on a miss.
    order: Vec<usize>,
    seen: Vec<u64>,
    generation: u64,
    path: Vec<u8>,
}

impl Encoder {
    /// Every slot of `sample`, replacing the table: a keyframe payload.
    pub fn keyframe(&mut self, sample: &Sample) -> Result<Vec<u8>, DecodeError> {
        let value = to_tree(sample)?;
        self.slots = Slots::default();
        self.ids.clear();
        self.seen.clear();
        let mut body = Vec::with_capacity(4096);
        let mut count = 0u64;
        self.order.clear();
        let (slots, ids, order) = (&mut self.slots, &mut self.ids, &mut self.order);
        self.path.clear();
        let walked = walk(&value, &mut self.path, &mut |path, leaf| {
            put_varint(&mut body, path.len() as u64);
            body.extend_from_slice(path);
            leaf.put_full(&mut body);
            ids.insert(path.to_vec(), slots.paths.len());
            order.push(slots.paths.len());
            slots.paths.push(path.to_vec());
            slots.values.push(Some(leaf));
            count += 1;
        });
        if let Err(e) = walked {
            *self = Encoder::default();
            return Err(e);
        }
        self.seen = vec![self.generation; self.slots.paths.len()];
        let mut out = Vec::with_capacity(body.len() + 3);
        put_varint(&mut out, count);
        out.extend_from_slice(&body);
        Ok(out)
    }

    /// Only the slots that changed since the last record: a delta payload. The table moves on
    /// to `sample`.
    pub fn delta(&mut self, sample: &Sample) -> Result<Vec<u8>, DecodeError> {
        let value = to_tree(sample)?;
        self.generation += 1;
        let generation = self.generation;
        let mut changed = Vec::with_capacity(256);
        let mut n_changed = 0u64;
        let mut added = Vec::new();
        let mut n_added = 0u64;
        let (slots, ids, seen) = (&mut self.slots, &mut self.ids, &mut self.seen);
        let last_order = std::mem::take(&mut self.order);
        let mut order = Vec::with_capacity(last_order.len());
        self.path.clear();
        let walked = walk(&value, &mut self.path, &mut |path, leaf| {
            let expected = last_order
                .get(order.len())
                .copied()
                .filter(|&id| slots.paths[id] == path);
            if let Some(id) = expected.or_else(|| ids.get(path).copied()) {
                order.push(id);
                seen[id] = generation;
                if slots.values[id].as_ref() != Some(&leaf) {
                    put_varint(&mut changed, id as u64);
                    leaf.put(slots.values[id].as_ref(), &mut changed);
                    slots.values[id] = Some(leaf);
                    n_changed += 1;
                }
            } else {
                put_varint(&mut added, path.len() as u64);
                added.extend_from_slice(path);
                leaf.put_full(&mut added);
                ids.insert(path.to_vec(), slots.paths.len());
                order.push(slots.paths.len());
                slots.paths.push(path.to_vec());
                slots.values.push(Some(leaf));
                seen.push(generation);
                n_added += 1;
            }
        });
        if let Err(e) = walked {
            *self = Encoder::default();
            return Err(e);
        }
        self.order = order;
        let mut removed = Vec::new();
        let mut n_removed = 0u64;
        for (id, value) in self.slots.values.iter_mut().enumerate() {
            if self.seen[id] != generation && value.is_some() {
                *value = None;
                put_varint(&mut removed, id as u64);
                n_removed += 1;
            }
        }
        let mut out = Vec::with_capacity(changed.len() + added.len() + removed.len() + 6);
        put_varint(&mut out, n_changed);
        out.extend_from_slice(&changed);
        put_varint(&mut out, n_added);
        out.extend_from_slice(&added);
        put_varint(&mut out, n_removed);
        out.extend_from_slice(&removed);
        Ok(out)
    }
}

fn to_tree(sample: &Sample) -> Result<Value, DecodeError> {
    serde_value::to_value(sample).map_err(|e| bad(format!("sample does not serialize: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(Input::new(&out).varint().unwrap(), v);
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert!(Input::new(&[0xff; 11]).varint().is_err());
        assert!(Input::new(&[0x80]).varint().is_err());
    }

    #[test]
    fn floats_keep_every_bit() {
        for f in [0.0f64, -0.0, 0.19, 12345.67, 1.0 / 3.0, 1e300, -2.5] {
            let leaf = Leaf::float(f);
            let mut out = Vec::new();
            leaf.put_full(&mut out);
            let back = Leaf::get(&mut Input::new(&out), None).unwrap();
            let Value::F64(g) = back.to_value() else {
                panic!("{back:?}")
            };
            assert_eq!(g.to_bits(), f.to_bits(), "{f}");
        }
        assert_eq!(Leaf::float(0.19), Leaf::Centi(19));
    }

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

    #[test]
    fn bad_payloads_are_errors() {
        let mut slots = Slots::default();
        assert!(slots.read_keyframe(&[5]).is_err());
        assert!(slots.read_delta(&[1, 7, 3, 1]).is_err());
        assert!(slots.read_keyframe(&[0, 1]).is_err());
        assert!(slots.sample().is_err());
    }
}
