//! The dashboard's state machine (The Elm Architecture): [`App`] is the model, [`Msg`] the
//! messages, [`App::update`] the only place state changes. Drawing ([`crate::ui::draw`]) reads an
//! `&App` and changes nothing; the terminal loop ([`crate::tui::run`]) turns ticks and keys into messages.

pub mod keys;
pub mod lists;
pub mod replay;
mod settings;
pub mod view;

use std::time::Duration;

use crate::history::History;
use crate::model::Snapshot;
use crate::sources::sampler::{DEFAULT_INTERVAL, MIN_INTERVAL};
use crate::sources::{Extras, Sample};
pub use keys::Action;
use lists::SortFilter;
pub use settings::{Palette, Settings};

pub use view::{Acted, Kind, State, View, Views};

/// A pane that scrolls: a view's, by its place among the view's panes
/// ([`View::panes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pane {
    pub view: View,
    pub index: usize,
}

impl Pane {
    pub(crate) fn new(view: View, index: usize) -> Pane {
        Pane { view, index }
    }
}

/// A view's first pane (the only one, in the views with one).
impl From<View> for Pane {
    fn from(view: View) -> Pane {
        Pane::new(view, 0)
    }
}

/// How far a pane scrolls, and how far PgUp/PgDn move it, as the screen is laid out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Laid {
    /// The largest offset.
    pub max: usize,
    /// Rows (or items) a page: the rows shown less one, at least one.
    pub page: usize,
}

/// A pane's offset and limits.
#[derive(Debug, Clone, Copy)]
struct Scroll {
    offset: usize,
    laid: Laid,
}

/// What a view holds from one frame to the next: its own state (made by its [`Kind`]: lists,
/// sort, filter), the pane its scroll keys move, and where each of its panes is scrolled to.
/// The panes' scrolling is the frame's mechanics, the same for every view, kept here beside the
/// view's state rather than in each view's file.
#[derive(Debug, Clone)]
struct Slot {
    state: Box<dyn State>,
    focus: usize,
    panes: Vec<Scroll>,
}

#[derive(Debug, Clone)]
pub enum Msg {
    /// A new sample was read (boxed: a sample is large next to the other messages).
    Sampled(Box<Sample>),
    Key(Action),
    /// The terminal is now this many columns × rows.
    Resize(u16, u16),
    /// The process list is now read this often (less often than every tick), or every tick.
    ScanEvery(Option<Duration>),
    /// How far each pane of `view` scrolls, and how far PgUp/PgDn move it (a page less one), as
    /// the screen is now laid out (by [`Pane::index`]). The loop sends it after every change,
    /// before drawing ([`crate::ui::lay_out`]): the app never measures the layout itself.
    Laid {
        view: View,
        panes: Vec<Laid>,
    },
    /// A tick of this much real time passed (moves a replay that is playing).
    Tick(Duration),
    /// Replay: the recorded samples that bring the screen to the record at `position`, in
    /// order; `fresh`: start the history afresh with them (the first is only the rate base of
    /// the second, unless `from_start`: it is the recording's first, shown as live showed it).
    Replayed {
        position: usize,
        fresh: bool,
        from_start: bool,
        samples: Vec<Sample>,
    },
}

/// Rows PgUp/PgDn move before the first layout says how many a page is.
pub const PAGE: usize = 10;

/// Rows one notch of the mouse wheel moves.
pub const WHEEL: usize = 3;

/// How many processes the processes view keeps from each scan (sorted and filtered among
/// these), unless `--top N` says otherwise.
pub const TOP_PROCESSES: usize = 200;

/// Interval steps for `+`/`-`.
const INTERVAL_STEPS_MS: [u64; 9] = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

/// Graph window steps for `[`/`]` (capped at the history kept).
const WINDOW_STEPS_S: [u64; 14] = [
    15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 86_400,
];

/// What the dashboard holds from one tick to the next, collection by collection
/// ([`App::footprint`]): a long session must keep each bounded by what the machine has now,
/// whatever came and went before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Samples in the history, the frozen copy of a pause included, and how many its columns
    /// have room for.
    pub history_samples: usize,
    pub history_room: usize,
    /// Bytes the history's columns take (their capacity).
    pub history_bytes: usize,
    /// Processes, cgroups, swap areas, zram devices and block devices in the last sample and
    /// the snapshots held (shown, and the newest while paused).
    pub owners: usize,
    /// Rows of the list views' orders (their capacity).
    pub list_rows: usize,
}

