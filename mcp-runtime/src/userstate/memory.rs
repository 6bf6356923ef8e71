//! [`MemoryUserStore`]: per-user state in this process, each owner's slots
//! with their deadlines and byte counts, the store's total kept exact.
//! Expired slots are dropped when their owner is next touched, and all of
//! them when the store would otherwise be full.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use super::{StateError, StateLimits, UserStateBackend};
use crate::tools::BoxFuture;

/// Per-user state in this process's memory (lost when it exits).
#[derive(Debug, Default)]
pub struct MemoryUserStore {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    owners: HashMap<String, Owner>,
    total: usize,
}

#[derive(Debug, Default)]
struct Owner {
    slots: HashMap<String, Slot>,
    bytes: usize,
}

#[derive(Debug)]
struct Slot {
    value: Vec<u8>,
    expires: Instant,
}

/// What one slot counts against its bounds: its name and its value.
fn cost(name: &str, value: &[u8]) -> usize {
    name.len() + value.len()
}

impl Owner {
    /// Drop the expired slots; the bytes freed.
    fn expire(&mut self, now: Instant) -> usize {
        let before = self.bytes;
        self.slots.retain(|name, slot| {
            let live = slot.expires > now;
            if !live {
                self.bytes -= cost(name, &slot.value);
            }
            live
        });
        before - self.bytes
    }
}

impl Inner {
    fn expire_owner(&mut self, owner: &str, now: Instant) {
        if let Some(entry) = self.owners.get_mut(owner) {
            self.total -= entry.expire(now);
            if entry.slots.is_empty() {
                self.owners.remove(owner);
            }
        }
    }

    fn expire_all(&mut self, now: Instant) {
        for entry in self.owners.values_mut() {
            self.total -= entry.expire(now);
        }
        self.owners.retain(|_, entry| !entry.slots.is_empty());
    }

    fn put(&mut self, owner: &str, name: &str, value: Vec<u8>, limits: &StateLimits) -> Result<(), StateError> {
        let now = Instant::now();
        self.expire_owner(owner, now);
        let new = cost(name, &value);
        let old = self.owners.get(owner).and_then(|o| o.slots.get(name)).map_or(0, |s| cost(name, &s.value));
        let owner_bytes = self.owners.get(owner).map_or(0, |o| o.bytes);
        if owner_bytes - old + new > limits.max_owner_bytes {
            return Err(StateError::OwnerFull { limit: limits.max_owner_bytes });
        }
        if self.total - old + new > limits.max_total_bytes {
            self.expire_all(now);
            if self.total - old + new > limits.max_total_bytes {
                return Err(StateError::StoreFull);
            }
        }
        let entry = self.owners.entry(owner.to_owned()).or_default();
        entry.slots.insert(name.to_owned(), Slot { value, expires: now + limits.ttl });
        entry.bytes = entry.bytes - old + new;
        self.total = self.total - old + new;
        Ok(())
    }
}

impl MemoryUserStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many bytes the store keeps for everyone, expired slots not yet
    /// dropped included.
    pub fn bytes(&self) -> usize {
        self.lock().total
    }
}

impl UserStateBackend for MemoryUserStore {
    fn get<'a>(&'a self, owner: &'a str, name: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>> {
        let mut inner = self.lock();
        inner.expire_owner(owner, Instant::now());
        let value = inner.owners.get(owner).and_then(|o| o.slots.get(name)).map(|s| s.value.clone());
        Box::pin(std::future::ready(Ok(value)))
    }

    fn put<'a>(
        &'a self,
        owner: &'a str,
        name: &'a str,
        value: Vec<u8>,
        limits: &'a StateLimits,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        let result = self.lock().put(owner, name, value, limits);
        Box::pin(std::future::ready(result))
    }

    fn remove<'a>(&'a self, owner: &'a str, name: &'a str) -> BoxFuture<'a, Result<(), StateError>> {
        let mut inner = self.lock();
        if let Some(entry) = inner.owners.get_mut(owner)
            && let Some(slot) = entry.slots.remove(name)
        {
            let freed = cost(name, &slot.value);
            entry.bytes -= freed;
            let empty = entry.slots.is_empty();
            inner.total -= freed;
            if empty {
                inner.owners.remove(owner);
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn limits(value: usize, owner: usize, total: usize, ttl: Duration) -> StateLimits {
        StateLimits { ttl, max_value_bytes: value, max_owner_bytes: owner, max_total_bytes: total }
    }

    #[tokio::test]
    async fn owner_and_total_bounds_refuse_and_replacing_a_value_counts_once() {
        let store = MemoryUserStore::new();
        let l = limits(100, 20, 30, Duration::from_secs(60));
        store.put("a", "n", vec![0; 10], &l).await.unwrap(); // 11 bytes
        store.put("a", "n", vec![0; 19], &l).await.unwrap(); // replaced: 20
        assert_eq!(store.bytes(), 20);
        assert!(matches!(store.put("a", "m", vec![0; 1], &l).await, Err(StateError::OwnerFull { limit: 20 })));
        assert!(matches!(store.put("b", "n", vec![0; 10], &l).await, Err(StateError::StoreFull)));
        store.put("b", "n", vec![0; 9], &l).await.unwrap();
        assert_eq!(store.get("a", "n").await.unwrap().unwrap().len(), 19);
        store.remove("a", "n").await.unwrap();
        assert_eq!(store.bytes(), 10);
        assert_eq!(store.get("a", "n").await.unwrap(), None);
    }

    #[tokio::test]
    async fn an_expired_slot_is_never_read_and_frees_its_bytes() {
        let store = MemoryUserStore::new();
        let short = limits(100, 100, 100, Duration::ZERO);
        store.put("a", "n", vec![1; 50], &short).await.unwrap();
        assert_eq!(store.get("a", "n").await.unwrap(), None);
        assert_eq!(store.bytes(), 0);
        store.put("b", "n", vec![1; 90], &short).await.unwrap();
        // The store is full only of expired state: it is dropped to make room.
        store.put("c", "n", vec![1; 90], &limits(100, 100, 100, Duration::from_secs(60))).await.unwrap();
        assert_eq!(store.bytes(), 91);
    }
}
