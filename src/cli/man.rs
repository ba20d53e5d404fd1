//! The manual page, made from the same definitions as `--help`: the command line's arguments
//! (clap's [`Command`]), the dashboard's keys (the views' registry, [`crate::ui::views::help`],
//! and the replay's keys) and the configuration file's place. clap_mangen gives the title,
//! NAME, DESCRIPTION and VERSION; the synopsis (with every option's argument), the options,
//! each command with its own options, and the sections a user looks for (KEYS, FILES,
//! ENVIRONMENT, EXIT STATUS, EXAMPLES, SEE ALSO) are made here.

use clap::{Arg, Command};
use roff::{Inline, Roff, bold, italic, roman};

use crate::app::keys;

/// Write the page for `cmd` (zswaptop's command line) to `out`.
pub(super) fn page(cmd: &Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut cmd = cmd.clone();
    // The arguments clap adds (--help, --version) are there once the command is built.
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    let mut roff = Roff::new();
    synopsis(&mut roff, &cmd);
    roff.to_writer(out)?;
    man.render_description_section(out)?;
    let mut roff = Roff::new();
    roff.control("SH", ["OPTIONS"]);
    options(&mut roff, &cmd);
    commands(&mut roff, &cmd);
    keys_section(&mut roff);
    for (title, paragraphs) in SECTIONS {
        roff.control("SH", [*title]);
        for (term, text) in *paragraphs {
            match term {
                Some(term) => {
                    roff.control("TP", []);
                    roff.text([bold(*term)]);
                }
                None => {
                    roff.control("PP", []);
                }
            }
            roff.text([roman(*text)]);
        }
    }
    roff.to_writer(out)?;
    man.render_version_section(out)
}

/// The arguments of `cmd` a page shows: not the hidden ones.
fn shown(cmd: &Command) -> impl Iterator<Item = &Arg> {
    cmd.get_arguments().filter(|a| !a.is_hide_set())
}

/// What stands for an argument's value: its value name, or its id in capitals.
fn value_name(arg: &Arg) -> String {
    arg.get_value_names().and_then(|v| v.first()).map_or_else(
        || arg.get_id().to_string().to_uppercase(),
        ToString::to_string,
    )
}

/// `-i, --interval SECONDS`, `--once`, or a positional's `PATH`; without `short`, the long name
/// only where there is one (`--interval SECONDS`, as the synopsis shows it).
fn spelling(arg: &Arg, short: bool) -> Vec<Inline> {
    if arg.is_positional() {
        return vec![italic(value_name(arg))];
    }
    let mut out = Vec::new();
    if let Some(s) = arg
        .get_short()
        .filter(|_| short || arg.get_long().is_none())
    {
        out.push(bold(format!("-{s}")));
        if arg.get_long().is_some() {
            out.push(roman(", "));
        }
    }
    if let Some(l) = arg.get_long() {
        out.push(bold(format!("--{l}")));
    }
    if arg.get_action().takes_values() {
        out.push(roman(" "));
        out.push(italic(value_name(arg)));
    }
    out
}

/// `zswaptop [--once] [--count N] …`: a command with every argument and its value.
fn usage(name: &str, cmd: &Command) -> Vec<Inline> {
    let mut out = vec![bold(name.to_string())];
    for arg in shown(cmd) {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        out.push(roman(" "));
        let required = arg.is_required_set();
        if !required {
            out.push(roman("["));
        }
        out.extend(spelling(arg, false));
        if !required {
            out.push(roman("]"));
        }
    }
    out
}

/// The commands that are zswaptop's own (not clap's `help`).
fn subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|s| s.get_name() != "help")
}

fn synopsis(roff: &mut Roff, cmd: &Command) {
    roff.control("SH", ["SYNOPSIS"]);
    roff.text(usage("zswaptop", cmd));
    for sub in subcommands(cmd) {
        roff.control("br", []);
        roff.text(usage(&format!("zswaptop {}", sub.get_name()), sub));
    }
}

/// What an argument is, with the values it takes and its default.
fn about(arg: &Arg) -> String {
    let mut text = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string().replace('\n', " "))
        .unwrap_or_default();
    if !text.is_empty() && !text.ends_with('.') {
        text.push('.');
    }
    if arg.get_action().takes_values() {
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| match v.get_help() {
                Some(h) => format!("{} ({h})", v.get_name()),
                None => v.get_name().to_string(),
            })
            .collect();
        if !values.is_empty() {
            text.push_str(&format!(" Values: {}.", values.join("; ")));
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if !defaults.is_empty() {
            text.push_str(&format!(" Default: {}.", defaults.join(", ")));
        }
    }
    text.trim().to_string()
}

/// A `.TP` item for each argument of `cmd` (a command's own --help left out: every command
/// has one).
fn options(roff: &mut Roff, cmd: &Command) {
    let top = cmd.get_name() == "zswaptop";
    for arg in shown(cmd).filter(|a| top || a.get_id() != "help") {
        roff.control("TP", []);
        roff.text(spelling(arg, true));
        roff.text([roman(about(arg))]);
    }
}

