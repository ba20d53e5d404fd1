//! The terminal the dashboard draws on: taking it (raw mode, alternate screen, cursor hidden),
//! giving it back on every way out (a panic included), lending it to the shell while suspended
//! (Ctrl-Z), taking it again after any stop, and its size.
//!
//! Raw mode is set here with `tcsetattr` rather than by crossterm: crossterm remembers that it
//! set raw mode and will not set it again, but a process stopped from outside (`kill -STOP`, or
//! SIGTTIN/SIGTTOU) is not told it stops, and the shell puts its own modes back on the terminal
//! while the job is stopped. After any stop the terminal's modes are read again and raw mode set
//! for real ([`resume`]).
//!
//! The size comes from the tty itself (`TIOCGWINSZ`); when that fails (the terminal hung up) the
//! last known size stands. crossterm would instead run `tput cols` and `tput lines` through the
//! inherited PATH, which a process run as root must not do, so ratatui is given a backend that
//! never asks crossterm for the size. Once the terminal has gone away nothing is written to it
//! again: the backend is detached and the restore skipped.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, IsTerminal, Stdout, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

use anyhow::Context;
use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell as BufCell;
use ratatui::crossterm::{cursor, event, execute, terminal};
use ratatui::layout::{Position, Size};
use rustix::termios::{self, OptionalActions, Termios};

use super::screen::Screen;
use super::tty::{self, PollFlags};

/// The terminal is in the dashboard's modes: a panic must give it back.
static TAKEN: AtomicBool = AtomicBool::new(false);
/// Mouse reports are asked for (clicks on the view names, the wheel); off with `--no-mouse`.
static MOUSE: AtomicBool = AtomicBool::new(false);

/// The terminal's modes as they were before the dashboard took it, and the descriptor of the
/// terminal they are set on (the one crossterm reads keys from).
struct Modes {
    tty: OwnedFd,
    before: Termios,
}

/// Set while raw mode is on: what [`cooked_mode`] puts back.
static MODES: Mutex<Option<Modes>> = Mutex::new(None);

fn modes() -> MutexGuard<'static, Option<Modes>> {
    MODES.lock().unwrap_or_else(|e| e.into_inner())
}

/// `tcsetattr` now, again when a signal interrupted it (a stop and continue in between).
fn set_modes(tty: BorrowedFd<'_>, t: &Termios) -> io::Result<()> {
    loop {
        match termios::tcsetattr(tty, OptionalActions::Now, t) {
            Err(rustix::io::Errno::INTR) => {}
            r => return r.map_err(io::Error::from),
        }
    }
}

/// Put the terminal in raw mode, made from the modes it has now (which the shell may have
/// changed while the process was stopped), and set them whether or not raw mode was on before:
/// nothing but the terminal itself says whether it still is. The modes found the first time are
/// the ones [`cooked_mode`] gives back.
///
/// In the background this stops the process (SIGTTOU) until it is brought to the foreground,
/// then goes on: a process continued in the background never draws over the shell.
fn raw_mode() -> io::Result<()> {
    let mut modes = modes();
    let opened;
    let tty = match modes.as_ref() {
        Some(m) => m.tty.as_fd(),
        None => {
            opened = TtyIn::open().map_err(io::Error::other)?.try_clone()?;
            opened.as_fd()
        }
    };
    let now = termios::tcgetattr(tty)?;
    let mut raw = now.clone();
    raw.make_raw();
    set_modes(tty, &raw)?;
    if modes.is_none() {
        *modes = Some(Modes {
            tty: tty.try_clone_to_owned()?,
            before: now,
        });
    }
    Ok(())
}

/// Give the terminal the modes it had before [`raw_mode`] (nothing when raw mode is off).
pub(crate) fn cooked_mode() -> io::Result<()> {
    match modes().take() {
        Some(m) => set_modes(m.tty.as_fd(), &m.before),
        None => Ok(()),
    }
}

/// Raw mode, the alternate screen, the cursor hidden. Every mode the dashboard sets on the
/// terminal is set here and undone in [`leave`].
pub(crate) fn enter() -> io::Result<()> {
    raw_mode()?;
    TAKEN.store(true, Ordering::SeqCst);
    execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
    if MOUSE.load(Ordering::SeqCst) {
        execute!(io::stdout(), event::EnableMouseCapture)?;
    }
    Ok(())
}

