//! The command line: clap's [`Cli`], validated into a [`Mode`] that carries each mode's own
//! settings (no clap types past this module), which [`crate::run`] dispatches.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// The version `--version` and the man page show: the crate's, with the git revision it was
/// built from when built from a checkout (build.rs).
pub const VERSION: &str = env!("ZSWAPTOP_VERSION");

/// `--version`: the version, and whether the swap-in latency programs are built in (a release
/// checks it: scripts/build-static.sh).
#[cfg(zswaptop_bpf)]
pub const LONG_VERSION: &str = concat!(
    env!("ZSWAPTOP_VERSION"),
    "\nbpf: built in (swap-in latency programs)"
);
#[cfg(not(zswaptop_bpf))]
pub const LONG_VERSION: &str = concat!(
    env!("ZSWAPTOP_VERSION"),
    "\nbpf: not built in (no clang at build time: no swap-in latency)"
);

use crate::app::Palette;
use crate::config::{self, Config};
use crate::record::export::ExportFormat;
use crate::report::OutputFormat;
use crate::sources::Extras;
use crate::sources::sampler::MIN_INTERVAL;
use crate::{advise, app, diagnostics, fleet, record, report, serve, watch};

mod man;

/// What `--help` ends with: where the rest is.
const EPILOGUE: &str = "In the dashboard, press ? for its keys. The manual: man zswaptop (or zswaptop man | man -l -). \
Defaults come from ~/.config/zswaptop/config.toml (zswaptop config prints them).";

/// zswaptop: where your memory really is when zswap or zram compresses it.
#[derive(Debug, Parser)]
#[command(
    name = "zswaptop",
    version = VERSION,
    long_version = LONG_VERSION,
    about,
    long_about = None,
    after_help = EPILOGUE,
    max_term_width = 100,
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

    /// The colours: default, light (for a light background) or mono (none). Overrides the
    /// configuration's theme.
    #[arg(long, value_name = "THEME", value_parser = theme_parser())]
    pub theme: Option<Palette>,

    /// Draw with ASCII characters only.
    #[arg(long)]
    pub ascii: bool,

    /// With --once: list the N processes using the most swap: RSS, swap, footprint (RSS + swap),
    /// their estimated zswap share and the RAM their swap takes compressed (both estimates:
    /// swap × their cgroup's zswap ÷ swap on cgroup v2, else × the system's, said per row), and
    /// the swapped shmem they map with SwapPss (smaps_rollup, which needs ptrace access to them).
    /// N is at least 1: without --top no process is listed.
    #[arg(long, value_name = "N", value_parser = parse_top)]
    pub top: Option<usize>,

    /// With --once: show memory, swap and zswap per cgroup (zswap on cgroup v2 only).
    #[arg(long)]
    pub cgroups: bool,

    /// How much history the dashboard graphs keep, in minutes (default 10).
    #[arg(long, value_name = "MINUTES")]
    pub history: Option<f64>,

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

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Which configuration file to read.
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct ConfigArgs {
    /// Read the configuration from PATH instead of ~/.config/zswaptop/config.toml
    /// ($XDG_CONFIG_HOME/zswaptop/config.toml).
    #[arg(long, value_name = "PATH", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Read no configuration file: the built-in defaults.
    #[arg(long)]
    pub no_config: bool,
}

impl ConfigArgs {
    fn source(&self) -> config::Source {
        match (&self.config, self.no_config) {
            (_, true) => config::Source::None,
            (Some(p), false) => config::Source::File(p.clone()),
            (None, false) => config::Source::Default,
        }
    }
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
        /// node_exporter's --web.config.file (the Prometheus exporter toolkit's). FILE and the
        /// certificate, key and CA files it names must be regular files (at most 1 MiB, 4 MiB
        /// for the PEM files); an error in it gives its line and column, never its text.
        /// basic_auth_users with no user is refused; a key file its group or others may read
        /// is warned about.
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
    /// Print the configuration in effect as a commented configuration file (every key, its
    /// default or the file's value): `zswaptop config > ~/.config/zswaptop/config.toml` starts
    /// one.
    Config(ConfigArgs),
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
    /// Every host running `zswaptop serve`, worst first, read from the Prometheus (or Thanos,
    /// Mimir, VictoriaMetrics) that scrapes them: pool against its limit, time to full, hit
    /// ratio, writeback, pressure, findings. With --once, printed once.
    Fleet(FleetArgs),
}

