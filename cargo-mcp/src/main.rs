//! `cargo mcp`: inspect, call, install and run the MCP servers of a Cargo
//! project. `cargo mcp --help` lists the commands; each has examples in
//! its own `--help`.

mod cli;
mod commands;
mod connect;
mod failure;
mod incident;
mod output;
mod registry;
mod select;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::failure::Failure;

fn main() -> ExitCode {
    // Cargo runs `cargo-mcp mcp <args>` for `cargo mcp <args>`; run
    // directly, the binary takes the same arguments without the `mcp`.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "mcp") {
        args.remove(1);
    }
    let cli = Cli::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return report(&Failure::new(format!("cannot start the async runtime: {e}"))),
    };
    match runtime.block_on(run(cli.command)) {
        Ok(code) => code,
        Err(failure) => report(&failure),
    }
}

async fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Inspect(args) => commands::inspect::run(args).await,
        Command::Call(args) => commands::call::run(args).await,
        Command::Read(args) => commands::read::run(args).await,
        Command::Prompt(args) => commands::prompt::run(args).await,
        Command::Install(args) => commands::install::run(args).await,
        Command::Run(args) => commands::run::run(args),
        Command::Serve(args) => commands::serve::run(args).await,
        Command::New(args) => commands::new::run(args),
        Command::Publish(args) => commands::publish::run(args).await,
    }
}

fn report(failure: &Failure) -> ExitCode {
    if !failure.is_silent() {
        eprintln!("{}", failure.render(&output::Style::stderr()));
    }
    ExitCode::from(failure.exit_code())
}
