//! The configuration file: `$XDG_CONFIG_HOME/zswaptop/config.toml` (`~/.config/zswaptop/` when
//! XDG_CONFIG_HOME is not set), or the file `--config PATH` names; `--no-config` reads none. It
//! keeps what the dashboard starts with (view, interval, history, sort columns, theme, mouse) and
//! the thresholds the diagnostics judge by. Every key is optional and has a default (the
//! built-in one); what the file sets, the environment (NO_COLOR, TERM) and then the command line
//! override.
//!
//! zswaptop only reads the file; `zswaptop config` prints the configuration in effect as a
//! commented file to standard output, which reads back to the same configuration. A key zswaptop
//! does not know is warned about by name and left out; a value of the wrong type, or out of
//! range, is an error naming the file, the line and column, the key and what it must be, and
//! zswaptop does not start (status 2; `--no-config` starts it on the defaults).
//!
//! Parsed by the `toml` crate with serde; the spans of its parse (`toml::de::DeTable`) give the
//! line and column of a key a check refuses, and the keys to warn about.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::de::{DeTable, DeValue};

use crate::app::lists::{CgroupSort, ProcSort};
use crate::app::{Palette, View};
use crate::diagnostics::thresholds::Thresholds;
use crate::sources::sampler::{DEFAULT_INTERVAL, MIN_INTERVAL};

/// The most a configuration file may hold: far more than every key with a comment takes (under
/// 4 KiB), and a bound on what a file that is not one (a device, a log) makes zswaptop read.
const MAX_BYTES: u64 = 1 << 20;
/// The most unknown keys named one by one; the others are counted.
const UNKNOWN_SAID: usize = 20;

/// The configuration: the file's, over the built-in defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    pub dashboard: Dashboard,
    pub thresholds: Thresholds,
    pub fleet: Fleet,
    pub bpf: Bpf,
}

/// `[bpf]`: whether zswaptop loads its swap-in latency programs (`sources::bpf`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Bpf {
    pub enabled: crate::sources::bpf::Mode,
    pub probes: crate::sources::bpf::Probes,
}

/// `[fleet]`: where `zswaptop fleet` reads the fleet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Fleet {
    /// The query API's URL ("" for none: --prometheus then must give it).
    pub prometheus: String,
    /// The label matchers every query is narrowed by ("" for none).
    pub selector: String,
}

/// `[dashboard]`: what the dashboard starts with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Dashboard {
    pub view: View,
    /// Seconds.
    pub interval: f64,
    /// Minutes.
    pub history: f64,
    pub theme: Palette,
    pub mouse: bool,
    pub processes_sort: ProcSort,
    pub cgroups_sort: CgroupSort,
}

impl Default for Dashboard {
    fn default() -> Dashboard {
        Dashboard {
            view: View::ALL[0],
            interval: DEFAULT_INTERVAL.as_secs_f64(),
            history: DEFAULT_HISTORY_MINUTES,
            theme: Palette::Default,
            mouse: true,
            processes_sort: ProcSort::Swap,
            cgroups_sort: CgroupSort::Zswap,
        }
    }
}

/// How much history the dashboard keeps unless told otherwise, in minutes.
pub const DEFAULT_HISTORY_MINUTES: f64 = 10.0;

/// The longest history, in minutes: a day.
pub const MAX_HISTORY_MINUTES: f64 = 1440.0;

/// The longest sampling interval, in seconds: a day.
pub const MAX_INTERVAL_SECONDS: f64 = 86_400.0;

