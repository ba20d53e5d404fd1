//! zswaptop: where Linux memory really is when zswap or zram compresses it.
//!
//! Data flows one way: [`sources`] read the kernel (through a [`root::Root`], so a captured tree
//! can stand in for `/proc` and `/sys`) into a raw [`sources::Sample`]; [`model`] derives a
//! [`model::Snapshot`] from it with pure functions; [`report`] (for `--once`) and the dashboard
//! draw the snapshot through the shared [`format`] layer.

pub mod app;
pub mod cli;
pub mod diagnostics;
pub mod format;
pub mod history;
#[cfg(test)]
mod layers;
pub mod model;
pub mod report;
pub mod root;
pub mod sanitize;
pub mod sources;
pub mod store;
pub mod sys;
pub mod ui;

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
        Mode::Once(format) => {
            let mut source = Sampler::full(root);
            let snap = snapshot(&mut source, settings.interval, settings.extras);
            let stdout = io::stdout();
            let mut out = io::BufWriter::new(stdout.lock());
            let written = report::write(format, &snap, &mut out, settings.color);
            quiet_on_closed_pipe(written.and_then(|()| out.flush())).context("writing the report")
        }
    }
}

/// The live dashboard. ASCII symbols with `--ascii` or a locale that is not UTF-8.
fn dashboard(mut settings: Settings, root: &Root) -> anyhow::Result<()> {
    settings.ascii |= !ui::locale_is_utf8(|k| std::env::var(k).ok());
    match app::run::run(settings, &mut Sampler::new(root.clone()))? {
        app::run::Exit::Quit | app::run::Exit::TtyGone(_) => Ok(()),
        // The terminal is restored: now end the way the signal asked for.
        app::run::Exit::Signal(sig) => {
            let _ = io::stdout().flush();
            signal_hook::low_level::emulate_default_handler(sig)
                .with_context(|| format!("ending on signal {sig}"))
        }
    }
}

/// A reader that went away (`zswaptop --once | head -1`) is not an error.
fn quiet_on_closed_pipe(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