/// Undo [`enter`]: cooked mode, the main screen, the cursor shown. Every step is tried; the first
/// error is returned. Never prints (stderr may be the terminal that failed).
pub(crate) fn leave() -> io::Result<()> {
    TAKEN.store(false, Ordering::SeqCst);
    // Raw mode first: it has the most effect if the rest fails.
    let raw = cooked_mode();
    let mouse = if MOUSE.load(Ordering::SeqCst) {
        execute!(io::stdout(), event::DisableMouseCapture)
    } else {
        Ok(())
    };
    let screen = execute!(io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
    raw.and(mouse).and(screen)
}

/// Give the terminal back and stop the process (as Ctrl-Z does to a program that does not
/// handle it); when the shell continues it, take the terminal again.
pub(crate) fn suspend() -> io::Result<()> {
    let _ = leave();
    signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)?;
    enter()
}

/// Take the terminal again after the process was stopped and continued without giving it back
/// first (SIGSTOP, SIGTTIN or SIGTTOU, then SIGCONT): raw mode set for real, the alternate
/// screen, mouse reports and the hidden cursor asked for again. The caller redraws everything.
pub(crate) fn resume() -> io::Result<()> {
    enter()
}

/// A panic gives the terminal back before its message is printed (once per process).
fn restore_on_panic() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if TAKEN.load(Ordering::SeqCst) {
                let _ = leave();
            }
            previous(info);
        }));
    });
}

/// The terminal's input side: stdin when it is a terminal, else `/dev/tty` (what crossterm reads).
pub enum TtyIn {
    Stdin(io::Stdin),
    Dev(File),
}

impl TtyIn {
    pub(crate) fn open() -> anyhow::Result<TtyIn> {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Ok(TtyIn::Stdin(stdin));
        }
        let f = File::options()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .context("opening /dev/tty")?;
        Ok(TtyIn::Dev(f))
    }

    /// Another descriptor of the same terminal, for the guard thread.
    pub(crate) fn try_clone(&self) -> io::Result<OwnedFd> {
        self.as_fd().try_clone_to_owned()
    }

    /// Whether the terminal has hung up (asked without waiting).
    pub(crate) fn hung_up(&self) -> bool {
        let mut fds = [tty::pollfd(self, PollFlags::empty())];
        tty::poll(&mut fds, Some(std::time::Duration::ZERO)).is_ok() && tty::gone(fds[0].revents())
    }
}

impl AsFd for TtyIn {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            TtyIn::Stdin(s) => s.as_fd(),
            TtyIn::Dev(f) => f.as_fd(),
        }
    }
}

/// The window size of the terminal on `fd` from the kernel, `None` when it can't be had (not a
/// terminal, hung up) or is empty.
pub(crate) fn window_size(fd: impl AsFd) -> Option<WindowSize> {
    let ws = rustix::termios::tcgetwinsize(fd).ok()?;
    (ws.ws_col > 0 && ws.ws_row > 0).then_some(WindowSize {
        columns_rows: Size::new(ws.ws_col, ws.ws_row),
        pixels: Size::new(ws.ws_xpixel, ws.ws_ypixel),
    })
}

/// crossterm's backend on stdout, but the size comes from [`window_size`] (the last one known
/// when that fails), and once detached nothing is written at all.
///
/// A frame identical to the last one writes nothing: ratatui asks to draw no cells, then to
/// hide the cursor again, and crossterm would still write its colour reset and the hide sequence
/// (25 bytes, a write to the terminal and a wake-up of whatever reads it, on every idle tick).
pub struct TtyBackend {
    inner: CrosstermBackend<Stdout>,
    last: Cell<WindowSize>,
    detached: bool,
    /// The cursor is known hidden: hiding it again writes nothing. Forgotten when the screen is
    /// cleared (after a suspend the shell may have shown it).
    cursor_hidden: bool,
}

impl TtyBackend {
    pub(crate) fn new() -> TtyBackend {
        TtyBackend {
            inner: CrosstermBackend::new(io::stdout()),
            last: Cell::new(WindowSize {
                columns_rows: Size::new(80, 24),
                pixels: Size::new(0, 0),
            }),
            detached: false,
            cursor_hidden: false,
        }
    }