/// A table of the file: its name, what it is, and its keys with what each is.
type TableDoc = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// Every key, by table, with what it is: the comments `zswaptop config` prints (a test checks
/// that every key of [`Config`] is here, and nothing else).
const DOCS: &[TableDoc] = &[
    (
        "dashboard",
        "What the dashboard starts with (zswaptop replay too, but for the interval).",
        &[
            (
                "view",
                "The view shown first: overview, graphs, devices, diagnostics, processes or cgroups.",
            ),
            (
                "interval",
                "Seconds between samples, at least 0.1 (the dashboard and --watch; -i overrides).",
            ),
            (
                "history",
                "Minutes of history the graphs keep, more than 0 and at most 1440 (--history).",
            ),
            (
                "theme",
                "Colours: default (the terminal's 16, on any background), light (for a light \
                 background) or mono (none: bold, dim and reverse only; --once writes no colour \
                 either). --theme overrides; NO_COLOR, TERM=dumb and --color=never turn colour \
                 off whatever the theme.",
            ),
            (
                "mouse",
                "Capture the mouse (click a view's name, scroll with the wheel); false leaves it \
                 to the terminal (--no-mouse).",
            ),
            (
                "processes_sort",
                "The processes view's sort column: faults, swap, footprint, rss, zswap, shm_swap, pid or name. While any \
                 process faults, faults/s leads until a sort key is pressed.",
            ),
            (
                "cgroups_sort",
                "The cgroups view's sort column: zswap, zswapped, swap, memory, zswpout or tree.",
            ),
        ],
    ),
    (
        "thresholds",
        "What the diagnostics judge by (every output's findings).",
        &[
            (
                "pool_near_full_percent",
                "The zswap pool counts as near full from this share of its limit (percent).",
            ),
            (
                "poor_ratio",
                "A compression ratio (stored / pool) under this is poor (at least 1).",
            ),
            (
                "min_stored_for_ratio_bytes",
                "Ratios and shares are judged only once this many bytes are stored.",
            ),
            (
                "incompressible_share_percent",
                "From this share of pages stored incompressible (percent), a finding says so.",
            ),
            (
                "reject_poor_share_percent",
                "From this share of zswap stores rejected as compressing poorly (percent).",
            ),
            (
                "swappiness_low",
                "vm.swappiness under this has been lowered on purpose (a remark).",
            ),
            (
                "swappiness_very_low",
                "vm.swappiness at or under this is a warning (at most swappiness_low).",
            ),
            (
                "thrashing_psi_full_avg10",
                "PSI memory full avg10 (percent) from which, with swap-ins, the system thrashes.",
            ),
            (
                "thrashing_psi_full_avg10_crit",
                "PSI memory full avg10 (percent) from which thrashing is critical.",
            ),
            (
                "thrashing_swapin_bytes_per_sec",
                "Swap-ins (bytes a second) from which the stalls are pages coming back.",
            ),
            (
                "swap_nearly_full_percent",
                "Swap counts as nearly full from this share of its slots in use (percent).",
            ),
            (
                "max_pool_percent_suggestion_cap",
                "A suggested zswap max_pool_percent never goes above this (percent of RAM).",
            ),
            (
                "zram_near_full_percent",
                "A zram device counts as full from this share of its size or limit (percent).",
            ),
            (
                "cgroup_near_limit_percent",
                "A cgroup counts as near a limit (memory.max, .high, .swap.max, .zswap.max) from this share of it in use (percent).",
            ),
        ],
    ),
    (
        "fleet",
        "Where zswaptop fleet reads the hosts that run zswaptop serve.",
        &[
            (
                "prometheus",
                "The Prometheus (or compatible) query API's URL, e.g. http://prometheus:9090 \
                 (--prometheus overrides; empty: none).",
            ),
            (
                "selector",
                "Label matchers every query is narrowed by, e.g. {job=\"zswaptop\"} \
                 (--selector overrides; empty: none).",
            ),
        ],
    ),
    (
        "bpf",
        "The swap-in latency programs (BPF, loaded into the kernel while zswaptop samples over time).",
        &[
            (
                "enabled",
                "auto (load them when running as root and the kernel allows them), on (try whoever \
                 runs zswaptop) or off (never call bpf(2)).",
            ),
            (
                "probes",
                "auto (the lean fentry programs where the kernel has BTF and takes them, else the \
                 kprobe fallback) or kprobes (the fallback alone: it costs more).",
            ),
        ],
    ),
];

/// Which file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The default place ([`default_path`]); no file there is no error.
    Default,
    /// `--config PATH`: the file must be there.
    File(PathBuf),
    /// `--no-config`: none.
    None,
}

