//! The registry of figures (`zswaptop::model::metrics`) against the outputs it feeds: every
//! entry reaches each output it claims, on the fixture trees, and nothing reaches an output
//! without being declared for it; a recording keeps every counter it claims to (through the
//! binary: record, then export); and figures of the shapes the next ones take (time to full,
//! a hit ratio, a latency in milliseconds, per-process faults) each take one declaration.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use zswaptop::history::History;
use zswaptop::model::Snapshot;
use zswaptop::model::metrics::{
    self, Kind, Metric, Output, Point, REGISTRY, Read, Unit, exported, gauge,
};
use zswaptop::report::openmetrics::{self, Flavor};
use zswaptop::report::{csv, text};
use zswaptop::root::Root;
use zswaptop::sources::zswap::DEBUGFS_FILES;
use zswaptop::sources::{self, Extras, Sample};

/// The BPF programs' counters since their load (a tree has no kernel to probe, so the sample of
/// one says why there are none): `zswap` swap-ins in [2.05, 2.56) us and `disk` in
/// [4.19, 5.24) ms, each tier's buckets as the programs keep them; zram not measured.
pub(crate) fn swapins(s: &mut Sample, zswap: u64, disk: u64) {
    use zswaptop::sources::bpf::{BUCKETS, SwapinSample, TierCounts, TierReading};
    let tier = |name: &str, bucket: usize, n: u64| {
        let mut buckets = vec![0; BUCKETS];
        buckets[bucket] = n;
        TierReading {
            tier: name.into(),
            counts: Some(TierCounts {
                buckets,
                count: n,
                sum_ns: n * 5_000_000,
                max_ns: 5_000_000,
            }),
            reason: None,
        }
    };
    s.swapin = SwapinSample {
        reason: None,
        loaded_ns: 1,
        probes: "fentry".into(),
        tiers: vec![
            tier("zswap", 4, zswap),
            TierReading {
                tier: "zram".into(),
                counts: None,
                reason: Some("no zram device".into()),
            },
            tier("disk", 48, disk),
        ],
        // The store side: zswap's stores in [10.2, 12.3) us, none written to a disk.
        stores: vec![tier("zswap", 13, zswap), tier("disk", 44, 0)],
    };
}

/// A zswap debugfs file no kernel has yet: the exposition lists it by name.
const LATER_FILE: &str = "a_later_kernels_counter";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every fixture tree (a directory with `proc` or `sys`).
fn trees() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("proc").is_dir() || p.join("sys").is_dir())
        .collect();
    out.sort();
    assert!(out.len() > 20, "{out:?}");
    out
}

