//! The JSON Schemas of what zswaptop prints as JSON, generated from the types that are serialised
//! (schemars, `#[derive(JsonSchema)]` beside each `Serialize`): a field's type, whether it may be
//! `null` or left out, its description (the doc comment) and its bounds are declared once, on the
//! field. The schemas describe what is *written* (serde's serialising side: `into` types,
//! `skip_serializing_if` fields not required) and are closed: every object lists its keys and
//! refuses any other (`additionalProperties: false`), so a key added to the output without the
//! schema, or a schema that drifts from the output, fails the tests that validate every output
//! against the shipped files (tests/integration/schema.rs). Those files are these schemas as written by
//! [`text`]; `UPDATE_SCHEMA=1 cargo test --test schema` writes them again.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::generate::SchemaSettings;
use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::advise::Document;
use crate::fleet::model::Document as FleetDocument;
use crate::model::Snapshot;
use crate::sources::zswap::DebugfsMap;

/// The snapshot's schema, shipped at this path (from the repository's root).
pub const SNAPSHOT_FILE: &str = "docs/zswaptop.schema.json";
/// The advisor's schema, shipped at this path.
pub const ADVISE_FILE: &str = "docs/zswaptop-advise.schema.json";

/// The fleet's schema (`zswaptop fleet --once --json`), shipped at this path.
pub const FLEET_FILE: &str = "docs/zswaptop-fleet.schema.json";

/// RFC 3339 in UTC with sub-second digits, as [`crate::model::timestamp`] writes it.
pub const TIMESTAMP_PATTERN: &str =
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+Z$";

/// The schema of one snapshot: `--once --json`, each line of `--watch --json`, `--once --json
/// --from` and each line of `export --format jsonl` (those two with `recorded`).
pub fn snapshot() -> Schema {
    let mut schema = generator().into_root_schema_for::<Snapshot>();
    schema.insert("title".into(), "zswaptop snapshot".into());
    schema.insert(
        "description".into(),
        "One snapshot as `zswaptop --once --json` prints it, and each line of `zswaptop --watch \
         --json` and `zswaptop export --format jsonl` (docs/json-schema.md). Sizes are integers \
         of bytes in keys ending in _bytes; a value that could not be read is null, never 0."
            .into(),
    );
    // A snapshot read back from a recording says which sample it is.
    let mut recorded = json_schema!({
        "type": "object",
        "description": "Only in `--once --json --from` and `export --format jsonl`: the \
                        recorded sample this snapshot is of.",
        "properties": {
            "position": {
                "type": "integer",
                "minimum": 0,
                "description": "Its index in the recording, from 0."
            },
            "unix_ms": {
                "type": "integer",
                "minimum": 0,
                "description": "When it was recorded: milliseconds since the Unix epoch."
            },
            "time": {
                "type": ["string", "null"],
                "format": "date-time",
                "pattern": TIMESTAMP_PATTERN,
                "description": "The same time as RFC 3339 in UTC; null when out of range."
            }
        },
        "required": ["position", "unix_ms", "time"]
    });
    Closed.transform(&mut recorded);
    if let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        props.insert("recorded".into(), recorded.into());
    }
    // One sample has no rates and no interval; two have both.
    schema.insert(
        "if".into(),
        serde_json::json!({ "properties": { "rates": { "type": "null" } } }),
    );
    schema.insert(
        "then".into(),
        serde_json::json!({ "properties": { "interval_seconds": { "type": "null" } } }),
    );
    schema.insert(
        "else".into(),
        serde_json::json!({ "properties": { "interval_seconds": { "type": "number" } } }),
    );
    schema
}

/// The schema of `zswaptop advise --json`.
pub fn advise() -> Schema {
    let mut schema = generator().into_root_schema_for::<Document>();
    schema.insert("title".into(), "zswaptop advise".into());
    schema.insert(
        "description".into(),
        "What `zswaptop advise --json` prints: the compressors zswap and zram may run, measured \
         on this machine's own pages (docs/json-schema.md, docs/advisor.md)."
            .into(),
    );
    schema
}

