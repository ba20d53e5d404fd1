//! Command line: clap's `Cli`, validated into typed `Settings` (no clap types past this module).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// The version `--version` and the man page show: the crate's, with the git revision it was
/// built from when built from a checkout (build.rs).
pub const VERSION: &str = env!("ZSWAPTOP_VERSION");

use crate::report::OutputFormat;

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
    /// Without a command: the live dashboard (or one report with --once, lines with --watch).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Print one snapshot and exit (as --format says: text unless told otherwise). The text fits
    /// one 80×24 screen; --full gives the complete report.
    #[arg(long)]
    pub once: bool,

    /// The complete text report (findings with evidence, fix and why; tunables; devices; zram;
    /// capacity; counters) instead of the one-screen summary. Implies --once.
    #[arg(long)]
    pub full: bool,

    /// Print one line per interval (vmstat-style) until interrupted, or --count lines; with
    /// --json, one JSON object per line (JSON Lines).
    #[arg(long, conflicts_with_all = ["once", "format", "full"])]
    pub watch: bool,

    /// With --watch: stop after N lines.
    #[arg(long, value_name = "N", requires = "watch")]
    pub count: Option<u64>,

    /// The format of --once. Implies --once.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<OutputFormat>,

    /// Short for --format json (one object, with a schema_version). Implies --once, unless with
    /// --watch (then one object a line).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// Write DIR/zswaptop.prom for node_exporter's textfile collector (Prometheus text format;
    /// a temporary file renamed over it, so a scrape never reads half a file). Implies --once.
    #[arg(long, value_name = "DIR")]
    pub textfile: Option<PathBuf>,

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

    /// With --once: show memory, swap and zswap per cgroup (zswap on cgroup v2 only).
    #[arg(long)]
    pub cgroups: bool,

    /// How much history the dashboard graphs keep, in minutes.
    #[arg(long, value_name = "MINUTES", default_value_t = 10.0)]
    pub history: f64,

    /// Leave the mouse to the terminal (no clicking tabs or scrolling with the wheel; the
    /// terminal's own text selection works).
    #[arg(long)]
    pub no_mouse: bool,

    /// Also record every sample taken to PATH (a file, or a directory of rotated files): the
    /// dashboard's, for `zswaptop replay`, or those of --once (appended: a series of --once
    /// runs makes a recording).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["from", "textfile"])]
    pub record: Option<PathBuf>,

    /// With --once: the snapshot of a recorded moment of the recording at PATH (with --at).
    #[arg(long, value_name = "PATH", requires = "at")]
    pub from: Option<PathBuf>,

    /// With --from: the moment: RFC 3339, a local HH:MM[:SS] on the recording's day, or -10m
    /// from its end. The sample at or before it is shown, with its time.
    #[arg(
        long,
        value_name = "TIME",
        requires = "from",
        allow_hyphen_values = true
    )]
    pub at: Option<String>,
}

/// What `zswaptop COMMAND` does instead of the dashboard.
#[derive(Debug, Clone, PartialEq, Subcommand)]
pub enum Command {
    /// Serve /metrics over HTTP for Prometheus (OpenMetrics, or the text format 0.0.4 when the
    /// scraper asks for it), sampled at each scrape.
    Serve {
        /// Address and port to listen on; only loopback unless another address is given.
        #[arg(long, value_name = "ADDR", default_value_t = DEFAULT_LISTEN)]
        listen: SocketAddr,

        /// Read DIR/proc and DIR/sys instead of /proc and /sys (a captured tree).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,

        /// TLS, basic authentication and response headers from FILE, in the format of
        /// node_exporter's --web.config.file (the Prometheus exporter toolkit's).
        #[arg(long, value_name = "FILE")]
        web_config: Option<PathBuf>,
    },
    /// Print the completion script for SHELL to stdout.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to stdout: `zswaptop man | man -l -` shows it.
    Man,
    /// Append samples to PATH (a file, or a directory of rotated files under a size cap) until
    /// stopped (SIGINT or SIGTERM: exit 0 after the last sample is on disk).
    ///
    /// What a recording holds: what zswaptop reads from /proc and /sys at each sample (memory,
    /// swap, zswap and zram figures, PSI, the settings), the host name, and with --top N the N
    /// processes using the most swap: pid, name, user, memory and cgroup. Their command lines,
    /// which can carry tokens and passwords, only with --command-lines; without it a replay
    /// says they were not recorded. Files are created readable by their owner only (0600), a
    /// directory 0700; a recording is refused through a symbolic link another user owns, and
    /// while another recorder writes to the same file or directory.
    Record(RecordArgs),
    /// The dashboard over a recording, with a time cursor (see the help overlay: ?).
    Replay(ReplayArgs),
    /// Every recorded sample of a stretch as CSV (one row per sample, rates over the one before)
    /// or JSON lines (one --once --json object per sample), to stdout.
    Export(ExportArgs),
    /// What another compressor would do on this machine's memory (root): samples resident
    /// anonymous pages, compresses them in memory with every algorithm zswap and zram offer,
    /// and predicts each one's pool; page contents are never kept or shown.
    ///
    /// Privacy: each page is compressed in memory and dropped at once; its contents are never
    /// stored, printed, logged, recorded or exported. Reading a page marks it recently used, so
    /// reclaim keeps it in RAM longer.
    /// Reading other processes' memory needs root or CAP_SYS_PTRACE.
    Advise(AdviseArgs),
}

