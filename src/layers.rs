//! The direction of the module dependencies, checked: data flows sources → model → the rules
//! and the formatting layer → the front ends, and nothing lower imports anything higher.

use std::path::{Path, PathBuf};

/// Lowest first: a module may import the ones before it, never one after it. (`app` and `ui`
/// come last; the run loop wires them together.)
const LAYERS: &[&str] = &[
    "sanitize",
    "root",
    "sources",
    "model",
    "display",
    "diagnostics",
    "history",
    "report",
    "advise",
    "schema",
    "serve",
    "app",
    "ui",
];

/// The modules whose imports are checked (the two front-end layers are not).
const CHECKED: usize = 11;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source files of a top-level module: `src/NAME.rs` or everything under `src/NAME/`.
fn module_files(name: &str) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    if src.join(name).is_dir() {
        rust_files(&src.join(name), &mut out);
    }
    if src.join(format!("{name}.rs")).is_file() {
        out.push(src.join(format!("{name}.rs")));
    }
    out
}

/// Every `crate::x` a file names in code (comments left out).
fn imports(path: &Path) -> Vec<(usize, String)> {
    imports_in(&std::fs::read_to_string(path).unwrap())
}

fn imports_in(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((i + 1, name));
        }
    }
    out
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let mut bad = Vec::new();
    for (i, module) in LAYERS.iter().enumerate().take(CHECKED) {
        let forbidden = &LAYERS[i + 1..];
        let files = module_files(module);
        assert!(!files.is_empty(), "no sources for {module}");
        for f in files {
            for (line, name) in imports(&f) {
                if forbidden.contains(&name.as_str()) {
                    bad.push(format!("{}:{line} imports crate::{name}", f.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The check sees imports in code, in paths as well as `use` lines, and not in comments (so the
/// test above can fail: the model calling `crate::diagnostics::evaluate` would).
#[test]
fn the_check_finds_imports_in_code_only() {
    let text = "use crate::ui::draw; // crate::app\n//! see crate::report\n        snap.diagnostics = \
                crate::diagnostics::evaluate(&snap);\n";
    let found: Vec<String> = imports_in(text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(found, ["ui", "diagnostics"]);
}
