//! Recordings: round trips of real samples, and every kind of damage a recording can suffer.
//! Nothing here may panic in the store; each damaged case checks what the reader says it
//! skipped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use zswaptop::root::Root;
use zswaptop::sources::{self, Extras, Sample};
use zswaptop::store::format::{self, HEADER_LEN};
use zswaptop::store::{Error, Reader, WarningKind, Writer, WriterOptions};

const T0: u64 = 1_795_000_000_000;

fn extras(top: bool) -> Extras {
    Extras {
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
    r.range(None, None).map(|s| s.unwrap()).collect()
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
    let ts = |ms: u64| zswaptop::store::time::timestamp(ms).unwrap();
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
    let mid: Vec<Sample> = r
        .range(Some(ts(T0 + 20_000)), Some(ts(T0 + 24_000)))
        .map(|s| s.unwrap())
        .collect();
    assert_eq!(mid, samples[20..=24]);
    let b = r.bounds().unwrap();
    assert_eq!(b.first, ts(T0));
    assert_eq!(b.last, ts(T0 + 49_000));
}

/// The offsets of the frames in a recording file.
fn frames(bytes: &[u8]) -> Vec<(u64, usize)> {
    let scan = format::scan(bytes, HEADER_LEN as u64).unwrap();
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

/// A small deterministic generator, so a failure replays.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

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
    let header = format::header(format::VERSION);
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
    let mut bytes = format::header(format::VERSION + 1).to_vec();
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
    let mut copied = format::header(format::VERSION).to_vec();
    copied.resize(30_000, 0);
    fs::write(&mine, &copied).unwrap();
    let samples = moving("depth-many-processes", 700);
    write_all(&rec, opts, &samples);
    assert!(mine.exists());
    fs::remove_file(&mine).unwrap();
    let files = zswaptop::store::writer::list_dir(&rec).unwrap();
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
    let files = zswaptop::store::writer::list_dir(&rec).unwrap();
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
    let ts = |ms: u64| zswaptop::store::time::timestamp(ms).unwrap();
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
    let n = r.range(Some(ts(T0 - 50_000)), Some(ts(T0 + 2_000))).count();
    assert_eq!(n, 3 + 10);
}

/// A mounted tmpfs of a few KiB, unmounted and removed on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Result<SmallDisk, String> {
        if effective_uid() != 0 {
            return Err("not root: cannot mount a small tmpfs".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(SmallDisk { dir })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

fn effective_uid() -> u32 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
        })
        .and_then(|u| u.parse().ok())
        .unwrap_or(u32::MAX)
}

#[test]
fn a_full_disk_is_an_error_that_keeps_earlier_records_and_recovers() {
    let disk = match SmallDisk::mount("64k") {
        Ok(d) => d,
        Err(why) => {
            eprintln!(
                "SKIPPED a_full_disk_is_an_error_that_keeps_earlier_records_and_recovers: {why}"
            );
            return;
        }
    };
    let root = disk.dir.path();
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
    let files = zswaptop::store::writer::list_dir(Path::new(&rec)).unwrap();
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
