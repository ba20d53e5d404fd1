//! Fuzzing the whole pipeline in the debug build (overflow checks on): real fixture trees with
//! one to three of their files mutated — bytes flipped, cut short, lines deleted, numbers made
//! huge, negative or NaN, control characters inserted — go through the sources, the model and
//! diagnostics, the text and JSON reports and every dashboard view (a TestBackend). Nothing may
//! panic and no output may hold a raw control character. Bounded: `CASES` cases (under 20 s in a
//! debug build on 2 cores); no failure file is written.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use zswaptop::app::{Action, App, Msg, View};
use zswaptop::report::{json, text};
use zswaptop::root::Root;
use zswaptop::sources::{self, Extras};

const CASES: u32 = 200;

const FIXTURES: &[&str] = &[
    "linux-6.18-loaded",
    "linux-6.18-zram",
    "linux-6.1-debugfs",
    "depth-zram-writeback",
    "depth-multi-swap",
    "depth-cgroup-v2",
    "hostile-names",
];

/// Values no kernel prints, or prints only at the edge.
const NUMBERS: &[&str] = &[
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "9223372036854775808",
    "18014398509481984",
    "4294967296",
    "99999999999999999999999",
    "-1",
    "-5",
    "-9223372036854775808",
    "NaN",
    "inf",
    "-inf",
    "1e400",
    "0",
    "-0.00",
];

/// Files most of the figures come from: half the mutations land on one of these.
const HOT: &[&str] = &[
    "meminfo",
    "vmstat",
    "swaps",
    "pressure/memory",
    "diskstats",
    "mm_stat",
    "io_stat",
    "bd_stat",
    "comp_algorithm",
    "disksize",
    "zswap/",
    "/status",
    "memory.stat",
    "pagesize",
];

#[derive(Debug, Clone)]
enum Mutation {
    FlipByte { at: usize, bit: u8 },
    Truncate { at: usize },
    DeleteLine { line: usize },
    Number { nth: usize, value: &'static str },
    Insert { at: usize, text: &'static str },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipByte { at, bit }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        any::<usize>().prop_map(|line| Mutation::DeleteLine { line }),
        (any::<usize>(), prop::sample::select(NUMBERS))
            .prop_map(|(nth, value)| Mutation::Number { nth, value }),
        (
            any::<usize>(),
            prop::sample::select(&["\x1b]0;x\x07", "\u{9b}2J", "\n", "\0", "\x7f"][..])
        )
            .prop_map(|(at, text)| Mutation::Insert { at, text }),
    ]
}

fn apply(bytes: &[u8], m: &Mutation) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let pos = |at: usize, len: usize| if len == 0 { 0 } else { at % len };
    match *m {
        Mutation::FlipByte { at, bit } => {
            if !b.is_empty() {
                let i = pos(at, b.len());
                b[i] ^= 1 << bit;
            }
        }
        Mutation::Truncate { at } => b.truncate(pos(at, b.len() + 1)),
        Mutation::DeleteLine { line } => {
            let text = String::from_utf8_lossy(&b).into_owned();
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let drop = pos(line, lines.len());
            b = lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != drop)
                .flat_map(|(_, l)| l.bytes())
                .collect();
        }
        Mutation::Number { nth, value } => {
            let text = String::from_utf8_lossy(&b).into_owned();
            let spans: Vec<(usize, usize)> = number_spans(&text);
            if !spans.is_empty() {
                let (s, e) = spans[pos(nth, spans.len())];
                b = format!("{}{value}{}", &text[..s], &text[e..]).into_bytes();
            }
        }
        Mutation::Insert { at, text } => {
            let i = pos(at, b.len() + 1);
            b.splice(i..i, text.bytes());
        }
    }
    b
}

/// Byte ranges of the runs of ASCII digits (with a decimal point) in `text`.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let digit = c.is_ascii_digit() || (c == '.' && start.is_some());
        match (digit, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let ty = e.file_type().unwrap();
        if ty.is_dir() {
            files(&e.path(), out);
        } else if ty.is_file() {
            out.push(e.path());
        }
    }
}

fn raw_control(what: &str, s: &str) -> Result<(), TestCaseError> {
    match s.chars().position(|c| c.is_control() && c != '\n') {
        None => Ok(()),
        Some(i) => Err(TestCaseError::fail(format!(
            "{what}: raw control character at char {i}: {:?}",
            s.chars()
                .skip(i.saturating_sub(20))
                .take(40)
                .collect::<String>()
        ))),
    }
}

