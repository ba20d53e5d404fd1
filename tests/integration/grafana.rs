//! The Grafana dashboard (`assets/zswaptop-grafana.json`) against Grafana's published dashboard
//! schema and its panels' schemas, pinned in `tests/fixtures/grafana/` (its README says where
//! from, which commit, and the one relaxation and why). Offline: no Grafana runs. Every panel's
//! query is checked against a real Prometheus by `fleet.rs` and `metrics.rs`.

use std::path::Path;

use serde_json::{Value, json};

fn read(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn dashboard() -> Value {
    read("assets/zswaptop-grafana.json")
}

/// The published dashboard schema, with the matcher's options and an override's value taken
/// back to what Grafana's CUE says (`_`: any value; the generator wrote "object").
fn dashboard_schema() -> Value {
    let mut s = read("tests/fixtures/grafana/dashboard.jsonschema.json");
    let defs = &mut s["definitions"];
    assert_eq!(
        defs["MatcherConfig"]["properties"]["options"]["type"],
        "object"
    );
    assert_eq!(
        defs["DynamicConfigValue"]["properties"]["value"]["type"],
        "object"
    );
    defs["MatcherConfig"]["properties"]["options"] = json!({});
    defs["DynamicConfigValue"]["properties"]["value"] = json!({});
    s
}

/// `definition` of the schema in `file` (a panel plugin's `Options` or `FieldConfig`).
fn part_of(file: &str, definition: &str) -> Value {
    let s = read(file);
    json!({"$ref": format!("#/definitions/{definition}"), "definitions": s["definitions"]})
}

/// What `schema` says is wrong with `value`, one a line, each with where it is.
fn complaints(schema: &Value, value: &Value) -> Vec<String> {
    let v = jsonschema::draft7::new(schema).unwrap();
    v.iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_dashboard_is_what_grafanas_schema_allows() {
    let d = dashboard();
    let wrong = complaints(&dashboard_schema(), &d);
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Each panel's options and custom field config against its plugin's published schema: the
/// defaults Grafana fills in when it loads a panel are written out, so that the file is the
/// dashboard as Grafana keeps it.
#[test]
fn every_panel_is_what_its_plugins_schema_allows() {
    let d = dashboard();
    let panels = d["panels"].as_array().unwrap();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (i, p) in panels.iter().enumerate() {
        let kind = p["type"].as_str().unwrap();
        let file = format!("tests/fixtures/grafana/{kind}.jsonschema.json");
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(&file).is_file(),
            "panel {i} is a {kind}: no pinned schema for it ({file})"
        );
        let parts = [
            ("Options", &p["options"]),
            ("FieldConfig", &p["fieldConfig"]["defaults"]["custom"]),
        ];
        for (definition, value) in parts {
            let value = if value.is_null() { &json!({}) } else { value };
            for c in complaints(&part_of(&file, definition), value) {
                wrong.push(format!("panel {i} ({}) {definition} {c}", p["title"]));
            }
            checked += 1;
        }
    }
    assert!(checked >= 2 * 10, "{checked}");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The check would catch a real mistake: a panel option of the wrong type, a field Grafana does
/// not know, a dashboard without its annotations.
#[test]
fn the_schemas_refuse_what_grafana_would() {
    let mut d = dashboard();
    d["panels"][0]["options"]["legend"]["showLegend"] = json!("yes");
    let file = "tests/fixtures/grafana/timeseries.jsonschema.json";
    assert!(!complaints(&part_of(file, "Options"), &d["panels"][0]["options"]).is_empty());
    let mut d = dashboard();
    d["panels"][0]["gridPosition"] = json!({"x": 0});
    assert!(!complaints(&dashboard_schema(), &d).is_empty());
    let mut d = dashboard();
    d.as_object_mut().unwrap().remove("annotations");
    assert!(!complaints(&dashboard_schema(), &d).is_empty());
}
