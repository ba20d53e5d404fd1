//! The fleet dashboard (`zswaptop fleet` without `--once`): the fleet table, worst first,
//! refreshed at the scrape interval; Enter opens a host (its last hour from `query_range`, its
//! findings); keys are handled here, in [`FleetView::key`].
//!
//! Only the rows that fit are drawn: the table costs what the screen shows, not what the fleet
//! holds (10,000 hosts are 10,000 rows kept, 40 drawn). The queries run on a thread of their
//! own, so a slow Prometheus never stalls a key; the screen says when it is waiting and how old
//! what it shows is.

use std::io;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Sparkline, Widget};
use rustix::event::PollFlags;

use crate::display::fit;
use crate::fleet::client::Client;
use crate::fleet::model::{Fleet, Host};
use crate::fleet::query::{self, Selector};
use crate::fleet::{Options, text};
use crate::sanitize::visible;
use crate::tui::run::Exit;
use crate::tui::signals::{Guard, Signals};
use crate::tui::terminal::{Session, TtyIn};
use crate::tui::tty;

/// The refresh interval's bounds, whatever the scrape interval says.
const MIN_REFRESH: Duration = Duration::from_secs(1);
/// At most this long between reads: the scrape interval is estimated from the last five
/// minutes of `up`, which overstate it while the engine holds less than that.
const MAX_REFRESH: Duration = Duration::from_secs(30);
/// A host's history: the last hour, one point per step.
const HISTORY_SECONDS: f64 = 3600.0;
const HISTORY_STEP: f64 = 15.0;

/// What the query thread is asked.
enum Ask {
    Look,
    History(String),
}

/// What it answers.
enum Answer {
    Look(Result<Fleet, String>),
    History(String, Result<History, String>),
}

/// One host's last hour.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// (title, points) per figure, oldest first; an empty series says why in `missing`.
    pub series: Vec<(&'static str, Vec<f64>)>,
    pub missing: Vec<String>,
    /// The findings that hold now: (severity, id).
    pub findings: Vec<(String, String)>,
}

/// What a key does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    None,
    Quit,
    /// Ask for the fleet again now.
    Refresh,
    /// Ask for this host's history (its raw instance label).
    Open(String),
}

/// The view's state.
#[derive(Debug, Default)]
pub struct FleetView {
    pub fleet: Option<Fleet>,
    /// Why the last look failed (the table shown is the one before, if any).
    pub error: Option<String>,
    /// When the fleet shown was read.
    pub read_at: Option<Instant>,
    pub selected: usize,
    /// The first row shown.
    pub offset: usize,
    /// The host opened with Enter (its raw label), and its history once read.
    pub open: Option<(String, Option<Result<History, String>>)>,
    /// The rows the table showed last (for paging).
    pub page: usize,
    pub waiting: bool,
}

impl FleetView {
    /// A key: move, open, close, refresh, quit.
    pub fn key(&mut self, k: KeyEvent) -> Action {
        if k.kind == KeyEventKind::Release {
            return Action::None;
        }
        let n = self.fleet.as_ref().map_or(0, |f| f.hosts.len());
        if self.open.is_some() {
            return match k.code {
                KeyCode::Esc | KeyCode::Backspace | KeyCode::Left | KeyCode::Enter => {
                    self.open = None;
                    Action::None
                }
                KeyCode::Char('q') => Action::Quit,
                _ => Action::None,
            };
        }
        let page = self.page.max(1);
        match k.code {
            KeyCode::Char('q') | KeyCode::Esc => return Action::Quit,
            KeyCode::Char('r') => return Action::Refresh,
            KeyCode::Down | KeyCode::Char('j') => self.selected += 1,
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.selected += page,
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(page),
            KeyCode::Home | KeyCode::Char('g') => self.selected = 0,
            KeyCode::End | KeyCode::Char('G') => self.selected = n.saturating_sub(1),
            KeyCode::Enter | KeyCode::Right => {
                if let Some(h) = self.fleet.as_ref().and_then(|f| f.hosts.get(self.selected)) {
                    self.open = Some((h.raw_instance.clone(), None));
                    return Action::Open(h.raw_instance.clone());
                }
            }
            _ => {}
        }
        self.selected = self.selected.min(n.saturating_sub(1));
        Action::None
    }

