//! The dashboard drawn into ratatui's TestBackend from a pair of fixture samples one second
//! apart (idle, then loaded), so rates have values. Host facts come from the tree under
//! `--root`; the one that depends on who runs the test (`privileged`) is set explicitly.
//!
//! The views that need more than a fixture tree holds get it added to the samples: the block
//! device and I/O counters under the swapfile (devices), a writeback device and recompression
//! on the zram tree, the loaded tree's `proc/PID/status` plus forty more processes with swap
//! (processes), and a cgroup v2 tree written to a temporary directory in the kernel's formats and
//! read with the real reader, twice, for rates (cgroups).

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rstest::rstest;

use zswaptop::app::{Action, App, Msg, View};
use zswaptop::root::Root;
use zswaptop::sources::{self, blockstat, cgroups, processes, swapdev};

const T0: u64 = 1_000 * 1_000_000_000;

fn sample(fixture: &str, t_ns: u64) -> sources::Sample {
    let mut s = sources::collect(&Root::at(format!("tests/fixtures/{fixture}")));
    s.monotonic_ns = t_ns;
    s
}

/// An app that has seen the idle tree and then, one second later, the loaded one.
fn app(args: &[&str]) -> App {
    let mut v = vec!["zswaptop"];
    v.extend_from_slice(args);
    // NO_COLOR as if set: snapshots hold symbols only, and the ASCII test checks the symbols.
    let settings = zswaptop::cli::dashboard_settings(&v, true).unwrap();
    let mut app = App::new(settings, sample("linux-6.18-idle", T0));
    app.update(Msg::Sampled(Box::new(sample(
        "linux-6.18-loaded",
        T0 + 1_000_000_000,
    ))));
    app.shown.host.privileged = false;
    app
}

/// An app over two samples of the dashboard (rates over one second), as [`app`] but from any
/// pair of samples.
fn app_of(args: &[&str], first: sources::Sample, second: sources::Sample) -> App {
    let mut v = vec!["zswaptop"];
    v.extend_from_slice(args);
    let settings = zswaptop::cli::dashboard_settings(&v, true).unwrap();
    let mut app = App::new(settings, first);
    app.update(Msg::Sampled(Box::new(second)));
    app.shown.host.privileged = false;
    app
}

fn screen(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| zswaptop::ui::draw(f, app)).unwrap();
    term
}

/// `app` told the terminal's size (as the loop does) and then shown `view`.
fn on(mut app: App, view: View, w: u16, h: u16) -> App {
    app.update(Msg::Resize(w, h));
    keys(&mut app, &[Action::Show(view)]);
    // The loop lays out a view it switched to before the next key.
    app.update(zswaptop::ui::lay_out(&app));
    app
}

/// Each key as the loop handles it: the layout's scroll limits first, then the key.
fn keys(app: &mut App, actions: &[Action]) {
    for &a in actions {
        app.update(zswaptop::ui::lay_out(app));
        app.update(Msg::Key(a));
    }
}

// ---- samples with the views' extras --------------------------------------------------------

/// The swapfile of the loaded tree on a partition of a non-rotational disk, with that
/// partition's I/O counters (`k`: how far the counters have moved).
pub(crate) fn with_disk(mut s: sources::Sample, k: u64) -> sources::Sample {
    s.swap_devices = vec![swapdev::SwapBacking {
        path: "/swapfile-test".into(),
        kind: "file".into(),
        devnum: None,
        mapped_by: Some("st_dev".into()),
        device: Some(swapdev::BlockDev {
            name: "vda2".into(),
            dir: "/sys/block/vda/vda2".into(),
            partition: true,
        }),
        disks: vec![swapdev::Disk {
            name: "vda".into(),
            dir: "/sys/block/vda".into(),
            rotational: Some(false),
        }],
        zram: None,
        unmapped: None,
    }];
    let stat = blockstat::BlockStat {
        read_ios: 1_000 + 120 * k,
        read_sectors: 80_000 + 960 * k,
        write_ios: 5_000 + 2_400 * k,
        write_sectors: 400_000 + 1_900_000 * k,
        in_flight: 0,
        io_ticks_ms: 10_000 + 370 * k,
    };
    s.block_stats.insert("vda2".into(), Ok(stat));
    s.block_stats.insert("vda".into(), Ok(stat));
    s
}

fn devices_app() -> App {
    let a = with_disk(sample("linux-6.18-idle", T0), 0);
    let b = with_disk(sample("linux-6.18-loaded", T0 + 1_000_000_000), 1);
    app_of(&[], a, b)
}

/// The zram tree with a writeback device and recompression, as a kernel built with
/// CONFIG_ZRAM_WRITEBACK and CONFIG_ZRAM_MULTI_COMP shows them.
fn zram_sample(t: u64) -> sources::Sample {
    let mut s = sample("e2e-phase3-zram", t);
    let z = &mut s.zram[0];
    z.backing_dev = Ok("/dev/vdb".into());
    z.bd_stat = Ok(sources::zram::BdStat {
        bd_count_bytes: 64 << 20,
        bd_reads_bytes: 3 << 20,
        bd_writes_bytes: 80 << 20,
    });
    z.recomp_algorithm = Ok("#1: lzo lzo-rle lz4 [zstd]".into());
    s
}

