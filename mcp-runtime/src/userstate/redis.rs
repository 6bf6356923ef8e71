//! Per-user state in Redis (`RedisStore` as a [`UserStateBackend`]): each
//! owner's slots one hash that expires a TTL after the owner's last write,
//! with the bytes of every owner and of the whole store counted beside
//! them by scripts, so the bounds hold across replicas.

use std::time::Duration;

use redis::AsyncCommands;

use super::{StateError, StateLimits, UserStateBackend};
use crate::stores::RedisStore;
use crate::tools::BoxFuture;

/// Write a slot within the owner's and the store's bounds. Owners whose
/// deadline passed are dropped from the counts first (their hashes expire
/// by themselves), at most 100 a put, so one put never stalls Redis on a
/// backlog: each later put takes its share of it.
/// KEYS: data, owners (zset of deadlines), bytes (hash), total.
/// ARGV: owner, name, value, ttl ms, max owner bytes, max total bytes.
/// Returns 1, or -1 (owner full), -2 (store full).
const PUT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, o in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)) do
  redis.call('DECRBY', KEYS[4], tonumber(redis.call('HGET', KEYS[3], o) or '0'))
  redis.call('HDEL', KEYS[3], o)
  redis.call('ZREM', KEYS[2], o)
end
local mine = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if mine > 0 and redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DECRBY', KEYS[4], mine)
  mine = 0
end
local old = redis.call('HSTRLEN', KEYS[1], ARGV[2])
if old > 0 then old = old + #ARGV[2] end
local new = #ARGV[3] + #ARGV[2]
if mine - old + new > tonumber(ARGV[5]) then return -1 end
local total = tonumber(redis.call('GET', KEYS[4]) or '0')
if total - old + new > tonumber(ARGV[6]) then return -2 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('HSET', KEYS[3], ARGV[1], mine - old + new)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[1])
redis.call('INCRBY', KEYS[4], new - old)
return 1
";

/// Forget a slot and its bytes.
/// KEYS: data, owners, bytes, total. ARGV: owner, name.
const REMOVE: &str = r"
local old = redis.call('HSTRLEN', KEYS[1], ARGV[2])
if old == 0 then return 0 end
old = old + #ARGV[2]
redis.call('HDEL', KEYS[1], ARGV[2])
redis.call('DECRBY', KEYS[4], old)
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('HINCRBY', KEYS[3], ARGV[1], -old)
end
return 1
";

/// Per-user state kept in Redis.
pub(crate) struct RedisUserStore {
    store: RedisStore,
}

fn unavailable(e: redis::RedisError) -> StateError {
    StateError::Backend(Box::new(e))
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl RedisUserStore {
    pub(crate) fn new(store: RedisStore) -> Self {
        RedisUserStore { store }
    }

    fn key(&self, part: &str) -> String {
        format!("{}:userstate:{part}", self.store.prefix)
    }

    fn script(&self, script: &str, owner: &str) -> redis::Cmd {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(script)
            .arg(4)
            .arg(self.key(&format!("data:{owner}")))
            .arg(self.key("owners"))
            .arg(self.key("bytes"))
            .arg(self.key("total"));
        cmd
    }
}

impl UserStateBackend for RedisUserStore {
    fn get<'a>(&'a self, owner: &'a str, name: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>> {
        Box::pin(async move {
            let mut connection = self.store.connection.clone();
            let key = self.key(&format!("data:{owner}"));
            self.store.within(connection.hget(key, name)).await.map_err(unavailable)
        })
    }

    fn put<'a>(
        &'a self,
        owner: &'a str,
        name: &'a str,
        value: Vec<u8>,
        limits: &'a StateLimits,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let mut put = self.script(PUT, owner);
            put.arg(owner)
                .arg(name)
                .arg(value)
                .arg(millis(limits.ttl))
                .arg(limits.max_owner_bytes)
                .arg(limits.max_total_bytes);
            let done: i64 =
                self.store.within(put.query_async(&mut self.store.connection.clone())).await.map_err(unavailable)?;
            match done {
                -1 => Err(StateError::OwnerFull { limit: limits.max_owner_bytes }),
                -2 => Err(StateError::StoreFull),
                _ => Ok(()),
            }
        })
    }

    fn remove<'a>(&'a self, owner: &'a str, name: &'a str) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let mut remove = self.script(REMOVE, owner);
            remove.arg(owner).arg(name);
            self.store
                .within(remove.query_async::<i64>(&mut self.store.connection.clone()))
                .await
                .map_err(unavailable)?;
            Ok(())
        })
    }
}