    /// Keep the selected row in the window of `rows` rows.
    fn scroll(&mut self, rows: usize) {
        self.page = rows;
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if rows > 0 && self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
    }

    /// Draw the view into `buf`.
    pub fn render(&mut self, buf: &mut Buffer, area: Rect) {
        let width = usize::from(area.width);
        let mut y = area.y;
        let line = |buf: &mut Buffer, y: &mut u16, s: &str, style: Style| {
            if *y < area.bottom() {
                buf.set_stringn(area.x, *y, fit(s, width, false), width, style);
                *y += 1;
            }
        };
        let age = self.read_at.map(|t| t.elapsed().as_secs_f64());
        let status = match (&self.fleet, age) {
            (Some(f), Some(a)) => format!(
                "{}  read {} ago{}",
                text::summary(f),
                text::short_duration(a),
                if self.waiting { ", reading…" } else { "" }
            ),
            _ if self.waiting => "reading the fleet…".to_string(),
            _ => String::new(),
        };
        let title = match &self.fleet {
            Some(f) => format!("zswaptop fleet  {}  {}", f.source, f.selector),
            None => "zswaptop fleet".into(),
        };
        line(
            buf,
            &mut y,
            &title,
            Style::default().add_modifier(Modifier::BOLD),
        );
        line(buf, &mut y, &status, Style::default());
        if let Some(e) = &self.error {
            line(
                buf,
                &mut y,
                &format!("the last read failed: {e}"),
                Style::default().add_modifier(Modifier::REVERSED),
            );
        }
        if let Some((raw, history)) = &self.open {
            let host = self
                .fleet
                .as_ref()
                .and_then(|f| f.hosts.iter().find(|h| &h.raw_instance == raw));
            render_host(
                buf,
                Rect::new(area.x, y, area.width, area.bottom() - y),
                host,
                history.as_ref(),
            );
            return;
        }
        line(
            buf,
            &mut y,
            &text::header_in(width),
            Style::default().add_modifier(Modifier::BOLD),
        );
        let rows = usize::from(area.bottom().saturating_sub(y + 1));
        self.scroll(rows);
        let Some(f) = &self.fleet else { return };
        // Only the rows that fit are formatted.
        for (i, h) in f.hosts.iter().enumerate().skip(self.offset).take(rows) {
            let row = text::row_in(&h.instance, &text::cells_at(h, age.unwrap_or(0.0)), width);
            let style = if i == self.selected {
                Style::default().add_modifier(Modifier::REVERSED)
            } else if h.stale {
                Style::default().add_modifier(Modifier::DIM)
            } else {
                Style::default()
            };
            line(buf, &mut y, &row, style);
        }
        let foot = format!(
            "{}-{} of {}  ↑↓ PgUp PgDn move  Enter open  r read now  q quit",
            (self.offset + 1).min(f.hosts.len()),
            (self.offset + rows).min(f.hosts.len()),
            f.hosts.len()
        );
        let mut fy = area.bottom().saturating_sub(1);
        line(
            buf,
            &mut fy,
            &foot,
            Style::default().add_modifier(Modifier::DIM),
        );
    }
}

