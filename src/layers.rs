//! The direction of the module dependencies, checked: every module of the crate has its place
//! in one full order ([`LAYERS`], lowest first), and no module imports one above it. Data flows
//! from the sources through the model, the rules and the pipeline to the outputs and the front
//! ends, and the command line sits on top of them all (the crate root, `lib.rs` with the
//! dispatcher, and `main.rs` above it).
//!
//! Every file is read as Rust tokens (proc-macro2's tokenizer, so comments, doc text and string
//! contents are never taken for code), and every path into the crate counts as an import:
//! `crate::…` (with its `{…}` groups), `super::…`, `self::…` and the paths through a child
//! module. Unit tests (`#[cfg(test)]` items) are left out: a test may build its input with any
//! module (the console for a note that it skipped, the command line for the dashboard's
//! settings); what ships is what is checked.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// Every module, lowest first: a module may import those before it, never one after it. An
/// entry names a module by its path; it holds that module's submodules too, except those that
/// have an entry of their own. The dashboard is three layers: its state and how keys and
/// samples change it (`app`), the drawing of that state (`ui`), and the terminal front end that
/// feeds the one and runs the other (`tui`: `tui::tty` … `tui::run`).
pub const LAYERS: &[&str] = &[
    "sys",
    "sanitize",
    "error",
    "root",
    "sources",
    "model",
    "console",
    "display",
    "diagnostics",
    "pipeline",
    "history",
    "present",
    "report",
    "record",
    "advise",
    "fleet",
    "schema",
    "serve",
    "watch",
    "app",
    "ui",
    "tui::tty",
    "tui::screen",
    "tui::terminal",
    "tui::signals",
    "tui::run",
    "tui",
    "fleet::view",
    "config",
    "cli",
    "layers",
];

type ModPath = Vec<String>;

fn segments(entry: &str) -> ModPath {
    entry.split("::").map(str::to_string).collect()
}

/// The layer holding the module or item at `path` (from the crate root): the longest entry
/// that begins it.
fn layer_of(path: &[String]) -> Option<usize> {
    LAYERS
        .iter()
        .enumerate()
        .filter(|(_, e)| path.starts_with(&segments(e)))
        .max_by_key(|(_, e)| e.split("::").count())
        .map(|(i, _)| i)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every source file of the modules (the crate root and the binary left out: they are above
/// every module), with its module path.
fn module_files() -> Vec<(PathBuf, ModPath)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = src();
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| !["lib.rs", "main.rs"].map(|r| src.join(r)).contains(f))
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().with_extension("");
            let mut path: ModPath = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if path.last().is_some_and(|l| l == "mod") {
                path.pop();
            }
            (f, path)
        })
        .collect()
}

/// The child modules of `module` that are files (`src/a/b.rs`, `src/a/b/mod.rs`).
fn file_children(module: &[String]) -> BTreeSet<String> {
    let dir = module.iter().fold(src(), |d, m| d.join(m));
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            let name = p.file_stem()?.to_string_lossy().into_owned();
            let module = if p.is_dir() {
                p.join("mod.rs").is_file()
            } else {
                p.extension().is_some_and(|x| x == "rs") && name != "mod"
            };
            module.then_some(name)
        })
        .collect()
}

/// An import found: the line, and the path it names from the crate root.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Import {
    line: usize,
    path: ModPath,
}

/// What a walk over one file needs to resolve a path.
struct Walk<'a> {
    /// The child modules of a module that are files.
    children: &'a dyn Fn(&[String]) -> BTreeSet<String>,
    known: HashMap<ModPath, BTreeSet<String>>,
    out: Vec<Import>,
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// `::` at `i`.
fn is_path_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
        && is_punct(tokens.get(i + 1), ':')
}

fn ident(t: Option<&TokenTree>) -> Option<String> {
    match t {
        Some(TokenTree::Ident(i)) => Some(i.to_string()),
        _ => None,
    }
}

/// `#[cfg(test)]`'s bracket group.
fn is_cfg_test(group: &TokenTree) -> bool {
    let TokenTree::Group(g) = group else {
        return false;
    };
    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
    g.delimiter() == Delimiter::Bracket
        && matches!(&inner[..], [TokenTree::Ident(cfg), TokenTree::Group(args)]
            if cfg == "cfg" && args.stream().to_string() == "test")
}

