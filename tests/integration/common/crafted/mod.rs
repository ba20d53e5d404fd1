//! Hostile recordings, built byte by byte from the format document (docs/recording-format.md),
//! and the check every output of them must pass. The files are tests/fixtures/recording-*.zsr
//! (files, beside the trees); `ZSWAPTOP_BLESS=1 cargo test --test integration
//! store::crafted_fixtures_are_what_the_generator_makes` writes them again. Two cases too large to
//! keep in the repository are made by the tests that use them: [`many_slots`] and a 4 MiB
//! [`resync_bomb`].

pub mod disk;

use std::path::{Path, PathBuf};

use serde_value::Value;
use zswaptop::record::codec;
use zswaptop::record::frame::{self, FLAG_ZSTD, KIND_DELTA, KIND_KEYFRAME};
use zswaptop::record::{Writer, WriterOptions};
use zswaptop::root::Root;
use zswaptop::sources::{self, Extras, Sample};

/// 2026-11-22T03:00:00Z.
pub const T0: u64 = 1_795_316_400_000;

/// OSC 0 (retitle the terminal), BEL, a C1 CSI, and the right-to-left override.
pub const HOSTILE: &str = "x\u{1b}]0;pwned\u{7}\u{9b}2J\u{202e}gnp.exe";

/// The crafted recordings and what each one is.
pub const CASES: &[(&str, &str)] = &[
    (
        "escape-variant.zsr",
        "a keyframe whose sample names an unknown variant holding OSC, BEL, C1 and bidi characters: the decode error quotes it",
    ),
    (
        "hostile-strings.zsr",
        "three intact samples whose host name, process names, command lines, cgroups and swap paths hold control and bidi characters",
    ),
    (
        "slot-bomb.zsr",
        "792 bytes whose slots each claim list index 1,000,000 (33 MB a slot before the bound)",
    ),
    (
        "deep-path.zsr",
        "a slot path 100,000 segments deep (a tree too deep to walk or free)",
    ),
    (
        "expand-bomb.zsr",
        "records of a few hundred bytes each claiming to expand to 4 MiB (zstd runs)",
    ),
    (
        "resync-bomb.zsr",
        "64 KiB in which every 17th offset claims a frame of half the file with a wrong checksum",
    ),
];

pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("recording-{name}"))
}

/// The bytes of a crafted case.
pub fn build(name: &str) -> Vec<u8> {
    match name {
        "escape-variant.zsr" => escape_variant(),
        "hostile-strings.zsr" => hostile_strings(),
        "slot-bomb.zsr" => slot_bomb(),
        "deep-path.zsr" => deep_path(),
        "expand-bomb.zsr" => expand_bomb(200),
        "resync-bomb.zsr" => resync_bomb(64 << 10),
        _ => panic!("no crafted case {name}"),
    }
}

fn varint(out: &mut Vec<u8>, v: u64) {
    codec::put_varint(out, v);
}

/// A path segment naming a struct field or map key.
fn key(out: &mut Vec<u8>, k: &str) {
    out.push(0);
    varint(out, k.len() as u64);
    out.extend_from_slice(k.as_bytes());
}

/// One slot of a keyframe: the path, then a u64 value.
fn slot_u64(out: &mut Vec<u8>, path: &[u8], v: u64) {
    varint(out, path.len() as u64);
    out.extend_from_slice(path);
    out.push(3);
    varint(out, v);
}

fn file(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = frame::header(frame::VERSION).to_vec();
    for f in frames {
        out.extend_from_slice(f);
    }
    out
}

fn keyframe(count: u64, slots: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    varint(&mut payload, count);
    payload.extend_from_slice(slots);
    frame::frame(KIND_KEYFRAME, T0, &payload)
}

fn escape_variant() -> Vec<u8> {
    // `meminfo` is a Result: its variants are `Ok` and `Err`.
    let mut path = Vec::new();
    key(&mut path, "meminfo");
    key(&mut path, HOSTILE);
    let mut slots = Vec::new();
    slot_u64(&mut slots, &path, 1);
    file(&[keyframe(1, &slots)])
}