/// A host opened: its figures now, its last hour as sparklines, its findings.
fn render_host(
    buf: &mut Buffer,
    area: Rect,
    host: Option<&Host>,
    history: Option<&Result<History, String>>,
) {
    let width = usize::from(area.width);
    let mut y = area.y;
    let put = |buf: &mut Buffer, y: &mut u16, s: &str, style: Style| {
        if *y < area.bottom() {
            buf.set_stringn(area.x, *y, fit(s, width, false), width, style);
            *y += 1;
        }
    };
    let Some(h) = host else {
        put(
            buf,
            &mut y,
            "the host is no longer in the fleet",
            Style::default(),
        );
        return;
    };
    let bold = Style::default().add_modifier(Modifier::BOLD);
    put(buf, &mut y, &format!("{}   Esc back", h.instance), bold);
    put(buf, &mut y, &text::header_in(width), bold);
    put(
        buf,
        &mut y,
        &text::row_in(&h.instance, &text::cells(h), width),
        Style::default(),
    );
    for (k, why) in &h.unknown {
        put(buf, &mut y, &format!("  {k}: {why}"), Style::default());
    }
    y += 1;
    match history {
        None => put(buf, &mut y, "reading the last hour…", Style::default()),
        Some(Err(e)) => put(
            buf,
            &mut y,
            &format!("the last hour: {e}"),
            Style::default(),
        ),
        Some(Ok(hist)) => {
            put(
                buf,
                &mut y,
                "the last hour (query_range, 15 s steps):",
                bold,
            );
            for (title, points) in &hist.series {
                if y + 2 >= area.bottom() {
                    break;
                }
                let (lo, hi) = points
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                        (a.min(*v), b.max(*v))
                    });
                put(
                    buf,
                    &mut y,
                    &format!(
                        "{title}: now {}  min {}  max {}",
                        points.last().map_or("?".into(), |v| short(*v)),
                        short(lo),
                        short(hi)
                    ),
                    Style::default(),
                );
                // Scaled to 0-1000 over the hour's range (a flat line sits at its middle).
                let span = hi - lo;
                let data: Vec<u64> = points
                    .iter()
                    .map(|v| {
                        if span > 0.0 {
                            ((v - lo) / span * 1000.0) as u64
                        } else {
                            500
                        }
                    })
                    .collect();
                let n = data.len().min(width);
                Sparkline::default()
                    .data(&data[data.len() - n..])
                    .max(1000)
                    .render(
                        Rect::new(area.x, y, area.width, 2.min(area.bottom() - y)),
                        buf,
                    );
                y += 2;
            }
            for m in &hist.missing {
                put(buf, &mut y, &format!("  {m}"), Style::default());
            }
            y += 1;
            put(
                buf,
                &mut y,
                "findings now (their evidence: zswaptop --once --full on the host):",
                bold,
            );
            if hist.findings.is_empty() {
                put(buf, &mut y, "  none", Style::default());
            }
            for (sev, id) in &hist.findings {
                put(
                    buf,
                    &mut y,
                    &format!("  {} {id}", sev.to_uppercase()),
                    Style::default(),
                );
            }
        }
    }
}

/// A value in a few characters (bytes in K/M/G when large).
fn short(v: f64) -> String {
    if !v.is_finite() {
        "?".into()
    } else if v.abs() >= 1024.0 {
        crate::display::bytes_short(v.abs().round() as u64)
    } else {
        format!("{v:.2}")
    }
}

