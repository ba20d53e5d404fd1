//! The slot encoding of a [`Sample`], a record's payload (docs/recording-format.md; the file
//! header and the frame around each record are [`super::frame`]'s).
//!
//! A sample is flattened into slots: one per leaf of its serde tree, named by its path (struct
//! fields and map keys by name, list items by index), holding a scalar. A keyframe lists every
//! slot; a delta lists only the slots that changed since the record before it, counters as the
//! difference. Names, not positions, make a recording outlive changes to [`Sample`]: a field
//! added later reads as its serde default, a field removed is ignored.

use std::collections::{BTreeMap, HashMap};

use serde_value::Value;

use super::frame::RAW_MAX;
use crate::sources::Sample;

/// The most slots a sample may have. The fullest fixture sample (every process and cgroup, the
/// settings, command lines) has 2,130 slots: 175 processes (about 11 slots each) and the ~200
/// every sample has; a cgroup takes about 13. The bound leaves room for about 1,400 processes
/// and cgroups listed, and keeps what one keyframe can make a reader build small: the slot
/// table and the tree rebuilt from it take ~430 bytes a slot, and the largest crafted keyframe
/// (this many slots under unknown names) stays under 32 MiB of RSS (at 131,072 it took 61 MB).
pub const SLOTS_MAX: usize = 1 << 14;
/// The most bytes the slot paths of a sample may take together (the fullest fixture sample's
/// take 52 KB): the table and the tree keep each path's names, so 4 MiB of paths in one
/// keyframe took 36 MB of RSS.
pub const PATH_BYTES_MAX: usize = 1 << 20;
/// The most segments a slot's path may have (a sample's deepest leaf is 8 deep): a deeper path
/// would build a tree that takes the stack to walk and to free.
pub const DEPTH_MAX: usize = 32;

/// Why bytes do not decode. The reader turns it into a warning or an error with the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

