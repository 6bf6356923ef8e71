//! The queue of bytes to one client (a connection, or one HTTP response
//! stream), and typed notifications onto it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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

/// The bytes queued for a client and not yet written, against a limit.
/// Past the limit, notifications to that client are dropped (answers and
/// requests never are), and a stdio connection reads nothing more until
/// the client reads: memory stays bounded however slowly a client reads.
#[derive(Debug)]
pub(crate) struct Backlog {
    bytes: AtomicUsize,
    limit: usize,
    drained: Notify,
    /// Whether notifications are being dropped, so that is logged once
    /// per episode rather than once per notification.
    shedding: AtomicBool,
}

impl Backlog {
    pub(crate) fn new(limit: usize) -> Arc<Backlog> {
        Arc::new(Backlog {
            bytes: AtomicUsize::new(0),
            limit,
            drained: Notify::new(),
            shedding: AtomicBool::new(false),
        })
    }

    /// `bytes` more are queued.
    pub(crate) fn queued(&self, bytes: usize) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// `bytes` were written (or taken by whatever writes them).
    pub(crate) fn written(&self, bytes: usize) {
        self.bytes.fetch_sub(bytes, Ordering::Relaxed);
        self.drained.notify_waiters();
    }

    /// Whether more than the limit is queued.
    pub(crate) fn over(&self) -> bool {
        self.bytes.load(Ordering::Relaxed) > self.limit
    }

    /// Wait until at most the limit is queued.
    pub(crate) async fn settled(&self) {
        loop {
            let drained = self.drained.notified();
            if !self.over() {
                return;
            }
            drained.await;
        }
    }

    /// Whether a notification must be dropped now.
    fn sheds(&self) -> bool {
        let over = self.over();
        if over != self.shedding.swap(over, Ordering::Relaxed) && over {
            tracing::warn!(
                limit = self.limit,
                "a client is not reading its messages: dropping notifications to it until it catches up"
            );
        }
        over
    }
}

/// The receiving end of a counted queue: what it hands out no longer
/// counts against the queue's [`Backlog`].
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) struct Drain<T> {
    rx: mpsc::UnboundedReceiver<T>,
    backlog: Arc<Backlog>,
}

/// The size a queued item counts for.
#[cfg(feature = "http")]
pub(crate) trait Weighed {
    fn weight(&self) -> usize;
}

#[cfg(feature = "http")]
impl Weighed for Vec<u8> {
    fn weight(&self) -> usize {
        self.len()
    }
}

#[cfg(feature = "http")]
impl<N> Weighed for (N, Vec<u8>) {
    fn weight(&self) -> usize {
        self.1.len()
    }
}

#[cfg(feature = "http")]
impl<T: Weighed> Drain<T> {
    /// A queue of items counted against `backlog` until taken.
    pub(crate) fn channel(backlog: Arc<Backlog>) -> (mpsc::UnboundedSender<T>, Drain<T>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (tx, Drain { rx, backlog })
    }

    #[cfg(test)]
    pub(crate) fn try_recv(&mut self) -> Result<T, mpsc::error::TryRecvError> {
        let item = self.rx.try_recv()?;
        self.backlog.written(item.weight());
        Ok(item)
    }

    /// Whether nothing is queued now.
    pub(crate) fn is_empty(&self) -> bool {
        self.rx.is_empty()
    }