/// COMMANDS: each command with its synopsis, what it does and its options.
fn commands(roff: &mut Roff, cmd: &Command) {
    roff.control("SH", ["COMMANDS"]);
    for sub in subcommands(cmd) {
        roff.control("SS", [format!("zswaptop {}", sub.get_name()).as_str()]);
        roff.text(usage(&format!("zswaptop {}", sub.get_name()), sub));
        let text = sub
            .get_long_about()
            .or(sub.get_about())
            .map(ToString::to_string)
            .unwrap_or_default();
        // A long description's paragraphs (record's says what a recording holds) stay apart.
        for paragraph in text.split("\n\n") {
            roff.control("PP", []);
            roff.text([roman(paragraph.replace('\n', " "))]);
        }
        options(roff, sub);
    }
}

/// KEYS: every key of the dashboard, as its help lists them, and the replay's.
fn keys_section(roff: &mut Roff) {
    roff.control("SH", ["KEYS"]);
    roff.text([roman(
        "The dashboard (and zswaptop replay) takes these keys; ? shows them on the screen.",
    )]);
    for (k, what) in crate::ui::views::help() {
        roff.control("TP", []);
        roff.text([bold(k)]);
        roff.text([roman(what)]);
    }
    roff.control("PP", []);
    roff.text([roman(
        "In zswaptop replay, these keys move the time cursor (space and + - change the \
         playback instead of the sampling):",
    )]);
    for (k, what) in keys::REPLAY_HELP {
        roff.control("TP", []);
        roff.text([bold(k)]);
        roff.text([roman(what)]);
    }
}

/// The sections of prose: (title, paragraphs); a paragraph with a term is a `.TP` item.
type Section = (
    &'static str,
    &'static [(Option<&'static str>, &'static str)],
);

