//! Every store replicas share, in one Redis (or Valkey) server: events as
//! sorted sets, sessions as expiring strings, announcements on a pub/sub
//! channel. (Tasks are kept in it too: the tasks module's `redis`.)

use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::{EventStore, Fanout, KeptEvent, SessionStore, StoreFuture};

/// The store replicas share, in Redis (the `redis` feature): the events of
/// resumable streams, handshake sessions and change announcements. Give
/// it to [`HttpOptions::shared_store`](crate::transport::HttpOptions::shared_store),
/// and to [`Server::task_store`](crate::Server::task_store) for tasks any
/// replica follows (see [`task_lease`](Self::task_lease)).
///
/// Keys start with a prefix (`mcp` unless [`prefix`](Self::prefix) says
/// otherwise), so servers can share one Redis. A stream's events expire an
/// hour after its last one unless [`event_ttl`](Self::event_ttl) says
/// otherwise; a session's record expires after the endpoint's session idle
/// timeout. Lost connections are made again; while Redis cannot be reached,
/// every replica goes on serving, with what it cannot keep logged, and
/// each operation on Redis fails after at most [`timeout`](Self::timeout)
/// (so a task request then fails in about that time, with the task store
/// unavailable).
#[derive(Clone)]
pub struct RedisStore {
    pub(crate) client: redis::Client,
    pub(crate) connection: ConnectionManager,
    pub(crate) prefix: String,
    event_ttl: Duration,
    /// The longest one operation may take.
    pub(crate) timeout: Duration,
    /// The leases of the tasks this process runs.
    pub(crate) leases: std::sync::Arc<crate::tasks::Leases>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("event_ttl", &self.event_ttl)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl RedisStore {
    /// Connect to the Redis server at `url` (`redis://host:6379/`,
    /// `redis://:password@host/2`, `rediss://` for TLS where built in).
    pub async fn connect(url: &str) -> Result<RedisStore, redis::RedisError> {
        let client = redis::Client::open(url)?;
        // Attempts to connect again are at most a second apart, so a Redis
        // that comes back is used again within about a second (the
        // default backoff grows to several).
        let config = ConnectionManagerConfig::new().set_max_delay(RECONNECT_AT_MOST_EVERY);
        let connection = client.get_connection_manager_with_config(config).await?;
        Ok(RedisStore {
            client,
            connection,
            prefix: "mcp".to_owned(),
            event_ttl: Duration::from_secs(3600),
            timeout: DEFAULT_TIMEOUT,
            leases: crate::tasks::Leases::new(Duration::from_secs(10)),
        })
    }

    /// The longest one operation on Redis may take (2 seconds by default):
    /// past it, it fails as if Redis were unreachable. It bounds what a
    /// request waits for a Redis that is down (whose every command would
    /// otherwise wait for the connection to be made again, retries and
    /// backoff included) or hung. Each Redis command also fails after
    /// half a second without an answer, and each attempt to connect after
    /// a second.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// `work`, failed as timed out once it takes longer than
    /// [`timeout`](Self::timeout).
    pub(crate) async fn within<T, E: From<redis::RedisError>>(
        &self,
        work: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        within(self.timeout, work).await
    }

    /// Start every key with `prefix` instead of `mcp` (servers that share
    /// one Redis keep apart this way; replicas of one server share it).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long a stream's events are kept after its last one.
    pub fn event_ttl(mut self, ttl: Duration) -> Self {
        self.event_ttl = ttl;
        self
    }

    fn events_key(&self, stream: &str) -> String {
        format!("{}:events:{stream}", self.prefix)
    }

    fn session_key(&self, id: &str) -> String {
        format!("{}:session:{id}", self.prefix)
    }

    fn channel(&self) -> String {
        format!("{}:announce", self.prefix)
    }
}

/// The default [`RedisStore::timeout`].
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest wait between two attempts to connect again.
const RECONNECT_AT_MOST_EVERY: Duration = Duration::from_secs(1);

/// `work`, failed as timed out once it takes longer than `limit`.
pub(crate) async fn within<T, E: From<redis::RedisError>>(
    limit: Duration,
    work: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    match tokio::time::timeout(limit, work).await {
        Ok(done) => done,
        Err(_) => {
            let message = format!("Redis did not answer within {limit:?}");
            Err(E::from(std::io::Error::new(std::io::ErrorKind::TimedOut, message).into()))
        }
    }
}

/// Seconds for `EXPIRE`, at least one.
fn seconds(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_secs().max(1)).unwrap_or(i64::MAX)
}

