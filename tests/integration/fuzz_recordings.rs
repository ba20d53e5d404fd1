//! Fuzzing recordings in the debug build (overflow checks on): real recordings — of fixture
//! trees with processes, cgroups and hostile strings, and assets/demo.zsr — damaged byte by
//! byte, and, with their payloads stored uncompressed and their checksums made right again,
//! damaged inside the records (so the slot decoder and the model see what a crafted file can
//! say). Each goes through the reader, the model, the rules, the text and JSON reports, and a
//! writer appending to it. Nothing may panic, no output may hold a raw control character, and
//! the scan's work stays within its bound. Bounded: `CASES` cases; no failure file is written.

use crate::common;
use crate::common::crafted;

use std::path::Path;

use zswaptop::record::codec;
use zswaptop::record::frame::{self, FLAG_ZSTD, HEADER_LEN, KIND_KEYFRAME};
use zswaptop::record::{Reader, Writer, WriterOptions};
use zswaptop::report::{json, text};
use zswaptop::sources::{self, Extras, Sample};

const CASES: u64 = 300;

use crafted::Lcg;

/// Values a crafted varint may hold: the edges of every width.
const EDGES: &[u64] = &[
    0,
    1,
    0x7f,
    0x80,
    0xffff,
    0xffff_ffff,
    1 << 20,
    1 << 32,
    i64::MAX as u64,
    u64::MAX,
];

fn recording(samples: &[Sample], path: &Path) -> Vec<u8> {
    let mut w = Writer::open(
        path,
        WriterOptions {
            keyframe_every: 5,
            command_lines: true,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    for s in samples {
        w.append(s).unwrap();
    }
    drop(w);
    std::fs::read(path).unwrap()
}

/// The frames of a recording with every payload stored uncompressed.
fn open_frames(bytes: &[u8]) -> Vec<(u8, u64, Vec<u8>)> {
    let scan = frame::scan(bytes, HEADER_LEN as u64).unwrap();
    let mut dict: Option<Vec<u8>> = None;
    let mut out = Vec::new();
    for (o, f) in scan.frames {
        let body = &bytes[o as usize + 8 + 9..o as usize + f.len];
        let key = f.kind & !FLAG_ZSTD == KIND_KEYFRAME;
        let raw = if f.kind & FLAG_ZSTD != 0 {
            let mut n = 0u64;
            let mut i = 0;
            loop {
                n |= u64::from(body[i] & 0x7f) << (7 * i);
                i += 1;
                if body[i - 1] & 0x80 == 0 {
                    break;
                }
            }
            if key {
                zstd::bulk::decompress(&body[i..], n as usize).unwrap()
            } else {
                zstd::bulk::Decompressor::with_dictionary(dict.as_ref().unwrap())
                    .unwrap()
                    .decompress(&body[i..], n as usize)
                    .unwrap()
            }
        } else {
            body.to_vec()
        };
        if key {
            dict = Some(raw.clone());
        }
        out.push((f.kind & !FLAG_ZSTD, f.unix_ms, raw));
    }
    out
}

fn assemble(frames: &[(u8, u64, Vec<u8>)]) -> Vec<u8> {
    let mut out = frame::header(frame::VERSION).to_vec();
    for (kind, ms, payload) in frames {
        out.extend_from_slice(&frame::frame(*kind, *ms, payload));
    }
    out
}

/// Damage inside one record's payload, its frame made intact again.
fn mutate_payload(rng: &mut Lcg, frames: &mut [(u8, u64, Vec<u8>)]) {
    let i = rng.below(frames.len());
    let (kind, ms, p) = &mut frames[i];
    match rng.below(8) {
        0 => {
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(p.len());
                p[at] ^= 1 << rng.below(8);
            }
        }
        1 => {
            let at = rng.below(p.len());
            p[at] = rng.next() as u8;
        }
        2 => {
            // A varint of an edge value spliced in.
            let at = rng.below(p.len());
            let mut v = Vec::new();
            codec::put_varint(&mut v, EDGES[rng.below(EDGES.len())]);
            p.splice(at..(at + v.len()).min(p.len()), v);
        }
        3 => p.truncate(rng.below(p.len())),
        4 => {
            let at = rng.below(p.len());
            let junk: Vec<u8> = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
            p.splice(at..at, junk);
        }
        5 => {
            *kind = if *kind == KIND_KEYFRAME {
                2
            } else {
                KIND_KEYFRAME
            }
        }
        6 => *ms = EDGES[rng.below(EDGES.len())],
        _ => {
            // A tag byte made into another tag.
            let at = rng.below(p.len());
            p[at] = rng.below(16) as u8;
        }
    }
}

/// Damage to the bytes of the file.
fn mutate_bytes(rng: &mut Lcg, b: &mut Vec<u8>) {
    match rng.below(6) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(b.len());
                b[at] ^= 1 << rng.below(8);
            }
        }
        1 => b.truncate(HEADER_LEN + rng.below(b.len() - HEADER_LEN)),
        2 => {
            let at = rng.below(b.len());
            let n = rng.below(512).min(b.len() - at);
            for x in &mut b[at..at + n] {
                *x = rng.next() as u8;
            }
        }
        3 => {
            // A stretch repeated (a copy gone wrong).
            let at = rng.below(b.len());
            let n = rng.below(2048).min(b.len() - at);
            let copy = b[at..at + n].to_vec();
            let to = rng.below(b.len());
            b.splice(to..to, copy);
        }
        4 => {
            let at = rng.below(b.len());
            let n = rng.below(2048).min(b.len() - at);
            b.drain(at..at + n);
        }
        _ => {
            let at = rng.below(16);
            b[at] ^= 1 << rng.below(8);
        }
    }
}

