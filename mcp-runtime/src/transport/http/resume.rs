//! Resumable call streams (2025-03-26 to 2025-11-25 sessions): each event
//! of a call's event stream has an id and is kept in an [`EventStore`], so
//! a client whose connection dropped (or that the server asked to poll,
//! SEP-1699) reconnects with `GET` and `Last-Event-ID` and receives what
//! it missed, then the rest as it comes: no progress, log message or
//! result is lost, and the call is not cancelled by the drop. A client that
//! reconnects to another replica replays from the shared store there.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{Mutex, mpsc};

use super::store::EventStore;
use crate::dispatch::frame::Frame;
use crate::dispatch::outgoing::{Backlog, Drain};

/// An event for a stream's reader: its number and frame; [`Frame::End`]
/// ends the stream (the call's answer was the event before).
pub(crate) type Numbered = (u64, Frame);

/// How a frame is kept in the [`EventStore`], whose events are opaque
/// bytes: a message as it is, the end as an empty event. (A replayed
/// message is only ever written to the client, so what kind it was need
/// not be kept.)
fn stored(frame: &Frame) -> &[u8] {
    frame.bytes().unwrap_or_default()
}

/// A kept event as a frame again.
fn from_store(bytes: Vec<u8>) -> Frame {
    if bytes.is_empty() { Frame::End } else { Frame::Message(bytes) }
}

/// One call's resumable stream: its messages are numbered and kept, and
/// handed to whichever connection reads it now.
pub(crate) struct Hub {
    key: String,
    store: Arc<dyn EventStore>,
    /// The most bytes the reader may leave unread: past it the reader's
    /// connection is ended, and the client resumes from the store.
    limit: usize,
    /// Held while an event is kept, so a reader that replays from the
    /// store and then reads live misses nothing in between.
    live: Mutex<Live>,
    finished: AtomicBool,
}

struct Live {
    reader: Option<(mpsc::UnboundedSender<Numbered>, Arc<Backlog>)>,
    /// The number of the last event.
    last: u64,
    /// The events not yet in the store: a new stream keeps them here until
    /// it is known to be an event stream ([`persist`](Hub::persist)); one
    /// answered as plain JSON never costs the store anything.
    pending: Option<Vec<Numbered>>,
}

impl Hub {
    pub(crate) fn new(key: String, store: Arc<dyn EventStore>, limit: usize) -> Arc<Hub> {
        let live = Live { reader: None, last: 0, pending: Some(Vec::new()) };
        Arc::new(Hub { key, store, limit, live: Mutex::new(live), finished: AtomicBool::new(false) })
    }

    /// Keep a message of the call and hand it to the reader, or end the
    /// call with [`Frame::End`].
    async fn push(&self, frame: Frame) {
        let mut live = self.live.lock().await;
        let number = live.last + 1;
        match &mut live.pending {
            Some(pending) => pending.push((number, frame.clone())),
            // Kept before it is handed on: an event a client saw is one it
            // can resume after, on any replica.
            None => self.keep(number, &frame).await,
        }
        if frame == Frame::End {
            self.finished.store(true, Ordering::Release);
            if let Some((reader, _)) = live.reader.take() {
                let _ = reader.send((0, Frame::End));
            }
            return;
        }
        live.last = number;
        let Some((reader, backlog)) = &live.reader else { return };
        if backlog.over() {
            // A reader this far behind is better off resuming: what it
            // missed is in the store (or, if the store let it go, the
            // client is told so), not in memory here.
            tracing::debug!(stream = %self.key, "a call stream's reader fell behind; ending its connection");
            live.reader = None;
            return;
        }
        let size = frame.size();
        backlog.queued(size);
        if reader.send((number, frame)).is_err() {
            backlog.written(size);
            live.reader = None;
        }
    }

    async fn keep(&self, number: u64, frame: &Frame) {
        if let Err(error) = self.store.keep(&self.key, number, stored(frame)).await {
            tracing::warn!(stream = %self.key, %error, "the event store did not keep an event; a reconnect cannot replay it");
        }
    }

    /// The stream is an event stream with ids a client may resume after:
    /// keep what came so far in the store, and from now on each event as
    /// it comes.
    pub(crate) async fn persist(&self) {
        let mut live = self.live.lock().await;
        for (number, frame) in live.pending.take().unwrap_or_default() {
            self.keep(number, &frame).await;
        }
    }

    /// Read the stream from after event `after`: what the store kept, then
    /// the rest live (a reader before replaces it). `None` if the store no
    /// longer has every event after `after`.
    pub(crate) async fn read(&self, after: u64) -> Option<Drain<Numbered>> {
        let mut live = self.live.lock().await;
        let backlog = Backlog::new(self.limit);
        let (tx, rx) = Drain::channel(backlog.clone());
        if after < live.last {
            let missed = match &live.pending {
                Some(pending) => pending.iter().filter(|(n, _)| *n > after).cloned().collect(),
                None => replay(&*self.store, &self.key, after).await?,
            };
            for event in missed.into_iter().filter(|e| e.1 != Frame::End) {
                backlog.queued(event.1.size());
                let _ = tx.send(event);
            }
        }
        if self.finished() {
            let _ = tx.send((0, Frame::End));
        } else {
            live.reader = Some((tx, backlog));
        }
        Some(rx)
    }

