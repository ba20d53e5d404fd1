//! The runner of the test binaries whose tests may be skipped at run time (`harness = false` in
//! Cargo.toml): a test that lacks what it needs (root, tmux, python3, …) calls [`skip`], says
//! SKIPPED with the reason, and is counted as ignored in the summary line, not as passed.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// The reason a test stopped without running (the payload [`skip`] unwinds with).
struct Skipped(String);

/// Stop the running test and count it as skipped, with the reason. Only for tests run by [`run`].
pub fn skip(why: impl Into<String>) -> ! {
    // `resume_unwind` does not call the panic hook: no panic message is printed.
    resume_unwind(Box::new(Skipped(why.into())))
}

/// Lists a binary's test functions by name for [`run`]: `common::tests![a, b, c]`.
#[allow(unused_macros)]
macro_rules! tests {
    ($($f:ident),* $(,)?) => {
        &[$((stringify!($f), $f as fn())),*]
    };
}
#[allow(unused_imports)]
pub(crate) use tests;

/// Run `tests` with libtest's arguments and output. `source` is the binary's own text: a
/// `#[test]` function in it would never run here, so finding one fails the run.
pub fn run(source: &'static str, tests: &[(&'static str, fn())]) -> ExitCode {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = tests
        .iter()
        .map(|&(name, f)| Trial::ignorable_test(name, move || outcome(f)))
        .collect();
    trials.push(Trial::test("every_test_is_listed", move || {
        let attr = concat!("#[", "test]");
        match source.lines().position(|l| l.trim() == attr) {
            Some(i) => Err(format!(
                "line {}: {attr} never runs in a harness = false binary: \
                 drop the attribute and list the function in main",
                i + 1
            )
            .into()),
            None => Ok(()),
        }
    }));
    libtest_mimic::run(&args, trials).exit_code()
}

fn outcome(f: fn()) -> Result<Completion, Failed> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => Ok(Completion::Completed),
        Err(payload) => match payload.downcast::<Skipped>() {
            Ok(skipped) => Ok(Completion::ignored_with(format!("SKIPPED: {}", skipped.0))),
            // A failure: the panic hook has printed its message; libtest-mimic counts it.
            Err(other) => resume_unwind(other),
        },
    }
}
