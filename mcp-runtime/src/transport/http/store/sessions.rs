//! Handshake sessions kept where every replica finds them, so a session
//! goes on when the load balancer sends its client to another replica
//! (the one it started on was restarted, or is gone).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{StoreFuture, ready};

/// Where handshake sessions are saved for other replicas: what the
/// handshake settled (version, client, capabilities, log level, resource
/// subscriptions, owner) as an opaque record under the session's id. A
/// replica that gets a request for a session it does not have loads it
/// from here and serves it. Without one (the default) a session lives in
/// its replica's memory only, and the load balancer must send each
/// session's requests to the replica that started it.
///
/// What does not move: calls running on the replica that went away, and
/// requests that replica was waiting for the client to answer.
pub trait SessionStore: Send + Sync + 'static {
    /// Keep `record` as session `id` for `ttl` from now, replacing what
    /// was kept before.
    fn save<'a>(&'a self, id: &'a str, record: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()>;

    /// The record of session `id`, unless it ended or expired.
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// Keep session `id` another `ttl` from now: it is in use.
    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, ()>;

    /// Forget session `id`: it ended.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;
}

/// A [`SessionStore`] in this process's memory: for several endpoints in
/// one process (and tests of what replicas do). Expired records are
/// dropped as new ones come; at most `max` are kept, those that expire
/// soonest going first.
#[derive(Debug)]
pub struct MemorySessionStore {
    max: usize,
    records: Mutex<HashMap<String, (Vec<u8>, Instant)>>,
}

impl MemorySessionStore {
    /// A store of at most `max` sessions.
    pub fn new(max: usize) -> Self {
        MemorySessionStore { max, records: Mutex::default() }
    }

    fn records(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Vec<u8>, Instant)>> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for MemorySessionStore {
    /// At most 65,536 sessions.
    fn default() -> Self {
        MemorySessionStore::new(65_536)
    }
}

impl SessionStore for MemorySessionStore {
    fn save<'a>(&'a self, id: &'a str, record: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        let now = Instant::now();
        let mut records = self.records();
        records.retain(|_, (_, until)| *until > now);
        while records.len() >= self.max && !records.contains_key(id) {
            let soonest = records.iter().min_by_key(|(_, (_, until))| *until).map(|(k, _)| k.clone());
            let Some(soonest) = soonest else { break };
            records.remove(&soonest);
        }
        records.insert(id.to_owned(), (record.to_vec(), now + ttl));
        ready(())
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let records = self.records();
        ready(records.get(id).filter(|(_, until)| *until > Instant::now()).map(|(record, _)| record.clone()))
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        if let Some((_, until)) = self.records().get_mut(id) {
            *until = Instant::now() + ttl;
        }
        ready(())
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.records().remove(id);
        ready(())
    }
}
