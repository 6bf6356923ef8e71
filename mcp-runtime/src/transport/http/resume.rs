//! Resumable call streams (2025-03-26 to 2025-11-25 sessions): each event
//! of a call's event stream has an id and is kept in an [`EventStore`], so
//! a client whose connection dropped (or that the server asked to poll,
//! SEP-1699) reconnects with `GET` and `Last-Event-ID` and receives what
//! it missed, then the rest as it comes: no progress, log message or
//! result is lost, and the call is not cancelled by the drop.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc;

use crate::dispatch::outgoing::{Backlog, Drain};

/// Where the events of resumable streams are kept for replay. The
/// in-memory default ([`MemoryEventStore`]) serves one process; replicas
/// behind a load balancer share one of their own.
///
/// A stream is named by an opaque key that includes its session, so a
/// client can only replay its own session's streams.
pub trait EventStore: Send + Sync + 'static {
    /// Keep `message` as the next event of `stream`; returns its number
    /// (1 for a stream's first event, then 2, 3, …).
    fn append(&self, stream: &str, message: Vec<u8>) -> u64;

    /// The events of `stream` after number `after`, in order; `None` if
    /// the store no longer has all of them (evicted, or never seen), so a
    /// client is never handed a stream with a hole in it.
    fn replay(&self, stream: &str, after: u64) -> Option<Vec<(u64, Vec<u8>)>>;

    /// Forget every stream whose key starts with `prefix` (a session that
    /// ended).
    fn forget(&self, prefix: &str);

    /// Forget one stream that no client can resume (its call was answered
    /// as plain JSON, with no event ids). Keeping it would only cost
    /// memory; a store that does not implement this keeps it until it is
    /// evicted or its session ends.
    fn remove(&self, stream: &str) {
        let _ = stream;
    }
}

/// What a stream costs the memory store beyond its messages: its key (in
/// the map and in the eviction order) and the bookkeeping around it. With
/// small messages this is most of the memory, so the bound counts it.
fn stream_cost(key: &str) -> usize {
    2 * key.len() + 160
}

/// What each event costs beyond its bytes (its number, its buffer's
/// header, its queue slot).
const EVENT_COST: usize = 40;

/// The default [`EventStore`]: events in memory, at most `max_bytes` in all
/// (4 MiB unless set with [`HttpOptions::event_store`](super::HttpOptions::event_store));
/// past that the oldest streams are dropped first.
#[derive(Debug)]
pub struct MemoryEventStore {
    max_bytes: usize,
    inner: Mutex<Memory>,
}

#[derive(Debug, Default)]
struct Memory {
    streams: HashMap<String, Events>,
    /// Stream keys, oldest first, for eviction.
    order: VecDeque<String>,
    bytes: usize,
}

#[derive(Debug, Default)]
struct Events {
    /// The next event's number.
    next: u64,
    kept: VecDeque<(u64, Vec<u8>)>,
}

impl MemoryEventStore {
    /// A store holding at most `max_bytes` of events.
    pub fn new(max_bytes: usize) -> Self {
        MemoryEventStore { max_bytes, inner: Mutex::default() }
    }

    fn inner(&self) -> MutexGuard<'_, Memory> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        MemoryEventStore::new(4 * 1024 * 1024)
    }
}

impl EventStore for MemoryEventStore {
    fn append(&self, stream: &str, message: Vec<u8>) -> u64 {
        let mut memory = self.inner();
        let memory = &mut *memory;
        if !memory.streams.contains_key(stream) {
            memory.order.push_back(stream.to_owned());
            memory.bytes += stream_cost(stream);
        }
        let events = memory.streams.entry(stream.to_owned()).or_insert_with(|| Events { next: 1, ..Events::default() });
        let number = events.next;
        events.next += 1;
        memory.bytes += message.len() + EVENT_COST;
        events.kept.push_back((number, message));
        // Over the bound: drop whole streams, oldest first, then the
        // oldest events of this one.
        while memory.bytes > self.max_bytes {
            let oldest = memory.order.front().cloned();
            match oldest {
                Some(key) if key != stream => {
                    memory.order.pop_front();
                    memory.bytes -= memory.streams.remove(&key).map_or(0, |gone| gone.cost(&key));
                }
                _ => {
                    let Some(events) = memory.streams.get_mut(stream) else { break };
                    let Some((_, dropped)) = events.kept.pop_front() else { break };
                    memory.bytes -= dropped.len() + EVENT_COST;
                }
            }
        }
        number
    }

