//! What a recording costs, from real samples of this machine (scripts/bench-record.sh runs it).
//!
//! `cargo bench --bench record [-- SECONDS]`:
//! 1. samples the live system once a second for SECONDS (60 by default), as the recorder
//!    would: without processes, and with the top 20 processes. A machine without swap has no
//!    swap users to rank: the list is then filled with the 20 largest live processes by RSS
//!    (their real status, user and cgroup, read each second), with a swap figure of half their
//!    RSS standing in, so the list has the size and churn of a loaded machine's;
//! 2. bytes per sample of each series, written with the default options (a keyframe every 60
//!    records and every 60 s), and at steady state at 1 s and at 5 s (and, for comparison, with
//!    a keyframe every 300 records, the distance before);
//! 3. the recorder's CPU per sample beyond sampling (encode, compress, write), as thread CPU
//!    time over many appends of the recorded samples;
//! 4. a day of 1 s samples (86,400) made from the live series, counters and times advancing,
//!    then opened in a child process under `/usr/bin/time -v`: open, seek to the middle and
//!    the end, and the peak RSS.
//!
//! `record open PATH` is the child's part.
//!
//! `cargo bench --bench record -- export`: what `zswaptop export` costs per row written, as
//! thread CPU time into a sink, for csv and jsonl: over assets/demo.zsr (a real recording,
//! every record changing); over 1 MiB of one keyframe (the depth-cgroup-v2 fixture with its 20
//! processes and cgroup tree) followed by empty deltas, the most records a MiB can hold
//! (scripts/fuzz-recordings.sh makes the same file); and over 1 MiB of that sample recorded
//! again and again a second apart, no keyframe after the first: the smallest deltas that
//! change something (its two clocks), each a sample rebuilt and a row made; and the same with
//! one process's swap figure or one cgroup's memory moving too.
//!
//! `cargo bench --bench record -- export-parts`: where a row's CPU goes (rebuilding the sample,
//! derive, the rules, the whole pipeline, JSON, CSV values), per row, for assets/demo.zsr, the
//! clocks-only file and the one-cgroup file.
//!
//! `cargo bench --bench record -- crafted DIR`: writes the three 1 MiB files of smallest deltas
//! into DIR (scripts/fuzz-recordings.sh adds them to its corpus).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use zswaptop::record::{Reader, Writer, WriterOptions, frame};
use zswaptop::root::Root;
use zswaptop::sources::{self, Extras, Sample, processes};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().map(String::as_str) == Some("open") {
        let path = args.get(1).ok_or("open PATH")?;
        return open_day(Path::new(path));
    }
    if args.first().map(String::as_str) == Some("export") {
        return export_rows();
    }
    if args.first().map(String::as_str) == Some("export-parts") {
        return export_parts();
    }
    if args.first().map(String::as_str) == Some("crafted") {
        let dir = Path::new(args.get(1).ok_or("crafted DIR")?);
        return crafted(dir);
    }
    let seconds: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(60);
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-record");
    std::fs::create_dir_all(&out)?;

    println!("sampling the live system at 1 s for {seconds} s ...");
    let (plain, top) = sample_live(seconds);
    for (name, series) in [("without processes", &plain), ("with --top 20", &top)] {
        let path = out.join(format!("{}.zsr", name.replace([' ', '-'], "_")));
        let _ = std::fs::remove_file(&path);
        let (keys, deltas) = record(&path, series)?;
        let key = keys.iter().sum::<u64>() as f64 / keys.len().max(1) as f64;
        let delta = deltas.iter().sum::<u64>() as f64 / deltas.len().max(1) as f64;
        let total = std::fs::metadata(&path)?.len();
        // Steady state: one keyframe, then deltas up to the next (60 at 1 s; 12 at 5 s, whose
        // deltas are taken to be the 1 s ones); the old distance, 300 records, for comparison.
        let steady = |every: f64| (key + (every - 1.0) * delta) / every;
        println!(
            "size {name}: {} samples, file {total} B = {:.0} B/sample over the run; {} keyframes, mean {key:.0} B; {} deltas, mean {delta:.0} B (min {}, max {}); steady state {:.0} B/sample at 1 s (keyframe every 60), {:.0} B/sample at 5 s (every 12), {:.0} B/sample with a keyframe every 300",
            series.len(),
            total as f64 / series.len() as f64,
            keys.len(),
            deltas.len(),
            deltas.iter().min().unwrap_or(&0),
            deltas.iter().max().unwrap_or(&0),
            steady(60.0),
            steady(12.0),
            steady(300.0),
        );
        let per = cpu_per_append(&out.join("cpu.zsr"), series)?;
        println!(
            "cpu {name}: {:.1} us per append (encode + compress + write), thread CPU time",
            per * 1e6
        );
    }

    let day = out.join("day.zsr");
    let _ = std::fs::remove_file(&day);
    let started = Instant::now();
    let n = make_day(&day, &plain)?;
    println!(
        "day: {n} samples, {} B ({:.0} B/sample), written in {:.1} s",
        std::fs::metadata(&day)?.len(),
        std::fs::metadata(&day)?.len() as f64 / n as f64,
        started.elapsed().as_secs_f64()
    );
    let exe = std::env::current_exe()?;
    let status = std::process::Command::new("/usr/bin/time")
        .arg("-v")
        .arg(&exe)
        .arg("open")
        .arg(&day)
        .output()?;
    print!("{}", String::from_utf8_lossy(&status.stdout));
    for line in String::from_utf8_lossy(&status.stderr).lines() {
        if line.contains("Maximum resident") || line.contains("Elapsed (wall") {
            println!("open (/usr/bin/time -v):{line}");
        }
    }
    Ok(())
}