/// The configuration read, where from, and what was wrong but not fatal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    pub config: Config,
    /// The file read, if one was.
    pub path: Option<PathBuf>,
    /// The keys zswaptop does not know, each as a warning to show.
    pub warnings: Vec<String>,
}

/// A configuration zswaptop cannot start with.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("configuration file {path}: larger than {MAX_BYTES} bytes: not a configuration file")]
    TooLarge { path: String },
    #[error("configuration file {path}: not a regular file")]
    NotAFile { path: String },
    #[error("configuration file {path}: not UTF-8 text")]
    NotText { path: String },
    #[error("configuration file {path}, line {line}, column {column}: {}{message}", key.as_ref().map(|k| format!("{k}: ")).unwrap_or_default())]
    At {
        path: String,
        line: usize,
        column: usize,
        /// The key, with its table (`dashboard.interval`), when the error is a key's.
        key: Option<String>,
        message: String,
    },
}

/// Where the configuration file is by default: `$XDG_CONFIG_HOME/zswaptop/config.toml`, or
/// `$HOME/.config/zswaptop/config.toml` (an XDG_CONFIG_HOME that is not absolute is ignored, as
/// the XDG Base Directory specification says). `None` without either.
pub(crate) fn default_path(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let dir = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            var("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".config"))
        })?;
    Some(dir.join("zswaptop").join("config.toml"))
}

/// Read the configuration `source` names.
pub(crate) fn load(source: &Source) -> Result<Loaded, ConfigError> {
    let (path, required) = match source {
        Source::None => return Ok(Loaded::default()),
        Source::File(p) => (p.clone(), true),
        Source::Default => match default_path(|k| std::env::var_os(k)) {
            Some(p) => (p, false),
            None => return Ok(Loaded::default()),
        },
    };
    read(&path, required)
}

/// Read the file at `path`: `required` when the command line named it, otherwise it is the
/// default place's.
fn read(path: &Path, required: bool) -> Result<Loaded, ConfigError> {
    let shown = path.display().to_string();
    let io = |source| ConfigError::Io {
        path: shown.clone(),
        source,
    };
    // A file in the default place that is missing is no configuration; one zswaptop may not
    // read there (HOME left at another user's by `su`), or that another user owns (who could
    // then change what root's zswaptop reports), is left with a warning. The file --config
    // names is the user's choice: it must be read.
    let skip = |why: String| Loaded {
        warnings: vec![format!(
            "configuration file {shown} not read ({why}): the built-in defaults"
        )],
        ..Loaded::default()
    };
    let small = |e| match e {
        crate::sys::SmallFileError::Io(e) => io(e),
        crate::sys::SmallFileError::NotAFile => ConfigError::NotAFile {
            path: shown.clone(),
        },
        crate::sys::SmallFileError::TooLarge(_) => ConfigError::TooLarge {
            path: shown.clone(),
        },
    };
    // Opened without blocking, so that a FIFO in its place cannot hang zswaptop before it
    // refuses it as not a file.
    let (file, meta) = match crate::sys::open_regular(path) {
        Ok(opened) => opened,
        Err(crate::sys::SmallFileError::Io(e))
            if !required && e.kind() == std::io::ErrorKind::NotFound =>
        {
            return Ok(Loaded::default());
        }
        Err(crate::sys::SmallFileError::Io(e))
            if !required && e.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            return Ok(skip(e.to_string()));
        }
        Err(e) => return Err(small(e)),
    };
    if !required {
        use std::os::unix::fs::MetadataExt as _;
        let owner = meta.uid();
        let me = crate::sys::euid();
        if owner != me && owner != 0 {
            return Ok(skip(format!(
                "owned by uid {owner}, not by uid {me} or root"
            )));
        }
    }
    let bytes = crate::sys::read_capped(file, MAX_BYTES).map_err(small)?;
    let text = String::from_utf8(bytes).map_err(|_| ConfigError::NotText {
        path: shown.clone(),
    })?;
    let (config, warnings) = parse(&text, &shown)?;
    Ok(Loaded {
        config,
        path: Some(path.to_path_buf()),
        warnings,
    })
}

