//! The stdio transport: JSON-RPC on stdin/stdout, with stdout reserved for
//! the protocol so that a stray `println!` cannot corrupt the stream.

use std::io::{self, IsTerminal, Write};
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// Where protocol messages are written.
pub(crate) type ProtocolOut = Pin<Box<dyn AsyncWrite + Send>>;

/// Where protocol messages are read from.
pub(crate) type ProtocolIn = Pin<Box<dyn AsyncRead + Send>>;

/// Take stdout for the protocol and return (stdin, protocol output).
///
/// On Unix the real stdout is duplicated for the protocol (close-on-exec,
/// so child processes cannot write to it), and fd 1 is pointed at stderr:
/// from then on `println!`, `print!` and any library writing to stdout land
/// on stderr, where clients show logs, instead of breaking the protocol.
pub(crate) fn streams(server_name: &str) -> io::Result<(ProtocolIn, ProtocolOut)> {
    if io::stdin().is_terminal() {
        eprintln!(
            "{server_name} is an MCP server speaking JSON-RPC on stdin/stdout: start it from an MCP client \
             (e.g. `npx @modelcontextprotocol/inspector <this command>`), or type JSON-RPC lines here; Ctrl-D ends it."
        );
    }
    Ok((protocol_in(), protocol_out()?))
}

/// stdin: a non-blocking pipe where it is one, else tokio's (which reads
/// on its blocking thread pool).
#[cfg(unix)]
fn protocol_in() -> ProtocolIn {
    use std::os::fd::AsFd;
    let pipe = rustix::io::fcntl_dupfd_cloexec(io::stdin().as_fd(), 0).ok().map(super::pipe::Pipe::new);
    match pipe {
        Some(Ok(pipe)) => Box::pin(pipe),
        _ => Box::pin(tokio::io::stdin()),
    }
}

#[cfg(not(unix))]
fn protocol_in() -> ProtocolIn {
    Box::pin(tokio::io::stdin())
}

#[cfg(unix)]
fn protocol_out() -> io::Result<ProtocolOut> {
    use std::os::fd::{AsFd, OwnedFd};
    use std::sync::Mutex;

    // The real stdout, taken once and under one lock: after the first take
    // fd 1 is stderr, so every later server (even one starting at the same
    // moment) must reuse this fd, never duplicate fd 1 again.
    static PROTOCOL: Mutex<Option<OwnedFd>> = Mutex::new(None);
    let mut slot = PROTOCOL.lock().unwrap_or_else(|e| e.into_inner());
    let protocol = match &mut *slot {
        Some(fd) => fd,
        empty => {
            io::stdout().flush()?;
            let fd = rustix::io::fcntl_dupfd_cloexec(io::stdout().as_fd(), 0)?;
            rustix::stdio::dup2_stdout(io::stderr().as_fd())?;
            empty.insert(fd)
        }
    };
    let own = rustix::io::fcntl_dupfd_cloexec(protocol, 0)?;
    // A pipe is written on the connection's worker; anything else through
    // the blocking pool.
    Ok(match super::pipe::Pipe::new(own) {
        Ok(pipe) => Box::pin(pipe),
        Err(own) => Box::pin(tokio::fs::File::from_std(std::fs::File::from(own))),
    })
}

#[cfg(not(unix))]
fn protocol_out() -> io::Result<ProtocolOut> {
    Ok(Box::pin(tokio::io::stdout()))
}