/// One sample a second: the recorder's tick (a full read every 60 s, the fast path between),
/// once without and once with the top 20 processes.
fn sample_live(seconds: u64) -> (Vec<Sample>, Vec<Sample>) {
    let root = Root::live();
    let top = Extras {
        smaps: false,
        top_processes: Some(20),
        cgroups: false,
        settings: false,
    };
    let mut plain: Vec<Sample> = Vec::new();
    let mut with_top: Vec<Sample> = Vec::new();
    let start = Instant::now();
    for i in 0..seconds {
        let (a, b) = match (plain.last(), with_top.last()) {
            (Some(p), Some(q)) if i % 60 != 0 => (
                sources::collect_fast(&root, p, Extras::default()),
                sources::collect_fast(&root, q, top),
            ),
            _ => (sources::collect(&root), sources::collect_with(&root, top)),
        };
        plain.push(a);
        with_top.push(stand_in_top(b, &root));
        let next = start + Duration::from_secs(i + 1);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    (plain, with_top)
}

/// When no process uses swap, the 20 largest by RSS, each with half its RSS as swap.
fn stand_in_top(mut s: Sample, root: &Root) -> Sample {
    let Some(scan) = s.processes.as_mut() else {
        return s;
    };
    if !scan.top.is_empty() {
        return s;
    }
    let users = processes::Users::load(root);
    let mut all: Vec<processes::ProcSample> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let bytes = std::fs::read(e.path().join("status")).ok()?;
            processes::parse_status(pid, &bytes)
        })
        .collect();
    all.sort_by(|a, b| b.rss_bytes.cmp(&a.rss_bytes).then(a.pid.cmp(&b.pid)));
    all.truncate(20);
    for p in &mut all {
        p.swap_bytes = p.rss_bytes.unwrap_or(0) / 2;
        p.user = users.name(p.uid);
        p.cgroup = processes::cgroup_v2_path(root, p.pid);
    }
    all.sort_by(|a, b| b.swap_bytes.cmp(&a.swap_bytes).then(a.pid.cmp(&b.pid)));
    scan.with_swap = all.len();
    scan.total_swap_bytes = all.iter().map(|p| p.swap_bytes).sum();
    scan.top = all;
    s
}