/// `zswaptop fleet`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct FleetArgs {
    /// The query API's URL (http://host:9090, https://…/prometheus); default: the
    /// configuration file's fleet.prometheus.
    #[arg(long, value_name = "URL")]
    pub prometheus: Option<String>,
    /// Narrow every query by these label matchers, e.g. '{job="zswaptop"}'.
    #[arg(long, value_name = "MATCHERS")]
    pub selector: Option<String>,
    /// Print the fleet once and exit (text within 80 columns, or --json); without it, the fleet
    /// view (Enter opens a host's last hour).
    #[arg(long)]
    pub once: bool,
    /// With --once: JSON (a `fleet` object) instead of text.
    #[arg(long, requires = "once")]
    pub json: bool,
    /// The CA certificates (PEM) the server's must chain to (https; default: the system's).
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// A client certificate (PEM), with --key-file.
    #[arg(long, value_name = "FILE", requires = "key_file")]
    pub cert_file: Option<PathBuf>,
    /// The client certificate's key (PEM).
    #[arg(long, value_name = "FILE", requires = "cert_file")]
    pub key_file: Option<PathBuf>,
    /// The name the server's certificate must carry, when not the URL's host.
    #[arg(long, value_name = "NAME")]
    pub server_name: Option<String>,
    /// Basic auth user (the password from --password-file).
    #[arg(long, value_name = "USER")]
    pub username: Option<String>,
    /// The file whose first line is the basic auth password.
    #[arg(long, value_name = "FILE", requires = "username")]
    pub password_file: Option<PathBuf>,
    /// The file whose first line is a bearer token (Authorization: Bearer).
    #[arg(long, value_name = "FILE", conflicts_with = "username")]
    pub bearer_token_file: Option<PathBuf>,
    /// Seconds one query may take, answer included.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
    /// The largest answer read (64M, 1G).
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_bytes: u64,
    #[command(flatten)]
    pub config: ConfigArgs,
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
    #[arg(long, value_name = "N", value_parser = parse_top)]
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
    /// How much history the graphs keep, in minutes (default 10).
    #[arg(long, value_name = "MINUTES")]
    pub history: Option<f64>,
    /// Draw with ASCII characters only.
    #[arg(long)]
    pub ascii: bool,
    /// Never use colour.
    #[arg(long)]
    pub no_color: bool,
    /// The colours: default, light or mono.
    #[arg(long, value_name = "THEME", value_parser = theme_parser())]
    pub theme: Option<Palette>,
    /// Leave the mouse to the terminal.
    #[arg(long)]
    pub no_mouse: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
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

/// `--theme`: the themes' names (which completions offer).
fn theme_parser() -> impl clap::builder::TypedValueParser<Value = Palette> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Palette::ALL.map(Palette::name))
        .map(|s| Palette::named(&s).unwrap_or_default())
}

/// `--top N`: a count of at least 1, said in words when it is not.
fn parse_top(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("N must be at least 1 (without --top no process is listed)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("N must be a whole number of processes, at least 1".into()),
    }
}

fn parse_size(s: &str) -> Result<u64, String> {
    parse_size::parse_size(s).map_err(|e| format!("{e} (use a size like 64M, 1GiB or 500000)"))
}