/// The loaded tree's `hog` (from its `proc/PID/status`) and a few dozen more processes with
/// swap, as the processes view's scan returns them.
fn with_processes(mut s: sources::Sample) -> sources::Sample {
    let status = std::fs::read("tests/fixtures/linux-6.18-loaded/proc/PID/status").unwrap();
    let mut hog = processes::parse_status(6163, &status).unwrap();
    hog.user = Some("root".into());
    // Its smaps_rollup as read on the loaded machine: no shmem swap, its swap its own.
    hog.smaps = Some(processes::SmapsSwap {
        swap_bytes: hog.swap_bytes,
        swap_pss_bytes: hog.swap_bytes,
        vm_swap_bytes: hog.swap_bytes,
    });
    let mut top = vec![hog];
    let names = [
        "firefox",
        "postgres",
        "Xwayland",
        "gnome-shell",
        "java",
        "python3",
        "node",
        "containerd",
    ];
    let users = ["alice", "postgres", "bob", "root"];
    for i in 0..40u32 {
        let in_cgroup = i % 3 == 0;
        top.push(processes::ProcSample {
            pid: 1_000 + i * 37,
            name: names[i as usize % names.len()].into(),
            uid: Some(1_000),
            rss_bytes: if i == 7 {
                None
            } else {
                Some((u64::from(i % 9 + 1) * 23) << 20)
            },
            swap_bytes: (u64::from(41 - i) * 3) << 20,
            user: Some(users[i as usize % users.len()].into()),
            command: (i != 11).then(|| {
                format!(
                    "{} /srv/app{i}/main --queue q{i}",
                    names[i as usize % names.len()]
                )
            }),
            cgroup: in_cgroup.then(|| format!("/system.slice/app{i}.service")),
            cgroup_zswapped: in_cgroup.then_some(u64::from(i % 4) << 20),
            cgroup_swap: in_cgroup.then_some(4 << 20),
            cgroup_zswap: in_cgroup.then_some(u64::from(i % 4) << 18),
            // Every fifth has shmem swap; one is another user's, refused (ptrace access).
            smaps: (i != 5).then(|| processes::SmapsSwap {
                swap_bytes: ((u64::from(41 - i) * 3) << 20) + (u64::from(i % 5 == 0) * (64 << 20)),
                swap_pss_bytes: (u64::from(41 - i) * 3) << 19,
                vm_swap_bytes: (u64::from(41 - i) * 3) << 20,
            }),
            smaps_missing: (i == 5).then(|| zswaptop::error::Reason::Absent {
                note: processes::SMAPS_DENIED.into(),
            }),
        });
    }
    top.sort_by(|a, b| b.swap_bytes.cmp(&a.swap_bytes).then(a.pid.cmp(&b.pid)));
    let total = top.iter().map(|p| p.swap_bytes).sum();
    s.processes = Some(processes::ProcScan {
        scanned: 412,
        with_swap: top.len(),
        total_swap_bytes: total,
        top,
        unreadable: None,
        commands_not_recorded: false,
        smaps_read: true,
    });
    s
}

fn processes_app() -> App {
    let a = with_processes(sample("linux-6.18-idle", T0));
    let b = with_processes(sample("linux-6.18-loaded", T0 + 1_000_000_000));
    app_of(&[], a, b)
}

/// A cgroup v2 tree, as the kernel lays it out: (path, memory.current, memory.swap.current,
/// memory.stat zswap, zswapped, zswpin, zswpout, zswpwb, memory.zswap.max, zswap.writeback).
type Cg = (
    &'static str,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    &'static str,
    &'static str,
);

#[rustfmt::skip]
const TREE: [Cg; 9] = [
    ("",                                           0,           0,         300 << 20, 700 << 20, 10, 900, 5, "",          ""),
    ("system.slice",                               900 << 20,   400 << 20, 180 << 20, 420 << 20, 4,  500, 5, "max",       "1"),
    ("system.slice/nginx.service",                 80 << 20,    30 << 20,  10 << 20,  25 << 20,  1,  40,  0, "max",       "1"),
    ("system.slice/postgresql.service",            700 << 20,   360 << 20, 170 << 20, 395 << 20, 3,  460, 5, "268435456", "1"),
    ("user.slice",                                 1_200 << 20, 300 << 20, 120 << 20, 280 << 20, 6,  400, 0, "max",       "1"),
    ("user.slice/user-1000.slice",                 1_100 << 20, 290 << 20, 115 << 20, 270 << 20, 6,  380, 0, "max",       "1"),
    ("user.slice/user-1000.slice/session-2.scope", 1_000 << 20, 280 << 20, 110 << 20, 260 << 20, 6,  370, 0, "max",       "0"),
    ("batch",                                      50 << 20,    0,         0,         0,         0,  0,   0, "0",         "0"),
    ("batch/job-17",                               40 << 20,    0,         0,         0,         0,  0,   0, "max",       "1"),
];

/// Write the tree under `dir/sys/fs/cgroup`, the event counters moved by `k` seconds' worth.
fn write_tree(dir: &std::path::Path, k: u64) {
    let base = dir.join("sys/fs/cgroup");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::write(
        base.join("cgroup.controllers"),
        "cpuset cpu io memory pids\n",
    )
    .unwrap();
    for (path, cur, swap, zswap, zswapped, zin, zout, zwb, max, wb) in TREE {
        let d = base.join(path);
        std::fs::create_dir_all(&d).unwrap();
        let stat = format!(
            "anon 1\nfile 2\nzswap {zswap}\nzswapped {zswapped}\nzswpin {}\nzswpout {}\nzswpwb {}\n",
            1_000 + zin * k,
            50_000 + zout * k,
            7 + zwb * k
        );
        std::fs::write(d.join("memory.stat"), stat).unwrap();
        if !path.is_empty() {
            std::fs::write(d.join("memory.current"), format!("{cur}\n")).unwrap();
            std::fs::write(d.join("memory.swap.current"), format!("{swap}\n")).unwrap();
            std::fs::write(d.join("memory.zswap.max"), format!("{max}\n")).unwrap();
            std::fs::write(d.join("memory.zswap.writeback"), format!("{wb}\n")).unwrap();
            // Events, pressure and limits: job-17 held to 48M without swap, killed once in
            // the second read's window; postgresql throttled over its memory.high.
            let (high, max, swap_max, kills, highs) = match path {
                "batch/job-17" => ("max", "50331648", "0", 1 + k, 0),
                "system.slice/postgresql.service" => ("713031680", "max", "max", 0, 30 + 12 * k),
                // memory.events counts a child's kills in its parents too.
                "batch" => ("max", "max", "max", 1 + k, 0),
                _ => ("max", "max", "max", 0, 0),
            };
            std::fs::write(d.join("memory.high"), format!("{high}\n")).unwrap();
            std::fs::write(d.join("memory.max"), format!("{max}\n")).unwrap();
            std::fs::write(d.join("memory.swap.max"), format!("{swap_max}\n")).unwrap();
            std::fs::write(
                d.join("memory.events"),
                format!(
                    "low 0\nhigh {highs}\nmax {}\noom {kills}\noom_kill {kills}\noom_group_kill 0\n",
                    3 * kills
                ),
            )
            .unwrap();
            let some = if highs > 0 { 4.25 } else { 0.0 };
            std::fs::write(
                d.join("memory.pressure"),
                format!(
                    "some avg10={some:.2} avg60=0.00 avg300=0.00 total={}\n\
                     full avg10={:.2} avg60=0.00 avg300=0.00 total={}\n",
                    highs * 1000,
                    some / 2.0,
                    highs * 500
                ),
            )
            .unwrap();
        }
    }
}

fn cgroups_app() -> App {
    let tmp = tempfile::tempdir().unwrap();
    let read = |fixture: &str, t: u64, k: u64| {
        write_tree(tmp.path(), k);
        let root = Root::at(tmp.path());
        let tree = cgroups::find(&root).unwrap();
        let mut s = sample(fixture, t);
        s.cgroups = Some(Ok(cgroups::read_tree(&root, &tree)));
        s
    };
    let a = read("linux-6.18-idle", T0, 0);
    let b = read("linux-6.18-loaded", T0 + 1_000_000_000, 1);
    app_of(&[], a, b)
}

