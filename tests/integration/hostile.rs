//! Terminal safety: strings an unprivileged user controls (process names set with
//! `prctl(PR_SET_NAME)`, a delegated cgroup, a swap file's path, a user name) and every string
//! of a captured tree reach no output with a raw control character, Unicode format character
//! (bidi overrides and isolates, zero-width characters, the BOM …) or line or paragraph
//! separator; each is shown as its visible escape. The tree is tests/fixtures/hostile-names (its
//! README.txt says how it was made).

use crate::common;

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use zswaptop::app::{Action, App, Msg, View};
use zswaptop::sources::{self, Extras};

const TREE: &str = "hostile-names";

/// Format characters (Unicode category Cf) and the line and paragraph separators (Zl, Zp),
/// listed by hand from the Unicode 16 tables: the ones that reorder or hide text, and the rest of
/// Cf outside the scripts that use it for number signs.
const FORMAT_AND_SEPARATORS: &[(u32, u32)] = &[
    (0x00ad, 0x00ad),
    (0x061c, 0x061c),
    (0x180e, 0x180e),
    (0x200b, 0x200f),
    (0x2028, 0x202e),
    (0x2060, 0x2064),
    (0x2066, 0x206f),
    (0xfeff, 0xfeff),
    (0xfff9, 0xfffb),
    (0xe0001, 0xe0001),
    (0xe0020, 0xe007f),
];

/// A character no output may hold raw: a control character other than the layout's own `\n`,
/// or one of [`FORMAT_AND_SEPARATORS`].
fn is_raw(c: char) -> bool {
    (c.is_control() && c != '\n')
        || FORMAT_AND_SEPARATORS
            .iter()
            .any(|&(lo, hi)| (lo..=hi).contains(&u32::from(c)))
}

/// The first raw character in `text` ([`is_raw`]), with its offset.
fn raw_control(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| is_raw(c))
}

/// The fixture holds each of these raw (in a process name, a user name, a cgroup, a swap path):
/// the outputs must show every one escaped.
const FORMAT_SHOWN: &[&str] = &[
    r"\u{202e}gnp.exe",                                      // process name: RLO
    r"zw\u{200b}\u{200c}\u{200d}j\u{feff}",                  // zero-width characters, BOM
    r"\u{2066}iso\u{2069}\u{2028}ls",                        // isolate, line separator
    r"p\u{ad}sh\u{202a}\u{202c}",                            // soft hyphen, LRE, PDF
    r"/swap\u{202e}gnp.exe\u{200b}\u{feff}x\u{2069}",        // swap path
    r"\u{202e}ecivres.\u{200b}live\u{2066}\u{2029}.service", // cgroup
    r"\u{202e}resu\u{200b}",                                 // user name
];

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
        &["--format", "openmetrics"],
        &["--format", "prometheus"],
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
        r"host host\x1b]0", // hostname (cut to fit the header; whole in JSON below)
        r"6.18.0\x9b2J",    // kernel release, C1 CSI
        r"lzo\x1b[2J",      // zswap compressor
        r"/var/sw\x0aap\x1b]0;sw\x07", // swap path: \012 decoded, then shown escaped
        r"\x1b[2Jwipe",     // process name from prctl
        r"\x9b2Jc1",        // process name with a C1 CSI
        r"evil\x1b]0;cg\x07.service", // cgroup name
    ] {
        assert!(text.contains(shown), "{shown} missing in:\n{text}");
    }
    // Each format character in a string narrow enough to be printed whole (the processes'
    // table fits a name to 15 columns: those are in the JSON below).
    for shown in &FORMAT_SHOWN[4..5] {
        assert!(text.contains(shown), "{shown} missing in:\n{text}");
    }
    // The decoded newline splits no line: the path stays whole wherever it is printed.
    for line in text.lines().filter(|l| l.contains("/var/sw")) {
        assert!(line.contains(r"/var/sw\x0aap\x1b]0;sw\x07"), "{line:?}");
    }

    let json: serde_json::Value = serde_json::from_str(&once(&["--top", "20", "--json"])).unwrap();
    assert_eq!(json["host"]["hostname"], r"host\x1b]0;h\x07\u{2067}x");
    let names: Vec<&str> = json["processes"]["top"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(names.contains(&r"\x1b]0;pwned\x07"), "{names:?}");
    assert!(names.contains(&r"\x9b2Jc1"), "{names:?}");
    let json = once(&["--top", "20", "--cgroups", "--json"]);
    for shown in FORMAT_SHOWN {
        // JSON writes each `\` of the escape as `\\`.
        let in_json = shown.replace('\\', r"\\");
        assert!(json.contains(&in_json), "{in_json} missing in:\n{json}");
    }

    // The metrics: in label values (where the exposition doubles each backslash), never raw.
    for format in ["openmetrics", "prometheus"] {
        let text = once(&["--format", format]);
        for shown in [FORMAT_SHOWN[4], FORMAT_SHOWN[5]] {
            let label = shown.replace('\\', r"\\");
            assert!(
                text.contains(&label),
                "{format}: {label} missing in:\n{text}"
            );
        }
    }
}

/// The dashboard over the fixture tree `tree`, two samples in, at `cols`×`rows`.
fn dashboard(tree: &str, cols: u16, rows: u16) -> App {
    let root = common::fixture(tree);
    let extras = Extras {
        smaps: false,
        top_processes: Some(50),
        cgroups: true,
        settings: true,
    };
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop", "--no-color"], true).unwrap();
    let mut first = sources::collect_with(&root, extras);
    first.monotonic_ns = 1_000_000_000;
    let mut second = sources::collect_with(&root, extras);
    second.monotonic_ns = 2_000_000_000;
    let mut app = App::new(settings, first);
    app.update(Msg::Sampled(Box::new(second)));
    app.update(Msg::Resize(cols, rows));
    app
}

