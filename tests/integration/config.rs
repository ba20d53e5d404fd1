//! The configuration file, the themes, `--help`, the man page and the completions as a user
//! meets them: the binary run as a process (with a configuration of the test's own, never the
//! user's), the dashboard drawn into TestBackend in each theme, fish asked what it completes.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use assert_cmd::cargo::CommandCargoExt;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use crate::common::pty;
use crate::common::skip::skip;
use zswaptop::app::{App, Msg, View};
use zswaptop::root::Root;

/// `zswaptop` with XDG_CONFIG_HOME at `home` (an empty directory: no configuration unless the
/// test writes one), so the user's own file never changes what a test sees.
fn zswaptop(home: &Path) -> Command {
    let mut c = Command::cargo_bin("zswaptop").unwrap();
    c.env("XDG_CONFIG_HOME", home).env_remove("NO_COLOR");
    c
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/linux-6.18-loaded")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn run(c: &mut Command) -> Output {
    c.output().unwrap()
}

/// `-h` on an 80-column terminal fits it, and ends by saying where the rest is.
#[test]
fn help_is_wrapped_and_says_where_the_rest_is() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["-h", "--help"] {
        let out = run(zswaptop(dir.path()).arg(flag).env("COLUMNS", "80"));
        assert!(out.status.success());
        let help = text(&out.stdout);
        let wide: Vec<&str> = help.lines().filter(|l| l.chars().count() > 80).collect();
        assert!(wide.is_empty(), "{flag}: {wide:#?}");
        assert!(help.contains("press ?"), "{help}");
        assert!(help.contains("man zswaptop"), "{help}");
    }
    // Without a width to go by, at most 100 columns.
    let out = run(zswaptop(dir.path()).arg("--help").env_remove("COLUMNS"));
    assert!(text(&out.stdout).lines().all(|l| l.chars().count() <= 100));
}

#[test]
fn top_zero_is_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(zswaptop(dir.path()).args(["--once", "--top", "0"]));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("must be at least 1"), "{err}");
    assert!(!err.contains("18446744073709551615"), "{err}");
}

/// A malformed file: the file, line, column, key and the type expected; status 2, nothing on
/// stdout. `--no-config` starts anyway.
#[test]
fn a_malformed_configuration_stops_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("zswaptop");
    std::fs::create_dir(&conf).unwrap();
    let file = conf.join("config.toml");
    std::fs::write(&file, "[dashboard]\ninterval = \"fast\"\n").unwrap();
    let once = |extra: &[&str]| {
        run(zswaptop(dir.path())
            .args(["--once", "--root"])
            .arg(fixture())
            .args(extra))
    };
    let out = once(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(err.contains("line 2, column 12"), "{err}");
    assert!(err.contains("dashboard.interval"), "{err}");
    assert!(err.contains("expected f64"), "{err}");
    let out = once(&["--no-config"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A value out of range is refused where it is, too.
    std::fs::write(&file, "[thresholds]\n\nswappiness_low = 500\n").unwrap();
    let err = text(&once(&[]).stderr);
    assert!(err.contains("line 3, column 18"), "{err}");
    assert!(
        err.contains("thresholds.swappiness_low: must be a swappiness"),
        "{err}"
    );
    // Not TOML at all.
    std::fs::write(&file, "[dashboard\n").unwrap();
    let out = once(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("line 1"),
        "{}",
        text(&out.stderr)
    );
    // --config names a file that is not there: an error too (the default place may be empty).
    let out = once(&["--config", "/nonexistent/zswaptop.toml"]);
    assert_eq!(out.status.code(), Some(2));
}

/// An unknown key is warned about by name and the run goes on; the thresholds of the file are
/// the ones the report judges by.
#[test]
fn unknown_keys_warn_and_thresholds_apply() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.toml");
    std::fs::write(&file, "colour = \"red\"\n[thresholds]\npoor_ratio = 2.5\n").unwrap();
    let json = |conf: &[&str]| {
        let out = run(zswaptop(dir.path())
            .args(["--json", "--root"])
            .arg(fixture())
            .args(conf));
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let ids: Vec<String> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_str().unwrap().to_string())
            .collect();
        (ids, text(&out.stderr))
    };
    let (ids, err) = json(&["--config", file.to_str().unwrap()]);
    assert!(err.contains("unknown key 'colour'"), "{err}");
    assert!(ids.contains(&"poor-compression".to_string()), "{ids:?}");
    let (ids, err) = json(&[]);
    assert!(err.is_empty(), "{err}");
    assert!(!ids.contains(&"poor-compression".to_string()), "{ids:?}");
}

