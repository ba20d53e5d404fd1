//! Recordings: round trips of real samples, and every kind of damage a recording can suffer.
//! Nothing here may panic in the store; each damaged case checks what the reader says it
//! skipped.

use crate::common::crafted;
use crate::common::{self, skip};

use std::fs;
use std::path::Path;

use zswaptop::record::frame::{self, HEADER_LEN};
use zswaptop::record::{Error, Reader, WarningKind, Writer, WriterOptions};
use zswaptop::root::Root;
use zswaptop::sources::{self, Extras, Sample};

const T0: u64 = 1_795_000_000_000;

fn extras(top: bool) -> Extras {
    Extras {
        smaps: false,
        top_processes: top.then_some(20),
        cgroups: top,
        settings: false,
    }
}

/// A fixture's sample at `T0 + i` seconds.
fn at(mut s: Sample, i: u64) -> Sample {
    s.unix_ms = T0 + i * 1000;
    s.monotonic_ns = 5_000_000_000 + i * 1_000_000_000;
    s
}

/// `n` samples of a fixture with counters moving like a live machine's.
fn moving(name: &str, n: u64) -> Vec<Sample> {
    let base = sources::collect_with(&common::fixture(name), extras(true));
    (0..n)
        .map(|i| {
            let mut s = at(base.clone(), i);
            if let Ok(m) = s.meminfo.as_mut() {
                m.mem_free += i * 4096 * 3;
                m.cached = m.cached.wrapping_sub(i * 4096);
            }
            if let Ok(v) = s.vmstat.as_mut() {
                v.zswpout = v.zswpout.map(|x| x + i * i);
            }
            s.host.uptime_seconds = s.host.uptime_seconds.map(|u| u + i as f64);
            s
        })
        .collect()
}

fn write_all(path: &Path, opts: WriterOptions, samples: &[Sample]) {
    let mut w = Writer::open(path, opts).unwrap();
    for s in samples {
        w.append(s).unwrap();
    }
}

fn read_all(r: &mut Reader) -> Vec<Sample> {
    common::samples_in(r, None, None)
        .into_iter()
        .map(|s| s.unwrap())
        .collect()
}

fn kinds(r: &Reader) -> Vec<WarningKind> {
    r.warnings().iter().map(|w| w.kind).collect()
}

/// The default options, command lines kept: what is read back is what was written.
fn exact() -> WriterOptions {
    WriterOptions {
        command_lines: true,
        ..WriterOptions::default()
    }
}

fn small_keyframes() -> WriterOptions {
    WriterOptions {
        keyframe_every: 4,
        ..exact()
    }
}

#[test]
fn every_fixture_round_trips_with_and_without_processes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.zsr");
    let mut samples = Vec::new();
    for (i, root) in common::fixture_trees().iter().enumerate() {
        for top in [false, true] {
            let s = sources::collect_with(&Root::at(root), extras(top));
            samples.push(at(s, samples.len() as u64 + i as u64));
        }
    }
    assert!(samples.len() >= 30);
    write_all(&path, exact(), &samples);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(r.warnings(), &[]);
    assert_eq!(r.len(), samples.len());
    let back = read_all(&mut r);
    for (a, b) in samples.iter().zip(&back) {
        assert_eq!(a, b, "{}", a.root);
    }
}

/// Samples from machines with other swap devices in one file (slots come and go).
#[test]
fn a_recording_mixing_machines_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.zsr");
    let names = [
        "depth-multi-swap",
        "linux-6.18-zram",
        "depth-zram-writeback",
        "linux-6.18-no-swap",
        "depth-multi-swap",
        "garbage",
        "e2e-phase3-zram",
        "empty-root",
        "linux-6.18-loaded",
    ];
    let samples: Vec<Sample> = names
        .iter()
        .cycle()
        .take(40)
        .enumerate()
        .map(|(i, n)| {
            at(
                sources::collect_with(&common::fixture(n), extras(i % 3 == 0)),
                i as u64,
            )
        })
        .collect();
    write_all(&path, exact(), &samples);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(read_all(&mut r), samples);
    let m = r.moment(7).unwrap();
    assert_eq!(m.sample, samples[7]);
    assert_eq!(m.prev.as_ref(), Some(&samples[6]));
}

#[test]
fn live_samples_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.zsr");
    let root = Root::live();
    let mut samples = vec![sources::collect(&root)];
    for top in [false, true, true, false] {
        std::thread::sleep(std::time::Duration::from_millis(20));
        samples.push(sources::collect_fast(&root, &samples[0], extras(top)));
    }
    write_all(&path, small_keyframes(), &samples);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(read_all(&mut r), samples);
}

#[test]
fn at_gives_the_sample_at_or_before_and_the_one_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.zsr");
    let samples = moving("linux-6.18-writeback", 50);
    write_all(&path, small_keyframes(), &samples);
    let mut r = Reader::open(&path).unwrap();
    let ts = |ms: u64| zswaptop::record::time::timestamp(ms).unwrap();
    assert!(r.at(ts(T0 - 1)).unwrap().is_none());
    let m = r.at(ts(T0)).unwrap().unwrap();
    assert_eq!((m.position, m.prev), (0, None));
    let m = r.at(ts(T0 + 10_500)).unwrap().unwrap();
    assert_eq!(m.sample, samples[10]);
    assert_eq!(m.prev.unwrap(), samples[9]);
    // Backwards, then forwards again: the cursor restarts from the right keyframe.
    assert_eq!(r.sample(3).unwrap(), samples[3]);
    assert_eq!(r.sample(49).unwrap(), samples[49]);
    assert_eq!(r.at(ts(T0 + 999_999)).unwrap().unwrap().sample, samples[49]);
    let mid: Vec<Sample> = common::samples_in(&mut r, Some(ts(T0 + 20_000)), Some(ts(T0 + 24_000)))
        .into_iter()
        .map(|s| s.unwrap())
        .collect();
    assert_eq!(mid, samples[20..=24]);
    let b = r.bounds().unwrap();
    assert_eq!(b.first, ts(T0));
    assert_eq!(b.last, ts(T0 + 49_000));
}