/// A fixture's sample with every string a user can choose made hostile.
pub fn hostile_sample(i: u64) -> Sample {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/depth-cgroup-v2");
    let s = sources::collect_with(
        &Root::at(&root),
        Extras {
            smaps: false,
            top_processes: Some(5),
            cgroups: true,
            settings: true,
        },
    );
    let mut s = as_if_at_slash(&s, &root);
    s.root = "/".into();
    s.unix_ms = T0 + i * 1000;
    s.monotonic_ns = 1_000_000_000_000 + i * 1_000_000_000;
    // What the clock said while reading (when, and how long it took) varies from run to run:
    // fixed, so the file is the same every time it is made.
    s.cgroups_age_ns = 0;
    // A cgroup's inode is the checkout's (the tree's directories): numbered instead.
    if let Some(Ok(cgroups)) = s.cgroups.as_mut() {
        for (n, c) in cgroups.iter_mut().enumerate() {
            c.inode = 1000 + n as u64;
        }
    }
    if let Ok(z) = s.zoneinfo.as_mut() {
        z.read_ns = s.monotonic_ns;
        z.cost_ns = 0;
    }
    s.host.privileged = true;
    s.host.hostname = Some(format!("host{HOSTILE}"));
    if let Some(p) = s.processes.as_mut() {
        for (k, proc) in p.top.iter_mut().enumerate() {
            proc.name = format!("p{k}{HOSTILE}");
            proc.command = Some(format!("/bin/p{k} --token {HOSTILE}"));
            proc.cgroup = Some(format!("/system.slice/{HOSTILE}.service"));
        }
    }
    if let Ok(swaps) = s.swaps.as_mut() {
        for sw in swaps {
            sw.path = format!("/swap{HOSTILE}");
        }
    }
    s
}

/// `sample` with the tree's place on disk taken off the front of every string in it (the paths
/// of the files it lacks name it): a sample of `/`, the same wherever the repository is checked
/// out, and so are the files made of it.
fn as_if_at_slash(sample: &Sample, tree: &Path) -> Sample {
    fn strip(v: Value, tree: &str) -> Value {
        match v {
            Value::String(s) => Value::String(match s.strip_prefix(tree) {
                Some(rest) if rest.starts_with('/') => rest.to_string(),
                _ => s,
            }),
            Value::Option(o) => Value::Option(o.map(|v| Box::new(strip(*v, tree)))),
            Value::Newtype(v) => Value::Newtype(Box::new(strip(*v, tree))),
            Value::Seq(s) => Value::Seq(s.into_iter().map(|v| strip(v, tree)).collect()),
            Value::Map(m) => Value::Map(
                m.into_iter()
                    .map(|(k, v)| (strip(k, tree), strip(v, tree)))
                    .collect(),
            ),
            other => other,
        }
    }
    let tree = tree.to_str().unwrap();
    strip(serde_value::to_value(sample).unwrap(), tree)
        .deserialize_into()
        .unwrap()
}

