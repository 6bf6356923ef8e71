//! What replicas of one server share, each behind a trait with an
//! in-memory default: the events of resumable streams ([`EventStore`]),
//! handshake sessions ([`SessionStore`]), and list and resource change
//! announcements ([`Fanout`]). One process needs none of them shared;
//! several behind a load balancer share all three (the `redis` feature's
//! [`RedisStore`] is all three).

mod events;
mod fanout;
#[cfg(feature = "redis")]
mod redis;
mod sessions;

use std::future::Future;
use std::pin::Pin;

pub use events::{EventStore, KeptEvent, MemoryEventStore};
pub use fanout::{Fanout, LocalFanout};
pub(crate) use fanout::{News, connect as connect_fanout};
#[cfg(feature = "redis")]
pub use redis::RedisStore;
#[cfg(feature = "redis")]
pub(crate) use redis::within as redis_within;
pub use sessions::{MemorySessionStore, SessionStore};

/// What a store's methods return: they may go over the network.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store could not do what it was asked (the runtime logs it and
/// goes on without: an event that is not kept cannot be replayed, a
/// session that is not saved cannot move to another replica).
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

impl<T: EventStore + ?Sized> EventStore for std::sync::Arc<T> {
    fn keep<'a>(&'a self, stream: &'a str, number: u64, message: &'a [u8]) -> StoreFuture<'a, ()> {
        (**self).keep(stream, number, message)
    }
    fn replay<'a>(&'a self, stream: &'a str, after: u64) -> StoreFuture<'a, Option<Vec<KeptEvent>>> {
        (**self).replay(stream, after)
    }
    fn forget<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, ()> {
        (**self).forget(prefix)
    }
    fn remove<'a>(&'a self, stream: &'a str) -> StoreFuture<'a, ()> {
        (**self).remove(stream)
    }
}

impl<T: SessionStore + ?Sized> SessionStore for std::sync::Arc<T> {
    fn save<'a>(&'a self, id: &'a str, record: &'a [u8], ttl: std::time::Duration) -> StoreFuture<'a, ()> {
        (**self).save(id, record, ttl)
    }
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        (**self).load(id)
    }
    fn touch<'a>(&'a self, id: &'a str, ttl: std::time::Duration) -> StoreFuture<'a, ()> {
        (**self).touch(id, ttl)
    }
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        (**self).remove(id)
    }
}

/// A store answer that is ready at once (the in-memory stores).
pub(crate) fn ready<'a, T: Send + 'a>(value: T) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}
