//! `zswaptop completions SHELL`, `zswaptop man` and `--version` as processes: what a packager
//! runs to generate the completion files and the man page from the built binary.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use assert_cmd::prelude::*;
use predicates::prelude::*;

fn zswaptop() -> Command {
    Command::cargo_bin("zswaptop").unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = zswaptop().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn completions_for_every_shell_know_the_flags_and_commands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let text = stdout_of(&["completions", shell]);
        assert!(text.len() > 500, "{shell}: {} bytes", text.len());
        for word in ["no-mouse", "interval", "cgroups"] {
            assert!(text.contains(word), "{shell} completion lacks --{word}");
        }
        assert!(text.contains("completions"), "{shell} lacks the command");
    }
}

#[test]
fn bash_completion_registers_the_function() {
    let text = stdout_of(&["completions", "bash"]);
    assert!(text.contains("complete -F _zswaptop"), "{text}");
}

#[test]
fn an_unknown_shell_is_refused() {
    zswaptop()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'tcsh'"));
}

#[test]
fn man_is_roff_with_every_flag() {
    let text = stdout_of(&["man"]);
    assert!(
        text.lines().any(|l| l.starts_with(".TH zswaptop 1")),
        "no .TH line:\n{text}"
    );
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS"] {
        assert!(text.contains(section), "man page lacks {section}");
    }
    // The commands are described in place: there is no zswaptop-man(1) page to point at.
    assert!(text.contains(".SH COMMANDS"), "{text}");
    assert!(text.contains("zswaptop completions"), "{text}");
    assert!(!text.contains("zswaptop\\-man(1)") && !text.contains("zswaptop-man(1)"));
    assert!(text.contains("powershell"), "the shells are listed");
    for flag in ["once", "json", "root", "no\\-mouse", "history"] {
        assert!(
            text.contains(&format!("\\-\\-{flag}")),
            "man lacks --{flag}"
        );
    }
}

#[test]
fn commands_take_no_dashboard_flags() {
    zswaptop()
        .args(["--once", "man"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn version_names_the_crate_version() {
    let v = stdout_of(&["--version"]);
    assert!(
        v.starts_with(&format!("zswaptop {}", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
}

#[test]
fn help_points_at_no_file() {
    let help = stdout_of(&["--help"]);
    for bad in ["docs/", ".md", "README"] {
        assert!(!help.contains(bad), "--help mentions {bad}:\n{help}");
    }
}
