//! The client's cache of what servers allow it to keep (SEP-2549): a list
//! (its pages merged) or a read whose answer carried `ttlMs` is served
//! from a [`CacheStore`] until that time runs out, and never after a
//! change notification for it.
//!
//! Only 2026-07-28 answers carry the hints; a handshake-era answer is not
//! kept. A merged list lives as long as its shortest-lived page, counted
//! from before its first page was asked for, so no entry outlives what the
//! server allowed. Each kind of entry has a generation, kept in the store
//! (so every client sharing it sees it): a change notification
//! (`notifications/tools/list_changed`, …) moves it on before anyone is
//! told of the change, and entries are keyed by it, so what was kept before
//! the change (or fetched while it arrived) is never found again.

mod memory;
#[cfg(feature = "redis")]
mod redis;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use mcp_core::methods;

pub use memory::MemoryCache;
#[cfg(feature = "redis")]
pub use redis::RedisCache;

/// Where a client keeps cached answers: [`MemoryCache`] in the process,
/// or, with the `redis` feature, [`RedisCache`] shared by processes. A
/// store that fails answers as if empty; the client then asks the server.
pub trait CacheStore: Send + Sync + 'static {
    /// The entry under `key`, unless there is none or its time ran out.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<String>>;

    /// Keep `value` under `key` for `ttl`.
    fn put<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, ()>;

    /// The generation of `kind`'s entries (`"tools"`, `"reads"`, …): the
    /// number of times [`bump`](Self::bump) was called for it, for every
    /// client using the store. `None` when the store cannot say: nothing
    /// is then served from it or kept in it.
    fn generation<'a>(&'a self, kind: &'a str) -> BoxFuture<'a, Option<u64>>;

    /// Move `kind`'s generation on: the server said it changed.
    fn bump<'a>(&'a self, kind: &'a str) -> BoxFuture<'a, ()>;

    /// Whether other users' clients read this store too: answers the
    /// server marked `cacheScope: "private"` are not kept in one that is.
    fn shared(&self) -> bool {
        false
    }
}

impl crate::ClientBuilder {
    /// Keep what servers allow in `store` (SEP-2549): a list or a resource
    /// read whose answer carries a `ttlMs` is served from it until that
    /// time runs out or the server says it changed, instead of asked
    /// again. Off unless set.
    pub fn cache(mut self, store: impl CacheStore) -> Self {
        self.cache = Some(std::sync::Arc::new(Cache::new(store)));
        self
    }
}

/// What can be cached, each with its own generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tools,
    Prompts,
    Resources,
    Templates,
    Reads,
}

impl Kind {
    const ALL: [Kind; 5] = [Kind::Tools, Kind::Prompts, Kind::Resources, Kind::Templates, Kind::Reads];

    pub(crate) fn of(method: &str) -> Option<Kind> {
        Some(match method {
            methods::TOOLS_LIST => Kind::Tools,
            methods::PROMPTS_LIST => Kind::Prompts,
            methods::RESOURCES_LIST => Kind::Resources,
            methods::RESOURCES_TEMPLATES_LIST => Kind::Templates,
            methods::RESOURCES_READ => Kind::Reads,
            _ => return None,
        })
    }

    /// Its name in the store.
    fn name(self) -> &'static str {
        match self {
            Kind::Tools => "tools",
            Kind::Prompts => "prompts",
            Kind::Resources => "resources",
            Kind::Templates => "templates",
            Kind::Reads => "reads",
        }
    }

    /// The kinds a server's notification says have changed.
    pub(crate) fn changed_by(notification: &str) -> &'static [Kind] {
        match notification {
            methods::TOOLS_LIST_CHANGED => &[Kind::Tools],
            methods::PROMPTS_LIST_CHANGED => &[Kind::Prompts],
            methods::RESOURCES_LIST_CHANGED => &[Kind::Resources, Kind::Templates, Kind::Reads],
            methods::RESOURCES_UPDATED => &[Kind::Reads],
            _ => &[],
        }
    }
}

/// The hints of a list's pages (or of one read), as they arrive.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Hints {
    /// The shortest `ttlMs` seen; `None` once a page had none.
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) private: bool,
    pages: usize,
}

impl Hints {
    /// Take in one page's (or a read's) result.
    pub(crate) fn page(&mut self, result: &serde_json::Value) {
        let ttl = result.get("ttlMs").and_then(serde_json::Value::as_u64);
        self.ttl_ms = match (self.pages, self.ttl_ms, ttl) {
            (0, _, ttl) => ttl,
            (_, Some(kept), Some(ttl)) => Some(kept.min(ttl)),
            _ => None,
        };
        self.private |= result.get("cacheScope").and_then(serde_json::Value::as_str) == Some("private");
        self.pages += 1;
    }
}

/// A client's cache: its store.
pub(crate) struct Cache {
    store: Box<dyn CacheStore>,
    /// Changes heard while the relay's queue was full, one bit per
    /// [`Kind`], and whether a task is telling the store of them.
    behind: (AtomicU8, AtomicBool),
}

impl Cache {
    pub(crate) fn new(store: impl CacheStore) -> Cache {
        Cache { store: Box::new(store), behind: Default::default() }
    }