/// `zswaptop config` prints the configuration in effect; given back as the configuration, it
/// prints the same.
#[test]
fn config_prints_what_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.toml");
    std::fs::write(
        &file,
        "[dashboard]\ntheme = \"light\"\nview = \"processes\"\n[thresholds]\npoor_ratio = 1.8\n",
    )
    .unwrap();
    let print = |f: &Path| {
        let out = run(zswaptop(dir.path()).arg("config").arg("--config").arg(f));
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let first = print(&file);
    assert!(first.contains("theme = \"light\""), "{first}");
    assert!(first.contains("poor_ratio = 1.8"), "{first}");
    assert!(first.contains("# The view shown first"), "{first}");
    let again = dir.path().join("again.toml");
    std::fs::write(&again, &first).unwrap();
    let second = print(&again);
    let body = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("# Read from"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&first), body(&second));
    // With no file: the defaults, and it says so.
    let out = run(zswaptop(dir.path()).arg("config"));
    assert!(text(&out.stdout).contains("no file (the built-in defaults)"));
}

/// What `args` write to a pseudo-terminal of their own with TERM=dumb (stdout is a terminal,
/// so only TERM can take the colour away), and how they ended.
fn on_a_dumb_terminal(args: &[&str]) -> (Vec<u8>, Option<i32>) {
    let dir = tempfile::tempdir().unwrap();
    let (mut master, slave) = pty::open_pty(100, 30);
    let mut child = zswaptop(dir.path())
        .args(args)
        .env("TERM", "dumb")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    let status = pty::ended_within(&mut child, Duration::from_secs(30)).map(|(s, _)| s.code());
    let (seen, _) = pty::read_for(&mut master, Duration::from_millis(500), None);
    let mut rest = Vec::new();
    let _ = master.read_to_end(&mut rest);
    (seen, status.flatten())
}

#[test]
fn a_dumb_terminal_gets_no_escape() {
    let root = fixture();
    let root = root.to_str().unwrap();
    for args in [
        &["--once", "--root", root][..],
        &["--once", "--full", "--root", root],
        &["--watch", "--count", "1", "-i", "0.1", "--root", root],
    ] {
        let (out, status) = on_a_dumb_terminal(args);
        assert_eq!(status, Some(0), "{args:?}: {}", text(&out));
        assert!(out.len() > 100, "{args:?}: {}", text(&out));
        assert!(
            !out.contains(&0x1b),
            "{args:?} wrote an escape: {}",
            text(&out)
        );
    }
    // The same on xterm has colour: the test can tell.
    let dir = tempfile::tempdir().unwrap();
    let (mut master, slave) = pty::open_pty(100, 30);
    let mut child = zswaptop(dir.path())
        .args(["--once", "--root", root])
        .env("TERM", "xterm")
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    pty::ended_within(&mut child, Duration::from_secs(30)).unwrap();
    let (seen, _) = pty::read_for(&mut master, Duration::from_millis(500), None);
    assert!(seen.contains(&0x1b), "{}", text(&seen));
    // The dashboard refuses, in words, without drawing.
    let (out, status) = on_a_dumb_terminal(&["--root", root]);
    assert_eq!(status, Some(2));
    assert!(text(&out).contains("TERM=dumb"), "{}", text(&out));
    assert!(!out.contains(&0x1b), "{}", text(&out));
}

// ---- themes ----------------------------------------------------------------------------------

fn sample(fixture: &str, t_ns: u64) -> zswaptop::sources::Sample {
    let mut s = zswaptop::sources::collect(&Root::at(format!("tests/fixtures/{fixture}")));
    s.monotonic_ns = t_ns;
    s
}

/// The dashboard in `theme`, with colour on, having seen the idle and then the loaded tree.
fn app(theme: &str) -> App {
    let settings =
        zswaptop::cli::dashboard_settings(&["zswaptop", "--theme", theme], false).unwrap();
    let mut app = App::new(settings, sample("linux-6.18-idle", 1_000_000_000_000));
    app.update(Msg::Sampled(Box::new(sample(
        "linux-6.18-loaded",
        1_001_000_000_000,
    ))));
    app
}