/// `view` drawn into a TestBackend of `cols`×`rows`: its rows of text.
fn screen(app: &mut App, view: View, cols: u16, rows: u16) -> Vec<String> {
    app.update(Msg::Key(Action::Show(view)));
    let mut term = Terminal::new(TestBackend::new(cols, rows)).unwrap();
    term.draw(|f| zswaptop::ui::draw(f, app)).unwrap();
    let buf = term.backend().buffer();
    (0..buf.area.height)
        .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect())
        .collect()
}

/// Every view of the dashboard, drawn into a TestBackend.
#[test]
fn dashboard_views_show_escapes_and_no_control_character() {
    let mut app = dashboard(TREE, 160, 50);
    let mut seen = String::new();
    // 160 columns, and 240 where the cgroups view's many columns leave its names whole.
    for (view, cols) in View::ALL
        .into_iter()
        .map(|v| (v, 160))
        .chain([(View::Cgroups, 240)])
    {
        app.update(Msg::Resize(cols, 50));
        let mut screen = screen(&mut app, view, cols, 50).join("\n");
        screen.push('\n');
        assert_eq!(raw_control(&screen), None, "{view:?}:\n{screen}");
        seen.push_str(&screen);
    }
    for shown in [
        r"\x1b]0;pwned\x07",
        r"\x1b[2Jwipe",
        r"evil\x1b]0;cg\x07.service",
        r"/var/sw\x0aap",
    ]
    .iter()
    // The tables fit names to their columns: these three are narrow enough to show whole.
    .chain([FORMAT_SHOWN[0], FORMAT_SHOWN[4], FORMAT_SHOWN[5]].iter())
    {
        assert!(seen.contains(shown), "{shown} not on any view:\n{seen}");
    }
}

/// The diagnostics view at 80 columns over a swap path built to break a shell command
/// (tests/fixtures/hostile-paths): the fix's command is broken only where the shell reads on,
/// never inside the quoted path, and nothing of it is cut at the edge, so the lines copied from
/// the screen are the command the JSON holds.
#[test]
fn the_diagnostics_view_breaks_a_fix_only_between_shell_words() {
    let mut app = dashboard("hostile-paths", 80, 60);
    let rows = screen(&mut app, View::Diagnostics, 80, 60);
    let lines: Vec<String> = rows
        .iter()
        .skip_while(|l| !l.starts_with("      fix: "))
        .take_while(|l| !l.starts_with("      why: "))
        .cloned()
        .collect();
    assert!(lines.len() > 2, "{}", rows.join("\n"));
    assert!(
        lines.iter().all(|l| !l.trim_end().ends_with('…')),
        "cut at the edge:\n{}",
        lines.join("\n")
    );
    let copied = common::copied_priority_command(&lines, 11);
    let fix = &app
        .shown
        .diagnostics
        .iter()
        .find(|f| f.id == "swap-priorities")
        .unwrap()
        .fix;
    let whole = fix.split("priority: `").nth(1).unwrap();
    let whole = &whole[..whole.rfind("`;").unwrap()];
    assert_eq!(
        common::shell_words(&copied),
        common::shell_words(whole),
        "copied:\n{copied}"
    );
}

/// A usage error quotes the argument it refuses, which may come from outside (a file name a glob
/// expanded): on stderr it is shown escaped, with no escape sequence of clap's around it, and
/// the status is clap's (2).
#[test]
fn a_refused_argument_is_shown_escaped() {
    let arg = "--x\u{1b}]0;pwned\u{7}\u{202e}gnp.exe";
    let out = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg(arg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(raw_control(&err), None, "{err:?}");
    assert!(
        err.starts_with(r"error: unexpected argument '--x\x1b]0;pwned\x07\u{202e}gnp.exe' found"),
        "{err:?}"
    );
    assert!(err.contains("\nUsage: zswaptop [OPTIONS]\n"), "{err:?}");
}

/// What is written from a recording of the tree (`--once --from` and its heading naming the
/// host, `export` as CSV and as JSON Lines) holds no raw character either, and shows the
/// recorded host and process names escaped.
#[test]
fn recorded_strings_are_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let made = Command::cargo_bin("zswaptop")
        .unwrap()
        .arg("record")
        .arg(&rec)
        .arg("--root")
        .arg(common::fixture_dir(TREE))
        .args(["--top", "20", "-i", "0.1", "--duration", "0.3"])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("zswaptop")
            .unwrap()
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let rec = rec.to_str().unwrap();
    let host = r"host\x1b]0;h\x07\u{2067}x";
    for (args, shown) in [
        (&["--once", "--from", rec, "--at", "-0s"][..], host),
        (&["--once", "--from", rec, "--at", "-0s", "--full"], host),
        (
            &["--once", "--from", rec, "--at", "-0s", "--json"],
            r"\\u{202e}gnp.exe",
        ),
        (
            &["export", "--from", rec, "--format", "jsonl"],
            r"\\u{202e}gnp.exe",
        ),
        (&["export", "--from", rec, "--format", "csv"], "unix_ms"),
    ] {
        let text = run(args);
        assert_eq!(raw_control(&text), None, "{args:?}:\n{text}");
        assert!(
            text.contains(shown),
            "{args:?}: {shown} missing in:\n{text}"
        );
    }
    let heading = run(&["--once", "--from", rec, "--at", "-0s"]);
    assert!(
        heading
            .lines()
            .next()
            .unwrap()
            .ends_with(&format!(" on {host}")),
        "{heading}"
    );
}