/// A sorted-set member for event `number`: the number first, so equal
/// messages stay distinct members.
fn member(number: u64, message: &[u8]) -> Vec<u8> {
    let mut member = Vec::with_capacity(8 + message.len());
    member.extend_from_slice(&number.to_be_bytes());
    member.extend_from_slice(message);
    member
}

/// `pattern` with the glob characters of `SCAN MATCH` escaped.
fn literal(pattern: &str) -> String {
    pattern.chars().fold(String::new(), |mut escaped, c| {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
        escaped
    })
}

impl EventStore for RedisStore {
    fn keep<'a>(&'a self, stream: &'a str, number: u64, message: &'a [u8]) -> StoreFuture<'a, ()> {
        Box::pin(self.within(async move {
            let key = self.events_key(stream);
            let mut connection = self.connection.clone();
            redis::pipe()
                .zadd(&key, member(number, message), number)
                .ignore()
                .expire(&key, seconds(self.event_ttl))
                .ignore()
                .query_async::<()>(&mut connection)
                .await?;
            Ok(())
        }))
    }

    fn replay<'a>(&'a self, stream: &'a str, after: u64) -> StoreFuture<'a, Option<Vec<KeptEvent>>> {
        Box::pin(self.within(async move {
            let key = self.events_key(stream);
            let mut connection = self.connection.clone();
            let (exists, members): (bool, Vec<Vec<u8>>) = redis::pipe()
                .exists(&key)
                .zrangebyscore(&key, format!("({after}"), "+inf")
                .query_async(&mut connection)
                .await?;
            if !exists {
                return Ok(None);
            }
            let mut events = Vec::with_capacity(members.len());
            for (expected, member) in (after + 1..).zip(members) {
                let Some((number, message)) = member.split_first_chunk::<8>() else { return Ok(None) };
                // A hole (an event that was never kept): refuse, as the
                // trait asks.
                if u64::from_be_bytes(*number) != expected {
                    return Ok(None);
                }
                events.push((expected, message.to_vec()));
            }
            Ok(Some(events))
        }))
    }

    fn forget<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let pattern = format!("{}*", literal(&self.events_key(prefix)));
            let mut connection = self.connection.clone();
            // Each step is bounded, not the whole: a large keyspace takes
            // many steps, and this runs in the background.
            let keys: Vec<String> = {
                let mut scan = self.within(connection.scan_match::<_, String>(&pattern)).await?;
                let mut keys = Vec::new();
                while let Some(key) = self.within(async { Ok::<_, redis::RedisError>(scan.next().await) }).await? {
                    keys.push(key?);
                }
                keys
            };
            if !keys.is_empty() {
                let mut connection = self.connection.clone();
                self.within(connection.unlink::<_, ()>(keys)).await?;
            }
            Ok(())
        })
    }

    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            connection.unlink::<_, ()>(self.events_key(stream)).await?;
            Ok(())
        }))
    }
}

impl SessionStore for RedisStore {
    fn save<'a>(&'a self, id: &'a str, record: &'a [u8], ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            connection.set_ex::<_, _, ()>(self.session_key(id), record, ttl.as_secs().max(1)).await?;
            Ok(())
        }))
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            Ok(connection.get(self.session_key(id)).await?)
        }))
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            connection.expire::<_, ()>(self.session_key(id), seconds(ttl)).await?;
            Ok(())
        }))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            connection.unlink::<_, ()>(self.session_key(id)).await?;
            Ok(())
        }))
    }
}

impl Fanout for RedisStore {
    fn publish<'a>(&'a self, message: &'a [u8]) -> StoreFuture<'a, ()> {
        Box::pin(self.within(async move {
            let mut connection = self.connection.clone();
            connection.publish::<_, _, ()>(self.channel(), message).await?;
            Ok(())
        }))
    }

    fn subscribe(&self) -> StoreFuture<'_, BoxStream<'static, Vec<u8>>> {
        Box::pin(self.within(async move {
            let mut pubsub = self.client.get_async_pubsub().await?;
            pubsub.subscribe(self.channel()).await?;
            let messages = pubsub.into_on_message().map(|message| message.get_payload_bytes().to_vec());
            Ok(messages.boxed())
        }))
    }
}