#[derive(Debug, Clone)]
pub struct App {
    pub settings: Settings,
    /// The sampling interval now in force.
    pub interval: Duration,
    /// Every sample's graphed metrics, kept while paused too.
    pub history: History,
    /// The snapshot the screen shows: the newest one, or while paused the one the pause froze.
    pub shown: Snapshot,
    /// While paused: the history as it was when the pause began.
    frozen_history: Option<History>,
    /// While paused: the newest snapshot, shown when the pause ends.
    newest: Option<Box<Snapshot>>,
    /// The last sample, for the next sample's rates.
    prev: Sample,
    /// Samples taken so far.
    pub samples: u64,
    pub view: View,
    /// The terminal's size as last reported (for how far the panes scroll).
    pub size: (u16, u16),
    /// The views, as the front end hands them down ([`Settings::views`]).
    views: Views,
    /// Each view's own slot (by [`View::index`]): its state, its pane in focus and its panes'
    /// scroll.
    slots: Vec<Slot>,
    /// The filter prompt is open (in a list view).
    pub prompt: bool,
    /// How often the process list is read, when less often than every tick (its scan is costly).
    pub scan_every: Option<Duration>,
    /// The shown cgroup figures are the tree's first reading: their rates are pending.
    pub cgroup_rates_pending: bool,
    /// The same for the newest snapshot, while paused.
    newest_cgroup_rates_pending: bool,
    pub help: bool,
    pub paused: bool,
    /// How much time the graphs show.
    pub window: Duration,
    pub running: bool,
    /// Set by Ctrl-L: the loop clears the terminal before the next draw.
    pub clear_requested: bool,
    /// Replaying a recording: the time cursor (`None`: live).
    pub replay: Option<replay::Cursor>,
    /// The pipeline with the forecasts' window, fed every sample.
    stream: crate::pipeline::Stream,
}

impl App {
    /// A dashboard showing its first sample (rates pending until the second).
    pub fn new(settings: Settings, first: Sample) -> App {
        let interval = settings
            .interval
            .unwrap_or(DEFAULT_INTERVAL)
            .max(MIN_INTERVAL);
        let mut history = History::new(settings.history);
        history.reserve(samples_in(settings.history, interval));
        let mut stream = crate::pipeline::Stream::default().judged_by(settings.thresholds.clone());
        let shown = stream.snapshot(&first, None);
        history.push_snapshot(first.monotonic_ns, &shown);
        let window = settings.history;
        let (view, views) = (settings.view, settings.views);
        let slots = views
            .0
            .iter()
            .map(|k| Slot {
                state: k.state(&settings),
                focus: 0,
                panes: vec![
                    Scroll {
                        offset: 0,
                        laid: Laid { max: 0, page: PAGE }
                    };
                    k.panes().len()
                ],
            })
            .collect();
        App {
            settings,
            interval,
            history,
            shown,
            frozen_history: None,
            newest: None,
            prev: first,
            samples: 1,
            view,
            size: (80, 24),
            views,
            slots,
            prompt: false,
            scan_every: None,
            cgroup_rates_pending: true,
            newest_cgroup_rates_pending: true,
            help: false,
            paused: false,
            window,
            running: true,
            clear_requested: false,
            replay: None,
            stream,
        }
    }

    /// A dashboard over a recording: the cursor's target is fed before the first draw.
    pub fn replaying(settings: Settings, first: Sample, cursor: replay::Cursor) -> App {
        let mut app = App::new(settings, first);
        app.replay = Some(cursor);
        app
    }

    /// Whether the loop should feed the replay now.
    pub fn wants_replay(&self) -> bool {
        self.replay
            .as_ref()
            .is_some_and(replay::Cursor::wants_samples)
    }

    /// Replay: start over from `samples` (history, rates and the shown snapshot).
    fn rewind(&mut self, from_start: bool, mut samples: Vec<Sample>) {
        if samples.is_empty() {
            return;
        }
        let base = samples.remove(0);
        self.history = History::new(self.settings.history);
        self.newest = None;
        self.frozen_history = None;
        self.paused = false;
        // The points of the time left behind are not the recording's before the new cursor.
        self.stream.clear();
        if from_start {
            // The recording's first sample: no rates, as live.
            self.shown = self.stream.snapshot(&base, None);
            self.history.push_snapshot(base.monotonic_ns, &self.shown);
            self.refresh_lists();
        }
        self.prev = base;
        for s in samples {
            self.on_sample(s);
        }
    }

