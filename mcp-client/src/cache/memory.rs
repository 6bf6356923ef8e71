//! [`MemoryCache`]: cached answers in this process, a bounded number of
//! them, each dropped when its time runs out.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::time::Instant;

use super::CacheStore;

/// Cached answers in memory: at most a given number of entries (when
/// full, the expired go first, then the one closest to its end), each
/// never read after its time.
#[derive(Debug)]
pub struct MemoryCache {
    entries: Mutex<HashMap<String, (String, Instant)>>,
    max_entries: usize,
    /// The generations of the kinds (a handful of names, set by the client).
    generations: Mutex<HashMap<String, u64>>,
}

impl MemoryCache {
    /// A cache of at most `max_entries` answers (one per list, one per
    /// resource read).
    pub fn new(max_entries: usize) -> MemoryCache {
        MemoryCache { entries: Mutex::default(), max_entries: max_entries.max(1), generations: Mutex::default() }
    }
}

impl CacheStore for MemoryCache {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<String>> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let found = match entries.get(key) {
            Some((value, until)) if *until > Instant::now() => Some(value.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        };
        Box::pin(std::future::ready(found))
    }

    fn generation<'a>(&'a self, kind: &'a str) -> BoxFuture<'a, Option<u64>> {
        let generations = self.generations.lock().unwrap_or_else(|e| e.into_inner());
        Box::pin(std::future::ready(Some(generations.get(kind).copied().unwrap_or(0))))
    }

    fn bump<'a>(&'a self, kind: &'a str) -> BoxFuture<'a, ()> {
        let mut generations = self.generations.lock().unwrap_or_else(|e| e.into_inner());
        *generations.entry(kind.to_owned()).or_default() += 1;
        Box::pin(std::future::ready(()))
    }

    fn put<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, ()> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if entries.len() >= self.max_entries && !entries.contains_key(key) {
            entries.retain(|_, (_, until)| *until > now);
            if entries.len() >= self.max_entries
                && let Some(soonest) = entries.iter().min_by_key(|(_, (_, until))| *until).map(|(k, _)| k.clone())
            {
                entries.remove(&soonest);
            }
        }
        entries.insert(key.to_owned(), (value, now + ttl));
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn an_entry_is_never_read_past_its_time_and_the_bound_holds() {
        let cache = MemoryCache::new(2);
        cache.put("a", "1".into(), Duration::from_millis(100)).await;
        cache.put("b", "2".into(), Duration::from_secs(10)).await;
        cache.put("c", "3".into(), Duration::from_secs(10)).await;
        assert_eq!(cache.get("a").await, None, "the one closest to its end made room");
        assert_eq!(cache.get("b").await.as_deref(), Some("2"));
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(cache.get("b").await, None);
    }
}
