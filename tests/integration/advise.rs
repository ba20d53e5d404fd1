//! `zswaptop advise` as a process: on a captured tree with a process whose pagemap and memory
//! are plain files (pages of known content), and on the live system without root.

use crate::common;

use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

const PS: u64 = 4096;
/// Where the fake process's one anonymous mapping starts (low, so the sparse `mem` file stays
/// small on any filesystem).
const BASE: u64 = 0x1000_0000;
const PID: u32 = 4242;

/// Page `i` of the fake process: zero, one word repeated, text, random; by `i % 4`.
fn page(i: u64) -> Vec<u8> {
    let mut x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    match i % 4 {
        0 => vec![0; PS as usize],
        1 => 0x1122_3344_5566_7788u64.to_le_bytes().repeat(512),
        2 => b"a page of text compresses well, the same words again. "
            .iter()
            .copied()
            .cycle()
            .take(PS as usize)
            .collect(),
        _ => (0..PS)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect(),
    }
}

/// The linux-6.18-zram capture plus one process of `pages` pages, `absent` of them not
/// present in RAM (every 8th).
fn tree(dir: &Path, pages: u64) {
    common::copy_dir(&common::fixture_dir("linux-6.18-zram"), dir);
    let p = dir.join(format!("proc/{PID}"));
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(
        p.join("status"),
        format!("Name:\tfake\nRssAnon:\t{} kB\nVmSwap:\t0 kB\n", pages * 4),
    )
    .unwrap();
    std::fs::write(
        p.join("maps"),
        format!("{BASE:x}-{:x} rw-p 00000000 00:00 0 \n", BASE + pages * PS),
    )
    .unwrap();
    let pagemap = std::fs::File::create(p.join("pagemap")).unwrap();
    let mem = std::fs::File::create(p.join("mem")).unwrap();
    for i in 0..pages {
        let addr = BASE + i * PS;
        let entry: u64 = if i % 8 == 7 { 1 << 62 } else { 1 << 63 };
        pagemap
            .write_all_at(&entry.to_ne_bytes(), addr / PS * 8)
            .unwrap();
        mem.write_all_at(&page(i), addr).unwrap();
    }
}

/// The advisor's shipped schema (docs/zswaptop-advise.schema.json, generated from its types).
fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(zswaptop::schema::ADVISE_FILE);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn schema_errors(json: &Value) -> Vec<String> {
    schema()
        .iter_errors(json)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// `advise --json` on `root`, validated against its schema.
fn advise(root: &Path, extra: &[&str]) -> (Value, String) {
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .args(["advise", "--json", "--root"])
        .arg(root)
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let json = serde_json::from_slice(&out.stdout).unwrap();
    let errs = schema_errors(&json);
    assert!(errs.is_empty(), "{extra:?}:\n{}", errs.join("\n"));
    (json, err)
}

fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    common::json_path(v, path).unwrap_or_else(|| panic!("no {path}"))
}