/// A cgroup v1 machine (a live capture): memory and swap per cgroup, zswap missing.
fn cgroups_v1_app() -> App {
    let root = Root::at("tests/fixtures/linux-6.18-cgroup-v1");
    let tree = cgroups::find(&root).unwrap();
    let mut s = sample("linux-6.18-cgroup-v1", T0);
    let mut s2 = sample("linux-6.18-cgroup-v1", T0 + 1_000_000_000);
    s.cgroups = Some(Ok(cgroups::read_tree(&root, &tree)));
    s2.cgroups = s.cgroups.clone();
    app_of(&[], s, s2)
}

/// No memory controller on either cgroup version: the cgroups view says why it has nothing.
fn cgroups_none_app() -> App {
    let tmp = tempfile::tempdir().unwrap();
    let none = cgroups::find(&Root::at(tmp.path())).map(|_| Vec::new());
    let mut s = sample("linux-6.18-idle", T0);
    let mut s2 = sample("linux-6.18-loaded", T0 + 1_000_000_000);
    s.cgroups = Some(none.clone());
    s2.cgroups = Some(none);
    app_of(&[], s, s2)
}

fn snap(name: &str, term: &Terminal<TestBackend>) {
    settings().bind(|| insta::assert_snapshot!(name, term.backend()));
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(
        &format!("zswaptop {}", env!("CARGO_PKG_VERSION")),
        "zswaptop [version]",
    );
    s.set_snapshot_path("snapshots");
    s
}

fn text(term: &Terminal<TestBackend>) -> String {
    term.backend().to_string()
}

