//! `zswaptop --once` as a process: text and JSON snapshots of fixture trees, bad arguments,
//! closed pipes, and the unprivileged fallback.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;
use assert_cmd::prelude::*;
use predicates::prelude::*;

fn zswaptop() -> Command {
    let mut c = Command::cargo_bin("zswaptop").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("NO_COLOR");
    c
}

/// Run `zswaptop ARGS` successfully and return its stdout.
fn run_ok(args: &[&str]) -> Vec<u8> {
    let out = zswaptop().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn once_text(fixture: &str) -> String {
    let root = format!("tests/fixtures/{fixture}");
    String::from_utf8(run_ok(&["--once", "--root", &root])).unwrap()
}

fn once_json(fixture: &str) -> serde_json::Value {
    let root = format!("tests/fixtures/{fixture}");
    serde_json::from_slice(&run_ok(&["--once", "--json", "--root", &root])).unwrap()
}

/// The header says whether we run as root; that depends on who runs the tests.
fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"  (not root|root)\n", "  [uid]\n");
    s
}

#[test]
fn text_snapshots() {
    for fixture in ["linux-6.18-idle", "linux-6.18-loaded"] {
        let text = once_text(fixture);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{fixture}: line over 80 columns: {line:?}"
            );
        }
        assert!(
            !text.contains("\x1b["),
            "no colour when stdout is not a terminal"
        );
        settings().bind(|| insta::assert_snapshot!(format!("text-{fixture}"), text));
    }
}

#[test]
fn json_snapshots() {
    for fixture in ["linux-6.18-idle", "linux-6.18-loaded"] {
        let json = once_json(fixture);
        insta::assert_json_snapshot!(format!("json-{fixture}"), json, {
            ".host.privileged" => "[uid]",
        });
    }
}

#[test]
fn every_fixture_runs_and_sums() {
    let dir = common::fixture_dir("");
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if !entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = once_text(&name);
        assert!(text.starts_with("zswaptop"), "{name}");
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{name}: line over 80 columns: {line:?}"
            );
        }
        let json = once_json(&name);
        assert_eq!(json["schema_version"], 1);
        assert!(json["diagnostics"].is_array());
        if let (Some(total), Some(b)) = (
            json["memory"]["total_bytes"].as_i64(),
            json["memory"]["breakdown"].as_object(),
        ) {
            let sum: i64 = b.values().filter_map(|v| v.as_i64()).sum();
            assert_eq!(sum, total, "{name}: breakdown sums to MemTotal");
        }
    }
}

#[test]
fn contract_keys_are_present() {
    let j = once_json("linux-6.18-loaded");
    for key in [
        "memory.total_bytes",
        "memory.available_bytes",
        "memory.free_cmd_used_bytes",
        "memory.hidden_in_used_bytes",
        "memory.breakdown.apps",
        "memory.breakdown.swap_cache",
        "memory.breakdown.page_cache",
        "memory.breakdown.shmem",
        "memory.breakdown.kernel",
        "memory.breakdown.hugetlb",
        "memory.breakdown.zswap_pool",
        "memory.breakdown.zram_pool",
        "memory.breakdown.free",
        "memory.breakdown.unaccounted",
        "zswap.available",
        "zswap.enabled",
        "zswap.compressor",
        "zswap.boot_compressor",
        "zswap.max_pool_percent",
        "zswap.accept_threshold_percent",
        "zswap.shrinker_enabled",
        "zswap.pool_bytes",
        "zswap.stored_bytes",
        "zswap.compression_ratio",
        "zswap.pool_limit_bytes",
        "zswap.debugfs",
        "zswap.unavailable",
        "swap.total_bytes",
        "swap.used_bytes",
        "swap.in_zswap_bytes",
        "swap.devices.0.path",
        "swap.devices.0.type",
        "swap.devices.0.size_bytes",
        "swap.devices.0.used_bytes",
        "swap.devices.0.priority",
        "zram.0.device",
        "zram.0.algorithm",
        "zram.0.disksize_bytes",
        "zram.0.orig_data_bytes",
        "zram.0.compr_data_bytes",
        "zram.0.mem_used_bytes",
        "zram.0.compression_ratio",
        "diagnostics",
    ] {
        assert!(common::json_path(&j, key).is_some(), "missing key {key}");
    }
    assert_eq!(j["memory"]["breakdown"].as_object().unwrap().len(), 10);
}