/// The configuration `text` (the file `path`) sets, with a warning for each key it does not know.
pub(crate) fn parse(text: &str, path: &str) -> Result<(Config, Vec<String>), ConfigError> {
    let at = |span: Range<usize>, key: Option<String>, message: String| {
        let (line, column) = line_column(text, span.start);
        ConfigError::At {
            path: path.to_string(),
            line,
            column,
            key,
            message,
        }
    };
    let doc = DeTable::parse(text)
        .map_err(|e| at(e.span().unwrap_or(0..0), None, e.message().to_string()))?;
    let config: Config = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        at(
            span.clone(),
            key_at(doc.get_ref(), &span),
            e.message().to_string(),
        )
    })?;
    if let Err((key, what)) = config.check() {
        let span = span_of(doc.get_ref(), &key).unwrap_or(0..0);
        return Err(at(span, Some(key.to_string()), format!("must be {what}")));
    }
    let mut warnings = Vec::new();
    let known = toml::Table::try_from(Config::default()).unwrap_or_default();
    // In the file's order, the first few said (each costs a count of the lines before it:
    // 60,000 unknown keys, each said, took 16 s), the others counted.
    let mut unknown = Vec::new();
    unknown_keys(doc.get_ref(), &known, "", &mut |key, span| {
        unknown.push((span.start, key.to_string()));
    });
    unknown.sort_unstable();
    for (start, key) in unknown.iter().take(UNKNOWN_SAID) {
        let (line, _) = line_column(text, *start);
        warnings.push(format!(
            "configuration file {path}, line {line}: unknown key '{key}', ignored"
        ));
    }
    if unknown.len() > UNKNOWN_SAID {
        warnings.push(format!(
            "configuration file {path}: and {} more unknown keys, ignored",
            unknown.len() - UNKNOWN_SAID
        ));
    }
    Ok((config, warnings))
}

impl Config {
    /// The first key whose value is out of range, with its table, and what it must be.
    pub(crate) fn check(&self) -> Result<(), (String, &'static str)> {
        let d = &self.dashboard;
        let interval = MIN_INTERVAL.as_secs_f64()..=MAX_INTERVAL_SECONDS;
        if !(d.interval.is_finite() && interval.contains(&d.interval)) {
            return Err((
                "dashboard.interval".into(),
                "a number of seconds from 0.1 to 86400",
            ));
        }
        if !(d.history.is_finite() && d.history > 0.0 && d.history <= MAX_HISTORY_MINUTES) {
            return Err((
                "dashboard.history".into(),
                "a number of minutes over 0 and at most 1440",
            ));
        }
        self.thresholds
            .check()
            .map_err(|(key, what)| (format!("thresholds.{key}"), what))
    }

