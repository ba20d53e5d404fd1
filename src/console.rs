//! The person at the terminal: errors, warnings and notes on stderr, and a standard output that
//! tells a reader who went away from a failed write.
//!
//! Every message goes through here, never through `eprintln!`: a message often carries a string
//! from outside (a file name in a recording directory, a record's text, a kernel file's line), so
//! it is made safe with [`crate::sanitize::visible`] first; and a write that fails (stderr closed,
//! a pipe whose reader left, an SSH pty that hung up) is ignored, where `eprintln!` panics — a
//! recorder must outlive the terminal that started it.
//!
//! Every mode that writes to stdout writes through [`Stdout`], which remembers whether its
//! reader is gone, so the mode ends quietly (status 0) when it is: a pipe whose reader left
//! (`--once | head`) and a terminal that hung up (an SSH session dropped under `nohup`) alike.

use std::fmt::Display;
use std::io::{self, Write};

/// `zswaptop: MESSAGE` on stderr: an error that ends the run.
pub fn error(msg: impl Display) {
    emit(format_args!("zswaptop: {msg}"));
}

/// An error's message with its causes, each said once: `recording to x.zsr: x.zsr: Permission
/// denied`, where a cause whose text the message already ends with (an I/O error a path error
/// quotes) is not repeated.
pub fn chain(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !msg.ends_with(&text) {
            msg = format!("{msg}: {text}");
        }
    }
    msg
}

/// `zswaptop: warning: MESSAGE` on stderr: something went wrong and the run goes on.
pub(crate) fn warn(msg: impl Display) {
    emit(format_args!("zswaptop: warning: {msg}"));
}

/// `zswaptop: MESSAGE` on stderr: what the program is doing (`serving http://…`).
pub(crate) fn note(msg: impl Display) {
    emit(format_args!("zswaptop: {msg}"));
}

/// `MESSAGE` on stderr without the program's name (the tests' `skipped: …` lines).
#[cfg(test)]
pub(crate) fn plain(msg: impl Display) {
    emit(format_args!("{msg}"));
}

/// A text of several lines on stderr as it is (a usage error with its usage), each line made
/// safe.
pub(crate) fn lines(text: impl Display) {
    let text = text.to_string();
    let mut safe = String::with_capacity(text.len());
    for line in text.lines() {
        safe.push_str(&crate::sanitize::visible(line));
        safe.push('\n');
    }
    let _ = std::io::stderr().lock().write_all(safe.as_bytes());
}

/// The message, made safe, and a newline, written at once; a failed write is dropped.
fn emit(msg: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_all(render(msg).as_bytes());
}

/// The line [`emit`] writes.
fn render(msg: std::fmt::Arguments<'_>) -> String {
    let mut text = crate::sanitize::visible(&msg.to_string()).into_owned();
    text.push('\n');
    text
}

/// Standard output (or, in tests, any writer standing for it) that remembers whether a write
/// failed because its reader is gone: see [`reader_gone`].
pub struct Stdout<W: Write = io::StdoutLock<'static>> {
    inner: W,
    gone: bool,
    /// Whether stdout is a character device (a terminal), asked once a write failed.
    char_device: fn() -> bool,
}

impl Stdout {
    /// The process's standard output, locked.
    pub(crate) fn lock() -> Self {
        Stdout::over(io::stdout().lock(), stdout_is_char_device)
    }
}

impl<W: Write> Stdout<W> {
    /// `inner` as stdout, with `char_device` saying whether stdout is a character device.
    pub(crate) fn over(inner: W, char_device: fn() -> bool) -> Self {
        Stdout {
            inner,
            gone: false,
            char_device,
        }
    }

    /// Whether a write failed because the reader is gone: a mode then ends quietly.
    pub(crate) fn gone(&self) -> bool {
        self.gone
    }

