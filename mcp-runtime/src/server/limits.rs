//! The builder's bounds and lifetimes: timeouts and rate limits, message
//! and queue sizes, running calls, shutdown grace, cache lifetimes, the
//! keys and lifetime of `requestState`, and where tasks are kept and for
//! how long.

use std::sync::Arc;
use std::time::Duration;

use super::Server;
use crate::tasks::TaskStore;
use crate::tools::limit::RateLimit;

impl Server {
    /// Stop every call of a tool without its own `timeout` after
    /// `timeout`, with an error result saying so.
    pub fn default_timeout(self, timeout: Duration) -> Self {
        self.tools.sources().options_mut().default_timeout = Some(timeout);
        self
    }

    /// Accept at most `calls` tool calls per `period` across all tools (a
    /// burst of `calls`, then an even refill); more get an error result
    /// saying when to retry. Tools may also have their own
    /// (`#[tool(rate_limit = "10/s")]`); a call must pass both.
    pub fn rate_limit(mut self, calls: u32, period: Duration) -> Self {
        self.rate_limit = Some(RateLimit::new(calls, period));
        self
    }

    /// The largest message accepted, in bytes (16 MiB by default). A longer
    /// line is answered with an error and skipped.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.limits.max_message_size = bytes;
        self
    }

    /// Ping each client of a long-lived connection (stdio, an in-memory
    /// client, a transport of your own) every `interval` once its
    /// 2025-11-25 (or older) handshake is done, and end the connection if
    /// it does not answer within `deadline`: a client that hangs without
    /// closing its side is let go instead of holding its calls and memory.
    /// One ping at a time; off by default. 2026-07-28 has no `ping`, and
    /// no connection to keep.
    pub fn keep_alive(mut self, interval: Duration, deadline: Duration) -> Self {
        self.limits.keep_alive = Some(crate::transport::keepalive::KeepAlive { interval, deadline });
        self
    }

    /// How long running calls may go on after the client closes its input
    /// (5 s by default); calls still running then are cancelled.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.limits.shutdown_grace = grace;
        self
    }

    /// How many calls one connection (stdio, an in-memory client, an HTTP
    /// session, or all stateless HTTP requests together) runs at once: 256
    /// by default. At the limit the next call waits until one ends (stdio
    /// reads nothing more from that client meanwhile), so a client that
    /// pipelines thousands of slow calls waits instead of growing the
    /// server without bound. Open subscriptions do not count.
    pub fn max_running_calls(mut self, calls: usize) -> Self {
        self.limits.max_running_calls = calls.max(1);
        self
    }

    /// How many bytes of messages may wait for a client that does not read
    /// them (16 MiB by default, per connection or HTTP response stream):
    /// past that a stdio connection reads nothing more until the client
    /// reads, notifications to that client are dropped (answers and
    /// requests never are), and a resumable HTTP stream ends its
    /// connection so the client resumes from the event store.
    pub fn max_queued_output(mut self, bytes: usize) -> Self {
        self.limits.max_queued_output = bytes;
        self
    }

    /// How long 2026-07-28 clients may cache `tools/list` and
    /// `server/discover` results (their `ttlMs`). Zero by default: the
    /// tools can change at run time ([`tools_handle`](Self::tools_handle)),
    /// so clients ask again. A server whose tools never change can allow
    /// hours.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// How long a request to the client
    /// ([`Client::request`](crate::client::Client::request)) waits for its answer
    /// (60 s by default); the client is then told to stop.
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// The keys that sign the `requestState` of 2026-07-28 multi-round
    /// requests (a handler that asks the client something, see
    /// [`Context::elicit`](crate::Context::elicit)): signed with the first,
    /// accepted if any verifies it, so a key is rotated by putting the new
    /// one first and dropping the old one once its states have expired.
    /// Each key needs at least 32 random bytes.
    ///
    /// Without keys, each process makes a random one at start-up: right for
    /// one process, wrong for replicas behind a load balancer (a retry that
    /// reaches another replica is refused), so serving HTTP with a store for
    /// replicas but without keys logs a warning. Give every replica the
    /// same keys.
    pub fn request_state_keys<K: AsRef<[u8]>>(mut self, keys: impl IntoIterator<Item = K>) -> Self {
        self.request_state_keys = Some(keys.into_iter().map(|k| k.as_ref().to_vec()).collect());
        self
    }

    /// How long a `requestState` stays valid (15 minutes by default): a
    /// retry after that is refused and the client starts over.
    pub fn request_state_lifetime(mut self, lifetime: Duration) -> Self {
        self.request_state_lifetime = lifetime;
        self
    }

    /// Where tasks are kept (see [`tasks`](crate::tasks)): a
    /// [`MemoryTaskStore`](crate::tasks::MemoryTaskStore) of 10,000 tasks
    /// and 64 MiB by default. Replicas behind a load balancer share one, so
    /// a task created through one is followed through any.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// How long a finished task is kept for `tasks/get` (an hour by
    /// default); clients see it as the task's `ttlMs` (`ttl` in
    /// 2025-11-25, whose clients may ask for less).
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// How many tasks one requestor may run at once on this server (1,000
    /// by default, a tenth of the default store's capacity; at least 1),
    /// so one client cannot take every other client's room: past that, a
    /// 2025-11-25 client asking for a task is refused with an error naming
    /// the limit until one of its tasks ends, and a call the server would
    /// have made a task goes on as a direct call.
    ///
    /// A requestor is what a task is bound to: the access token's issuer
    /// and subject with OAuth, else the HTTP session. Requests that have
    /// neither (stdio, stateless HTTP without OAuth) share one count, as
    /// nothing tells them apart. Each replica counts the tasks it runs.
    /// Ended tasks do not count; cancelled ones stop counting at once.
    pub fn max_running_tasks_per_requestor(mut self, max: usize) -> Self {
        self.tasks_per_requestor = max.max(1);
        self
    }
}
