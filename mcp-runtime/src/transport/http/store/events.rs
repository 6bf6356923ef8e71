//! The events of resumable call streams: kept so a client that lost its
//! connection (or reconnects to another replica) replays what it missed.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use super::{StoreFuture, ready};

/// A kept event: its number in its stream, and its message.
pub type KeptEvent = (u64, Vec<u8>);

/// Where the events of resumable streams are kept for replay. The
/// in-memory default ([`MemoryEventStore`]) serves one process; replicas
/// behind a load balancer share one (such as `RedisStore`, with the `redis`
/// feature), so a client that reconnects to another replica replays there.
///
/// A stream is named by an opaque key that starts with its session's id
/// and a `/`, so a client can only replay its own session's streams. Its
/// events are numbered from 1, kept in order by the one replica that runs
/// the stream's call; the last is an empty message when the call ended.
pub trait EventStore: Send + Sync + 'static {
    /// Keep `message` as event `number` of `stream` (an empty message: the
    /// stream ended after event `number - 1`).
    fn keep<'a>(&'a self, stream: &'a str, number: u64, message: &'a [u8]) -> StoreFuture<'a, ()>;

    /// The events of `stream` after number `after`, in order; `None` if
    /// the store no longer has all of them (evicted, expired, or never
    /// seen), so a client is never handed a stream with a hole in it.
    fn replay<'a>(&'a self, stream: &'a str, after: u64) -> StoreFuture<'a, Option<Vec<KeptEvent>>>;

    /// Forget every stream whose key starts with `prefix` (a session that
    /// ended).
    fn forget<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, ()>;

    /// Forget one stream that no client can resume (its call was answered
    /// as plain JSON, with no event ids). Keeping it would only cost
    /// memory; a store that does not implement this keeps it until it is
    /// evicted or its session ends.
    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()> {
        let _ = stream;
        ready(())
    }
}

/// What a stream costs the memory store beyond its messages: its key (in
/// the map and in the eviction order) and the bookkeeping around it. With
/// small messages this is most of the memory, so the bound counts it.
pub(crate) fn stream_cost(key: &str) -> usize {
    2 * key.len() + 160
}

/// What each event costs beyond its bytes (its number, its buffer's
/// header, its queue slot).
pub(crate) const EVENT_COST: usize = 40;

/// The default [`EventStore`]: events in memory, at most `max_bytes` in all
/// (4 MiB unless set with [`HttpOptions::event_store`](crate::transport::HttpOptions::event_store));
/// past that the oldest streams are dropped first.
#[derive(Debug)]
pub struct MemoryEventStore {
    max_bytes: usize,
    inner: Mutex<Memory>,
}

#[derive(Debug, Default)]
pub(crate) struct Memory {
    streams: HashMap<String, Events>,
    /// Stream keys, oldest first, for eviction.
    order: VecDeque<String>,
    pub(crate) bytes: usize,
}

#[derive(Debug, Default)]
struct Events {
    /// The number of the last event dropped to make room (0: none).
    dropped_through: u64,
    kept: VecDeque<(u64, Vec<u8>)>,
}

impl MemoryEventStore {
    /// A store holding at most `max_bytes` of events.
    pub fn new(max_bytes: usize) -> Self {
        MemoryEventStore { max_bytes, inner: Mutex::default() }
    }

