//! Command line: clap's `Cli`, validated into typed `Settings` (no clap types past this module).

use std::path::PathBuf;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// The version `--version` and the man page show: the crate's, with the git revision it was
/// built from when built from a checkout (build.rs).
pub const VERSION: &str = env!("ZSWAPTOP_VERSION");

pub use crate::report::Format;

/// zswaptop: where your memory really is when zswap or zram compresses it.
#[derive(Debug, Parser)]
#[command(
    name = "zswaptop",
    version = VERSION,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Without a command: the live dashboard (or one report with --once).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Print one snapshot and exit (as --format says: text unless told otherwise).
    #[arg(long)]
    pub once: bool,

    /// The format of --once. Implies --once.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,

    /// Short for --format json (one object, with a schema_version). Implies --once.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// Sampling interval in seconds (at least 0.1). With --once, take two samples this far
    /// apart so rates are filled in.
    #[arg(short, long, value_name = "SECONDS")]
    pub interval: Option<f64>,

    /// Read DIR/proc and DIR/sys instead of /proc and /sys (a captured tree).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// When to use colour: auto (on a terminal, unless NO_COLOR is set), always (also into a
    /// pipe: `--once --color=always | less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto, overrides_with = "no_color")]
    pub color: ColorWhen,

    /// Never use colour: the same as --color=never.
    #[arg(long, overrides_with = "color")]
    pub no_color: bool,

    /// Draw with ASCII characters only.
    #[arg(long)]
    pub ascii: bool,

    /// With --once: list the N processes using the most swap (with their estimated zswap share).
    /// N is at least 1: without --top no process is listed.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub top: Option<usize>,

    /// With --once: show memory, swap and zswap per cgroup (cgroup v2).
    #[arg(long)]
    pub cgroups: bool,

    /// How much history the dashboard graphs keep, in minutes.
    #[arg(long, value_name = "MINUTES", default_value_t = 10.0)]
    pub history: f64,

    /// Leave the mouse to the terminal (no clicking tabs or scrolling with the wheel; the
    /// terminal's own text selection works).
    #[arg(long)]
    pub no_mouse: bool,
}

/// What `zswaptop COMMAND` does instead of the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Print the completion script for SHELL to stdout.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to stdout: `zswaptop man | man -l -` shows it.
    Man,
}

impl Command {
    /// Write what the command prints to `out`. Generated in memory first: clap_complete
    /// panics on a write error, and `zswaptop completions bash | head` must not.
    pub fn run(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut cmd = Cli::command();
        let mut text = Vec::new();
        match self {
            Command::Completions { shell } => {
                clap_complete::generate(shell, &mut cmd, "zswaptop", &mut text);
            }
            Command::Man => man_page(&cmd, &mut text)?,
        }
        out.write_all(&text)?;
        out.flush()
    }
}

/// The manual page: clap_mangen's sections, with the commands described in place (its own
/// SUBCOMMANDS section points at a page per command, which zswaptop does not have).
fn man_page(cmd: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    let mut roff = roff::Roff::new();
    roff.control("SH", ["COMMANDS"]);
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        roff.control("TP", []);
        let mut usage = vec![roff::bold(format!("zswaptop {}", sub.get_name()))];
        for arg in sub.get_positionals() {
            let name = arg.get_value_names().and_then(|v| v.first()).map_or_else(
                || arg.get_id().to_string().to_uppercase(),
                ToString::to_string,
            );
            usage.push(roff::roman(" "));
            usage.push(roff::italic(name));
        }
        roff.text(usage);
        let mut about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        for arg in sub.get_positionals() {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .map(|v| v.get_name().to_string())
                .collect();
            if !values.is_empty() {
                about.push_str(&format!(" ({}: {})", arg.get_id(), values.join(", ")));
            }
        }
        roff.text([roff::roman(about)]);
    }
    roff.to_writer(out)?;
    man.render_version_section(out)
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One snapshot, written in this format.
    Once(Format),
    Dashboard,
}

/// Validated settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub mode: Mode,
    pub root: Option<PathBuf>,
    /// `None` for a one-sample `--once`.
    pub interval: Option<Duration>,
    pub color: bool,
    pub ascii: bool,
    pub history: Duration,
    /// Capture the mouse in the dashboard (not with --no-mouse).
    pub mouse: bool,
    /// Extra scans `--once` asks for.
    pub extras: crate::sources::Extras,
}

pub const MIN_INTERVAL: Duration = Duration::from_millis(100);
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SettingsError {
    #[error("interval '{0}' is not a number of seconds of at least 0.1")]
    Interval(f64),
    #[error("history '{0}' must be a positive number of minutes (at most 1440)")]
    History(f64),
    #[error("root '{0}' is not a directory")]
    Root(String),
}

