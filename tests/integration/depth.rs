//! Depth: per-device swap I/O, zram in full, and the processes and cgroups that own swapped
//! memory, on the `depth-*` fixture trees.
//!
//! Each tree's README.md holds the values computed by hand: an ```` ```expected ```` block (numbers, read
//! by the formulas module too), an ```` ```expected-depth ```` block for `--once --json --top 10 --cgroups`
//! (numbers, `null`, `true`/`false`, "strings"; `a.#` is the length of array `a`, `list[path=P]` the
//! element of `list` whose `path` is `P`) and, for the cgroup pair, an ```` ```expected-rates ```` block.
//! Counter resets (a block device re-created, a cgroup restarted, a zram device reset) are built in
//! temporary copies of the trees.

use crate::common;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;
use tempfile::TempDir;
use zswaptop::model::Snapshot;
use zswaptop::root::Root;
use zswaptop::sources::swaps::SwapEntry;
use zswaptop::sources::{self, Extras, Sample, cgroups, processes, swapdev, zram};

const TREES: [&str; 5] = [
    "depth-many-processes",
    "depth-multi-swap",
    "depth-zram-writeback",
    "depth-cgroup-v2",
    "depth-cgroup-v2-t1",
];
const KIB: u64 = 1024;
const SECOND_NS: u64 = 1_000_000_000;
const OWNERS: Extras = Extras {
    smaps: false,
    top_processes: Some(10),
    cgroups: true,
    settings: true,
};

// --- running zswaptop ------------------------------------------------------------------------

fn zswaptop() -> Command {
    let mut c = Command::cargo_bin("zswaptop").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("NO_COLOR");
    c
}

