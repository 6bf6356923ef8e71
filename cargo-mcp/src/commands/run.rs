//! `cargo mcp run`: build the server and become it, over stdio or, with
//! `--http ADDR`, over Streamable HTTP through `Server::run`'s
//! `MCP_TRANSPORT` and `MCP_HTTP_ADDR`.

use std::process::{Command, ExitCode};

use crate::cli::RunArgs;
use crate::failure::Failure;
use crate::output;
use crate::select;

pub fn run(args: RunArgs) -> Result<ExitCode, Failure> {
    let built = select::build(&args.build, None)?;
    let mut command = Command::new(&built.executable);
    command.args(&args.server_args);
    let shown = select::shorten(&built.executable);
    match &args.http {
        Some(addr) => {
            command.env("MCP_TRANSPORT", "http").env("MCP_HTTP_ADDR", addr);
            output::progress("Running", &format!("{shown} over Streamable HTTP at {addr}"));
        }
        None => output::progress("Running", &format!("{shown} over stdio")),
    }
    become_(command, &shown)
}

/// Replace this process with the server, so that signals, the exit status
/// and the pipes of whoever started `cargo mcp run` are the server's own.
#[cfg(unix)]
fn become_(mut command: Command, shown: &str) -> Result<ExitCode, Failure> {
    use std::os::unix::process::CommandExt;
    let error = command.exec();
    Err(Failure::new(format!("cannot start {shown}: {error}")))
}

#[cfg(not(unix))]
fn become_(mut command: Command, shown: &str) -> Result<ExitCode, Failure> {
    let status = command.status().map_err(|e| Failure::new(format!("cannot start {shown}: {e}")))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