#[test]
fn without_debugfs_values_are_null_with_a_reason() {
    // The loaded tree minus its debugfs: the pool comes from meminfo, debugfs-only values are null.
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), tmp.path());
    std::fs::remove_dir_all(tmp.path().join("sys/kernel/debug/zswap")).unwrap();
    let out = zswaptop()
        .args(["--json", "--root"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["zswap"]["pool_bytes"], 522_948_608u64);
    assert_eq!(j["zswap"]["pool_source"], "meminfo");
    assert!(j["zswap"]["debugfs"].is_null());
    assert!(j["zswap"]["incompressible_bytes"].is_null());
    assert!(j["zswap"]["compressor_ratio"].is_null());
    let reasons = j["zswap"]["unavailable"].to_string();
    assert!(reasons.contains("debugfs is not mounted"), "{reasons}");
    assert!(
        reasons.contains("mount -t debugfs none /sys/kernel/debug"),
        "{reasons}"
    );
}

#[test]
fn live_as_unprivileged_user() {
    if zswaptop::sys::euid() != 0 {
        eprintln!("SKIPPED: live_as_unprivileged_user needs root to switch to uid 65534");
        return;
    }
    // Copy the binary where uid 65534 can execute it.
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("zswaptop");
    std::fs::copy(assert_cmd::cargo::cargo_bin("zswaptop"), &bin).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    use std::os::unix::process::CommandExt;
    // Another test's fork can hold the copy's write descriptor until its exec (ETXTBSY): retry.
    let run = || {
        Command::new(&bin)
            .args(["--once", "--json"])
            .uid(65534)
            .gid(65534)
            .current_dir("/")
            .output()
    };
    let mut out = run();
    for _ in 0..50 {
        match &out {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                out = run();
            }
            _ => break,
        }
    }
    let out = out.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["host"]["privileged"], false);
    if j["zswap"]["available"] != true {
        eprintln!("SKIPPED: no zswap in this kernel");
        return;
    }
    assert!(
        j["zswap"]["debugfs"].is_null(),
        "uid 65534 cannot read debugfs"
    );
    // The pool still comes from meminfo (5.19+), and debugfs-only values are null, not 0.
    assert_eq!(j["zswap"]["pool_source"], "meminfo");
    assert!(j["zswap"]["pool_bytes"].is_u64());
    assert!(j["zswap"]["incompressible_bytes"].is_null());
    let unavailable = j["zswap"]["unavailable"].to_string();
    assert!(
        unavailable.contains("needs root")
            || unavailable.contains("not mounted")
            || unavailable.contains("not been enabled"),
        "{unavailable}"
    );
}

#[test]
fn bad_arguments_fail_clearly() {
    zswaptop()
        .args(["--once", "-i", "0.01"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("interval '0.01'"));
    zswaptop()
        .args(["--once", "--root", "/nonexistent/tree"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "root '/nonexistent/tree' is not a directory",
        ));
    zswaptop().arg("--bogus").assert().code(2);
}

#[test]
fn closed_pipe_exits_quietly() {
    let once = ["--once", "--root", "tests/fixtures/linux-6.18-loaded"];
    for args in [&once[..], &["man"], &["completions", "bash"]] {
        let mut child = zswaptop()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end at once, as `| head -0` would.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: exit {:?}", out.status);
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn no_color_and_colour() {
    // Not a terminal: no escapes even without NO_COLOR (checked in text_snapshots).
    // The JSON never carries escapes.
    let out = zswaptop()
        .env("NO_COLOR", "1")
        .args(["--json", "--root", "tests/fixtures/linux-6.18-idle"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\x1b'));
}

#[test]
fn interval_once_fills_rates() {
    let j = once_json_args(&[
        "--json",
        "-i",
        "0.1",
        "--root",
        "tests/fixtures/linux-6.18-loaded",
    ]);
    // Same tree read twice: counters unchanged, so rates are exactly 0 (not null).
    assert_eq!(j["rates"]["zswpout_bytes_per_sec"], 0.0);
    let j = once_json("linux-6.18-loaded");
    assert!(j["rates"].is_null(), "one sample has no rates");
}

fn once_json_args(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run_ok(args)).unwrap()
}

#[test]
fn unreadable_zram_leaves_its_cost_unknown() {
    // The loaded tree with zram0's mm_stat broken: zram's RAM is unknown, so are the figures
    // that subtract it — never computed as if it were 0.
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), tmp.path());
    std::fs::write(tmp.path().join("sys/block/zram0/mm_stat"), "1 2\n").unwrap();
    let root = tmp.path().to_str().unwrap();
    let j: serde_json::Value =
        serde_json::from_slice(&run_ok(&["--json", "--root", root])).unwrap();
    assert!(j["memory"]["breakdown"]["zram_pool"].is_null());
    assert!(j["memory"]["hidden_in_used_bytes"].is_null());
    assert!(j["capacity"]["effective_now_bytes"].is_null());
    assert!(j["capacity"]["effective_at_pool_limit_bytes"].is_null());
    // What doesn't depend on zram stays known.
    assert!(j["capacity"]["zswap_resident_max_bytes"].is_u64());
}
