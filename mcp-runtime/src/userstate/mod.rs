//! Per-user state: values a server keeps for one user between requests,
//! addressed by the authenticated subject (or, in a 2025-11-25 session
//! without a token, by the session) or by an explicit handle the server
//! mints, in memory or in Redis, with a lifetime and size bounds.
//!
//! 2026-07-28 has no session: the spec's advice is to keep what spans
//! calls under an explicit handle passed back as a tool argument. A
//! [`UserStore`] registered with [`Server::user_state`](crate::Server::user_state)
//! does both: [`UserState<T>`] reads and writes the caller's own slot, and
//! [`UserState::mint`] makes a [`StateHandle`] bound to the caller that
//! [`UserState::open`] refuses to anyone else.
//!
//! Every slot has an owner (a subject, a session or a handle), a deadline
//! (the store's TTL, renewed by each write) and bounds (a value's size, an
//! owner's total and the store's total); a write past a bound is refused
//! with an error that says which, and nothing already stored is lost.

mod extract;
mod handle;
mod memory;
#[cfg(feature = "redis")]
mod redis;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use extract::UserState;
pub use handle::StateHandle;
pub use memory::MemoryUserStore;

use crate::tools::BoxFuture;

/// Where per-user state lives: in this process ([`MemoryUserStore`]) or,
/// with the `redis` feature, in Redis shared by replicas. Implement it to
/// keep state elsewhere; the bounds are the backend's to enforce, the
/// owners are decided before it is called.
pub trait UserStateBackend: Send + Sync + 'static {
    /// The value of slot `name` of `owner`, unless none was set or it expired.
    fn get<'a>(&'a self, owner: &'a str, name: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>>;

    /// Set slot `name` of `owner` to `value` for `limits.ttl`, unless that
    /// would break one of `limits`' bounds.
    fn put<'a>(
        &'a self,
        owner: &'a str,
        name: &'a str,
        value: Vec<u8>,
        limits: &'a StateLimits,
    ) -> BoxFuture<'a, Result<(), StateError>>;

    /// Forget slot `name` of `owner`.
    fn remove<'a>(&'a self, owner: &'a str, name: &'a str) -> BoxFuture<'a, Result<(), StateError>>;
}

/// The bounds of a [`UserStore`]: how long a slot lives after its last
/// write, and how large a value, one owner's values and all values may be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateLimits {
    /// How long a slot lives after its last write.
    pub ttl: Duration,
    /// The largest value (serialized JSON), in bytes.
    pub max_value_bytes: usize,
    /// The most one owner (a user, a session or a handle) may keep, in bytes.
    pub max_owner_bytes: usize,
    /// The most the store keeps for everyone, in bytes.
    pub max_total_bytes: usize,
}

impl Default for StateLimits {
    /// An hour, 64 KiB a value, 256 KiB an owner, 64 MiB in all.
    fn default() -> Self {
        StateLimits {
            ttl: Duration::from_secs(3600),
            max_value_bytes: 64 * 1024,
            max_owner_bytes: 256 * 1024,
            max_total_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Why per-user state could not be read or written. Its message is meant
/// for the client (a tool returning it with `?` shows it), except for a
/// backend failure, which is logged and shown as an internal error.
#[derive(Debug)]
pub enum StateError {
    /// The request has no user: no token, no session (a 2026-07-28 request
    /// without authentication). Only a handle can address state then.
    NoUser,
    /// The handle is malformed, or was minted for another user.
    Refused,
    /// The value is larger than the store allows one value to be.
    ValueTooLarge {
        /// The value's size, in bytes.
        size: usize,
        /// The bound, in bytes.
        limit: usize,
    },
    /// The owner would keep more than the store allows one owner.
    OwnerFull {
        /// The bound, in bytes.
        limit: usize,
    },
    /// The store is full.
    StoreFull,
    /// The stored value is not a `T` (the type changed since it was written).
    Corrupt(String),
    /// The backend failed (Redis unreachable, a timeout).
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::NoUser => f.write_str(
                "this request has no user to keep state for (no token, no session): pass the state handle a tool returned",
            ),
            StateError::Refused => f.write_str("state handle refused: it is malformed or belongs to another user"),
            StateError::ValueTooLarge { size, limit } => {
                write!(f, "state value too large: {size} bytes, at most {limit} allowed")
            }
            StateError::OwnerFull { limit } => write!(f, "too much state kept for this user: at most {limit} bytes"),
            StateError::StoreFull => f.write_str("the server's state store is full; try again later"),
            StateError::Corrupt(e) => write!(f, "stored state could not be read: {e}"),
            StateError::Backend(e) => write!(f, "state store unavailable: {e}"),
        }
    }
}

impl From<StateError> for crate::ToolError {
    fn from(error: StateError) -> Self {
        match error {
            StateError::Backend(e) => crate::ToolError::internal(e),
            StateError::Corrupt(e) => crate::ToolError::internal(std::io::Error::other(e)),
            other => crate::ToolError::new(other.to_string()),
        }
    }
}

/// Per-user state for a server: a backend, its bounds and the key that
/// binds handles to their users. Register it with
/// [`Server::user_state`](crate::Server::user_state); handlers take
/// [`UserState<T>`].
#[derive(Clone)]
pub struct UserStore {
    pub(crate) backend: Arc<dyn UserStateBackend>,
    pub(crate) limits: Arc<StateLimits>,
    pub(crate) key: Arc<handle::Key>,
}

impl fmt::Debug for UserStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserStore").field("limits", &self.limits).finish_non_exhaustive()
    }
}

impl UserStore {
    /// State in this process's memory, within `limits`, with a random key
    /// for handles (they do not outlive the process, and neither does the
    /// state).
    pub fn memory(limits: StateLimits) -> UserStore {
        UserStore::with_backend(MemoryUserStore::new(), limits)
    }

    /// State kept by `backend`, within `limits`, with a random key for
    /// handles: give replicas one key with [`key`](Self::key).
    pub fn with_backend(backend: impl UserStateBackend, limits: StateLimits) -> UserStore {
        UserStore { backend: Arc::new(backend), limits: Arc::new(limits), key: Arc::new(handle::Key::random()) }
    }

    /// State in Redis (shared by the replicas that use the same `store`
    /// and the same [`key`](Self::key)), within `limits`.
    #[cfg(feature = "redis")]
    pub fn redis(store: crate::stores::RedisStore, limits: StateLimits) -> UserStore {
        UserStore::with_backend(redis::RedisUserStore::new(store), limits)
    }

    /// Sign handles with `secret` (at least 32 bytes) instead of a random
    /// key, so that every replica accepts the handles any of them minted.
    pub fn key(mut self, secret: &[u8]) -> Result<UserStore, crate::Error> {
        self.key = Arc::new(handle::Key::new(secret)?);
        Ok(self)
    }

    /// The store's bounds.
    pub fn limits(&self) -> &StateLimits {
        &self.limits
    }
}