impl Walk<'_> {
    /// The imports in `tokens`, code of the module `module`.
    fn tokens(&mut self, tokens: &[TokenTree], module: &[String]) {
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            // `#![cfg(test)]`: the rest is test code; `#[cfg(test)] ITEM`: the item is.
            if is_punct(Some(t), '#') {
                if is_punct(tokens.get(i + 1), '!') && tokens.get(i + 2).is_some_and(is_cfg_test) {
                    return;
                }
                if tokens.get(i + 1).is_some_and(is_cfg_test) {
                    i += 2;
                    while i < tokens.len() {
                        let end = is_punct(tokens.get(i), ';')
                            || matches!(&tokens[i], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
                        i += 1;
                        if end {
                            break;
                        }
                    }
                    continue;
                }
            }
            // An inline module: its code is in that module.
            if ident(Some(t)).as_deref() == Some("mod")
                && let (Some(name), Some(TokenTree::Group(body))) =
                    (ident(tokens.get(i + 1)), tokens.get(i + 2))
                && body.delimiter() == Delimiter::Brace
            {
                let mut inner = module.to_vec();
                inner.push(name);
                self.stream(body.stream(), &inner);
                i += 3;
                continue;
            }
            if let TokenTree::Group(g) = t {
                self.stream(g.stream(), module);
                i += 1;
                continue;
            }
            let after_sep = i >= 2 && is_path_sep(tokens, i - 2);
            if let Some(first) = ident(Some(t))
                && !after_sep
                && is_path_sep(tokens, i + 1)
                && let Some(base) = self.base(&first, tokens, &mut i, module)
            {
                let line = t.span().start().line;
                self.path(base, tokens, &mut i, line);
                continue;
            }
            i += 1;
        }
    }

    fn stream(&mut self, stream: TokenStream, module: &[String]) {
        let tokens: Vec<TokenTree> = stream.into_iter().collect();
        self.tokens(&tokens, module);
    }

    /// Where a path beginning with `first` (at `*i`, followed by `::`) starts from the crate
    /// root, with `*i` moved to the `::` after its last `super`; `None` for a path outside the
    /// crate (another crate's, a type's associated item).
    fn base(
        &mut self,
        first: &str,
        tokens: &[TokenTree],
        i: &mut usize,
        module: &[String],
    ) -> Option<ModPath> {
        let mut base = match first {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            child
                if self
                    .known
                    .entry(module.to_vec())
                    .or_insert_with(|| (self.children)(module))
                    .contains(child) =>
            {
                let mut m = module.to_vec();
                m.push(child.to_string());
                m
            }
            _ => return None,
        };
        *i += 1;
        while ident(tokens.get(*i + 2)).as_deref() == Some("super") {
            base.pop();
            *i += 3;
        }
        Some(base)
    }

    /// The path whose `::` is at `*i`, from `base` on (with its `{…}` groups); `*i` moves past
    /// it.
    fn path(&mut self, mut base: ModPath, tokens: &[TokenTree], i: &mut usize, line: usize) {
        while is_path_sep(tokens, *i) {
            match tokens.get(*i + 2) {
                Some(TokenTree::Ident(seg)) => {
                    base.push(seg.to_string());
                    *i += 3;
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    *i += 3;
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    for tree in inner.split(|t| is_punct(Some(t), ',')) {
                        match tree.first() {
                            Some(TokenTree::Ident(seg)) if seg == "self" => {
                                self.out.push(Import {
                                    line,
                                    path: base.clone(),
                                });
                            }
                            Some(TokenTree::Ident(seg)) => {
                                let mut sub = base.clone();
                                sub.push(seg.to_string());
                                let mut j = 1;
                                self.path(sub, tree, &mut j, line);
                            }
                            _ => {}
                        }
                    }
                    return;
                }
                _ => {
                    *i += 2;
                    break;
                }
            }
        }
        self.out.push(Import { line, path: base });
    }
}

/// The imports of the code (tests left out) of a file of the module `module`.
fn imports_in(
    text: &str,
    module: &[String],
    children: &dyn Fn(&[String]) -> BTreeSet<String>,
) -> Result<Vec<Import>, String> {
    let stream = TokenStream::from_str(text).map_err(|e| e.to_string())?;
    let mut walk = Walk {
        children,
        known: HashMap::new(),
        out: Vec::new(),
    };
    walk.stream(stream, module);
    Ok(walk.out)
}