    /// The configuration as a file, every key with its comment and its value: what
    /// `zswaptop config` prints (`read_from`: the file it was read from, if any).
    pub(crate) fn commented(&self, read_from: Option<&Path>) -> String {
        let mut out = String::new();
        out.push_str(
            "# zswaptop's configuration, as in effect. zswaptop reads it from\n\
             # $XDG_CONFIG_HOME/zswaptop/config.toml (~/.config/zswaptop/config.toml), or the\n\
             # file --config names; --no-config reads none. Every key is optional: one left out\n\
             # keeps its default. The environment (NO_COLOR, TERM) and the command line override\n\
             # it. `zswaptop config > FILE` writes this file; zswaptop itself never writes one.\n",
        );
        let _ = match read_from {
            // A path from outside (--config, HOME), on its way to a terminal.
            Some(p) => writeln!(
                out,
                "# Read from: {}",
                crate::sanitize::visible(&p.display().to_string())
            ),
            None => writeln!(out, "# Read from: no file (the built-in defaults)"),
        };
        let table = toml::Table::try_from(self).unwrap_or_default();
        let defaults = toml::Table::try_from(Config::default()).unwrap_or_default();
        for (name, about, keys) in DOCS {
            let _ = write!(out, "\n# {about}\n[{name}]\n");
            let values = table.get(*name).and_then(toml::Value::as_table);
            let default = defaults.get(*name).and_then(toml::Value::as_table);
            for (key, doc) in *keys {
                out.push('\n');
                let doc = match default.and_then(|t| t.get(*key)) {
                    Some(d) => format!("{doc} Default: {d}."),
                    None => doc.to_string(),
                };
                for line in wrap(&doc, 98) {
                    let _ = writeln!(out, "# {line}");
                }
                if let Some(v) = values.and_then(|t| t.get(*key)) {
                    let _ = writeln!(out, "{key} = {v}");
                }
            }
        }
        out
    }
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The line and column (from 1; the column in characters) of the byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// The key (`table.key`) whose value or name covers `span`, the innermost one. (A table's own
/// span is its header's, so every table is searched.)
fn key_at(table: &DeTable, span: &Range<usize>) -> Option<String> {
    let covers = |s: Range<usize>| s.start <= span.start && span.end <= s.end.max(s.start + 1);
    for (k, v) in table.iter() {
        if let DeValue::Table(t) = v.get_ref()
            && let Some(inner) = key_at(t, span)
        {
            return Some(format!("{}.{inner}", k.get_ref()));
        }
        if covers(v.span()) || covers(k.span()) {
            return Some(k.get_ref().to_string());
        }
    }
    None
}

/// Where the value of `key` (`table.key`) is, if the file sets it.
fn span_of(table: &DeTable, key: &str) -> Option<Range<usize>> {
    let (first, rest) = match key.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (key, None),
    };
    let (_, v) = table.iter().find(|(k, _)| k.get_ref() == first)?;
    match (rest, v.get_ref()) {
        (None, _) => Some(v.span()),
        (Some(r), DeValue::Table(t)) => span_of(t, r).or(Some(v.span())),
        (Some(_), _) => Some(v.span()),
    }
}

