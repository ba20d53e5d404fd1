//! The dashboard drawn into ratatui's TestBackend from a pair of fixture samples one second
//! apart (idle, then loaded), so rates have values. Host facts come from the tree under
//! `--root`; the one that depends on who runs the test (`privileged`) is set explicitly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clap::Parser;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rstest::rstest;

use zswaptop::app::{Action, App, Msg, View};
use zswaptop::cli::{Cli, Settings};
use zswaptop::root::Root;
use zswaptop::sources;

const T0: u64 = 1_000 * 1_000_000_000;

fn sample(fixture: &str, t_ns: u64) -> sources::Sample {
    let mut s = sources::collect(&Root::at(format!("tests/fixtures/{fixture}")));
    s.monotonic_ns = t_ns;
    s
}

/// An app that has seen the idle tree and then, one second later, the loaded one.
fn app(args: &[&str]) -> App {
    let mut v = vec!["zswaptop"];
    v.extend_from_slice(args);
    // NO_COLOR as if set: snapshots hold symbols only, and the ASCII test checks the symbols.
    let settings = Settings::from_cli(Cli::parse_from(v), true, true).unwrap();
    let mut app = App::new(settings, sample("linux-6.18-idle", T0));
    app.update(Msg::Sampled(Box::new(sample(
        "linux-6.18-loaded",
        T0 + 1_000_000_000,
    ))));
    app.latest.host.privileged = false;
    app
}

fn screen(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| zswaptop::ui::draw(f, app)).unwrap();
    term
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(
        &format!("zswaptop {}", env!("CARGO_PKG_VERSION")),
        "zswaptop [version]",
    );
    s.set_snapshot_path("snapshots");
    s
}

fn text(term: &Terminal<TestBackend>) -> String {
    term.backend().to_string()
}

#[test]
fn overview_80x24() {
    let term = screen(&app(&[]), 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn overview_120x40() {
    let term = screen(&app(&[]), 120, 40);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn graphs_80x24() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::Show(View::Graphs)));
    let term = screen(&a, 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn graphs_120x40() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::Show(View::Graphs)));
    let term = screen(&a, 120, 40);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn devices_80x24() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::Show(View::Devices)));
    let term = screen(&a, 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn help_80x24() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::ToggleHelp));
    let term = screen(&a, 80, 24);
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn overview_ascii_80x24() {
    let term = screen(&app(&["--ascii"]), 80, 24);
    let t = text(&term);
    for line in t.lines() {
        assert!(line.is_ascii(), "not ASCII: {line}");
    }
    settings().bind(|| insta::assert_snapshot!(term.backend()));
}

#[test]
fn the_essentials_are_on_an_80x24_screen() {
    let t = text(&screen(&app(&[]), 80, 24));
    for needle in [
        "zswaptop",
        "not root",
        "zswap enabled",
        "compressor lzo",
        "max_pool 20%",
        "accept 90%",
        "shrinker off",
        "PSI memory",
        "unavailable:",
        "Real memory",
        "free says 1.2 GiB used — 498.7 MiB of it is compressed swap",
        "zswap pool 498.7M",
        "498.7 MiB of 4.7 GiB limit",
        "stored 974.3 MiB",
        "saves 475.6 MiB",
        "ratio 1.95:1 (2.38:1 compressor only)",
        "2.38:1 compressor only",
        "incompressible 153.7 MiB",
        "written_back_pages 0 0.0/s",
        "pool_limit_hit 0 0.0/s",
        "rejects: alloc_fail 0 0.0/s",
        "compress_poor 0 0.0/s",
        "compress_fail 0 0.0/s",
        "kmemcache_fail 0 0.0/s",
        "reclaim_fail 0 0.0/s",
        "swap traffic",
        "out 974.3M/s",
        "Swap",
        "in zswap 974.3 MiB",
        "/swapfile-test",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
}

#[test]
fn rates_are_pending_after_one_sample() {
    let settings = Settings::from_cli(Cli::parse_from(["zswaptop"]), true, true).unwrap();
    let mut a = App::new(settings, sample("linux-6.18-loaded", T0));
    a.latest.host.privileged = false;
    let t = text(&screen(&a, 120, 40));
    assert!(t.contains("zswpout pending"), "{t}");
    assert!(t.contains("written_back_pages 0 pending"), "{t}");
    assert!(!t.contains("zswpout 0"), "{t}");
}

#[test]
fn paused_is_shown() {
    let mut a = app(&[]);
    a.update(Msg::Key(Action::TogglePause));
    let t = text(&screen(&a, 80, 24));
    assert!(t.contains("PAUSED"), "{t}");
    assert!(t.contains("resume"), "{t}");
}

#[test]
fn below_the_minimum_one_line_says_so() {
    let t = text(&screen(&app(&[]), 40, 10));
    let lines: Vec<&str> = t
        .lines()
        .filter(|l| !l.trim_matches(|c| c == '"' || c == ' ').is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "{t}");
    assert!(lines[0].contains("too small"), "{t}");
}

#[rstest]
fn tiny_sizes_do_not_panic(
    #[values((0, 0), (1, 1), (2, 2), (20, 5), (40, 10), (49, 11), (50, 12), (79, 23), (80, 24), (300, 100))]
    size: (u16, u16),
    #[values(View::Overview, View::Graphs, View::Devices)] view: View,
    #[values(false, true)] help: bool,
    #[values(false, true)] ascii: bool,
) {
    let mut a = app(if ascii { &["--ascii"] } else { &[] });
    a.update(Msg::Key(Action::Show(view)));
    if help {
        a.update(Msg::Key(Action::ToggleHelp));
    }
    let term = screen(&a, size.0, size.1);
    if ascii {
        assert!(
            term.backend()
                .buffer()
                .content()
                .iter()
                .all(|c| c.symbol().is_ascii())
        );
    }
}

#[test]
fn colour_settings_change_styles_only() {
    let mut s = Settings::from_cli(Cli::parse_from(["zswaptop"]), false, true).unwrap();
    assert!(s.color);
    s.ascii = false;
    let mut coloured = App::new(s, sample("linux-6.18-idle", T0));
    coloured.update(Msg::Sampled(Box::new(sample(
        "linux-6.18-loaded",
        T0 + 1_000_000_000,
    ))));
    coloured.latest.host.privileged = false;
    let plain = app(&[]);
    let a = screen(&coloured, 80, 24);
    let b = screen(&plain, 80, 24);
    // Graph dots differ (braille with colour, letters without); the text does not.
    // (The bar's row differs too: colour segments are blank cells with a background.)
    let head = |t: &Terminal<TestBackend>| {
        let s = text(t);
        let lines: Vec<&str> = s.lines().take(15).collect();
        [&lines[..4], &lines[5..]].concat().join("\n")
    };
    assert_eq!(head(&a), head(&b));
    let has_colour = a
        .backend()
        .buffer()
        .content()
        .iter()
        .any(|c| c.fg != ratatui::style::Color::Reset || c.bg != ratatui::style::Color::Reset);
    let no_colour = b
        .backend()
        .buffer()
        .content()
        .iter()
        .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset);
    assert!(has_colour && no_colour);
}