/// What breaks the order in the file `name` of the module `module`: an import of a module
/// above its own, or of an item of the crate root.
fn violations(
    name: &str,
    text: &str,
    module: &[String],
    children: &dyn Fn(&[String]) -> BTreeSet<String>,
) -> Vec<String> {
    let Some(own) = layer_of(module) else {
        return vec![format!(
            "{name}: module {} has no place in LAYERS",
            module.join("::")
        )];
    };
    let imports = match imports_in(text, module, children) {
        Ok(i) => i,
        Err(e) => return vec![format!("{name}: not read as Rust tokens: {e}")],
    };
    imports
        .into_iter()
        .filter_map(|Import { line, path }| {
            let shown = format!("crate::{}", path.join("::"));
            match layer_of(&path) {
                Some(l) if l > own => Some(format!(
                    "{name}:{line} ({}) imports {shown} ({}, above it)",
                    LAYERS[own], LAYERS[l]
                )),
                Some(_) => None,
                None if path.is_empty() => None,
                None => Some(format!(
                    "{name}:{line} imports {shown}: the crate root's, above every module"
                )),
            }
        })
        .collect()
}

#[test]
fn every_module_imports_only_those_below_it() {
    let mut bad = Vec::new();
    let mut used = BTreeSet::new();
    for (file, module) in module_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(src()).unwrap().display().to_string();
        bad.extend(violations(
            &format!("src/{name}"),
            &text,
            &module,
            &file_children,
        ));
        used.extend(layer_of(&module));
    }
    for (i, entry) in LAYERS.iter().enumerate() {
        if !used.contains(&i) {
            bad.push(format!("LAYERS names {entry}, which has no file"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The check sees paths in code only (not in comments, doc text or strings, not in unit
/// tests), through `{…}` groups, `super`, `self` and child modules, and it can fail: the model
/// calling the rules, a source reading the dashboard, a module reaching the crate root.
#[test]
fn the_check_finds_imports_in_code_only() {
    let children = |m: &[String]| -> BTreeSet<String> {
        match m.join("::").as_str() {
            "app" => ["keys", "run"].map(str::to_string).into(),
            _ => BTreeSet::new(),
        }
    };
    let m = |s: &str| segments(s);
    let text = r#"
        //! see crate::report
        use crate::{model::Snapshot, ui::{self, draw}};
        use super::super::cli::Cli;
        /// crate::diagnostics in a doc comment
        fn f() { let _ = "crate::app"; /* crate::serve */ keys::Action::Quit; run::go(); }
        #[cfg(test)]
        mod tests { use crate::cli::Cli; }
        #[cfg(test)]
        use crate::watch;
        mod inner { use super::keys; }
        fn g() { crate::diagnostics::evaluate(&snap); std::time::Duration::ZERO; }
    "#;
    let paths: Vec<String> = imports_in(text, &m("app::run"), &children)
        .unwrap()
        .into_iter()
        .map(|i| i.path.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "model::Snapshot",
            "ui",
            "ui::draw",
            "cli::Cli",
            "app::run::keys",
            "diagnostics::evaluate",
        ]
    );
    let paths: Vec<String> = imports_in(text, &m("app"), &children)
        .unwrap()
        .into_iter()
        .map(|i| i.path.join("::"))
        .collect();
    assert!(paths.contains(&"app::keys::Action::Quit".to_string()));
    assert!(paths.contains(&"app::run::go".to_string()));
    assert!(paths.contains(&"app::keys".to_string()), "{paths:?}");

    let none = |_: &[String]| BTreeSet::new();
    let bad = violations(
        "src/model/x.rs",
        "fn f() { crate::diagnostics::evaluate(&s); }",
        &m("model::x"),
        &none,
    );
    assert_eq!(
        bad,
        ["src/model/x.rs:1 (model) imports crate::diagnostics::evaluate (diagnostics, above it)"]
    );
    assert_eq!(
        violations("s.rs", "use crate::app::App;", &m("sources"), &none).len(),
        1
    );
    assert_eq!(
        violations("s.rs", "use crate::run;", &m("serve"), &none),
        ["s.rs:1 imports crate::run: the crate root's, above every module"]
    );
    // The terminal loop is above the drawing, the dashboard's state below it.
    assert!(violations("r.rs", "use crate::ui;", &m("tui::run"), &none).is_empty());
    assert_eq!(
        violations("a.rs", "use crate::ui;", &m("app"), &none).len(),
        1
    );
    assert_eq!(
        violations("x.rs", "", &m("nowhere"), &none),
        ["x.rs: module nowhere has no place in LAYERS"]
    );
}

/// The README's Design section lists the same order (the test-only `layers` left out).
#[test]
fn the_readme_lists_the_order() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let order = LAYERS
        .iter()
        .filter(|l| **l != "layers")
        .copied()
        .collect::<Vec<_>>()
        .join(" → ");
    assert!(
        flat.contains(&order),
        "README.md's Design section lists another order than LAYERS: {order}"
    );
}
