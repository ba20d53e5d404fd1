//! zswaptop: where Linux memory really is when zswap or zram compresses it.
//!
//! Data flows one way: [`sources`] read the kernel (through a [`root::Root`], so a captured tree
//! can stand in for `/proc` and `/sys`) into a raw [`sources::Sample`]; the [`pipeline`] takes
//! samples to a finished [`model::Snapshot`] (the model's figures, the [`diagnostics`] rules'
//! findings, every string made safe); [`report`], [`watch`], [`serve`], [`record`] and the
//! dashboard ([`app`], [`ui`]) show it. [`cli`] validates the command line into a [`cli::Mode`],
//! which [`run`] dispatches. `src/layers.rs` checks that every module imports only those below
//! it (the README's Design section lists the order).

pub mod advise;
pub mod app;
pub mod cli;
pub mod config;
pub mod console;
pub mod diagnostics;
pub mod display;
pub mod error;
pub mod fleet;
pub mod history;
#[cfg(test)]
mod layers;
pub mod model;
pub mod pipeline;
pub mod present;
pub mod record;
pub mod report;
pub mod root;
pub mod sanitize;
pub mod schema;
pub mod serve;
pub mod sources;
pub mod sys;
pub mod tui;
pub mod ui;
pub mod watch;

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Context;

use cli::{Mode, Moment, Once};
use root::Root;
use sources::sampler::Sampler;

/// Run zswaptop in the mode the command line asked for: every mode and command goes through
/// here. A reader of standard output that went away (`zswaptop --once | head`, a terminal that
/// hung up) ends a mode quietly, with `Ok`.
pub fn run(mode: Mode) -> anyhow::Result<()> {
    swapin_probes(&mode);
    match mode {
        Mode::Dashboard {
            root,
            settings,
            record,
        } => dashboard(root_of(root), settings, record),
        Mode::Once(once) => to_stdout(|out| write_once(once, out)),
        Mode::Watch { root, options } => watch::run(root_of(root), options),
        Mode::Textfile {
            root,
            dir,
            interval,
            extras,
            thresholds,
        } => {
            let snap = pipeline::take(
                &mut Sampler::full(root_of(root)),
                interval,
                extras,
                &thresholds,
            );
            report::textfile::write(&snap, &dir)
        }
        Mode::Serve { listen, root, web } => serve::run(listen, root, web),
        Mode::Record(options) => record::recorder::record(&options),
        Mode::Replay { path, at, settings } => {
            let (mut source, start) =
                record::ReplaySource::open(&path, at.as_deref(), settings.history)?;
            let exit = tui::run::replay(settings, &mut source, start)?;
            for w in source.warnings() {
                console::warn(w);
            }
            end_dashboard(exit)
        }
        Mode::Export(options) => to_stdout(|out| record::export::export(&options, out)),
        Mode::Completions(shell) => to_stdout(|out| Ok(cli::completions(shell, out)?)),
        Mode::Man => to_stdout(|out| Ok(cli::man(out)?)),
        Mode::Config(text) => to_stdout(|out| Ok(out.write_all(text.as_bytes())?)),
        Mode::Advise(options) => to_stdout(|out| advise::run(&options, out)),
        Mode::Fleet {
            options,
            once: true,
        } => to_stdout(|out| fleet::once(&options, out)),
        Mode::Fleet {
            options,
            once: false,
        } => end_dashboard(fleet::view::run(&options)?),
    }
}