/// `record --max-size`: a size of at least what two files of a rotated recording need.
fn parse_max_size(s: &str) -> Result<u64, String> {
    let size = parse_size(s)?;
    let opts = record::WriterOptions {
        max_size: Some(size),
        ..record::WriterOptions::default()
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

/// What zswaptop was asked to do, validated: each mode with its own settings.
#[derive(Debug)]
pub enum Mode {
    /// The live dashboard on `root` (a captured tree; `/` when `None`), recording its samples
    /// to `record` when given.
    Dashboard {
        root: Option<PathBuf>,
        settings: app::Settings,
        record: Option<PathBuf>,
    },
    /// One report (`--once`, `--format`, `--json`, `--full`, `--from`).
    Once(Once),
    /// A line per interval (`--watch`).
    Watch {
        root: Option<PathBuf>,
        options: watch::Options,
    },
    /// The exposition (text format 0.0.4) written to DIR/zswaptop.prom (`--textfile DIR`).
    Textfile {
        root: Option<PathBuf>,
        dir: PathBuf,
        /// Two samples this far apart, for rates.
        interval: Option<Duration>,
        extras: Extras,
        /// What the rules judge by (the configuration's `[thresholds]`).
        thresholds: diagnostics::Thresholds,
    },
    /// `zswaptop serve`.
    Serve {
        listen: SocketAddr,
        root: Option<PathBuf>,
        web: serve::WebConfig,
    },
    /// `zswaptop record`.
    Record(record::recorder::Options),
    /// `zswaptop replay`: the dashboard over the recording at `path`, from the moment `at`.
    Replay {
        path: PathBuf,
        at: Option<String>,
        settings: app::Settings,
    },
    /// `zswaptop export`.
    Export(record::export::Options),
    /// `zswaptop completions SHELL`.
    Completions(clap_complete::Shell),
    /// `zswaptop man`.
    Man,
    /// `zswaptop config`: the configuration in effect, as a commented file.
    Config(String),
    /// `zswaptop advise`.
    Advise(advise::Options),
    /// `zswaptop fleet`: printed once, or the fleet dashboard.
    Fleet { options: fleet::Options, once: bool },
}

/// One report, and what it is a report of.
#[derive(Debug, Clone, PartialEq)]
pub struct Once {
    pub format: OutputFormat,
    /// Colour (the text format only).
    pub color: bool,
    /// The complete text report rather than the one-screen summary.
    pub full: bool,
    /// ASCII characters only (the text format only): `--ascii`, or a locale that is not UTF-8.
    pub ascii: bool,
    /// What the rules judge by (the configuration's `[thresholds]`).
    pub thresholds: diagnostics::Thresholds,
    pub of: Moment,
}

/// What a report is of.
#[derive(Debug, Clone, PartialEq)]
pub enum Moment {
    /// This system (or the tree at `root`) now: one sample, or with `interval` two that far
    /// apart; recorded to `record` too when given.
    Live {
        root: Option<PathBuf>,
        interval: Option<Duration>,
        extras: Extras,
        record: Option<PathBuf>,
    },
    /// The sample recorded at or before the moment `at` of the recording at `path`.
    Recorded { path: PathBuf, at: String },
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

/// What the environment says, for what the command line leaves to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Env {
    /// NO_COLOR is set (and not empty).
    pub no_color: bool,
    /// Standard output is a terminal.
    pub stdout_tty: bool,
    /// The locale's character set is UTF-8 (otherwise the dashboard draws with ASCII).
    pub utf8: bool,
    /// TERM is `dumb`: no colour, and no dashboard (it moves the cursor).
    pub dumb: bool,
}

impl Env {
    /// This process's environment.
    pub fn current() -> Env {
        Env {
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            stdout_tty: std::io::stdout().is_terminal(),
            utf8: crate::ui::locale_is_utf8(|k| std::env::var(k).ok()),
            dumb: std::env::var_os("TERM").is_some_and(|t| t == "dumb"),
        }
    }
}

/// Settings that do not make sense: said on stderr, and the process ends with status 2, as
/// for an argument clap refuses.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error("interval '{0}' is not a number of seconds of at least 0.1")]
    Interval(f64),
    #[error("duration '{0}' is not a number of seconds of at least 0.1")]
    Duration(f64),
    #[error("history '{0}' must be a positive number of minutes (at most 1440)")]
    History(f64),
    #[error("root '{0}' is not a directory")]
    Root(String),
    #[error("--textfile writes the Prometheus text format: drop --json and --format")]
    TextfileFormat,
    #[error(
        "the dashboard needs a terminal that can move its cursor, and TERM=dumb says this one \
         cannot: use --once or --watch, or set TERM to the terminal's type (xterm-256color)"
    )]
    DumbTerminal,
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    #[error("--watch does not list {0}: use --once {0} (or --json for every sample)")]
    WatchTables(&'static str),
    #[error(transparent)]
    WebConfig(#[from] serve::WebConfigError),
    #[error("fleet: {0}")]
    Fleet(String),
}

/// The mode the process's arguments ask for. Help and `--version` are printed here, and the
/// process ends (status 0); an argument clap refuses, or settings that do not make sense, are
/// said on stderr, and the status to end with is the error (2).
pub fn parse(env: &Env) -> Result<Mode, u8> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and --version: the program's own text, on stdout.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            // An error quotes the arguments, which may come from outside (a file name a glob
            // expanded): parsed again without clap's colours, so that its lines hold no escape
            // sequence but the arguments' own, and each is made safe like every other message.
            let plain = Cli::command()
                .styles(clap::builder::Styles::plain())
                .try_get_matches()
                .err()
                .unwrap_or(e);
            crate::console::lines(plain.render().ansi());
            return Err(u8::try_from(plain.exit_code()).unwrap_or(2));
        }
    };
    let fail = |e: UsageError| {
        crate::console::error(e);
        2
    };
    let loaded = config::load(&cli.config_source()).map_err(|e| fail(e.into()))?;
    for w in &loaded.warnings {
        crate::console::warn(w);
    }
    if let Some(Command::Config(_)) = cli.command {
        return Ok(Mode::Config(
            loaded.config.commented(loaded.path.as_deref()),
        ));
    }
    crate::sources::bpf::configure(loaded.config.bpf.enabled, loaded.config.bpf.probes);
    Mode::from_cli_with(cli, env, &loaded.config).map_err(fail)
}

impl Cli {
    /// The configuration file the command line asks for: the dashboard's, `--once`'s and
    /// `--watch`'s, `replay`'s and `config`'s; the other commands read none (`serve`, `record`,
    /// `export`, `advise` run on the built-in thresholds, the same on every machine).
    fn config_source(&self) -> config::Source {
        match &self.command {
            None => self.config.source(),
            Some(Command::Replay(args)) => args.config.source(),
            Some(Command::Config(args)) => args.source(),
            Some(Command::Fleet(args)) => args.config.source(),
            Some(_) => config::Source::None,
        }
    }
}

/// The dashboard's settings for the command line `args` (the program's name first), where
/// NO_COLOR is set as `no_color` says and the locale is UTF-8; `None` for arguments that ask for
/// another mode or do not make sense. What the dashboard's tests and benches build their apps
/// from.
pub fn dashboard_settings(args: &[&str], no_color: bool) -> Option<app::Settings> {
    let env = Env {
        no_color,
        stdout_tty: true,
        utf8: true,
        dumb: false,
    };
    match Mode::from_cli(Cli::try_parse_from(args).ok()?, &env).ok()? {
        Mode::Dashboard { settings, .. } => Some(settings),
        _ => None,
    }
}

/// Seconds as a duration, when they are a number in `MIN_INTERVAL..=max_secs`.
fn seconds(s: f64, max_secs: f64) -> Option<Duration> {
    (s.is_finite() && s >= MIN_INTERVAL.as_secs_f64() && s <= max_secs)
        .then(|| Duration::from_secs_f64(s))
}

/// Minutes of history as a duration, when they are a positive number up to a day.
fn history(minutes: f64) -> Result<Duration, UsageError> {
    if minutes.is_finite() && minutes > 0.0 && minutes <= config::MAX_HISTORY_MINUTES {
        Ok(Duration::from_secs_f64(minutes * 60.0))
    } else {
        Err(UsageError::History(minutes))
    }
}

/// `root`, when it is a directory.
fn root_dir(root: Option<PathBuf>) -> Result<Option<PathBuf>, UsageError> {
    match root {
        Some(r) if !r.is_dir() => Err(UsageError::Root(r.display().to_string())),
        r => Ok(r),
    }
}