/// The schema of `zswaptop fleet --once --json`.
pub fn fleet() -> Schema {
    let mut schema = generator().into_root_schema_for::<FleetDocument>();
    schema.insert("title".into(), "zswaptop fleet".into());
    schema.insert(
        "description".into(),
        "What `zswaptop fleet --once --json` prints: every host a Prometheus-compatible query \
         API holds zswaptop's series for, worst first, with a summary. A figure the host does \
         not give is null, and its key in `unknown` says why."
            .into(),
    );
    schema
}

/// A schema as the shipped file holds it: pretty JSON, keys sorted, a newline at the end.
pub fn text(schema: &Schema) -> String {
    let mut s = serde_json::to_string_pretty(schema).unwrap_or_default();
    s.push('\n');
    s
}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(Closed)
        .with_transform(Prose)
        .into_generator()
}

/// A description for the schema's readers: one line per paragraph (the doc comments it comes
/// from are wrapped at 100 columns for the source), rustdoc links as plain code (`` [`x`] `` as
/// `` `x` ``), and Rust's `None` as what JSON writes for it, `null`.
#[derive(Debug, Clone, Copy)]
struct Prose;

impl Transform for Prose {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(serde_json::Value::String(d)) = schema.get_mut("description") {
            *d = d
                .split("\n\n")
                .map(|p| p.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join("\n\n")
                .replace("[`", "`")
                .replace("`]", "`")
                .replace("`None`", "null");
        }
        transform_subschemas(self, schema);
    }
}

/// Every object that lists its properties refuses any other (`additionalProperties: false`);
/// maps, which give `additionalProperties` a schema, and the `if`/`then`/`else` conditions,
/// which are not objects of their own, are left as they are.
#[derive(Debug, Clone, Copy)]
pub struct Closed;

impl Transform for Closed {
    fn transform(&mut self, schema: &mut Schema) {
        let object = match schema.get("type") {
            Some(serde_json::Value::String(t)) => t == "object",
            Some(serde_json::Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            _ => false,
        };
        if object
            && schema.get("properties").is_some()
            && schema.get("additionalProperties").is_none()
        {
            schema.insert("additionalProperties".into(), false.into());
        }
        transform_subschemas(self, schema);
    }
}

/// Written as the map from file name to value it stands for.
impl<T: JsonSchema> JsonSchema for DebugfsMap<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("DebugfsMap_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        <BTreeMap<String, T>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_with_properties_are_closed_and_maps_and_conditions_kept() {
        let mut s = json_schema!({
            "type": "object",
            "properties": {
                "a": { "type": ["object", "null"], "properties": { "b": { "type": "string" } } },
                "m": { "type": "object", "additionalProperties": { "type": "string" } }
            },
            "if": { "properties": { "a": { "type": "null" } } },
            "then": { "properties": { "m": { "type": "null" } } }
        });
        Closed.transform(&mut s);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["additionalProperties"], false);
        assert_eq!(v["properties"]["a"]["additionalProperties"], false);
        assert_eq!(
            v["properties"]["m"]["additionalProperties"],
            serde_json::json!({ "type": "string" })
        );
        assert!(v["if"].get("additionalProperties").is_none());
        assert!(v["then"].get("additionalProperties").is_none());
    }

    #[test]
    fn descriptions_are_written_for_readers_of_the_json() {
        let mut s = json_schema!({
            "description": "A line wrapped\n  for the source; see [`Reason`].\n\n`None` when unknown.",
            "properties": { "a": { "description": "one\ntwo" } }
        });
        Prose.transform(&mut s);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v["description"],
            "A line wrapped for the source; see `Reason`.\n\nnull when unknown."
        );
        assert_eq!(v["properties"]["a"]["description"], "one two");
    }
}
