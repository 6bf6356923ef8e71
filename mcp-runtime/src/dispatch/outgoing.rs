//! The queue of frames to one client (a connection, or one HTTP response
//! stream): answers, notifications and requests, each serialized once as
//! it is queued, and the signals that end a stream or its connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::Serialize;
use tokio::sync::{Notify, mpsc};

use super::frame::Frame;
use super::reply::Answer;

/// Frames to the client of one connection or response stream, ending
/// with [`Frame::End`].
#[derive(Clone, Debug)]
pub(crate) struct Outgoing {
    pub(crate) tx: mpsc::UnboundedSender<Frame>,
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
impl Weighed for Frame {
    fn weight(&self) -> usize {
        self.size()
    }
}

#[cfg(feature = "http")]
impl<N> Weighed for (N, Frame) {
    fn weight(&self) -> usize {
        self.1.size()
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
    pub(crate) fn new(tx: mpsc::UnboundedSender<Frame>) -> Outgoing {
        Outgoing { tx, requests: true, resumable: false, backlog: None }
    }

    /// A queue whose bytes are counted in `backlog` until written.
    pub(crate) fn counted(tx: mpsc::UnboundedSender<Frame>, backlog: Arc<Backlog>) -> Outgoing {
        Outgoing { backlog: Some(backlog), ..Outgoing::new(tx) }
    }

    /// A new queue holding at most `limit` bytes of notifications, and
    /// its receiving end.
    #[cfg(feature = "http")]
    pub(crate) fn bounded(limit: usize) -> (Outgoing, Drain<Frame>) {
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
        self.resumable && self.push(Frame::CloseConnection)
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
        static NOWHERE: std::sync::OnceLock<mpsc::UnboundedSender<Frame>> = std::sync::OnceLock::new();
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
        self.message(&Note { jsonrpc: "2.0", method, params });
    }

    /// Queue a request to the client (never dropped while it is there).
    pub(crate) fn message(&self, message: &impl Serialize) {
        if let Some(bytes) = serialized(message) {
            self.push(Frame::Message(bytes));
        }
    }

    /// Queue the answer to a request of the client.
    pub(crate) fn answer(&self, answer: &Answer) {
        if let Some(bytes) = serialized(answer) {
            self.push(Frame::Answer { bytes, error: answer.error_object().map(|e| e.code) });
        }
    }

    /// Queue a batch's answers, as one message.
    pub(crate) fn answers(&self, answers: &[Answer]) {
        if let Some(bytes) = serialized(&answers) {
            self.push(Frame::Answer { bytes, error: None });
        }
    }

    /// Queue a frame another queue took, as [`notify`](Self::notify)
    /// would; `false` if the client is gone.
    #[cfg(feature = "http")]
    pub(crate) fn relay(&self, frame: Frame) -> bool {
        if self.backlog.as_ref().is_some_and(|b| b.sheds()) {
            return !self.is_closed();
        }
        self.push(frame)
    }

    /// Queue one frame, counted in the backlog; `false` if the client is
    /// gone (the frame is dropped).
    fn push(&self, frame: Frame) -> bool {
        // Counted before it is sent: the reader may take it (and uncount
        // it) before `send` returns.
        let size = frame.size();
        if let Some(backlog) = &self.backlog {
            backlog.queued(size);
        }
        let sent = self.tx.send(frame).is_ok();
        if !sent && let Some(backlog) = &self.backlog {
            backlog.written(size);
        }
        sent
    }

    /// Queue the end of the stream.
    pub(crate) fn end(&self) {
        let _ = self.tx.send(Frame::End);
    }

    /// Whether the client end is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// A message's bytes; `None` (and a log line) if it cannot be serialized.
fn serialized(message: &impl Serialize) -> Option<Vec<u8>> {
    serde_json::to_vec(message).inspect_err(|e| tracing::error!(error = %e, "a message could not be serialized")).ok()
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
        queue.answer(&Answer::from(mcp_core::Response::result(mcp_core::RequestId::Number(1), serde_json::json!({}))));
        let mut taken = Vec::new();
        while let Ok(frame) = drain.try_recv() {
            taken.push(serde_json::from_slice::<serde_json::Value>(frame.bytes().unwrap()).unwrap());
        }
        // Each is about 130 bytes: the first two go (the second takes the
        // queue past 200 bytes);
        // the rest are dropped, and the answer still goes.
        assert_eq!(taken.len(), 3, "{taken:?}");
        assert_eq!(taken[2]["id"], 1);
        // Once the reader caught up, notifications flow again.
        queue.notify("notifications/message", &serde_json::json!({ "n": 9 }));
        let frame = drain.try_recv().unwrap();
        assert_eq!(serde_json::from_slice::<serde_json::Value>(frame.bytes().unwrap()).unwrap()["params"]["n"], 9);
        assert!(!queue.backlog.as_ref().unwrap().over());
    }
}
