//! A test that lacks what it needs of the machine (root, tmux, setsid, python3, Prometheus, …)
//! says why and returns: `skip!("why")`. libtest cannot mark a test ignored once it has started,
//! so a skipped test counts as passed; what tells it apart is its line on stderr, `SKIPPED
//! module::test: why`, which reaches the terminal whether or not the test passes.

use std::io::Write;

/// Write `SKIPPED <the running test>: why` to the process's stderr.
pub fn say(why: &str) {
    let line = format!(
        "SKIPPED {}: {why}\n",
        // libtest runs each test on a thread named after it.
        std::thread::current().name().unwrap_or("a test")
    );
    // libtest captures what the print macros write (shown only for a failing test); a write to
    // `io::stderr()` itself is not captured.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Say why the running test cannot run on this machine, and return from it.
macro_rules! skip {
    ($($why:tt)+) => {{
        $crate::common::skip::say(&format!($($why)+));
        return;
    }};
}
pub(crate) use skip;