    fn replay(&self, stream: &str, after: u64) -> Option<Vec<(u64, Vec<u8>)>> {
        let memory = self.inner();
        let events = memory.streams.get(stream)?;
        // Every event after `after` must still be here.
        let first_kept = events.kept.front().map_or(events.next, |(n, _)| *n);
        if first_kept > after + 1 {
            return None;
        }
        Some(events.kept.iter().filter(|(n, _)| *n > after).cloned().collect())
    }

    fn forget(&self, prefix: &str) {
        let mut memory = self.inner();
        let memory = &mut *memory;
        let gone: Vec<String> = memory.streams.keys().filter(|k| k.starts_with(prefix)).cloned().collect();
        for key in gone {
            memory.bytes -= memory.streams.remove(&key).map_or(0, |events| events.cost(&key));
        }
        memory.order.retain(|k| memory.streams.contains_key(k));
    }

    fn remove(&self, stream: &str) {
        let mut memory = self.inner();
        let memory = &mut *memory;
        if let Some(events) = memory.streams.remove(stream) {
            memory.bytes -= events.cost(stream);
            memory.order.retain(|k| k != stream);
        }
    }
}

impl Events {
    /// What this stream, named `key`, counts for in the store's bound.
    fn cost(&self, key: &str) -> usize {
        stream_cost(key) + self.kept.iter().map(|(_, m)| m.len() + EVENT_COST).sum::<usize>()
    }
}

/// An event for a stream's reader: its number and bytes; an empty message
/// ends the stream (the call's answer was the event before).
pub(crate) type Numbered = (u64, Vec<u8>);

/// One call's resumable stream: its messages are numbered and kept, and
/// handed to whichever connection reads it now.
pub(crate) struct Hub {
    key: String,
    store: Arc<dyn EventStore>,
    /// The most bytes the reader may leave unread: past it the reader's
    /// connection is ended, and the client resumes from the store.
    limit: usize,
    live: Mutex<Live>,
}

#[derive(Default)]
struct Live {
    reader: Option<(mpsc::UnboundedSender<Numbered>, Arc<Backlog>)>,
    /// The number of the last event kept.
    last: u64,
    finished: bool,
}

impl Hub {
    pub(crate) fn new(key: String, store: Arc<dyn EventStore>, limit: usize) -> Arc<Hub> {
        Arc::new(Hub { key, store, limit, live: Mutex::default() })
    }

