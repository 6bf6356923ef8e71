//! How messages reach a server and come back: a [`Wire`] sends what the
//! session hands it and delivers what arrives as [`Inbound`] items to its
//! [`Inbox`]. Line transports (a child's stdio, any byte stream), whole
//! messages over channels (a server in the same process) and Streamable
//! HTTP are wires; the session above them is the same.

pub(crate) mod channel;
pub(crate) mod child;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod incoming;
pub(crate) mod lines;
pub(crate) mod peek;
#[cfg(feature = "http")]
pub(crate) mod sse;

use std::sync::{Arc, Mutex, Weak};

use futures_util::future::BoxFuture;
use mcp_core::{Message, RequestId};
use serde_json::value::RawValue;

use crate::Error;
use crate::session::Session;

/// The largest message read from a server unless the builder says
/// otherwise ([`ClientBuilder::max_message_bytes`](crate::ClientBuilder::max_message_bytes)).
pub(crate) const DEFAULT_MAX_MESSAGE: usize = 64 << 20;

/// One message to the server, serialized, with what an HTTP wire puts in
/// its headers (a line wire ignores them).
#[derive(Debug)]
// A line wire reads only the bytes: without HTTP the rest goes unread.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
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
    /// A successful answer: the request's id and its result's JSON text.
    Result(RequestId, Box<RawValue>),
    /// Any other message.
    Message(Message),
    /// A request could not be delivered, or its answer not read (an HTTP
    /// answer stream that ended early).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Failed(RequestId, Error),
    /// A message over the size limit, dropped unread: what a scan of it
    /// told, and the error for whatever waits on it.
    Oversized(peek::Kind, Error),
    /// The connection is gone; nothing more comes.
    Closed(String),
}

// Only an HTTP wire asks: a line wire delivers everything it reads.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl Inbound {
    /// The id of the request this answers, if it is an answer (`Some(None)`
    /// for an error whose request could not be read).
    pub(crate) fn answer_to(&self) -> Option<Option<&RequestId>> {
        match self {
            Inbound::Result(id, _) => Some(Some(id)),
            Inbound::Message(Message::Response(response)) => Some(response.id.as_ref()),
            _ => None,
        }
    }
}

/// Where a wire delivers what arrives: straight into the session, on the
/// task that read it. Handling an item never waits (an answer wakes its
/// caller, a notification goes to bounded listeners, a request of the
/// server's starts a task), so no queue sits in between: a server is read
/// as fast as it is handled, and an answer costs no extra hop.
#[derive(Clone, Default)]
pub(crate) struct Inbox(Arc<Mutex<Route>>);

#[derive(Default)]
struct Route {
    session: Option<Weak<Session>>,
    /// What came before the session was there (a server that speaks
    /// first), handed over when it is.
    early: Vec<Inbound>,
}

/// How many items are kept for a session not there yet.
const EARLY_LIMIT: usize = 1024;

impl Inbox {
    /// Deliver one item; `false` once the session is gone (the reader
    /// stops).
    pub(crate) fn deliver(&self, item: Inbound) -> bool {
        let mut route = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match &route.session {
            Some(session) => {
                let Some(session) = session.upgrade() else { return false };
                drop(route);
                session.receive(item);
            }
            None if route.early.len() < EARLY_LIMIT => route.early.push(item),
            None => tracing::warn!("the server sent too much before the first request; dropped"),
        }
        true
    }

    /// From now on, deliver to `session` (what came before goes first).
    pub(crate) fn connect(&self, session: &Arc<Session>) {
        let mut route = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for item in std::mem::take(&mut route.early) {
            session.receive(item);
        }
        route.session = Some(Arc::downgrade(session));
    }
}

/// A connection's message I/O.
pub(crate) trait Wire: Send + Sync + 'static {
    /// Send one message; `Err` if it could not go.
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), Error>>;

    /// Send one message if that needs no wait (a line wire with room in
    /// its queue), with no future built for it; otherwise give it back,
    /// for [`send`](Self::send).
    fn try_send(&self, message: Outbound) -> Result<Result<(), Error>, Outbound> {
        Err(message)
    }

    /// The protocol version requests speak from now on (`None` before a
    /// handshake): an HTTP wire names it in `MCP-Protocol-Version`.
    fn speak(&self, _version: Option<&str>) {}

    /// A handshake-era session is open: an HTTP wire opens the server's
    /// own stream (before any request, so nothing meant for a request's
    /// stream can land on it first).
    fn opened(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// The caller stopped waiting for request `id`: an HTTP wire closes
    /// its answer's stream, which is how a stateless request is cancelled.
    fn cancelled(&self, _id: &RequestId) {}

    /// What a child server wrote to stderr lately, if it is captured.
    fn server_log(&self) -> Option<String> {
        None
    }

    /// End the connection (end a child process, delete an HTTP session).
    fn close(&self) -> BoxFuture<'_, ()>;
}