    /// What the app holds from one tick to the next ([`Footprint`]).
    pub fn footprint(&self) -> Footprint {
        let (mut history_samples, mut history_room, mut history_bytes) = self.history.footprint();
        if let Some(h) = &self.frozen_history {
            let (n, room, bytes) = h.footprint();
            history_samples += n;
            history_room += room;
            history_bytes += bytes;
        }
        let p = &self.prev;
        let sample = p.processes.as_ref().map_or(0, |s| s.top.len())
            + p.cgroups
                .as_ref()
                .and_then(|c| c.as_ref().ok())
                .map_or(0, Vec::len)
            + p.swaps.as_ref().map_or(0, Vec::len)
            + p.swap_devices.len()
            + p.zram.len()
            + p.block_stats.len();
        let snapshot = |s: &Snapshot| {
            s.processes.as_ref().map_or(0, |p| p.top.len())
                + s.cgroups.as_ref().map_or(0, |c| c.list.len())
                + s.swap.devices.len()
                + s.zram.len()
        };
        Footprint {
            history_samples,
            history_room,
            history_bytes,
            owners: sample + snapshot(&self.shown) + self.newest.as_deref().map_or(0, snapshot),
            list_rows: self.slots.iter().map(|s| s.state.rows()).sum(),
        }
    }

    /// The history the graphs draw (frozen while paused).
    pub(crate) fn shown_history(&self) -> &History {
        self.frozen_history.as_ref().unwrap_or(&self.history)
    }

    /// The scroll offset of a pane (a view names its first).
    pub fn scroll(&self, p: impl Into<Pane>) -> usize {
        self.pane_state(p.into()).map_or(0, |s| s.offset)
    }

    /// How far `p` scrolls and how far PgUp/PgDn move it, as last laid out ([`Msg::Laid`]).
    pub(crate) fn laid(&self, p: Pane) -> Laid {
        self.pane_state(p).map(|s| s.laid).unwrap_or_default()
    }

    fn pane_state(&self, p: Pane) -> Option<&Scroll> {
        self.slots.get(p.view.index())?.panes.get(p.index)
    }

    /// The sample the next one is read after (for the sampler, and for rates).
    pub fn last_sample(&self) -> &Sample {
        &self.prev
    }

    /// The scans the visible view needs (the processes while the processes view is shown, the
    /// cgroup tree while the cgroups view is). Nothing else scans.
    pub fn extras(&self) -> Extras {
        self.kind().scans(self)
    }

