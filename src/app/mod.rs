//! The dashboard's state machine (The Elm Architecture): [`App`] is the model, [`Msg`] the
//! messages, [`App::update`] the only place state changes. Drawing ([`crate::ui::draw`]) reads an
//! `&App` and changes nothing; the terminal loop ([`run`]) turns ticks and keys into messages.

pub mod keys;
pub mod run;
pub mod sampler;
mod tty;

use std::time::Duration;

use crate::cli::{DEFAULT_INTERVAL, MIN_INTERVAL, Settings};
use crate::history::History;
use crate::model::Snapshot;
use crate::sources::Sample;
pub use keys::Action;

/// The dashboard's views (Tab and the number keys switch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Everything at a glance.
    Overview,
    /// The four graphs, large.
    Graphs,
    /// Swap and zram device tables.
    Devices,
}

impl View {
    pub const ALL: [View; 3] = [View::Overview, View::Graphs, View::Devices];

    pub fn name(self) -> &'static str {
        match self {
            View::Overview => "overview",
            View::Graphs => "graphs",
            View::Devices => "devices",
        }
    }

    fn index(self) -> usize {
        match self {
            View::Overview => 0,
            View::Graphs => 1,
            View::Devices => 2,
        }
    }
}

/// Which table the arrows scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Swap,
    Zram,
}