/// Every output of one tree: two samples (rates), text, JSON, diagnostics and each view.
fn pipeline(root: &Root) -> Result<(), TestCaseError> {
    let extras = Extras {
        smaps: false,
        top_processes: Some(20),
        cgroups: true,
        settings: true,
    };
    let mut first = sources::collect_with(root, extras);
    first.monotonic_ns = 1_000_000_000;
    let mut second = sources::collect_with(root, extras);
    second.monotonic_ns = 2_000_000_000;
    let snap = zswaptop::pipeline::snapshot(&second, Some(&first));

    let mut out = Vec::new();
    text::write(&snap, &mut out, text::Style { color: false }).unwrap();
    raw_control("text", std::str::from_utf8(&out).unwrap())?;
    out.clear();
    json::write(&snap, &mut out).unwrap();
    let j = String::from_utf8(out).unwrap();
    raw_control("json", &j)?;
    let back: serde_json::Value = serde_json::from_str(&j).unwrap();
    prop_assert!(back.is_object());
    for f in &snap.diagnostics {
        raw_control("diagnostics", &format!("{f:?}"))?;
    }

    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let mut app = App::new(settings, first);
    app.update(Msg::Sampled(Box::new(second)));
    app.update(Msg::Resize(120, 40));
    for view in View::ALL {
        app.update(Msg::Key(Action::Show(view)));
        let mut term = Terminal::new(TestBackend::new(120, 40)).unwrap();
        term.draw(|f| zswaptop::ui::draw(f, &app)).unwrap();
        let buf = term.backend().buffer();
        let screen: String = buf.content().iter().map(|c| c.symbol()).collect();
        raw_control(&format!("{view:?}"), &screen)?;
    }
    Ok(())
}

#[test]
fn mutated_trees_never_panic_nor_leak_control_characters() {
    // Each fixture is copied once; a case mutates files in place and puts them back.
    let tmp = tempfile::tempdir().unwrap();
    let trees: Vec<(PathBuf, Vec<PathBuf>, Vec<PathBuf>)> = FIXTURES
        .iter()
        .map(|name| {
            let dir = tmp.path().join(name);
            common::copy_dir(&common::fixture_dir(name), &dir);
            let mut list = Vec::new();
            files(&dir, &mut list);
            list.sort();
            let hot = list
                .iter()
                .filter(|p| HOT.iter().any(|h| p.to_string_lossy().contains(h)))
                .cloned()
                .collect();
            (dir, list, hot)
        })
        .collect();

    // ZSWAPTOP_FUZZ_CASES=N runs a longer fuzz by hand.
    let cases = std::env::var("ZSWAPTOP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let started = Instant::now();
    let mut runner = TestRunner::new(config);
    let strategy = (
        0..FIXTURES.len(),
        prop::collection::vec((any::<bool>(), any::<usize>(), mutation()), 1..=3),
    );
    let result = runner.run(&strategy, |(tree, muts)| {
        let (dir, all, hot) = &trees[tree];
        let pick = |hot_one: bool, file: usize| {
            let list = if hot_one && !hot.is_empty() { hot } else { all };
            &list[file % list.len()]
        };
        let mut saved = Vec::new();
        for &(hot_one, file, ref m) in &muts {
            let path = pick(hot_one, file);
            let before = fs::read(path).unwrap();
            fs::write(path, apply(&before, m)).unwrap();
            saved.push((path.clone(), before));
        }
        let outcome = std::panic::catch_unwind(|| pipeline(&Root::at(dir)));
        // Put the tree back (in reverse, for a file mutated twice) before judging.
        for (path, before) in saved.iter().rev() {
            fs::write(path, before).unwrap();
        }
        match outcome {
            Ok(r) => r,
            Err(_) => Err(TestCaseError::fail(format!(
                "panicked on {} with {:?}",
                FIXTURES[tree],
                muts.iter()
                    .map(|&(h, f, ref m)| (pick(h, f).strip_prefix(dir).unwrap(), m))
                    .collect::<Vec<_>>()
            ))),
        }
    });
    eprintln!(
        "fuzz: {cases} cases over {} fixtures in {:.1} s",
        FIXTURES.len(),
        started.elapsed().as_secs_f64()
    );
    result.unwrap();
}