/// Two reads of `tree` a second apart, the cgroups and the top processes scanned (their
/// smaps_rollup read: shmem swap and SwapPss), and every zswap
/// debugfs file there (those of older kernels and a later kernel's too, where the tree has
/// debugfs at all): the judged snapshot of the second over the first. The second has pages
/// swapped in from zswap and from a device (a hit ratio needs swap-ins), requests completed on
/// the swap devices (a latency) and zram devices a MiB fuller (a forecast). A tree captured
/// as the second of a pair (`NAME-t1`) is read over its first (`NAME`) instead: what moved
/// between two real readings (the pool and swap filling, the device's requests) gives the
/// forecasts and latencies. Every pair has the BPF programs' swap-in counters (the same
/// swap-ins from zswap and a device as vmstat's): the latency histograms.
fn snapshot(tree: &Path) -> (Sample, Snapshot) {
    let extras = Extras {
        smaps: true,
        top_processes: Some(5),
        cgroups: true,
        settings: true,
    };
    let with_debugfs = |mut s: Sample| {
        if let Ok(d) = s.zswap_debugfs.as_mut() {
            for file in DEBUGFS_FILES.iter().chain([&LATER_FILE]) {
                if d.values.get(file).is_none() {
                    d.values.insert(file, 1);
                }
            }
        }
        s
    };
    let name = tree.file_name().unwrap().to_string_lossy().to_string();
    let (a, b) = match name.strip_suffix("-t1") {
        Some(first) => {
            let a = sources::collect_with(&Root::at(tree.with_file_name(first)), extras);
            let mut b = sources::collect_with(&Root::at(tree), extras);
            // Captured some seconds apart (their uptimes say 8.7 and 12.7 s).
            b.monotonic_ns = a.monotonic_ns + 8_000_000_000;
            b.unix_ms = a.unix_ms + 8_000;
            (with_debugfs(a), with_debugfs(b))
        }
        None => {
            let a = with_debugfs(sources::collect_with(&Root::at(tree), extras));
            let mut b = a.clone();
            b.monotonic_ns += 1_000_000_000;
            b.unix_ms += 1_000;
            if let Ok(v) = b.vmstat.as_mut() {
                v.zswpin = v.zswpin.map(|n| n + 3);
                v.pswpin = v.pswpin.map(|n| n + 1);
            }
            // Requests completed on the swap devices, and zram devices filling.
            for t in b.block_times.values_mut() {
                (t.reads, t.read_ms, t.writes, t.write_ms) =
                    (t.reads + 4, t.read_ms + 10, t.writes + 2, t.write_ms + 3);
            }
            for z in &mut b.zram {
                if let Ok(m) = z.mm_stat.as_mut() {
                    m.orig_data_size += 1 << 20;
                }
            }
            (a, b)
        }
    };
    let (mut a, mut b) = (a, b);
    swapins(&mut a, 10, 4);
    swapins(&mut b, 13, 5);
    let snap = zswaptop::pipeline::snapshot(&b, Some(&a));
    (b, snap)
}

/// What each output made of one snapshot.
struct Outputs {
    json: serde_json::Value,
    history: History,
    counter_lines: Vec<String>,
    csv_header: Vec<String>,
    /// Sample names of the exposition (with `_total`/`_info`), in both formats alike.
    exposition: BTreeSet<String>,
}

fn sample_names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split(['{', ' ']).next().unwrap().to_string())
        .collect()
}