impl Focus {
    fn index(self) -> usize {
        match self {
            Focus::Swap => 0,
            Focus::Zram => 1,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Msg {
    /// A new sample was read (boxed: a sample is large next to the other messages).
    Sampled(Box<Sample>),
    Key(Action),
    /// The terminal changed size: nothing to update, but the screen must be redrawn.
    Resize,
}

/// Rows PgUp/PgDn move.
pub const PAGE: usize = 10;

/// Interval steps for `+`/`-`.
const INTERVAL_STEPS_MS: [u64; 9] = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

/// Graph window steps for `[`/`]` (capped at the history kept).
const WINDOW_STEPS_S: [u64; 14] = [
    15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 86_400,
];

#[derive(Debug, Clone)]
pub struct App {
    pub settings: Settings,
    /// The sampling interval now in force.
    pub interval: Duration,
    /// Every sample's graphed metrics, kept while paused too.
    pub history: History,
    /// What the screen shows (frozen while paused).
    pub latest: Snapshot,
    /// While paused: the history as it was when the pause began.
    frozen_history: Option<History>,
    /// While paused: the newest snapshot, shown when the pause ends.
    newest: Option<Box<Snapshot>>,
    /// The last sample, for the next sample's rates.
    prev: Sample,
    /// Samples taken so far.
    pub samples: u64,
    pub view: View,
    pub focus: Focus,
    scroll: [usize; 2],
    pub help: bool,
    pub paused: bool,
    /// How much time the graphs show.
    pub window: Duration,
    pub running: bool,
    /// Set by Ctrl-L: the loop clears the terminal before the next draw.
    pub clear_requested: bool,
}

impl App {
    /// A dashboard showing its first sample (rates pending until the second).
    pub fn new(settings: Settings, first: Sample) -> App {
        let interval = settings
            .interval
            .unwrap_or(DEFAULT_INTERVAL)
            .max(MIN_INTERVAL);
        let mut history = History::new(settings.history);
        history.reserve((settings.history.as_secs_f64() / interval.as_secs_f64()) as usize + 4);
        let latest = Snapshot::derive(&first, None);
        history.push_snapshot(first.monotonic_ns, &latest);
        let window = settings.history;
        App {
            settings,
            interval,
            history,
            latest,
            frozen_history: None,
            newest: None,
            prev: first,
            samples: 1,
            view: View::Overview,
            focus: Focus::Swap,
            scroll: [0; 2],
            help: false,
            paused: false,
            window,
            running: true,
            clear_requested: false,
        }
    }

    /// The history the graphs draw (frozen while paused).
    pub fn shown_history(&self) -> &History {
        self.frozen_history.as_ref().unwrap_or(&self.history)
    }

    /// The scroll offset of a table.
    pub fn scroll(&self, f: Focus) -> usize {
        self.scroll[f.index()]
    }

    /// Apply one message. Returns whether what is on screen changed.
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Sampled(s) => self.on_sample(*s),
            Msg::Key(a) => {
                self.on_action(a);
                true
            }
            Msg::Resize => true,
        }
    }

    fn on_sample(&mut self, s: Sample) -> bool {
        let snap = Snapshot::derive(&s, Some(&self.prev));
        self.history.push_snapshot(s.monotonic_ns, &snap);
        self.prev = s;
        self.samples += 1;
        if self.paused {
            self.newest = Some(Box::new(snap));
            false
        } else {
            self.latest = snap;
            true
        }
    }

    fn rows(&self, f: Focus) -> usize {
        match f {
            Focus::Swap => self.latest.swap.devices.len(),
            Focus::Zram => self.latest.zram.len(),
        }
    }

    fn scroll_to(&mut self, f: impl FnOnce(usize, usize) -> usize) {
        let i = self.focus.index();
        let max = self.rows(self.focus).saturating_sub(1);
        self.scroll[i] = f(self.scroll[i], max).min(max);
    }

    fn on_action(&mut self, a: Action) {
        match a {
            Action::Quit => self.running = false,
            Action::Back => {
                if self.help {
                    self.help = false;
                } else {
                    self.running = false;
                }
            }
            Action::ToggleHelp => self.help = !self.help,
            Action::TogglePause => self.set_paused(!self.paused),
            Action::LongerInterval => {
                let now = self.interval.as_millis();
                let next = INTERVAL_STEPS_MS.iter().find(|&&s| u128::from(s) > now);
                if let Some(&ms) = next {
                    self.interval = Duration::from_millis(ms);
                }
            }
            Action::ShorterInterval => {
                let now = self.interval.as_millis();
                let next = INTERVAL_STEPS_MS
                    .iter()
                    .rev()
                    .find(|&&s| u128::from(s) < now);
                self.interval = next
                    .map_or(MIN_INTERVAL, |&ms| Duration::from_millis(ms))
                    .max(MIN_INTERVAL);
            }
            Action::NextView => self.view = View::ALL[(self.view.index() + 1) % View::ALL.len()],
            Action::PrevView => {
                self.view = View::ALL[(self.view.index() + View::ALL.len() - 1) % View::ALL.len()];
            }
            Action::Show(v) => self.view = v,
            Action::FocusNext | Action::FocusPrev => {
                self.focus = match self.focus {
                    Focus::Swap => Focus::Zram,
                    Focus::Zram => Focus::Swap,
                };
            }
            Action::ScrollUp => self.scroll_to(|s, _| s.saturating_sub(1)),
            Action::ScrollDown => self.scroll_to(|s, _| s + 1),
            Action::PageUp => self.scroll_to(|s, _| s.saturating_sub(PAGE)),
            Action::PageDown => self.scroll_to(|s, _| s + PAGE),
            Action::Top => self.scroll_to(|_, _| 0),
            Action::Bottom => self.scroll_to(|_, max| max),
            Action::ZoomIn => {
                let now = self.window.as_secs_f64();
                let next = WINDOW_STEPS_S
                    .iter()
                    .rev()
                    .find(|&&s| (s as f64) < now - 1e-9);
                if let Some(&s) = next {
                    self.window = Duration::from_secs(s);
                }
            }
            Action::ZoomOut => {
                let now = self.window.as_secs_f64();
                let max = self.history.max_age();
                let next = WINDOW_STEPS_S.iter().find(|&&s| (s as f64) > now + 1e-9);
                self.window = next.map_or(max, |&s| Duration::from_secs(s)).min(max);
            }
            Action::Redraw => self.clear_requested = true,
        }
    }

    fn set_paused(&mut self, paused: bool) {
        if paused == self.paused {
            return;
        }
        self.paused = paused;
        if paused {
            self.frozen_history = Some(self.history.clone());
        } else {
            self.frozen_history = None;
            if let Some(n) = self.newest.take() {
                self.latest = *n;
            }
        }
    }
}

/// Dashboard settings as the command line `zswaptop ARGS` gives them (for tests).
#[cfg(test)]
pub(crate) fn test_settings(args: &[&str]) -> Settings {
    use clap::Parser;
    let mut v = vec!["zswaptop"];
    v.extend_from_slice(args);
    let cli = crate::cli::Cli::parse_from(v);
    Settings::from_cli(cli, true, false).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;

    fn settings() -> Settings {
        test_settings(&[])
    }

    fn sample(root: &str, t_s: u64) -> Sample {
        let mut s = crate::sources::collect(&Root::at(format!("tests/fixtures/{root}")));
        s.monotonic_ns = t_s * 1_000_000_000;
        s
    }

    fn app() -> App {
        App::new(settings(), sample("linux-6.18-idle", 100))
    }

    #[test]
    fn rates_are_pending_until_the_second_sample() {
        let mut a = app();
        assert!(a.latest.rates.is_none());
        assert!(a.update(Msg::Sampled(Box::new(sample("linux-6.18-loaded", 101)))));
        let r = a.latest.rates.as_ref().map(|r| r.interval_seconds);
        assert_eq!(r, Some(1.0));
        assert_eq!(a.history.len(), 2);
        assert_eq!(a.samples, 2);
    }

    #[test]
    fn pause_freezes_the_display_while_sampling_goes_on() {
        let mut a = app();
        a.update(Msg::Key(Action::TogglePause));
        assert!(a.paused);
        let shown = a.latest.clone();
        assert!(!a.update(Msg::Sampled(Box::new(sample("linux-6.18-loaded", 101)))));
        assert_eq!(a.latest, shown, "display frozen");
        assert_eq!(a.history.len(), 2, "sampling went on");
        assert_eq!(a.shown_history().len(), 1, "graphs frozen too");
        a.update(Msg::Key(Action::TogglePause));
        assert!(!a.paused);
        assert!(
            a.latest.rates.is_some(),
            "unpausing shows the newest sample"
        );
        assert_eq!(a.shown_history().len(), 2);
    }

    #[test]
    fn interval_steps_and_minimum() {
        let mut a = app();
        assert_eq!(a.interval, DEFAULT_INTERVAL);
        a.update(Msg::Key(Action::LongerInterval));
        assert_eq!(a.interval, Duration::from_secs(2));
        for _ in 0..10 {
            a.update(Msg::Key(Action::ShorterInterval));
        }
        assert_eq!(a.interval, MIN_INTERVAL);
        for _ in 0..20 {
            a.update(Msg::Key(Action::LongerInterval));
        }
        assert_eq!(a.interval, Duration::from_secs(60));
    }

    #[test]
    fn an_odd_interval_snaps_to_the_steps() {
        let mut a = App::new(test_settings(&["-i", "0.3"]), sample("linux-6.18-idle", 1));
        a.update(Msg::Key(Action::ShorterInterval));
        assert_eq!(a.interval, Duration::from_millis(200));
        a.update(Msg::Key(Action::LongerInterval));
        assert_eq!(a.interval, Duration::from_millis(500));
    }

    #[test]
    fn zoom_is_bounded_by_the_history_kept() {
        let mut a = app();
        assert_eq!(a.window, Duration::from_secs(600));
        a.update(Msg::Key(Action::ZoomOut));
        assert_eq!(
            a.window,
            Duration::from_secs(600),
            "cannot show more than is kept"
        );
        a.update(Msg::Key(Action::ZoomIn));
        assert_eq!(a.window, Duration::from_secs(300));
        for _ in 0..20 {
            a.update(Msg::Key(Action::ZoomIn));
        }
        assert_eq!(a.window, Duration::from_secs(15));
        a.update(Msg::Key(Action::ZoomOut));
        assert_eq!(a.window, Duration::from_secs(30));
    }

    #[test]
    fn views_focus_help_quit() {
        let mut a = app();
        a.update(Msg::Key(Action::NextView));
        assert_eq!(a.view, View::Graphs);
        a.update(Msg::Key(Action::PrevView));
        a.update(Msg::Key(Action::PrevView));
        assert_eq!(a.view, View::Devices);
        a.update(Msg::Key(Action::Show(View::Overview)));
        assert_eq!(a.view, View::Overview);
        a.update(Msg::Key(Action::FocusNext));
        assert_eq!(a.focus, Focus::Zram);
        a.update(Msg::Key(Action::ToggleHelp));
        assert!(a.help);
        a.update(Msg::Key(Action::Back));
        assert!(!a.help && a.running, "Esc closes the help first");
        a.update(Msg::Key(Action::Back));
        assert!(!a.running);
    }

    #[test]
    fn scrolling_is_clamped_to_the_table() {
        let mut a = app();
        // One swap device in the fixture.
        a.update(Msg::Key(Action::PageDown));
        assert_eq!(a.scroll(Focus::Swap), 0);
        a.update(Msg::Key(Action::FocusNext));
        a.update(Msg::Key(Action::Bottom));
        assert_eq!(a.scroll(Focus::Zram), a.latest.zram.len().saturating_sub(1));
        a.update(Msg::Key(Action::Top));
        assert_eq!(a.scroll(Focus::Zram), 0);
    }
}