fn run(args: &[&str], tree: &Path) -> std::process::Output {
    let out = zswaptop()
        .args(args)
        .arg("--root")
        .arg(tree)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "zswaptop {args:?} --root {}: {}",
        tree.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `zswaptop --once --json --top 10 --cgroups --root TREE`.
fn owners_json(tree: &Path) -> Value {
    let out = run(&["--once", "--json", "--top", "10", "--cgroups"], tree);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `zswaptop --once --top 10 --cgroups --root TREE`.
fn owners_text(tree: &Path) -> String {
    String::from_utf8(run(&["--once", "--top", "10", "--cgroups"], tree).stdout).unwrap()
}

// --- samples ---------------------------------------------------------------------------------

fn sample(root: &Path) -> Sample {
    let mut s = sources::collect_with(&Root::at(root), OWNERS);
    s.host.privileged = true;
    s
}

/// `curr` taken exactly `secs` seconds after `prev` (the clock is pinned so rates are exact).
fn derive_after(prev: &Sample, mut curr: Sample, secs: u64) -> Snapshot {
    curr.monotonic_ns = prev.monotonic_ns + secs * SECOND_NS;
    zswaptop::pipeline::snapshot(&curr, Some(prev))
}

/// A copy of a fixture tree (symlinks copied as symlinks).
fn copy_fixture(name: &str) -> TempDir {
    let t = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir(name), t.path());
    t
}

/// Write every regular file of `src` over the same path under `dst`, keeping `dst`'s directories
/// (and so their inodes).
fn overlay_files(src: &Path, dst: &Path) {
    for e in fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            fs::create_dir_all(&to).unwrap();
            overlay_files(&e.path(), &to);
        } else {
            fs::write(&to, fs::read(e.path()).unwrap()).unwrap();
        }
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

// --- expectation blocks ----------------------------------------------------------------------

/// Split a key at the dots that are not inside `[...]`.
fn key_tokens(key: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in key.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '.' if depth == 0 => {
                out.push(&key[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&key[start..]);
    out
}

/// The value at `key`: dotted names and indexes, `[field=value]` selectors and a final `#`
/// (array length). `None` when the path does not exist.
fn lookup(v: &Value, key: &str) -> Option<Value> {
    let mut cur = v.clone();
    for tok in key_tokens(key) {
        if tok == "#" {
            return cur.as_array().map(|a| Value::from(a.len()));
        }
        let (name, selector) = match tok.find('[') {
            Some(i) => (&tok[..i], Some(tok[i + 1..].trim_end_matches(']'))),
            None => (tok, None),
        };
        if !name.is_empty() {
            cur = match name.parse::<usize>() {
                Ok(i) => cur.get(i)?.clone(),
                Err(_) => cur.get(name)?.clone(),
            };
        }
        if let Some(sel) = selector {
            let (field, want) = sel.split_once('=')?;
            cur = cur
                .as_array()?
                .iter()
                .find(|e| match e.get(field) {
                    Some(Value::String(s)) => s == want,
                    Some(other) => serde_json::from_str::<Value>(want).is_ok_and(|w| &w == other),
                    None => false,
                })?
                .clone();
        }
    }
    Some(cur)
}

/// Compare `json` with every line of a block. Integers exactly, numbers written with a decimal
/// point within 1e-4 relative (as the formulas module), everything else by JSON equality.
fn check_block(what: &str, json: &Value, lines: &[(String, String)]) -> usize {
    let mut failures = Vec::new();
    for (key, want_text) in lines {
        let want: Value = serde_json::from_str(want_text)
            .unwrap_or_else(|e| panic!("{what}: {key} = {want_text}: not a JSON value ({e})"));
        let Some(got) = lookup(json, key) else {
            failures.push(format!("{key}: missing (want {want_text})"));
            continue;
        };
        let ok = match (&want, &got) {
            (Value::Number(w), Value::Number(g)) if want_text.contains('.') => {
                let (w, g) = (w.as_f64().unwrap(), g.as_f64().unwrap());
                (g - w).abs() <= 1e-4 * w.abs().max(1.0)
            }
            (Value::Number(w), Value::Number(g)) => {
                let int = |n: &serde_json::Number| {
                    n.as_i64()
                        .map(i128::from)
                        .or_else(|| n.as_u64().map(i128::from))
                };
                int(w).is_some() && int(w) == int(g)
            }
            _ => want == got,
        };
        if !ok {
            failures.push(format!("{key} = {got}, want {want_text}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: {} of {} expectations failed:\n  {}",
        failures.len(),
        lines.len(),
        failures.join("\n  ")
    );
    lines.len()
}

/// Every number in the JSON, with its path.
fn numbers(v: &Value, path: &str, out: &mut Vec<(String, f64)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                numbers(x, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                numbers(x, &format!("{path}.{i}"), out);
            }
        }
        Value::Number(n) => out.push((path.to_string(), n.as_f64().unwrap())),
        _ => {}
    }
}

/// No rate, total or size in the snapshot is negative. Only two kinds of value may be: a swap
/// priority, and `saved_bytes` (a pool of incompressible pages costs more than it stores).
fn assert_no_negative(what: &str, snap: &Snapshot) {
    let mut all = Vec::new();
    numbers(&serde_json::to_value(snap).unwrap(), "", &mut all);
    let bad: Vec<_> = all
        .iter()
        // A forecast's fill rate is signed: a store that drains has a negative one.
        .filter(|(p, v)| {
            let signed = p.ends_with("saved_bytes")
                || p.ends_with("priority")
                || (p.starts_with(".forecast") && p.ends_with(".rate_bytes_per_sec"));
            *v < 0.0 && !signed
        })
        .collect();
    assert!(bad.is_empty(), "{what}: negative values {bad:?}");
    assert!(
        all.iter().all(|(_, v)| v.is_finite()),
        "{what}: non-finite values"
    );
}

// --- the hand-computed expectations ----------------------------------------------------------

#[test]
fn every_depth_tree_matches_its_expected_blocks() {
    let mut checked = 0;
    for name in TREES {
        let json = owners_json(&common::fixture_dir(name));
        let plain =
            common::block(name, "expected").unwrap_or_else(|| panic!("{name}: no expected block"));
        checked += check_block(&format!("{name} (expected)"), &json, &plain);
        let depth = common::block(name, "expected-depth")
            .unwrap_or_else(|| panic!("{name}: no expected-depth block"));
        checked += check_block(&format!("{name} (expected-depth)"), &json, &depth);
    }
    assert!(checked >= 500, "only {checked} expectations");
}

#[test]
fn blocks_are_read_by_the_shared_parser_too() {
    // The formulas module reads the first ```expected block of every tree: it must be the plain one.
    for name in TREES {
        let shared = common::expected(name).unwrap();
        assert_eq!(shared, common::block(name, "expected").unwrap(), "{name}");
    }
}

// --- processes -------------------------------------------------------------------------------

#[test]
fn many_processes_scan() {
    let root = common::fixture("depth-many-processes");
    let scan = processes::scan(&root, 10, false);
    assert_eq!(
        scan.scanned, 302,
        "every numeric /proc entry, junk included"
    );
    assert_eq!(scan.with_swap, 175);
    assert_eq!(scan.total_swap_bytes, 664_313 * KIB);
    let top: Vec<(u32, u64)> = scan.top.iter().map(|p| (p.pid, p.swap_bytes)).collect();
    assert_eq!(
        top,
        vec![
            (3101, 183_456 * KIB),
            (2210, 97_812 * KIB),
            (2211, 97_812 * KIB),
            (5120, 64_000 * KIB),
            (1777, 51_200 * KIB),
            (8888, 40_960 * KIB),
            (2500, 33_333 * KIB),
            (930, 20_000 * KIB),
            (12000, 12_345 * KIB),
            // 11999 and 12001 tie at 12344 kB: the lower pid takes the last place.
            (11999, 12_344 * KIB),
        ]
    );
    let users: Vec<Option<&str>> = scan.top.iter().map(|p| p.user.as_deref()).collect();
    assert_eq!(
        users,
        [
            "alice", "postgres", "postgres", "alice", "mysql", "4242", "root", "root", "www-data",
            "www-data"
        ]
        .map(Some)
    );
    assert_eq!(scan.top[3].name, "Web Content", "names keep their spaces");
    assert_eq!(scan.top[0].rss_bytes, Some(402_112 * KIB));
    assert_eq!(
        scan.top[1].cgroup.as_deref(),
        Some("/system.slice/postgresql@15-main.service")
    );
    assert!(
        scan.top.iter().all(|p| p
            .cgroup
            .as_deref()
            .is_some_and(|c| c.ends_with(".scope") || c.ends_with(".service"))),
        "cgroup v1: the memory controller's cgroup"
    );

    // Everything, and nothing at all.
    let all = processes::scan(&root, 1000, false);
    assert_eq!(all.top.len(), 175);
    assert_eq!(
        all.top.iter().map(|p| p.swap_bytes).sum::<u64>(),
        664_313 * KIB
    );
    for odd in [31336, 31337, 31338, 31339, 31340, 2, 41] {
        assert!(
            all.top.iter().all(|p| p.pid != odd),
            "pid {odd} has no valid VmSwap"
        );
    }
    assert!(all.top.iter().all(|p| p.swap_bytes > 0));
    let none = processes::scan(&root, 0, false);
    assert!(none.top.is_empty());
    assert_eq!(
        (none.scanned, none.with_swap, none.total_swap_bytes),
        (302, 175, 664_313 * KIB)
    );
}

#[test]
fn broken_status_files_are_skipped() {
    let dir = common::fixture_dir("depth-many-processes/proc");
    let status = |pid: u32| fs::read(dir.join(format!("{pid}/status"))).unwrap();
    for pid in [31336, 31337, 31339, 31340, 2, 30] {
        assert_eq!(
            processes::parse_status(pid, &status(pid)),
            None,
            "pid {pid}"
        );
    }
    assert!(!dir.join("31338/status").exists());
    let p = processes::parse_status(600, &status(600)).unwrap();
    assert_eq!((p.name.as_str(), p.swap_bytes), ("bash", 0));
}

#[test]
fn sum_of_vmswap_stays_within_swap_used() {
    // A property of the kernel the trees must respect: VmSwap counts the process's swap entries
    // (fs/proc/task_mmu.c), so shared pages count in each mapper and shmem in none.
    for name in TREES {
        let s = sources::collect_with(&common::fixture(name), OWNERS);
        let m = s.meminfo.as_ref().unwrap();
        let used = m.swap_total - m.swap_free;
        let total = s.processes.as_ref().unwrap().total_swap_bytes;
        assert!(total <= used, "{name}: Σ VmSwap {total} > swap used {used}");
    }
}

#[test]
fn cgroup_estimates_and_their_fallbacks() {
    let snap = Snapshot::derive(&sample(&common::fixture_dir("depth-cgroup-v2")), None);
    let p = snap.processes.unwrap();
    let by_pid = |pid: u32| p.top.iter().find(|r| r.pid == pid).unwrap();
    // cgroup share zswapped ÷ swap.current: 268435456 ÷ 419430400 = 0.64 of 300000 kB.
    assert_eq!(by_pid(5000).zswap_estimate_bytes, Some(196_608_000));
    assert_eq!(by_pid(5000).estimate_from.as_deref(), Some("cgroup"));
    // 0.8 of 40000 kB.
    assert_eq!(by_pid(4100).zswap_estimate_bytes, Some(32_768_000));
    // No usable cgroup share → the global one (443316 ÷ 670336): a removed cgroup, a cgroup
    // without swap, the root (which has no memory.swap.current).
    for pid in [8000, 7000, 9000] {
        assert_eq!(
            by_pid(pid).estimate_from.as_deref(),
            Some("global ratio"),
            "{pid}"
        );
    }
    assert_eq!(by_pid(7000).zswap_estimate_bytes, Some(677_206));
    for r in &p.top {
        let est = r.zswap_estimate_bytes.unwrap();
        assert!(est <= r.swap_bytes, "{}: estimate above VmSwap", r.pid);
    }
    // Footprint: VmRSS + VmSwap of its status file, (390000 + 300000) kB.
    assert_eq!(by_pid(5000).footprint_bytes, Some(706_560_000));
    // The RAM its swap takes compressed: the cgroup's memory.stat zswap ÷ memory.swap.current,
    // 120000000 ÷ 419430400 of 300000 kB.
    assert_eq!(by_pid(5000).compressed_estimate_bytes, Some(87_890_625));
    assert_eq!(
        by_pid(5000).compressed_estimate_from.as_deref(),
        Some("cgroup")
    );
    // Outside a cgroup with swap: meminfo's Zswap ÷ swap used (223928 ÷ 670336) of 1000 kB,
    // 342070.65 bytes.
    assert_eq!(by_pid(7000).compressed_estimate_bytes, Some(342_071));
    assert_eq!(
        by_pid(7000).compressed_estimate_from.as_deref(),
        Some("global ratio")
    );
    // smaps_rollup is not read without being asked (the tree has none anyway): unknown, and why.
    assert_eq!(by_pid(5000).shmem_swap_bytes, None);
    assert!(
        by_pid(5000)
            .smaps_missing
            .as_deref()
            .is_some_and(|w| w.contains("not read"))
    );
}

// --- swap devices ----------------------------------------------------------------------------

fn swap(path: &str, kind: &str, prio: i64) -> SwapEntry {
    SwapEntry {
        path: path.into(),
        kind: kind.into(),
        size_bytes: 1 << 30,
        used_bytes: 0,
        priority: prio,
    }
}

#[test]
fn multi_swap_devices_map_to_their_disks() {
    let root = common::fixture("depth-multi-swap");
    let swaps = sources::swaps::read(&root).unwrap();
    let m = swapdev::read(&root, &swaps);
    let summary: Vec<(Option<&str>, Vec<&str>, Option<bool>)> = m
        .iter()
        .map(|b| {
            (
                b.device.as_ref().map(|d| d.name.as_str()),
                b.disk_names(),
                b.rotational(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (Some("sda2"), vec!["sda"], Some(true)),
            (Some("sda3"), vec!["sda"], Some(true)),
            (Some("dm-0"), vec!["sdb"], Some(false)),
            (None, vec![], None),
        ]
    );
    for b in &m[..3] {
        // Under --root nothing is stat()ed: device paths map by name only.
        assert_eq!(b.mapped_by.as_deref(), Some("device name"), "{}", b.path);
        assert!(b.devnum.is_none());
        assert!(b.device.as_ref().unwrap().stat_path().exists());
    }
    assert!(m[0].device.as_ref().unwrap().partition);
    assert!(!m[2].device.as_ref().unwrap().partition);
    let why = m[3].unmapped.as_deref().unwrap();
    assert!(why.contains("swapfile in a captured tree"), "{why}");

    // The dm device by its /dev/mapper name (dm/name).
    let mapper = swapdev::read(&root, &[swap("/dev/mapper/cryptswap", "partition", 5)]);
    assert_eq!(mapper[0].device.as_ref().unwrap().name, "dm-0");
    assert_eq!(mapper[0].disk_names(), vec!["sdb"]);
}

#[test]
fn sys_dev_block_links_resolve_inside_the_tree() {
    // As scripts/capture-fixture.sh makes them: relative symlinks to device directories whose
    // `dev` file names the same MAJ:MIN.
    for name in ["depth-multi-swap", "depth-zram-writeback"] {
        let base = common::fixture_dir(name);
        let links = base.join("sys/dev/block");
        let tree = fs::canonicalize(&base).unwrap();
        let mut n = 0;
        for e in fs::read_dir(&links).unwrap() {
            let e = e.unwrap();
            let target = fs::read_link(e.path()).unwrap();
            assert!(target.is_relative(), "{name}: {target:?}");
            let dir = fs::canonicalize(e.path()).unwrap();
            assert!(dir.starts_with(&tree), "{name}: {dir:?} outside the tree");
            let dev = fs::read_to_string(dir.join("dev")).unwrap();
            assert_eq!(dev.trim(), e.file_name().to_string_lossy(), "{name}");
            n += 1;
        }
        assert!(n >= 4, "{name}: {n} links");
    }
}

#[test]
fn whole_disk_counts_at_least_its_partitions() {
    let tree = common::fixture("depth-multi-swap");
    let root = common::fixture_dir("depth-multi-swap/sys/block/sda");
    let read = |p: &str| zswaptop::sources::blockstat::read(&tree, &root.join(p)).unwrap();
    let disk = read("stat");
    let parts: Vec<_> = ["sda1/stat", "sda2/stat", "sda3/stat"]
        .iter()
        .map(|p| read(p))
        .collect();
    assert!(disk.read_sectors >= parts.iter().map(|p| p.read_sectors).sum());
    assert!(disk.write_sectors >= parts.iter().map(|p| p.write_sectors).sum());
}

// --- zram ------------------------------------------------------------------------------------

#[test]
fn zram_writeback_sources() {
    let all = zram::read_all(&common::fixture("depth-zram-writeback"), 0);
    assert_eq!(
        all.iter().map(|z| z.name.as_str()).collect::<Vec<_>>(),
        ["zram0", "zram1"]
    );
    let z = &all[0];
    let bd = z.bd_stat.as_ref().unwrap();
    // bd_stat counts 4 KiB blocks whatever the page size.
    assert_eq!(
        (bd.bd_count_bytes, bd.bd_reads_bytes, bd.bd_writes_bytes),
        (25_600 * 4096, 6_400 * 4096, 51_200 * 4096)
    );
    let io = z.io_stat.as_ref().unwrap();
    assert_eq!(
        (
            io.failed_reads,
            io.failed_writes,
            io.invalid_io,
            io.notify_free
        ),
        (2, 5, 0, 48_213)
    );
    let mm = z.mm_stat.as_ref().unwrap();
    assert_eq!(mm.mem_limit, 2 << 30);
    assert_eq!(
        (mm.huge_pages, mm.huge_pages_since),
        (Some(20_000), Some(23_456))
    );
    assert_eq!(z.backing_dev.as_deref().ok(), Some("/dev/vda3"));
    assert_eq!(
        z.recomp_algorithm.as_deref().ok(),
        Some("#1: lzo-rle lzo lz4 lz4hc [zstd] deflate 842")
    );
    assert_eq!(
        z.comp_algorithm.as_ref().unwrap().selected.as_deref(),
        Some("lz4")
    );
    // The swap device's backing: zram with a writeback device.
    let root = common::fixture("depth-zram-writeback");
    let swaps = sources::swaps::read(&root).unwrap();
    let b = &swapdev::read(&root, &swaps)[0];
    let zb = b.zram.as_ref().unwrap();
    assert!(zb.writeback_supported());
    assert_eq!(zb.has_writeback_device(), Some(true));
    assert_eq!(b.rotational(), Some(false));
    let z1 = &all[1];
    assert_eq!(z1.disksize.as_ref().ok(), Some(&0));
    assert_eq!(z1.backing_dev.as_deref().ok(), Some("none"));
}

// --- cgroups ---------------------------------------------------------------------------------

#[test]
fn cgroup_v2_tree_sources() {
    let root = common::fixture("depth-cgroup-v2");
    let found = cgroups::find(&root).unwrap();
    assert_eq!(found.version, 2);
    let tree = cgroups::read_tree(&root, &found);
    let paths: Vec<&str> = tree.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/",
            "/init.scope",
            "/system.slice",
            "/system.slice/nginx.service",
            "/system.slice/postgresql.service",
            "/system.slice/systemd-journald.service",
            "/user.slice",
            "/user.slice/user-1000.slice",
            "/user.slice/user-1000.slice/session-2.scope",
            "/user.slice/user-1000.slice/user@1000.service",
            "/user.slice/user-1000.slice/user@1000.service/app.slice",
            "/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1234.scope",
        ]
    );
    let get = |p: &str| tree.iter().find(|c| c.path == p).unwrap();
    let r = get("/");
    assert_eq!(r.memory_current, None, "memory.current is not on the root");
    assert_eq!(r.zswap_max, None, "memory.zswap.max is not on the root");
    assert_eq!(r.zswap_writeback, Some(true), "memory.zswap.writeback is");
    assert_eq!(r.zswapped, Some(453_955_584));
    let pg = get("/system.slice/postgresql.service");
    assert_eq!(pg.zswap_max, Some(Some(134_217_728)));
    assert_eq!(pg.zswap_writeback, Some(false));
    assert_eq!(
        (pg.zswpin, pg.zswpout, pg.zswpwb),
        (Some(51_234), Some(116_770), Some(0))
    );
    let nginx = get("/system.slice/nginx.service");
    assert_eq!(nginx.zswap_max, Some(None), "\"max\"");
    assert_eq!(nginx.zswap, Some(30_000_000));
    // Hierarchical: a slice holds the sums of its children.
    let kids = [
        "nginx.service",
        "postgresql.service",
        "systemd-journald.service",
    ];
    let sum: u64 = kids
        .iter()
        .map(|k| get(&format!("/system.slice/{k}")).zswapped.unwrap())
        .sum();
    assert_eq!(get("/system.slice").zswapped, Some(sum));
    // Σ cgroup zswap (compressed lengths) < the global pool (zsmalloc overhead).
    assert!(r.zswap.unwrap() < 223_928 * KIB);
}

#[test]
fn v1_machine_lists_its_memory_cgroups_without_zswap() {
    let j = owners_json(&common::fixture_dir("depth-many-processes"));
    assert_eq!(j["cgroups"]["available"], true);
    assert_eq!(j["cgroups"]["version"], 1);
    let reason = j["cgroups"]["zswap_missing"].as_str().unwrap();
    assert!(reason.contains("cgroup v1"), "{reason}");
    assert!(reason.contains("zswap"), "{reason}");
    let list = j["cgroups"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 1, "the v1 root: the only cgroup in the tree");
    assert!(list[0]["zswap_bytes"].is_null());
    for r in j["processes"]["top"].as_array().unwrap() {
        assert_eq!(r["estimate_from"], "global ratio");
        // The v1 memory controller's cgroup, from the `4:memory:` line of /proc/PID/cgroup.
        assert!(
            r["cgroup"].as_str().is_some_and(|c| c.starts_with('/')),
            "{r}"
        );
    }
}

/// A live cgroup v1 capture: its README's hand-checked figures, as JSON and as text.
#[test]
fn v1_capture_matches_its_expected_block() {
    let name = "linux-6.18-cgroup-v1";
    let json = owners_json(&common::fixture_dir(name));
    let want = common::block(name, "expected-cgroups").unwrap();
    assert!(check_block(name, &json, &want) >= 15);
    let text = owners_text(&common::fixture_dir(name));
    let cg = &text[text.find("CGROUPS").unwrap()..];
    assert!(
        cg.contains("cgroup v1 (memory controller): zswap is not reported per cgroup"),
        "{cg}"
    );
    // Largest memory first: /process_api (7.3 GiB) before the root (6.9 GiB).
    assert!(
        cg.find("/process_api ").unwrap() < cg.find("\n  /   ").unwrap(),
        "{cg}"
    );
}

/// Without the memory.memsw files the kernel accounts no swap per cgroup: swap is unknown,
/// with the reason, not 0.
#[test]
fn v1_without_swap_accounting_says_so() {
    let t = copy_fixture("linux-6.18-cgroup-v1");
    let mem = t.path().join("sys/fs/cgroup/memory");
    let mut removed = 0;
    for dir in [
        "",
        "process_api",
        "process_api/0c34a129a0605314addad4c1319e0b59",
        "process_api/73c108e86a56bcc6f3932cc7cb39f5ce",
        "process_api/fa7207a3a5979b752673e25e05125d6d",
    ] {
        fs::remove_file(mem.join(dir).join("memory.memsw.usage_in_bytes")).unwrap();
        removed += 1;
    }
    assert_eq!(removed, 5);
    let j = owners_json(t.path());
    let why = j["cgroups"]["swap_missing"].as_str().unwrap();
    assert!(why.contains("swap accounting is off"), "{why}");
    assert!(why.contains("swapaccount=1"), "{why}");
    for r in j["cgroups"]["list"].as_array().unwrap() {
        assert!(r["swap_current_bytes"].is_null(), "{r}");
        assert!(r["memory_current_bytes"].as_u64().is_some(), "{r}");
    }
    let text = owners_text(t.path());
    assert!(text.contains("swap accounting is off"), "{text}");
}

/// t0, then t1's files written over it in place one second later.
fn cgroup_pair() -> (TempDir, Sample, Sample) {
    let t = copy_fixture("depth-cgroup-v2");
    let s0 = sample(t.path());
    let t1 = common::fixture_dir("depth-cgroup-v2-t1");
    overlay_files(&t1.join("sys/fs/cgroup"), &t.path().join("sys/fs/cgroup"));
    for f in ["proc/meminfo", "proc/vmstat", "proc/swaps"] {
        fs::copy(t1.join(f), t.path().join(f)).unwrap();
    }
    let s1 = sample(t.path());
    (t, s0, s1)
}

#[test]
fn cgroup_rates_over_one_second() {
    let (_t, s0, s1) = cgroup_pair();
    let c0 = s0.cgroups.as_ref().unwrap().as_ref().unwrap();
    let c1 = s1.cgroups.as_ref().unwrap().as_ref().unwrap();
    for (a, b) in c0.iter().zip(c1) {
        assert_eq!(
            (&a.path, a.inode),
            (&b.path, b.inode),
            "same directories, same inodes"
        );
    }
    let snap = derive_after(&s0, s1, 1);
    let json = serde_json::to_value(&snap).unwrap();
    let lines = common::block("depth-cgroup-v2-t1", "expected-rates").unwrap();
    assert_eq!(
        check_block("depth-cgroup-v2 → t1 (expected-rates)", &json, &lines),
        36
    );
    // The restarted unit: counters went back, so no rate (never a negative one).
    let list = &snap.cgroups.as_ref().unwrap().list;
    let pg = list
        .iter()
        .find(|r| r.path == "/system.slice/postgresql.service")
        .unwrap();
    assert_eq!(pg.zswpin_bytes_per_sec, None);
    assert_eq!(pg.zswpout_bytes_per_sec, None);
    assert_no_negative("cgroups t0 → t1", &snap);
}

#[test]
fn restarted_cgroup_with_a_new_directory_has_no_rate() {
    // The unit restarts: systemd removes its cgroup and makes a new one at the same path. Even
    // when every counter of the new one happens to be higher, the new inode says it is new.
    let t = copy_fixture("depth-cgroup-v2");
    let s0 = sample(t.path());
    let cg = t.path().join("sys/fs/cgroup/system.slice");
    let t1 = common::fixture_dir("depth-cgroup-v2-t1/sys/fs/cgroup/system.slice");
    // The old directory is still there while the new one is made: the inode cannot be reused.
    fs::rename(cg.join("nginx.service"), cg.join("nginx.service.old")).unwrap();
    fs::create_dir(cg.join("nginx.service")).unwrap();
    overlay_files(&t1.join("nginx.service"), &cg.join("nginx.service"));
    fs::remove_dir_all(cg.join("nginx.service.old")).unwrap();
    overlay_files(
        &t1.join("systemd-journald.service"),
        &cg.join("systemd-journald.service"),
    );
    let s1 = sample(t.path());
    let inode = |s: &Sample, p: &str| {
        let list = s.cgroups.as_ref().unwrap().as_ref().unwrap();
        list.iter().find(|c| c.path == p).unwrap().inode
    };
    assert_ne!(
        inode(&s0, "/system.slice/nginx.service"),
        inode(&s1, "/system.slice/nginx.service")
    );
    let snap = derive_after(&s0, s1, 1);
    let list = &snap.cgroups.as_ref().unwrap().list;
    let row = |p: &str| list.iter().find(|r| r.path == p).unwrap();
    let nginx = row("/system.slice/nginx.service");
    assert_eq!(
        (
            nginx.zswpin_bytes_per_sec,
            nginx.zswpout_bytes_per_sec,
            nginx.zswpwb_bytes_per_sec
        ),
        (None, None, None),
        "a new cgroup at the same path: no rate"
    );
    // Its figures are the new cgroup's.
    assert_eq!(nginx.zswap_bytes, Some(30_300_000));
    // The untouched directory keeps its rate: +10 pages in 1 s.
    assert_eq!(
        row("/system.slice/systemd-journald.service").zswpout_bytes_per_sec,
        Some(40_960.0)
    );
    assert_no_negative("restarted unit", &snap);
}

#[test]
fn same_tree_twice_gives_zero_rates_not_null() {
    let out = run(
        &["--once", "--json", "-i", "0.1", "--cgroups"],
        &common::fixture_dir("depth-cgroup-v2"),
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = j["cgroups"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 12);
    for r in list {
        for k in [
            "zswpin_bytes_per_sec",
            "zswpout_bytes_per_sec",
            "zswpwb_bytes_per_sec",
        ] {
            assert_eq!(r[k], 0.0, "{} {k}", r["path"]);
        }
    }
    let out = run(
        &["--once", "--json", "-i", "0.1"],
        &common::fixture_dir("depth-multi-swap"),
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    for d in j["swap"]["devices"].as_array().unwrap().iter().take(3) {
        for k in [
            "read_iops",
            "write_iops",
            "write_bytes_per_sec",
            "busy_percent",
        ] {
            assert_eq!(d["io"][k], 0.0, "{} {k}", d["path"]);
        }
    }
}

// --- counter resets: block devices -----------------------------------------------------------

const SDA2: &str = "sys/block/sda/sda2/stat";
const SDA3: &str = "sys/block/sda/sda3/stat";

fn stat_line(fields: [u64; 17]) -> String {
    fields.map(|v| v.to_string()).join(" ") + "\n"
}

fn device_io<'a>(snap: &'a Snapshot, path: &str) -> &'a zswaptop::model::DeviceIo {
    let d = snap.swap.devices.iter().find(|d| d.path == path).unwrap();
    d.io.as_ref().unwrap()
}

#[test]
fn recreated_block_device_has_no_rate() {
    let t = copy_fixture("depth-multi-swap");
    let s0 = sample(t.path());
    // sda2 re-created (its counters start again, far below the old ones); sda3 moved on: +100
    // writes of 800 sectors and 250 ms busy in one second.
    write(
        t.path(),
        SDA2,
        &stat_line([
            120, 0, 960, 10, 300, 0, 2_400, 40, 0, 35, 50, 0, 0, 0, 0, 0, 0,
        ]),
    );
    write(
        t.path(),
        SDA3,
        &stat_line([
            140_611, 184, 9_095_464, 301_172, 250_680, 1_059, 3_349_056, 866_700, 0, 561_906,
            1_168_100, 0, 0, 0, 0, 0, 0,
        ]),
    );
    let snap = derive_after(&s0, sample(t.path()), 1);
    let io = device_io(&snap, "/dev/sda2");
    assert_eq!(
        (
            io.read_iops,
            io.write_iops,
            io.read_bytes_per_sec,
            io.write_bytes_per_sec,
            io.busy_percent
        ),
        (None, None, None, None, None),
        "counters went back: no rate"
    );
    assert_eq!(
        (io.read_bytes_total, io.write_bytes_total),
        (960 * 512, 2_400 * 512)
    );
    let io = device_io(&snap, "/dev/sda3");
    assert_eq!(io.write_iops, Some(100.0));
    assert_eq!(io.write_bytes_per_sec, Some(800.0 * 512.0));
    assert_eq!(io.read_iops, Some(0.0));
    assert_eq!(io.busy_percent, Some(25.0));
    assert_no_negative("re-created device", &snap);
}

#[test]
fn block_tick_wrap_is_not_a_reset() {
    // io_ticks is a u32 of milliseconds: after ~49.7 days busy it wraps while the other
    // counters keep going up.
    let t = copy_fixture("depth-multi-swap");
    let mut f = [
        140_611,
        184,
        9_095_464,
        301_172,
        250_580,
        1_059,
        3_348_256,
        866_667,
        0,
        4_294_967_000,
        1_167_839,
        0,
        0,
        0,
        0,
        0,
        0,
    ];
    write(t.path(), SDA3, &stat_line(f));
    let s0 = sample(t.path());
    f[4] += 10;
    f[6] += 80;
    f[9] = 300; // 296 ms to the wrap + 300 after it
    write(t.path(), SDA3, &stat_line(f));
    let snap = derive_after(&s0, sample(t.path()), 2);
    let io = device_io(&snap, "/dev/sda3");
    assert_eq!(io.write_iops, Some(5.0));
    let busy = io.busy_percent.unwrap();
    assert!((busy - 29.8).abs() < 1e-9, "{busy}");
}

/// BUG (src/model/mod.rs `device_io`, busy_percent; src/sources/blockstat.rs `ticks_delta`): a device
/// re-created after more than 2^31 ms (~24.9 days) of busy time has its io_ticks fall from a
/// large value to a small one, which `ticks_delta` takes for a u32 wrap, so `busy_percent` is
/// reported (clamped to 100 %) although every other counter of the device went back and gets no
/// rate. Expected: no busy figure when the I/O counters show a reset.
#[test]
fn recreated_device_after_long_busy_time_has_no_busy_figure() {
    let t = copy_fixture("depth-multi-swap");
    write(
        t.path(),
        SDA2,
        &stat_line([
            140_615,
            180,
            9_095_500,
            301_171,
            250_600,
            1_061,
            3_348_768,
            866_666,
            0,
            3_000_000_000,
            1_167_837,
            0,
            0,
            0,
            0,
            0,
            0,
        ]),
    );
    let s0 = sample(t.path());
    write(
        t.path(),
        SDA2,
        &stat_line([
            120, 0, 960, 10, 300, 0, 2_400, 40, 0, 35, 50, 0, 0, 0, 0, 0, 0,
        ]),
    );
    let snap = derive_after(&s0, sample(t.path()), 1);
    let io = device_io(&snap, "/dev/sda2");
    assert_eq!(io.write_iops, None, "the other counters say: reset");
    assert_eq!(io.busy_percent, None, "so no busy figure either");
}

// --- counter resets: zram --------------------------------------------------------------------

#[test]
fn zram_reset_leaves_no_negative_and_no_ratio() {
    let t = copy_fixture("depth-zram-writeback");
    let s0 = sample(t.path());
    // swapoff /dev/zram0; echo 1 > reset: every counter back to 0, disksize 0, no backing device.
    let z = "sys/block/zram0";
    write(
        t.path(),
        "proc/swaps",
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
    );
    for (f, v) in [
        ("disksize", "0\n"),
        ("initstate", "0\n"),
        ("backing_dev", "none\n"),
        (
            "mm_stat",
            "       0        0        0        0        0        0        0        0        0\n",
        ),
        ("io_stat", "       0        0 0        0\n"),
        ("bd_stat", "       0        0        0\n"),
        ("stat", &stat_line([0; 17])),
    ] {
        write(t.path(), &format!("{z}/{f}"), v);
    }
    let snap = derive_after(&s0, sample(t.path()), 1);
    let z0 = &snap.zram[0];
    assert_eq!(z0.initialized, Some(false));
    assert!(!z0.is_swap);
    assert_eq!(z0.orig_data_bytes, Some(0));
    assert_eq!(z0.mem_used_bytes, Some(0));
    assert_eq!(z0.compression_ratio, None);
    assert_eq!(z0.effective_ratio, None);
    assert_eq!(z0.saved_bytes, Some(0));
    assert_eq!(z0.allocator_overhead_bytes, Some(0));
    assert_eq!(
        (z0.failed_reads, z0.failed_writes, z0.bd_count_bytes),
        (Some(0), Some(0), Some(0))
    );
    assert!(snap.swap.devices.is_empty());
    assert_eq!(snap.swap.in_zram_bytes, Some(0));
    let b = snap.memory.breakdown.as_ref().unwrap();
    assert_eq!(b.zram_pool, Some(0));
    assert_no_negative("zram reset", &snap);
}

// --- the process: keys, text ------------------------------------------------------------------

#[test]
fn owners_keys_are_present() {
    let process_keys = [
        "pid",
        "name",
        "user",
        "rss_bytes",
        "swap_bytes",
        "zswap_estimate_bytes",
        "estimate_from",
        "cgroup",
    ];
    let cgroup_keys = [
        "path",
        "unit",
        "depth",
        "memory_current_bytes",
        "swap_current_bytes",
        "zswap_bytes",
        "zswapped_bytes",
        "compression_ratio",
        "zswpin_bytes_per_sec",
        "zswpout_bytes_per_sec",
        "zswpwb_bytes_per_sec",
        "zswap_max_bytes",
        "zswap_writeback",
    ];
    for name in TREES {
        let j = owners_json(&common::fixture_dir(name));
        for k in ["scanned", "with_swap", "total_swap_bytes", "top"] {
            assert!(j["processes"].get(k).is_some(), "{name}: processes.{k}");
        }
        for r in j["processes"]["top"].as_array().unwrap() {
            for k in process_keys {
                assert!(r.get(k).is_some(), "{name}: processes.top[].{k}");
            }
        }
        for k in ["available", "reason", "list"] {
            assert!(j["cgroups"].get(k).is_some(), "{name}: cgroups.{k}");
        }
        for r in j["cgroups"]["list"].as_array().unwrap() {
            for k in cgroup_keys {
                assert!(r.get(k).is_some(), "{name}: cgroups.list[].{k}");
            }
        }
        // Not asked for: null.
        let out = run(&["--once", "--json"], &common::fixture_dir(name));
        let plain: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(plain["processes"].is_null(), "{name}");
        assert!(plain["cgroups"].is_null(), "{name}");
    }
}

#[test]
fn owners_text_fits_80_columns() {
    for name in TREES {
        let text = owners_text(&common::fixture_dir(name));
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{name}: line over 80 columns: {line:?}"
            );
        }
        assert!(text.contains("PROCESSES BY SWAP"), "{name}");
        assert!(text.contains("CGROUPS"), "{name}");
        assert!(!text.contains("\x1b["), "{name}: no colour into a pipe");
    }
}

/// The PROCESSES BY SWAP and CGROUPS sections of the text report.
fn owner_sections(text: &str) -> String {
    let start = text.find("PROCESSES BY SWAP").unwrap();
    let rest = &text[start..];
    let cg = rest.find("CGROUPS").unwrap();
    let end = rest[cg..]
        .find("\n\n")
        .map(|i| cg + i + 1)
        .unwrap_or(rest.len());
    rest[..end].to_string()
}

#[test]
fn owners_text_snapshots() {
    for (snap, name) in [
        ("owners-many-processes", "depth-many-processes"),
        ("owners-cgroup-v2", "depth-cgroup-v2"),
        ("owners-cgroup-v1", "linux-6.18-cgroup-v1"),
    ] {
        let text = owners_text(&common::fixture_dir(name));
        insta::assert_snapshot!(snap, owner_sections(&text));
    }
}

/// The JSON `cgroups` section of a cgroup v1 machine (`--once --json --cgroups`).
#[test]
fn cgroups_json_v1_snapshot() {
    let out = run(
        &["--once", "--json", "--cgroups"],
        &common::fixture_dir("linux-6.18-cgroup-v1"),
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    insta::assert_json_snapshot!("cgroups-json-v1", j["cgroups"]);
}

#[test]
fn unit_names_are_shown_as_such() {
    let text = owners_text(&common::fixture_dir("depth-cgroup-v2"));
    let cg = &text[text.find("CGROUPS").unwrap()..];
    for unit in [
        "postgresql.service",
        "nginx.service",
        "app-firefox-1234.scope",
        "session-2.scope",
        "user@1000.service",
        "init.scope",
    ] {
        assert!(cg.contains(unit), "{unit} missing:\n{cg}");
    }
    // The largest zswap user first (after the root and the slices that contain it).
    let pos = |s: &str| cg.find(s).unwrap();
    assert!(pos("postgresql.service") < pos("nginx.service"));
}

#[test]
fn inode_of_a_cgroup_directory_is_read() {
    let root = common::fixture("depth-cgroup-v2");
    let tree = cgroups::find(&root).unwrap();
    let mount = tree.mount.clone();
    for c in cgroups::read_tree(&root, &tree) {
        let dir: PathBuf = if c.path == "/" {
            mount.clone()
        } else {
            mount.join(c.path.trim_start_matches('/'))
        };
        assert_eq!(c.inode, fs::metadata(&dir).unwrap().ino(), "{}", c.path);
    }
}
