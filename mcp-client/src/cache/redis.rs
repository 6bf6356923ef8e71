//! [`RedisCache`]: cached answers in Redis, shared by the clients (and
//! processes) that use one prefix, each entry expiring in Redis itself;
//! the generations of the kinds of entries (moved on by change
//! notifications) kept there too, as counters under the prefix.

use std::time::Duration;

use futures_util::future::BoxFuture;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;

use super::CacheStore;

/// The longest one operation may take: a cache that is slow is skipped.
const TIMEOUT: Duration = Duration::from_secs(1);

/// Cached answers in Redis (or Valkey), under a prefix. Shared by default
/// (so answers marked `private` are not kept in it); say
/// [`private`](Self::private) for a store only one user's clients read.
#[derive(Clone)]
pub struct RedisCache {
    connection: ConnectionManager,
    prefix: String,
    shared: bool,
}

impl std::fmt::Debug for RedisCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCache").field("prefix", &self.prefix).field("shared", &self.shared).finish()
    }
}

impl RedisCache {
    /// Connect to the Redis server at `url`, keeping entries under
    /// `prefix` (name the server in it: the entries of one server only
    /// may share a prefix).
    pub async fn connect(url: &str, prefix: impl Into<String>) -> Result<RedisCache, redis::RedisError> {
        let connection = redis::Client::open(url)?.get_connection_manager().await?;
        Ok(RedisCache { connection, prefix: prefix.into(), shared: true })
    }

    /// Only one user's clients read this store: answers marked `private`
    /// may be kept in it.
    pub fn private(mut self) -> Self {
        self.shared = false;
        self
    }

    fn key(&self, key: &str) -> String {
        format!("{}:{key}", self.prefix)
    }

    /// Where `kind`'s generation is counted (no entry's key has a
    /// `generation:` prefix: each starts with its method).
    fn generation_key(&self, kind: &str) -> String {
        format!("{}:generation:{kind}", self.prefix)
    }
}

impl CacheStore for RedisCache {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            match tokio::time::timeout(TIMEOUT, connection.get::<_, Option<String>>(self.key(key))).await {
                Ok(Ok(found)) => found,
                Ok(Err(error)) => {
                    tracing::warn!(%error, "the Redis cache could not be read; asking the server");
                    None
                }
                Err(_) => None,
            }
        })
    }

    fn generation<'a>(&'a self, kind: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            match tokio::time::timeout(TIMEOUT, connection.get::<_, Option<u64>>(self.generation_key(kind))).await {
                Ok(Ok(generation)) => Some(generation.unwrap_or(0)),
                Ok(Err(error)) => {
                    tracing::warn!(%error, "the Redis cache's generation could not be read; asking the server");
                    None
                }
                Err(_) => None,
            }
        })
    }

    fn bump<'a>(&'a self, kind: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let incr = connection.incr::<_, _, u64>(self.generation_key(kind), 1);
            match tokio::time::timeout(TIMEOUT, incr).await {
                Ok(Ok(_)) => {}
                Ok(Err(error)) => tracing::warn!(%error, "the Redis cache could not be told of a change"),
                Err(_) => tracing::warn!("the Redis cache took too long to be told of a change"),
            }
        })
    }

    fn put<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            let set = connection.pset_ex::<_, _, ()>(self.key(key), value, ms);
            if let Ok(Err(error)) = tokio::time::timeout(TIMEOUT, set).await {
                tracing::warn!(%error, "the Redis cache could not be written");
            }
        })
    }

    fn shared(&self) -> bool {
        self.shared
    }
}
