//! zswaptop: where Linux memory really is when zswap or zram compresses it.
//!
//! Data flows one way: [`sources`] read the kernel (through a [`root::Root`], so a captured tree
//! can stand in for `/proc` and `/sys`) into a raw [`sources::Sample`]; [`model`] derives a
//! [`model::Snapshot`] from it with pure functions; [`report`] (for `--once`) and the dashboard
//! draw the snapshot through the shared [`format`] layer.

pub mod advise;
pub mod app;
pub mod cli;
pub mod console;
pub mod diagnostics;
pub mod display;
pub mod error;
pub mod history;
#[cfg(test)]
mod layers;
pub mod model;
pub mod recording;
pub mod report;
pub mod root;
pub mod sanitize;
pub mod schema;
pub mod serve;
pub mod sources;
pub mod store;
pub mod sys;
pub mod ui;
pub mod watch;

use std::io::{self, Write};

use anyhow::Context;

use cli::{Mode, Settings};
use model::Snapshot;
use root::Root;
use sources::sampler::{SampleSource, Sampler};

/// Take one snapshot (two samples `interval` apart when an interval is given, for rates), judged
/// by the diagnostics rules.
pub fn snapshot(
    source: &mut impl SampleSource,
    interval: Option<std::time::Duration>,
    extras: sources::Extras,
) -> Snapshot {
    let first = source.next(None, extras);
    match interval {
        Some(dt) => {
            std::thread::sleep(dt);
            let second = source.next(Some(&first), extras);
            diagnostics::judged(Snapshot::derive(&second, Some(&first)))
        }
        None => diagnostics::judged(Snapshot::derive(&first, None)),
    }
}

/// Run zswaptop with validated settings.
pub fn run(settings: Settings) -> anyhow::Result<()> {
    let root = settings
        .root
        .clone()
        .map(Root::at)
        .unwrap_or_else(Root::live);
    match settings.mode {
        Mode::Dashboard => dashboard(settings, &root),
        Mode::Watch { json, count } => watch::run(&settings, root, json, count),
        Mode::Once(format) if settings.from.is_some() => {
            let Some((path, at)) = &settings.from else {
                return Ok(());
            };
            let mut out = io::BufWriter::new(console::Stdout::lock());
            let written =
                recording::once_from(path, at, format, settings.color, settings.full, &mut out);
            if out.get_ref().gone() {
                return Ok(());
            }
            written
        }
        Mode::Textfile => {
            let dir = settings
                .textfile
                .as_deref()
                .context("--textfile without a directory")?;
            let mut source = Sampler::full(root);
            let snap = snapshot(
                &mut source,
                settings.interval,
                metrics_extras(settings.extras),
            );
            write_textfile(&snap, dir)
        }
        Mode::Once(format) => {
            let extras = if format.is_exposition() {
                metrics_extras(settings.extras)
            } else {
                settings.extras
            };
            let snap = match &settings.record {
                Some(path) => {
                    let mut source = recording::Recording::new(Sampler::full(root), path)?;
                    let snap = snapshot(&mut source, settings.interval, extras);
                    if let Some((e, n)) = source.finish()? {
                        anyhow::bail!("{n} of the samples were not recorded: {e}");
                    }
                    snap
                }
                None => snapshot(&mut Sampler::full(root), settings.interval, extras),
            };
            let mut out = io::BufWriter::new(console::Stdout::lock());
            let written = report::write(format, &snap, &mut out, settings.color, settings.full)
                .and_then(|()| out.flush());
            if out.get_ref().gone() {
                return Ok(());
            }
            written.context("writing the report")
        }
    }
}

/// The scans an exposition needs: the cgroup tree, for the top cgroups by zswap.
pub fn metrics_extras(extras: sources::Extras) -> sources::Extras {
    sources::Extras {
        cgroups: true,
        ..extras
    }
}

/// The file `--textfile DIR` writes.
pub const TEXTFILE_NAME: &str = "zswaptop.prom";

/// Write DIR/zswaptop.prom for node_exporter's textfile collector: into a temporary file in
/// DIR (a name without `.prom`, which the collector skips), made readable by all (the exporter
/// runs as its own user), then renamed over the old one, so a scrape never sees half a file.
pub fn write_textfile(snap: &Snapshot, dir: &std::path::Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut tmp = tempfile::Builder::new()
        .prefix(".zswaptop.prom.")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    report::openmetrics::write(snap, report::openmetrics::Flavor::Prometheus, &mut tmp)
        .and_then(|()| tmp.flush())
        .and_then(|()| {
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
        })
        .with_context(|| format!("writing {}", tmp.path().display()))?;
    let path = dir.join(TEXTFILE_NAME);
    tmp.persist(&path)
        .with_context(|| format!("renaming it to {}", path.display()))?;
    Ok(())
}

/// The live dashboard. ASCII symbols with `--ascii` or a locale that is not UTF-8.
fn dashboard(mut settings: Settings, root: &Root) -> anyhow::Result<()> {
    settings.ascii |= !ui::locale_is_utf8(|k| std::env::var(k).ok());
    let exit = match settings.record.clone() {
        Some(path) => {
            let mut source = recording::Recording::new(Sampler::new(root.clone()), &path)?;
            let exit = app::run::run(settings, &mut source)?;
            match source.finish() {
                Ok(None) => {}
                Ok(Some((e, n))) => console::warn(format_args!(
                    "{n} samples were not recorded; the last because: {e}"
                )),
                Err(e) => console::warn(e),
            }
            exit
        }
        None => app::run::run(settings, &mut Sampler::new(root.clone()))?,
    };
    end_dashboard(exit)
}

/// `zswaptop replay`: the dashboard over a recording.
pub fn replay(args: &cli::ReplayArgs) -> anyhow::Result<()> {
    if !(args.history.is_finite() && args.history > 0.0 && args.history <= 1440.0) {
        return Err(cli::SettingsError::History(args.history).into());
    }
    let reader = recording::open(&args.path)?;
    let start = match &args.at {
        Some(at) => {
            let t = recording::parse_time(&reader, at)?;
            reader.position_at(t).unwrap_or(0)
        }
        None => 0,
    };
    let history = std::time::Duration::from_secs_f64(args.history * 60.0);
    let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let settings = Settings {
        mode: Mode::Dashboard,
        root: None,
        interval: Some(app::replay::TICK),
        color: !(args.no_color || no_color_env),
        ascii: args.ascii || !ui::locale_is_utf8(|k| std::env::var(k).ok()),
        history,
        mouse: !args.no_mouse,
        extras: sources::Extras::default(),
        full: false,
        textfile: None,
        record: None,
        from: None,
    };
    let mut source = app::replay::ReplaySource::new(reader, history, start)?;
    let exit = app::run::replay(settings, &mut source, start)?;
    for w in source.warnings() {
        console::warn(w);
    }
    end_dashboard(exit)
}

/// End the way the dashboard ended: a signal is raised again once the terminal is restored.
fn end_dashboard(exit: app::run::Exit) -> anyhow::Result<()> {
    match exit {
        app::run::Exit::Quit | app::run::Exit::TtyGone(_) => Ok(()),
        // The terminal is restored: now end the way the signal asked for.
        app::run::Exit::Signal(sig) => {
            let _ = io::stdout().flush();
            signal_hook::low_level::emulate_default_handler(sig)
                .with_context(|| format!("ending on signal {sig}"))
        }
    }
}