/// The offsets of the frames in a recording file.
fn frames(bytes: &[u8]) -> Vec<(u64, usize)> {
    let scan = frame::scan(bytes, HEADER_LEN as u64).unwrap();
    assert!(scan.gaps.is_empty());
    scan.frames.iter().map(|(o, f)| (*o, f.len)).collect()
}

#[test]
fn a_tail_cut_at_any_byte_of_the_last_two_records_loses_only_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.zsr");
    let samples = moving("linux-6.18-loaded", 12);
    // Keyframe every 4: records 8..11 are a keyframe and three deltas; cut within 10 and 11.
    write_all(&path, small_keyframes(), &samples);
    let bytes = fs::read(&path).unwrap();
    let fr = frames(&bytes);
    assert_eq!(fr.len(), 12);
    let start = fr[10].0 as usize;
    let cut_path = dir.path().join("torn.zsr");
    for cut in start..bytes.len() {
        fs::write(&cut_path, &bytes[..cut]).unwrap();
        let mut r = Reader::open(&cut_path).unwrap();
        let whole = fr.iter().filter(|(o, l)| *o as usize + l <= cut).count();
        assert_eq!(r.len(), whole, "cut at {cut}");
        let torn = cut != fr[whole - 1].0 as usize + fr[whole - 1].1;
        if torn {
            let w = &r.warnings()[0];
            assert_eq!(w.kind, WarningKind::TornTail, "cut at {cut}: {w}");
            assert_eq!(w.offset, Some(fr[whole - 1].0 + fr[whole - 1].1 as u64));
            assert!(w.to_string().contains("torn record"), "{w}");
        } else {
            assert_eq!(r.warnings(), &[], "cut at {cut}");
        }
        assert_eq!(read_all(&mut r), samples[..whole], "cut at {cut}");
        // Appending again cuts the torn record off and goes on.
        if cut % 13 == 0 {
            write_all(&cut_path, small_keyframes(), &samples[whole..]);
            let mut r = Reader::open(&cut_path).unwrap();
            assert_eq!(r.warnings(), &[], "append after cut at {cut}");
            assert_eq!(read_all(&mut r), samples, "append after cut at {cut}");
        }
    }
}

use crafted::Lcg;

#[test]
fn random_corruption_in_the_middle_skips_only_what_it_touches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.zsr");
    let samples = moving("depth-multi-swap", 40);
    write_all(&path, small_keyframes(), &samples);
    let bytes = fs::read(&path).unwrap();
    let fr = frames(&bytes);
    let (lo, hi) = (fr[10].0 as usize, fr[30].0 as usize);
    let mut rng = Lcg(42);
    let bad = dir.path().join("bad.zsr");
    for round in 0..200 {
        let mut b = bytes.clone();
        let flips = 1 + rng.next() % 8;
        for _ in 0..flips {
            let i = lo + (rng.next() as usize) % (hi - lo);
            b[i] ^= 1 << (rng.next() % 8);
        }
        if round % 5 == 0 {
            // A burst of junk, as a bad sector would leave.
            let i = lo + (rng.next() as usize) % (hi - lo - 64);
            for x in &mut b[i..i + 64] {
                *x = rng.next() as u8;
            }
        }
        fs::write(&bad, &b).unwrap();
        let mut r = Reader::open(&bad).unwrap();
        let k = kinds(&r);
        assert!(k.contains(&WarningKind::Corrupt), "round {round}: {k:?}");
        assert!(!k.contains(&WarningKind::TornTail), "round {round}: {k:?}");
        // Damage is reported where it is; what depends on it, up to the next keyframe (32).
        for w in r.warnings() {
            let o = w.offset.unwrap() as usize;
            assert!((lo..fr[32].0 as usize).contains(&o), "round {round}: {w}");
        }
        // Every record before the damage and after the next keyframe is there, unchanged.
        let back = read_all(&mut r);
        assert!(back.len() >= 10 + 8, "round {round}: {}", back.len());
        assert_eq!(back[..10], samples[..10]);
        assert_eq!(back[back.len() - 8..], samples[32..]);
        for s in &back {
            let i = ((s.unix_ms - T0) / 1000) as usize;
            assert_eq!(s, &samples[i], "round {round}");
        }
    }
}

#[test]
fn a_lost_keyframe_orphans_its_deltas_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.zsr");
    let samples = moving("linux-6.18-idle", 12);
    write_all(&path, small_keyframes(), &samples);
    let mut bytes = fs::read(&path).unwrap();
    let fr = frames(&bytes);
    bytes[fr[4].0 as usize + 12] ^= 0xff;
    fs::write(&path, &bytes).unwrap();
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(kinds(&r), [WarningKind::Corrupt, WarningKind::Orphaned]);
    assert_eq!(r.warnings()[1].offset, Some(fr[5].0));
    assert!(r.warnings()[1].detail.starts_with("3 records skipped"));
    let back = read_all(&mut r);
    assert_eq!(back[..4], samples[..4]);
    assert_eq!(back[4..], samples[8..]);
    // Rates across the hole pair the sample with the last one that survived.
    assert_eq!(r.moment(4).unwrap().prev.unwrap(), samples[3]);
}

#[test]
fn an_empty_file_and_a_cut_header_hold_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let header = frame::header(frame::VERSION);
    for n in [0, 1, 7, 8, 9, 15] {
        let path = dir.path().join(format!("h{n}.zsr"));
        fs::write(&path, &header[..n]).unwrap();
        let r = Reader::open(&path).unwrap();
        assert!(r.is_empty());
        assert_eq!(kinds(&r), [WarningKind::Empty], "{n} bytes");
        assert!(r.bounds().is_none());
        // The recorder starts such a file afresh.
        let samples = moving("linux-6.18-idle", 3);
        write_all(&path, exact(), &samples);
        let mut r = Reader::open(&path).unwrap();
        assert_eq!(r.warnings(), &[]);
        assert_eq!(read_all(&mut r), samples);
    }
}

