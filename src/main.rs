use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

use zswaptop::cli::{Cli, Command, Settings};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(command) = cli.command {
        let done = match command {
            Command::Record(args) => zswaptop::recording::record(&args),
            Command::Replay(args) => zswaptop::replay(&args),
            Command::Export(args) => {
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                zswaptop::recording::export(&args, &mut out)
            }
            printing => {
                return match printing.run(&mut std::io::stdout().lock()) {
                    Ok(()) => ExitCode::SUCCESS,
                    // A closed pipe (`zswaptop man | head`) is not an error worth a message.
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("zswaptop: {e}");
                        ExitCode::FAILURE
                    }
                };
            }
        };
        return finish(done);
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let settings = match Settings::from_cli(cli, no_color, std::io::stdout().is_terminal()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("zswaptop: {e}");
            return ExitCode::from(2);
        }
    };
    finish(zswaptop::run(settings))
}

/// The exit status of a run, its error said on stderr. A reader that went away
/// (`zswaptop export ... | head`) is not an error.
fn finish(done: anyhow::Result<()>) -> ExitCode {
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("zswaptop: {e:#}");
            ExitCode::FAILURE
        }
    }
}
