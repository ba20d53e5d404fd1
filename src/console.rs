//! Messages to the person at the terminal: errors, warnings and notes on stderr.
//!
//! Every message goes through here, never through `eprintln!`: a message often carries a string
//! from outside (a file name in a recording directory, a record's text, a kernel file's line), so
//! it is made safe with [`crate::sanitize::visible`] first; and a write that fails (stderr closed,
//! a pipe whose reader left, an SSH pty that hung up) is ignored, where `eprintln!` panics — a
//! recorder must outlive the terminal that started it.

use std::fmt::Display;
use std::io::Write;

/// `zswaptop: MESSAGE` on stderr: an error that ends the run.
pub fn error(msg: impl Display) {
    emit(format_args!("zswaptop: {msg}"));
}

/// `zswaptop: warning: MESSAGE` on stderr: something went wrong and the run goes on.
pub fn warn(msg: impl Display) {
    emit(format_args!("zswaptop: warning: {msg}"));
}

/// `zswaptop: MESSAGE` on stderr: what the program is doing (`serving http://…`).
pub fn note(msg: impl Display) {
    emit(format_args!("zswaptop: {msg}"));
}

/// `MESSAGE` on stderr without the program's name (the tests' `skipped: …` lines).
pub fn plain(msg: impl Display) {
    emit(format_args!("{msg}"));
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_message_is_made_safe() {
        let name = "x\x1b]0;pwned\x07.zsr";
        assert_eq!(
            super::render(format_args!("zswaptop: warning: skipped {name}")),
            "zswaptop: warning: skipped x\\x1b]0;pwned\\x07.zsr\n"
        );
    }
}