#[test]
fn a_newer_format_is_a_clear_error_and_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.zsr");
    let mut bytes = frame::header(frame::VERSION + 1).to_vec();
    bytes.extend_from_slice(b"records of the future");
    fs::write(&path, &bytes).unwrap();
    let e = Reader::open(&path).err().unwrap();
    assert!(matches!(e, Error::NewerVersion { found: 2, .. }), "{e}");
    assert!(
        e.to_string().contains("newer than this zswaptop reads"),
        "{e}"
    );
    let e = Writer::open(&path, exact()).err().unwrap();
    assert!(matches!(e, Error::NewerVersion { .. }), "{e}");
    assert_eq!(fs::read(&path).unwrap(), bytes);
    // Not a recording at all: an error too, and the file is left alone.
    let text = dir.path().join("notes.txt");
    fs::write(&text, "my notes\n").unwrap();
    assert!(matches!(
        Reader::open(&text),
        Err(Error::NotARecording { .. })
    ));
    assert!(matches!(
        Writer::open(&text, exact()),
        Err(Error::NotARecording { .. })
    ));
    assert_eq!(fs::read_to_string(&text).unwrap(), "my notes\n");
}

#[test]
fn a_directory_rotates_under_its_cap_and_reads_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    fs::create_dir(&rec).unwrap();
    let opts = WriterOptions {
        max_size: Some(60_000),
        file_size: Some(15_000),
        keyframe_every: 50,
        ..exact()
    };
    // A recording copied in by hand is never deleted to make room.
    let mine = rec.join("mine.zsr");
    let mut copied = frame::header(frame::VERSION).to_vec();
    copied.resize(30_000, 0);
    fs::write(&mine, &copied).unwrap();
    let samples = moving("depth-many-processes", 700);
    write_all(&rec, opts, &samples);
    assert!(mine.exists());
    fs::remove_file(&mine).unwrap();
    let files = zswaptop::record::writer::list_dir(&rec).unwrap();
    let total: u64 = files.iter().map(|f| fs::metadata(f).unwrap().len()).sum();
    assert!(files.len() >= 3, "{files:?}");
    assert!(total <= 60_000, "{total}");
    // The oldest files were dropped: the recording now starts later, and reads to the end.
    let mut r = Reader::open(&rec).unwrap();
    assert_eq!(r.warnings(), &[]);
    let back = read_all(&mut r);
    let first = ((back[0].unix_ms - T0) / 1000) as usize;
    assert!(first > 0);
    assert_eq!(back, samples[first..]);
    assert!(
        files[0]
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("zswaptop-2026")
    );

    // A file rotated away between opening and reading, another that became junk.
    fs::remove_file(&files[0]).unwrap();
    fs::write(&files[1], b"junk").unwrap();
    assert!(r.sample(0).is_err());
    assert!(
        r.warnings()
            .iter()
            .any(|w| w.kind == WarningKind::Undecodable)
    );
    let mut r = Reader::open(&rec).unwrap();
    assert_eq!(kinds(&r), [WarningKind::Unreadable]);
    assert!(
        r.warnings()[0]
            .to_string()
            .contains("not a zswaptop recording")
    );
    let back = read_all(&mut r);
    assert_eq!(back.last().unwrap(), samples.last().unwrap());

    // A recorder started again goes on in a new file after the last.
    let mut w = Writer::open(&rec, exact()).unwrap();
    w.append(&at(samples[0].clone(), 1000)).unwrap();
    let newest = w.current_file().unwrap().to_path_buf();
    drop(w);
    let files = zswaptop::record::writer::list_dir(&rec).unwrap();
    assert_eq!(files.last().unwrap(), &newest);
}

#[test]
fn a_single_file_stops_at_its_cap_with_its_records_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("capped.zsr");
    // A cap under the default least (128 KiB) needs a file size of at most half of it.
    let opts = WriterOptions {
        max_size: Some(8_000),
        file_size: Some(4_000),
        ..exact()
    };
    let samples = moving("linux-6.18-writeback", 200);
    let mut w = Writer::open(&path, opts).unwrap();
    let mut ok = 0;
    for s in &samples {
        match w.append(s) {
            Ok(()) => ok += 1,
            Err(e) => {
                assert!(matches!(e, Error::CapReached { cap: 8_000, .. }), "{e}");
                break;
            }
        }
    }
    drop(w);
    assert!(ok > 5 && ok < 200, "{ok}");
    assert!(fs::metadata(&path).unwrap().len() <= 8_000);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(r.warnings(), &[]);
    assert_eq!(read_all(&mut r), samples[..ok]);
}

#[test]
fn the_wall_clock_going_back_keeps_recorded_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clock.zsr");
    // 0..10 s, then the clock is set back 60 s: 10..20 are recorded at -50..-40 s.
    let mut samples = moving("linux-6.18-writeback", 20);
    for s in &mut samples[10..] {
        s.unix_ms -= 60_000;
    }
    write_all(&path, small_keyframes(), &samples);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(kinds(&r), [WarningKind::ClockWentBack]);
    assert!(
        r.warnings()[0].detail.contains("went back 59.000 s"),
        "{}",
        r.warnings()[0]
    );
    assert_eq!(read_all(&mut r), samples);
    let ts = |ms: u64| zswaptop::record::time::timestamp(ms).unwrap();
    // A time before the jump: the record with the latest wall time at or before it.
    let m = r.at(ts(T0 + 5_000)).unwrap().unwrap();
    assert_eq!(m.position, 5);
    // A time only the records after the jump have: one of them, and its predecessor in order.
    let m = r.at(ts(T0 - 45_000)).unwrap().unwrap();
    assert_eq!(m.position, 15);
    assert_eq!(m.prev.unwrap(), samples[14]);
    // The first record after the jump pairs with the last before it, as live rates did.
    assert_eq!(r.moment(10).unwrap().prev.unwrap(), samples[9]);
    // Export ranges go by wall time, in recorded order.
    let n = common::samples_in(&mut r, Some(ts(T0 - 50_000)), Some(ts(T0 + 2_000))).len();
    assert_eq!(n, 3 + 10);
}