    /// What the app asks of the view shown.
    pub(crate) fn kind(&self) -> &'static dyn Kind {
        self.views.of(self.view)
    }

    /// The state of the view whose state is a `T` (what its drawing reads).
    pub fn state<T: State>(&self) -> Option<&T> {
        self.slots
            .iter()
            .find_map(|s| (&*s.state as &dyn std::any::Any).downcast_ref())
    }

    /// How old the cgroup list is at the last tick, when it is carried from an earlier one.
    pub(crate) fn cgroup_list_age(&self) -> Option<Duration> {
        self.prev.cgroups.as_ref()?;
        let age = Duration::from_nanos(self.prev.cgroups_age_ns);
        (age > Duration::ZERO).then_some(age)
    }

    /// Which key map applies now.
    pub(crate) fn key_mode(&self) -> keys::Mode {
        let goto = self.replay.as_ref().is_some_and(|c| c.goto.is_some());
        if (self.prompt || goto) && !self.help {
            keys::Mode::Prompt
        } else if self.replay.is_some() {
            keys::Mode::Replay
        } else {
            keys::Mode::Normal
        }
    }

    /// The pane the scroll keys move in the current view.
    pub(crate) fn pane(&self) -> Option<Pane> {
        let n = self.kind().panes().len();
        let focus = self.slots.get(self.view.index()).map_or(0, |s| s.focus);
        (n > 0).then(|| Pane::new(self.view, focus.min(n - 1)))
    }

    /// Every view derives what it shows again after the snapshot changed.
    fn refresh_lists(&mut self) {
        for s in &mut self.slots {
            s.state.refresh(&self.shown);
        }
    }

    /// Apply one message. Returns whether what is on screen changed.
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Sampled(s) => self.on_sample(*s),
            Msg::Key(a) => {
                if !self.on_replay_action(a) && !self.on_view_action(a) {
                    self.on_action(a);
                }
                true
            }
            Msg::Tick(real) => {
                if let Some(c) = self.replay.as_mut() {
                    c.tick(real);
                }
                false
            }
            Msg::Replayed {
                position,
                fresh,
                from_start,
                samples,
            } => {
                if fresh {
                    self.rewind(from_start, samples);
                } else {
                    for s in samples {
                        self.on_sample(s);
                    }
                }
                if let Some(c) = self.replay.as_mut() {
                    c.shown = Some(position);
                }
                true
            }
            Msg::Resize(w, h) => {
                self.size = (w, h);
                true
            }
            Msg::Laid { view, panes } => {
                let Some(slot) = self.slots.get_mut(view.index()) else {
                    return false;
                };
                let mut moved = false;
                for (s, laid) in slot.panes.iter_mut().zip(panes) {
                    s.laid = Laid {
                        page: laid.page.max(1),
                        ..laid
                    };
                    moved |= s.offset > laid.max;
                    s.offset = s.offset.min(laid.max);
                }
                moved
            }
            Msg::ScanEvery(every) => {
                let changed = every != self.scan_every;
                self.scan_every = every;
                // Shown by the view that scans the processes.
                changed && self.extras().top_processes.is_some()
            }
        }
    }

    fn on_sample(&mut self, mut s: Sample) -> bool {
        // The same cgroup list as the last tick (a large tree is not read every tick): its rows
        // are the last snapshot's, whose rates are over the two readings before, and are not
        // derived or sorted again.
        let carried =
            s.cgroups_read_ns().is_some() && s.cgroups_read_ns() == self.prev.cgroups_read_ns();
        let list = if carried { s.cgroups.take() } else { None };
        let mut snap = self.stream.snapshot(&s, Some(&self.prev));
        self.history.push_snapshot(s.monotonic_ns, &snap);
        let mut pending = !matches!(self.prev.cgroups, Some(Ok(_)));
        if carried {
            s.cgroups = list;
            (snap.cgroups, pending) = match self.newest.as_mut() {
                Some(n) => (n.cgroups.take(), self.newest_cgroup_rates_pending),
                // The shown snapshot is replaced below unless paused.
                None if !self.paused => (self.shown.cgroups.take(), self.cgroup_rates_pending),
                None => (self.shown.cgroups.clone(), self.cgroup_rates_pending),
            };
        }
        self.prev = s;
        self.samples += 1;
        if self.paused {
            self.newest = Some(Box::new(snap));
            self.newest_cgroup_rates_pending = pending;
            false
        } else {
            self.shown = snap;
            self.cgroup_rates_pending = pending;
            if !carried {
                self.refresh_lists();
            }
            true
        }
    }

    /// Rows a PgUp/PgDn moves the focused pane.
    fn page_rows(&self) -> usize {
        self.pane().map_or(PAGE, |p| self.laid(p).page)
    }

    /// The keys that mean something else in a replay: the time cursor and its go-to prompt.
    /// Returns whether `a` was taken.
    fn on_replay_action(&mut self, a: Action) -> bool {
        let Some(c) = self.replay.as_mut() else {
            return false;
        };
        if let Some(text) = c.goto.as_mut() {
            match a {
                Action::FilterInput(ch) => text.push(ch),
                Action::FilterBackspace => {
                    text.pop();
                }
                Action::FilterClear => text.clear(),
                Action::FilterDone => {
                    let text = std::mem::take(text);
                    c.goto = None;
                    c.goto_text(&text);
                }
                Action::FilterCancel => c.goto = None,
                _ => return false,
            }
            return true;
        }
        match a {
            Action::TogglePause => c.toggle_play(),
            Action::LongerInterval => c.faster(),
            Action::ShorterInterval => c.slower(),
            Action::ReplayStep(by) => c.step(by),
            Action::ReplayJump(secs) => c.jump(secs),
            Action::ReplayGoto => {
                c.goto = Some(String::new());
                c.message = None;
            }
            _ => return false,
        }
        true
    }

    fn scroll_to(&mut self, f: impl FnOnce(usize, usize) -> usize) {
        let Some(p) = self.pane() else {
            return;
        };
        if let Some(s) = self
            .slots
            .get_mut(p.view.index())
            .and_then(|v| v.panes.get_mut(p.index))
        {
            s.offset = f(s.offset, s.laid.max).min(s.laid.max);
        }
    }

    fn show(&mut self, v: View) {
        if v != self.view {
            self.prompt = false;
        }
        self.view = v;
    }

    /// Move the focus to the next pane of the view shown (or the one before).
    fn focus_next(&mut self, forward: bool) {
        let n = self.kind().panes().len();
        if let Some(f) = self.slots.get_mut(self.view.index()).map(|s| &mut s.focus)
            && n > 1
        {
            *f = if forward {
                (*f + 1) % n
            } else {
                (*f + n - 1) % n
            };
        }
    }

    /// An action of the view shown's own keys, applied by its state. Returns whether it was.
    fn on_view_action(&mut self, a: Action) -> bool {
        let Some(s) = self.slots.get_mut(self.view.index()) else {
            return false;
        };
        match s.state.act(a) {
            Acted::Not => return false,
            Acted::ListChanged => self.list_changed(),
            Acted::Prompt => self.prompt = s.state.list().is_some(),
        }
        true
    }

    /// A sort or a filter changed: back to the top of the list.
    fn list_changed(&mut self) {
        self.scroll_to(|_, _| 0);
        if let Some(s) = self.slots.get_mut(self.view.index()) {
            s.state.refresh(&self.shown);
        }
    }

    /// The sort and filter of the list view shown, if it is one.
    fn list(&self) -> Option<&dyn SortFilter> {
        self.slots.get(self.view.index())?.state.list()
    }

    /// Change the list view's sort or filter (nothing on another view).
    fn edit_list(&mut self, f: impl FnOnce(&mut dyn SortFilter)) {
        if let Some(l) = self
            .slots
            .get_mut(self.view.index())
            .and_then(|s| s.state.list_mut())
        {
            f(l);
            self.list_changed();
        }
    }

    fn edit_filter(&mut self, f: impl FnOnce(&mut String)) {
        self.edit_list(|l| f(l.filter_mut()));
    }

    /// The filter of the list view shown, if it has one.
    pub fn filter(&self) -> Option<&str> {
        self.list().map(SortFilter::filter)
    }

    fn on_action(&mut self, a: Action) {
        match a {
            Action::Quit => self.running = false,
            Action::Back => {
                if self.help {
                    self.help = false;
                } else if self.filter().is_some_and(|f| !f.is_empty()) {
                    self.edit_filter(String::clear);
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
                // Room for the new rate at once, rather than an eighth at a time.
                self.history
                    .reserve(samples_in(self.settings.history, self.interval));
            }
            Action::NextView => self.show(self.view.next(true)),
            Action::PrevView => self.show(self.view.next(false)),
            Action::Show(v) => self.show(v),
            Action::FocusNext => self.focus_next(true),
            Action::FocusPrev => self.focus_next(false),
            Action::ScrollUp => self.scroll_to(|s, _| s.saturating_sub(1)),
            Action::ScrollDown => self.scroll_to(|s, _| s + 1),
            Action::WheelUp => self.scroll_to(|s, _| s.saturating_sub(WHEEL)),
            Action::WheelDown => self.scroll_to(|s, _| s + WHEEL),
            Action::PageUp => {
                let page = self.page_rows();
                self.scroll_to(|s, _| s.saturating_sub(page));
            }
            Action::PageDown => {
                let page = self.page_rows();
                self.scroll_to(|s, _| s.saturating_add(page));
            }
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
            // A view's own keys, taken by the view shown ([`State::act`]); nothing on another.
            Action::SortNext | Action::SortPrev | Action::SortReverse | Action::FilterOpen => {}
            Action::FilterInput(c) => self.edit_filter(|f| f.push(c)),
            Action::FilterBackspace => self.edit_filter(|f| {
                f.pop();
            }),
            Action::FilterClear => self.edit_filter(String::clear),
            Action::FilterDone => self.prompt = false,
            Action::FilterCancel => {
                self.prompt = false;
                self.edit_filter(String::clear);
            }
            // Taken by the replay, and nothing live.
            Action::ReplayStep(_) | Action::ReplayJump(_) | Action::ReplayGoto => {}
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
                self.shown = *n;
                self.cgroup_rates_pending = self.newest_cgroup_rates_pending;
                self.refresh_lists();
            }
        }
    }
}