fn outputs(snap: &Snapshot) -> Outputs {
    let mut history = History::new(std::time::Duration::from_secs(60));
    history.push_snapshot(1_000_000_000, snap);
    let mut full = Vec::new();
    text::write(snap, &mut full, text::Style { color: false }).unwrap();
    let full = String::from_utf8(full).unwrap();
    let counter_lines = full
        .lines()
        .skip_while(|l| !l.starts_with("KERNEL COUNTERS"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::to_string)
        .collect();
    let mut header = "time,unix_ms,interval_seconds".to_string();
    for c in csv::columns() {
        header.push(',');
        header.push_str(&c);
    }
    let mut om = String::new();
    openmetrics::render(snap, Flavor::OpenMetrics, &mut om);
    let mut prom = String::new();
    openmetrics::render(snap, Flavor::Prometheus, &mut prom);
    assert_eq!(sample_names(&om), sample_names(&prom));
    Outputs {
        json: serde_json::to_value(snap).unwrap(),
        history,
        counter_lines,
        csv_header: header.split(',').map(str::to_string).collect(),
        exposition: sample_names(&prom),
    }
}

/// The sample names a figure's points have in the exposition (a histogram's three).
fn exposed_names(m: &Metric) -> Vec<String> {
    openmetrics::sample_names(m)
}

/// Whether `m` is in `output` as `o` made it of `snap` (`sample`: the raw sample under it).
fn found(m: &Metric, output: Output, o: &Outputs, snap: &Snapshot, sample: &Sample) -> bool {
    match output {
        Output::Rate => o.json["rates"]["per_sec"][m.id].is_number(),
        // A recorded sample is the raw sample; `recordings_keep_every_counter` checks the
        // recorder through the binary.
        Output::Recording => m.total_in_sample(sample).is_some(),
        Output::History => o.history.latest(m).is_some(),
        Output::CounterLine => o.counter_lines.iter().any(|l| {
            l.strip_prefix("  ")
                .and_then(|l| l.strip_prefix(m.label))
                .is_some_and(|rest| rest.starts_with(' ') && !rest.trim_start().starts_with('—'))
        }),
        Output::Csv => o.csv_header.contains(&csv::column(m)) && m.value(snap).is_some(),
        Output::Exposition => exposed_names(m).iter().all(|n| o.exposition.contains(n)),
    }
}

/// Every entry reaches each output it claims on at least one fixture tree (a value the tree
/// does not hold is absent, so no one tree has them all), and no output holds a figure that
/// does not claim it.
#[test]
fn every_entry_reaches_the_outputs_it_claims() {
    let mut reached: BTreeMap<(&str, String), bool> = BTreeMap::new();
    for m in REGISTRY {
        for o in Output::ALL {
            if m.reaches(o) {
                reached.insert((m.id, format!("{o:?}")), false);
            }
        }
    }
    let claimed = |o: Output| -> Vec<&Metric> { metrics::reaching(o).collect() };
    let label_of = |m: &Metric| m.label.to_string();
    for tree in trees() {
        let (sample, snap) = snapshot(&tree);
        let o = outputs(&snap);
        for m in REGISTRY {
            for output in Output::ALL {
                if m.reaches(output) && found(m, output, &o, &snap, &sample) {
                    reached.insert((m.id, format!("{output:?}")), true);
                }
            }
        }
        // Nothing more than what is declared, in the declared order.
        let rated: BTreeSet<String> = o.json["rates"]["per_sec"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let ids: BTreeSet<String> = claimed(Output::Rate)
            .iter()
            .map(|m| m.id.to_string())
            .collect();
        assert!(rated.is_subset(&ids), "{tree:?}: {rated:?}");
        let lines: Vec<String> = claimed(Output::CounterLine)
            .iter()
            .map(|m| label_of(m))
            .collect();
        let shown: Vec<String> = o
            .counter_lines
            .iter()
            .map(|l| {
                l.trim_start()
                    .split("  ")
                    .next()
                    .unwrap()
                    .trim()
                    .to_string()
            })
            .collect();
        assert_eq!(shown, lines, "{tree:?}");
        let names: BTreeSet<String> = claimed(Output::Exposition)
            .iter()
            .flat_map(|m| exposed_names(m))
            .collect();
        let stray: Vec<&String> = o.exposition.difference(&names).collect();
        assert!(stray.is_empty(), "{tree:?}: {stray:?}");
    }
    let missed: Vec<String> = reached
        .iter()
        .filter(|(_, r)| !**r)
        .map(|((id, o), _)| format!("{id} in {o}"))
        .collect();
    assert!(
        missed.is_empty(),
        "claimed but reached on no fixture tree: {missed:?}"
    );
    // The history has a column for each graphed figure and no other.
    let graphed: Vec<&str> = claimed(Output::History).iter().map(|m| m.id).collect();
    let series: Vec<&str> = [
        metrics::GraphId::Pool,
        metrics::GraphId::Ratio,
        metrics::GraphId::Traffic,
        metrics::GraphId::Psi,
    ]
    .into_iter()
    .flat_map(metrics::in_graph)
    .map(|m| m.id)
    .collect::<BTreeSet<_>>()
    .into_iter()
    .collect();
    let mut sorted = graphed.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, series);
}

/// Each point of a labelled figure carries the labels its entry names (an info may leave one
/// out, and one that names none takes its labels from what it reads), and each series of a
/// histogram too.
#[test]
fn labelled_points_carry_their_declared_labels() {
    let mut seen = BTreeSet::new();
    for tree in trees() {
        let (_, snap) = snapshot(&tree);
        for m in REGISTRY {
            if let Read::Histogram { labels, .. } = m.read {
                for h in m.histograms(&snap) {
                    let names: Vec<&str> = h.labels.iter().map(|(k, _)| k.as_str()).collect();
                    assert_eq!(names, labels, "{}", m.id);
                    seen.insert(m.id);
                }
            }
            let Read::Labelled { labels, .. } = m.read else {
                continue;
            };
            for p in m.points(&snap) {
                let names: Vec<&str> = p.labels.iter().map(|(k, _)| k.as_str()).collect();
                match m.kind {
                    Kind::Info if labels.is_empty() => {}
                    Kind::Info => assert!(
                        names.iter().all(|n| labels.contains(n)),
                        "{}: {names:?}",
                        m.id
                    ),
                    _ => assert_eq!(names, labels, "{}", m.id),
                }
                seen.insert(m.id);
            }
        }
    }
    let unseen: Vec<&str> = REGISTRY
        .iter()
        .filter(|m| m.is_labelled() && !seen.contains(m.id))
        .map(|m| m.id)
        .collect();
    assert!(unseen.is_empty(), "{unseen:?}");
}

fn bin() -> Command {
    Command::cargo_bin("zswaptop").unwrap()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let ty = e.file_type().unwrap();
        let dest = to.join(e.file_name());
        if ty.is_dir() {
            copy_tree(&e.path(), &dest);
        } else if ty.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), dest).unwrap();
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// A recording keeps the total of every counter that claims it: the loaded tree (with every
/// debugfs file the registry reads) recorded twice by `--once -i`, then exported, has each one's
/// rate in the JSON lines and a CSV cell for each CSV counter.
#[test]
fn recordings_keep_every_counter() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    copy_tree(&fixtures().join("linux-6.18-loaded"), &tree);
    let debugfs = tree.join("sys/kernel/debug/zswap");
    for file in DEBUGFS_FILES {
        if !debugfs.join(file).exists() {
            std::fs::write(debugfs.join(file), "3\n").unwrap();
        }
    }
    let rec = dir.path().join("r.zsr");
    let out = bin()
        .args(["--once", "-i", "0.1", "--root"])
        .arg(&tree)
        .arg("--record")
        .arg(&rec)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let export = |format: &str| {
        let out = bin()
            .args(["export", "--format", format, "--from"])
            .arg(&rec)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let jsonl = export("jsonl");
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{jsonl}");
    let per_sec = &lines[1]["rates"]["per_sec"];
    let kept: Vec<&Metric> = metrics::reaching(Output::Recording).collect();
    assert!(kept.len() >= 20, "{}", kept.len());
    for m in &kept {
        assert!(per_sec[m.id].is_number(), "{} not in {per_sec}", m.id);
    }
    let table = export("csv");
    let rows: Vec<Vec<&str>> = table.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3, "{table}");
    for m in kept.iter().filter(|m| m.reaches(Output::Csv)) {
        let at = rows[0]
            .iter()
            .position(|c| *c == csv::column(m))
            .unwrap_or_else(|| panic!("{} not in {:?}", csv::column(m), rows[0]));
        assert!(!rows[2][at].is_empty(), "{}", csv::column(m));
    }
}

