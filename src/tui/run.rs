//! The terminal loop: sample on every tick, turn keys into messages, draw when something changed.
//!
//! One thread does the work and sleeps in `poll(2)` between ticks, woken by a key, a resize or a
//! signal, so an idle dashboard costs one sample and one draw per interval. SIGHUP, SIGTERM,
//! SIGINT and SIGQUIT, a terminal that hangs up, and writes that fail all end the loop; Ctrl-Z
//! and SIGTSTP suspend it. The terminal itself (modes, size, suspend) is [`super::terminal`];
//! the signal handlers and the guard thread that ends a stuck loop are [`super::signals`].

use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{
    self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent,
};
use signal_hook::consts::SIGHUP;

use super::screen::Screen;
use super::signals::{Guard, Signals};
use super::terminal::{self, Session, TtyIn};
use super::tty::{self, POLLIN};
use crate::app::{App, Msg, Settings, keys};
use crate::sources::Extras;
#[cfg(test)]
use crate::sources::Sample;
use crate::sources::sampler::SampleSource;
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
    Mouse(MouseEvent),
    Resize,
    Stop(i32),
    Hangup,
    /// Ctrl-Z or SIGTSTP: give the terminal back and stop until continued.
    Suspend,
    /// SIGCONT without a suspend of ours (a plain SIGSTOP, then `fg`): take the terminal again.
    Continue,
}

/// Where input comes from: the terminal, or a script in tests.
pub trait Events {
    /// Wait at most `timeout` for input and append what arrived to `out` (nothing on timeout).
    fn wait(&mut self, timeout: Duration, out: &mut Vec<Input>) -> io::Result<()>;
    /// Give the terminal back, stop until continued, then take it again.
    fn suspend(&mut self) -> io::Result<()>;
    /// Take the terminal again after the process was stopped and continued from outside.
    fn resume(&mut self) -> io::Result<()>;
}

/// Run the loop until the user quits, a signal arrives or the terminal goes away.
///
/// `sample(app, extras)` reads one sample after the app's last with the scans the visible view
/// needs, as messages for the app (how often the process list is read when that is less often
/// than every tick, then the sample); it is called once per interval, paused or not, and at
/// once when a view that needs a scan the last sample lacks comes up (so its rows show without
/// waiting for the next tick). In a replay it gives the recorded samples that bring the screen
/// to the cursor, called on every tick and at once when the cursor moves.
///
/// `work()` does one slice of a scan under way (the cgroup walk) and says whether that finished
/// it (`None`: nothing under way). Slices run back to back with the keys read between them; a
/// finished list goes into the next tick's sample, or into one at once if none is shown yet.
pub(crate) fn event_loop<B, E, S, W>(
    terminal: &mut Screen<B>,
    app: &mut App,
    events: &mut E,
    mut sample: S,
    mut work: W,
) -> Exit
where
    B: Backend,
    B::Error: std::fmt::Display,
    E: Events,
    S: FnMut(&App, Extras) -> Vec<Msg>,
    W: FnMut() -> Option<bool>,
{
    // Whether a scan may be under way (asked of `work` until it says there is none).
    let mut busy = true;
    let mut list_ready = false;
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
            app.update(ui::lay_out(app));
            if app.clear_requested {
                app.clear_requested = false;
                if let Err(e) = terminal.clear() {
                    return Exit::TtyGone(format!("writing to the terminal: {e}"));
                }
            }
            if let Err(e) = terminal.draw(|buf, area, kept| ui::render_kept(buf, area, app, kept)) {
                return Exit::TtyGone(format!("writing to the terminal: {e}"));
            }
            dirty = false;
        }
        let now = Instant::now();
        let due = last_sample + app.interval;
        // A tick that took longer than the interval is due again at once: read the keys first.
        let mut keys_first = false;
        let extras = app.extras();
        let scan_missing = (extras.top_processes.is_some() && sampled_with.top_processes.is_none())
            || (extras.smaps && !sampled_with.smaps)
            || (extras.cgroups && !sampled_with.cgroups)
            || (extras.settings && !sampled_with.settings);
        if now >= due || scan_missing || list_ready || app.wants_replay() {
            list_ready = false;
            busy = true;
            if now >= due {
                dirty |= app.update(Msg::Tick(app.interval));
            }
            let msgs = sample(app, extras);
            sampled_with = extras;
            // Keep the cadence, but never try to catch up on missed ticks.
            last_sample = if now >= due && now.duration_since(due) < app.interval {
                due
            } else {
                now
            };
            for m in msgs {
                dirty |= app.update(m);
            }
            // Draw at once: keys that came meanwhile are read while waiting for the next tick
            // (one `poll` a tick, not two). A tick that took longer than the interval reads
            // them first, before the next one is due.
            if Instant::now() < last_sample + app.interval {
                continue;
            }
            keys_first = true;
        } else if busy {
            match work() {
                None => busy = false,
                Some(done) => {
                    busy = !done;
                    list_ready = done && app.last_sample().cgroups.is_none();
                }
            }
        }
        inputs.clear();
        let timeout = if busy || list_ready || keys_first {
            Duration::ZERO
        } else {
            due.saturating_duration_since(Instant::now())
        };
        if let Err(e) = events.wait(timeout, &mut inputs) {
            return Exit::TtyGone(format!("reading the terminal: {e}"));
        }
        for input in inputs.drain(..) {
            let view = app.view;
            match input {
                Input::Key(k) => {
                    if let Some(a) = keys::action_for(k, app.key_mode(), app.kind()) {
                        dirty |= app.update(Msg::Key(a));
                    }
                }
                Input::Mouse(m) => {
                    if let Some(a) = keys::mouse_action(m, |c, r| ui::view_at(app, c, r)) {
                        dirty |= app.update(Msg::Key(a));
                    }
                }
                Input::Resize => match terminal.size() {
                    Ok(size) => dirty |= app.update(Msg::Resize(size.width, size.height)),
                    Err(_) => dirty = true,
                },
                Input::Stop(sig) => return Exit::Signal(sig),
                Input::Hangup => return Exit::TtyGone("the terminal hung up".into()),
                Input::Suspend | Input::Continue => {
                    let back = if input == Input::Suspend {
                        events.suspend()
                    } else {
                        events.resume()
                    };
                    if let Err(e) = back {
                        return Exit::TtyGone(format!("taking the terminal back: {e}"));
                    }
                    // The shell drew over the screen, and its size may have changed: draw
                    // everything again.
                    app.clear_requested = true;
                    dirty = true;
                    if let Ok(size) = terminal.size() {
                        app.update(Msg::Resize(size.width, size.height));
                    }
                }
            }
            // Another view: its panes are measured only while shown (see `ui::lay_out`),
            // so measure them now, for the keys after this one.
            if app.view != view {
                app.update(ui::lay_out(app));
            }
        }
    }
}

