//! The terminal loop: sample on every tick, turn keys into messages, draw when something changed.
//!
//! One thread does the work and sleeps in `poll(2)` between ticks, woken by a key, a resize or a
//! signal, so an idle dashboard costs one sample and one draw per interval. SIGHUP, SIGTERM,
//! SIGINT and SIGQUIT, a terminal that hangs up, and writes that fail all end the loop; the
//! terminal is restored on every way out, a panic included. A small guard thread, asleep until
//! a signal or a hang-up, makes sure the process is gone within a second even if the loop is
//! stuck in a write to a terminal that no longer drains.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{self, Event, KeyEvent};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGWINCH};

use super::tty::{self, POLLIN};
use super::{App, Msg, keys};
use crate::cli::Settings;
use crate::sources::sampler::SampleSource;
use crate::sources::{Extras, Sample};
use crate::ui;

/// How the loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// The user quit (exit status 0).
    Quit,
    /// A terminating signal arrived; the caller re-raises it once the terminal is restored.
    Signal(i32),
    /// The terminal went away (hang-up, read or write error).
    TtyGone(String),
}

/// Something the loop must react to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Key(KeyEvent),
    Resize,
    Stop(i32),
    Hangup,
}

/// Where input comes from: the terminal, or a script in tests.
pub trait Events {
    /// Wait at most `timeout` for input and append what arrived to `out` (nothing on timeout).
    fn wait(&mut self, timeout: Duration, out: &mut Vec<Input>) -> io::Result<()>;
}

/// After a stop signal or a hang-up, how long the loop gets to finish before the guard ends
/// the process itself.
pub const GRACE: Duration = Duration::from_millis(700);

/// Run the loop until the user quits, a signal arrives or the terminal goes away.
///
/// `sample(prev, extras, interval)` reads one sample after `prev` with the scans the visible
/// view needs, and says how often the process list is read when that is less often than every
/// tick; it is called once per interval, paused or not, and at once when a view that needs a
/// scan the last sample lacks comes up (so its rows show without waiting for the next tick).
pub fn event_loop<B, E, S>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    events: &mut E,
    mut sample: S,
) -> Exit
where
    B: Backend,
    B::Error: std::fmt::Display,
    E: Events,
    S: FnMut(&Sample, Extras, Duration) -> (Sample, Option<Duration>),
{
    let mut last_sample = Instant::now();
    let mut sampled_with = app.extras();
    let mut dirty = true;
    let mut inputs = Vec::with_capacity(16);
    if let Ok(size) = terminal.size() {
        app.update(Msg::Resize(size.width, size.height));
    }
    loop {
        if !app.running {
            return Exit::Quit;
        }
        if dirty {
            // The layout's scroll limits, measured by the ui for the app before it draws.
            app.update(Msg::Laid(ui::max_scrolls(app)));
            if app.clear_requested {
                app.clear_requested = false;
                if let Err(e) = terminal.clear() {
                    return Exit::TtyGone(format!("writing to the terminal: {e}"));
                }
            }
            if let Err(e) = terminal.draw(|f| ui::draw(f, app)) {
                return Exit::TtyGone(format!("writing to the terminal: {e}"));
            }
            dirty = false;
        }
        let now = Instant::now();
        let due = last_sample + app.interval;
        let extras = app.extras();
        let scan_missing = (extras.top_processes.is_some() && sampled_with.top_processes.is_none())
            || (extras.cgroups && !sampled_with.cgroups)
            || (extras.settings && !sampled_with.settings);
        if now >= due || scan_missing {
            let (s, scan_every) = sample(app.last_sample(), extras, app.interval);
            sampled_with = extras;
            dirty |= app.update(Msg::ScanEvery(scan_every));
            // Keep the cadence, but never try to catch up on missed ticks.
            last_sample = if now >= due && now.duration_since(due) < app.interval {
                due
            } else {
                now
            };
            dirty |= app.update(Msg::Sampled(Box::new(s)));
            continue;
        }
        inputs.clear();
        if let Err(e) = events.wait(due - now, &mut inputs) {
            return Exit::TtyGone(format!("reading the terminal: {e}"));
        }
        for input in inputs.drain(..) {
            match input {
                Input::Key(k) => {
                    if let Some(a) = keys::action_for(k, app.key_mode()) {
                        dirty |= app.update(Msg::Key(a));
                    }
                }
                Input::Resize => match terminal.size() {
                    Ok(size) => dirty |= app.update(Msg::Resize(size.width, size.height)),
                    Err(_) => dirty = true,
                },
                Input::Stop(sig) => return Exit::Signal(sig),
                Input::Hangup => return Exit::TtyGone("the terminal hung up".into()),
            }
        }
    }
}

