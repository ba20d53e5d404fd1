use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

use zswaptop::cli::{Cli, Settings};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(command) = cli.command {
        return match command.run(&mut std::io::stdout().lock()) {
            Ok(()) => ExitCode::SUCCESS,
            // A closed pipe (`zswaptop man | head`) is not an error worth a message.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) if zswaptop::cli::is_usage_error(&e) => {
                zswaptop::console::error(e);
                ExitCode::from(2)
            }
            Err(e) => {
                zswaptop::console::error(e);
                ExitCode::FAILURE
            }
        };
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let settings = match Settings::from_cli(cli, no_color, std::io::stdout().is_terminal()) {
        Ok(s) => s,
        Err(e) => {
            zswaptop::console::error(e);
            return ExitCode::from(2);
        }
    };
    match zswaptop::run(settings) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            zswaptop::console::error(format_args!("{e:#}"));
            ExitCode::FAILURE
        }
    }
}