/// Call `found` with each key of `doc` that `known` (the defaults) does not have.
fn unknown_keys(
    doc: &DeTable,
    known: &toml::Table,
    prefix: &str,
    found: &mut impl FnMut(&str, Range<usize>),
) {
    for (k, v) in doc.iter() {
        let name = format!("{prefix}{}", k.get_ref());
        match (known.get(k.get_ref().as_ref()), v.get_ref()) {
            (None, _) => found(&name, k.span()),
            (Some(toml::Value::Table(inner)), DeValue::Table(t)) => {
                unknown_keys(t, inner, &format!("{name}."), found);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> (usize, usize, Option<String>, String) {
        match parse(text, "c.toml").unwrap_err() {
            ConfigError::At {
                line,
                column,
                key,
                message,
                ..
            } => (line, column, key, message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        assert_eq!(parse("", "c").unwrap(), (Config::default(), vec![]));
        assert_eq!(
            parse("# nothing\n[dashboard]\n", "c").unwrap().0,
            Config::default()
        );
    }

    #[test]
    fn keys_set_what_they_name() {
        let (c, w) = parse(
            "[dashboard]\nview = \"graphs\"\ninterval = 2.5\ntheme = \"light\"\nmouse = false\n\
             processes_sort = \"rss\"\ncgroups_sort = \"tree\"\nhistory = 30\n\
             [thresholds]\npoor_ratio = 2.0\nswappiness_low = 30\n",
            "c",
        )
        .unwrap();
        assert!(w.is_empty(), "{w:?}");
        let d = &c.dashboard;
        assert_eq!(d.view, View::Graphs);
        assert_eq!((d.interval, d.history), (2.5, 30.0));
        assert_eq!(d.theme, Palette::Light);
        assert!(!d.mouse);
        assert_eq!(
            (d.processes_sort, d.cgroups_sort),
            (ProcSort::Rss, CgroupSort::Tree)
        );
        assert_eq!(c.thresholds.poor_ratio, 2.0);
        assert_eq!(c.thresholds.swappiness_low, 30);
        assert_eq!(
            c.thresholds.pool_near_full_percent,
            Thresholds::default().pool_near_full_percent
        );
    }

    /// A value of the wrong type: the line and column of the value, the key, the type expected.
    #[test]
    fn a_bad_value_names_line_column_key_and_type() {
        let (line, column, key, message) = at("[dashboard]\nmouse = true\ninterval = \"fast\"\n");
        assert_eq!((line, column), (3, 12));
        assert_eq!(key.as_deref(), Some("dashboard.interval"));
        assert!(message.contains("expected f64"), "{message}");
        let (line, _, key, message) = at("[dashboard]\ntheme = \"blue\"\n");
        assert_eq!(line, 2);
        assert_eq!(key.as_deref(), Some("dashboard.theme"));
        assert!(message.contains("`default`, `light`, `mono`"), "{message}");
        let (line, column, _, _) = at("[dashboard\n");
        assert_eq!((line, column), (1, 11));
        let (line, _, key, _) = at("[thresholds]\nswappiness_low = 1.5\n");
        assert_eq!(
            (line, key.as_deref()),
            (2, Some("thresholds.swappiness_low"))
        );
    }

    #[test]
    fn a_value_out_of_range_is_refused_where_it_is() {
        let (line, column, key, message) = at("[dashboard]\n\n  interval = 0.01\n");
        assert_eq!((line, column), (3, 14));
        assert_eq!(key.as_deref(), Some("dashboard.interval"));
        assert!(message.contains("from 0.1"), "{message}");
        let (line, _, key, _) = at("[thresholds]\npool_near_full_percent = 120\n");
        assert_eq!(
            (line, key.as_deref()),
            (2, Some("thresholds.pool_near_full_percent"))
        );
        let (_, _, key, _) = at("[dashboard]\nhistory = 0\n");
        assert_eq!(key.as_deref(), Some("dashboard.history"));
    }

    #[test]
    fn unknown_keys_are_warned_about_by_name() {
        let (c, w) = parse(
            "colour = 1\n[dashboard]\ntheme = \"mono\"\nsort = \"rss\"\n[extra]\nx = 1\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(c.dashboard.theme, Palette::Mono);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("line 1: unknown key 'colour'"), "{w:?}");
        assert!(
            w.iter()
                .any(|l| l.contains("line 4: unknown key 'dashboard.sort'"))
        );
        assert!(w.iter().any(|l| l.contains("'extra'")));
    }

    /// Many unknown keys: at most 20 warnings, then how many more; in time linear in the file
    /// (60,000 keys took 16 s, each warning counting the lines before its key).
    #[test]
    fn many_unknown_keys_say_twenty_and_how_many_more() {
        let mut text = String::from("[dashboard]\ntheme = \"mono\"\n");
        for i in 0..100_000 {
            text.push_str(&format!("k{i} = 1\n"));
        }
        let t = std::time::Instant::now();
        let (c, w) = parse(&text, "c.toml").unwrap();
        let took = t.elapsed();
        assert_eq!(c.dashboard.theme, Palette::Mono);
        assert_eq!(w.len(), 21, "{:?}", &w[..w.len().min(25)]);
        assert!(w[0].contains("line 3: unknown key 'dashboard.k0'"), "{w:?}");
        assert!(
            w[19].contains("line 22: unknown key 'dashboard.k19'"),
            "{w:?}"
        );
        assert_eq!(
            w[20],
            "configuration file c.toml: and 99980 more unknown keys, ignored"
        );
        // Linear takes well under a second even unoptimized; quadratic took minutes.
        assert!(took.as_secs() < 20, "{took:?}");
    }

    /// `zswaptop config` prints every key with a comment, and what it prints reads back as the
    /// same configuration.
    #[test]
    fn the_commented_file_round_trips() {
        let mut c = Config::default();
        c.dashboard.view = View::Cgroups;
        c.dashboard.interval = 0.5;
        c.dashboard.theme = Palette::Mono;
        c.dashboard.cgroups_sort = CgroupSort::Memory;
        c.thresholds.min_stored_for_ratio_bytes = 1 << 30;
        c.thresholds.thrashing_swapin_bytes_per_sec = 12345.5;
        let text = c.commented(Some(Path::new("/etc/x.toml")));
        let (back, warnings) = parse(&text, "printed").unwrap();
        assert_eq!(back, c);
        assert!(warnings.is_empty());
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        // Each key's comment says its default, whatever the value in effect.
        assert!(
            text.contains("# \"overview\".\nview = \"cgroups\""),
            "{text}"
        );
        // The file's name is made safe: it goes to a terminal.
        let named = c.commented(Some(Path::new("/tmp/\u{1b}[2Jx.toml")));
        assert!(
            !named.contains('\u{1b}') && named.contains(r"\x1b[2Jx.toml"),
            "{named}"
        );
        let d = Config::default().commented(None);
        assert_eq!(parse(&d, "printed").unwrap().0, Config::default());
    }

    #[test]
    fn every_key_is_documented() {
        let table = toml::Table::try_from(Config::default()).unwrap();
        let mut keys: Vec<String> = table
            .iter()
            .flat_map(|(t, v)| {
                v.as_table()
                    .unwrap()
                    .keys()
                    .map(move |k| format!("{t}.{k}"))
            })
            .collect();
        let mut documented: Vec<String> = DOCS
            .iter()
            .flat_map(|(t, _, ks)| ks.iter().map(move |(k, _)| format!("{t}.{k}")))
            .collect();
        keys.sort();
        documented.sort();
        assert_eq!(keys, documented);
        // Every view and sort column the comments name is one the file takes.
        for v in View::ALL {
            assert!(DOCS[0].2[0].1.contains(v.name()), "{}", v.name());
            let text = format!("[dashboard]\nview = \"{}\"\n", v.name());
            assert_eq!(parse(&text, "c").unwrap().0.dashboard.view, v);
        }
    }

    #[test]
    fn the_default_place() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert_eq!(
            default_path(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/zswaptop/config.toml"))
        );
        assert_eq!(
            default_path(env(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/zswaptop/config.toml"))
        );
        assert_eq!(default_path(env(&[])), None);
    }

    #[test]
    fn files_that_are_not_configurations() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.toml");
        assert!(matches!(
            load(&Source::File(missing)).unwrap_err(),
            ConfigError::Io { .. }
        ));
        let binary = dir.path().join("b.toml");
        std::fs::write(&binary, [0xff, 0xfe, 0]).unwrap();
        assert!(matches!(
            load(&Source::File(binary)).unwrap_err(),
            ConfigError::NotText { .. }
        ));
        assert_eq!(load(&Source::None).unwrap(), Loaded::default());
        // A directory, or a FIFO (which must not hang the reader), is refused.
        assert!(matches!(
            load(&Source::File(dir.path().to_path_buf())).unwrap_err(),
            ConfigError::NotAFile { .. }
        ));
        let fifo = dir.path().join("fifo.toml");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        assert!(matches!(
            read(&fifo, false).unwrap_err(),
            ConfigError::NotAFile { .. }
        ));
        // In the default place, no file is no configuration.
        assert_eq!(
            read(&dir.path().join("none"), false).unwrap(),
            Loaded::default()
        );
    }

    /// A file in the default place that another user owns is not read (a warning says why);
    /// the same file named by --config is.
    #[test]
    fn a_default_file_another_user_owns_is_not_read() {
        if crate::sys::euid() != 0 {
            crate::console::note("SKIPPED: changing a file's owner needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[dashboard]\ntheme = \"mono\"\n").unwrap();
        std::os::unix::fs::chown(&path, Some(65534), None).unwrap();
        let skipped = read(&path, false).unwrap();
        assert_eq!(skipped.config, Config::default());
        assert!(
            skipped.warnings[0].contains("owned by uid 65534"),
            "{skipped:?}"
        );
        let named = read(&path, true).unwrap();
        assert_eq!(named.config.dashboard.theme, Palette::Mono);
        std::os::unix::fs::chown(&path, Some(0), None).unwrap();
        assert_eq!(
            read(&path, false).unwrap().config.dashboard.theme,
            Palette::Mono
        );
    }
}