#[test]
fn overview_80x24() {
    let term = screen(&app(&[]), 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn overview_120x40() {
    let term = screen(&app(&[]), 120, 40);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn graphs_80x24() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::Show(View::Graphs)));
    let term = screen(&a, 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn graphs_120x40() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::Show(View::Graphs)));
    let term = screen(&a, 120, 40);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn devices_80x24() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::Show(View::Devices)));
    let term = screen(&a, 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn devices_120x40() {
    let a = on(devices_app(), View::Devices, 120, 40);
    snap("devices_120x40", &screen(&a, 120, 40));
}

#[test]
fn devices_io_80x24() {
    let a = on(devices_app(), View::Devices, 80, 24);
    let term = screen(&a, 80, 24);
    let t = text(&term);
    for needle in [
        "vda2 on vda",
        "device I/O is all traffic on the device, not only swap",
        "pswpin 0/s pswpout 0/s",
        "priorities, filled highest first: -2 /swapfile-test",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    snap("devices_io_80x24", &term);
}

#[test]
fn devices_io_pending_after_one_sample() {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let a = App::new(settings, with_disk(sample("linux-6.18-loaded", T0), 0));
    let t = text(&screen(&on(a, View::Devices, 100, 30), 100, 30));
    assert!(t.contains("pending"), "{t}");
}

#[test]
fn devices_zram_80x24() {
    let a = app_of(&[], zram_sample(T0), zram_sample(T0 + 1_000_000_000));
    let a = on(a, View::Devices, 80, 24);
    snap("devices_zram_80x24", &screen(&a, 80, 24));
}

#[test]
fn devices_zram_120x40() {
    let a = app_of(&[], zram_sample(T0), zram_sample(T0 + 1_000_000_000));
    let a = on(a, View::Devices, 120, 40);
    let term = screen(&a, 120, 40);
    let t = text(&term);
    for needle in [
        "zram0  lz4  disksize 1.0 GiB  swap, priority 100",
        "orig 691.3 MiB",
        "compr 320.9 MiB",
        "mem used 330.3 MiB",
        "limit none",
        "peak 330.3 MiB",
        "ratio 2.09:1 effective (2.15:1 compressor only)",
        "allocator overhead 9.4 MiB",
        "same-filled 0 pages",
        "huge 19661 pages",
        "failed reads 0 writes 0",
        "writeback to /dev/vdb holds 64.0 MiB (read 3.0 MiB, written 80.0 MiB)",
        "recompression #1: lzo lzo-rle lz4 [zstd]",
        "100 /dev/zram0",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    snap("devices_zram_120x40", &term);
}

#[test]
fn diagnostics_80x24() {
    let a = app_of(
        &[],
        sample("linux-6.18-writeback", T0),
        sample("linux-6.18-writeback", T0 + 1_000_000_000),
    );
    let a = on(a, View::Diagnostics, 80, 24);
    snap("diagnostics_80x24", &screen(&a, 80, 24));
}

#[test]
fn diagnostics_120x40() {
    let a = app_of(
        &[],
        sample("linux-6.18-writeback", T0),
        sample("linux-6.18-writeback", T0 + 1_000_000_000),
    );
    let a = on(a, View::Diagnostics, 120, 40);
    snap("diagnostics_120x40", &screen(&a, 120, 40));
}

#[test]
fn diagnostics_scroll_to_the_end() {
    let a = app_of(
        &[],
        sample("linux-6.18-writeback", T0),
        sample("linux-6.18-writeback", T0 + 1_000_000_000),
    );
    let mut a = on(a, View::Diagnostics, 80, 24);
    keys(&mut a, &[Action::Bottom]);
    let term = screen(&a, 80, 24);
    let t = text(&term);
    assert!(t.contains("transparent_hugepage.defrag"), "{t}");
    assert!(
        t.contains("sudo zswaptop advise"),
        "the advisor is named: {t}"
    );
    assert!(t.contains("of 102…"), "the position is shown: {t}");
    snap("diagnostics_end_80x24", &term);
    // Up from the end moves at once (the offset never runs past the end).
    keys(&mut a, &[Action::ScrollDown, Action::ScrollUp]);
    assert!(text(&screen(&a, 80, 24)).contains("lines 83-101 of 102"));
}

#[test]
fn every_finding_is_in_the_diagnostics_view() {
    let a = app_of(
        &[],
        sample("linux-6.18-writeback", T0),
        sample("linux-6.18-writeback", T0 + 1_000_000_000),
    );
    let a = on(a, View::Diagnostics, 200, 400);
    let t = text(&screen(&a, 200, 400));
    assert!(!a.shown.diagnostics.is_empty());
    for d in &a.shown.diagnostics {
        assert!(t.contains(&format!("{}: ", d.id)), "{}", d.id);
        for e in &d.evidence {
            assert!(t.contains(e.as_str()), "{e}");
        }
    }
    for adv in &a.shown.tunables_advice {
        assert!(t.contains(adv.name.as_ref()), "{}", adv.name);
    }
    assert!(t.contains("suggested for zswap + disk swap"), "{t}");
    assert!(t.contains("setup: zswap + disk swap"), "{t}");
}

#[test]
fn a_warning_is_on_the_overview_at_80x24() {
    let a = app_of(
        &[],
        sample("linux-6.18-writeback", T0),
        sample("linux-6.18-writeback", T0 + 1_000_000_000),
    );
    let t = text(&screen(&a, 80, 24));
    assert!(t.contains("WARN shrinker-off:"), "{t}");
    // Near its limit with no refusals over the interval, the pool is a remark, not a warning.
    assert!(!t.contains("WARN pool-full:"), "{t}");
}

#[test]
fn processes_80x24() {
    let a = on(processes_app(), View::Processes, 80, 24);
    snap("processes_80x24", &screen(&a, 80, 24));
}

#[test]
fn processes_120x40() {
    let a = on(processes_app(), View::Processes, 120, 40);
    let term = screen(&a, 120, 40);
    let t = text(&term);
    for needle in [
        "41 of 412 have swap",
        "6163 hog",
        "513.6 MiB",
        "footprint = rss + swap",
        "769.5 MiB",
        "global",
        "cgroup",
        "app0.service",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    snap("processes_120x40", &term);
}

/// Sorted by footprint (rss + swap), then by shm swap: the sort column is shown however narrow
/// the screen, a process whose smaps_rollup was refused shows the missing mark.
#[test]
fn processes_by_footprint_and_shm_swap() {
    let mut a = on(processes_app(), View::Processes, 80, 24);
    keys(&mut a, &[Action::SortNext]);
    let term = screen(&a, 80, 24);
    let t = text(&term);
    assert!(t.contains("sort footprint↓"), "{t}");
    // The hog: 255.8 MiB resident + 513.6 MiB swapped (its status file's VmRSS and VmSwap).
    let first = t.lines().find(|l| l.contains("MiB")).unwrap();
    assert!(
        first.contains("6163 hog") && first.contains("769.5 MiB"),
        "{t}"
    );
    snap("processes_by_footprint_80x24", &term);
    keys(
        &mut a,
        &[Action::SortNext, Action::SortNext, Action::SortNext],
    );
    assert!(a.extras().smaps, "sorted by shm swap: smaps_rollup is read");
    let term = screen(&a, 80, 24);
    let t = text(&term);
    assert!(t.contains("shm swap↓"), "{t}");
    let rows: Vec<&str> = t.lines().filter(|l| l.contains("MiB")).collect();
    // Every fifth synthetic process maps 64 MiB of swapped shmem: those lead.
    assert!(rows[0].contains("64.0 MiB"), "{t}");
    snap("processes_by_shm_swap_80x24", &term);
}

#[test]
fn processes_sorted_filtered_and_scrolled() {
    let mut a = on(processes_app(), View::Processes, 80, 24);
    // By name, reversed; then the filter prompt with "WAY" (case does not matter).
    keys(
        &mut a,
        &[
            Action::SortNext,
            Action::SortNext,
            Action::SortNext,
            Action::SortNext,
            Action::SortNext,
            Action::SortNext,
            Action::SortReverse,
            Action::FilterOpen,
            Action::FilterInput('W'),
            Action::FilterInput('A'),
            Action::FilterInput('Y'),
        ],
    );
    let term = screen(&a, 80, 24);
    let t = text(&term);
    assert!(t.contains("sort name↑") || t.contains("sort name↓"), "{t}");
    assert!(t.contains("filter: WAY"), "{t}");
    snap("processes_filter_prompt_80x24", &term);
    // Enter keeps the filter; the list scrolls; Esc clears it.
    keys(&mut a, &[Action::FilterDone, Action::PageDown]);
    let t = text(&screen(&a, 80, 24));
    assert!(t.contains("filter \"WAY\": 5 of 41"), "{t}");
    assert_eq!(
        t.lines().filter(|l| l.contains("Xwayland")).count(),
        5,
        "{t}"
    );
    assert!(!t.contains(" hog "), "{t}");
    keys(&mut a, &[Action::Back]);
    assert!(a.running, "Esc cleared the filter rather than quit");
    assert_eq!(a.filter(), Some(""));
}

#[test]
fn a_throttled_scan_says_how_often_the_list_is_read() {
    let mut a = on(processes_app(), View::Processes, 120, 40);
    assert!(!text(&screen(&a, 120, 40)).contains("list read every"));
    a.update(Msg::ScanEvery(Some(std::time::Duration::from_millis(
        4_500,
    ))));
    let t = text(&screen(&a, 120, 40));
    assert!(
        t.contains("list read every 4.5s (scan capped at 2% CPU)"),
        "{t}"
    );
}

#[test]
fn processes_end_shows_the_last_row_at_the_bottom() {
    let mut a = on(processes_app(), View::Processes, 80, 24);
    keys(&mut a, &[Action::Bottom]);
    let t = text(&screen(&a, 80, 24));
    let rows: Vec<&str> = t.lines().collect();
    // The smallest swap user is the last row, right above the note.
    let last = a.shown.processes.as_ref().unwrap().top.last().unwrap().pid;
    let at = rows
        .iter()
        .position(|l| l.contains(&format!(" {last} ")))
        .unwrap();
    assert!(rows[at + 1].contains("footprint = rss + swap"), "{t}");
}

#[test]
fn cgroups_80x24() {
    let a = on(cgroups_app(), View::Cgroups, 80, 24);
    let term = screen(&a, 80, 24);
    let t = text(&term);
    assert!(
        t.contains("wider: zswpin/s pswpin/s zswpwb/s majflt/s zswap.max +"),
        "narrow: the hidden columns are named, the rest counted: {t}"
    );
    snap("cgroups_80x24", &term);
}

#[test]
fn cgroups_120x40() {
    let a = on(cgroups_app(), View::Cgroups, 120, 40);
    let term = screen(&a, 120, 40);
    let t = text(&term);
    for needle in [
        "postgresql.service",
        "session-2.scope",
        "/batch/job-17",
        "2.32:1",
        "footprint",
        "oom kill",
        // job-17: killed twice, once in the window; 8M under its memory.max of 48M.
        "2+1",
        "8M max",
        // postgresql: 20M over its memory.high.
        "-20M high",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    snap("cgroups_120x40", &term);
}

/// Wide enough for every column: the settings, pressure, high and max events and their rates.
#[test]
fn cgroups_220x40() {
    let a = on(cgroups_app(), View::Cgroups, 220, 40);
    let term = screen(&a, 220, 40);
    let t = text(&term);
    for needle in [
        "zswap.max",
        "writeback",
        "256M",
        "psi some",
        "high/s",
        "max/s",
        "4.2",
        "42+12",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    assert!(!t.contains("wider:"), "{t}");
    snap("cgroups_220x40", &term);
}

/// Sorted by memory + swap + zswap (the footprint key, `s` past zswpout/s).
#[test]
fn cgroups_by_footprint_120x40() {
    let mut a = on(cgroups_app(), View::Cgroups, 120, 40);
    keys(&mut a, &[Action::SortNext; 5]);
    let term = screen(&a, 120, 40);
    assert!(text(&term).contains("sort footprint"), "{}", text(&term));
    snap("cgroups_by_footprint_120x40", &term);
}

#[test]
fn cgroups_tree_120x40() {
    let mut a = on(cgroups_app(), View::Cgroups, 120, 40);
    keys(&mut a, &[Action::SortPrev]);
    let term = screen(&a, 120, 40);
    assert!(text(&term).contains("sort tree"));
    snap("cgroups_tree_120x40", &term);
}

#[test]
fn cgroups_v1_80x24() {
    let a = on(cgroups_v1_app(), View::Cgroups, 80, 24);
    let term = screen(&a, 80, 24);
    let t = text(&term);
    for needle in [
        "cgroups (v1 memory controller)",
        "5 cgroups",
        "zswap is not reported per cgroup",
        // Largest memory first: the zswap sort key falls back to memory on v1.
        "sort memory",
        "process_api",
        "7.3G",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    assert!(!t.contains("pending"), "{t}");
    snap("cgroups_v1_80x24", &term);
}

#[test]
fn cgroups_v1_120x40() {
    let a = on(cgroups_v1_app(), View::Cgroups, 120, 40);
    let term = screen(&a, 120, 40);
    snap("cgroups_v1_120x40", &term);
}

#[test]
fn cgroups_none_80x24() {
    let a = on(cgroups_none_app(), View::Cgroups, 80, 24);
    let term = screen(&a, 80, 24);
    assert!(text(&term).contains("not available"), "{}", text(&term));
    snap("cgroups_none_80x24", &term);
}

#[test]
fn help_80x24() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::ToggleHelp));
    let term = screen(&a, 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn overview_ascii_80x24() {
    let term = screen(&app(&["--ascii"]), 80, 24);
    let t = text(&term);
    for line in t.lines() {
        assert!(line.is_ascii(), "not ASCII: {line}");
    }
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn the_essentials_are_on_an_80x24_screen() {
    let t = text(&screen(&app(&[]), 80, 24));
    for needle in [
        "zswaptop",
        "not root",
        "zswap on",
        "compressor lzo",
        "max_pool 20%",
        "accept 90%",
        "shrinker off",
        "PSI memory",
        "unavailable:",
        "Real memory",
        "free says 1.2 GiB used — 498.7 MiB of it is compressed swap",
        "zswap pool 498.7M",
        "498.7 MiB of 4.7 GiB limit",
        "stored 974.3 MiB",
        "saves 475.6 MiB",
        "ratio 1.95:1 (2.38:1 compressor only)",
        "2.38:1 compressor only",
        "incompressible 153.7 MiB",
        "written back 0 B 0/s",
        "pool_limit_hit 0 0.0/s",
        "rejects: alloc_fail 0 0.0/s",
        "compress_poor 0 0.0/s",
        "compress_fail 0 0.0/s",
        "kmemcache_fail 0 0.0/s",
        "reclaim_fail 0 0.0/s",
        "swap traffic",
        "out 974.3M/s",
        "Swap",
        "in zswap 974.3 MiB",
        "/swapfile-test",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
}

#[test]
fn rates_are_pending_after_one_sample() {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let mut a = App::new(settings, sample("linux-6.18-loaded", T0));
    a.shown.host.privileged = false;
    let t = text(&screen(&a, 120, 40));
    // The traffic legend names its series in full or in short, whichever fits.
    assert!(
        t.contains("zswpout pending") || t.contains("o out pending"),
        "{t}"
    );
    assert!(t.contains("written back 0 B pending"), "{t}");
    assert!(!t.contains("zswpout 0") && !t.contains("out 0"), "{t}");
}

#[test]
fn paused_is_shown() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::TogglePause));
    let t = text(&screen(&a, 80, 24));
    assert!(t.contains("PAUSED"), "{t}");
    assert!(t.contains("resume"), "{t}");
}

#[test]
fn below_the_minimum_one_line_says_so() {
    let t = text(&screen(&app(&[]), 40, 10));
    let lines: Vec<&str> = t
        .lines()
        .filter(|l| !l.trim_matches(|c| c == '"' || c == ' ').is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "{t}");
    assert!(lines[0].contains("too small"), "{t}");
}

/// Every view at every size, with the views' data in the samples (processes, cgroups, disk
/// I/O, zram in full) and the filter prompt open in the list views.
#[rstest]
fn tiny_sizes_do_not_panic(
    #[values((0, 0), (1, 1), (2, 2), (20, 5), (40, 10), (49, 11), (50, 12), (51, 13), (60, 14), (79, 23), (80, 24), (300, 100))]
    size: (u16, u16),
    #[values(false, true)] help: bool,
    #[values(false, true)] ascii: bool,
) {
    let tmp = tempfile::tempdir().unwrap();
    write_tree(tmp.path(), 0);
    let root = Root::at(tmp.path());
    let tree = cgroups::find(&root).unwrap();
    let full = |t: u64| {
        let mut s = with_processes(with_disk(zram_sample(t), 1));
        s.cgroups = Some(Ok(cgroups::read_tree(&root, &tree)));
        s
    };
    let base = app_of(
        if ascii { &["--ascii"] } else { &[] },
        full(T0),
        full(T0 + 1_000_000_000),
    );
    for view in View::ALL {
        let mut a = base.clone();
        a.update(Msg::Resize(size.0, size.1));
        a.update(Msg::Key(Action::Show(view)));
        keys(&mut a, &[Action::FilterOpen, Action::FilterInput('s')]);
        keys(&mut a, &[Action::PageDown, Action::Bottom]);
        if help {
            a.update(Msg::Key(Action::ToggleHelp));
        }
        let term = screen(&a, size.0, size.1);
        if ascii {
            assert!(
                term.backend()
                    .buffer()
                    .content()
                    .iter()
                    .all(|c| c.symbol().is_ascii()),
                "{view:?}"
            );
        }
    }
}

#[test]
fn colour_settings_change_styles_only() {
    let mut s = zswaptop::cli::dashboard_settings(&["zswaptop"], false).unwrap();
    assert!(s.color);
    s.ascii = false;
    let mut coloured = App::new(s, sample("linux-6.18-idle", T0));
    coloured.update(Msg::Sampled(Box::new(sample(
        "linux-6.18-loaded",
        T0 + 1_000_000_000,
    ))));
    coloured.shown.host.privileged = false;
    let plain = app(&[]);
    let a = screen(&coloured, 80, 24);
    let b = screen(&plain, 80, 24);
    // Graph dots differ (braille with colour, letters without); the text does not.
    // (The bar's row differs too: colour segments are blank cells with a background.)
    let head = |t: &Terminal<TestBackend>| {
        let s = text(t);
        let lines: Vec<&str> = s.lines().take(15).collect();
        [&lines[..4], &lines[5..]].concat().join("\n")
    };
    assert_eq!(head(&a), head(&b));
    let has_colour = a
        .backend()
        .buffer()
        .content()
        .iter()
        .any(|c| c.fg != ratatui::style::Color::Reset || c.bg != ratatui::style::Color::Reset);
    let no_colour = b
        .backend()
        .buffer()
        .content()
        .iter()
        .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset);
    assert!(has_colour && no_colour);
}

/// zswap in front of zram (priority 100) and a swapfile: the kernel does not say on which
/// area zswap's or the disk's pages lie, so neither area gets the global figures; zram's own
/// share (mm_stat) and the rest of its used slots are known. `--once` text, JSON and the
/// devices view say the same.
#[test]
fn per_area_split_agrees_in_once_json_and_the_dashboard() {
    let fixture = "tiers-zswap-zram-disk";
    let snap = zswaptop::model::Snapshot::derive(&sample(fixture, T0), None);
    let mut json = Vec::new();
    zswaptop::report::write(
        zswaptop::report::OutputFormat::Json,
        &snap,
        &mut json,
        false,
        false,
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let mut once = Vec::new();
    zswaptop::report::write(
        zswaptop::report::OutputFormat::Text,
        &snap,
        &mut once,
        false,
        true,
    )
    .unwrap();
    let once = String::from_utf8(once).unwrap();
    let a = app_of(
        &[],
        sample(fixture, T0),
        sample(fixture, T0 + 1_000_000_000),
    );
    let dash = text(&screen(&on(a, View::Devices, 120, 40), 120, 40));

    let devices = json["swap"]["devices"].as_array().unwrap();
    let field = |path: &str, key: &str| {
        let d = devices.iter().find(|d| d["path"] == path).unwrap();
        d[key].as_u64()
    };
    // zram0: 786572 kB used, orig_data_size 724922368 B stored in zram itself.
    assert_eq!(field("/dev/zram0", "in_device_bytes"), Some(724_922_368));
    assert_eq!(
        field("/dev/zram0", "elsewhere_bytes"),
        Some(786_572 * 1024 - 724_922_368)
    );
    for key in ["in_zswap_bytes", "in_device_bytes", "elsewhere_bytes"] {
        assert_eq!(field("/swapfile-zswaptop-e2e", key), None, "{key}");
        let d = devices
            .iter()
            .find(|d| d["path"] == "/swapfile-zswaptop-e2e")
            .unwrap();
        assert!(d[key].is_null(), "{key} is in the JSON as null");
    }
    assert_eq!(field("/dev/zram0", "in_zswap_bytes"), None);

    let shown = |v: Option<u64>| zswaptop::display::bytes(v);
    let zram = [
        shown(None),
        shown(field("/dev/zram0", "in_device_bytes")),
        shown(field("/dev/zram0", "elsewhere_bytes")),
    ];
    assert!(
        once.contains(&format!(
            "in zswap {} · in device {} · elsewhere {}",
            zram[0], zram[1], zram[2]
        )),
        "{once}"
    );
    assert!(
        once.contains("in zswap — · in device — · elsewhere —"),
        "{once}"
    );
    let row = |path: &str| {
        dash.lines()
            .find(|l| l.contains(path) && !l.contains("prio") && l.contains(" MiB"))
            .unwrap_or_else(|| panic!("{path} row in\n{dash}"))
            .to_string()
    };
    let zram_row = row("/dev/zram0");
    let at = |r: &str, v: &str| r.find(v).unwrap_or_else(|| panic!("{v} in {r}"));
    assert!(
        at(&zram_row, &zram[1]) < at(&zram_row, &zram[2]),
        "{zram_row}"
    );
    let disk_row = row("/swapfile-zswaptop-e2e");
    // The global figures (390.6 MiB in zswap, 272.1 MiB not in RAM) are on no area.
    for global in [snap.swap.in_zswap_bytes, snap.swap.not_in_ram_bytes] {
        assert!(!disk_row.contains(&shown(global)), "{disk_row}");
        assert!(!zram_row.contains(&shown(global)), "{zram_row}");
    }
    assert_eq!(disk_row.matches('—').count(), 3, "{disk_row}");
}

/// PgDn moves a page less one row: the last row on screen becomes the first, at any height;
/// PgUp comes back.
#[rstest]
#[case(80, 24)]
#[case(120, 28)]
fn page_down_moves_the_pane_height_less_one(#[case] w: u16, #[case] h: u16) {
    let pids = |a: &App| -> Vec<u32> {
        text(&screen(a, w, h))
            .lines()
            .filter_map(|l| {
                let l = l.trim_start_matches('"');
                let first = l.split_whitespace().next()?;
                l.starts_with(' ').then(|| first.parse().ok())?
            })
            .collect()
    };
    let mut a = on(processes_app(), View::Processes, w, h);
    keys(&mut a, &[Action::Top]);
    let page1 = pids(&a);
    assert!(page1.len() > 2, "{page1:?}");
    keys(&mut a, &[Action::PageDown]);
    let page2 = pids(&a);
    assert_eq!(page2.first(), page1.last(), "{page1:?} then {page2:?}");
    assert_eq!(a.scroll(View::Processes), page1.len() - 1);
    keys(&mut a, &[Action::PageUp]);
    assert_eq!(pids(&a), page1);
}

// ---- the mouse --------------------------------------------------------------------------------

/// What a mouse event on the drawn screen does to the app (as the terminal loop routes it).
fn mouse(app: &mut App, kind: ratatui::crossterm::event::MouseEventKind, column: u16, row: u16) {
    let m = ratatui::crossterm::event::MouseEvent {
        kind,
        column,
        row,
        modifiers: ratatui::crossterm::event::KeyModifiers::NONE,
    };
    if let Some(a) = zswaptop::app::keys::mouse_action(m, |c, r| zswaptop::ui::view_at(app, c, r)) {
        app.update(Msg::Key(a));
    }
}

#[rstest]
#[case(80, 24)]
#[case(120, 40)]
#[case(50, 12)]
fn a_click_on_a_views_name_shows_it(#[case] w: u16, #[case] h: u16) {
    use ratatui::crossterm::event::{MouseButton, MouseEventKind};
    let left = MouseEventKind::Down(MouseButton::Left);
    let mut a = on(app(&[]), View::Overview, w, h);
    for (i, view) in View::ALL.iter().enumerate().rev() {
        // From another view; find the label in the bottom line as drawn: its number, then its
        // name if there is room.
        let other = View::ALL[(i + 1) % View::ALL.len()];
        a.update(Msg::Key(Action::Show(other)));
        let term = screen(&a, w, h);
        let buf = term.backend().buffer();
        let bottom: Vec<&str> = (0..w).map(|x| buf[(x, h - 1)].symbol()).collect();
        let number = (i + 1).to_string();
        let label = format!("{number} {}", view.name());
        let line: String = bottom.concat();
        // The views' names close the line: the last match is the label.
        let at = line.rfind(&label).or_else(|| {
            line.rmatch_indices(&number)
                .map(|(x, _)| x)
                .find(|&x| line[x + 1..].starts_with(' ') && line[..x].ends_with(' '))
        });
        // On the narrowest screen the line is cut before the last views.
        let Some(at) = at else {
            assert!(w < 80 && i > 0, "{label} not in {line:?}");
            continue;
        };
        let x = line[..at].chars().count() as u16;
        // The row above and a cell left of the label change nothing.
        mouse(&mut a, left, x, h - 2);
        mouse(&mut a, left, x.saturating_sub(1), h - 1);
        assert_ne!(a.view, *view, "{w}x{h}: a click beside {label} showed it");
        mouse(&mut a, left, x, h - 1);
        assert_eq!(a.view, *view, "{w}x{h}: a click on {label} at column {x}");
    }
}

#[test]
fn the_wheel_scrolls_the_list() {
    use ratatui::crossterm::event::MouseEventKind;
    let mut a = on(processes_app(), View::Processes, 80, 24);
    let first = text(&screen(&a, 80, 24));
    mouse(&mut a, MouseEventKind::ScrollDown, 10, 10);
    mouse(&mut a, MouseEventKind::ScrollDown, 10, 10);
    assert_eq!(a.scroll(View::Processes), 6, "three rows a notch");
    assert_ne!(text(&screen(&a, 80, 24)), first, "the list moved");
    mouse(&mut a, MouseEventKind::ScrollUp, 10, 10);
    assert_eq!(a.scroll(View::Processes), 3);
    for _ in 0..5 {
        mouse(&mut a, MouseEventKind::ScrollUp, 10, 10);
    }
    assert_eq!(a.scroll(View::Processes), 0, "not above the top");
}

/// Text cut at the edge ends with "…"; the header drops whole fields instead of cutting one,
/// and the too-small notice never cuts a size.
#[test]
fn cut_text_ends_with_an_ellipsis_and_never_splits_a_field() {
    let t = text(&screen(&app(&[]), 60, 20));
    let first = t.lines().next().unwrap().trim_matches('"').trim_end();
    assert!(!first.ends_with('…'), "{first}");
    assert!(first.contains("not root"), "{first}");
    assert!(!first.contains("tree"), "the tree path went whole: {first}");
    // The header is never cut: what does not fit goes whole (the unavailable items by name, or
    // counted).
    let third = t.lines().nth(2).unwrap().trim_matches('"');
    assert!(!third.trim_end().ends_with('…'), "{third}");
    for w in [12u16, 20, 30, 40, 49] {
        let t = text(&screen(&app(&[]), w, 10));
        assert!(t.contains("50×12"), "{w}: {t}");
        assert!(!t.contains('…'), "{w}: {t}");
    }
}

/// A replay, paused on its second sample: the REPLAY header with the sample's time and host,
/// the replay keys in the bottom line, rates over the first sample.
#[test]
fn replay_100x30() {
    use zswaptop::app::replay::Cursor;
    use zswaptop::record::ReplaySource;
    use zswaptop::record::{Reader, Writer, WriterOptions};
    use zswaptop::sources::sampler::SampleSource;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    let mut w = Writer::open(&path, WriterOptions::default()).unwrap();
    for (i, f) in ["linux-6.18-idle", "linux-6.18-loaded", "linux-6.18-idle"]
        .iter()
        .enumerate()
    {
        let mut s = sample(f, T0 + i as u64 * 1_000_000_000);
        s.unix_ms = 1_795_316_400_000 + i as u64 * 1000;
        s.host.privileged = false;
        w.append(&s).unwrap();
    }
    w.sync().unwrap();
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let mut source = ReplaySource::new(Reader::open(&path).unwrap(), settings.history, 0).unwrap();
    let cursor = Cursor::new(source.times(), 0);
    let first = source.next(None, sources::Extras::default());
    let mut app = App::replaying(settings, first, cursor);
    app.update(Msg::Key(Action::ReplayStep(1)));
    while app.wants_replay() {
        let c = app.replay.as_ref().unwrap();
        let m = source.feed(c.shown, c.target).unwrap();
        app.update(m.into());
    }
    let term = screen(&app, 100, 30);
    let top = text(&term);
    assert!(
        top.lines()
            .next()
            .unwrap()
            .contains(" REPLAY  2026-11-22T03:00:01.000Z paused x1  2/3 · zswaptop"),
        "{top}"
    );
    // Whole fields only: the badge's room is kept, so no field is cut at the end.
    for w in [100, 120] {
        let top = text(&screen(&app, w, 30));
        let first = top.lines().next().unwrap();
        assert!(
            !first.trim_end_matches(['"', ' ']).ends_with('…'),
            "{first}"
        );
    }
    snap("replay_100x30", &term);
    // The recording holds neither a process list nor a cgroup tree: the views say so, not the
    // live wording (that they are read while shown).
    for (view, words) in [
        (View::Processes, "the recording holds no process list"),
        (View::Cgroups, "the recording holds no cgroup tree"),
    ] {
        app.update(Msg::Key(Action::Show(view)));
        let shown = text(&screen(&app, 100, 30));
        assert!(shown.contains(words), "{view:?}: {shown}");
        assert!(
            !shown.contains("while this view is shown"),
            "{view:?}: {shown}"
        );
    }
}

/// The dashboard draws through its screen, which leaves out the panels the terminal shows
/// already (`ui::Kept`). Whatever happens between frames (new samples, the same values again,
/// the help over the panels, other views, another size, colour or not), the terminal then shows
/// what a whole frame drawn from blank shows.
#[test]
fn a_screen_that_keeps_panels_shows_what_a_whole_frame_shows() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use zswaptop::tui::screen::Screen;

    let visible = |b: &Buffer| {
        zswaptop::tui::screen::rows(b, |c| {
            format!("{}{:?}{:?}{:?}|", c.symbol(), c.fg, c.bg, c.modifier)
        })
    };
    let mut kept_any = 0;
    for no_color in [false, true] {
        let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], no_color).unwrap();
        let mut a = App::new(settings, sample("linux-6.18-idle", T0));
        let mut screen = Screen::new(TestBackend::new(120, 40)).unwrap();
        let fixtures = ["linux-6.18-loaded", "linux-6.18-loaded", "linux-6.18-idle"];
        for step in 0..24u64 {
            let t = T0 + (step + 1) * 1_000_000_000;
            a.update(Msg::Sampled(Box::new(sample(
                fixtures[(step as usize / 3) % fixtures.len()],
                t,
            ))));
            a.shown.host.privileged = false;
            match step {
                6 => keys(&mut a, &[Action::ToggleHelp]),
                8 => keys(&mut a, &[Action::ToggleHelp]),
                10 => keys(&mut a, &[Action::Show(View::Graphs)]),
                13 => keys(&mut a, &[Action::Show(View::Devices)]),
                14 => keys(&mut a, &[Action::Show(View::Overview)]),
                16 => screen.backend_mut().resize(200, 60),
                19 => screen.backend_mut().resize(80, 24),
                _ => {}
            }
            let size = screen.size().unwrap();
            a.update(Msg::Resize(size.width, size.height));
            a.update(zswaptop::ui::lay_out(&a));
            // Drawn twice at some steps: the second frame keeps every panel.
            for _ in 0..if step % 4 == 1 { 2 } else { 1 } {
                screen
                    .draw(|buf, area, kept| zswaptop::ui::render_kept(buf, area, &a, kept))
                    .unwrap();
                kept_any += screen.kept_regions();
                let mut whole = Buffer::empty(Rect::new(0, 0, size.width, size.height));
                let all = whole.area;
                zswaptop::ui::render(&mut whole, all, &a);
                assert_eq!(
                    visible(screen.backend().buffer()),
                    visible(&whole),
                    "step {step}, no_color {no_color}"
                );
            }
        }
    }
    assert!(kept_any > 20, "panels were kept {kept_any} times");
}

/// The traffic legend keeps its names however wide the values grow: which names, and where the
/// legend goes, follow the graph's size only.
#[test]
fn the_legend_keeps_its_names_as_values_widen() {
    let traffic = |pages: u64| {
        let first = sample("linux-6.18-loaded", T0);
        let mut second = sample("linux-6.18-loaded", T0 + 1_000_000_000);
        if let Ok(v) = second.vmstat.as_mut() {
            for c in [
                &mut v.zswpout,
                &mut v.zswpin,
                &mut v.zswpwb,
                &mut v.pswpout,
                &mut v.pswpin,
            ] {
                *c = c.map(|n| n + pages);
            }
        }
        let mut a = app_of(&[], first, second);
        a.update(Msg::Key(Action::Show(View::Graphs)));
        a
    };
    let (quiet, busy) = (traffic(0), traffic(250_000));
    let mut flips = Vec::new();
    for w in (60..=220).step_by(2) {
        for h in [24, 30, 40] {
            let long = |a: &App| text(&screen(a, w, h)).contains(" zswpout ");
            if long(&quiet) != long(&busy) {
                flips.push((w, h));
            }
        }
    }
    assert!(
        flips.is_empty(),
        "the names change with the values at {flips:?}"
    );
}

/// At 80×24 the overview lists the findings, of every severity, while it has rows free: a
/// finding left off is never next to blank rows.
#[test]
fn the_overview_lists_findings_when_rows_are_free() {
    let mut listed_some = 0;
    for tree in [
        "linux-6.18-idle",
        "linux-6.18-loaded",
        "linux-6.18-writeback",
        "linux-6.18-zram",
        "tiers-zswap-zram-disk",
        "e2e-phase4-noroot",
        "depth-multi-swap",
        "regress-pool-near-limit",
    ] {
        let a = app_of(&[], sample(tree, T0), sample(tree, T0 + 1_000_000_000));
        let t = text(&screen(&a, 80, 24));
        let blank = t
            .lines()
            .filter(|l| l.trim_matches(['"', ' ']).is_empty())
            .count();
        let missing: Vec<&str> = a
            .shown
            .diagnostics
            .iter()
            .map(|d| d.id.as_str())
            .filter(|id| !t.contains(&format!("{id}:")))
            .collect();
        assert!(
            missing.is_empty() || blank == 0,
            "{tree}: {missing:?} left off with {blank} blank rows:\n{t}"
        );
        listed_some += usize::from(
            a.shown
                .diagnostics
                .iter()
                .any(|d| t.contains(&format!("INFO {}:", d.id))),
        );
    }
    assert!(listed_some > 0, "no info finding listed on any tree");
}

/// Without debugfs (not root), zswap's writeback comes from vmstat, which anyone can read;
/// "needs root" is said only of what debugfs alone has.
#[test]
fn written_back_is_shown_from_vmstat_without_root() {
    let tree = "e2e-phase4-noroot";
    let a = app_of(&[], sample(tree, T0), sample(tree, T0 + 1_000_000_000));
    let t = text(&screen(&a, 120, 40));
    assert!(t.contains("written back 53.1 MiB"), "{t}");
    assert!(!t.contains("written_back, pool_limit_hit"), "{t}");
    assert!(t.contains("pool_limit_hit, rejects: "), "{t}");
}

/// The Unavailable section's fix commands are whole at any width: on the item's line when they
/// fit, else on lines of their own below it.
#[test]
fn unavailable_fixes_are_whole() {
    let tree = "linux-5.15-no-zswap-meminfo-nodebugfs";
    let a = app_of(&[], sample(tree, T0), sample(tree, T0 + 1_000_000_000));
    let fixes: Vec<&str> = zswaptop::display::unavailable(&a.shown)
        .iter()
        .filter_map(|m| m.reason.fix())
        .collect();
    assert!(!fixes.is_empty());
    for w in [80u16, 100, 120, 160] {
        let t = text(&screen(&a, w, 60));
        if !t.contains("─ Unavailable") {
            continue;
        }
        // The fix's lines joined back (a command broken where the shell reads on).
        let joined: String = t
            .lines()
            .map(|l| l.trim_matches('"').trim())
            .collect::<Vec<_>>()
            .join(" ");
        for fix in &fixes {
            assert!(joined.contains(fix), "{w}: {fix:?} not whole in:\n{t}");
            // The zswap panel's own copy, in parentheses after the reason, is whole too.
            let head = format!("({}", &fix[..fix.len().min(12)]);
            for l in t.lines().filter(|l| l.contains(&head)) {
                assert!(l.contains(&format!("({fix})")), "{w}: {l}");
            }
        }
        assert!(
            !t.contains("to get it: …")
                && !t
                    .lines()
                    .any(|l| l.contains("to get it")
                        && l.trim_end_matches(['"', ' ']).ends_with('…')),
            "{t}"
        );
    }
}
