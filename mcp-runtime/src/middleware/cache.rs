//! The ready layer that keeps replies: a repeated read is answered from
//! memory until it expires or the server announces a change.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Around, ErrorObject, Invocation, Kind, Next, Reply};
use crate::tools::BoxFuture;

/// Keeps successful replies of the kinds it caches (resource reads by
/// default; [`kinds`](Self::kinds) to choose) by what was asked: the kind,
/// the name or URI, the arguments and the token's subject, if any. A
/// reply is given again until `ttl` has passed or the server announces a
/// change (a list change or a resource update, here or on another
/// replica), whichever comes first. At most `capacity` replies are kept;
/// the oldest goes first. Errors, tool error results and questions to
/// the client are never kept.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::{Cache, Kind};
/// use mcp_runtime::Server;
///
/// let server = Server::new("docs", "1")
///     .layer(Cache::new(1000, Duration::from_secs(60)).kinds([Kind::Resource, Kind::Prompt]));
/// # drop(server);
/// ```
#[derive(Clone)]
pub struct Cache {
    capacity: usize,
    ttl: Duration,
    kinds: Vec<Kind>,
    entries: Arc<Mutex<Entries>>,
}

#[derive(Default)]
struct Entries {
    by_key: HashMap<String, Entry>,
}

struct Entry {
    at: Instant,
    /// The server's change count when the request that made it came.
    changes: u64,
    reply: Reply,
}

impl Cache {
    /// A cache of at most `capacity` replies, each kept at most `ttl`.
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        Cache { capacity, ttl, kinds: vec![Kind::Resource], entries: Arc::default() }
    }

    /// Cache replies of these kinds (a tool's only if it is a pure look-up:
    /// its calls are not made again).
    pub fn kinds(mut self, kinds: impl IntoIterator<Item = Kind>) -> Self {
        self.kinds = kinds.into_iter().collect();
        self
    }

    fn get(&self, key: &str, changes: u64) -> Option<Reply> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let entry = entries.by_key.get(key)?;
        (entry.changes == changes && entry.at.elapsed() < self.ttl).then(|| entry.reply.clone())
    }

    fn put(&self, key: String, changes: u64, reply: Reply) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let ttl = self.ttl;
        entries.by_key.retain(|_, e| e.changes >= changes && e.at.elapsed() < ttl);
        if entries.by_key.len() >= self.capacity {
            let oldest = entries.by_key.iter().min_by_key(|(_, e)| e.at).map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                entries.by_key.remove(&oldest);
            }
        }
        entries.by_key.insert(key, Entry { at: Instant::now(), changes, reply });
    }
}

/// What a request asks, as a cache key.
fn key(invocation: &Invocation) -> String {
    let subject = invocation.parts().claims().and_then(|c| c.subject()).unwrap_or("");
    let arguments = serde_json::Value::Object(invocation.arguments().clone());
    format!("{:?}\u{0}{}\u{0}{arguments}\u{0}{subject}", invocation.kind(), invocation.name())
}

impl Around for Cache {
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        if !self.kinds.contains(&invocation.kind()) {
            return next.run(invocation);
        }
        let (key, changes, cache) = (key(&invocation), invocation.changes(), self.clone());
        if let Some(reply) = cache.get(&key, changes) {
            return Box::pin(std::future::ready(Ok(reply)));
        }
        Box::pin(async move {
            let reply = next.run(invocation).await?;
            let keep = match &reply {
                Reply::Tool(result) => !result.is_error(),
                Reply::InputRequired(_) => false,
                _ => true,
            };
            if keep {
                cache.put(key, changes, reply.clone());
            }
            Ok(reply)
        })
    }
}