    /// Take one frame of the call: a message to keep and pass on, the end
    /// of the call, or a request to end the reader's connection.
    pub(crate) async fn take(&self, frame: Frame) {
        if frame == Frame::CloseConnection {
            // SEP-1699 polling: the call goes on and a reconnecting client
            // reads on.
            self.live.lock().await.reader = None;
        } else {
            self.push(frame).await;
        }
    }

    pub(crate) fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// Drop the stream's events: no client can resume it.
    pub(crate) async fn forget(&self) {
        if self.live.lock().await.pending.take().is_some() {
            return;
        }
        if let Err(error) = self.store.remove(&self.key).await {
            tracing::debug!(stream = %self.key, %error, "the event store did not forget a stream");
        }
    }
}

/// The store's events of `key` after `after`; `None` (and a log line) if
/// it has not kept them all or cannot be reached.
async fn replay(store: &dyn EventStore, key: &str, after: u64) -> Option<Vec<Numbered>> {
    match store.replay(key, after).await {
        Ok(events) => events.map(|events| events.into_iter().map(|(n, bytes)| (n, from_store(bytes))).collect()),
        Err(error) => {
            tracing::warn!(stream = %key, %error, "the event store could not replay a stream");
            None
        }
    }
}

/// Replay a stream this replica does not run (its session came from
/// another replica, which ran the call): what the store kept after
/// `after`, then the end of the connection. `None` if there is nothing
/// new and the call's end was never kept: it was lost with its replica (or
/// still runs there, where the load balancer should have sent the client).
pub(crate) async fn replay_kept(store: &dyn EventStore, key: &str, after: u64) -> Option<Drain<Numbered>> {
    let events = replay(store, key, after).await?;
    if events.is_empty() {
        return None;
    }
    let (tx, rx) = Drain::channel(Backlog::new(usize::MAX));
    for event in events.into_iter().filter(|e| e.1 != Frame::End) {
        let _ = tx.send(event);
    }
    let _ = tx.send((0, Frame::End));
    Some(rx)
}

/// A stream's event id on the wire: `<stream>.<event>`; event 0 is the
/// priming event that opens a stream.
pub(crate) fn event_id(stream: u64, event: u64) -> String {
    format!("{stream}.{event}")
}

/// The stream and event a `Last-Event-ID` names.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, event) = id.trim().split_once('.')?;
    Some((stream.parse().ok()?, event.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::http::store::MemoryEventStore;

    fn message(bytes: &[u8]) -> Frame {
        Frame::Message(bytes.to_vec())
    }

    fn answer(bytes: &[u8]) -> Frame {
        Frame::Answer { bytes: bytes.to_vec(), error: None }
    }

    #[tokio::test]
    async fn a_stream_answered_as_json_never_reaches_the_store() {
        let store: Arc<dyn EventStore> = Arc::new(MemoryEventStore::default());
        let hub = Hub::new("s/1".into(), store.clone(), 1 << 20);
        let mut reader = hub.read(0).await.unwrap();
        hub.take(answer(b"answer")).await;
        hub.take(Frame::End).await;
        assert_eq!(reader.try_recv().unwrap(), (1, answer(b"answer")));
        let mut again = hub.read(0).await.unwrap();
        assert_eq!(again.try_recv().unwrap(), (1, answer(b"answer")), "read again from memory");
        hub.forget().await;
        assert!(replay_kept(&*store, "s/1", 0).await.is_none());
    }

    #[tokio::test]
    async fn a_hub_hands_its_events_to_one_reader_and_a_new_reader_replays() {
        let store: Arc<dyn EventStore> = Arc::new(MemoryEventStore::default());
        let hub = Hub::new("s/1".into(), store.clone(), 1 << 20);
        let mut first = hub.read(0).await.unwrap();
        hub.take(message(b"progress")).await;
        assert_eq!(first.try_recv().unwrap(), (1, message(b"progress")));
        assert!(replay_kept(&*store, "s/1", 0).await.is_none(), "nothing in the store before it is an event stream");
        hub.persist().await;
        hub.take(Frame::CloseConnection).await;
        hub.take(message(b"log")).await;
        hub.take(answer(b"answer")).await;
        hub.take(Frame::End).await;
        assert!(first.try_recv().is_err(), "the closed reader gets nothing more");
        let mut again = hub.read(1).await.unwrap();
        let replayed: Vec<u64> = std::iter::from_fn(|| again.try_recv().ok()).map(|(n, _)| n).collect();
        assert_eq!(replayed, [2, 3, 0], "missed events, then the end");
        assert!(hub.finished());
        // Another replica, from the store alone: the same, and nothing
        // once the client has seen the answer.
        let mut elsewhere = replay_kept(&*store, "s/1", 1).await.unwrap();
        let replayed: Vec<Numbered> = std::iter::from_fn(|| elsewhere.try_recv().ok()).collect();
        assert_eq!(replayed, [(2, message(b"log")), (3, message(b"answer")), (0, Frame::End)]);
        let mut after_answer = replay_kept(&*store, "s/1", 3).await.unwrap();
        assert_eq!(after_answer.try_recv().unwrap(), (0, Frame::End), "only the end");
        assert!(replay_kept(&*store, "s/2", 0).await.is_none(), "an unknown stream is gone");
        assert_eq!(parse_event_id(&event_id(7, 3)), Some((7, 3)));
        assert_eq!(parse_event_id("x.1"), None);
    }
}