#[test]
fn samples_only_present_pages_of_a_tree_and_names_every_field() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path(), 256);
    let (j, _) = advise(dir.path(), &[]);
    // 256 pages, every 8th not present (those are all random ones, i % 8 == 7): 224 read, 64
    // zero, 64 same-filled, 64 text, 32 random.
    assert_eq!(get(&j, "advise.sample.pages"), 224);
    assert_eq!(get(&j, "advise.sample.bytes"), 224 * PS);
    assert_eq!(get(&j, "advise.sample.processes"), 1);
    assert_eq!(get(&j, "advise.sample.zero_pages"), 64);
    assert_eq!(get(&j, "advise.sample.same_filled_pages"), 64);
    let cands = get(&j, "advise.candidates").as_array().unwrap();
    for c in cands {
        for key in [
            "name",
            "backend",
            "in_kernel",
            "estimated",
            "ratio",
            "pool_bytes",
            "compress_mib_s",
            "decompress_mib_s",
            "reason",
        ] {
            assert!(c.get(key).is_some(), "{key} missing in {c}");
        }
    }
    let find = |backend: &str, name: &str| {
        cands
            .iter()
            .find(|c| c["backend"] == backend && c["name"] == name)
            .unwrap_or_else(|| panic!("no {backend} {name}"))
    };
    // The tree's /proc/crypto offers deflate, lzo and lzo-rle; zram0 offers lzo-rle, lzo, lz4.
    for (b, n, in_kernel) in [
        ("zswap", "lzo", true),
        ("zswap", "deflate", true),
        ("zswap", "zstd", false),
        ("zswap", "lz4hc", false),
        ("zram", "lz4", true),
        ("zram", "zstd", false),
        ("zram", "lz4hc", false),
    ] {
        let c = find(b, n);
        assert_eq!(c["in_kernel"], in_kernel, "{b} {n}");
        assert_eq!(c["estimated"], true, "{b} {n}");
    }
    assert_eq!(find("zswap", "842")["estimated"], false);
    assert!(
        find("zswap", "842")["reason"]
            .as_str()
            .unwrap()
            .contains("842")
    );
    // zswap on this kernel (zero map, incompressible pages stored whole): 160 pages stored
    // (655360 bytes), the 32 random ones a page each (32 pages of pool), the 128 others (one
    // word repeated, a short phrase repeated) in 32- to 256-byte slots of two classes. zswap
    // stores nothing now, so the pool is the sample's, filled from empty: each class's zspages
    // count whole (1 to 8 pages each), so the ratio lies between 160 / (32 + 8 + 8) = 3.33 and
    // 160 / (32 + 1 + 1) = 4.71. zram holds 278 MiB now: its pool, predicted at that size, is
    // in full zspages, and keeps the 64 same-filled pages without memory: 655360 / (131072 +
    // 64 × 256) = 4.44 to 655360 / (131072 + 64 × 32) = 4.92.
    let zswap = find("zswap", "lzo")["ratio"].as_f64().unwrap();
    let zram = find("zram", "lzo")["ratio"].as_f64().unwrap();
    assert!(zswap > 3.33 && zswap < 4.71, "{zswap}");
    assert!(zram > 4.44 && zram < 4.92, "{zram}");
    assert!(
        zram > zswap,
        "zram {zram} keeps same-filled pages free, zswap {zswap} does not"
    );
    // The capture's zswap stores nothing (a row saying so); its zram0 is swap holding 278 MiB
    // with lz4 at 291639296 / 145022976 = 2.011: the calibration row has both ratios.
    let cur = get(&j, "advise.current").as_array().unwrap();
    let z = cur.iter().find(|c| c["backend"] == "zswap").unwrap();
    assert_eq!(z["name"], "lzo");
    assert!(z["achieved_ratio"].is_null(), "{z}");
    assert!(
        z["note"].as_str().unwrap().contains("stores nothing"),
        "{z}"
    );
    let r = cur.iter().find(|c| c["backend"] == "zram").unwrap();
    assert_eq!(
        (&r["device"], &r["name"]),
        (&Value::from("zram0"), &Value::from("lz4"))
    );
    let achieved = r["achieved_ratio"].as_f64().unwrap();
    assert!((achieved - 291_639_296.0 / 145_022_976.0).abs() < 1e-9);
    let predicted = find("zram", "lz4")["ratio"].as_f64().unwrap();
    assert_eq!(r["predicted_ratio"].as_f64().unwrap(), predicted);
    let diff = r["difference_percent"].as_f64().unwrap();
    assert!((diff - (predicted - achieved) / achieved * 100.0).abs() < 1e-9);
    // Far apart (the sample is not what that zram holds): explained, not only shown.
    assert!(diff.abs() > 10.0 && r["note"].as_str().unwrap().contains("resident"));
    // Nothing of a page's content is in the output: no run of the text, no zero page.
    let text = serde_json::to_string(&j).unwrap();
    assert!(!text.contains("compresses well"));
    // The schema is closed: a key it does not list fails, wherever it is.
    for at in [
        "",
        "/advise",
        "/advise/sample",
        "/advise/candidates/0",
        "/advise/current/0",
    ] {
        let mut bad = j.clone();
        let o = bad.pointer_mut(at).and_then(Value::as_object_mut).unwrap();
        o.insert("surprise".into(), 1.into());
        assert!(!schema_errors(&bad).is_empty(), "{at}/surprise passed");
    }
}

