//! The OAuth proxy's state in Redis (the `redis` feature), so replicas
//! share clients, sign-ins, codes and grants: a sign-in begun on one
//! replica completes on another. Each record is a string with its
//! deadline (`SET … PX`); a code or refresh token is swapped atomically
//! (`SET … XX KEEPTTL GET`, Redis 7 or later), so of two replicas
//! presenting one, only one sees it unused.

use std::time::Duration;

use redis::AsyncCommands;

use super::store::ProxyStore;
use crate::transport::http::RedisStore;
use crate::transport::http::store::StoreFuture;

impl RedisStore {
    fn proxy_key(&self, key: &str) -> String {
        format!("{}:oauth:{key}", self.prefix)
    }
}

/// Every record expires, so Redis holds at most what the deadlines
/// allow; bound its memory (`maxmemory`) as for the other stores.
impl ProxyStore for RedisStore {
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            let milliseconds = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            connection.pset_ex::<_, _, ()>(self.proxy_key(key), value, milliseconds).await?;
            Ok(())
        }))
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            Ok(connection.get(self.proxy_key(key)).await?)
        }))
    }

    fn swap<'a>(&'a self, key: &'a str, value: &'a [u8]) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            let old: Option<Vec<u8>> = redis::cmd("SET")
                .arg(self.proxy_key(key))
                .arg(value)
                .arg("XX")
                .arg("KEEPTTL")
                .arg("GET")
                .query_async(&mut connection)
                .await?;
            Ok(old)
        }))
    }

    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            Ok(connection.get_del(self.proxy_key(key)).await?)
        }))
    }
}