/// The terminal's input side: stdin when it is a terminal, else `/dev/tty` (what crossterm reads).
enum TtyIn {
    Stdin,
    Dev(File),
}

impl TtyIn {
    fn open() -> anyhow::Result<TtyIn> {
        if io::stdin().is_terminal() {
            return Ok(TtyIn::Stdin);
        }
        let f = File::options()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .context("opening /dev/tty")?;
        Ok(TtyIn::Dev(f))
    }

    fn fd(&self) -> RawFd {
        match self {
            TtyIn::Stdin => io::stdin().as_raw_fd(),
            TtyIn::Dev(f) => f.as_raw_fd(),
        }
    }
}

/// Signal handlers: set flags and write a byte to pipes that the loop and the guard wait on.
struct Signals {
    stop: Arc<AtomicUsize>,
    winch: Arc<AtomicBool>,
    /// The loop's wake-up pipe (read side).
    wake: UnixStream,
    /// The guard's wake-up pipe (read side) and a write side to wake it when the loop is done.
    guard_rx: UnixStream,
    guard_tx: UnixStream,
    ids: Vec<signal_hook::SigId>,
}

impl Signals {
    fn install() -> io::Result<Signals> {
        let stop = Arc::new(AtomicUsize::new(0));
        let winch = Arc::new(AtomicBool::new(false));
        let (wake, wake_tx) = UnixStream::pair()?;
        let (guard_rx, guard_tx) = UnixStream::pair()?;
        for s in [&wake, &guard_rx, &guard_tx, &wake_tx] {
            s.set_nonblocking(true)?;
        }
        let mut ids = Vec::new();
        for sig in [SIGHUP, SIGTERM, SIGINT, SIGQUIT] {
            // The flag first: whoever wakes up must find it set.
            ids.push(signal_hook::flag::register_usize(
                sig,
                Arc::clone(&stop),
                sig as usize,
            )?);
            ids.push(signal_hook::low_level::pipe::register(
                sig,
                wake_tx.try_clone()?,
            )?);
            ids.push(signal_hook::low_level::pipe::register(
                sig,
                guard_tx.try_clone()?,
            )?);
        }
        ids.push(signal_hook::flag::register(SIGWINCH, Arc::clone(&winch))?);
        ids.push(signal_hook::low_level::pipe::register(SIGWINCH, wake_tx)?);
        Ok(Signals {
            stop,
            winch,
            wake,
            guard_rx,
            guard_tx,
            ids,
        })
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

fn drain(mut s: &UnixStream) {
    let mut buf = [0u8; 64];
    while matches!(s.read(&mut buf), Ok(n) if n > 0) {}
}

/// Input from the real terminal.
struct TtyEvents<'a> {
    tty: RawFd,
    signals: &'a Signals,
}

impl Events for TtyEvents<'_> {
    fn wait(&mut self, timeout: Duration, out: &mut Vec<Input>) -> io::Result<()> {
        let mut fds = [
            tty::pollfd(self.tty, POLLIN),
            tty::pollfd(self.signals.wake.as_raw_fd(), POLLIN),
        ];
        tty::poll(&mut fds, Some(timeout))?;
        if fds[1].revents != 0 {
            drain(&self.signals.wake);
        }
        let sig = self.signals.stop.load(Ordering::SeqCst);
        if sig != 0 {
            out.push(Input::Stop(i32::try_from(sig).unwrap_or(SIGTERM)));
            return Ok(());
        }
        // Checked before reading: crossterm's reader would spin on a terminal that hung up.
        if tty::gone(fds[0].revents) {
            out.push(Input::Hangup);
            return Ok(());
        }
        let resized = self.signals.winch.swap(false, Ordering::SeqCst);
        if resized {
            out.push(Input::Resize);
        }
        if fds[0].revents & POLLIN != 0 || resized {
            while event::poll(Duration::ZERO)? {
                match event::read()? {
                    Event::Key(k) => out.push(Input::Key(k)),
                    Event::Resize(..) => out.push(Input::Resize),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Ends the process if the loop has not finished [`GRACE`] after a stop signal or a hang-up.
struct Guard {
    done: Arc<AtomicBool>,
    tx: UnixStream,
}

impl Guard {
    fn spawn(tty: RawFd, signals: &Signals) -> io::Result<Guard> {
        let done = Arc::new(AtomicBool::new(false));
        let rx = signals.guard_rx.try_clone()?;
        let stop = Arc::clone(&signals.stop);
        let d = Arc::clone(&done);
        thread::Builder::new()
            .name("zswaptop-guard".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                loop {
                    let mut fds = [tty::pollfd(rx.as_raw_fd(), POLLIN), tty::pollfd(tty, 0)];
                    if tty::poll(&mut fds, None).is_err() {
                        return;
                    }
                    drain(&rx);
                    if d.load(Ordering::SeqCst) {
                        return;
                    }
                    let sig = stop.load(Ordering::SeqCst);
                    if sig != 0 || tty::gone(fds[1].revents) {
                        thread::sleep(GRACE);
                        if d.load(Ordering::SeqCst) {
                            return;
                        }
                        // The loop is stuck (a write that never returns): leave without touching
                        // the terminal's output again.
                        let _ = ratatui::crossterm::terminal::disable_raw_mode();
                        let code = if sig != 0 {
                            128 + i32::try_from(sig).unwrap_or(0)
                        } else {
                            1
                        };
                        signal_hook::low_level::exit(code);
                    }
                }
            })?;
        Ok(Guard {
            done,
            tx: signals.guard_tx.try_clone()?,
        })
    }

    fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = io::Write::write(&mut &self.tx, b"x");
    }
}

/// Leaves raw mode and the alternate screen, and shows the cursor, whatever way the loop ends.
struct RestoreOnDrop;

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        ratatui::restore();
        let _ = ratatui::crossterm::execute!(io::stdout(), ratatui::crossterm::cursor::Show);
    }
}

/// Open the dashboard on the terminal and run it on the samples of `sampler` until it ends.
pub fn run(settings: Settings, sampler: &mut impl SampleSource) -> anyhow::Result<Exit> {
    if !io::stdout().is_terminal() {
        anyhow::bail!(
            "the dashboard needs a terminal and stdout is not one (use --once for a report)"
        );
    }
    let tty_in = TtyIn::open()?;
    let signals = Signals::install().context("installing signal handlers")?;
    let mut app = App::new(settings, sampler.next(None, Extras::default()));
    // From here on the terminal is put back on every way out, a failed setup included.
    let restore = RestoreOnDrop;
    // crossterm drops every colour when NO_COLOR is set; `--color=always` has decided otherwise.
    ratatui::crossterm::style::force_color_output(app.settings.color);
    // Installs a panic hook that restores the terminal before the panic message is printed.
    let mut terminal = ratatui::try_init().context("setting up the terminal")?;
    let guard = Guard::spawn(tty_in.fd(), &signals).context("starting the guard thread")?;
    let mut events = TtyEvents {
        tty: tty_in.fd(),
        signals: &signals,
    };
    let exit = event_loop(
        &mut terminal,
        &mut app,
        &mut events,
        |prev, extras, interval| {
            let s = sampler.next(Some(prev), extras);
            (s, sampler.scan_every(interval))
        },
    );
    guard.finish();
    drop(terminal);
    drop(restore);
    Ok(exit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};
    use std::collections::VecDeque;

    struct Script(VecDeque<Vec<Input>>);

    impl Events for Script {
        fn wait(&mut self, timeout: Duration, out: &mut Vec<Input>) -> io::Result<()> {
            match self.0.pop_front() {
                // An empty batch is a wait that timed out.
                Some(batch) if batch.is_empty() => thread::sleep(timeout),
                Some(batch) => out.extend(batch),
                None => return Err(io::Error::other("script ran out")),
            }
            Ok(())
        }
    }

    fn key(c: char) -> Input {
        Input::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    }

    fn fixture(t: u64, extras: Extras) -> Sample {
        let mut s =
            crate::sources::collect_with(&Root::at("tests/fixtures/linux-6.18-loaded"), extras);
        s.monotonic_ns = t;
        s
    }

    fn app() -> App {
        App::new(
            crate::app::test_settings(&["-i", "0.1"]),
            fixture(1, Extras::default()),
        )
    }

    fn run_script(batches: Vec<Vec<Input>>) -> (Exit, App, Terminal<TestBackend>) {
        let (exit, app, term, _) = run_recording(batches);
        (exit, app, term)
    }

    /// Also returns the extras each sample was asked for.
    fn run_recording(batches: Vec<Vec<Input>>) -> (Exit, App, Terminal<TestBackend>, Vec<Extras>) {
        let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
        let mut app = app();
        let mut t = 1u64;
        let mut asked = Vec::new();
        let exit = event_loop(
            &mut term,
            &mut app,
            &mut Script(batches.into()),
            |_, extras, _| {
                asked.push(extras);
                t += 100_000_000;
                (fixture(t, extras), None)
            },
        );
        (exit, app, term, asked)
    }

    #[test]
    fn q_quits() {
        let (exit, app, term) = run_script(vec![vec![key('?')], vec![], vec![key('q')]]);
        assert_eq!(exit, Exit::Quit);
        assert!(app.help);
        assert!(term.backend().to_string().contains("Keys"));
    }

    #[test]
    fn signals_and_hangups_end_the_loop() {
        assert_eq!(
            run_script(vec![vec![Input::Stop(SIGHUP)]]).0,
            Exit::Signal(SIGHUP)
        );
        assert_eq!(
            run_script(vec![vec![Input::Stop(SIGTERM)]]).0,
            Exit::Signal(SIGTERM)
        );
        assert!(matches!(
            run_script(vec![vec![Input::Hangup]]).0,
            Exit::TtyGone(_)
        ));
        assert!(
            matches!(run_script(vec![]).0, Exit::TtyGone(_)),
            "a read error ends the loop"
        );
    }

    /// The process scan runs only while the processes view is up, and at once when it comes
    /// up; likewise the cgroup walk.
    #[test]
    fn scans_only_while_their_view_is_visible() {
        let (exit, app, _, asked) = run_recording(vec![
            vec![],
            vec![key('5')],
            vec![],
            vec![key('6')],
            vec![key('1')],
            vec![],
            vec![key('q')],
        ]);
        assert_eq!(exit, Exit::Quit);
        let procs = |e: &Extras| e.top_processes.is_some();
        // A tick on the overview, then one at once for the processes view, then its tick.
        assert!(!procs(&asked[0]) && !asked[0].cgroups, "{asked:?}");
        assert!(procs(&asked[1]) && !asked[1].cgroups, "{asked:?}");
        assert!(procs(&asked[2]), "{asked:?}");
        // The cgroups view: at once, without the process scan.
        assert!(asked[3].cgroups && !procs(&asked[3]), "{asked:?}");
        // Back on the overview: no scan at all.
        assert!(
            asked[4..].iter().all(|e| *e == Extras::default()),
            "{asked:?}"
        );
        assert_eq!(app.view, crate::app::View::Overview);
        assert_eq!(asked[1].top_processes, Some(crate::app::TOP_PROCESSES));
    }

    #[test]
    fn the_filter_prompt_takes_keys_as_text() {
        let (exit, app, term) = run_script(vec![
            vec![key('5')],
            vec![key('/'), key('q'), key('s')],
            vec![Input::Key(KeyEvent::new(
                KeyCode::Enter,
                KeyModifiers::NONE,
            ))],
            vec![key('q')],
        ]);
        assert_eq!(exit, Exit::Quit, "q after Enter quits");
        assert_eq!(app.procs.filter, "qs", "q and s were text in the prompt");
        assert!(!app.prompt);
        assert!(term.backend().to_string().contains("qs"));
    }

    #[test]
    fn samples_on_every_tick_and_resizes() {
        // Each empty batch is a wait that timed out; the interval is 100 ms.
        let mut batches = vec![vec![Input::Resize]];
        batches.extend((0..3).map(|_| vec![]));
        batches.push(vec![key('q')]);
        let start = Instant::now();
        let (exit, app, _) = run_script(batches);
        assert_eq!(exit, Exit::Quit);
        // Three waits timed out at 100 ms each: three more samples.
        assert!(app.samples >= 4, "{}", app.samples);
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