    fn live(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keep a message of the call and hand it to the reader; an empty one
    /// is the end of the call.
    pub(crate) fn push(&self, message: Vec<u8>) {
        let mut live = self.live();
        if message.is_empty() {
            live.finished = true;
            if let Some((reader, _)) = live.reader.take() {
                let _ = reader.send((0, Vec::new()));
            }
            return;
        }
        let number = self.store.append(&self.key, message.clone());
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
        let size = message.len();
        backlog.queued(size);
        if reader.send((number, message)).is_err() {
            backlog.written(size);
            live.reader = None;
        }
    }

    /// Read the stream from after event `after`: what the store kept, then
    /// the rest live (a reader before replaces it). `None` if the store no
    /// longer has every event after `after`.
    pub(crate) fn read(&self, after: u64) -> Option<Drain<Numbered>> {
        let mut live = self.live();
        let backlog = Backlog::new(self.limit);
        let (tx, rx) = Drain::channel(backlog.clone());
        let missed = if after >= live.last { Vec::new() } else { self.store.replay(&self.key, after)? };
        for event in missed {
            backlog.queued(event.1.len());
            let _ = tx.send(event);
        }
        if live.finished {
            let _ = tx.send((0, Vec::new()));
        } else {
            live.reader = Some((tx, backlog));
        }
        Some(rx)
    }

    /// End the current reader's connection (SEP-1699 polling); the call
    /// goes on and a reconnecting client reads on.
    fn close_reader(&self) {
        self.live().reader = None;
    }

    /// Take one message of the call: the end of the call (empty), a
    /// request to end the reader's connection
    /// ([`CLOSE_CONNECTION`](crate::dispatch::outgoing::CLOSE_CONNECTION)),
    /// or a message to keep and pass on.
    pub(crate) fn take(&self, message: Vec<u8>) {
        if message == crate::dispatch::outgoing::CLOSE_CONNECTION {
            self.close_reader();
        } else {
            self.push(message);
        }
    }

    pub(crate) fn finished(&self) -> bool {
        self.live().finished
    }

    /// Drop the stream's events from the store: no client can resume it.
    pub(crate) fn forget(&self) {
        self.store.remove(&self.key);
    }
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

    #[test]
    fn events_replay_after_an_id_and_a_hole_is_never_handed_out() {
        // Room for the stream and two of its 4-byte events.
        let store = MemoryEventStore::new(stream_cost("s/1") + 2 * (4 + EVENT_COST));
        for message in [b"aaaa".to_vec(), b"bbbb".to_vec()] {
            store.append("s/1", message);
        }
        assert_eq!(store.replay("s/1", 1), Some(vec![(2, b"bbbb".to_vec())]));
        assert_eq!(store.replay("s/1", 0).map(|e| e.len()), Some(2));
        // A third event does not fit: event 1 goes, so a replay from before
        // it is refused.
        store.append("s/1", b"cccc".to_vec());
        assert_eq!(store.replay("s/1", 0), None);
        assert_eq!(store.replay("s/1", 1).map(|e| e.len()), Some(2));
        assert_eq!(store.replay("other", 0), None);
    }

    #[test]
    fn the_oldest_streams_go_first_and_sessions_are_forgotten_whole() {
        // Room for two streams of one 4-byte event each.
        let store = MemoryEventStore::new(2 * (stream_cost("a/1") + 4 + EVENT_COST));
        store.append("a/1", b"1234".to_vec());
        store.append("b/1", b"1234".to_vec());
        store.append("b/2", b"1234".to_vec());
        assert_eq!(store.replay("a/1", 0), None, "the oldest stream made room");
        assert!(store.replay("b/1", 0).is_some() && store.replay("b/2", 0).is_some());
        store.forget("b/");
        assert_eq!(store.replay("b/2", 0), None);
        assert_eq!(store.inner().bytes, 0);
    }

    #[test]
    fn a_hub_hands_its_events_to_one_reader_and_a_new_reader_replays() {
        let hub = Hub::new("s/1".into(), Arc::new(MemoryEventStore::default()), 1 << 20);
        let mut first = hub.read(0).unwrap();
        hub.push(b"progress".to_vec());
        assert_eq!(first.try_recv().unwrap(), (1, b"progress".to_vec()));
        hub.take(crate::dispatch::outgoing::CLOSE_CONNECTION.to_vec());
        hub.push(b"log".to_vec());
        hub.push(b"answer".to_vec());
        hub.push(Vec::new());
        assert!(first.try_recv().is_err(), "the closed reader gets nothing more");
        let mut again = hub.read(1).unwrap();
        let replayed: Vec<u64> = std::iter::from_fn(|| again.try_recv().ok()).map(|(n, _)| n).collect();
        assert_eq!(replayed, [2, 3, 0], "missed events, then the end");
        assert!(hub.finished());
        assert_eq!(parse_event_id(&event_id(7, 3)), Some((7, 3)));
        assert_eq!(parse_event_id("x.1"), None);
    }
}