#[test]
fn a_full_disk_is_an_error_that_keeps_earlier_records_and_recovers() {
    let disk = match crafted::disk::SmallDisk::mount("64k") {
        Ok(d) => d,
        Err(why) => skip!("{why}"),
    };
    let root = disk.path();
    let filler = root.join("filler");
    let path = root.join("full.zsr");
    fs::write(&filler, vec![0u8; 40 << 10]).unwrap();
    let samples = moving("depth-many-processes", 400);
    let mut w = Writer::open(&path, small_keyframes()).unwrap();
    let mut ok = 0;
    let mut failed = 0;
    for s in &samples[..200] {
        match w.append(s) {
            Ok(()) if failed == 0 => ok += 1,
            Ok(()) => panic!("appended after the disk filled without freeing space"),
            Err(e) => {
                assert!(e.to_string().contains("No space left"), "{e}");
                failed += 1;
            }
        }
    }
    assert!(ok > 0 && failed > 0, "{ok} {failed}");
    // Earlier records are intact and nothing torn is left.
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(r.warnings(), &[]);
    assert_eq!(read_all(&mut r), samples[..ok]);
    drop(r);
    // Space comes back: recording goes on, starting with a keyframe.
    fs::remove_file(&filler).unwrap();
    for s in &samples[200..210] {
        w.append(s).unwrap();
    }
    drop(w);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(r.warnings(), &[]);
    let back = read_all(&mut r);
    assert_eq!(back[..ok], samples[..ok]);
    assert_eq!(back[ok..], samples[200..210]);
    drop(r);
    drop(disk);
}

#[test]
fn a_path_ending_in_a_slash_is_a_directory_and_a_corrupt_header_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let rec = format!("{}/new-dir/", dir.path().display());
    let samples = moving("linux-6.18-idle", 5);
    write_all(Path::new(&rec), exact(), &samples);
    let files = zswaptop::record::writer::list_dir(Path::new(&rec)).unwrap();
    assert_eq!(files.len(), 1);
    let mut bytes = fs::read(&files[0]).unwrap();
    assert_eq!(read_all(&mut Reader::open(&rec).unwrap()), samples);
    // A flipped bit in the header: an error for the file, a skipped file in a directory.
    bytes[10] ^= 1;
    fs::write(&files[0], &bytes).unwrap();
    let e = Reader::open(&files[0]).err().unwrap();
    assert!(matches!(e, Error::CorruptHeader { .. }), "{e}");
    let r = Reader::open(&rec).unwrap();
    assert!(r.is_empty());
    assert_eq!(kinds(&r), [WarningKind::Unreadable]);
    assert!(r.warnings()[0].detail.contains("header is corrupt"));
    assert!(matches!(
        Writer::open(&files[0], exact()),
        Err(Error::CorruptHeader { .. })
    ));
    // A directory with no recording in it says so.
    let empty = dir.path().join("nothing");
    fs::create_dir(&empty).unwrap();
    let r = Reader::open(&empty).unwrap();
    assert_eq!(kinds(&r), [WarningKind::Empty]);
    assert!(r.warnings()[0].detail.contains("no recording files"));
}

// ---- hostile and damaged recordings ----

/// The crafted files in tests/fixtures are what tests/integration/common/crafted makes (ZSWAPTOP_BLESS=1 writes
/// them).
#[test]
fn crafted_fixtures_are_what_the_generator_makes() {
    // Made the same wherever the repository is: no sample in them names where the tree is.
    let sample = format!("{:?}", crafted::hostile_sample(0));
    assert!(
        !sample.contains(env!("CARGO_MANIFEST_DIR")),
        "the crafted sample names the repository's place on disk: {sample}"
    );
    let bless = std::env::var_os("ZSWAPTOP_BLESS").is_some();
    for (name, what) in crafted::CASES {
        let bytes = crafted::build(name);
        let path = crafted::path(name);
        if bless {
            fs::write(&path, &bytes).unwrap();
            continue;
        }
        let kept = fs::read(&path).unwrap_or_default();
        let first_difference = kept.iter().zip(&bytes).position(|(a, b)| a != b);
        assert!(
            kept.len() == bytes.len() && first_difference.is_none(),
            "{} ({what}) differs from what the generator makes ({} bytes, {} kept; first difference at {first_difference:?}): ZSWAPTOP_BLESS=1 writes it again",
            path.display(),
            bytes.len(),
            kept.len()
        );
    }
}

/// Every crafted file opens, reads what can be read, and says what it skipped: no panic, no
/// abort; each warning and error is safe to print.
#[test]
fn crafted_recordings_are_read_or_refused_with_safe_messages() {
    let mut files: Vec<(String, Vec<u8>)> = crafted::CASES
        .iter()
        .map(|(n, _)| (n.to_string(), fs::read(crafted::path(n)).unwrap()))
        .collect();
    files.push(("many-slots".into(), crafted::many_slots()));
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        let path = dir.path().join(&name);
        fs::write(&path, &bytes).unwrap();
        let mut r = Reader::open(&path).unwrap();
        let decoded: Vec<Result<Sample, Error>> = common::samples_in(&mut r, None, None);
        let mut said: Vec<String> = r.warnings().iter().map(|w| w.to_string()).collect();
        said.extend(
            decoded
                .iter()
                .filter_map(|d| d.as_ref().err())
                .map(|e| e.to_string()),
        );
        for text in &said {
            crafted::assert_no_raw_control_or_bidi(&name, text);
        }
        match name.as_str() {
            "hostile-strings.zsr" => {
                assert_eq!(said, Vec::<String>::new());
                assert_eq!(decoded.len(), 3);
            }
            "resync-bomb.zsr" => assert!(r.is_empty(), "{said:?}"),
            _ => {
                // What the bound or check that refuses it says.
                let expected = match name.as_str() {
                    "escape-variant.zsr" => r"Unknown variant x\x1b]0;pwned\x07\x9b2J",
                    "slot-bomb.zsr" => "a list index past the sample's size",
                    "deep-path.zsr" => "deeper than any sample's",
                    "expand-bomb.zsr" => "impossible uncompressed length",
                    "many-slots" => "more than 16384 slots",
                    other => panic!("{other}"),
                };
                assert!(
                    said.iter().any(|t| t.contains(expected)),
                    "{name}: {expected:?} not in {said:?}"
                );
                assert!(decoded.iter().all(Result::is_err), "{name}");
            }
        }
    }
}

