//! Swap-in latency (BPF) where the kernel refuses it: the section says why, in the kernel's
//! words, and nothing else changes.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

use crate::common::skip::skip;

fn once_json(args: &[&str]) -> serde_json::Value {
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .args(["--no-config", "--once", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn version_says_whether_the_programs_are_built_in() {
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg("--version")
        .output()
        .unwrap();
    let v = String::from_utf8_lossy(&out.stdout);
    assert!(v.contains("\nbpf: "), "{v}");
}

#[test]
fn one_sample_has_no_latency_and_says_why() {
    let l = &once_json(&[])["swapin_latency"];
    assert_eq!(l["available"], false, "{l}");
    assert!(l["reason"].as_str().unwrap().contains("-i N"), "{l}");
    assert_eq!(l["tiers"], serde_json::json!([]));
}

/// As root, over an interval: the programs are tried. Where the kernel takes them every tier is
/// there; where it refuses (this project's CI host refuses fentry with EPERM and has no kprobes),
/// the reason is the kernel's refusal, not "needs root".
#[test]
fn as_root_the_reason_is_the_kernels() {
    if !nix::unistd::geteuid().is_root() {
        skip!("needs root (the programs are loaded only as root)");
    }
    let version = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg("--version")
        .output()
        .unwrap();
    if !String::from_utf8_lossy(&version.stdout).contains("bpf: built in") {
        skip!("built without clang: no BPF programs to load");
    }
    // Long enough for the load to end (parsing the kernel's BTF: 0.3 s here) before the second sample.
    let l = &once_json(&["-i", "3"])["swapin_latency"];
    if l["available"] == true {
        let tiers: Vec<&str> = l["tiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["tier"].as_str().unwrap())
            .collect();
        assert_eq!(tiers, ["zswap", "zram", "disk", "swapcache", "zero"], "{l}");
        return;
    }
    let why = l["reason"].as_str().unwrap();
    for not in [
        "needs root",
        "not measured",
        "built without its BPF",
        "loading",
    ] {
        assert!(!why.contains(not), "{why}");
    }
    assert!(why.contains("the kernel"), "{why}");
    // This machine's kernel: fentry refused at load, no kprobe PMU.
    if !std::path::Path::new("/sys/bus/event_source/devices/kprobe").exists() {
        assert!(why.contains("no kprobes"), "{why}");
    }
}

/// `--once --json -i INTERVAL` with a configuration file of `toml`.
fn once_json_with(toml: &str, interval: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("config.toml");
    std::fs::write(&conf, toml).unwrap();
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg("--config")
        .arg(&conf)
        .args(["--once", "--json", "-i", interval])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn switched_off_it_says_so() {
    let v = once_json_with("[bpf]\nenabled = \"off\"\n", "0.2");
    let l = &v["swapin_latency"];
    assert_eq!(l["available"], false);
    assert!(
        l["reason"].as_str().unwrap().contains("switched off"),
        "{l}"
    );
}

/// `[bpf] probes = "kprobes"` skips the fentry set: where the kernel has no kprobes (this
/// project's CI host), the reason names the setting and the missing kprobes, not fentry's
/// refusal; where the fallback loads, it says so in `probes`.
#[test]
fn the_kprobe_fallback_asked_for_says_what_it_found() {
    if !nix::unistd::geteuid().is_root() {
        skip!("needs root (the programs are loaded only as root)");
    }
    let v = once_json_with("[bpf]\nprobes = \"kprobes\"\n", "3");
    let l = &v["swapin_latency"];
    if l["available"] == true {
        assert_eq!(l["probes"], "kprobes", "{l}");
        return;
    }
    let why = l["reason"].as_str().unwrap_or_default();
    if why.contains("built without its BPF") {
        skip!("built without clang: no BPF programs to load");
    }
    assert_eq!(l["probes"], serde_json::Value::Null, "{l}");
    assert!(why.contains("[bpf] probes = \"kprobes\""), "{why}");
    assert!(!why.contains("fentry do_swap_page"), "{why}");
    if !std::path::Path::new("/sys/bus/event_source/devices/kprobe").exists() {
        assert!(why.contains("the kernel has no kprobes"), "{why}");
    }
}
