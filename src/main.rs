use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use zswaptop::cli::{Cli, Settings};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and --version: the program's own text, on stdout.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            // An error quotes the arguments, which may come from outside (a file name a glob
            // expanded): parsed again without clap's colours, so that its lines hold no escape
            // sequence but the arguments' own, and each is made safe like every other message.
            let plain = Cli::command()
                .styles(clap::builder::Styles::plain())
                .try_get_matches()
                .err()
                .unwrap_or(e);
            zswaptop::console::lines(plain.render().ansi());
            return ExitCode::from(u8::try_from(plain.exit_code()).unwrap_or(2));
        }
    };
    if let Some(command) = cli.command {
        let mut out = zswaptop::console::Stdout::lock();
        return match command.run(&mut out) {
            Ok(()) => ExitCode::SUCCESS,
            // A closed pipe (`zswaptop man | head`) or a terminal that hung up is not an error
            // worth a message.
            Err(_) if out.gone() => ExitCode::SUCCESS,
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