    /// The key of `method` (with `target`, a read's URI) at the current
    /// generation of its kind, read before the server is asked; `None`
    /// when the store cannot say it (then the cache is not used).
    pub(crate) async fn key(&self, kind: Kind, method: &str, target: &str) -> Option<String> {
        let generation = self.store.generation(kind.name()).await?;
        Some(format!("{method}\n{generation}\n{target}"))
    }

    pub(crate) async fn get(&self, key: &str) -> Option<String> {
        self.store.get(key).await
    }

    /// Keep `value` as the hints allow, counting its time from `asked`
    /// (before the first request went out).
    pub(crate) async fn put(&self, key: &str, value: String, hints: Hints, asked: tokio::time::Instant) {
        let Some(ttl) = hints.ttl_ms.filter(|&ms| ms > 0) else { return };
        if hints.private && self.store.shared() {
            return;
        }
        let left = Duration::from_millis(ttl).saturating_sub(asked.elapsed());
        if !left.is_zero() {
            self.store.put(key, value, left).await;
        }
    }

    /// The server said `notification`: what it changed is not served
    /// again, by any client of the store.
    pub(crate) async fn changed(&self, notification: &str) {
        for kind in Kind::changed_by(notification) {
            self.store.bump(kind.name()).await;
        }
    }

    /// The server said `notification` while the relay's queue was full:
    /// the store is told by one task at a time, which takes up every
    /// change heard meanwhile, so a server flooding changes past a slow
    /// store piles up no tasks (and no change goes untold).
    pub(crate) fn changed_behind(self: &Arc<Self>, notification: &str) {
        let mask = Kind::changed_by(notification).iter().fold(0, |mask, kind| mask | 1 << *kind as u8);
        let (pending, running) = &self.behind;
        if mask == 0 {
            return;
        }
        pending.fetch_or(mask, Ordering::SeqCst);
        if running.swap(true, Ordering::SeqCst) {
            return;
        }
        let cache = self.clone();
        tokio::spawn(async move {
            let (pending, running) = &cache.behind;
            loop {
                let mask = pending.swap(0, Ordering::SeqCst);
                if mask == 0 {
                    running.store(false, Ordering::SeqCst);
                    // A change heard after the swap, before the flag fell.
                    if pending.load(Ordering::SeqCst) != 0 && !running.swap(true, Ordering::SeqCst) {
                        continue;
                    }
                    return;
                }
                for kind in Kind::ALL.iter().filter(|kind| mask & 1 << **kind as u8 != 0) {
                    cache.store.bump(kind.name()).await;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_lives_as_long_as_its_shortest_page_and_not_at_all_if_one_has_no_hint() {
        let mut hints = Hints::default();
        hints.page(&serde_json::json!({"ttlMs": 500}));
        hints.page(&serde_json::json!({"ttlMs": 200, "cacheScope": "private"}));
        assert_eq!((hints.ttl_ms, hints.private), (Some(200), true));
        hints.page(&serde_json::json!({}));
        assert_eq!(hints.ttl_ms, None);
        hints.page(&serde_json::json!({"ttlMs": 900}));
        assert_eq!(hints.ttl_ms, None, "one page without a hint is enough");
    }

    #[tokio::test]
    async fn changes_heard_behind_a_full_queue_are_told_by_one_task() {
        let cache = Arc::new(Cache::new(MemoryCache::new(8)));
        let before = |kind: Kind| {
            let cache = cache.clone();
            async move { cache.store.generation(kind.name()).await }
        };
        let (tools, prompts, resources) =
            (before(Kind::Tools).await, before(Kind::Prompts).await, before(Kind::Resources).await);
        for _ in 0..100 {
            cache.changed_behind(methods::TOOLS_LIST_CHANGED);
            cache.changed_behind(methods::PROMPTS_LIST_CHANGED);
            cache.changed_behind("notifications/message");
        }
        tokio::time::timeout(Duration::from_secs(5), async {
            while cache.behind.1.load(Ordering::SeqCst) {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("the task ends");
        assert_ne!(before(Kind::Tools).await, tools, "tools changed");
        assert_ne!(before(Kind::Prompts).await, prompts, "prompts changed");
        assert_eq!(before(Kind::Resources).await, resources, "resources did not");
    }

    #[tokio::test]
    async fn a_change_notification_hides_what_was_kept() {
        let cache = Cache::new(MemoryCache::new(8));
        let key = async { cache.key(Kind::Tools, methods::TOOLS_LIST, "").await.unwrap() };
        let hints = Hints { ttl_ms: Some(60_000), private: false, pages: 1 };
        cache.put(&key.await, "[]".into(), hints, tokio::time::Instant::now()).await;
        let key = || async { cache.key(Kind::Tools, methods::TOOLS_LIST, "").await.unwrap() };
        assert_eq!(cache.get(&key().await).await.as_deref(), Some("[]"));
        cache.changed(methods::PROMPTS_LIST_CHANGED).await;
        assert!(cache.get(&key().await).await.is_some(), "not a tools change");
        cache.changed(methods::TOOLS_LIST_CHANGED).await;
        assert_eq!(cache.get(&key().await).await, None);
    }
}