/// Record a series with the default options: the sizes of its keyframes and of its deltas.
fn record(
    path: &Path,
    series: &[Sample],
) -> Result<(Vec<u64>, Vec<u64>), Box<dyn std::error::Error>> {
    let mut w = Writer::open(path, WriterOptions::default())?;
    for s in series {
        w.append(s)?;
    }
    drop(w);
    let bytes = std::fs::read(path)?;
    let scan = frame::scan(&bytes[..], frame::HEADER_LEN as u64)?;
    let (mut keys, mut deltas) = (Vec::new(), Vec::new());
    for (_, f) in scan.frames {
        if f.kind & !frame::FLAG_ZSTD == frame::KIND_KEYFRAME {
            keys.push(f.len as u64);
        } else {
            deltas.push(f.len as u64);
        }
    }
    Ok((keys, deltas))
}

/// This thread's CPU time (ns), from the scheduler.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// CPU seconds per append, over at least 3000 appends of the series (times advancing).
fn cpu_per_append(path: &Path, series: &[Sample]) -> Result<f64, Box<dyn std::error::Error>> {
    let _ = std::fs::remove_file(path);
    let mut w = Writer::open(path, WriterOptions::default())?;
    let rounds = 3000usize.div_ceil(series.len());
    let span = series.len() as u64 * 1000;
    let mut n = 0u64;
    let mut busy = 0u64;
    for r in 0..rounds as u64 {
        for s in series {
            let mut s = s.clone();
            s.unix_ms += r * span;
            let t = thread_cpu_ns();
            w.append(&s)?;
            busy += thread_cpu_ns() - t;
            n += 1;
        }
    }
    drop(w);
    let _ = std::fs::remove_file(path);
    Ok(busy as f64 / 1e9 / n as f64)
}

/// 86,400 samples a second apart made from the live series: each pass over it adds what the
/// counters moved during the series, so they keep advancing.
fn make_day(path: &Path, series: &[Sample]) -> Result<usize, Box<dyn std::error::Error>> {
    let (first, last) = (&series[0], &series[series.len() - 1]);
    let moved =
        |f: fn(&Sample) -> Option<u64>| f(last).unwrap_or(0).saturating_sub(f(first).unwrap_or(0));
    let d_pgmaj = moved(|s| s.vmstat.as_ref().ok()?.pgmajfault);
    let d_psi = moved(|s| Some(s.psi.as_ref().ok()?.some.total_us));
    let mut w = Writer::open(path, WriterOptions::default())?;
    let n = 86_400;
    let span = series.len() as u64;
    for i in 0..n as u64 {
        let pass = i / span;
        let mut s = series[(i % span) as usize].clone();
        s.unix_ms = first.unix_ms + i * 1000;
        s.monotonic_ns = first.monotonic_ns + i * 1_000_000_000;
        if let Ok(v) = s.vmstat.as_mut() {
            v.pgmajfault = v.pgmajfault.map(|x| x + pass * d_pgmaj);
        }
        if let Ok(p) = s.psi.as_mut() {
            p.some.total_us += pass * d_psi;
            p.full.total_us += pass * d_psi;
        }
        s.host.uptime_seconds = s.host.uptime_seconds.map(|u| u + (pass * span) as f64);
        w.append(&s)?;
    }
    Ok(n)
}

/// The child: open the day, seek to its middle and its end.
fn open_day(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let t = Instant::now();
    let mut r = Reader::open(path)?;
    let opened = t.elapsed();
    let bounds = r.bounds().ok_or("empty recording")?;
    let mid = bounds.first + jiff::SignedDuration::from_hours(12);
    let t = Instant::now();
    let m = r.at(mid)?.ok_or("nothing at the middle")?;
    let seek_mid = t.elapsed();
    let t = Instant::now();
    let e = r.at(bounds.last)?.ok_or("nothing at the end")?;
    let seek_end = t.elapsed();
    println!(
        "open: {} records in {:.0} ms; at(middle) {:.2} ms (position {}, with its predecessor: {}); at(end) {:.2} ms; {} warnings",
        r.len(),
        opened.as_secs_f64() * 1e3,
        seek_mid.as_secs_f64() * 1e3,
        m.position,
        m.prev.is_some(),
        seek_end.as_secs_f64() * 1e3,
        r.warnings().len(),
    );
    assert_eq!(e.position, r.len() - 1);
    Ok(())
}