/// Read every record; derive and print the first `SHOWN` that decode. How many decoded, and
/// how many did not.
fn check_outputs(case: u64, r: &mut Reader) -> (usize, usize) {
    const SHOWN: usize = 12;
    let all = common::samples_in(r, None, None);
    let bad = all.iter().filter(|s| s.is_err()).count();
    let good = all.len() - bad;
    let mut prev: Option<Sample> = None;
    for s in all.into_iter().flatten().take(SHOWN) {
        let snap = zswaptop::pipeline::snapshot(&s, prev.as_ref());
        let mut out = Vec::new();
        json::write(&snap, &mut out).unwrap();
        text::write(&snap, &mut out, text::Style { color: false }).unwrap();
        crafted::assert_no_raw_control_or_bidi(
            &format!("case {case}"),
            &String::from_utf8_lossy(&out),
        );
        prev = Some(s);
    }
    for w in r.warnings() {
        crafted::assert_no_raw_control_or_bidi(&format!("case {case}"), &w.to_string());
    }
    if let Some(b) = r.bounds() {
        let _ = r.at(b.last);
    }
    (good, bad)
}

#[test]
fn damaged_recordings_never_panic_nor_print_raw_controls() {
    let dir = tempfile::tempdir().unwrap();
    let extras = Extras {
        smaps: false,
        top_processes: Some(5),
        cgroups: true,
        settings: true,
    };
    let mut samples: Vec<Sample> = (0..6).map(crafted::hostile_sample).collect();
    for (i, name) in [
        "linux-6.18-zram",
        "depth-multi-swap",
        "garbage",
        "hostile-names",
    ]
    .iter()
    .enumerate()
    {
        let mut s = sources::collect_with(&common::fixture(name), extras);
        s.unix_ms = crafted::T0 + (10 + i as u64) * 1000;
        s.monotonic_ns = 1_000_000_000_000 + (10 + i as u64) * 1_000_000_000;
        samples.push(s);
    }
    let base = recording(&samples, &dir.path().join("base.zsr"));
    // The first 40 records of the demo (its first keyframe and what builds on it).
    let demo_all = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.zsr")).unwrap();
    let demo_scan = frame::scan(&demo_all[..], HEADER_LEN as u64).unwrap();
    let (o, f) = demo_scan.frames[39];
    let demo = demo_all[..o as usize + f.len].to_vec();
    let opened = [open_frames(&base), open_frames(&demo)];
    let (mut decoded, mut refused, mut unopened) = (0, 0, 0);
    let path = dir.path().join("case.zsr");
    let mut rng = Lcg(2026);
    for case in 0..CASES {
        let k = rng.below(2);
        let bytes = if case % 2 == 0 {
            let mut frames = opened[k].clone();
            for _ in 0..1 + rng.below(3) {
                mutate_payload(&mut rng, &mut frames);
            }
            assemble(&frames)
        } else {
            let mut b = if k == 0 { base.clone() } else { demo.clone() };
            mutate_bytes(&mut rng, &mut b);
            b
        };
        std::fs::write(&path, &bytes).unwrap();
        let scan = frame::scan(&bytes[..], HEADER_LEN as u64).unwrap();
        let bound = 5 * bytes.len() as u64 + 2 * frame::BODY_MAX as u64;
        assert!(scan.crc_bytes <= bound, "case {case}: {}", scan.crc_bytes);
        match Reader::open(&path) {
            Ok(mut r) => {
                let (good, bad) = check_outputs(case, &mut r);
                decoded += good;
                refused += bad;
            }
            Err(e) => {
                unopened += 1;
                crafted::assert_no_raw_control_or_bidi(&format!("case {case}"), &e.to_string());
            }
        }
        // A recorder appending to the damaged file: it goes on, or refuses with a reason.
        if let Ok(mut w) = Writer::open(&path, WriterOptions::default()) {
            let mut s = samples[0].clone();
            s.unix_ms += 3_600_000;
            w.append(&s).unwrap();
            drop(w);
            let r = Reader::open(&path).unwrap();
            assert!(!r.is_empty(), "case {case}");
        }
    }
    // The damage reached the decoder both ways: records decoded and records refused.
    eprintln!(
        "{CASES} cases: {decoded} records decoded, {refused} refused, {unopened} files refused"
    );
    assert!(decoded > 1000 && refused > 100, "{decoded} {refused}");
}