    pub(crate) async fn recv(&mut self) -> Option<T> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    pub(crate) fn poll_recv(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<T>> {
        self.rx.poll_recv(cx).map(|item| {
            if let Some(item) = &item {
                self.backlog.written(item.weight());
            }
            item
        })
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

    /// A new queue holding at most `limit` bytes of notifications, and
    /// its receiving end.
    #[cfg(feature = "http")]
    pub(crate) fn bounded(limit: usize) -> (Outgoing, Drain<Vec<u8>>) {
        let backlog = Backlog::new(limit);
        let (tx, drain) = Drain::channel(backlog.clone());
        (Outgoing::counted(tx, backlog), drain)
    }

    /// This queue as a stream the client can reconnect to.
    #[cfg(feature = "http")]
    pub(crate) fn resumable(self) -> Outgoing {
        Outgoing { resumable: true, ..self }
    }

    /// End the connection the stream is read on, after what was sent
    /// before, if the client can reconnect; `false` if it cannot (stdio,
    /// plain JSON, stateless HTTP).
    pub(crate) fn close_connection(&self) -> bool {
        self.resumable && self.push(CLOSE_CONNECTION.to_vec())
    }

    /// This queue as one to a client that reads only the answer, so a
    /// request to it would never be seen.
    #[cfg(feature = "http")]
    pub(crate) fn answer_only(self) -> Outgoing {
        Outgoing { requests: false, resumable: false, ..self }
    }

    /// Whether a request to the client can be sent this way.
    pub(crate) fn carries_requests(&self) -> bool {
        self.requests
    }

    /// A queue whose messages go nowhere (for requests that send none).
    #[cfg(feature = "http")]
    pub(crate) fn nowhere() -> Outgoing {
        // One closed channel for all of them: a clone costs a count, where
        // a channel of its own cost two allocations per request.
        static NOWHERE: std::sync::OnceLock<mpsc::UnboundedSender<Vec<u8>>> = std::sync::OnceLock::new();
        Outgoing::new(NOWHERE.get_or_init(|| mpsc::unbounded_channel().0).clone()).answer_only()
    }

    /// Send a notification; a closed connection drops it, and so does a
    /// client with more than its limit left unread (a notification is
    /// informative, so a slow reader loses some rather than growing the
    /// server without bound).
    pub(crate) fn notify(&self, method: &str, params: &impl Serialize) {
        if self.backlog.as_ref().is_some_and(|b| b.sheds()) {
            return;
        }
        self.send(&Note { jsonrpc: "2.0", method, params });
    }

    /// Queue a message that is already serialized, as [`notify`](Self::notify)
    /// would; `false` if the client is gone.
    #[cfg(feature = "http")]
    pub(crate) fn relay(&self, bytes: Vec<u8>) -> bool {
        if self.backlog.as_ref().is_some_and(|b| b.sheds()) {
            return !self.is_closed();
        }
        self.push(bytes)
    }

    /// Queue one message; a closed queue (the client is gone) drops it.
    pub(crate) fn send(&self, message: &impl Serialize) {
        match serde_json::to_vec(message) {
            Ok(bytes) => {
                self.push(bytes);
            }
            Err(e) => tracing::error!(error = %e, "a message could not be serialized"),
        }
    }

    /// Queue bytes, counted in the backlog; `false` if the client is gone.
    fn push(&self, bytes: Vec<u8>) -> bool {
        // Counted before it is sent: the reader may take it (and uncount
        // it) before `send` returns.
        let size = bytes.len();
        if let Some(backlog) = &self.backlog {
            backlog.queued(size);
        }
        let sent = self.tx.send(bytes).is_ok();
        if !sent && let Some(backlog) = &self.backlog {
            backlog.written(size);
        }
        sent
    }

    /// Queue the end-of-stream marker.
    pub(crate) fn end(&self) {
        let _ = self.tx.send(Vec::new());
    }

    /// Whether the client end is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[test]
    fn past_its_limit_a_queue_drops_notifications_but_never_answers() {
        let (queue, mut drain) = Outgoing::bounded(200);
        let pad = "x".repeat(60);
        for n in 0..5 {
            queue.notify("notifications/message", &serde_json::json!({ "n": n, "pad": pad }));
        }
        queue.send(&serde_json::json!({ "jsonrpc": "2.0", "id": 1, "result": {} }));
        let mut taken = Vec::new();
        while let Ok(message) = drain.try_recv() {
            taken.push(serde_json::from_slice::<serde_json::Value>(&message).unwrap());
        }
        // Each is about 130 bytes: the first two go (the second takes the
        // queue past 200 bytes);
        // the rest are dropped, and the answer still goes.
        assert_eq!(taken.len(), 3, "{taken:?}");
        assert_eq!(taken[2]["id"], 1);
        // Once the reader caught up, notifications flow again.
        queue.notify("notifications/message", &serde_json::json!({ "n": 9 }));
        assert_eq!(serde_json::from_slice::<serde_json::Value>(&drain.try_recv().unwrap()).unwrap()["params"]["n"], 9);
        assert!(!queue.backlog.as_ref().unwrap().over());
    }
}
