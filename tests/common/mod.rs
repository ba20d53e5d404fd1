//! Helpers shared by the integration tests.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use zswaptop::model::Snapshot;
use zswaptop::root::Root;
use zswaptop::sources;

pub fn fixture_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn fixture(name: &str) -> Root {
    Root::at(fixture_dir(name))
}

/// One snapshot of a fixture tree, with the uid-dependent fact pinned.
pub fn snapshot(name: &str) -> Snapshot {
    let mut sample = sources::collect(&fixture(name));
    sample.host.privileged = true;
    Snapshot::derive(&sample, None)
}

/// The `expected` block of a fixture's README.md or EXPECTED.md: `key = value` lines.
pub fn expected(name: &str) -> Option<Vec<(String, String)>> {
    let dir = fixture_dir(name);
    let text = ["EXPECTED.md", "README.md"].iter().find_map(|f| {
        std::fs::read_to_string(dir.join(f))
            .ok()
            .filter(|t| t.contains("```expected"))
    })?;
    let start = text.find("```expected")? + "```expected".len();
    let body = &text[start..];
    let end = body.find("```")?;
    Some(
        body[..end]
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                if l.is_empty() || l.starts_with('#') {
                    return None;
                }
                let (k, v) = l.split_once('=')?;
                Some((k.trim().to_string(), v.trim().to_string()))
            })
            .collect(),
    )
}

/// Look up a dotted path (`memory.breakdown.apps`, `zram.0.orig_data_bytes`) in JSON.
pub fn json_path<'a>(v: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    path.split('.')
        .try_fold(v, |v, key| match key.parse::<usize>() {
            Ok(i) => v.get(i),
            Err(_) => v.get(key),
        })
}
