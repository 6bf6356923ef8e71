//! Where the OAuth proxy keeps its state: registered clients, sign-in
//! transactions, authorization codes, grants and refresh tokens, each an
//! opaque record under a key with a deadline, behind [`ProxyStore`] so
//! replicas can share them; [`MemoryProxyStore`] is the one-process store.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::super::super::store::{StoreFuture, ready};

/// The proxy's records. Keys start with their kind (`client:`, `tx:`,
/// `code:`, `grant:`, `refresh:`) followed by an unguessable id or the
/// hash of a secret: a store's contents never hold a live code or token.
/// Every record has a time to live and is gone after it. Values are
/// opaque bytes; what is secret in them (upstream tokens) is sealed
/// before it gets here.
pub trait ProxyStore: Send + Sync + 'static {
    /// Keep `value` under `key` for `ttl`, replacing what was there. A
    /// store that is full refuses with an error (the request that needed
    /// it is answered "temporarily unavailable").
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()>;
    /// The value under `key`, if it is there and has not expired.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;
    /// Atomically replace the value under `key` with `value` (keeping its
    /// deadline) and return the old one; `None`, and nothing written, when
    /// there was none. Single-use codes and refresh tokens rest on it: of
    /// two requests presenting one, only one sees it unused.
    fn swap<'a>(&'a self, key: &'a str, value: &'a [u8]) -> StoreFuture<'a, Option<Vec<u8>>>;
    /// Remove `key`, returning what it held.
    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;
}

impl<T: ProxyStore + ?Sized> ProxyStore for std::sync::Arc<T> {
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        (**self).put(key, value, ttl)
    }
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        (**self).get(key)
    }
    fn swap<'a>(&'a self, key: &'a str, value: &'a [u8]) -> StoreFuture<'a, Option<Vec<u8>>> {
        (**self).swap(key, value)
    }
    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        (**self).remove(key)
    }
}

/// The proxy's state in this process: lost at a restart (users sign in
/// again) and not shared with replicas. At most `capacity` records of
/// each kind (default 100,000); when a kind is full, expired records are
/// dropped first, and if none has expired the new one is refused.
pub struct MemoryProxyStore {
    capacity: usize,
    records: Mutex<HashMap<String, (Vec<u8>, Instant)>>,
}

impl Default for MemoryProxyStore {
    fn default() -> Self {
        MemoryProxyStore::with_capacity(100_000)
    }
}

impl MemoryProxyStore {
    /// A store of at most `capacity` records of each kind.
    pub fn with_capacity(capacity: usize) -> Self {
        MemoryProxyStore { capacity, records: Mutex::default() }
    }

    fn live(&self, key: &str) -> Option<Vec<u8>> {
        let records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        records.get(key).filter(|(_, deadline)| *deadline > Instant::now()).map(|(value, _)| value.clone())
    }
}

/// A key's kind: what it starts with, up to its first `:`.
fn kind(key: &str) -> &str {
    key.split_once(':').map_or(key, |(kind, _)| kind)
}

impl ProxyStore for MemoryProxyStore {
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if !records.contains_key(key) {
            let of_kind =
                |records: &HashMap<String, (Vec<u8>, Instant)>| records.keys().filter(|k| kind(k) == kind(key)).count();
            if of_kind(&records) >= self.capacity {
                records.retain(|_, (_, deadline)| *deadline > now);
                if of_kind(&records) >= self.capacity {
                    let full: super::super::super::store::StoreError =
                        format!("the OAuth proxy's store holds {} `{}` records already", self.capacity, kind(key))
                            .into();
                    return Box::pin(std::future::ready(Err(full)));
                }
            }
        }
        records.insert(key.to_owned(), (value.to_vec(), now + ttl));
        ready(())
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        ready(self.live(key))
    }

    fn swap<'a>(&'a self, key: &'a str, value: &'a [u8]) -> StoreFuture<'a, Option<Vec<u8>>> {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        let old = match records.get_mut(key) {
            Some((held, deadline)) if *deadline > Instant::now() => Some(std::mem::replace(held, value.to_vec())),
            _ => None,
        };
        ready(old)
    }

    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        let old = records.remove(key).filter(|(_, deadline)| *deadline > Instant::now()).map(|(value, _)| value);
        ready(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn swap_hands_the_old_value_to_one_caller_and_kinds_are_bounded() {
        let store = MemoryProxyStore::with_capacity(2);
        store.put("code:a", b"fresh", Duration::from_secs(60)).await.unwrap();
        assert_eq!(store.swap("code:a", b"used").await.unwrap().as_deref(), Some(&b"fresh"[..]));
        assert_eq!(store.swap("code:a", b"used").await.unwrap().as_deref(), Some(&b"used"[..]));
        assert_eq!(store.swap("code:b", b"used").await.unwrap(), None, "nothing written for a missing key");
        assert_eq!(store.get("code:b").await.unwrap(), None);
        store.put("code:b", b"x", Duration::from_secs(60)).await.unwrap();
        assert!(store.put("code:c", b"x", Duration::from_secs(60)).await.is_err(), "the kind is full");
        store.put("tx:c", b"x", Duration::from_secs(60)).await.unwrap();
        store.put("code:b", b"y", Duration::from_secs(60)).await.unwrap();
        assert_eq!(store.remove("code:b").await.unwrap().as_deref(), Some(&b"y"[..]));
        store.put("code:c", b"x", Duration::ZERO).await.unwrap();
        assert_eq!(store.get("code:c").await.unwrap(), None, "expired at once");
        store.put("code:d", b"x", Duration::from_secs(60)).await.unwrap();
    }
}
