//! Terminal safety: strings an unprivileged user controls (process names set with
//! `prctl(PR_SET_NAME)`, a delegated cgroup, a swap file's path) and every string of a captured
//! tree reach no output with a raw control character; each is shown as its visible escape.
//! The tree is tests/fixtures/hostile-names (its README.txt says how it was made).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use clap::Parser;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use zswaptop::app::{Action, App, Msg, View};
use zswaptop::cli::{Cli, Settings};
use zswaptop::sources::{self, Extras};

const TREE: &str = "hostile-names";

/// The first raw control character in `text` other than the layout's own `\n`, with its offset.
fn raw_control(text: &str) -> Option<(usize, char)> {
    text.char_indices()
        .find(|&(_, c)| c.is_control() && c != '\n')
}

fn once(args: &[&str]) -> String {
    let dir = common::fixture_dir(TREE);
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg("--root")
        .arg(&dir)
        .arg("--once")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    // Raw bytes 0x80–0x9F alone are not UTF-8; lossy decoding would hide nothing C1 here.
    String::from_utf8(out.stdout).expect("the report is UTF-8")
}

#[test]
fn no_raw_control_character_in_any_once_mode() {
    for args in [
        &[][..],
        &["--full"],
        &["--full", "--top", "20", "--cgroups"],
        &["--json"],
        &["--top", "20"],
        &["--cgroups"],
        &["--top", "20", "--cgroups", "--json"],
    ] {
        let text = once(args);
        if let Some((i, c)) = raw_control(&text) {
            let from = text[..i].rfind('\n').map_or(0, |n| n + 1);
            panic!(
                "{args:?}: raw {c:?} at byte {i}, in line {:?}",
                text[from..].lines().next()
            );
        }
    }
}

#[test]
fn hostile_strings_are_shown_escaped() {
    let text = once(&["--full", "--top", "20", "--cgroups"]);
    for shown in [
        r"host\x1b]0;h\x07",           // hostname
        r"6.18.0\x9b2J",               // kernel release, C1 CSI
        r"lzo\x1b[2J",                 // zswap compressor
        r"/var/sw\x0aap\x1b]0;sw\x07", // swap path: \012 decoded, then shown escaped
        r"\x1b[2Jwipe",                // process name from prctl
        r"\x9b2Jc1",                   // process name with a C1 CSI
        r"evil\x1b]0;cg\x07.service",  // cgroup name
    ] {
        assert!(text.contains(shown), "{shown} missing in:\n{text}");
    }
    // The decoded newline splits no line: the path stays whole wherever it is printed.
    for line in text.lines().filter(|l| l.contains("/var/sw")) {
        assert!(line.contains(r"/var/sw\x0aap\x1b]0;sw\x07"), "{line:?}");
    }

    let json: serde_json::Value = serde_json::from_str(&once(&["--top", "20", "--json"])).unwrap();
    let names: Vec<&str> = json["processes"]["top"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(names.contains(&r"\x1b]0;pwned\x07"), "{names:?}");
    assert!(names.contains(&r"\x9b2Jc1"), "{names:?}");
}

/// Every view of the dashboard, drawn into a TestBackend.
#[test]
fn dashboard_views_show_escapes_and_no_control_character() {
    let root = common::fixture(TREE);
    let extras = Extras {
        top_processes: Some(50),
        cgroups: true,
        settings: true,
    };
    let settings =
        Settings::from_cli(Cli::parse_from(["zswaptop", "--no-color"]), true, true).unwrap();
    let mut first = sources::collect_with(&root, extras);
    first.monotonic_ns = 1_000_000_000;
    let mut second = sources::collect_with(&root, extras);
    second.monotonic_ns = 2_000_000_000;
    let mut app = App::new(settings, first);
    app.update(Msg::Sampled(Box::new(second)));
    app.update(Msg::Resize(160, 50));
    let mut seen = String::new();
    for view in View::ALL {
        app.update(Msg::Key(Action::Show(view)));
        let mut term = Terminal::new(TestBackend::new(160, 50)).unwrap();
        term.draw(|f| zswaptop::ui::draw(f, &app)).unwrap();
        let buf = term.backend().buffer();
        let mut screen = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                screen.push_str(buf[(x, y)].symbol());
            }
            screen.push('\n');
        }
        assert_eq!(raw_control(&screen), None, "{view:?}:\n{screen}");
        seen.push_str(&screen);
    }
    for shown in [
        r"\x1b]0;pwned\x07",
        r"\x1b[2Jwipe",
        r"evil\x1b]0;cg\x07.service",
        r"/var/sw\x0aap",
    ] {
        assert!(seen.contains(shown), "{shown} not on any view:\n{seen}");
    }
}