/// Input from the real terminal.
struct TtyEvents<'a> {
    tty: &'a TtyIn,
    signals: &'a Signals,
}

/// Ctrl-Z: the terminal's suspend key, which raw mode delivers as a key.
fn is_suspend_key(k: &KeyEvent) -> bool {
    k.code == KeyCode::Char('z') && k.modifiers == KeyModifiers::CONTROL
}

impl Events for TtyEvents<'_> {
    fn wait(&mut self, timeout: Duration, out: &mut Vec<Input>) -> io::Result<()> {
        let mut fds = [
            tty::pollfd(self.tty, POLLIN),
            tty::pollfd(self.signals.wake(), POLLIN),
        ];
        tty::poll(&mut fds, Some(timeout))?;
        if !fds[1].revents().is_empty() {
            self.signals.drain_wake();
        }
        if let Some(sig) = self.signals.stop() {
            out.push(Input::Stop(sig));
            return Ok(());
        }
        // Checked before reading: crossterm's reader would spin on a terminal that hung up (and
        // ask for the size in ways a dead terminal answers by running `tput`).
        if tty::gone(fds[0].revents()) {
            out.push(Input::Hangup);
            return Ok(());
        }
        if self.signals.take_suspend() {
            out.push(Input::Suspend);
        }
        if self.signals.take_continue() {
            out.push(Input::Continue);
        }
        let resized = self.signals.take_resize();
        if resized {
            out.push(Input::Resize);
        }
        if fds[0].revents().contains(POLLIN) || resized {
            while event::poll(Duration::ZERO)? {
                match event::read()? {
                    Event::Key(k) if is_suspend_key(&k) && k.kind != KeyEventKind::Release => {
                        out.push(Input::Suspend);
                    }
                    Event::Key(k) if is_suspend_key(&k) => {}
                    Event::Key(k) => out.push(Input::Key(k)),
                    Event::Mouse(m) => out.push(Input::Mouse(m)),
                    Event::Resize(..) => out.push(Input::Resize),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn suspend(&mut self) -> io::Result<()> {
        terminal::suspend()?;
        // The SIGCONT that woke us is this suspend's own.
        self.signals.take_continue();
        Ok(())
    }

    fn resume(&mut self) -> io::Result<()> {
        terminal::resume()
    }
}

/// Open the dashboard on the terminal and run it on the samples of `sampler` until it ends.
pub(crate) fn run(settings: Settings, sampler: &mut impl SampleSource) -> anyhow::Result<Exit> {
    need_terminal()?;
    // Before the handlers: until the dashboard is up, the signals keep their default effect.
    let first = sampler.next(None, Extras::default());
    // Shared by the sampling and the slices of work between ticks.
    let sampler = std::cell::RefCell::new(sampler);
    run_app(
        App::new(settings, first),
        |app, extras| {
            let s = sampler.borrow_mut().next(Some(app.last_sample()), extras);
            let every = sampler.borrow().scan_every(app.interval);
            vec![Msg::ScanEvery(every), Msg::Sampled(Box::new(s))]
        },
        || sampler.borrow_mut().work(),
    )
}

/// Open the dashboard on the terminal over a recording, the cursor at `start`.
pub(crate) fn replay(
    settings: Settings,
    source: &mut crate::record::ReplaySource,
    start: usize,
) -> anyhow::Result<Exit> {
    need_terminal()?;
    let cursor = crate::app::replay::Cursor::new(source.times(), start);
    let first = source.next(None, Extras::default());
    run_app(
        App::replaying(settings, first, cursor),
        |app, _| {
            app.replay
                .as_ref()
                .and_then(|c| source.feed(c.shown, c.target))
                .map(Msg::from)
                .into_iter()
                .collect()
        },
        || None,
    )
}

fn need_terminal() -> anyhow::Result<()> {
    if !io::stdout().is_terminal() {
        anyhow::bail!(
            "the dashboard needs a terminal and stdout is not one (use --once for a report)"
        );
    }
    Ok(())
}

/// Take the terminal, run the loop, give the terminal back.
fn run_app<S, W>(mut app: App, sample: S, work: W) -> anyhow::Result<Exit>
where
    S: FnMut(&App, Extras) -> Vec<Msg>,
    W: FnMut() -> Option<bool>,
{
    let tty_in = TtyIn::open()?;
    let signals = Signals::install().context("installing signal handlers")?;
    // crossterm drops every colour when NO_COLOR is set; `--color=always` has decided otherwise.
    ratatui::crossterm::style::force_color_output(app.settings.color);
    // Given back on every way out, a failed setup and a panic included.
    let mut session = Session::open(app.settings.mouse)?;
    let guard = Guard::spawn(
        tty_in.try_clone().context("opening the terminal")?,
        &signals,
    )
    .context("starting the guard thread")?;
    let mut events = TtyEvents {
        tty: &tty_in,
        signals: &signals,
    };
    // The first call comes after the first frame is drawn: start-up is over, and what it alone
    // needed (its code, its relocations, its freed heap) leaves the resident set.
    let mut sample = sample;
    let mut started = false;
    let sample = move |app: &App, extras: Extras| {
        if !started {
            started = true;
            crate::sys::release_startup_pages();
        }
        sample(app, extras)
    };
    let exit = event_loop(&mut session.terminal, &mut app, &mut events, sample, work);
    guard.finish();
    let exit = match exit {
        Exit::Signal(SIGHUP) if tty_in.hung_up() => Exit::TtyGone("the terminal hung up".into()),
        e => e,
    };
    session.end(matches!(exit, Exit::TtyGone(_)), &tty_in);
    Ok(exit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;
    use ratatui::backend::TestBackend;
    use signal_hook::consts::SIGTERM;
    use std::collections::VecDeque;
    use std::thread;

    /// Batches of input, one per wait, and how often the terminal was lent out and taken back.
    #[derive(Default)]
    struct Script {
        batches: VecDeque<Vec<Input>>,
        suspends: usize,
        resumes: usize,
    }

    impl Events for Script {
        fn wait(&mut self, timeout: Duration, out: &mut Vec<Input>) -> io::Result<()> {
            // A look for keys without waiting finds none: the script's input comes in waits.
            if timeout.is_zero() {
                return Ok(());
            }
            match self.batches.pop_front() {
                // An empty batch is a wait that timed out.
                Some(batch) if batch.is_empty() => thread::sleep(timeout),
                Some(batch) => out.extend(batch),
                None => return Err(io::Error::other("script ran out")),
            }
            Ok(())
        }

        fn suspend(&mut self) -> io::Result<()> {
            self.suspends += 1;
            Ok(())
        }

        fn resume(&mut self) -> io::Result<()> {
            self.resumes += 1;
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

    fn run_script(batches: Vec<Vec<Input>>) -> (Exit, App, Screen<TestBackend>) {
        let (exit, app, term, _) = run_recording(batches);
        (exit, app, term)
    }

    /// Also returns the extras each sample was asked for.
    fn run_recording(batches: Vec<Vec<Input>>) -> (Exit, App, Screen<TestBackend>, Vec<Extras>) {
        let mut term = Screen::new(TestBackend::new(80, 24)).unwrap();
        let mut app = app();
        let mut t = 1u64;
        let mut asked = Vec::new();
        let exit = event_loop(
            &mut term,
            &mut app,
            &mut Script {
                batches: batches.into(),
                ..Script::default()
            },
            |_, extras| {
                asked.push(extras);
                t += 100_000_000;
                vec![Msg::Sampled(Box::new(fixture(t, extras)))]
            },
            || None,
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
        assert_eq!(
            app.filter().unwrap_or_default(),
            "qs",
            "q and s were text in the prompt"
        );
        assert!(!app.prompt);
        assert!(term.backend().to_string().contains("qs"));
    }

    /// Input that is there at the `nth` look (from 1), however long each look may wait.
    struct Pending(usize, Vec<Input>);

    impl Events for Pending {
        fn wait(&mut self, timeout: Duration, out: &mut Vec<Input>) -> io::Result<()> {
            self.0 = self.0.saturating_sub(1);
            if self.0 == 0 {
                out.append(&mut self.1);
            } else {
                thread::sleep(timeout);
            }
            Ok(())
        }

        fn suspend(&mut self) -> io::Result<()> {
            Ok(())
        }

        fn resume(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Every tick takes longer than the interval: the keys are still read between ticks.
    #[test]
    fn a_tick_longer_than_the_interval_does_not_starve_the_keys() {
        let mut term = Screen::new(TestBackend::new(80, 24)).unwrap();
        let mut app = app();
        let mut ticks = 0;
        let exit = event_loop(
            &mut term,
            &mut app,
            &mut Pending(2, vec![key('q')]),
            |app, extras| {
                ticks += 1;
                assert!(ticks < 5, "{ticks} slow ticks and the keys were never read");
                thread::sleep(app.interval + Duration::from_millis(20));
                vec![Msg::Sampled(Box::new(fixture(1, extras)))]
            },
            || None,
        );
        assert_eq!(exit, Exit::Quit);
        assert_eq!(ticks, 1, "q was read right after the first tick");
    }

    /// A scan under way is worked on in slices with the keys read between them.
    #[test]
    fn keys_are_read_between_slices_of_work() {
        let mut term = Screen::new(TestBackend::new(80, 24)).unwrap();
        let mut app = app();
        let mut slices = 0;
        let exit = event_loop(
            &mut term,
            &mut app,
            &mut Pending(3, vec![key('q')]),
            |_, extras| vec![Msg::Sampled(Box::new(fixture(1, extras)))],
            || {
                slices += 1;
                assert!(slices < 5, "{slices} slices and the keys were never read");
                Some(false)
            },
        );
        assert_eq!(exit, Exit::Quit);
        assert_eq!(slices, 3, "a look at the keys after each slice");
    }

    /// Ctrl-Z lends the terminal out; when continued the screen is cleared and drawn in full.
    /// A SIGCONT from outside takes the terminal again the same way.
    #[test]
    fn suspend_and_continue_redraw_everything() {
        let mut term = Screen::new(TestBackend::new(80, 24)).unwrap();
        let mut app = app();
        let mut script = Script {
            batches: vec![
                vec![],
                vec![Input::Suspend],
                vec![],
                vec![Input::Continue],
                vec![key('q')],
            ]
            .into(),
            ..Script::default()
        };
        let exit = event_loop(
            &mut term,
            &mut app,
            &mut script,
            |_, extras| vec![Msg::Sampled(Box::new(fixture(1, extras)))],
            || None,
        );
        assert_eq!(exit, Exit::Quit);
        assert_eq!((script.suspends, script.resumes), (1, 1));
        assert!(!app.clear_requested, "the clear was done");
        assert!(term.backend().to_string().contains("Real memory"));
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