/// Shapes of the next figures, each one declaration, here over values the model has today:
/// the time until each swap area fills (seconds, labelled, absent where it is not filling), the
/// zswap pool's (one value, graphed and in CSV), a hit ratio (0–1), a disk's read latency (in
/// milliseconds, in seconds in the exposition) and each top process's major faults (a labelled
/// counter). Every output names and converts them from the declaration alone.
#[test]
fn next_figures_take_one_declaration_each() {
    static NEXT: &[Metric] = &[
        exported(
            "swap_area_time_to_full_seconds",
            Kind::Gauge,
            Unit::Seconds,
            "Time until a swap area is full at the last interval's rate (absent when not filling).",
            Read::Labelled {
                labels: &["area"],
                points: |s| {
                    s.swap
                        .devices
                        .iter()
                        .filter(|d| d.used_bytes > 0)
                        .map(|d| Point {
                            labels: vec![("area".into(), d.path.clone())],
                            value: 600.0,
                        })
                        .collect()
                },
            },
        ),
        gauge(
            "zswap_pool_time_to_full",
            "pool full in",
            Unit::Seconds,
            "Time until the zswap pool reaches its limit at the last interval's rate.",
            Read::Snapshot(|s| s.zswap.pool_headroom_bytes.map(|b| b as f64 / 1e6)),
        )
        .graphed(metrics::GraphId::Pool, "full in", metrics::Hue::Yellow, 't'),
        gauge(
            "zswap_hit_ratio",
            "hit ratio",
            Unit::Share,
            "Share of swap-ins zswap served.",
            Read::Snapshot(|_| Some(0.875)),
        ),
        exported(
            "swap_disk_read_latency",
            Kind::Gauge,
            Unit::Milliseconds,
            "Mean time a read of a disk under swap took over the interval.",
            Read::Labelled {
                labels: &["device"],
                points: |s| {
                    s.swap
                        .devices
                        .iter()
                        .filter_map(|d| d.io.as_ref())
                        .map(|io| Point {
                            labels: vec![("device".into(), io.device.clone())],
                            value: 2.5,
                        })
                        .collect()
                },
            },
        ),
        exported(
            "process_major_faults",
            Kind::Counter,
            Unit::Events,
            "Major faults of a top process since it started.",
            Read::Labelled {
                labels: &["pid"],
                points: |s| {
                    s.processes
                        .iter()
                        .flat_map(|p| &p.top)
                        .map(|r| Point {
                            labels: vec![("pid".into(), r.pid.to_string())],
                            value: 42.0,
                        })
                        .collect()
                },
            },
        ),
    ];
    let (_, snap) = snapshot(&fixtures().join("tiers-zswap-zram-disk"));
    let mut text = String::new();
    openmetrics::render_figures(NEXT.iter(), &snap, Flavor::OpenMetrics, &mut text);
    for want in [
        "# UNIT zswaptop_swap_area_time_to_full_seconds seconds\n",
        "\nzswaptop_swap_area_time_to_full_seconds{area=\"",
        "\"} 600\n",
        "# TYPE zswaptop_zswap_pool_time_to_full_seconds gauge\n",
        "# UNIT zswaptop_zswap_hit_ratio ratio\nzswaptop_zswap_hit_ratio 0.875\n",
        "# UNIT zswaptop_swap_disk_read_latency_seconds seconds\n",
        "\"} 0.0025\n",
        "# TYPE zswaptop_process_major_faults counter\n",
        "\"} 42\n",
    ] {
        assert!(text.contains(want), "{want:?} not in\n{text}");
    }
    assert!(
        text.contains("\nzswaptop_process_major_faults_total{pid=\""),
        "{text}"
    );
    let [area, pool, hit, latency, faults] = [0, 1, 2, 3, 4].map(|i| &NEXT[i]);
    assert_eq!(csv::column(pool), "zswap_pool_time_to_full_seconds");
    assert_eq!(csv::column(hit), "zswap_hit_ratio");
    for m in [pool, hit] {
        assert!(m.reaches(Output::Csv) && m.reaches(Output::Exposition));
    }
    assert!(pool.reaches(Output::History) && !hit.reaches(Output::History));
    for m in [area, latency, faults] {
        assert!(m.is_labelled() && m.reaches(Output::Exposition) && !m.reaches(Output::Csv));
    }
    assert!(
        !faults.reaches(Output::Rate),
        "a labelled counter's rate is the model's to take"
    );
    assert_eq!(zswaptop::display::metric_value(hit, &snap), "87.5%");
    let headroom = snap.zswap.pool_headroom_bytes.unwrap() as f64 / 1e6;
    assert_eq!(
        zswaptop::display::metric_value(pool, &snap),
        zswaptop::display::duration_secs(Some(headroom))
    );
}