const SECTIONS: &[Section] = &[
    (
        "FILES",
        &[
            (
                Some("$XDG_CONFIG_HOME/zswaptop/config.toml (~/.config/zswaptop/config.toml)"),
                "The configuration: what the dashboard starts with (view, interval, history, \
                 theme, mouse, the sort columns) and the thresholds the diagnostics judge by. \
                 Every key is optional. zswaptop config prints every key with its comment and \
                 the value in effect; zswaptop never writes the file. --config PATH reads \
                 another, --no-config none. A file in the default place that is unreadable, or \
                 owned by a user other than the one running zswaptop or root, is skipped with a \
                 warning. A value of the wrong type or out of range stops zswaptop with the \
                 file, line, column and key (status 2); an unknown key is warned about and \
                 ignored.",
            ),
            (
                Some("/proc, /sys, /sys/kernel/debug/zswap"),
                "What zswaptop reads (--root DIR reads DIR/proc and DIR/sys instead); it never \
                 writes there. The zswap counters in debugfs need root and a mounted debugfs.",
            ),
            (
                Some("BPF programs (swap-in latency)"),
                "While it samples over time (the dashboard, --watch, serve, record, --once -i N) \
                 and runs as root, zswaptop loads small BPF programs (fentry/fexit on \
                 do_swap_page, zswap_load, submit_bio and migration_entry_wait; kprobes and \
                 kretprobes on the same and the swap read where the kernel has no BTF) that time each swap-in into per-CPU \
                 histograms, and with fentry, each page stored (zswap_store, \
                 __swap_writepage, end_swap_bio_write), read once a tick; they go when zswaptop exits. Loading takes about \
                 0.3 s. [bpf] enabled = \"off\" in the configuration never loads them; \"on\" \
                 tries without root. Where the kernel refuses them (no fentry, no kprobes, no \
                 BTF, lockdown), the swap-in latency section says why.",
            ),
            (
                Some("DIR/zswaptop.prom"),
                "What --textfile DIR writes, for node_exporter's textfile collector.",
            ),
            (
                Some("recordings"),
                "zswaptop record and --record write the file or directory named, files \
                 readable by their owner only (0600), directories 0700.",
            ),
        ],
    ),
    (
        "ENVIRONMENT",
        &[
            (
                Some("NO_COLOR"),
                "Set and not empty: no colour (--color=always still gives it).",
            ),
            (
                Some("TERM"),
                "dumb: no colour, and no dashboard (it moves the cursor, which a dumb terminal \
                 cannot): use --once or --watch there.",
            ),
            (
                Some("XDG_CONFIG_HOME, HOME"),
                "Where the configuration file is: $XDG_CONFIG_HOME/zswaptop/config.toml, or \
                 $HOME/.config/zswaptop/config.toml.",
            ),
            (
                Some("LC_ALL, LC_CTYPE, LANG"),
                "The first one set decides the character set: a locale that is not UTF-8 draws \
                 the dashboard with ASCII (as --ascii).",
            ),
            (
                Some("COLUMNS"),
                "The width --help wraps to (at most 100 columns), when it is not the terminal's.",
            ),
        ],
    ),
    (
        "EXIT STATUS",
        &[
            (
                Some("0"),
                "Done; also when the reader of standard output went away (zswaptop --once | \
                 head), and when --watch or record is stopped by SIGINT or SIGTERM.",
            ),
            (
                Some("1"),
                "An error while running, said on standard error with its causes.",
            ),
            (
                Some("2"),
                "Arguments that do not make sense, a configuration file that cannot be used, \
                 or the dashboard asked for on a dumb terminal.",
            ),
            (
                None,
                "A dashboard stopped by a signal (SIGHUP, SIGTERM, SIGINT, SIGQUIT) restores \
                 the terminal and then ends by that signal.",
            ),
        ],
    ),
    (
        "EXAMPLES",
        &[
            (Some("zswaptop"), "The live dashboard."),
            (
                Some("zswaptop --once"),
                "One screen of text: where memory is, zswap and zram, the findings.",
            ),
            (
                Some("zswaptop --once --full --top 10"),
                "The complete report, with the ten processes using the most swap.",
            ),
            (
                Some("zswaptop --json | jq .zswap"),
                "One snapshot as JSON (its schema is in /usr/share/doc/zswaptop).",
            ),
            (
                Some("zswaptop --watch --count 60 -i 5"),
                "A line every 5 seconds for five minutes.",
            ),
            (
                Some("zswaptop --theme light"),
                "The dashboard in colours for a light background.",
            ),
            (
                Some("zswaptop config > ~/.config/zswaptop/config.toml"),
                "Start a configuration file from the one in effect.",
            ),
            (
                Some("sudo zswaptop record --top 10 /var/lib/zswaptop/"),
                "Record a sample every 5 seconds into rotated files, up to 64 MiB.",
            ),
            (
                Some("zswaptop replay --at -10m /var/lib/zswaptop/"),
                "The dashboard over the recording, ten minutes before its end.",
            ),
            (
                Some("zswaptop export --from /var/lib/zswaptop/ --format csv > swap.csv"),
                "Every recorded sample as a CSV row.",
            ),
            (
                Some("zswaptop serve --listen 127.0.0.1:19100"),
                "/metrics for Prometheus.",
            ),
            (
                Some("zswaptop completions fish > ~/.config/fish/completions/zswaptop.fish"),
                "Completions for fish (bash and zsh as well).",
            ),
        ],
    ),
    (
        "SEE ALSO",
        &[(
            None,
            "htop(1), free(1), vmstat(8), swapon(8), zramctl(8), prometheus(1), \
             prometheus-node-exporter(1); the kernel's Documentation/admin-guide/mm/zswap.rst \
             and Documentation/admin-guide/blockdev/zram.rst.",
        )],
    ),
];

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    fn text() -> String {
        let mut out = Vec::new();
        page(&crate::cli::Cli::command(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_sections() {
        let t = text();
        for s in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "COMMANDS",
            "KEYS",
            "FILES",
            "ENVIRONMENT",
            "EXIT STATUS",
            "EXAMPLES",
            "SEE ALSO",
            "VERSION",
        ] {
            assert!(
                t.contains(&format!(".SH \"{s}\"")) || t.contains(&format!(".SH {s}\n")),
                "{s}"
            );
        }
    }

    /// Every key of the dashboard's help and of the replay's is on the page.
    #[test]
    fn every_key_from_the_registry() {
        let t = text();
        let escaped = |s: &str| {
            let mut r = Roff::new();
            r.text([roman(s)]);
            r.render().lines().last().unwrap_or_default().to_string()
        };
        for (k, what) in crate::ui::views::help()
            .into_iter()
            .chain(keys::REPLAY_HELP.map(|(k, w)| (k.to_string(), w.to_string())))
        {
            assert!(t.contains(&escaped(&k)), "{k}");
            assert!(t.contains(&escaped(&what)), "{what}");
        }
    }

    /// The synopsis shows options with their argument, and every command's options are on the
    /// page.
    #[test]
    fn option_arguments_and_the_commands_options() {
        let t = text();
        let synopsis = &t[t.find(".SH SYNOPSIS").unwrap()..t.find(".SH DESCRIPTION").unwrap()];
        assert!(
            synopsis.contains("[\\fB\\-\\-count\\fR \\fIN\\fR]"),
            "{synopsis}"
        );
        assert!(synopsis.contains("\\fBzswaptop serve\\fR [\\fB\\-\\-listen\\fR \\fIADDR\\fR]"));
        let cmd = crate::cli::Cli::command();
        for sub in subcommands(&cmd) {
            for arg in shown(sub).filter_map(Arg::get_long) {
                let at = t.find(&format!(".SS \"zswaptop {}\"", sub.get_name()));
                assert!(at.is_some(), "{}", sub.get_name());
                assert!(
                    t[at.unwrap_or(0)..].contains(&format!("\\-\\-{}", arg.replace('-', "\\-"))),
                    "{} --{arg}",
                    sub.get_name()
                );
            }
        }
        for arg in [
            "serve",
            "max\\-size",
            "duration",
            "since",
            "until",
            "web\\-config",
        ] {
            assert!(
                t.contains(&format!("\\fB\\-\\-{arg}")) || t.contains(arg),
                "{arg}"
            );
        }
    }
}