/// `zswaptop advise`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct AdviseArgs {
    /// Sample only this process (repeatable).
    #[arg(long = "pid", value_name = "PID")]
    pub pids: Vec<u32>,
    /// The most memory to sample (64M, 1G, 500KiB).
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub sample: u64,
    /// Print JSON (an `advise` object) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Read DIR/proc and DIR/sys instead of /proc and /sys (a captured tree).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// `zswaptop record`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct RecordArgs {
    /// Seconds between samples (at least 0.1).
    #[arg(short, long, value_name = "SECONDS", default_value_t = 5.0)]
    pub interval: f64,
    /// Stop after this many seconds (default: run until stopped).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// The most the recording may take (64M, 1G, 500KiB; at least 128KiB). In a directory the
    /// oldest files are deleted first; a single file stops growing.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_max_size)]
    pub max_size: u64,
    /// Also record the N processes using the most swap.
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub top: Option<usize>,
    /// With --top: keep the processes' command lines too (they can hold tokens and passwords;
    /// left out by default).
    #[arg(long, requires = "top")]
    pub command_lines: bool,
    /// Read DIR/proc and DIR/sys instead of /proc and /sys.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// A file, or a directory (existing, or ending in /) of rotated files.
    pub path: PathBuf,
}

/// `zswaptop replay`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ReplayArgs {
    /// Start at this moment (as --at) instead of the recording's start.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub at: Option<String>,
    /// How much history the graphs keep, in minutes.
    #[arg(long, value_name = "MINUTES", default_value_t = 10.0)]
    pub history: f64,
    /// Draw with ASCII characters only.
    #[arg(long)]
    pub ascii: bool,
    /// Never use colour.
    #[arg(long)]
    pub no_color: bool,
    /// Leave the mouse to the terminal.
    #[arg(long)]
    pub no_mouse: bool,
    /// A recording file or directory.
    pub path: PathBuf,
}

/// `zswaptop export`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ExportArgs {
    /// The recording file or directory.
    #[arg(long, value_name = "PATH")]
    pub from: PathBuf,
    /// From this moment on (as --at).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Up to this moment.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub until: Option<String>,
    /// csv or jsonl.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: ExportFormat,
}

/// `zswaptop export --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A header of metric names (the catalogue's CSV names), one row per sample.
    Csv,
    /// One --once --json object per line.
    Jsonl,
}

fn parse_size(s: &str) -> Result<u64, String> {
    parse_size::parse_size(s).map_err(|e| format!("{e} (use a size like 64M, 1GiB or 500000)"))
}

/// `record --max-size`: a size of at least what two files of a rotated recording need.
fn parse_max_size(s: &str) -> Result<u64, String> {
    let size = parse_size(s)?;
    let opts = crate::record::WriterOptions {
        max_size: Some(size),
        ..crate::record::WriterOptions::default()
    };
    let min = opts.min_max_size();
    if size < min {
        return Err(format!(
            "{size} bytes is under the least a recording needs: {}KiB (two files of {}KiB, the one being written and the one before it)",
            min / 1024,
            min / 2048
        ));
    }
    Ok(size)
}