/// The depth-cgroup-v2 fixture's sample with its 20 processes and its cgroup tree.
fn fixture_sample() -> Sample {
    let root = Root::at(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/depth-cgroup-v2"
    ));
    let extras = Extras {
        smaps: false,
        top_processes: Some(20),
        cgroups: true,
        settings: false,
    };
    sources::collect_with(&root, extras)
}

/// 1 MiB of records: one keyframe of the depth-cgroup-v2 fixture (its 20 processes with their
/// command lines, its cgroup tree), then empty deltas.
fn empty_deltas(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let sample = fixture_sample();
    let _ = std::fs::remove_file(path);
    let opts = WriterOptions {
        command_lines: true,
        ..WriterOptions::default()
    };
    let mut w = Writer::open(path, opts)?;
    w.append(&sample)?;
    drop(w);
    let one = std::fs::read(path)?;
    let scan = frame::scan(&one[..], frame::HEADER_LEN as u64)?;
    let &(at, key) = scan.frames.first().ok_or("no keyframe written")?;
    let mut bytes = one[..at as usize + key.len].to_vec();
    let mut n = 1;
    while bytes.len() < 1 << 20 {
        bytes.extend(frame::frame(
            frame::KIND_DELTA,
            sample.unix_ms + n as u64 * 1000,
            &[0, 0, 0],
        ));
        n += 1;
    }
    std::fs::write(path, &bytes)?;
    Ok(())
}

/// 1 MiB of the fixture's sample recorded a second apart, with one keyframe: each delta moves
/// the two clocks and nothing else.
fn clocks_only(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    moving(path, |_| {})
}

/// 1 MiB of deltas moving the clocks and one process's swap figure.
fn one_process(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    moving(path, |s| {
        if let Some(p) = s.processes.as_mut().and_then(|p| p.top.last_mut()) {
            p.swap_bytes += 4096;
        }
    })
}

/// 1 MiB of deltas moving the clocks and one cgroup's memory figure.
fn one_cgroup(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    moving(path, |s| {
        if let Some(Ok(list)) = s.cgroups.as_mut()
            && let Some(c) = list.last_mut()
        {
            c.memory_current = Some(c.memory_current.unwrap_or(0) + 4096);
        }
    })
}

/// `crafted DIR`: the 1 MiB files of the smallest deltas that change something (the clocks;
/// the clocks and one process; the clocks and one cgroup), for scripts/fuzz-recordings.sh.
fn crafted(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    clocks_only(&dir.join("made-clocks-only-1m.zsr"))?;
    one_process(&dir.join("made-one-process-1m.zsr"))?;
    one_cgroup(&dir.join("made-one-cgroup-1m.zsr"))
}

/// 1 MiB of the fixture sample recorded again and again a second apart, `change` applied to
/// it before each record, no keyframe after the first.
fn moving(path: &Path, change: impl Fn(&mut Sample)) -> Result<(), Box<dyn std::error::Error>> {
    let mut s = fixture_sample();
    let _ = std::fs::remove_file(path);
    let opts = WriterOptions {
        command_lines: true,
        keyframe_every: u32::MAX,
        keyframe_interval: Duration::from_secs(u64::MAX / 4),
        ..WriterOptions::default()
    };
    let mut w = Writer::open(path, opts)?;
    while std::fs::metadata(path)?.len() < 1 << 20 {
        w.append(&s)?;
        s.unix_ms += 1000;
        s.monotonic_ns += 1_000_000_000;
        change(&mut s);
    }
    Ok(())
}

