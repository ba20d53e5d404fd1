//! A captured tree (`--root`) cannot lead a read out of it, even while the tree changes under
//! the reads; and the descriptors zswaptop keeps open do not pile up while devices and
//! processes come and go.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{CWD, RenameFlags};

use zswaptop::root::Root;
use zswaptop::sources::Extras;
use zswaptop::sources::sampler::{SampleSource, Sampler};

/// The outside directory's marks: a host name and a MemTotal no fixture has.
const OUTSIDE_HOST: &str = "outside-the-tree";
const OUTSIDE_MEMTOTAL_KB: u64 = 123_456_789;

/// `--once --root` while another thread swaps the tree's `proc` for a link to a directory
/// outside it, over and over (`renameat2(RENAME_EXCHANGE)`: at every instant `proc` is one or
/// the other). No run may print anything from the outside directory. Bounded: 200 runs or 10 s.
#[test]
fn a_tree_swapped_for_a_link_mid_read_never_leaks_outside_data() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("tree");
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), &tree);
    // The outside directory: the same files, with marks any leak would show.
    let outside = tmp.path().join("outside/proc");
    common::copy_dir(&tree.join("proc"), &outside);
    let meminfo = fs::read_to_string(outside.join("meminfo")).unwrap();
    let marked: String = meminfo
        .lines()
        .map(|l| {
            if l.starts_with("MemTotal:") {
                format!("MemTotal:       {OUTSIDE_MEMTOTAL_KB} kB\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    fs::write(outside.join("meminfo"), marked).unwrap();
    fs::create_dir_all(outside.join("sys/kernel")).unwrap();
    fs::write(
        outside.join("sys/kernel/hostname"),
        format!("{OUTSIDE_HOST}\n"),
    )
    .unwrap();
    // Relative, as a link made inside a tree would be; and it resolves beneath nothing.
    std::os::unix::fs::symlink("../outside/proc", tree.join("proc.link")).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps, tree) = (stop.clone(), swaps.clone(), tree.clone());
        std::thread::spawn(move || {
            let (a, b) = (tree.join("proc"), tree.join("proc.link"));
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let bin = env!("CARGO_BIN_EXE_zswaptop");
    let total_bytes = (OUTSIDE_MEMTOTAL_KB * 1024).to_string();
    let start = Instant::now();
    let (mut runs, mut refused, mut leaked) = (0, 0, Vec::new());
    while runs < 200 && start.elapsed() < Duration::from_secs(10) {
        let out = Command::new(bin)
            .args(["--once", "--json", "--root"])
            .arg(&tree)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        runs += 1;
        let text = String::from_utf8_lossy(&out.stdout);
        if text.contains(OUTSIDE_HOST) || text.contains(&total_bytes) {
            leaked.push(runs);
        }
        if text.contains("a link leads out of the tree") {
            refused += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let swaps = swaps.load(Ordering::Relaxed);
    println!(
        "{runs} runs, {refused} met the link, {swaps} swaps, {:?}",
        start.elapsed()
    );
    assert!(
        leaked.is_empty(),
        "{} of {runs} runs printed data from outside the tree (runs {leaked:?})",
        leaked.len()
    );
    // The race was run: the swaps happened while zswaptop read, and some reads met the link.
    assert!(runs >= 20, "only {runs} runs in 10 s");
    assert!(swaps > 1000, "only {swaps} swaps");
    assert!(refused > 0, "no run of {runs} met the link ({swaps} swaps)");
}

/// A zram device directory as sysfs has it, in use (`initstate` 1).
fn add_zram(block: &Path, name: &str) {
    let d = block.join(name);
    fs::create_dir_all(&d).unwrap();
    for (file, text) in [
        ("disksize", "1073741824\n"),
        ("initstate", "1\n"),
        ("comp_algorithm", "lzo [lzo-rle] lz4\n"),
        (
            "mm_stat",
            "314572800 104857600 109051904 0 109051904 1024 0 512 600\n",
        ),
        ("io_stat", "0 0 0 0\n"),
        ("bd_stat", "0 0 0\n"),
        ("backing_dev", "none\n"),
        ("recomp_algorithm", "\n"),
        ("stat", "1 0 8 0 2 0 16 0 0 0 0 0 0 0 0 0 0\n"),
        ("dev", "252:0\n"),
    ] {
        fs::write(d.join(file), text).unwrap();
    }
}

/// `/proc/swaps` listing `/dev/NAME` (or nothing).
fn write_swaps(proc: &Path, zram: Option<&str>) {
    let mut text = String::from("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
    if let Some(name) = zram {
        text.push_str(&format!(
            "/dev/{name}                              partition\t1048572\t\t786572\t\t100\n"
        ));
    }
    fs::write(proc.join("swaps"), text).unwrap();
}

/// A process with swap, as `/proc/PID/status` shows it.
fn add_process(proc: &Path, pid: u32) {
    let d = proc.join(pid.to_string());
    fs::create_dir_all(&d).unwrap();
    fs::write(
        d.join("status"),
        format!("Name:\tchurn{pid}\nUid:\t0\t0\t0\t0\nVmRSS:\t4 kB\nVmSwap:\t8 kB\n"),
    )
    .unwrap();
    fs::write(d.join("cgroup"), "0::/\n").unwrap();
}

/// zram devices added, renamed and removed 100 times (each listed in `/proc/swaps` while it
/// lives, beside a process that comes and goes), read by the dashboard's sampler and by the
/// full sampler `serve` and `--once` use: the descriptors held stay as many as at the start.
#[test]
fn descriptors_stay_flat_while_devices_come_and_go() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = fs::canonicalize(tmp.path()).unwrap().join("tree");
    common::copy_dir(&common::fixture_dir("e2e-phase3-zram"), &tree);
    let (proc, block) = (tree.join("proc"), tree.join("sys/block"));
    fs::remove_dir_all(block.join("zram0")).unwrap();
    write_swaps(&proc, None);
    let extras = Extras {
        smaps: false,
        top_processes: Some(5),
        cgroups: false,
        settings: false,
    };
    let mut dashboard = Sampler::new(Root::at(&tree));
    let mut full = Sampler::full(Root::at(&tree));
    let mut prev = (None, None);
    let mut tick = |prev: &mut (Option<_>, Option<_>)| {
        let a = dashboard.next(prev.0.as_ref(), extras);
        let b = full.next(prev.1.as_ref(), extras);
        *prev = (Some(a), Some(b));
    };
    // Two ticks: the dashboard's first sample is a full one, whose settings files its next
    // tick closes (it reads them once a minute).
    tick(&mut prev);
    tick(&mut prev);
    let at_start = common::fds_under(&tree);
    let mut counts = Vec::new();
    let mut most_while_alive = 0;
    for i in 1..=100u32 {
        let (name, renamed) = (format!("zram{i}"), format!("zram{}", i + 1000));
        add_zram(&block, &name);
        write_swaps(&proc, Some(&name));
        add_process(&proc, 100_000 + i);
        tick(&mut prev);
        let seen = prev.0.as_ref().unwrap();
        assert_eq!(
            seen.zram
                .iter()
                .map(|z| z.name.as_str())
                .collect::<Vec<_>>(),
            [name.as_str()],
            "the dashboard reads the new device"
        );
        fs::rename(block.join(&name), block.join(&renamed)).unwrap();
        write_swaps(&proc, Some(&renamed));
        tick(&mut prev);
        let seen = prev.1.as_ref().unwrap();
        assert_eq!(seen.zram[0].name, renamed);
        assert_eq!(
            seen.zram[0].mm_stat.as_ref().unwrap().orig_data_size,
            314_572_800
        );
        most_while_alive = most_while_alive.max(common::fds_under(&tree));
        fs::remove_dir_all(block.join(&renamed)).unwrap();
        fs::remove_dir_all(proc.join((100_000 + i).to_string())).unwrap();
        write_swaps(&proc, None);
        tick(&mut prev);
        assert!(prev.0.as_ref().unwrap().zram.is_empty());
        counts.push(common::fds_under(&tree));
    }
    assert!(
        counts.iter().all(|&n| n == at_start),
        "descriptors under the tree after each round (at start {at_start}): {counts:?}"
    );
    // While a device lives its files are kept: the count above is not flat for want of any.
    assert!(
        most_while_alive > at_start,
        "{most_while_alive} vs {at_start}"
    );
}

/// The same churn read through one root by `sources::collect` alone (no sampler): the sweep
/// is the tick's, not the sampler's.
#[test]
fn a_collect_closes_the_files_of_devices_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let tree: PathBuf = fs::canonicalize(tmp.path()).unwrap().join("tree");
    common::copy_dir(&common::fixture_dir("e2e-phase3-zram"), &tree);
    let block = tree.join("sys/block");
    let root = Root::at(&tree);
    zswaptop::sources::collect(&root);
    let at_start = root.kept_count();
    for i in 1..=30 {
        let name = format!("zram{i}");
        add_zram(&block, &name);
        let s = zswaptop::sources::collect(&root);
        assert!(s.zram.iter().any(|z| z.name == name));
        fs::remove_dir_all(block.join(&name)).unwrap();
    }
    zswaptop::sources::collect(&root);
    assert_eq!(root.kept_count(), at_start);
}