/// `value` as a PromQL double-quoted string.
fn promql_string(value: &str) -> String {
    let mut s = String::from("\"");
    for c in value.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// The last hour of the host `raw` (its instance label as the engine holds it).
fn history(client: &Client, sel: &Selector, raw: &str) -> Result<History, String> {
    let inst = format!("instance={}", promql_string(raw));
    let end = crate::fleet::server_time(client).map_err(|e| e.to_string())?;
    let start = end - HISTORY_SECONDS;
    let figures: [(&'static str, String); 4] = [
        (
            "zswap pool",
            sel.on(&query::series("zswap_pool_bytes"), &inst),
        ),
        (
            "swap-in hit ratio",
            sel.on(&query::series("zswap_swapin_hit_ratio"), &inst),
        ),
        (
            "writeback bytes/s",
            format!(
                "rate({}[{}])",
                sel.on(&query::series("zswpwb"), &inst),
                query::RATE_WINDOW
            ),
        ),
        (
            "PSI some avg10 %",
            sel.on(
                &query::series("psi_memory_avg_ratio"),
                &format!("{inst},line=\"some\",window=\"10\""),
            ),
        ),
    ];
    let mut out = History::default();
    for (title, q) in figures {
        let series = client
            .query_range(&format!("max({q})"), start, end, HISTORY_STEP)
            .map_err(|e| e.to_string())?;
        match series.into_iter().next() {
            Some(r) if !r.points.is_empty() => {
                out.series
                    .push((title, r.points.into_iter().map(|(_, v)| v).collect()));
            }
            _ => out
                .missing
                .push(format!("{title}: no sample in the last hour")),
        }
    }
    let findings = client
        .query(&sel.on(&query::series("finding"), &inst), Some(end))
        .map_err(|e| e.to_string())?;
    out.findings = findings
        .iter()
        .map(|s| {
            let get = |k: &str| visible(s.labels.get(k).map_or("?", String::as_str)).into_owned();
            (get("severity"), get("id"))
        })
        .collect();
    out.findings.sort_by_key(|(sev, id)| {
        (
            ["crit", "warn", "info"]
                .iter()
                .position(|s| s == sev)
                .unwrap_or(3),
            id.clone(),
        )
    });
    Ok(out)
}

/// The scrape interval, as the engine's samples of `up` show it: the refresh interval.
fn scrape_interval(client: &Client, sel: &Selector) -> Duration {
    let q = format!("300 / max(count_over_time({}[5m]))", sel.on("up", ""));
    let secs = client
        .query(&q, None)
        .ok()
        .and_then(|v| v.first().map(|s| s.value))
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(15.0);
    Duration::from_secs_f64(secs).clamp(MIN_REFRESH, MAX_REFRESH)
}

/// The query thread: answers each ask in turn until the view goes away.
fn worker(client: Client, sel: Selector, asks: mpsc::Receiver<Ask>, answers: mpsc::Sender<Answer>) {
    for ask in asks {
        let answer = match ask {
            Ask::Look => {
                Answer::Look(crate::fleet::look(&client, &sel).map_err(|e| format!("{e:#}")))
            }
            Ask::History(raw) => {
                let h = history(&client, &sel, &raw);
                Answer::History(raw, h)
            }
        };
        if answers.send(answer).is_err() {
            return;
        }
    }
}

/// `zswaptop fleet`: the view until q, a signal or the terminal going away.
pub fn run(options: &Options) -> anyhow::Result<Exit> {
    if !std::io::IsTerminal::is_terminal(&io::stdout()) {
        anyhow::bail!("the fleet view needs a terminal and stdout is not one (use --once)");
    }
    let client = Client::new(&options.url, &options.http)?;
    let refresh = scrape_interval(&client, &options.selector);
    let (ask, asks) = mpsc::channel();
    let (answer, answers) = mpsc::channel();
    let sel = options.selector.clone();
    std::thread::Builder::new()
        .name("fleet-query".into())
        .spawn(move || worker(client, sel, asks, answer))
        .context("starting the query thread")?;

    let tty_in = TtyIn::open()?;
    let signals = Signals::install().context("installing signal handlers")?;
    let mut session = Session::open(false)?;
    let guard = Guard::spawn(
        tty_in.try_clone().context("opening the terminal")?,
        &signals,
    )
    .context("starting the guard thread")?;
    let mut view = FleetView {
        waiting: true,
        ..FleetView::default()
    };
    let _ = ask.send(Ask::Look);
    let mut next = Instant::now() + refresh;
    let exit = loop {
        if session
            .terminal
            .draw(|buf, area, _| view.render(buf, area))
            .is_err()
        {
            break Exit::TtyGone("writing to the terminal failed".into());
        }
        // While an answer is awaited, look for it every 100 ms.
        let wait = if view.waiting || view.open.as_ref().is_some_and(|(_, h)| h.is_none()) {
            Duration::from_millis(100)
        } else {
            next.saturating_duration_since(Instant::now())
                .min(Duration::from_secs(1))
        };
        let mut fds = [
            tty::pollfd(&tty_in, PollFlags::IN),
            tty::pollfd(signals.wake(), PollFlags::IN),
        ];
        if let Err(e) = tty::poll(&mut fds, Some(wait)) {
            break Exit::TtyGone(e.to_string());
        }
        if !fds[1].revents().is_empty() {
            signals.drain_wake();
        }
        if let Some(sig) = signals.stop() {
            break Exit::Signal(sig);
        }
        if tty::gone(fds[0].revents()) {
            break Exit::TtyGone("the terminal hung up".into());
        }
        let _ = signals.take_resize();
        let mut quit = false;
        if fds[0].revents().contains(PollFlags::IN) {
            while event::poll(Duration::ZERO).unwrap_or(false) {
                let Ok(Event::Key(k)) = event::read() else {
                    continue;
                };
                match view.key(k) {
                    Action::Quit => quit = true,
                    Action::Refresh if !view.waiting => {
                        view.waiting = true;
                        let _ = ask.send(Ask::Look);
                    }
                    Action::Open(raw) => {
                        let _ = ask.send(Ask::History(raw));
                    }
                    _ => {}
                }
            }
        }
        if quit {
            break Exit::Quit;
        }
        while let Ok(a) = answers.try_recv() {
            match a {
                Answer::Look(Ok(f)) => {
                    view.fleet = Some(f);
                    view.error = None;
                    view.read_at = Some(Instant::now());
                    view.waiting = false;
                }
                Answer::Look(Err(e)) => {
                    view.error = Some(e);
                    view.waiting = false;
                }
                Answer::History(raw, h) => {
                    if let Some((open, slot)) = &mut view.open
                        && *open == raw
                    {
                        *slot = Some(h);
                    }
                }
            }
        }
        if !view.waiting && Instant::now() >= next {
            view.waiting = true;
            let _ = ask.send(Ask::Look);
            next = Instant::now() + refresh;
        }
    };
    guard.finish();
    session.end(matches!(exit, Exit::TtyGone(_)), &tty_in);
    Ok(exit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::Findings;
    use ratatui::crossterm::event::KeyModifiers;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    fn fleet(n: usize) -> Fleet {
        let mut f = Fleet {
            source: "http://p:9090".into(),
            hosts: (0..n)
                .map(|i| Host {
                    instance: format!("host-{i:05}:9977"),
                    raw_instance: format!("host-{i:05}:9977"),
                    up: true,
                    age_seconds: Some(1.0),
                    psi_some_avg10: Some(i as f64),
                    findings: Findings::default(),
                    ..Host::default()
                })
                .collect(),
            ..Fleet::default()
        };
        f.finish();
        f
    }

    fn screen(v: &mut FleetView, w: u16, h: u16) -> Vec<String> {
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        v.render(&mut buf, area);
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
            })
            .collect()
    }

    #[test]
    fn draws_only_what_fits_and_scrolls_with_the_selection() {
        let mut v = FleetView {
            fleet: Some(fleet(10_000)),
            read_at: Some(Instant::now()),
            ..FleetView::default()
        };
        let rows = screen(&mut v, 120, 40);
        // Worst first: the most pressure on top.
        assert!(rows[3].starts_with("host-09999:9977"), "{rows:#?}");
        assert!(rows[39].contains("1-36 of 10000"), "{}", rows[39]);
        for _ in 0..40 {
            v.key(key(KeyCode::Down));
        }
        let rows = screen(&mut v, 120, 40);
        assert!(
            rows.iter().any(|r| r.starts_with("host-09959:9977")),
            "{rows:#?}"
        );
        assert_eq!(v.key(key(KeyCode::End)), Action::None);
        assert_eq!(v.selected, 9_999);
        assert_eq!(
            v.key(key(KeyCode::Enter)),
            Action::Open("host-00000:9977".into())
        );
        let rows = screen(&mut v, 120, 40);
        assert!(
            rows[2].starts_with("host-00000:9977   Esc back"),
            "{rows:#?}"
        );
        v.key(key(KeyCode::Esc));
        assert!(v.open.is_none());
        assert_eq!(v.key(key(KeyCode::Char('q'))), Action::Quit);
    }

    #[test]
    fn a_label_is_quoted_for_promql() {
        assert_eq!(promql_string("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}