/// Every view of the dashboard in each theme: no cell's text in its background's colour, no
/// pale text colour in the light theme, no colour at all in the mono theme.
#[test]
fn every_theme_keeps_every_figure_readable() {
    let pale = [
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::LightGreen,
        Color::Gray,
        Color::White,
    ];
    for theme in ["default", "light", "mono"] {
        let mut coloured = 0;
        for view in View::ALL {
            let mut a = app(theme);
            a.update(Msg::Resize(120, 40));
            a.update(Msg::Key(zswaptop::app::Action::Show(view)));
            a.update(zswaptop::ui::lay_out(&a));
            let mut term = Terminal::new(TestBackend::new(120, 40)).unwrap();
            term.draw(|f| zswaptop::ui::draw(f, &a)).unwrap();
            for cell in term.backend().buffer().content() {
                let what = format!("{theme} {}: {:?}", view.name(), cell);
                if cell.symbol().trim().is_empty() {
                    continue;
                }
                if cell.fg != Color::Reset || cell.bg != Color::Reset {
                    coloured += 1;
                }
                assert!(cell.fg == Color::Reset || cell.fg != cell.bg, "{what}");
                match theme {
                    "mono" => assert!(cell.fg == Color::Reset && cell.bg == Color::Reset, "{what}"),
                    "light" => assert!(!pale.contains(&cell.fg), "{what}"),
                    _ => {}
                }
            }
        }
        assert_eq!(
            coloured == 0,
            theme == "mono",
            "{theme}: {coloured} coloured cells"
        );
    }
}

// ---- fish --------------------------------------------------------------------------------------

/// What fish completes for `line` with zswaptop's script loaded (None: no fish here).
fn fish_completes(script: &Path, line: &str) -> Option<Vec<String>> {
    let fish = ["/usr/bin/fish", "/bin/fish"]
        .into_iter()
        .find(|p| Path::new(p).exists())?;
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(fish)
        .arg("--no-config")
        .arg("-c")
        .arg(format!("source {}; complete -C '{line}'", script.display()))
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    Some(
        text(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or("").to_string())
            .collect(),
    )
}

#[test]
fn fish_offers_values_not_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("zswaptop.fish");
    let out = run(zswaptop(dir.path()).args(["completions", "fish"]));
    std::fs::write(&script, &out.stdout).unwrap();
    // A file that fish would offer if it offered file names (the completions run in an empty
    // directory of their own, with this one in it).
    let Some(values) = fish_completes(&script, "zswaptop --format ") else {
        skip!("no fish here (apt-get install fish)");
    };
    let mut sorted = values.clone();
    sorted.sort();
    assert_eq!(sorted, ["json", "openmetrics", "prometheus", "text"]);
    let words = |line: &str| {
        let mut v = fish_completes(&script, line).unwrap();
        v.sort();
        v
    };
    assert_eq!(
        words("zswaptop completions "),
        ["bash", "elvish", "fish", "powershell", "zsh"]
    );
    assert_eq!(words("zswaptop --theme "), ["default", "light", "mono"]);
    assert_eq!(
        words("zswaptop replay --theme "),
        ["default", "light", "mono"]
    );
    assert_eq!(words("zswaptop --color "), ["always", "auto", "never"]);
    assert_eq!(
        words("zswaptop export --from x --format "),
        ["csv", "jsonl"]
    );
    for line in [
        "zswaptop serve --listen ",
        "zswaptop --count ",
        "zswaptop -i ",
    ] {
        assert_eq!(words(line), Vec::<String>::new(), "{line}");
    }
    // Where a path is wanted, fish still offers the files.
    std::fs::write(dir.path().join("rec.zsr"), b"").unwrap();
    let in_dir = |line: &str| {
        let fish = "/usr/bin/fish";
        let out = Command::new(fish)
            .arg("--no-config")
            .arg("-c")
            .arg(format!("source {}; complete -C '{line}'", script.display()))
            .current_dir(dir.path())
            .output()
            .unwrap();
        text(&out.stdout)
    };
    assert!(in_dir("zswaptop replay ").contains("rec.zsr"));
    assert!(!in_dir("zswaptop --format ").contains("rec.zsr"));
}

/// `man zswaptop` renders, with the sections a user looks for.
#[test]
fn the_man_page_renders_with_its_sections() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(zswaptop(dir.path()).arg("man"));
    assert!(out.status.success());
    let page = dir.path().join("zswaptop.1");
    std::fs::write(&page, &out.stdout).unwrap();
    let Ok(shown) = Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
    else {
        skip!("no man here (apt-get install man-db)");
    };
    let shown = text(&shown.stdout);
    for s in [
        "KEYS",
        "FILES",
        "ENVIRONMENT",
        "EXIT STATUS",
        "EXAMPLES",
        "SEE ALSO",
    ] {
        assert!(shown.lines().any(|l| l == s), "{s}:\n{shown}");
    }
    assert!(shown.contains("--count N"), "{shown}");
    assert!(shown.contains("--max-size SIZE"), "{shown}");
}