/// A decode error. Its text can quote a record's own strings (serde names an unknown variant):
/// made safe here, so it is safe wherever it is shown.
fn bad(what: impl Into<String>) -> DecodeError {
    let what = what.into();
    DecodeError(match crate::sanitize::visible(&what) {
        std::borrow::Cow::Borrowed(_) => what,
        std::borrow::Cow::Owned(safe) => safe,
    })
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
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Input { bytes, at: 0 }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> usize {
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

    pub(crate) fn varint(&mut self) -> Result<u64, DecodeError> {
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
    /// The same value, bit for bit (`==` takes 0.0 for -0.0 and NaN for unequal to itself).
    fn identical(&self, other: &Leaf) -> bool {
        match (self, other) {
            (Leaf::F64(a), Leaf::F64(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }

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
    depth: usize,
    emit: &mut dyn FnMut(&[u8], Leaf),
) -> Result<(), DecodeError> {
    if depth > DEPTH_MAX {
        return Err(bad("a value nested deeper than a record may hold"));
    }
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
            walk(inner, path, depth + 1, emit)?;
        }
        Value::Newtype(inner) => {
            path.push(SEG_NEWTYPE);
            walk(inner, path, depth + 1, emit)?;
        }
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(SEG_INDEX);
                put_varint(path, i as u64);
                walk(item, path, depth + 1, emit)?;
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
                walk(v, path, depth + 1, emit)?;
                path.truncate(mark);
            }
        }
    }
    path.truncate(mark);
    Ok(())
}

/// Put `leaf` at `path` in the tree under `root`. `elements` is how many list elements may
/// still be made: every element of a real sample holds at least one leaf, so a sample needs no
/// more than it has leaves, and a path claiming index 1,000,000 cannot make a million.
fn insert(
    root: &mut Value,
    path: &[u8],
    leaf: &Leaf,
    elements: &mut usize,
) -> Result<(), DecodeError> {
    let mut input = Input::new(path);
    let mut node = root;
    let mut depth = 0;
    while !input.is_empty() {
        depth += 1;
        if depth > DEPTH_MAX {
            return Err(bad("a slot path deeper than any sample's"));
        }
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
                if !matches!(node, Value::Seq(_)) {
                    *node = Value::Seq(Vec::new());
                }
                match node {
                    Value::Seq(items) => {
                        if items.len() <= i {
                            let more = i - items.len() + 1;
                            if more > *elements {
                                return Err(bad("a list index past the sample's size"));
                            }
                            *elements -= more;
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

/// `find` and `find_mut`: the node at a path, read or to change, the same walk.
macro_rules! finder {
    ($(#[$doc:meta])* $name:ident, $($mut:ident)?, $get:ident) => {
        $(#[$doc])*
        fn $name<'t>(tree: &'t $($mut)? Value, path: &[u8]) -> Option<&'t $($mut)? Value> {
            let mut input = Input::new(path);
            let mut node = tree;
            while !input.is_empty() {
                node = match (input.byte().ok()?, node) {
                    (SEG_KEY, Value::Map(map)) => {
                        let key = std::str::from_utf8(input.bytes_with_len().ok()?).ok()?;
                        map.$get(&Value::String(key.to_owned()))?
                    }
                    (SEG_INDEX, Value::Seq(items)) => items.$get(input.len().ok()?)?,
                    (SEG_SOME, Value::Option(Some(inner)))
                    | (SEG_NEWTYPE, Value::Newtype(inner)) => inner,
                    _ => return None,
                };
            }
            Some(node)
        }
    };
}

finder!(
    /// The node at `path` in `tree`, if the path leads somewhere without making anything.
    find, , get
);
finder!(
    /// [`find`], to change the node.
    find_mut, mut, get_mut
);

/// Put the `changed` slots' values into `tree` and the parts of `last` that hold them; `None`
/// where a path is not in the tree or a part does not deserialize (then `tree` and `last` are
/// half changed, and the caller builds whole).
fn patch(
    tree: &mut Value,
    last: &mut Sample,
    changed: &[usize],
    paths: &[Vec<u8>],
    values: &[Option<Leaf>],
) -> Option<()> {
    let mut parts: Vec<&[u8]> = Vec::new();
    for &id in changed {
        let (path, leaf) = (paths.get(id)?, values.get(id)?.as_ref()?);
        *find_mut(tree, path)? = leaf.to_value();
        let part = part_of(path)?;
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    for part in parts {
        // The subtree of the part, deserialized into its place in `last`.
        let value = find(tree, part)?.clone();
        set_part(last, part, value).ok()?;
    }
    Some(())
}

/// The prefix of a slot's path naming the part of the sample rebuilt when the slot changes:
/// one element of the process list (`processes`/Some/`top`/i) or of the cgroup list
/// (`cgroups`/Some/`Ok`/i), each a twentieth or less of its member; otherwise the member.
fn part_of(path: &[u8]) -> Option<&[u8]> {
    let mut input = Input::new(path);
    (input.byte().ok()? == SEG_KEY).then_some(())?;
    let member = input.bytes_with_len().ok()?;
    let end_of_member = input.position();
    let inner: &[u8] = match member {
        b"processes" => b"top",
        b"cgroups" => b"Ok",
        _ => return Some(&path[..end_of_member]),
    };
    let element = (|| {
        (input.byte().ok()? == SEG_SOME).then_some(())?;
        (input.byte().ok()? == SEG_KEY && input.bytes_with_len().ok()? == inner).then_some(())?;
        (input.byte().ok()? == SEG_INDEX).then_some(())?;
        input.len().ok()?;
        Some(input.position())
    })();
    Some(&path[..element.unwrap_or(end_of_member)])
}

/// Put `value` at the part `part` ([`part_of`]) of `sample`.
fn set_part(sample: &mut Sample, part: &[u8], value: Value) -> Result<(), DecodeError> {
    let mut input = Input::new(part);
    input.byte()?;
    let member = std::str::from_utf8(input.bytes_with_len()?).map_err(|_| bad("not UTF-8"))?;
    if input.is_empty() {
        return set_member(sample, member, value);
    }
    // An element: [Some][Key inner][Index i].
    input.byte()?;
    input.byte()?;
    input.bytes_with_len()?;
    input.byte()?;
    let i = input.len()?;
    // The list in the sample shorter than the tree's: the caller rebuilds whole.
    let missing = || bad("an element the sample does not have");
    match member {
        "processes" => {
            let top = sample.processes.as_mut().map(|p| &mut p.top);
            *top.and_then(|t| t.get_mut(i)).ok_or_else(missing)? = de(value)?;
        }
        "cgroups" => match sample.cgroups.as_mut() {
            Some(Ok(list)) => *list.get_mut(i).ok_or_else(missing)? = de(value)?,
            _ => return Err(missing()),
        },
        _ => return Err(missing()),
    }
    Ok(())
}

/// A sample, or a part of one, from its tree.
fn de<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, DecodeError> {
    v.deserialize_into()
        .map_err(|e| bad(format!("not a sample: {e}")))
}

/// Put `value` in `sample`'s member `name`, as deserializing the whole sample would; a name
/// the sample does not have is ignored, as deserializing ignores it.
fn set_member(sample: &mut Sample, name: &str, value: Value) -> Result<(), DecodeError> {
    // Every member by name, with no `..`: a member added to `Sample` does not compile until it
    // is here, so none is left stale. The names are serde's (`Sample` renames none).
    let Sample {
        monotonic_ns,
        unix_ms,
        root,
        host,
        meminfo,
        vmstat,
        swaps,
        psi,
        zswap_params,
        zswap_debugfs,
        boot_params,
        zram,
        tunables,
        crypto,
        zoneinfo,
        swap_devices,
        block_stats,
        block_times,
        processes,
        faults,
        cgroups,
        cgroups_age_ns,
        oomd,
        swapin,
    } = sample;
    match name {
        "monotonic_ns" => *monotonic_ns = de(value)?,
        "unix_ms" => *unix_ms = de(value)?,
        "root" => *root = de(value)?,
        "host" => *host = de(value)?,
        "meminfo" => *meminfo = de(value)?,
        "vmstat" => *vmstat = de(value)?,
        "swaps" => *swaps = de(value)?,
        "psi" => *psi = de(value)?,
        "zswap_params" => *zswap_params = de(value)?,
        "zswap_debugfs" => *zswap_debugfs = de(value)?,
        "boot_params" => *boot_params = de(value)?,
        "zram" => *zram = de(value)?,
        "tunables" => *tunables = de(value)?,
        "crypto" => *crypto = de(value)?,
        "zoneinfo" => *zoneinfo = de(value)?,
        "swap_devices" => *swap_devices = de(value)?,
        "block_stats" => *block_stats = de(value)?,
        "block_times" => *block_times = de(value)?,
        "processes" => *processes = de(value)?,
        "faults" => *faults = de(value)?,
        "cgroups" => *cgroups = de(value)?,
        "cgroups_age_ns" => *cgroups_age_ns = de(value)?,
        "oomd" => *oomd = de(value)?,
        "swapin" => *swapin = de(value)?,
        _ => {}
    }
    Ok(())
}

// ---- the slot table ----

/// The slots of the latest sample, as both ends keep them: the writer to find what changed,
/// the reader to rebuild the sample.
#[derive(Debug, Clone, Default)]
pub struct Slots {
    paths: Vec<Vec<u8>>,
    /// The bytes of `paths` together (within [`PATH_BYTES_MAX`]).
    path_bytes: usize,
    values: Vec<Option<Leaf>>,
    /// Moves on with every keyframe read and every delta that changes a slot: equal
    /// generations hold the same sample, so a reader rebuilds it only when this moved.
    generation: u64,
    /// The sample last built by [`Slots::build`] (or why it could not be), with the
    /// generation it was built at: a record that changes no slot gives it again, unrebuilt.
    kept: Option<(u64, Result<Sample, DecodeError>)>,
    /// The tree `kept` was built from, while the table has only had values changed since (no
    /// slot added or removed, no keyframe, no failed record), and every slot is its own leaf
    /// of it (no path twice, none inside another's leaf).
    tree: Option<Value>,
    /// The slots whose value changed since that build.
    changed: Vec<usize>,
    /// How many builds were whole (every slot into a new tree).
    whole: u64,
}

impl Slots {
    /// Which state the slots are in: it moves on whenever what they hold may have changed
    /// (a keyframe, a delta that changes, adds or removes a slot, or one that failed part way).
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// How many of the builds were whole rebuilds (every slot into a new tree): what the tests
    /// check the incremental build by.
    #[cfg(test)]
    pub(crate) fn whole_builds(&self) -> u64 {
        self.whole
    }

    /// Rebuild the sample the slots hold.
    #[cfg(test)]
    pub(crate) fn sample(&self) -> Result<Sample, DecodeError> {
        de(self.tree()?)
    }

    /// The serde tree of the slots, each leaf put at its path in slot order.
    fn tree(&self) -> Result<Value, DecodeError> {
        let mut root = Value::Map(BTreeMap::new());
        let mut elements = self.values.iter().flatten().count();
        for (path, value) in self.paths.iter().zip(&self.values) {
            if let Some(leaf) = value {
                insert(&mut root, path, leaf, &mut elements)?;
            }
        }
        Ok(root)
    }

    /// The sample the slots hold, as [`Slots::sample`] makes it, in work that follows what
    /// changed since the last build rather than the size of the sample: none when nothing
    /// changed; when only values changed, each put into the kept tree at its place, and only
    /// the parts of the sample holding one deserialized again (the clocks alone, for most
    /// records; one element of the process or cgroup list). A record that changes the clocks
    /// and nothing else made a whole rebuild of the fixture sample with 20 processes and a
    /// cgroup tree: 173 us a row, most of export's CPU for a file of such records; 11.5 us
    /// now, one cgroup's counter 30.5 us before lists were patched by element (`cargo bench
    /// --bench record -- export-parts`).
    pub(crate) fn build(&mut self) -> Result<Sample, DecodeError> {
        let generation = self.generation;
        match &mut self.kept {
            Some((g, kept)) if *g == generation => return kept.clone(),
            Some((g, Ok(last))) => {
                if let Some(tree) = self.tree.as_mut()
                    && patch(tree, last, &self.changed, &self.paths, &self.values).is_some()
                {
                    *g = generation;
                    self.changed.clear();
                    return Ok(last.clone());
                }
            }
            _ => {}
        }
        self.tree = None;
        self.changed.clear();
        self.whole += 1;
        let built = self.tree().and_then(|tree| {
            let sample: Sample = de(tree.clone())?;
            if self.exact(&tree) {
                self.tree = Some(tree);
            }
            Ok(sample)
        });
        self.kept = Some((generation, built.clone()));
        built
    }

    /// Whether every slot is its own leaf of `tree`: no path twice, none under or over
    /// another's leaf. Then a slot's new value changes that leaf and nothing else, as a whole
    /// rebuild would.
    fn exact(&self, tree: &Value) -> bool {
        let mut seen = std::collections::HashSet::with_capacity(self.paths.len());
        self.paths
            .iter()
            .zip(&self.values)
            .all(|(path, value)| match value {
                Some(leaf) => {
                    seen.insert(path.as_slice()) && find(tree, path) == Some(&leaf.to_value())
                }
                None => true,
            })
    }

    /// A slot's value changed: patched into the next build, if there is a tree to patch.
    fn note_changed(&mut self, id: usize) {
        if self.tree.is_some() {
            self.changed.push(id);
        }
    }

    /// The table changed in shape (a keyframe, a slot added or removed, a failed record): the
    /// next build is a whole one.
    fn reshaped(&mut self) {
        self.tree = None;
        self.changed.clear();
    }

    /// Read a keyframe payload: every slot, replacing what was there.
    pub(crate) fn read_keyframe(&mut self, payload: &[u8]) -> Result<(), DecodeError> {
        self.reshaped();
        self.generation += 1;
        self.paths.clear();
        self.path_bytes = 0;
        self.values.clear();
        let mut input = Input::new(payload);
        let n = input.len()?;
        for _ in 0..n {
            self.add(&mut input)?;
        }
        trailing(&input)
    }

    /// Read one new slot (path and value) into the table, within [`SLOTS_MAX`].
    fn add(&mut self, input: &mut Input<'_>) -> Result<(), DecodeError> {
        if self.paths.len() >= SLOTS_MAX {
            return Err(bad(format!("more than {SLOTS_MAX} slots")));
        }
        let path = input.bytes_with_len()?;
        if self.path_bytes + path.len() > PATH_BYTES_MAX {
            return Err(bad(format!(
                "slot paths of more than {PATH_BYTES_MAX} bytes"
            )));
        }
        let path = path.to_vec();
        let leaf = Leaf::get(input, None)?;
        self.push(path, leaf);
        Ok(())
    }

    /// A new slot at the end of the table.
    fn push(&mut self, path: Vec<u8>, leaf: Leaf) {
        self.path_bytes += path.len();
        self.paths.push(path);
        self.values.push(Some(leaf));
    }

    /// Whether the table is larger than a reader takes.
    fn too_large(&self) -> bool {
        self.paths.len() > SLOTS_MAX || self.path_bytes > PATH_BYTES_MAX
    }

    /// Apply a delta payload to the slots of the record before it.
    pub(crate) fn read_delta(&mut self, payload: &[u8]) -> Result<(), DecodeError> {
        let read = self.apply_delta(payload);
        if read.is_err() {
            self.reshaped();
        }
        read
    }

    fn apply_delta(&mut self, payload: &[u8]) -> Result<(), DecodeError> {
        let mut input = Input::new(payload);
        let changed = input.len()?;
        for _ in 0..changed {
            let id = input.len()?;
            let slot = self
                .values
                .get_mut(id)
                .ok_or_else(|| bad(format!("slot {id} does not exist")))?;
            let leaf = Leaf::get(&mut input, slot.as_ref())?;
            let same = slot.as_ref().is_some_and(|old| old.identical(&leaf));
            // A removed slot set again is a slot added back: the shape changed.
            let was_there = slot.is_some();
            *slot = Some(leaf);
            if !same {
                self.generation += 1;
                if was_there {
                    self.note_changed(id);
                } else {
                    self.reshaped();
                }
            }
        }
        let added = input.len()?;
        for _ in 0..added {
            self.generation += 1;
            self.reshaped();
            self.add(&mut input)?;
        }
        let removed = input.len()?;
        for _ in 0..removed {
            let id = input.len()?;
            let slot = self
                .values
                .get_mut(id)
                .ok_or_else(|| bad(format!("slot {id} does not exist")))?;
            if slot.take().is_some() {
                self.generation += 1;
                self.reshaped();
            }
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
    /// Keep the processes' command lines (else each is left out, and the process list says so).
    command_lines: bool,
}

impl Encoder {
    /// An encoder that keeps the processes' command lines, or leaves them out.
    pub(crate) fn new(command_lines: bool) -> Encoder {
        Encoder {
            command_lines,
            ..Encoder::default()
        }
    }

    /// Back to an empty table after a failure, the settings kept.
    fn reset(&mut self) {
        *self = Encoder::new(self.command_lines);
    }

    /// Every slot of `sample`, replacing the table: a keyframe payload. An error when the
    /// sample is larger than a record may be ([`SLOTS_MAX`], [`RAW_MAX`]).
    pub(crate) fn keyframe(&mut self, sample: &Sample) -> Result<Vec<u8>, DecodeError> {
        let value = to_tree(sample, self.command_lines)?;
        self.slots = Slots::default();
        self.ids.clear();
        self.seen.clear();
        let mut body = Vec::with_capacity(4096);
        let mut count = 0u64;
        self.order.clear();
        let (slots, ids, order) = (&mut self.slots, &mut self.ids, &mut self.order);
        self.path.clear();
        let walked = walk(&value, &mut self.path, 0, &mut |path, leaf| {
            put_varint(&mut body, path.len() as u64);
            body.extend_from_slice(path);
            leaf.put_full(&mut body);
            ids.insert(path.to_vec(), slots.paths.len());
            order.push(slots.paths.len());
            slots.push(path.to_vec(), leaf);
            count += 1;
        });
        let too_large = self.slots.too_large() || body.len() + 10 > RAW_MAX;
        if let Err(e) = walked {
            self.reset();
            return Err(e);
        }
        if too_large {
            let (n, bytes) = (self.slots.paths.len(), body.len());
            self.reset();
            return Err(bad(format!(
                "it is larger than a record may be ({n} values in {bytes} bytes; at most {SLOTS_MAX} values, {PATH_BYTES_MAX} bytes of names, in {RAW_MAX} bytes): record fewer processes"
            )));
        }
        self.seen = vec![self.generation; self.slots.paths.len()];
        let mut out = Vec::with_capacity(body.len() + 3);
        put_varint(&mut out, count);
        out.extend_from_slice(&body);
        Ok(out)
    }

    /// Only the slots that changed since the last record: a delta payload, or `None` when the
    /// table would grow past [`SLOTS_MAX`] or the payload past [`RAW_MAX`] (the record must be
    /// a keyframe). The table moves on to `sample`.
    pub(crate) fn delta(&mut self, sample: &Sample) -> Result<Option<Vec<u8>>, DecodeError> {
        let value = to_tree(sample, self.command_lines)?;
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
        let walked = walk(&value, &mut self.path, 0, &mut |path, leaf| {
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
                slots.push(path.to_vec(), leaf);
                seen.push(generation);
                n_added += 1;
            }
        });
        if let Err(e) = walked {
            self.reset();
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
        if self.slots.too_large() || out.len() > RAW_MAX {
            return Ok(None);
        }
        Ok(Some(out))
    }
}

/// The serde tree of a sample as it is recorded: without the processes' command lines unless
/// they are kept (they can hold secrets: tokens and passwords passed as arguments), those of
/// the swap list and of the processes faulting most alike; the list then says they were not
/// recorded, so a replay shows that rather than nothing.
fn to_tree(sample: &Sample, command_lines: bool) -> Result<Value, DecodeError> {
    let mut value = serde_value::to_value(sample)
        .map_err(|e| bad(format!("sample does not serialize: {e}")))?;
    if !command_lines && sample.faults.is_some() {
        let scan = field(&mut value, "faults").and_then(|f| match f {
            Value::Option(Some(scan)) => Some(scan.as_mut()),
            _ => None,
        });
        let Some(Value::Map(scan)) = scan else {
            return Err(bad("the faulting processes do not have their usual shape"));
        };
        if let Some(Value::Seq(list)) = scan.get_mut(&Value::String("faulting".into())) {
            for f in list {
                if let Some(command) = field(f, "process").and_then(|p| field(p, "command")) {
                    *command = Value::Option(None);
                }
            }
        }
    }
    if !command_lines && sample.processes.is_some() {
        let scan = field(&mut value, "processes").and_then(|p| match p {
            Value::Option(Some(scan)) => Some(scan.as_mut()),
            _ => None,
        });
        let Some(Value::Map(scan)) = scan else {
            return Err(bad("the process list does not have its usual shape"));
        };
        if let Some(Value::Seq(top)) = scan.get_mut(&Value::String("top".into())) {
            for p in top {
                if let Some(command) = field(p, "command") {
                    *command = Value::Option(None);
                }
            }
        }
        scan.insert(
            Value::String("commands_not_recorded".into()),
            Value::Bool(true),
        );
    }
    Ok(value)
}

/// The field `name` of a struct's serde tree.
fn field<'v>(value: &'v mut Value, name: &str) -> Option<&'v mut Value> {
    match value {
        Value::Map(m) => m.get_mut(&Value::String(name.into())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slots of every fixture tree's fullest sample (every process, the cgroup tree, the
    /// settings, command lines) stay far under the bounds: a quarter of them at most.
    #[test]
    fn the_fullest_fixture_samples_are_far_under_the_slot_bounds() {
        let mut most = (0, 0);
        for tree in crate::root::fixture_trees() {
            let extras = crate::sources::Extras {
                smaps: false,
                top_processes: Some(usize::MAX),
                cgroups: true,
                settings: true,
            };
            let sample = crate::sources::collect_with(&crate::root::Root::at(&tree), extras);
            let mut enc = Encoder::new(true);
            enc.keyframe(&sample).unwrap();
            most.0 = most.0.max(enc.slots.paths.len());
            most.1 = most.1.max(enc.slots.path_bytes);
        }
        assert!(
            most.0 > 2000,
            "{most:?}: depth-many-processes has 175 processes"
        );
        assert!(
            most.0 * 4 <= SLOTS_MAX && most.1 * 4 <= PATH_BYTES_MAX,
            "{most:?}"
        );
    }

    /// A keyframe of more slots, or of longer paths, than a sample can have is refused as it
    /// is read, before the table holds it.
    #[test]
    fn a_keyframe_past_the_bounds_is_refused() {
        let keyframe = |n: usize, name: usize| {
            let mut out = Vec::new();
            put_varint(&mut out, n as u64);
            for i in 0..n {
                let mut path = vec![SEG_KEY];
                let key = format!("{i:0name$}");
                put_varint(&mut path, key.len() as u64);
                path.extend_from_slice(key.as_bytes());
                put_varint(&mut out, path.len() as u64);
                out.extend_from_slice(&path);
                Leaf::U64(0).put_full(&mut out);
            }
            out
        };
        let mut slots = Slots::default();
        assert!(slots.read_keyframe(&keyframe(SLOTS_MAX, 8)).is_ok());
        let e = slots
            .read_keyframe(&keyframe(SLOTS_MAX + 1, 8))
            .unwrap_err();
        assert!(e.0.contains("more than 16384 slots"), "{e}");
        let e = slots.read_keyframe(&keyframe(4096, 300)).unwrap_err();
        assert!(e.0.contains("slot paths of more than 1048576 bytes"), "{e}");
    }

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

    /// The generation moves with what a record changes, bit for bit: a float set to the same
    /// bits moves nothing, 0.0 becoming -0.0 (equal by `==`, printed apart) moves it, and so do
    /// a slot added and a slot removed.
    #[test]
    fn the_generation_moves_with_every_change_and_only_then() {
        let f = |bits: u64| {
            let mut p = vec![1, 0, T_F64];
            p.extend_from_slice(&bits.to_le_bytes());
            p.extend_from_slice(&[0, 0]);
            p
        };
        let mut slots = Slots::default();
        slots
            .read_keyframe(&[1, 0, T_F64, 0, 0, 0, 0, 0, 0, 0, 0])
            .unwrap();
        let g = slots.generation();
        slots.read_delta(&[0, 0, 0]).unwrap();
        slots.read_delta(&f(0)).unwrap();
        assert_eq!(slots.generation(), g);
        slots.read_delta(&f((-0.0f64).to_bits())).unwrap();
        assert!(slots.generation() > g);
        let g = slots.generation();
        slots.read_delta(&[0, 1, 1, SEG_SOME, T_NULL, 0]).unwrap();
        assert!(slots.generation() > g);
        let g = slots.generation();
        slots.read_delta(&[0, 0, 1, 1]).unwrap();
        assert!(slots.generation() > g);
        let g = slots.generation();
        slots.read_delta(&[0, 0, 1, 1]).unwrap();
        assert_eq!(slots.generation(), g, "a slot removed again");
    }

    /// A build from the last one, patching what changed, is the whole rebuild, bit for bit:
    /// over records that move the clocks, counters, one process, one cgroup, a string, several
    /// parts at once, and that add or remove list elements (a whole rebuild then); and one that
    /// changes a single element of a list rebuilds only that.
    #[test]
    fn a_build_from_the_last_is_the_whole_rebuild() {
        let mut s = crate::sources::largest_fixture_sample(false);
        assert!(s.processes.as_ref().is_some_and(|p| p.top.len() >= 3));
        assert!(matches!(&s.cgroups, Some(Ok(l)) if l.len() >= 3));
        let mut enc = Encoder::new(true);
        let mut slots = Slots::default();
        slots.read_keyframe(&enc.keyframe(&s).unwrap()).unwrap();
        assert_eq!(slots.build().unwrap(), s);
        let whole = slots.whole_builds();
        for step in 0..60u64 {
            s.unix_ms += 1000;
            s.monotonic_ns += 1_000_000_000;
            let procs = &mut s.processes.as_mut().unwrap().top;
            let Some(Ok(cgroups)) = s.cgroups.as_mut() else {
                unreachable!()
            };
            match step % 6 {
                0 => {}
                1 => procs[1].swap_bytes += 4096,
                2 => cgroups[2].memory_current = Some(step * 4096),
                3 => procs[0].name = format!("name-{step}"),
                4 => {
                    cgroups[0].inode += 1;
                    procs[2].swap_bytes += 4096;
                    let vmstat = s.vmstat.as_mut().ok().and_then(|v| v.pswpin.as_mut());
                    *vmstat.expect("the fixture has pswpin") += step;
                }
                _ => {}
            }
            // Now and then the shape changes: a process leaves, or comes back.
            if step == 20 {
                let gone = s.processes.as_mut().unwrap().top.pop();
                assert!(gone.is_some());
            }
            // A figure becoming unknown: its slot (`rss_bytes`/Some) gives way to another.
            if step == 40 {
                s.processes.as_mut().unwrap().top[2].rss_bytes = None;
            }
            let payload = enc.delta(&s).unwrap().unwrap_or_else(|| vec![0, 0, 0]);
            slots.read_delta(&payload).unwrap();
            let built = slots.build().unwrap();
            assert_eq!(built, slots.sample().unwrap(), "step {step}");
            assert_eq!(built, s, "step {step}");
        }
        // Only the two records that changed the slots' shape were whole rebuilds.
        assert_eq!(slots.whole_builds() - whole, 2);
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