/// How many samples `span` of history holds at one every `interval` (and a few to spare).
fn samples_in(span: Duration, interval: Duration) -> usize {
    (span.as_secs_f64() / interval.as_secs_f64()) as usize + 4
}

/// Dashboard settings as the command line `zswaptop ARGS` gives them (for tests).
#[cfg(test)]
pub(crate) fn test_settings(args: &[&str]) -> Settings {
    let mut v = vec!["zswaptop"];
    v.extend_from_slice(args);
    crate::cli::dashboard_settings(&v, true).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;

    fn settings() -> Settings {
        test_settings(&[])
    }

    fn procs(a: &App) -> &lists::ListState<lists::ProcSort> {
        &a.state::<lists::Rows<lists::ProcSort>>().unwrap().list
    }

    fn cgroups(a: &App) -> &lists::ListState<lists::CgroupSort> {
        &a.state::<lists::Rows<lists::CgroupSort>>().unwrap().list
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
        assert!(a.shown.rates.is_none());
        assert!(a.update(Msg::Sampled(Box::new(sample("linux-6.18-loaded", 101)))));
        let r = a.shown.rates.as_ref().map(|r| r.interval_seconds);
        assert_eq!(r, Some(1.0));
        assert_eq!(a.history.len(), 2);
        assert_eq!(a.samples, 2);
    }

    #[test]
    fn pause_freezes_the_display_while_sampling_goes_on() {
        let mut a = app();
        a.update(Msg::Key(Action::TogglePause));
        assert!(a.paused);
        let shown = a.shown.clone();
        assert!(!a.update(Msg::Sampled(Box::new(sample("linux-6.18-loaded", 101)))));
        assert_eq!(a.shown, shown, "display frozen");
        assert_eq!(a.history.len(), 2, "sampling went on");
        assert_eq!(a.shown_history().len(), 1, "graphs frozen too");
        a.update(Msg::Key(Action::TogglePause));
        assert!(!a.paused);
        assert!(a.shown.rates.is_some(), "unpausing shows the newest sample");
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
        assert_eq!(a.view, View::Cgroups, "Shift-Tab wraps around");
        for _ in 0..3 {
            a.update(Msg::Key(Action::PrevView));
        }
        assert_eq!(a.view, View::Devices);
        a.update(Msg::Key(Action::Show(View::Overview)));
        assert_eq!(a.view, View::Overview);
        a.update(Msg::Key(Action::FocusNext));
        assert_eq!(a.pane(), None, "the overview does not scroll");
        a.update(Msg::Key(Action::Show(View::Devices)));
        assert_eq!(a.pane(), Some(Pane::new(View::Devices, 0)));
        a.update(Msg::Key(Action::FocusNext));
        assert_eq!(a.pane(), Some(Pane::new(View::Devices, 1)));
        a.update(Msg::Key(Action::FocusPrev));
        a.update(Msg::Key(Action::FocusPrev));
        assert_eq!(a.pane(), Some(Pane::new(View::Devices, 1)), "two panes");
        a.update(Msg::Key(Action::Show(View::Processes)));
        a.update(Msg::Key(Action::FocusNext));
        assert_eq!(a.pane(), Some(View::Processes.into()), "one pane");
        a.update(Msg::Key(Action::ToggleHelp));
        assert!(a.help);
        a.update(Msg::Key(Action::Back));
        assert!(!a.help && a.running, "Esc closes the help");
        a.update(Msg::Key(Action::Back));
        assert!(a.running, "Esc never quits from the main screen");
        a.update(Msg::Key(Action::Quit));
        assert!(!a.running);
    }

    #[test]
    fn the_scans_follow_the_view() {
        let mut a = app();
        for v in View::ALL {
            a.update(Msg::Key(Action::Show(v)));
            let e = a.extras();
            assert_eq!(e.top_processes.is_some(), v == View::Processes, "{v:?}");
            assert_eq!(e.cgroups, v == View::Cgroups, "{v:?}");
        }
        a.update(Msg::Key(Action::Show(View::Processes)));
        assert_eq!(a.extras().top_processes, Some(TOP_PROCESSES));
        let mut b = App::new(
            test_settings(&["--top", "50"]),
            sample("linux-6.18-idle", 1),
        );
        b.update(Msg::Key(Action::Show(View::Processes)));
        assert_eq!(b.extras().top_processes, Some(50), "--top N sets how many");
    }

    #[test]
    fn sort_keys_cycle_and_reverse_in_the_list_views_only() {
        let mut a = app();
        a.update(Msg::Key(Action::SortNext));
        assert_eq!(
            procs(&a).sort,
            lists::ProcSort::Swap,
            "no effect on the overview"
        );
        a.update(Msg::Key(Action::Show(View::Processes)));
        a.update(Msg::Key(Action::SortNext));
        assert_eq!(procs(&a).sort, lists::ProcSort::Footprint);
        a.update(Msg::Key(Action::SortReverse));
        assert!(procs(&a).reverse);
        a.update(Msg::Key(Action::SortPrev));
        assert_eq!(procs(&a).sort, lists::ProcSort::Swap);
        assert!(
            !procs(&a).reverse,
            "a new column starts in its own direction"
        );
        a.update(Msg::Key(Action::Show(View::Cgroups)));
        a.update(Msg::Key(Action::SortPrev));
        assert_eq!(cgroups(&a).sort, lists::CgroupSort::Tree);
        assert_eq!(
            procs(&a).sort,
            lists::ProcSort::Swap,
            "each view keeps its own"
        );
    }

    /// smaps_rollup (a page-table walk per process) is read only while the processes view is
    /// sorted by what it gives: shm swap.
    #[test]
    fn smaps_rollup_is_asked_for_only_while_sorted_by_shm_swap() {
        let mut a = app();
        a.update(Msg::Key(Action::Show(View::Processes)));
        let mut seen = Vec::new();
        for _ in 0..lists::ProcSort::ALL.len() {
            let e = a.extras();
            assert!(e.top_processes.is_some());
            assert_eq!(e.smaps, procs(&a).sort == lists::ProcSort::ShmSwap);
            seen.push(procs(&a).sort);
            a.update(Msg::Key(Action::SortNext));
        }
        assert!(seen.contains(&lists::ProcSort::ShmSwap));
        a.update(Msg::Key(Action::Show(View::Overview)));
        assert!(!a.extras().smaps, "no scan at all off the view");
    }

    /// The processes view ranks by faults/s while anything faults and by swap otherwise, until
    /// a sort key is pressed: then the chosen sort stays.
    #[test]
    fn the_default_sort_follows_who_is_faulting_until_one_is_chosen() {
        use crate::model::owners::{ProcessRank, Processes};
        let list = |rank| Processes {
            scanned: 1,
            with_swap: 0,
            total_swap_bytes: 0,
            top: Vec::new(),
            sorted_by: rank,
            faulting: None,
            faults_interval_seconds: None,
            unreadable: None,
        };
        let mut a = app();
        a.shown.processes = Some(list(ProcessRank::MajorFaultsPerSec));
        a.refresh_lists();
        assert_eq!(procs(&a).sort, lists::ProcSort::Faults);
        a.shown.processes = Some(list(ProcessRank::SwapBytes));
        a.refresh_lists();
        assert_eq!(procs(&a).sort, lists::ProcSort::Swap);
        a.update(Msg::Key(Action::Show(View::Processes)));
        a.update(Msg::Key(Action::SortNext));
        assert_eq!(procs(&a).sort, lists::ProcSort::Footprint);
        a.shown.processes = Some(list(ProcessRank::MajorFaultsPerSec));
        a.refresh_lists();
        assert_eq!(
            procs(&a).sort,
            lists::ProcSort::Footprint,
            "the chosen sort stays"
        );
    }

    #[test]
    fn the_filter_prompt() {
        let mut a = app();
        a.update(Msg::Key(Action::FilterOpen));
        assert!(!a.prompt, "no filter on the overview");
        a.update(Msg::Key(Action::Show(View::Processes)));
        a.update(Msg::Key(Action::FilterOpen));
        assert!(a.prompt);
        assert_eq!(a.key_mode(), keys::Mode::Prompt);
        for c in "hog".chars() {
            a.update(Msg::Key(Action::FilterInput(c)));
        }
        a.update(Msg::Key(Action::FilterBackspace));
        assert_eq!(procs(&a).filter, "ho");
        a.update(Msg::Key(Action::FilterDone));
        assert!(
            !a.prompt && procs(&a).filter == "ho",
            "Enter keeps the filter"
        );
        assert_eq!(a.key_mode(), keys::Mode::Normal);
        // Esc clears a filter.
        a.update(Msg::Key(Action::Back));
        assert!(a.running && procs(&a).filter.is_empty());
        // Esc in the prompt clears and closes it; switching views closes it too.
        a.update(Msg::Key(Action::FilterOpen));
        a.update(Msg::Key(Action::FilterInput('x')));
        a.update(Msg::Key(Action::FilterCancel));
        assert!(!a.prompt && procs(&a).filter.is_empty());
        a.update(Msg::Key(Action::FilterOpen));
        a.update(Msg::Key(Action::FilterInput('x')));
        a.update(Msg::Key(Action::NextView));
        assert!(!a.prompt, "another view closes the prompt");
        assert_eq!(procs(&a).filter, "x", "and the filter stays with its view");
        a.update(Msg::Key(Action::Back));
        assert!(a.running, "no filter on the cgroups view: Esc does nothing");
    }

    /// A tick that carries the last cgroup list (the tree was not read again) keeps the rows
    /// and their rates, and the list's age is known.
    #[test]
    fn a_carried_cgroup_list_keeps_its_rates_and_age() {
        let cg = Extras {
            smaps: false,
            top_processes: None,
            cgroups: true,
            settings: false,
        };
        let read = |name: &str, t_s: u64| -> Sample {
            let root = Root::at(format!("tests/fixtures/{name}"));
            let mut s = crate::sources::collect_with(&root, cg);
            s.monotonic_ns = t_s * 1_000_000_000;
            s
        };
        let first = read("depth-cgroup-v2", 100);
        let mut second = first.clone();
        second.monotonic_ns += 1_000_000_000;
        if let Some(Ok(list)) = second.cgroups.as_mut() {
            for c in list {
                c.zswpout = c.zswpout.map(|n| n + 10);
            }
        }
        let mut a = App::new(settings(), first);
        a.update(Msg::Sampled(Box::new(second)));
        let with_rates = a.shown.cgroups.clone();
        let rated = |c: &Option<crate::model::owners::Cgroups>| {
            c.as_ref()
                .is_some_and(|c| c.list.iter().any(|r| r.zswpout_bytes_per_sec.is_some()))
        };
        assert!(rated(&with_rates));
        assert_eq!(a.cgroup_list_age(), None, "read this tick");
        // The next tick, a second later, carries that list.
        let mut carried = a.last_sample().clone();
        carried.monotonic_ns += 1_000_000_000;
        carried.cgroups_age_ns = 1_000_000_000;
        a.update(Msg::Sampled(Box::new(carried)));
        assert_eq!(a.shown.cgroups, with_rates, "rows and rates kept");
        assert!(!a.cgroup_rates_pending);
        assert_eq!(a.cgroup_list_age(), Some(Duration::from_secs(1)));
    }

    use crate::ui::views::devices::{SWAP, ZRAM};

    #[test]
    fn scrolling_is_clamped_to_the_table() {
        let mut a = app();
        a.update(Msg::Key(Action::Show(View::Devices)));
        // As the loop does: the layout's limits before the keys. One swap device in the fixture.
        a.update(crate::ui::lay_out(&a));
        a.update(Msg::Key(Action::PageDown));
        assert_eq!(a.scroll(SWAP), 0);
        a.update(Msg::Key(Action::FocusNext));
        a.update(Msg::Key(Action::Bottom));
        assert_eq!(a.scroll(ZRAM), a.shown.zram.len().saturating_sub(1));
        a.update(Msg::Key(Action::Top));
        assert_eq!(a.scroll(ZRAM), 0);
    }

    /// A layout with less to scroll pulls the offsets back at once.
    #[test]
    fn a_new_layout_clamps_the_offsets() {
        let mut a = app();
        let laid = |max: [usize; 2]| Msg::Laid {
            view: View::Devices,
            panes: max.map(|max| Laid { max, page: 1 }).to_vec(),
        };
        a.update(Msg::Key(Action::Show(View::Devices)));
        a.update(laid([0, 5]));
        a.update(Msg::Key(Action::FocusNext));
        a.update(Msg::Key(Action::Bottom));
        assert_eq!(a.scroll(ZRAM), 5);
        assert!(a.update(laid([0, 2])), "the screen changes");
        assert_eq!(a.scroll(ZRAM), 2);
        assert!(!a.update(laid([0, 2])));
        assert_eq!(a.laid(ZRAM), Laid { max: 2, page: 1 });
    }
}