/// The export's CPU per row and per MiB of file, for each format.
fn export_rows() -> Result<(), Box<dyn std::error::Error>> {
    use zswaptop::record::export::{self, ExportFormat, Options};
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-record");
    std::fs::create_dir_all(&out)?;
    let empty = out.join("empty-deltas-1m.zsr");
    empty_deltas(&empty)?;
    let ticking = out.join("clocks-only-1m.zsr");
    clocks_only(&ticking)?;
    // The smallest deltas that change a large member too: one process's swap figure (an
    // element of the list of 20 processes), one cgroup's counter (of the cgroup tree).
    let process = out.join("one-process-1m.zsr");
    one_process(&process)?;
    let cgroup = out.join("one-cgroup-1m.zsr");
    one_cgroup(&cgroup)?;
    let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.zsr"));
    for (name, path) in [
        ("assets/demo.zsr", &demo),
        ("1 MiB of empty deltas", &empty),
        ("1 MiB of deltas moving the clocks only", &ticking),
        ("1 MiB of deltas moving one process's swap", &process),
        ("1 MiB of deltas moving one cgroup's memory", &cgroup),
    ] {
        let rows = Reader::open(path)?.len();
        let mib = std::fs::metadata(path)?.len() as f64 / f64::from(1 << 20);
        for format in [ExportFormat::Csv, ExportFormat::Jsonl] {
            let opts = Options {
                from: path.clone(),
                since: None,
                until: None,
                format,
            };
            let t = thread_cpu_ns();
            export::export(&opts, &mut std::io::sink())?;
            let cpu = (thread_cpu_ns() - t) as f64 / 1e9;
            println!(
                "export {format:?} of {name} ({rows} rows, {mib:.2} MiB): {cpu:.2} s CPU, {:.1} us per row, {:.2} s per MiB",
                cpu / rows as f64 * 1e6,
                cpu / mib,
            );
        }
    }
    for path in [&empty, &ticking, &process, &cgroup] {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Where a row's CPU goes: rebuilding the sample, each step of the pipeline, formatting.
fn export_parts() -> Result<(), Box<dyn std::error::Error>> {
    use zswaptop::model::Snapshot;
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-record");
    std::fs::create_dir_all(&out)?;
    let ticking = out.join("clocks-only-1m.zsr");
    clocks_only(&ticking)?;
    let cgroup = out.join("one-cgroup-1m.zsr");
    one_cgroup(&cgroup)?;
    let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.zsr"));
    for (name, path) in [
        ("assets/demo.zsr", &demo),
        ("clocks only", &ticking),
        ("one cgroup", &cgroup),
    ] {
        let mut r = Reader::open(path)?;
        let n = r.len().min(3000);
        let mut t = [0u64; 6];
        let mut prev: Option<(Sample, Snapshot)> = None;
        let mut bytes = 0;
        for p in 0..n {
            let c = fine_cpu_ns();
            let s = r.sample(p)?;
            let c1 = fine_cpu_ns();
            let derived = Snapshot::derive(&s, prev.as_ref().map(|(p, _)| p));
            let c2 = fine_cpu_ns();
            let judged = zswaptop::diagnostics::judge(derived.clone(), &Default::default());
            let c3 = fine_cpu_ns();
            let snap = zswaptop::pipeline::snapshot_over(
                &s,
                prev.as_ref().map(|(p, d)| (p, d)),
                &Default::default(),
            );
            let c4 = fine_cpu_ns();
            let mut buf = Vec::new();
            zswaptop::report::json::serialize(
                &snap,
                zswaptop::report::json::Layout::Line,
                &mut buf,
            )?;
            bytes += buf.len();
            let c5 = fine_cpu_ns();
            let mut line = String::new();
            for m in zswaptop::report::csv::figures() {
                if let Some(v) = m.value(&snap) {
                    line.push_str(&v.to_string());
                }
                line.push(',');
            }
            let c6 = fine_cpu_ns();
            std::hint::black_box((&judged, &line));
            for (i, (a, b)) in [(c, c1), (c1, c2), (c2, c3), (c3, c4), (c4, c5), (c5, c6)]
                .iter()
                .enumerate()
            {
                t[i] += b - a;
            }
            prev = Some((s, snap));
        }
        let us = |x: u64| x as f64 / n as f64 / 1e3;
        println!(
            "{name}: {n} rows; per row: sample {:.1} us, derive {:.1}, judge {:.1}, pipeline (all) {:.1}, json {:.1} ({} B), csv values {:.1}",
            us(t[0]),
            us(t[1]),
            us(t[2]),
            us(t[3]),
            us(t[4]),
            bytes / n,
            us(t[5])
        );
    }
    Ok(())
}

/// This thread's CPU time from the vDSO clock (no file read in between the steps timed).
fn fine_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}
