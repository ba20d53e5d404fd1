//! Every JSON zswaptop prints validates against the schema it ships (docs/zswaptop.schema.json):
//! `--once --json` on every fixture tree and live, with `--top`, `--cgroups` and rates, and each
//! line of `--watch --json`.

use crate::common;

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

fn validator() -> jsonschema::Validator {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/zswaptop.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn run(args: &[&str]) -> String {
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The schema's complaints about `json`, one a line.
fn errors(v: &jsonschema::Validator, json: &Value) -> Vec<String> {
    v.iter_errors(json)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn assert_valid(v: &jsonschema::Validator, what: &str, text: &str) {
    let json: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let errs = errors(v, &json);
    assert!(errs.is_empty(), "{what}:\n{}", errs.join("\n"));
}

fn fixture_roots() -> Vec<String> {
    let mut roots: Vec<String> = std::fs::read_dir(common::fixture_dir(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    roots.sort();
    roots
}

#[test]
fn once_json_of_every_tree_and_live_validates() {
    let v = validator();
    let mut trees: Vec<Vec<&str>> = Vec::new();
    let roots = fixture_roots();
    for root in &roots {
        trees.push(vec!["--root", root]);
    }
    trees.push(Vec::new()); // the live system
    for tree in &trees {
        for extra in [
            &[][..],
            &["--top", "5"],
            &["--cgroups"],
            &["-i", "0.1", "--top", "5", "--cgroups"],
        ] {
            let mut args = vec!["--once", "--json"];
            args.extend_from_slice(tree);
            args.extend_from_slice(extra);
            assert_valid(&v, &format!("{args:?}"), &run(&args));
        }
    }
    assert!(roots.len() >= 20);
}

#[test]
fn watch_json_lines_validate() {
    let v = validator();
    let fixture = common::fixture_dir("depth-zram-writeback");
    for tree in [vec!["--root", fixture.to_str().unwrap()], Vec::new()] {
        let mut args = vec!["--watch", "--json", "-i", "0.1", "--count", "3"];
        args.extend_from_slice(&tree);
        let out = run(&args);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        for (i, line) in lines.iter().enumerate() {
            assert_valid(&v, &format!("{args:?} line {i}"), line);
            let json: Value = serde_json::from_str(line).unwrap();
            // The first line has no rates; the later ones say the interval they cover.
            assert_eq!(json["rates"].is_null(), i == 0, "line {i}");
            assert_eq!(json["interval_seconds"].is_f64(), i > 0, "line {i}");
        }
    }
}

/// The schema holds the rules, so a snapshot that breaks one fails.
#[test]
fn the_schema_refuses_what_breaks_the_contract() {
    let v = validator();
    let root = common::fixture_dir("linux-6.18-loaded");
    let good: Value =
        serde_json::from_str(&run(&["--json", "--root", root.to_str().unwrap()])).unwrap();
    assert!(errors(&v, &good).is_empty());
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut j = good.clone();
        edit(&mut j);
        errors(&v, &j)
    };
    // A byte field that does not say so.
    assert!(!broken(&|j| j["memory"]["breakdown"]["pcp_free"] = 4096.into()).is_empty());
    // No time, or a time without its sub-second digits or zone.
    assert!(!broken(&|j| drop(j.as_object_mut().unwrap().remove("timestamp"))).is_empty());
    assert!(!broken(&|j| j["timestamp"] = "2026-11-22T21:00:00Z".into()).is_empty());
    assert!(!broken(&|j| j["timestamp"] = "2026-11-22 21:00:00.1".into()).is_empty());
    // An interval without the rates it would cover.
    assert!(!broken(&|j| j["interval_seconds"] = 1.0.into()).is_empty());
    // A size that is negative, or given as text.
    assert!(!broken(&|j| j["memory"]["total_bytes"] = (-1).into()).is_empty());
    assert!(!broken(&|j| j["swap"]["used_bytes"] = "1G".into()).is_empty());
    assert!(!broken(&|j| j["schema_version"] = 1.into()).is_empty());
    // The timestamp is the sample's own wall-clock time, in UTC.
    let ts = good["timestamp"].as_str().unwrap();
    let t: jiff::Timestamp = ts.parse().unwrap();
    let age = jiff::Timestamp::now().duration_since(t);
    assert!(age.as_secs() < 60, "{ts}");
    assert!(ts.ends_with('Z') && ts.contains('.'), "{ts}");
}