/// Load the swap-in latency programs (`sources::bpf`) for a live run that samples over time, off
/// the first sample's path: the dashboard, `serve`, `record`, `--once -i N` and `--textfile -i N`
/// (their latency runs from the load to the second sample: nothing else waits for it); `--watch`
/// waits for the load (at most `sources::bpf::LOAD_WAIT`), as it picks its columns from its
/// first row.
fn swapin_probes(mode: &Mode) {
    use cli::Moment;
    match mode {
        Mode::Dashboard { root: None, .. }
        | Mode::Serve { root: None, .. }
        | Mode::Once(cli::Once {
            of:
                Moment::Live {
                    root: None,
                    interval: Some(_),
                    ..
                },
            ..
        })
        | Mode::Textfile {
            root: None,
            interval: Some(_),
            ..
        } => sources::bpf::begin(false),
        Mode::Record(o) if o.root.is_none() => sources::bpf::begin(false),
        Mode::Watch { root: None, .. } => sources::bpf::begin(true),
        _ => {}
    }
}

/// The tree at `root`, or this system.
fn root_of(root: Option<PathBuf>) -> Root {
    root.map(Root::at).unwrap_or_else(Root::live)
}

/// Run `write` over standard output (buffered, flushed at the end): when its reader went away,
/// whatever the writing said, the run ends quietly.
fn to_stdout(
    write: impl FnOnce(&mut io::BufWriter<console::Stdout>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(console::Stdout::lock());
    let written = write(&mut out).and_then(|()| Ok(out.flush()?));
    if out.get_ref().gone() {
        return Ok(());
    }
    written
}

/// `--once`: the report of a moment, live or recorded; the text in ASCII only when asked.
fn write_once(once: Once, out: &mut impl Write) -> anyhow::Result<()> {
    let ascii = once.ascii && once.format == report::OutputFormat::Text;
    let mut out = display::AsciiOut::new(out, ascii);
    write_report(once, &mut out)?;
    out.finish().context("writing the report")
}

fn write_report(once: Once, out: &mut impl Write) -> anyhow::Result<()> {
    let Once {
        format,
        color,
        full,
        ascii: _,
        thresholds,
        of,
    } = once;
    let snap = match of {
        Moment::Recorded { path, at } => {
            return record::export::once_from(&path, &at, format, color, full, &thresholds, out);
        }
        Moment::Live {
            root,
            interval,
            extras,
            record: None,
        } => pipeline::take(
            &mut Sampler::full(root_of(root)),
            interval,
            extras,
            &thresholds,
        ),
        Moment::Live {
            root,
            interval,
            extras,
            record: Some(path),
        } => {
            let mut source = record::Recording::new(Sampler::full(root_of(root)), &path)?;
            let snap = pipeline::take(&mut source, interval, extras, &thresholds);
            if let Some((e, n)) = source.finish()? {
                anyhow::bail!("{n} of the samples were not recorded: {e}");
            }
            snap
        }
    };
    report::write(format, &snap, out, color, full)
        .and_then(|()| out.flush())
        .context("writing the report")
}

/// The live dashboard, recording its samples to `record` when given.
fn dashboard(root: Root, settings: app::Settings, record: Option<PathBuf>) -> anyhow::Result<()> {
    let exit = match record {
        Some(path) => {
            let mut source = record::Recording::new(Sampler::new(root), &path)?;
            let exit = tui::run::run(settings, &mut source)?;
            match source.finish() {
                Ok(None) => {}
                Ok(Some((e, n))) => console::warn(format_args!(
                    "{n} samples were not recorded; the last because: {e}"
                )),
                Err(e) => console::warn(e),
            }
            exit
        }
        None => tui::run::run(settings, &mut Sampler::new(root))?,
    };
    end_dashboard(exit)
}

/// End the way the dashboard ended: a signal is raised again once the terminal is restored.
fn end_dashboard(exit: tui::run::Exit) -> anyhow::Result<()> {
    match exit {
        tui::run::Exit::Quit | tui::run::Exit::TtyGone(_) => Ok(()),
        // The terminal is restored: now end the way the signal asked for.
        tui::run::Exit::Signal(sig) => {
            let _ = io::stdout().flush();
            signal_hook::low_level::emulate_default_handler(sig)
                .with_context(|| format!("ending on signal {sig}"))
        }
    }
}
