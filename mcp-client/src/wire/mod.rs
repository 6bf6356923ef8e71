//! How messages reach a server and come back: a [`Wire`] sends what the
//! session hands it and delivers what arrives as [`Inbound`] items on one
//! channel. Line transports (a child's stdio, any byte stream) and
//! Streamable HTTP are wires; the session above them is the same.

pub(crate) mod child;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod lines;
#[cfg(feature = "http")]
pub(crate) mod sse;

use futures_util::future::BoxFuture;
use mcp_core::{Message, RequestId};
use tokio::sync::mpsc;

use crate::Error;

/// One message to the server, serialized, with what an HTTP wire puts in
/// its headers (a line wire ignores them).
#[derive(Debug)]
pub(crate) struct Outbound {
    pub(crate) bytes: Vec<u8>,
    /// The request's id: a failure to deliver it fails that request.
    pub(crate) id: Option<RequestId>,
    /// `(name, value)` headers for this message (`MCP-Protocol-Version`,
    /// and in 2026-07-28 `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
    pub(crate) headers: Vec<(String, String)>,
}

/// What arrives from the server.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// A message.
    Message(Message),
    /// A request could not be delivered, or its answer not read.
    Failed(RequestId, Error),
    /// The connection is gone; nothing more comes.
    Closed(String),
}

/// The sending end of the inbound channel: bounded, so a server that
/// floods the client is read no faster than the client handles it.
pub(crate) type InboundTx = mpsc::Sender<Inbound>;

/// How many inbound items may wait to be handled.
pub(crate) const INBOUND_QUEUE: usize = 1024;

/// A connection's message I/O.
pub(crate) trait Wire: Send + Sync + 'static {
    /// Send one message; `Err` if it could not go.
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), Error>>;

    /// The protocol version requests speak from now on (`None` before a
    /// handshake): an HTTP wire names it in `MCP-Protocol-Version`.
    fn speak(&self, _version: Option<&str>) {}

    /// A handshake-era session is open: an HTTP wire opens the server's
    /// own stream (before any request, so nothing meant for a request's
    /// stream can land on it first).
    fn opened(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// What a child server wrote to stderr lately, if it is captured.
    fn server_log(&self) -> Option<String> {
        None
    }

    /// End the connection (end a child process, delete an HTTP session).
    fn close(&self) -> BoxFuture<'_, ()>;
}
