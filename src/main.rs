use std::process::ExitCode;

use zswaptop::{cli, console};

/// Parse, run, and end: 0 when it went well (or its reader went away), 2 for arguments that do
/// not make sense, 1 for an error while running, said on stderr with its causes.
fn main() -> ExitCode {
    let mode = match cli::parse(&cli::Env::current()) {
        Ok(mode) => mode,
        Err(status) => return ExitCode::from(status),
    };
    match zswaptop::run(mode) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            console::error(console::chain(&e));
            ExitCode::FAILURE
        }
    }
}
