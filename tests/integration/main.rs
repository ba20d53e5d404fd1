//! The integration tests: one test binary, one module per area. Cargo links the crate into each
//! test binary it builds, so a file of its own under tests/ costs a link of its own; here every
//! area is a module of this one binary (`cargo test --test integration tui::` runs one area).
//! Only the end-to-end test (tests/e2e/) is apart: it reconfigures the kernel and runs its phases
//! in order (Cargo.toml says why).
//!
//! A test that lacks what it needs of the machine (root, tmux, setsid, python3, Prometheus…)
//! says `SKIPPED` with the reason and counts as passed: `common/skip.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod advise;
mod bpf;
mod churn;
mod commands;
mod config;
mod containment;
mod depth;
mod diagnostics;
mod dispatch;
mod environment;
mod fleet;
mod fleet_view;
mod forecast_fills;
mod formulas;
mod fuzz;
mod fuzz_recordings;
mod grafana;
mod hostile;
mod metrics;
mod once;
mod pipes;
mod present;
mod props;
mod pty;
mod record;
mod registry;
mod schema;
mod stop;
mod store;
mod tui;
mod tui_latency;
mod tui_tmux;
mod unknowns;
mod watch;

/// Every test file is a module of this binary: a `.rs` file directly under tests/ would be a
/// test binary of its own (a crate linked once more), and a file here that `main.rs` does not
/// name would never be compiled, its tests never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let rust_files = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".rs").map(str::to_string))
            .collect();
        names.sort();
        names
    };
    let apart = rust_files(&tests);
    assert!(
        apart.is_empty(),
        "tests/{}.rs is a test binary of its own: move it to tests/integration/ and name it \
         with `mod` in tests/integration/main.rs",
        apart.join(".rs, tests/")
    );
    let declared: Vec<String> = include_str!("main.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    let missing: Vec<String> = rust_files(&tests.join("integration"))
        .into_iter()
        .filter(|n| n != "main" && !declared.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "tests/integration/{}.rs: not a module of tests/integration/main.rs, never compiled",
        missing.join(".rs, tests/integration/")
    );
}

/// The binary has no unit-test harness (`test = false` in Cargo.toml): a test written in
/// src/main.rs would never run.
#[test]
fn the_binary_holds_no_tests() {
    let main = include_str!("../../src/main.rs");
    assert!(
        !main.contains("#[test]") && !main.contains("#[cfg(test)]"),
        "src/main.rs holds a test, which never runs: Cargo.toml's [[bin]] says `test = false` \
         (move the test to the library, or drop that line)"
    );
}