    fn check<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r
            && reader_gone(e, self.char_device)
        {
            self.gone = true;
        }
        r
    }
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        self.check(r)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let r = self.inner.write_all(buf);
        self.check(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.check(r)
    }
}

/// Whether a failed write to stdout means that nobody reads it any more: a pipe whose reader
/// left (EPIPE), or a terminal that hung up — a write to a pseudo-terminal whose master side
/// is closed fails with EIO, and ENXIO where the device itself is gone. EIO from a regular file
/// (a failing disk under `> report.txt`) is an error to report: `char_device` tells them apart.
pub(crate) fn reader_gone(e: &io::Error, char_device: impl FnOnce() -> bool) -> bool {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return true;
    }
    let hung_up = [rustix::io::Errno::IO, rustix::io::Errno::NXIO]
        .iter()
        .any(|errno| e.raw_os_error() == Some(errno.raw_os_error()));
    hung_up && char_device()
}

/// Whether stdout is a character device (a terminal, also one that hung up: `isatty` fails on
/// those, `fstat` does not).
fn stdout_is_char_device() -> bool {
    rustix::fs::fstat(io::stdout()).is_ok_and(|st| {
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::CharacterDevice
    })
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};

    use super::{Stdout, reader_gone};

    /// A writer whose every write fails with `errno`.
    struct Failing(i32);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn which_failures_mean_the_reader_is_gone() {
        let errno = |e: rustix::io::Errno| io::Error::from_raw_os_error(e.raw_os_error());
        let tty = || true;
        let file = || false;
        assert!(reader_gone(&errno(rustix::io::Errno::PIPE), file));
        assert!(reader_gone(&errno(rustix::io::Errno::IO), tty));
        assert!(reader_gone(&errno(rustix::io::Errno::NXIO), tty));
        // EIO from a disk file is a failure to report, and so is a full disk anywhere.
        assert!(!reader_gone(&errno(rustix::io::Errno::IO), file));
        assert!(!reader_gone(&errno(rustix::io::Errno::NOSPC), tty));
        assert!(!reader_gone(&io::Error::other("x"), tty));
    }

    #[test]
    fn a_failed_write_is_remembered() {
        let mut out = Stdout::over(Failing(rustix::io::Errno::IO.raw_os_error()), || true);
        assert!(!out.gone());
        assert!(writeln!(out, "row").is_err());
        assert!(out.gone());
        let mut out = Stdout::over(Failing(rustix::io::Errno::IO.raw_os_error()), || false);
        assert!(out.write_all(b"row").is_err());
        assert!(!out.gone());
    }

    /// A cause a message already ends with is not said twice (the store's I/O errors quote
    /// theirs); the others are joined with ": ".
    #[test]
    fn an_error_chain_says_each_cause_once() {
        let io = io::Error::from_raw_os_error(rustix::io::Errno::NOENT.raw_os_error());
        let text = io.to_string();
        let quoted = anyhow::Error::new(io::Error::new(io.kind(), format!("x.zsr: {text}")))
            .context("recording to x.zsr");
        assert_eq!(
            super::chain(&quoted),
            format!("recording to x.zsr: x.zsr: {text}")
        );
        #[derive(Debug, thiserror::Error)]
        #[error("x.zsr: {0}")]
        struct PathError(#[source] io::Error);
        let sourced = anyhow::Error::new(PathError(io)).context("recording to x.zsr");
        assert_eq!(
            super::chain(&sourced),
            format!("recording to x.zsr: x.zsr: {text}")
        );
        let plain = anyhow::anyhow!("no such thing").context("opening it");
        assert_eq!(super::chain(&plain), "opening it: no such thing");
    }

    #[test]
    fn a_message_is_made_safe() {
        let name = "x\x1b]0;pwned\x07.zsr";
        assert_eq!(
            super::render(format_args!("zswaptop: warning: skipped {name}")),
            "zswaptop: warning: skipped x\\x1b]0;pwned\\x07.zsr\n"
        );
    }
}