impl Command {
    /// Run the command: `serve` serves and `record` records until the process is stopped,
    /// `replay` runs the dashboard over a recording, `export` writes to `out`; the others write
    /// what they print to `out`, generated in memory first: clap_complete panics on a write
    /// error, and `zswaptop completions bash | head` must not.
    pub fn run(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut cmd = Cli::command();
        let mut text = Vec::new();
        match self {
            Command::Serve {
                listen,
                root,
                web_config,
            } => {
                let web = match web_config {
                    Some(path) => crate::serve::WebConfig::load(&path)
                        .map_err(|e| std::io::Error::other(UsageError(e.to_string())))?,
                    None => crate::serve::WebConfig::default(),
                };
                return crate::serve::run(listen, root, web)
                    .map_err(|e| std::io::Error::other(format!("{e:#}")));
            }
            Command::Completions { shell } => {
                clap_complete::generate(shell, &mut cmd, "zswaptop", &mut text);
            }
            Command::Man => man_page(&cmd, &mut text)?,
            Command::Record(args) => {
                return crate::record::recorder::record(&args).map_err(io_error);
            }
            Command::Replay(args) => return crate::replay(&args).map_err(io_error),
            Command::Export(args) => {
                let mut out = std::io::BufWriter::new(out);
                return crate::record::export::export(&args, &mut out).map_err(io_error);
            }
            Command::Advise(args) => {
                let opts = crate::advise::Options {
                    root: args.root,
                    pids: args.pids,
                    sample_bytes: args.sample,
                    json: args.json,
                };
                let mut out = std::io::BufWriter::new(out);
                return crate::advise::run(&opts, &mut out).map_err(io_error);
            }
        }
        out.write_all(&text)?;
        out.flush()
    }
}

/// An error in what a command was given (a `--web-config` file that cannot be used): `main`
/// exits with status 2 on it, as on a bad argument.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Whether `e`, from [`Command::run`], is a [`UsageError`].
pub fn is_usage_error(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<UsageError>())
}

/// An error for `main` to print: the messages of its chain (each once: a cause whose text the
/// message already ends with is not said again), with the kind of the I/O error inside it (a
/// closed pipe is not worth a message).
fn io_error(e: anyhow::Error) -> std::io::Error {
    let mut msg = e.to_string();
    let mut kind = std::io::ErrorKind::Other;
    for cause in e.chain() {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            kind = io.kind();
        } else if let Some(k) = cause
            .downcast_ref::<serde_json::Error>()
            .and_then(serde_json::Error::io_error_kind)
        {
            kind = k;
        }
        let text = cause.to_string();
        if !msg.ends_with(&text) {
            msg = format!("{msg}: {text}");
        }
    }
    std::io::Error::new(kind, msg)
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
        let mut about = sub
            .get_long_about()
            .or(sub.get_about())
            .map(ToString::to_string)
            .unwrap_or_default();
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
        // A long description's paragraphs (record's says what a recording holds) stay apart.
        for (i, paragraph) in about.split("\n\n").enumerate() {
            if i > 0 {
                roff.control("IP", []);
            }
            roff.text([roff::roman(paragraph.replace('\n', " "))]);
        }
    }
    roff.to_writer(out)?;
    man.render_version_section(out)
}