/// zswap on zbud and z3fold (the tree's `zpool` parameter), zswap enabled: the sample's 64
/// same-filled and 64 text pages compress to a few chunks each, so zbud holds them two to a page
/// (64 pages: exactly 2:1) and z3fold three (43 pages), plus a headless page for each of the 32
/// random ones (stored whole on this kernel), which zbud refuses. Either way the pages compress
/// far better in zsmalloc, and a finding says the allocator caps the ratio.
#[test]
fn zbud_and_z3fold_cap_the_ratio() {
    for (zpool, ratio, refused) in [("zbud", 2.0, 32), ("z3fold", 160.0 / 75.0, 0)] {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path(), 256);
        let params = dir.path().join("sys/module/zswap/parameters");
        std::fs::write(params.join("zpool"), format!("{zpool}\n")).unwrap();
        std::fs::write(params.join("enabled"), "Y\n").unwrap();
        let (j, _) = advise(dir.path(), &[]);
        let lzo = get(&j, "advise.candidates")
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["backend"] == "zswap" && c["name"] == "lzo")
            .unwrap()
            .clone();
        assert_eq!(lzo["allocator"], zpool);
        let got = lzo["ratio"].as_f64().unwrap();
        assert!((got - ratio).abs() < 1e-9, "{zpool}: {got}");
        assert_eq!(lzo["refused_pages"], refused, "{zpool}");
        assert!(lzo["zsmalloc_ratio"].as_f64().unwrap() > 3.0, "{lzo}");
        let recs = get(&j, "advise.recommendations").as_array().unwrap();
        let cap = recs
            .iter()
            .find(|r| r["id"] == "advise-zswap-allocator")
            .unwrap_or_else(|| panic!("{zpool}: no allocator finding in {recs:?}"));
        assert!(
            cap["fix"]
                .as_str()
                .unwrap()
                .contains("echo zsmalloc | sudo tee /sys/module/zswap/parameters/zpool")
        );
        let kernel = get(&j, "advise.kernel").to_string();
        assert!(
            kernel.contains(&format!("/sys/module/zswap/parameters/zpool = {zpool}")),
            "{kernel}"
        );
    }
}