    /// The terminal went away: write nothing more (ratatui shows the cursor when dropped).
    pub(crate) fn detach(&mut self) {
        self.detached = true;
    }

    fn current(&self) -> WindowSize {
        if let Some(ws) = window_size(io::stdout()) {
            self.last.set(ws);
        }
        self.last.get()
    }

    /// Run `f` on the real backend unless detached.
    fn write(
        &mut self,
        f: impl FnOnce(&mut CrosstermBackend<Stdout>) -> io::Result<()>,
    ) -> io::Result<()> {
        if self.detached {
            return Ok(());
        }
        f(&mut self.inner)
    }
}

impl Backend for TtyBackend {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a BufCell)>,
    {
        let mut content = content.peekable();
        if content.peek().is_none() {
            return Ok(());
        }
        self.write(|b| b.draw(content))
    }

    fn hide_cursor(&mut self) -> io::Result<()> {
        if self.cursor_hidden {
            return Ok(());
        }
        self.write(|b| b.hide_cursor())?;
        self.cursor_hidden = true;
        Ok(())
    }

    fn show_cursor(&mut self) -> io::Result<()> {
        self.cursor_hidden = false;
        self.write(|b| b.show_cursor())
    }

    fn get_cursor_position(&mut self) -> io::Result<Position> {
        if self.detached {
            return Ok(Position::ORIGIN);
        }
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.write(|b| b.set_cursor_position(position))
    }

    fn clear(&mut self) -> io::Result<()> {
        self.cursor_hidden = false;
        self.write(|b| b.clear())
    }

    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.cursor_hidden = false;
        self.write(|b| b.clear_region(clear_type))
    }

    fn size(&self) -> io::Result<Size> {
        Ok(self.current().columns_rows)
    }

    fn window_size(&mut self) -> io::Result<WindowSize> {
        Ok(self.current())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write(Backend::flush)
    }
}

/// The terminal taken for the dashboard; given back when dropped unless [`Session::abandon`]ed.
pub struct Session {
    pub terminal: Screen<TtyBackend>,
    abandoned: bool,
}

impl Session {
    /// Take the terminal, with mouse reports when `mouse`. On an error it is given back before
    /// this returns.
    pub(crate) fn open(mouse: bool) -> anyhow::Result<Session> {
        MOUSE.store(mouse, Ordering::SeqCst);
        restore_on_panic();
        if let Err(e) = enter() {
            let _ = leave();
            return Err(e).context("setting up the terminal");
        }
        match Screen::new(TtyBackend::new()) {
            Ok(terminal) => Ok(Session {
                terminal,
                abandoned: false,
            }),
            Err(e) => {
                let _ = leave();
                Err(e).context("setting up the terminal")
            }
        }
    }

    /// The terminal went away: never write to it again, not even to give it back.
    pub(crate) fn abandon(&mut self) {
        self.abandoned = true;
        TAKEN.store(false, Ordering::SeqCst);
        self.terminal.backend_mut().detach();
    }

    /// Give the terminal back as a loop on it ends: restored, unless it is gone (`gone`, the
    /// loop's own finding, or the tty hung up) — then abandoned, never written to again.
    pub(crate) fn end(mut self, gone: bool, tty_in: &TtyIn) {
        if gone || tty_in.hung_up() {
            self.abandon();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.abandoned {
            let _ = leave();
            let _ = io::stdout().flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_size_from_what_is_not_a_terminal() {
        let f = File::open("/dev/null").unwrap();
        assert!(window_size(&f).is_none());
    }

    /// Without a terminal the backend keeps its last size (and never asks crossterm, which
    /// would run `tput`).
    #[test]
    fn a_detached_backend_writes_nothing_and_keeps_its_size() {
        let mut b = TtyBackend::new();
        b.detach();
        let before = b.size().unwrap();
        assert!(before.width > 0 && before.height > 0);
        b.clear().unwrap();
        b.show_cursor().unwrap();
        Backend::flush(&mut b).unwrap();
        assert_eq!(b.window_size().unwrap().columns_rows, before);
    }
}