/// Where `serve` listens by default: loopback, on a port outside 9100–9999 (the range the
/// Prometheus exporters' port list has handed out to exporters, node_exporter's 9100 first).
pub const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 19100);

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
    Once(OutputFormat),
    /// The exposition (text format 0.0.4) written to DIR/zswaptop.prom.
    Textfile,
    /// A line per interval: text columns, or JSON Lines; at most `count` lines.
    Watch {
        json: bool,
        count: Option<u64>,
    },
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
    /// `--once --full`: the complete text report rather than the one-screen summary.
    pub full: bool,
    pub history: Duration,
    /// Capture the mouse in the dashboard (not with --no-mouse).
    pub mouse: bool,
    /// Extra scans `--once` asks for.
    pub extras: crate::sources::Extras,
    /// `--textfile DIR`.
    pub textfile: Option<PathBuf>,
    /// The dashboard or `--once` records its samples here (`--record`).
    pub record: Option<PathBuf>,
    /// `--once` over a recorded moment (`--from PATH --at TIME`).
    pub from: Option<(PathBuf, String)>,
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
    #[error("--textfile writes the Prometheus text format: drop --json and --format")]
    TextfileFormat,
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
        let once = cli.once || cli.from.is_some();
        let mode = match (cli.format, cli.json, once, &cli.textfile) {
            (Some(_), _, _, Some(_)) | (_, true, _, Some(_)) => {
                return Err(SettingsError::TextfileFormat);
            }
            (None, false, _, Some(_)) => Mode::Textfile,
            _ if cli.watch => Mode::Watch {
                json: cli.json,
                count: cli.count,
            },
            (Some(f), _, _, None) => Mode::Once(f),
            (None, true, _, None) => Mode::Once(OutputFormat::Json),
            (None, false, once, None) if once || cli.full => Mode::Once(OutputFormat::Text),
            (None, false, _, None) => Mode::Dashboard,
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
            full: cli.full,
            history: Duration::from_secs_f64(cli.history * 60.0),
            mouse: !cli.no_mouse,
            extras: crate::sources::Extras {
                top_processes: cli.top,
                cgroups: cli.cgroups,
                settings: false,
            },
            textfile: cli.textfile,
            record: cli.record,
            from: cli.from.zip(cli.at),
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
        assert_eq!(
            parse(&["--once"]).unwrap().mode,
            Mode::Once(OutputFormat::Text)
        );
        assert_eq!(
            parse(&["--json"]).unwrap().mode,
            Mode::Once(OutputFormat::Json)
        );
        assert_eq!(
            parse(&["--format", "json"]).unwrap().mode,
            Mode::Once(OutputFormat::Json)
        );
        assert_eq!(
            parse(&["--once", "--format", "text"]).unwrap().mode,
            Mode::Once(OutputFormat::Text)
        );
        assert!(Cli::try_parse_from(["zswaptop", "--format", "yaml"]).is_err());
        assert_eq!(parse(&[]).unwrap().mode, Mode::Dashboard);
    }

    #[test]
    fn formats_and_the_textfile() {
        assert_eq!(
            parse(&["--format", "openmetrics"]).unwrap().mode,
            Mode::Once(OutputFormat::Openmetrics)
        );
        assert_eq!(
            parse(&["--once", "--format=prometheus"]).unwrap().mode,
            Mode::Once(OutputFormat::Prometheus)
        );
        assert!(Cli::try_parse_from(["zswaptop", "--json", "--format", "openmetrics"]).is_err());
        let t = parse(&["--textfile", "/tmp"]).unwrap();
        assert_eq!(t.mode, Mode::Textfile);
        assert_eq!(t.textfile, Some(PathBuf::from("/tmp")));
        for other in [&["--json"][..], &["--format", "openmetrics"]] {
            let mut args = vec!["--textfile", "/tmp"];
            args.extend_from_slice(other);
            assert_eq!(parse(&args).unwrap_err(), SettingsError::TextfileFormat);
        }
    }

    #[test]
    fn serve_listens_on_loopback_unless_told() {
        let c = |args: &[&str]| {
            let mut v = vec!["zswaptop"];
            v.extend_from_slice(args);
            Cli::try_parse_from(v).map(|c| c.command)
        };
        match c(&["serve"]).unwrap() {
            Some(Command::Serve {
                listen,
                root,
                web_config,
            }) => {
                assert!(listen.ip().is_loopback());
                assert_eq!(listen, DEFAULT_LISTEN);
                assert_eq!(root, None);
                assert_eq!(web_config, None);
            }
            other => panic!("{other:?}"),
        }
        match c(&["serve", "--listen", "0.0.0.0:9999"]).unwrap() {
            Some(Command::Serve { listen, .. }) => assert_eq!(listen.port(), 9999),
            other => panic!("{other:?}"),
        }
        match c(&["serve", "--web-config", "/etc/web.yml"]).unwrap() {
            Some(Command::Serve { web_config, .. }) => {
                assert_eq!(web_config, Some(PathBuf::from("/etc/web.yml")));
            }
            other => panic!("{other:?}"),
        }
        assert!(c(&["serve", "--listen", "nowhere"]).is_err());
        assert!(
            c(&["--once", "serve"]).is_err(),
            "flags are the dashboard's"
        );
        assert_eq!(c(&[]).unwrap(), None);
    }

    #[test]
    fn watch_modes() {
        assert_eq!(
            parse(&["--watch"]).unwrap().mode,
            Mode::Watch {
                json: false,
                count: None
            }
        );
        assert_eq!(
            parse(&["--watch", "--json", "--count", "3"]).unwrap().mode,
            Mode::Watch {
                json: true,
                count: Some(3)
            }
        );
        assert!(Cli::try_parse_from(["zswaptop", "--watch", "--once"]).is_err());
        assert!(Cli::try_parse_from(["zswaptop", "--count", "3"]).is_err());
        assert!(parse(&["--once", "--full"]).unwrap().full);
        assert_eq!(
            parse(&["--full"]).unwrap().mode,
            Mode::Once(OutputFormat::Text)
        );
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