fn hostile_strings() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.zsr");
    let mut w = Writer::open(
        &path,
        WriterOptions {
            command_lines: true,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    for i in 0..3 {
        w.append(&hostile_sample(i)).unwrap();
    }
    drop(w);
    std::fs::read(&path).unwrap()
}

fn slot_bomb() -> Vec<u8> {
    // Each slot: the root as a list, index 1,000,000 + k.
    let mut slots = Vec::new();
    let mut n = 0;
    loop {
        let mut path = vec![1];
        varint(&mut path, 1_000_000 + n);
        let mut one = Vec::new();
        slot_u64(&mut one, &path, 7);
        if frame::HEADER_LEN + 8 + 9 + 2 + slots.len() + one.len() > 792 {
            break;
        }
        slots.extend_from_slice(&one);
        n += 1;
    }
    let out = file(&[keyframe(n, &slots)]);
    assert!(out.len() <= 792);
    out
}

fn deep_path() -> Vec<u8> {
    let mut path = Vec::new();
    key(&mut path, "host");
    path.extend(std::iter::repeat_n(2u8, 100_000));
    let mut slots = Vec::new();
    slot_u64(&mut slots, &path, 1);
    file(&[keyframe(1, &slots)])
}

/// A keyframe of one more slot than a record may hold (each slot a few bytes: 800 KB).
pub fn many_slots() -> Vec<u8> {
    let n = codec::SLOTS_MAX as u64 + 1;
    let mut slots = Vec::new();
    for i in 0..n {
        let mut path = vec![1];
        varint(&mut path, i);
        slot_u64(&mut slots, &path, 0);
    }
    file(&[keyframe(n, &slots)])
}

/// One keyframe of `n` slots under unknown names of `name_len` bytes, each holding 0.
pub fn unknown_slots(n: usize, name_len: usize) -> Vec<u8> {
    let mut slots = Vec::new();
    for i in 0..n {
        let mut path = Vec::new();
        key(&mut path, &format!("{i:0name_len$}"));
        slot_u64(&mut slots, &path, 0);
    }
    file(&[keyframe(n as u64, &slots)])
}

/// `n` records, each a zstd frame of zeros claiming [`frame::RAW_MAX`] bytes.
pub fn expand_bomb(n: usize) -> Vec<u8> {
    let zeros = vec![0u8; frame::RAW_MAX];
    let packed = zstd::bulk::compress(&zeros, 19).unwrap();
    let mut payload = Vec::new();
    varint(&mut payload, frame::RAW_MAX as u64);
    payload.extend_from_slice(&packed);
    let frames: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let kind = if i == 0 { KIND_KEYFRAME } else { KIND_DELTA };
            frame::frame(kind | FLAG_ZSTD, T0 + i as u64 * 1000, &payload)
        })
        .collect();
    file(&frames)
}

/// `size` bytes in which every 17th offset claims a keyframe of half the file, with a
/// plausible time and a wrong checksum.
pub fn resync_bomb(size: usize) -> Vec<u8> {
    let mut out = frame::header(frame::VERSION).to_vec();
    let claim = (size / 2) as u32;
    while out.len() + 17 <= size {
        out.extend_from_slice(&claim.to_le_bytes());
        out.extend_from_slice(&0xdead_beef_u32.to_le_bytes());
        out.push(KIND_KEYFRAME);
        out.extend_from_slice(&T0.to_le_bytes());
    }
    out.resize(size, 0);
    out
}

/// A small deterministic generator, so a failure replays.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n.max(1)
    }
}

/// Whether `sanitize::visible` escapes bidi and invisible format characters yet (another
/// change extends it to them; until it lands, only control characters are asserted).
pub fn bidi_is_escaped() -> bool {
    zswaptop::sanitize::visible("\u{202e}") != "\u{202e}"
}

/// Bidi controls and invisible characters that can reorder or hide text on a terminal.
pub fn is_bidi_or_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200b}'..='\u{200d}'
            | '\u{feff}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Panic if `text` (an output of zswaptop) holds a raw control character — C0 but for
/// newline and tab, DEL, C1, ESC among them — or, once `sanitize::visible` escapes them
/// ([`bidi_is_escaped`]), a raw bidi or invisible character.
pub fn assert_no_raw_control_or_bidi(what: &str, text: &str) {
    let bidi = bidi_is_escaped();
    for (i, c) in text.char_indices() {
        let control = c.is_control() && c != '\n' && c != '\t';
        assert!(
            !(control || (bidi && is_bidi_or_invisible(c))),
            "{what}: raw {c:?} at byte {i}: {:?}",
            &text[text.floor_char_boundary(i.saturating_sub(60))
                ..text.ceil_char_boundary((i + 60).min(text.len()))]
        );
    }
}