/// A file crafted so that every 17th offset claims a frame of half the file: the search for
/// intact records checksums a bounded multiple of the file's size (it took 54 s of CPU on a
/// 4 MiB file when every offset was checksummed over its claimed length).
#[test]
fn searching_past_damage_is_linear_in_the_file_size() {
    let size = 4 << 20;
    let bytes = crafted::resync_bomb(size);
    let scan = frame::scan(&bytes[..], HEADER_LEN as u64).unwrap();
    assert!(scan.frames.is_empty());
    // 4 bytes per byte plus twice the longest frame, and the last candidate's length.
    let bound = 4 * size as u64 + 2 * frame::BODY_MAX as u64 + size as u64 / 2;
    assert!(scan.crc_bytes <= bound, "{} > {bound}", scan.crc_bytes);
    assert!(
        matches!(scan.gaps.last(), Some((_, _, frame::Gap::Unsearched))),
        "{:?}",
        scan.gaps
    );
    // Without the bound this scan checksums about size²/34 bytes.
    assert!(scan.crc_bytes < (size as u64 * size as u64) / 34 / 100);

    // Real damage costs far less than the budget: every round of random corruption below
    // checksums at most twice the file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.zsr");
    write_all(&path, small_keyframes(), &moving("depth-multi-swap", 60));
    let clean = fs::read(&path).unwrap();
    let mut rng = Lcg(7);
    for round in 0..100 {
        let mut b = clean.clone();
        for _ in 0..1 + rng.next() % 16 {
            let i = HEADER_LEN + (rng.next() as usize) % (b.len() - HEADER_LEN);
            b[i] = rng.next() as u8;
        }
        let scan = frame::scan(&b[..], HEADER_LEN as u64).unwrap();
        assert!(
            scan.crc_bytes <= 2 * b.len() as u64,
            "round {round}: {} for {} bytes",
            scan.crc_bytes,
            b.len()
        );
        assert!(!scan.gaps.iter().any(|g| g.2 == frame::Gap::Unsearched));
    }
}

/// One flipped bit anywhere in a file's header costs that file only: the others of the
/// directory are read and the bad one is named (a damaged version used to read as "a newer
/// format" and refuse the whole directory).
#[test]
fn a_damaged_header_costs_its_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec/");
    let samples = moving("linux-6.18-loaded", 30);
    for part in samples.chunks(10) {
        // Three runs of the recorder: three files.
        write_all(&rec, exact(), part);
    }
    let files = zswaptop::record::writer::list_dir(&rec).unwrap();
    assert_eq!(files.len(), 3);
    let middle = fs::read(&files[1]).unwrap();
    for bit in 0..HEADER_LEN * 8 {
        let mut b = middle.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        fs::write(&files[1], &b).unwrap();
        let mut r = Reader::open(&rec).unwrap();
        assert_eq!(kinds(&r), [WarningKind::Unreadable], "bit {bit}");
        let w = &r.warnings()[0];
        assert_eq!(w.path, files[1], "bit {bit}");
        let why = if bit < 64 {
            "not a zswaptop recording"
        } else {
            "header is corrupt"
        };
        assert!(w.detail.contains(why), "bit {bit}: {w}");
        let back = read_all(&mut r);
        assert_eq!(back[..10], samples[..10], "bit {bit}");
        assert_eq!(back[10..], samples[20..], "bit {bit}");
    }
    // A file really written by a newer format is skipped with its own warning, the others read.
    let mut newer = frame::header(frame::VERSION + 1).to_vec();
    newer.extend_from_slice(b"records of the future");
    fs::write(&files[1], &newer).unwrap();
    let mut r = Reader::open(&rec).unwrap();
    assert_eq!(kinds(&r), [WarningKind::NewerFormat]);
    assert!(r.warnings()[0].detail.contains("format version 2"));
    assert_eq!(read_all(&mut r).len(), 20);
}

/// The recorder notices its current file was damaged, cut or deleted under it and goes on in
/// a new file (a directory) or a file made afresh (a single file): records appended after are
/// never lost to a reader.
#[test]
fn a_recorder_whose_file_is_damaged_or_deleted_goes_on_in_a_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec/");
    let samples = moving("linux-6.18-loaded", 30);
    let mut w = Writer::open(&rec, exact()).unwrap();
    for s in &samples[..10] {
        w.append(s).unwrap();
    }
    let first = w.current_file().unwrap().to_path_buf();
    let mut b = fs::read(&first).unwrap();
    b[8] ^= 0x02;
    fs::write(&first, &b).unwrap();
    for s in &samples[10..20] {
        w.append(s).unwrap();
    }
    let second = w.current_file().unwrap().to_path_buf();
    assert_ne!(first, second);
    fs::remove_file(&second).unwrap();
    for s in &samples[20..] {
        w.append(s).unwrap();
    }
    assert_ne!(w.current_file().unwrap(), second);
    drop(w);
    let mut r = Reader::open(&rec).unwrap();
    assert_eq!(kinds(&r), [WarningKind::Unreadable]);
    assert_eq!(read_all(&mut r), samples[20..]);

    // A single file deleted under its recorder is made again.
    let one = dir.path().join("one.zsr");
    let mut w = Writer::open(&one, exact()).unwrap();
    w.append(&samples[0]).unwrap();
    fs::remove_file(&one).unwrap();
    w.append(&samples[1]).unwrap();
    drop(w);
    assert_eq!(read_all(&mut Reader::open(&one).unwrap()), samples[1..2]);
}

/// A second writer on a directory or a file is refused while the first lives, naming it; once
/// the first is gone the second may write.
#[test]
fn a_second_writer_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let samples = moving("linux-6.18-idle", 3);
    for path in [dir.path().join("rec/"), dir.path().join("one.zsr")] {
        let mut first = Writer::open(&path, exact()).unwrap();
        first.append(&samples[0]).unwrap();
        let e = Writer::open(&path, exact()).err().unwrap();
        assert!(matches!(e, Error::Locked { .. }), "{e}");
        let said = e.to_string();
        assert!(said.contains("another recorder is writing to it"), "{said}");
        assert!(
            said.contains(&format!("pid {}", std::process::id())),
            "{said}"
        );
        // Readers are not held up.
        assert_eq!(Reader::open(&path).unwrap().len(), 1);
        drop(first);
        let mut second = Writer::open(&path, exact()).unwrap();
        second.append(&samples[1]).unwrap();
    }
}

