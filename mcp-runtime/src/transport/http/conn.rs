//! The server's own listener and accept loop. `axum::serve` has no
//! settings, so a client could hold a connection open forever by sending
//! nothing (or a header a byte at a time), and enough of them use up the
//! process's open files and lock every other client out. Here each
//! connection is served by hyper's HTTP/1 with its header-read timeout
//! and `TCP_NODELAY`, and at most `max_connections` are open at once.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::Semaphore;

use super::endpoint::Direct;
use crate::error::Error;

/// The limits of the connections themselves (those of requests and
/// sessions are the endpoint's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConnectionLimits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) max_connections: usize,
}

/// A listener on the first of `addr`'s addresses that binds, or an error
/// naming the address (tokio's own says only `invalid port value` or
/// `Address already in use`, which leaves a user of many servers guessing).
pub(crate) async fn bind(addr: impl ToSocketAddrs + fmt::Debug) -> Result<TcpListener, Error> {
    let named = format!("{addr:?}");
    let named = named.trim_matches('"');
    let failed = |address: &dyn fmt::Display, error: std::io::Error| {
        let hint = match error.kind() {
            std::io::ErrorKind::AddrInUse => " (another program listens there: stop it, or pick another port)",
            std::io::ErrorKind::AddrNotAvailable => " (no interface of this machine has that address)",
            std::io::ErrorKind::PermissionDenied => " (ports below 1024 need privileges: pick a higher one)",
            _ => "",
        };
        Error::Io(std::io::Error::new(error.kind(), format!("cannot listen on {address}: {error}{hint}")))
    };
    let addresses = tokio::net::lookup_host(addr).await.map_err(|error| failed(&named, error))?;
    let mut last = None;
    for address in addresses {
        match TcpListener::bind(address).await {
            Ok(listener) => return Ok(listener),
            Err(error) => last = Some(failed(&address, error)),
        }
    }
    let none = || failed(&named, std::io::Error::new(std::io::ErrorKind::InvalidInput, "it names no address"));
    Err(last.unwrap_or_else(none))
}

/// Accept connections on `listener` and serve `endpoint` on each, until
/// the listener fails for good.
pub(crate) async fn serve(listener: TcpListener, endpoint: Direct, limits: ConnectionLimits) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut warned = false;
    loop {
        // At the cap the next connection is not accepted: it waits in the
        // kernel's listen queue (taking no file of ours) until one closes,
        // and the header timeout makes sure one does.
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                if !std::mem::replace(&mut warned, true) {
                    tracing::warn!(
                        max = limits.max_connections,
                        "HTTP connection cap reached; new connections wait until one closes \
                         (HttpOptions::max_connections)"
                    );
                }
                slots.clone().acquire_owned().await.expect("the semaphore is never closed")
            }
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) if is_connection_error(&error) => continue,
            Err(error) => {
                // Out of files or memory: wait rather than spin, as
                // `axum::serve` does.
                tracing::error!(%error, "accepting an HTTP connection failed");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = endpoint.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .serve_connection(TokioIo::new(stream), service);
            if let Err(error) = connection.await {
                tracing::debug!(%error, "an HTTP connection ended with an error");
            }
        });
    }
}

/// Errors of one connection that was reset before it was accepted, not of
/// the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    )
}