impl Settings {
    /// `no_color_env`: whether NO_COLOR is set (non-empty); `stdout_tty`: whether stdout is a terminal.
    pub fn from_cli(
        cli: Cli,
        no_color_env: bool,
        stdout_tty: bool,
    ) -> Result<Settings, SettingsError> {
        let interval = match cli.interval {
            Some(s) if (0.1..=86_400.0).contains(&s) => Some(Duration::from_secs_f64(s)),
            Some(s) => return Err(SettingsError::Interval(s)),
            None => None,
        };
        if !(cli.history.is_finite() && cli.history > 0.0 && cli.history <= 1440.0) {
            return Err(SettingsError::History(cli.history));
        }
        if let Some(r) = &cli.root
            && !r.is_dir()
        {
            return Err(SettingsError::Root(r.display().to_string()));
        }
        let mode = match (cli.format, cli.json, cli.once) {
            (Some(f), _, _) => Mode::Once(f),
            (None, true, _) => Mode::Once(Format::Json),
            (None, false, true) => Mode::Once(Format::Text),
            (None, false, false) => Mode::Dashboard,
        };
        Ok(Settings {
            mode,
            root: cli.root,
            interval,
            color: match (cli.no_color, cli.color) {
                (true, _) | (false, ColorWhen::Never) => false,
                (false, ColorWhen::Always) => true,
                (false, ColorWhen::Auto) => {
                    !no_color_env && (stdout_tty || mode == Mode::Dashboard)
                }
            },
            ascii: cli.ascii,
            history: Duration::from_secs_f64(cli.history * 60.0),
            mouse: !cli.no_mouse,
            extras: crate::sources::Extras {
                top_processes: cli.top,
                cgroups: cli.cgroups,
                settings: false,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Settings, SettingsError> {
        let mut v = vec!["zswaptop"];
        v.extend_from_slice(args);
        Settings::from_cli(Cli::parse_from(v), false, false)
    }

    #[test]
    fn clap_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn modes() {
        assert_eq!(parse(&["--once"]).unwrap().mode, Mode::Once(Format::Text));
        assert_eq!(parse(&["--json"]).unwrap().mode, Mode::Once(Format::Json));
        assert_eq!(
            parse(&["--format", "json"]).unwrap().mode,
            Mode::Once(Format::Json)
        );
        assert_eq!(
            parse(&["--once", "--format", "text"]).unwrap().mode,
            Mode::Once(Format::Text)
        );
        assert!(Cli::try_parse_from(["zswaptop", "--format", "yaml"]).is_err());
        assert_eq!(parse(&[]).unwrap().mode, Mode::Dashboard);
    }

    #[test]
    fn commands_and_the_dashboard_flags() {
        let c = |args: &[&str]| {
            let mut v = vec!["zswaptop"];
            v.extend_from_slice(args);
            Cli::try_parse_from(v)
        };
        assert_eq!(c(&[]).unwrap().command, None, "no command: the dashboard");
        assert_eq!(c(&["man"]).unwrap().command, Some(Command::Man));
        assert_eq!(
            c(&["completions", "zsh"]).unwrap().command,
            Some(Command::Completions {
                shell: clap_complete::Shell::Zsh
            })
        );
        assert!(c(&["completions", "tcsh"]).is_err());
        assert!(c(&["--once", "man"]).is_err(), "flags are the dashboard's");
        assert!(parse(&[]).unwrap().mouse);
        assert!(!parse(&["--no-mouse"]).unwrap().mouse);
    }

    #[test]
    fn bad_interval() {
        assert_eq!(
            parse(&["-i", "0.05"]).unwrap_err(),
            SettingsError::Interval(0.05)
        );
        assert!(parse(&["-i", "NaN"]).is_err());
        assert_eq!(
            parse(&["-i", "0.1"]).unwrap().interval,
            Some(Duration::from_millis(100))
        );
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        let cli = || Cli::parse_from(["zswaptop", "--once"]);
        assert!(Settings::from_cli(cli(), false, true).unwrap().color);
        assert!(!Settings::from_cli(cli(), true, true).unwrap().color);
        assert!(!Settings::from_cli(cli(), false, false).unwrap().color);
    }

    #[test]
    fn color_flag_overrides_the_terminal_and_no_color() {
        let color = |args: &[&str], no_color_env: bool, tty: bool| {
            let mut v = vec!["zswaptop", "--once"];
            v.extend_from_slice(args);
            Settings::from_cli(Cli::parse_from(v), no_color_env, tty)
                .unwrap()
                .color
        };
        // auto: a terminal without NO_COLOR.
        assert!(color(&["--color=auto"], false, true));
        assert!(!color(&["--color=auto"], true, true));
        assert!(!color(&["--color=auto"], false, false));
        // always: into a pipe too, and over NO_COLOR (the command line is more specific).
        assert!(color(&["--color=always"], false, false));
        assert!(color(&["--color", "always"], true, false));
        // never, and its old spelling.
        assert!(!color(&["--color=never"], false, true));
        assert!(!color(&["--no-color"], false, true));
        // The last of the two flags wins.
        assert!(color(&["--no-color", "--color=always"], false, false));
        assert!(!color(&["--color=always", "--no-color"], false, true));
        assert!(Cli::try_parse_from(["zswaptop", "--color=sometimes"]).is_err());
    }
}