#[test]
fn the_sample_size_bounds_the_pages_read_and_text_is_the_default() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path(), 256);
    let (j, _) = advise(
        dir.path(),
        &["--sample", "64KiB", "--pid", &PID.to_string()],
    );
    assert_eq!(get(&j, "advise.sample.pages"), 16);
    // zram0 holds 278 MiB of other processes' pages: with --pid the pool is predicted for what
    // was sampled, not for them.
    let zram_lz4 = get(&j, "advise.candidates")
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["backend"] == "zram" && c["name"] == "lz4")
        .unwrap();
    assert_eq!(
        zram_lz4["pool_basis"],
        "the sampled process's pages it would store"
    );
    assert!(zram_lz4["pool_basis_bytes"].as_u64().unwrap() <= 16 * PS);
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .args(["advise", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for part in [
        "ADVISE",
        "ZSWAP",
        "ZRAM",
        "CALIBRATION",
        "KERNEL",
        "RECOMMENDATION",
    ] {
        assert!(text.contains(part), "{part} missing:\n{text}");
    }
    // A pid that is not there: a clear error, not a panic.
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .args(["advise", "--pid", "999999", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no process to sample"), "{err}");
}

/// A tree whose page size no zsmalloc runs with is refused with a reason (not a buffer of that
/// size).
#[test]
fn a_tree_with_an_impossible_page_size_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path(), 8);
    std::fs::write(dir.path().join("pagesize"), format!("{}\n", 1u64 << 40)).unwrap();
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .args(["advise", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("page size 1099511627776"), "{err}");
}

/// Ctrl-C (SIGINT) stops the sampling at once and the figures of what was read are printed.
/// The signal comes once the sampling has begun reading the 64 MiB of pages.
#[test]
fn an_interrupt_reports_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path(), 4);
    let pages: u64 = 16384;
    let p = dir.path().join(format!("proc/{PID}"));
    std::fs::write(
        p.join("maps"),
        format!("{BASE:x}-{:x} rw-p 00000000 00:00 0 \n", BASE + pages * PS),
    )
    .unwrap();
    let pagemap = std::fs::File::create(p.join("pagemap")).unwrap();
    let entries: Vec<u8> = (0..pages)
        .flat_map(|_| (1u64 << 63).to_ne_bytes())
        .collect();
    pagemap.write_all_at(&entries, BASE / PS * 8).unwrap();
    let mem = std::fs::File::create(p.join("mem")).unwrap();
    let mut block = Vec::with_capacity((PS * 256) as usize);
    for i in 0..256 {
        block.extend(page(2 + (i % 2)));
    }
    for k in 0..pages / 256 {
        mem.write_all_at(&block, BASE + k * 256 * PS).unwrap();
    }
    let child = Command::cargo_bin("zswaptop")
        .unwrap()
        .args(["advise", "--json", "--root"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The signal as soon as the sampling reads the process's memory: a fixed wait either came
    // before it (a loaded machine's slow start) or after the whole sample (an idle one finished
    // 64 MiB of these pages in under 1.5 s). /proc/PID/io's rchar passes the sample's first
    // megabyte only once it reads `mem`; at most 20 s.
    let io = format!("/proc/{}/io", child.id());
    let rchar = || {
        std::fs::read_to_string(&io)
            .ok()?
            .lines()
            .find_map(|l| l.strip_prefix("rchar: ")?.trim().parse::<u64>().ok())
    };
    let start = std::time::Instant::now();
    while rchar().is_some_and(|r| r < 1 << 20) && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema_errors(&j).is_empty(), "{:?}", schema_errors(&j));
    assert_eq!(get(&j, "advise.sample.complete"), false, "{err}");
    let read = get(&j, "advise.sample.pages").as_u64().unwrap();
    assert!(read > 0 && read < pages, "{read}");
    assert!(err.contains("interrupted"), "{err}");
}

/// The man page carries the privacy paragraph.
#[test]
fn the_man_page_says_what_is_kept() {
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg("man")
        .output()
        .unwrap();
    let man = String::from_utf8_lossy(&out.stdout).replace("\\-", "-");
    for words in [
        "zswaptop advise",
        "Privacy",
        "never",
        "recently used",
        "CAP_SYS_PTRACE",
    ] {
        assert!(man.contains(words), "{words} missing");
    }
}

/// Live, without root or CAP_SYS_PTRACE: refused, naming what it needs. As root the binary is
/// run as uid 65534 (copied where that user can execute it).
#[test]
fn without_root_it_says_what_it_needs() {
    let bin = assert_cmd::cargo::cargo_bin("zswaptop");
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = if nix::unistd::geteuid().is_root() {
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let copy = dir.path().join("zswaptop");
        std::fs::copy(&bin, &copy).unwrap();
        let mut c = Command::new(copy);
        std::os::unix::process::CommandExt::uid(&mut c, 65534);
        std::os::unix::process::CommandExt::gid(&mut c, 65534);
        c
    } else {
        Command::new(bin)
    };
    let out = cmd.args(["advise"]).current_dir("/").output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CAP_SYS_PTRACE") && err.contains("root"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