    pub(crate) fn inner(&self) -> MutexGuard<'_, Memory> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn keep_now(&self, stream: &str, number: u64, message: &[u8]) {
        let mut memory = self.inner();
        let memory = &mut *memory;
        if !memory.streams.contains_key(stream) {
            memory.order.push_back(stream.to_owned());
            memory.bytes += stream_cost(stream);
        }
        let events = memory.streams.entry(stream.to_owned()).or_default();
        memory.bytes += message.len() + EVENT_COST;
        events.kept.push_back((number, message.to_vec()));
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
                    let Some((dropped, message)) = events.kept.pop_front() else { break };
                    events.dropped_through = dropped;
                    memory.bytes -= message.len() + EVENT_COST;
                }
            }
        }
    }

    fn replay_now(&self, stream: &str, after: u64) -> Option<Vec<(u64, Vec<u8>)>> {
        let memory = self.inner();
        let events = memory.streams.get(stream)?;
        // Every event after `after` must still be here.
        if events.dropped_through > after {
            return None;
        }
        Some(events.kept.iter().filter(|(n, _)| *n > after).cloned().collect())
    }

    fn forget_now(&self, prefix: &str) {
        let mut memory = self.inner();
        let memory = &mut *memory;
        let gone: Vec<String> = memory.streams.keys().filter(|k| k.starts_with(prefix)).cloned().collect();
        for key in gone {
            memory.bytes -= memory.streams.remove(&key).map_or(0, |events| events.cost(&key));
        }
        memory.order.retain(|k| memory.streams.contains_key(k));
    }

    fn remove_now(&self, stream: &str) {
        let mut memory = self.inner();
        let memory = &mut *memory;
        if let Some(events) = memory.streams.remove(stream) {
            memory.bytes -= events.cost(stream);
            memory.order.retain(|k| k != stream);
        }
    }
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        MemoryEventStore::new(4 * 1024 * 1024)
    }
}

impl EventStore for MemoryEventStore {
    fn keep<'a>(&'a self, stream: &'a str, number: u64, message: &'a [u8]) -> StoreFuture<'a, ()> {
        self.keep_now(stream, number, message);
        ready(())
    }

    fn replay<'a>(&'a self, stream: &'a str, after: u64) -> StoreFuture<'a, Option<Vec<KeptEvent>>> {
        ready(self.replay_now(stream, after))
    }

    fn forget<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, ()> {
        self.forget_now(prefix);
        ready(())
    }

    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()> {
        self.remove_now(stream);
        ready(())
    }
}

impl Events {
    /// What this stream, named `key`, counts for in the store's bound.
    fn cost(&self, key: &str) -> usize {
        stream_cost(key) + self.kept.iter().map(|(_, m)| m.len() + EVENT_COST).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_replay_after_an_id_and_a_hole_is_never_handed_out() {
        // Room for the stream and two of its 4-byte events.
        let store = MemoryEventStore::new(stream_cost("s/1") + 2 * (4 + EVENT_COST));
        store.keep_now("s/1", 1, b"aaaa");
        store.keep_now("s/1", 2, b"bbbb");
        assert_eq!(store.replay_now("s/1", 1), Some(vec![(2, b"bbbb".to_vec())]));
        assert_eq!(store.replay_now("s/1", 0).map(|e| e.len()), Some(2));
        // A third event does not fit: event 1 goes, so a replay from before
        // it is refused.
        store.keep_now("s/1", 3, b"cccc");
        assert_eq!(store.replay_now("s/1", 0), None);
        assert_eq!(store.replay_now("s/1", 1).map(|e| e.len()), Some(2));
        assert_eq!(store.replay_now("other", 0), None);
    }

    #[test]
    fn the_oldest_streams_go_first_and_sessions_are_forgotten_whole() {
        // Room for two streams of one 4-byte event each.
        let store = MemoryEventStore::new(2 * (stream_cost("a/1") + 4 + EVENT_COST));
        store.keep_now("a/1", 1, b"1234");
        store.keep_now("b/1", 1, b"1234");
        store.keep_now("b/2", 1, b"1234");
        assert_eq!(store.replay_now("a/1", 0), None, "the oldest stream made room");
        assert!(store.replay_now("b/1", 0).is_some() && store.replay_now("b/2", 0).is_some());
        store.forget_now("b/");
        assert_eq!(store.replay_now("b/2", 0), None);
        assert_eq!(store.inner().bytes, 0);
    }
}
