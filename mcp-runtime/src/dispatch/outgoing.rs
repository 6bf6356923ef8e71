//! The queue of bytes to one client (a connection, or one HTTP response
//! stream), and typed notifications onto it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use tokio::sync::{Notify, mpsc};

/// Messages to the client of one connection or response stream. An empty
/// message is the end-of-stream marker the writers stop at.
#[derive(Clone, Debug)]
pub(crate) struct Outgoing {
    pub(crate) tx: mpsc::UnboundedSender<Vec<u8>>,
    /// Whether requests to the client can go this way: not on an HTTP
    /// response the client takes as plain JSON (it reads only the answer).
    requests: bool,
    /// Whether the client can reconnect to this stream (a resumable HTTP
    /// event stream), so the connection it is read on may be ended.
    resumable: bool,
    /// What is queued and not yet written, for a connection whose reader
    /// waits when too much is (stdio: a client that does not read).
    backlog: Option<Arc<Backlog>>,
}

/// The bytes queued for a connection and not yet written: its reader stops
/// reading while there are too many (backpressure, instead of memory that
/// grows as long as a client sends without reading).
#[derive(Debug, Default)]
pub(crate) struct Backlog {
    bytes: AtomicUsize,
    drained: Notify,
}

impl Backlog {
    fn queued(&self, bytes: usize) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// `bytes` were written.
    pub(crate) fn written(&self, bytes: usize) {
        self.bytes.fetch_sub(bytes, Ordering::Relaxed);
        self.drained.notify_waiters();
    }

    /// Wait until at most `limit` bytes are queued.
    pub(crate) async fn at_most(&self, limit: usize) {
        loop {
            let drained = self.drained.notified();
            if self.bytes.load(Ordering::Relaxed) <= limit {
                return;
            }
            drained.await;
        }
    }
}

/// The marker that asks a resumable stream to end the connection it is
/// read on, in order with the messages before it (never sent on the
/// wire: no message is a lone NUL byte).
pub(crate) const CLOSE_CONNECTION: &[u8] = b"\0";

/// A notification as it goes on the wire, serialized straight from its
/// typed params.
#[derive(Serialize)]
struct Note<'a, P> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a P,
}

impl Outgoing {
    /// A queue to a client that reads everything sent on it.
    pub(crate) fn new(tx: mpsc::UnboundedSender<Vec<u8>>) -> Outgoing {
        Outgoing { tx, requests: true, resumable: false, backlog: None }
    }

    /// A queue whose bytes are counted in `backlog` until written.
    pub(crate) fn counted(tx: mpsc::UnboundedSender<Vec<u8>>, backlog: Arc<Backlog>) -> Outgoing {
        Outgoing { backlog: Some(backlog), ..Outgoing::new(tx) }
    }

    /// A stream the client can reconnect to.
    #[cfg(feature = "http")]
    pub(crate) fn resumable(tx: mpsc::UnboundedSender<Vec<u8>>) -> Outgoing {
        Outgoing { tx, requests: true, resumable: true, backlog: None }
    }

    /// End the connection the stream is read on, after what was sent
    /// before, if the client can reconnect; `false` if it cannot (stdio,
    /// plain JSON, stateless HTTP).
    pub(crate) fn close_connection(&self) -> bool {
        self.resumable && self.tx.send(CLOSE_CONNECTION.to_vec()).is_ok()
    }

    /// A queue to a client that reads only the answer, so a request to it
    /// would never be seen.
    #[cfg(feature = "http")]
    pub(crate) fn answer_only(tx: mpsc::UnboundedSender<Vec<u8>>) -> Outgoing {
        Outgoing { tx, requests: false, resumable: false, backlog: None }
    }

    /// Whether a request to the client can be sent this way.
    pub(crate) fn carries_requests(&self) -> bool {
        self.requests
    }

    /// A queue whose messages go nowhere (for requests that send none).
    #[cfg(feature = "http")]
    pub(crate) fn nowhere() -> Outgoing {
        Outgoing::answer_only(mpsc::unbounded_channel().0)
    }

    /// Send a notification; a closed connection drops it.
    pub(crate) fn notify(&self, method: &str, params: &impl Serialize) {
        self.send(&Note { jsonrpc: "2.0", method, params });
    }

    /// Queue one message; a closed queue (the client is gone) drops it.
    pub(crate) fn send(&self, message: &impl Serialize) {
        match serde_json::to_vec(message) {
            Ok(bytes) => {
                let size = bytes.len();
                if self.tx.send(bytes).is_ok()
                    && let Some(backlog) = &self.backlog
                {
                    backlog.queued(size);
                }
            }
            Err(e) => tracing::error!(error = %e, "a message could not be serialized"),
        }
    }

    /// Whether the client end is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}
