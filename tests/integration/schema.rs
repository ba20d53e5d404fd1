//! Every JSON zswaptop prints validates against the schema it ships, and the shipped schemas are
//! the ones generated from the types (src/schema.rs): `--once --json` on every fixture tree and
//! live, with `--top`, `--cgroups` and rates; each line of `--watch --json`; `--once --json
//! --from` and each line of `export --format jsonl` of the demo recording (tests/advise.rs
//! validates each `advise --json` it runs against the advisor's schema). The schemas are closed,
//! so a key the schema lacks fails as surely as a value it refuses.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;
use zswaptop::schema;

fn shipped(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub(crate) fn validator_of(file: &str) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(&shipped(file))
        .unwrap()
}

fn validator() -> jsonschema::Validator {
    validator_of(schema::SNAPSHOT_FILE)
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

/// The files in docs/ are what the types generate; `UPDATE_SCHEMA=1` writes them again.
#[test]
fn the_shipped_schemas_are_the_generated_ones() {
    let update = std::env::var_os("UPDATE_SCHEMA").is_some_and(|v| v == "1");
    for (file, generated) in [
        (schema::SNAPSHOT_FILE, schema::snapshot()),
        (schema::ADVISE_FILE, schema::advise()),
        (schema::FLEET_FILE, schema::fleet()),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = schema::text(&generated);
        if update {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{file} is not the schema generated from the types: run \
             `UPDATE_SCHEMA=1 cargo test --test schema`, check the difference (git diff {file}) \
             and commit it"
        );
    }
}

/// Every object schema in `v`, with where it is.
fn objects<'a>(v: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(o) => {
            if o.contains_key("properties") {
                out.push((at.clone(), v));
            }
            for (k, sub) in o {
                objects(sub, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, sub) in a.iter().enumerate() {
                objects(sub, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Each object lists its keys and refuses others; the only objects left open are the maps
/// (whose keys are kernel names) and the conditions on the snapshot as a whole.
#[test]
fn every_object_in_the_schemas_is_closed() {
    for file in [
        schema::SNAPSHOT_FILE,
        schema::ADVISE_FILE,
        schema::FLEET_FILE,
    ] {
        let s = shipped(file);
        let mut found = Vec::new();
        objects(&s, String::new(), &mut found);
        assert!(found.len() >= 5, "{file}: {}", found.len());
        for (at, o) in found {
            if ["/if", "/then", "/else"].contains(&at.as_str()) {
                continue;
            }
            assert_eq!(o["additionalProperties"], false, "{file}{at}");
        }
    }
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

/// A recording read back: every line of `export --format jsonl`, and `--once --json --from`
/// at its first, a middle and its last moment, each with the sample it is of (`recorded`).
#[test]
fn recorded_snapshots_validate() {
    let v = validator();
    let out = run(&["export", "--from", "assets/demo.zsr", "--format", "jsonl"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() > 100, "{}", lines.len());
    for (i, line) in lines.iter().enumerate() {
        assert_valid(&v, &format!("export line {i}"), line);
        let json: Value = serde_json::from_str(line).unwrap();
        assert_eq!(json["recorded"]["position"], i, "line {i}");
        // Rates from the second sample on.
        assert_eq!(json["rates"].is_null(), i == 0, "line {i}");
    }
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    let start = first["recorded"]["time"].as_str().unwrap().to_string();
    for at in [start.as_str(), "-1m", "-0s"] {
        let args = ["--once", "--json", "--from", "assets/demo.zsr", "--at", at];
        let text = run(&args);
        assert_valid(&v, &format!("{args:?}"), &text);
        let json: Value = serde_json::from_str(&text).unwrap();
        assert!(json["recorded"]["unix_ms"].is_u64(), "{args:?}");
    }
}

/// The schema holds the rules, so a snapshot that breaks one fails.
#[test]
fn the_schema_refuses_what_breaks_the_contract() {
    let v = validator();
    let root = common::fixture_dir("linux-6.18-loaded");
    let good: Value = serde_json::from_str(&run(&[
        "--json",
        "--root",
        root.to_str().unwrap(),
        "--top",
        "3",
        "--cgroups",
        "-i",
        "0.1",
    ]))
    .unwrap();
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
    // An interval without the rates it would cover, or rates without their interval.
    assert!(!broken(&|j| j["rates"] = Value::Null).is_empty());
    assert!(!broken(&|j| j["interval_seconds"] = Value::Null).is_empty());
    // A size that is negative, or given as text.
    assert!(!broken(&|j| j["memory"]["total_bytes"] = (-1).into()).is_empty());
    assert!(!broken(&|j| j["swap"]["used_bytes"] = "1G".into()).is_empty());
    assert!(!broken(&|j| j["schema_version"] = 1.into()).is_empty());
    // A word outside its list, a ratio or a rate below 0, a percentage past 100.
    assert!(!broken(&|j| j["diagnostics"][0]["severity"] = "fatal".into()).is_empty());
    assert!(!broken(&|j| j["sources"][0]["status"] = "fine".into()).is_empty());
    assert!(!broken(&|j| j["zswap"]["pool_source"] = "sysfs".into()).is_empty());
    assert!(!broken(&|j| j["zswap"]["compression_ratio"] = (-1.0).into()).is_empty());
    assert!(!broken(&|j| j["rates"]["zswpout_bytes_per_sec"] = (-1.0).into()).is_empty());
    assert!(!broken(&|j| j["psi"]["some_avg10"] = 100.5.into()).is_empty());
    assert!(!broken(&|j| j["diagnostics"][0]["id"] = "Pool Full".into()).is_empty());
    // A required key gone, where `null` is how the value says it is unknown.
    assert!(
        !broken(&|j| drop(j["zswap"].as_object_mut().unwrap().remove("pool_bytes"))).is_empty()
    );
    // The timestamp is the sample's own wall-clock time, in UTC.
    let ts = good["timestamp"].as_str().unwrap();
    let t: jiff::Timestamp = ts.parse().unwrap();
    let age = jiff::Timestamp::now().duration_since(t);
    assert!(age.as_secs() < 60, "{ts}");
    assert!(ts.ends_with('Z') && ts.contains('.'), "{ts}");
}

/// The schema is closed: a key it does not list fails wherever it is, at the top, in a section,
/// in a list's entry, in a nullable section and in a recording's `recorded`.
#[test]
fn a_key_the_schema_does_not_list_fails() {
    let v = validator();
    let root = common::fixture_dir("depth-cgroup-v2");
    let good: Value = serde_json::from_str(&run(&[
        "--json",
        "--root",
        root.to_str().unwrap(),
        "--top",
        "3",
        "--cgroups",
        "-i",
        "0.1",
    ]))
    .unwrap();
    assert!(errors(&v, &good).is_empty());
    let recorded: Value = serde_json::from_str(&run(&[
        "--once",
        "--json",
        "--from",
        "assets/demo.zsr",
        "--at",
        "-0s",
    ]))
    .unwrap();
    assert!(errors(&v, &recorded).is_empty());
    let places: [(&Value, &str); 11] = [
        (&good, ""),
        (&good, "/memory"),
        (&good, "/memory/breakdown"),
        (&good, "/zswap"),
        (&good, "/swap/devices/0"),
        (&good, "/rates"),
        (&good, "/psi"),
        (&good, "/processes/top/0"),
        (&good, "/cgroups/list/0"),
        (&good, "/diagnostics/0"),
        (&recorded, "/recorded"),
    ];
    for (doc, at) in places {
        let mut j = doc.clone();
        let o = j.pointer_mut(at).and_then(Value::as_object_mut);
        let o = o.unwrap_or_else(|| panic!("no object at {at:?}"));
        o.insert("surprise".into(), 1.into());
        let errs = errors(&v, &j);
        assert!(
            errs.iter().any(|e| e.contains("surprise")),
            "{at}/surprise passed: {errs:?}"
        );
    }
}

/// Every key of the schemas is described in docs/json-schema.md, which keeps the prose.
#[test]
fn the_prose_names_every_key() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json-schema.md"))
            .unwrap();
    let mut keys = BTreeSet::new();
    for file in [
        schema::SNAPSHOT_FILE,
        schema::ADVISE_FILE,
        schema::FLEET_FILE,
    ] {
        let s = shipped(file);
        let mut found = Vec::new();
        objects(&s, String::new(), &mut found);
        for (_, o) in found {
            keys.extend(o["properties"].as_object().unwrap().keys().cloned());
        }
    }
    assert!(keys.len() > 100, "{}", keys.len());
    let named = |k: &str| {
        doc.match_indices(k).any(|(i, _)| {
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            !word(doc[..i].chars().next_back()) && !word(doc[i + k.len()..].chars().next())
        })
    };
    let missing: Vec<&String> = keys.iter().filter(|k| !named(k)).collect();
    assert!(
        missing.is_empty(),
        "docs/json-schema.md does not name: {missing:?}"
    );
}