impl Mode {
    /// The mode `cli` asks for, its settings checked, in the environment `env`, on the built-in
    /// defaults (no configuration file).
    pub(crate) fn from_cli(cli: Cli, env: &Env) -> Result<Mode, UsageError> {
        Mode::from_cli_with(cli, env, &Config::default())
    }

    /// The mode `cli` asks for, over the configuration `conf`: the defaults, then `conf`, then
    /// the environment `env`, then the command line.
    pub(crate) fn from_cli_with(cli: Cli, env: &Env, conf: &Config) -> Result<Mode, UsageError> {
        if let Some(command) = cli.command {
            return Mode::of_command(command, env, conf);
        }
        let dash = &conf.dashboard;
        // A sampling interval; with --once, two samples this far apart.
        let interval = match cli.interval {
            Some(s) => {
                Some(seconds(s, config::MAX_INTERVAL_SECONDS).ok_or(UsageError::Interval(s))?)
            }
            None => None,
        };
        // The configuration's interval is the dashboard's and --watch's (--once takes one
        // sample unless -i asks for two).
        let every = interval.unwrap_or(Duration::from_secs_f64(dash.interval));
        let history = history(cli.history.unwrap_or(dash.history))?;
        let theme = cli.theme.unwrap_or(dash.theme);
        let root = root_dir(cli.root)?;
        let once = cli.once || cli.from.is_some() || cli.full;
        let extras = Extras {
            top_processes: cli.top,
            // --once --top N lists N processes once: their smaps_rollup too (shmem swap,
            // SwapPss). Not every interval of --watch: it walks each one's page tables.
            smaps: cli.top.is_some() && once,
            cgroups: cli.cgroups,
            settings: false,
        };
        let color = |dashboard: bool| match (cli.no_color, cli.color) {
            (true, _) | (false, ColorWhen::Never) => false,
            _ if theme == Palette::Mono => false,
            (false, ColorWhen::Always) => true,
            (false, ColorWhen::Auto) => !env.no_color && !env.dumb && (env.stdout_tty || dashboard),
        };
        let format = match (cli.format, cli.json, &cli.textfile) {
            (Some(_), _, Some(_)) | (_, true, Some(_)) => return Err(UsageError::TextfileFormat),
            (None, false, Some(_)) => None,
            _ if cli.watch => None,
            (Some(f), _, None) => Some(f),
            (None, true, None) => Some(OutputFormat::Json),
            (None, false, None) => once.then_some(OutputFormat::Text),
        };
        Ok(match (cli.textfile, format) {
            (Some(dir), _) => Mode::Textfile {
                root,
                dir,
                interval,
                extras: report::metrics_extras(extras),
                thresholds: conf.thresholds.clone(),
            },
            (None, _) if cli.watch && cli.top.is_some() => {
                return Err(UsageError::WatchTables("--top"));
            }
            (None, _) if cli.watch && cli.cgroups => {
                return Err(UsageError::WatchTables("--cgroups"));
            }
            (None, _) if cli.watch => Mode::Watch {
                root,
                options: watch::Options {
                    json: cli.json,
                    ascii: cli.ascii || !env.utf8,
                    count: cli.count,
                    interval: every,
                    thresholds: conf.thresholds.clone(),
                },
            },
            (None, Some(format)) => Mode::Once(Once {
                format,
                color: color(false),
                full: cli.full,
                ascii: cli.ascii || !env.utf8,
                thresholds: conf.thresholds.clone(),
                of: match cli.from.zip(cli.at) {
                    Some((path, at)) => Moment::Recorded { path, at },
                    None => Moment::Live {
                        root,
                        interval,
                        extras: if format.is_exposition() {
                            report::metrics_extras(extras)
                        } else {
                            extras
                        },
                        record: cli.record,
                    },
                },
            }),
            (None, None) if env.dumb => return Err(UsageError::DumbTerminal),
            (None, None) => Mode::Dashboard {
                root,
                settings: app::Settings {
                    interval: Some(every),
                    color: color(true),
                    theme,
                    ascii: cli.ascii || !env.utf8,
                    history,
                    mouse: dash.mouse && !cli.no_mouse,
                    extras,
                    view: dash.view,
                    proc_sort: dash.processes_sort,
                    cgroup_sort: dash.cgroups_sort,
                    views: crate::ui::views::VIEWS,
                    thresholds: conf.thresholds.clone(),
                },
                record: cli.record,
            },
        })
    }