/// Making room under the cap never deletes a file another writer holds.
#[test]
fn the_cap_never_deletes_a_file_another_writer_holds() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec/");
    let opts = WriterOptions {
        max_size: Some(40_000),
        file_size: Some(10_000),
        ..small_keyframes()
    };
    let samples = moving("depth-many-processes", 400);
    let mut w = Writer::open(&rec, opts.clone()).unwrap();
    for s in &samples[..100] {
        w.append(s).unwrap();
    }
    let oldest = zswaptop::record::writer::list_dir(&rec).unwrap()[0].clone();
    // Another writer appends to the oldest file itself.
    let mut other = Writer::open(&oldest, exact()).unwrap();
    other.append(&samples[0]).unwrap();
    for s in &samples[100..] {
        w.append(s).unwrap();
    }
    assert!(oldest.exists(), "deleted under its writer");
    // The held file is not this writer's to count: the others stay under the cap.
    let files = zswaptop::record::writer::list_dir(&rec).unwrap();
    let ours: u64 = files
        .iter()
        .filter(|f| **f != oldest)
        .map(|f| fs::metadata(f).unwrap().len())
        .sum();
    assert!(ours <= 40_000, "{ours}: {files:?}");
    drop(other);
    // Once it is let go, the next rotation deletes it.
    for s in &samples[..200] {
        w.append(&at(s.clone(), 1000 + (s.unix_ms - T0) / 1000))
            .unwrap();
    }
    assert!(!oldest.exists());
}

/// A cap too small for two files is refused, saying the least; a cap is never exceeded, even
/// by one record, checked after every append.
#[test]
fn the_size_cap_has_a_floor_and_is_never_exceeded() {
    let dir = tempfile::tempdir().unwrap();
    for cap in [0, 10 << 10, (128 << 10) - 1] {
        let opts = WriterOptions {
            max_size: Some(cap),
            ..exact()
        };
        let e = Writer::open(dir.path().join("small/"), opts).err().unwrap();
        assert!(matches!(e, Error::CapTooSmall { min: 131_072, .. }), "{e}");
        assert!(e.to_string().contains("131072 bytes (128 KiB"), "{e}");
    }
    let samples = moving("depth-many-processes", 1500);
    // The least cap; and small files, rotated often: no file passes its size, not even by
    // the record that fills it (a file that did would take the two over the cap).
    for (name, cap, file_size) in [
        ("least/", 128 << 10, 64 << 10),
        ("small-files/", 8192, 4096),
    ] {
        let rec = dir.path().join(name);
        let opts = WriterOptions {
            max_size: Some(cap),
            file_size: Some(file_size),
            ..exact()
        };
        let mut w = Writer::open(&rec, opts).unwrap();
        for (i, s) in samples.iter().enumerate() {
            w.append(s).unwrap();
            let files = zswaptop::record::writer::list_dir(Path::new(&rec)).unwrap();
            let sizes: Vec<u64> = files
                .iter()
                .map(|f| fs::metadata(f).unwrap().len())
                .collect();
            assert!(
                sizes.iter().sum::<u64>() <= cap && sizes.iter().all(|&n| n <= file_size),
                "{name} after {i}: {sizes:?}, cap {cap}"
            );
        }
        drop(w);
        let mut r = Reader::open(&rec).unwrap();
        assert_eq!(r.warnings(), &[]);
        let back = read_all(&mut r);
        assert_eq!(back.last(), samples.last());
    }
}

/// Files are created 0600 and directories 0700; a symbolic link is followed only when this user
/// owns it; nothing but a regular file is written to; a file that is not a recording is left
/// as it was.
#[test]
fn files_are_private_and_links_of_others_are_refused() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let samples = moving("linux-6.18-idle", 2);
    let one = dir.path().join("one.zsr");
    write_all(&one, exact(), &samples);
    assert_eq!(
        fs::metadata(&one).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let rec = dir.path().join("new/deeper/");
    write_all(&rec, exact(), &samples);
    assert_eq!(
        fs::metadata(&rec).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let file = &zswaptop::record::writer::list_dir(&rec).unwrap()[0];
    assert_eq!(
        fs::metadata(file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // A link this user owns is followed.
    let link = dir.path().join("mine.zsr");
    std::os::unix::fs::symlink(&one, &link).unwrap();
    write_all(&link, exact(), &samples);
    assert_eq!(Reader::open(&one).unwrap().len(), 4);

    // A link another user owns is refused, and what it leads to is untouched.
    let target = dir.path().join("precious");
    fs::write(&target, "").unwrap();
    let planted = dir.path().join("planted.zsr");
    std::os::unix::fs::symlink(&target, &planted).unwrap();
    let me = rustix::process::geteuid().as_raw();
    let other = if me == 0 { 65_534 } else { me };
    if me == 0 {
        std::os::unix::fs::lchown(&planted, Some(other), None).unwrap();
    }
    let opened = Writer::open(&planted, exact());
    if me == 0 {
        let e = opened.err().unwrap();
        assert!(
            matches!(e, Error::ForeignSymlink { owner: 65_534, .. }),
            "{e}"
        );
        assert!(
            e.to_string().contains("symbolic link owned by uid 65534"),
            "{e}"
        );
        assert_eq!(fs::metadata(&target).unwrap().len(), 0);
        // A dangling one, which would create its target, likewise.
        let dangling = dir.path().join("dangling.zsr");
        std::os::unix::fs::symlink(dir.path().join("created"), &dangling).unwrap();
        std::os::unix::fs::lchown(&dangling, Some(other), None).unwrap();
        assert!(Writer::open(&dangling, exact()).is_err());
        assert!(!dir.path().join("created").exists());
        // And a directory reached through one.
        let dlink = dir.path().join("dlink");
        std::os::unix::fs::symlink(&rec, &dlink).unwrap();
        std::os::unix::fs::lchown(&dlink, Some(other), None).unwrap();
        let e = Writer::open(format!("{}/", dlink.display()), exact())
            .err()
            .unwrap();
        assert!(matches!(e, Error::ForeignSymlink { .. }), "{e}");
    } else {
        common::skip::say("the links of other users: not root (cannot chown a link)");
        drop(opened);
    }
    assert_eq!(fs::symlink_metadata(&planted).unwrap().uid(), other);

    // Not a regular file: refused before anything is opened.
    let fifo = dir.path().join("fifo.zsr");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let e = Writer::open(&fifo, exact()).err().unwrap();
    assert!(matches!(e, Error::NotRegular { .. }), "{e}");
    let e = Reader::open(&fifo).err().unwrap();
    assert!(matches!(e, Error::NotRegular { .. }), "{e}");
}

/// Without `command_lines` a recording keeps no command line and says so: the sample read back
/// has none and says they were not recorded, and the snapshot lists /proc/PID/cmdline as not
/// in the recording; with it, they are kept.
#[test]
fn command_lines_are_kept_only_when_asked() {
    use zswaptop::sources::processes::{FaultRow, FaultScan, Faulting};
    let dir = tempfile::tempdir().unwrap();
    let mut samples: Vec<Sample> = (0..3).map(crafted::hostile_sample).collect();
    assert!(
        samples[0].processes.as_ref().unwrap().top[0]
            .command
            .is_some()
    );
    // The processes faulting most carry their command lines too.
    for s in &mut samples {
        let mut process = s.processes.as_ref().unwrap().top[0].clone();
        process.pid = 4242;
        process.command = Some("sync-agent --token hunter2".into());
        s.faults = Some(FaultScan {
            interval_ns: Some(1_000_000_000),
            faulting: vec![Faulting {
                process,
                faults: FaultRow {
                    pid: 4242,
                    start_time_ticks: 1,
                    major_faults: 9,
                    major_faults_delta: Some(9),
                },
            }],
            faulting_count: 1,
            ..FaultScan::default()
        });
    }
    let plain = dir.path().join("plain.zsr");
    write_all(&plain, WriterOptions::default(), &samples);
    let back = read_all(&mut Reader::open(&plain).unwrap());
    for (a, b) in samples.iter().zip(&back) {
        let scan = b.processes.as_ref().unwrap();
        assert!(scan.commands_not_recorded);
        assert!(scan.top.iter().all(|p| p.command.is_none()));
        let faults = b.faults.as_ref().unwrap();
        assert!(faults.faulting.iter().all(|f| f.process.command.is_none()));
        // Everything else is as it was.
        let mut a = a.clone();
        let ours = a.processes.as_mut().unwrap();
        ours.commands_not_recorded = true;
        ours.top.iter_mut().for_each(|p| p.command = None);
        let faulting = &mut a.faults.as_mut().unwrap().faulting;
        faulting.iter_mut().for_each(|f| f.process.command = None);
        assert_eq!(&a, b);
    }
    let bytes = fs::read(&plain).unwrap();
    assert!(!bytes.windows(7).any(|w| w == b"--token"));
    let snap = zswaptop::pipeline::snapshot(&back[1], Some(&back[0]));
    let cmdline = snap
        .sources
        .iter()
        .find(|s| s.source == "/proc/PID/cmdline")
        .unwrap();
    assert_eq!(cmdline.reason, Some(zswaptop::error::Reason::NotRecorded));

    let kept = dir.path().join("kept.zsr");
    write_all(&kept, exact(), &samples);
    assert_eq!(read_all(&mut Reader::open(&kept).unwrap()), samples);
}

/// Keyframes come at least every 60 records and every 60 s of the samples' time: one damaged
/// record costs at most a minute of samples at 1 s or at 5 s (at 5 s, 300 records apart
/// cost 25 minutes).
#[test]
fn a_damaged_record_costs_at_most_a_minute() {
    let dir = tempfile::tempdir().unwrap();
    for (step_s, most) in [(1u64, 60usize), (5, 12)] {
        let path = dir.path().join(format!("every-{step_s}.zsr"));
        let mut samples = moving("linux-6.18-writeback", 200);
        for (i, s) in samples.iter_mut().enumerate() {
            s.unix_ms = T0 + i as u64 * step_s * 1000;
            s.monotonic_ns = 5_000_000_000 + i as u64 * step_s * 1_000_000_000;
        }
        write_all(&path, exact(), &samples);
        let bytes = fs::read(&path).unwrap();
        let scan = frame::scan(&bytes[..], HEADER_LEN as u64).unwrap();
        let keys: Vec<usize> = scan
            .frames
            .iter()
            .enumerate()
            .filter(|(_, (_, f))| f.kind & !frame::FLAG_ZSTD == frame::KIND_KEYFRAME)
            .map(|(i, _)| i)
            .collect();
        let gaps: Vec<usize> = keys.windows(2).map(|k| k[1] - k[0]).collect();
        assert!(gaps.iter().all(|&g| g == most), "{step_s} s: {gaps:?}");
        // The worst place: the record just after a keyframe.
        let mut b = bytes.clone();
        let (o, _) = scan.frames[keys[1] + 1];
        b[o as usize + 20] ^= 0x40;
        let bad = dir.path().join("bad.zsr");
        fs::write(&bad, &b).unwrap();
        let r = Reader::open(&bad).unwrap();
        let lost = samples.len() - r.len();
        assert_eq!(lost, most - 1, "{step_s} s");
        assert!(lost as u64 * step_s <= 60);
    }
}

/// assets/demo.zsr, written before keyframes came by time and before the limits, reads whole:
/// the format is unchanged.
#[test]
fn the_demo_recording_still_reads_whole() {
    let mut r = Reader::open(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.zsr")).unwrap();
    assert_eq!(r.warnings(), &[]);
    assert_eq!(r.len(), 151);
    let back = read_all(&mut r);
    assert_eq!(back.len(), 151);
    assert!(back.iter().all(|s| s.processes.is_some()));
}

/// A file in the directory named with the largest sequence number (anyone may name files in a
/// shared directory) does not overflow the writer's count.
#[test]
fn the_largest_sequence_number_does_not_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    fs::create_dir(&rec).unwrap();
    fs::write(
        rec.join(format!("zswaptop-20261122-031200-{}.zsr", u64::MAX)),
        b"junk",
    )
    .unwrap();
    let mut w = Writer::open(&rec, exact()).unwrap();
    w.append(&moving("linux-6.18-idle", 1)[0]).unwrap();
    let name = w.current_file().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with(&format!("-{}.zsr", u64::MAX)), "{name}");
}

/// A recording of one keyframe (the depth-cgroup-v2 fixture with its processes and cgroups,
/// or the payload given) followed by `n` deltas of `delta`, as scripts/fuzz-recordings.sh
/// makes them: a delta of `[0, 0, 0]` changes, adds and removes nothing, and at 20 bytes is
/// the smallest record, so such a file holds the most records a MiB can.
fn keyframe_then(path: &Path, keyframe: Option<&[u8]>, n: u64, delta: &[u8]) {
    let mut bytes = match keyframe {
        Some(payload) => {
            let mut b = frame::header(frame::VERSION).to_vec();
            b.extend(frame::frame(frame::KIND_KEYFRAME, T0, payload));
            b
        }
        None => {
            write_all(path, exact(), &moving("depth-cgroup-v2", 1));
            fs::read(path).unwrap()
        }
    };
    for i in 1..=n {
        bytes.extend(frame::frame(frame::KIND_DELTA, T0 + i * 1000, delta));
    }
    fs::write(path, bytes).unwrap();
}

/// Records that change nothing give the sample before them again without rebuilding it from
/// its slots (the rebuild, a tree and a deserialization of every slot, was most of what a row
/// of export cost), and export makes one row through the pipeline for each pair of samples it
/// has not seen last: 2,000 empty deltas are 1 rebuild and 2 rows made (the first, without
/// rates, and the second, over a sample equal to it), whatever their number. A delta that
/// changes a slot is a rebuild and a row made; one that sets a slot to the value it has is not.
#[test]
fn records_that_change_nothing_cost_no_rebuild_and_no_row() {
    use zswaptop::record::export::{ExportFormat, Options, write_rows};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty-deltas.zsr");
    keyframe_then(&path, None, 2000, &[0, 0, 0]);
    let first = moving("depth-cgroup-v2", 1).remove(0);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!((r.len(), kinds(&r)), (2001, vec![]));
    for p in 0..r.len() {
        assert_eq!(r.sample(p).unwrap(), first, "record {p}");
    }
    assert_eq!(r.rebuilds(), 1);
    for format in [ExportFormat::Csv, ExportFormat::Jsonl] {
        let opts = Options {
            from: path.clone(),
            since: None,
            until: None,
            format,
        };
        let mut r = Reader::open(&path).unwrap();
        let mut out = Vec::new();
        let done = write_rows(&mut r, &opts, &mut out).unwrap();
        assert_eq!(
            (done.rows, done.made, r.rebuilds()),
            (2001, 2, 1),
            "{format:?}"
        );
        // Each row is the one made for its pair: the second made, with its own position.
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text
            .lines()
            .skip(usize::from(format == ExportFormat::Csv))
            .collect();
        assert_eq!(rows.len(), 2001);
        if format == ExportFormat::Jsonl {
            let line = |i: usize| serde_json::from_str::<serde_json::Value>(rows[i]).unwrap();
            let (mut a, mut b) = (line(1), line(2000));
            assert_eq!(a["recorded"]["position"], 1);
            assert_eq!(b["recorded"]["position"], 2000);
            a["recorded"]["position"] = 0.into();
            b["recorded"]["position"] = 0.into();
            assert_eq!(a, b);
            assert_ne!(rows[0], rows[1], "the first row has no rates");
        } else {
            assert!(rows[1..].iter().all(|row| *row == rows[1]));
        }
    }

    // Samples that each move a counter: every record is a rebuild and a row made.
    let path = dir.path().join("moving.zsr");
    write_all(&path, exact(), &moving("depth-cgroup-v2", 30));
    let mut r = Reader::open(&path).unwrap();
    let opts = Options {
        from: path.clone(),
        since: None,
        until: None,
        format: ExportFormat::Csv,
    };
    let done = write_rows(&mut r, &opts, &mut std::io::sink()).unwrap();
    assert_eq!((done.rows, done.made, r.rebuilds()), (30, 30, 30));
}

/// A keyframe whose slots make no sample, then records that change nothing: each is skipped
/// with its own warning, at one rebuild in all (they were each rebuilt from the keyframe on,
/// and each warning searched for among the others: 8,000 records took 3 s, quadratic).
#[test]
fn records_over_a_keyframe_that_is_no_sample_cost_one_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-a-sample.zsr");
    // One slot, at the root (an empty path), holding the number 0.
    keyframe_then(&path, Some(&[1, 0, 3, 0]), 3000, &[0, 0, 0]);
    let mut r = Reader::open(&path).unwrap();
    assert_eq!(r.len(), 3001);
    for p in 0..r.len() {
        let e = r.sample(p).unwrap_err().to_string();
        assert!(e.contains("not a sample"), "{e}");
    }
    assert_eq!(r.rebuilds(), 1);
    // Each said once, however often it is asked for (a moment reads the record before too).
    for p in [1, 1500, 3000] {
        assert!(r.moment(p).is_err());
    }
    assert_eq!(kinds(&r), vec![WarningKind::Undecodable; 3001]);

    // A delta that sets the slot to the value it holds (a difference of 0) changes nothing;
    // one that moves it (a difference of 1) is a rebuild each.
    for (delta, rebuilds) in [([1, 0, 10, 0, 0, 0], 1), ([1, 0, 10, 2, 0, 0], 51)] {
        keyframe_then(&path, Some(&[1, 0, 3, 0]), 50, &delta);
        let mut r = Reader::open(&path).unwrap();
        for p in 0..r.len() {
            assert!(r.sample(p).is_err());
        }
        assert_eq!(r.rebuilds(), rebuilds, "{delta:?}");
    }
}