    fn of_command(command: Command, env: &Env, conf: &Config) -> Result<Mode, UsageError> {
        Ok(match command {
            Command::Serve {
                listen,
                root,
                web_config,
            } => {
                let web = match web_config {
                    Some(path) => serve::WebConfig::load(&path)?,
                    None => serve::WebConfig::default(),
                };
                Mode::Serve {
                    listen,
                    root: root_dir(root)?,
                    web,
                }
            }
            Command::Completions { shell } => Mode::Completions(shell),
            Command::Man => Mode::Man,
            Command::Config(_) => Mode::Config(conf.commented(None)),
            Command::Record(args) => Mode::Record(record::recorder::Options {
                interval: seconds(args.interval, 366.0 * 86_400.0)
                    .ok_or(UsageError::Interval(args.interval))?,
                duration: match args.duration {
                    Some(d) => Some(seconds(d, 366.0 * 86_400.0).ok_or(UsageError::Duration(d))?),
                    None => None,
                },
                path: args.path,
                max_size: args.max_size,
                top: args.top,
                command_lines: args.command_lines,
                root: args.root,
            }),
            Command::Replay(_) if env.dumb => return Err(UsageError::DumbTerminal),
            Command::Replay(args) => {
                let dash = &conf.dashboard;
                let theme = args.theme.unwrap_or(dash.theme);
                Mode::Replay {
                    settings: app::Settings {
                        interval: Some(app::replay::TICK),
                        color: !(args.no_color || env.no_color || theme == Palette::Mono),
                        theme,
                        ascii: args.ascii || !env.utf8,
                        history: history(args.history.unwrap_or(dash.history))?,
                        mouse: dash.mouse && !args.no_mouse,
                        extras: Extras::default(),
                        view: dash.view,
                        proc_sort: dash.processes_sort,
                        cgroup_sort: dash.cgroups_sort,
                        views: crate::ui::views::VIEWS,
                        thresholds: conf.thresholds.clone(),
                    },
                    path: args.path,
                    at: args.at,
                }
            }
            Command::Export(args) => Mode::Export(record::export::Options {
                from: args.from,
                since: args.since,
                until: args.until,
                format: args.format,
            }),
            Command::Advise(args) => Mode::Advise(advise::Options {
                root: args.root,
                pids: args.pids,
                sample_bytes: args.sample,
                json: args.json,
            }),
            Command::Fleet(args) => Mode::Fleet {
                once: args.once,
                options: fleet_options(args, conf)?,
            },
        })
    }
}

/// `zswaptop fleet`'s options: the URL and selector from the command line, else the
/// configuration file.
fn fleet_options(args: FleetArgs, conf: &Config) -> Result<fleet::Options, UsageError> {
    let url = args
        .prometheus
        .or_else(|| Some(conf.fleet.prometheus.clone()).filter(|u| !u.is_empty()))
        .ok_or_else(|| {
            UsageError::Fleet(
                "no query API to read: give --prometheus URL (or set fleet.prometheus in the \
                 configuration file)"
                    .into(),
            )
        })?;
    let selector = args.selector.unwrap_or_else(|| conf.fleet.selector.clone());
    let timeout = seconds(args.timeout, 3600.0).ok_or_else(|| {
        UsageError::Fleet(format!(
            "--timeout {}: a number of seconds from 0.1 to 3600",
            args.timeout
        ))
    })?;
    Ok(fleet::Options {
        url,
        selector: fleet::Selector::parse(&selector).map_err(UsageError::Fleet)?,
        http: fleet::Http {
            timeout,
            max_bytes: args.max_bytes,
            ca_file: args.ca_file,
            cert_file: args.cert_file,
            key_file: args.key_file,
            server_name: args.server_name,
            username: args.username,
            password_file: args.password_file,
            bearer_token_file: args.bearer_token_file,
        },
        json: args.json,
    })
}

/// The completion script for `shell`, written to `out` once made whole in memory (clap_complete
/// panics on a write error, and `zswaptop completions bash | head` must not).
pub(crate) fn completions(
    shell: clap_complete::Shell,
    out: &mut impl Write,
) -> std::io::Result<()> {
    // A value that is neither a path nor one of a list (an address, a number, a time) is said to
    // be "other", so that no shell offers file names for it (clap_complete leaves a value with
    // no hint to the shell's default: file names).
    let no_files = |a: clap::Arg| {
        if a.get_value_hint() == clap::ValueHint::Unknown
            && a.get_action().takes_values()
            && !a.is_positional()
        {
            a.value_hint(clap::ValueHint::Other)
        } else {
            a
        }
    };
    let mut cmd = Cli::command()
        .mut_args(no_files)
        .mut_subcommands(|s| s.mut_args(no_files));
    let mut text = Vec::new();
    clap_complete::generate(shell, &mut cmd, "zswaptop", &mut text);
    if shell == clap_complete::Shell::Fish {
        text = fish(&cmd, &String::from_utf8_lossy(&text)).into_bytes();
    }
    out.write_all(&text)
}

/// clap_complete's fish script, made to offer values where it offers file names:
///
/// - after an option of the dashboard that takes a value (`zswaptop --format ␠`), its test for
///   "no command yet" runs fish's argparse over the line, which fails on the option left without
///   its value, and then nothing of the dashboard's applies: that failure still means no command
///   yet;
/// - a command's positional values (`completions ␠`: the shells) are not in it at all.
fn fish(cmd: &clap::Command, script: &str) -> String {
    const ARGPARSE: &str = "2>/dev/null\n    or return\n";
    let mut out = script.replacen(ARGPARSE, "2>/dev/null\n    or return 0\n", 1);
    for sub in cmd.get_subcommands() {
        for arg in sub.get_positionals() {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if !values.is_empty() {
                out.push_str(&format!(
                    "complete -c zswaptop -n \"__fish_zswaptop_using_subcommand {}\" -f -a \"{}\"\n",
                    sub.get_name(),
                    values.join(" ")
                ));
            }
        }
    }
    out
}

/// The manual page (roff), written to `out` once made whole in memory.
pub(crate) fn man(out: &mut impl Write) -> std::io::Result<()> {
    let mut text = Vec::new();
    man::page(&Cli::command(), &mut text)?;
    out.write_all(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENV: Env = Env {
        no_color: false,
        stdout_tty: false,
        utf8: true,
        dumb: false,
    };

    fn parse(args: &[&str]) -> Result<Mode, UsageError> {
        let mut v = vec!["zswaptop"];
        v.extend_from_slice(args);
        Mode::from_cli(Cli::parse_from(v), &ENV)
    }

    /// The format of the report `args` ask for (`None`: another mode).
    fn format(args: &[&str]) -> Option<OutputFormat> {
        match parse(args).unwrap() {
            Mode::Once(o) => Some(o.format),
            _ => None,
        }
    }

    fn dashboard(args: &[&str]) -> app::Settings {
        match parse(args).unwrap() {
            Mode::Dashboard { settings, .. } => settings,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clap_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn modes() {
        assert_eq!(format(&["--once"]), Some(OutputFormat::Text));
        assert_eq!(format(&["--json"]), Some(OutputFormat::Json));
        assert_eq!(format(&["--format", "json"]), Some(OutputFormat::Json));
        assert_eq!(
            format(&["--once", "--format", "text"]),
            Some(OutputFormat::Text)
        );
        assert!(Cli::try_parse_from(["zswaptop", "--format", "yaml"]).is_err());
        assert!(matches!(parse(&[]).unwrap(), Mode::Dashboard { .. }));
    }

    #[test]
    fn formats_and_the_textfile() {
        assert_eq!(
            format(&["--format", "openmetrics"]),
            Some(OutputFormat::Openmetrics)
        );
        assert_eq!(
            format(&["--once", "--format=prometheus"]),
            Some(OutputFormat::Prometheus)
        );
        assert!(Cli::try_parse_from(["zswaptop", "--json", "--format", "openmetrics"]).is_err());
        match parse(&["--textfile", "/tmp", "--top", "3"]).unwrap() {
            Mode::Textfile { dir, extras, .. } => {
                assert_eq!(dir, PathBuf::from("/tmp"));
                // The exposition's top cgroups need the cgroup scan.
                assert!(extras.cgroups && extras.top_processes == Some(3));
            }
            other => panic!("{other:?}"),
        }
        for other in [&["--json"][..], &["--format", "openmetrics"]] {
            let mut args = vec!["--textfile", "/tmp"];
            args.extend_from_slice(other);
            assert!(matches!(
                parse(&args).unwrap_err(),
                UsageError::TextfileFormat
            ));
        }
    }

    /// A live report scans the cgroup tree for an exposition (its top cgroups), and as asked
    /// otherwise; `--from` reports the recorded moment.
    #[test]
    fn what_a_report_is_of() {
        let of = |args: &[&str]| match parse(args).unwrap() {
            Mode::Once(o) => o.of,
            other => panic!("{other:?}"),
        };
        match of(&["--format", "prometheus"]) {
            Moment::Live { extras, .. } => assert!(extras.cgroups),
            other => panic!("{other:?}"),
        }
        match of(&["--once", "-i", "0.5", "--record", "x.zsr"]) {
            Moment::Live {
                extras,
                interval,
                record,
                ..
            } => {
                assert!(!extras.cgroups);
                assert_eq!(interval, Some(Duration::from_millis(500)));
                assert_eq!(record, Some(PathBuf::from("x.zsr")));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            of(&["--json", "--from", "r.zsr", "--at", "-10m"]),
            Moment::Recorded {
                path: "r.zsr".into(),
                at: "-10m".into()
            }
        );
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

    /// What the commands are given is checked with the rest of the command line: a web config
    /// that cannot be used, a root that is not a directory, an interval, a duration or a history
    /// out of range are usage errors.
    #[test]
    fn commands_are_checked_before_they_run() {
        assert!(matches!(
            parse(&["serve", "--web-config", "/nonexistent/web.yml"]).unwrap_err(),
            UsageError::WebConfig(_)
        ));
        assert!(matches!(
            parse(&["serve", "--root", "/nonexistent/tree"]).unwrap_err(),
            UsageError::Root(_)
        ));
        assert!(matches!(
            parse(&["record", "-i", "0.01", "x.zsr"]).unwrap_err(),
            UsageError::Interval(_)
        ));
        assert!(matches!(
            parse(&["record", "--duration", "NaN", "x.zsr"]).unwrap_err(),
            UsageError::Duration(_)
        ));
        assert!(matches!(
            parse(&["replay", "--history", "0", "x.zsr"]).unwrap_err(),
            UsageError::History(_)
        ));
        match parse(&["record", "-i", "2", "--duration", "60", "--top", "3", "x/"]).unwrap() {
            Mode::Record(o) => {
                assert_eq!(o.interval, Duration::from_secs(2));
                assert_eq!(o.duration, Some(Duration::from_secs(60)));
                assert_eq!((o.top, o.path), (Some(3), PathBuf::from("x/")));
            }
            other => panic!("{other:?}"),
        }
        match parse(&["replay", "--ascii", "x.zsr"]).unwrap() {
            Mode::Replay { settings, path, at } => {
                assert_eq!((path, at), (PathBuf::from("x.zsr"), None));
                assert_eq!(settings.interval, Some(app::replay::TICK));
                assert!(settings.ascii && settings.color && settings.mouse);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn watch_modes() {
        let watch = |args: &[&str]| match parse(args).unwrap() {
            Mode::Watch { options, .. } => options,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            watch(&["--watch"]),
            watch::Options {
                json: false,
                ascii: false,
                count: None,
                interval: crate::sources::sampler::DEFAULT_INTERVAL,
                thresholds: diagnostics::Thresholds::default(),
            }
        );
        assert_eq!(
            watch(&["--watch", "--json", "--count", "3", "-i", "0.2"]),
            watch::Options {
                json: true,
                ascii: false,
                count: Some(3),
                interval: Duration::from_millis(200),
                thresholds: diagnostics::Thresholds::default(),
            }
        );
        assert!(Cli::try_parse_from(["zswaptop", "--watch", "--once"]).is_err());
        for table in ["--top", "--cgroups"] {
            let args: &[&str] = if table == "--top" {
                &["--watch", "--top", "5"]
            } else {
                &["--watch", "--cgroups"]
            };
            match parse(args).unwrap_err() {
                e @ UsageError::WatchTables(_) => assert!(e.to_string().contains(table)),
                other => panic!("{other:?}"),
            }
        }
        assert!(Cli::try_parse_from(["zswaptop", "--count", "3"]).is_err());
        assert!(matches!(parse(&["--once", "--full"]).unwrap(), Mode::Once(o) if o.full));
        assert_eq!(format(&["--full"]), Some(OutputFormat::Text));
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
        assert!(dashboard(&[]).mouse);
        assert!(!dashboard(&["--no-mouse"]).mouse);
    }

    /// The dashboard draws with ASCII in a locale that is not UTF-8, and with colour unless told
    /// otherwise (its stdout is a terminal).
    #[test]
    fn the_dashboard_and_its_environment() {
        let s = dashboard(&["--top", "7", "--history", "0.5"]);
        assert!(s.color && !s.ascii);
        assert_eq!(s.history, Duration::from_secs(30));
        assert_eq!(s.extras.top_processes, Some(7));
        let not_utf8 = Env { utf8: false, ..ENV };
        match Mode::from_cli(Cli::parse_from(["zswaptop"]), &not_utf8).unwrap() {
            Mode::Dashboard { settings, .. } => assert!(settings.ascii),
            other => panic!("{other:?}"),
        }
        let d = dashboard_settings(&["zswaptop"], false).unwrap();
        assert!(d.color && d.mouse && !d.ascii);
        assert_eq!(d.interval, Some(Duration::from_secs(1)));
        assert_eq!(d.history, Duration::from_secs(600));
        assert!(!dashboard_settings(&["zswaptop"], true).unwrap().color);
        assert_eq!(dashboard_settings(&["zswaptop", "--once"], true), None);
    }

    /// `--top 0` says what is wrong in words, not as clap's range of integers.
    #[test]
    fn top_is_at_least_one_in_words() {
        for args in [
            &["zswaptop", "--top", "0"][..],
            &["zswaptop", "record", "--top", "0", "x"],
        ] {
            let e = Cli::try_parse_from(args).unwrap_err().to_string();
            assert!(e.contains("N must be at least 1"), "{e}");
            assert!(!e.contains("18446744073709551615"), "{e}");
        }
        let e = Cli::try_parse_from(["zswaptop", "--top", "many"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("a whole number"), "{e}");
    }

    /// The configuration's thresholds reach every mode that reads the file, in its own
    /// settings (no setting of the process): the dashboard, replay, --once (live and --from),
    /// --watch and --textfile.
    #[test]
    fn the_configured_thresholds_travel_in_each_mode() {
        let mut conf = Config::default();
        conf.thresholds.poor_ratio = 2.5;
        let mode = |args: &[&str]| {
            let mut v = vec!["zswaptop"];
            v.extend_from_slice(args);
            Mode::from_cli_with(Cli::parse_from(v), &ENV, &conf).unwrap()
        };
        let dashboard = match mode(&[]) {
            Mode::Dashboard { settings, .. } => settings.thresholds,
            other => panic!("{other:?}"),
        };
        let replay = match mode(&["replay", "x.zsr"]) {
            Mode::Replay { settings, .. } => settings.thresholds,
            other => panic!("{other:?}"),
        };
        let once = match mode(&["--once"]) {
            Mode::Once(o) => o.thresholds,
            other => panic!("{other:?}"),
        };
        let from = match mode(&["--once", "--from", "x.zsr", "--at", "03:12"]) {
            Mode::Once(o) => o.thresholds,
            other => panic!("{other:?}"),
        };
        let watch = match mode(&["--watch"]) {
            Mode::Watch { options, .. } => options.thresholds,
            other => panic!("{other:?}"),
        };
        let textfile = match mode(&["--textfile", "/tmp"]) {
            Mode::Textfile { thresholds, .. } => thresholds,
            other => panic!("{other:?}"),
        };
        for t in [dashboard, replay, once, from, watch, textfile] {
            assert_eq!(t, conf.thresholds);
        }
        assert_ne!(conf.thresholds, diagnostics::Thresholds::default());
    }

    /// Built-in defaults < the configuration file < the environment < the command line.
    #[test]
    fn the_configuration_file_under_the_command_line() {
        let mut conf = Config::default();
        conf.dashboard.interval = 3.0;
        conf.dashboard.history = 2.0;
        conf.dashboard.theme = Palette::Light;
        conf.dashboard.mouse = false;
        conf.dashboard.view = app::View::Graphs;
        conf.dashboard.processes_sort = app::lists::ProcSort::Pid;
        let mode = |args: &[&str], env: &Env| {
            let mut v = vec!["zswaptop"];
            v.extend_from_slice(args);
            Mode::from_cli_with(Cli::parse_from(v), env, &conf).unwrap()
        };
        let tty = Env {
            stdout_tty: true,
            ..ENV
        };
        match mode(&[], &tty) {
            Mode::Dashboard { settings: s, .. } => {
                assert_eq!(s.interval, Some(Duration::from_secs(3)));
                assert_eq!(s.history, Duration::from_secs(120));
                assert_eq!((s.theme, s.color, s.mouse), (Palette::Light, true, false));
                assert_eq!(s.view, app::View::Graphs);
                assert_eq!(s.proc_sort, app::lists::ProcSort::Pid);
            }
            other => panic!("{other:?}"),
        }
        match mode(&["-i", "0.5", "--history", "1", "--theme", "mono"], &tty) {
            Mode::Dashboard { settings: s, .. } => {
                assert_eq!(s.interval, Some(Duration::from_millis(500)));
                assert_eq!(s.history, Duration::from_secs(60));
                assert_eq!((s.theme, s.color), (Palette::Mono, false));
            }
            other => panic!("{other:?}"),
        }
        // NO_COLOR over the file's theme: a theme, but no colour.
        let no_color = Env {
            no_color: true,
            ..tty
        };
        match mode(&[], &no_color) {
            Mode::Dashboard { settings: s, .. } => assert!(!s.color),
            other => panic!("{other:?}"),
        }
        // --watch samples at the file's interval; --once takes one sample.
        match mode(&["--watch"], &tty) {
            Mode::Watch { options, .. } => assert_eq!(options.interval, Duration::from_secs(3)),
            other => panic!("{other:?}"),
        }
        match mode(&["--once"], &tty) {
            Mode::Once(Once {
                of: Moment::Live { interval, .. },
                ..
            }) => assert_eq!(interval, None),
            other => panic!("{other:?}"),
        }
        match mode(&["replay", "x.zsr"], &tty) {
            Mode::Replay { settings: s, .. } => {
                assert_eq!(
                    (s.theme, s.mouse, s.view),
                    (Palette::Light, false, app::View::Graphs)
                );
                assert_eq!(s.history, Duration::from_secs(120));
            }
            other => panic!("{other:?}"),
        }
    }

    /// TERM=dumb: no colour in a report, even on a terminal; no dashboard (it moves the cursor).
    #[test]
    fn a_dumb_terminal() {
        let dumb = Env {
            dumb: true,
            stdout_tty: true,
            ..ENV
        };
        let run = |args: &[&str]| {
            let mut v = vec!["zswaptop"];
            v.extend_from_slice(args);
            Mode::from_cli(Cli::parse_from(v), &dumb)
        };
        match run(&["--once"]).unwrap() {
            Mode::Once(o) => assert!(!o.color),
            other => panic!("{other:?}"),
        }
        match run(&["--once", "--color=always"]).unwrap() {
            Mode::Once(o) => assert!(o.color, "asked for"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(run(&[]).unwrap_err(), UsageError::DumbTerminal));
        assert!(matches!(
            run(&["replay", "x.zsr"]).unwrap_err(),
            UsageError::DumbTerminal
        ));
        assert!(matches!(run(&["--watch"]).unwrap(), Mode::Watch { .. }));
    }

    /// The mono theme means no colour in a report either.
    #[test]
    fn the_mono_theme_has_no_colour() {
        let tty = Env {
            stdout_tty: true,
            ..ENV
        };
        match Mode::from_cli(
            Cli::parse_from(["zswaptop", "--once", "--theme", "mono"]),
            &tty,
        )
        .unwrap()
        {
            Mode::Once(o) => assert!(!o.color),
            other => panic!("{other:?}"),
        }
        assert!(Cli::try_parse_from(["zswaptop", "--theme", "blue"]).is_err());
    }

    #[test]
    fn bad_interval() {
        assert!(matches!(
            parse(&["-i", "0.05"]).unwrap_err(),
            UsageError::Interval(i) if i == 0.05
        ));
        assert!(parse(&["-i", "NaN"]).is_err());
        assert_eq!(
            dashboard(&["-i", "0.1"]).interval,
            Some(Duration::from_millis(100))
        );
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        let color = |no_color: bool, stdout_tty: bool| {
            let env = Env {
                no_color,
                stdout_tty,
                utf8: true,
                dumb: false,
            };
            match Mode::from_cli(Cli::parse_from(["zswaptop", "--once"]), &env).unwrap() {
                Mode::Once(o) => o.color,
                other => panic!("{other:?}"),
            }
        };
        assert!(color(false, true));
        assert!(!color(true, true));
        assert!(!color(false, false));
    }

    #[test]
    fn color_flag_overrides_the_terminal_and_no_color() {
        let color = |args: &[&str], no_color: bool, stdout_tty: bool| {
            let mut v = vec!["zswaptop", "--once"];
            v.extend_from_slice(args);
            let env = Env {
                no_color,
                stdout_tty,
                utf8: true,
                dumb: false,
            };
            match Mode::from_cli(Cli::parse_from(v), &env).unwrap() {
                Mode::Once(o) => o.color,
                other => panic!("{other:?}"),
            }
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
