//! The table of what runs on one connection or session: each request
//! listed (under its id, or a key of its own) from before it does anything
//! until it has its answer, with how to stop it. [`Calls`](super::calls::Calls)
//! keeps one behind a lock, since an HTTP session's requests arrive
//! concurrently; a [`Slot`] is one entry's owner, so an entry cannot
//! outlive what it lists, however that ends (answered, cancelled, aborted,
//! or dropped before it started).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use mcp_core::{ErrorObject, RequestId};
use tokio::sync::OwnedSemaphorePermit;
use tokio::task::AbortHandle;

use super::calls::Calls;
use super::reply::Answer;
use crate::request::context::Cancellation;

/// What a request is listed under.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// Its JSON-RPC id, which no other running request of the same client
    /// may use.
    Id(RequestId),
    /// A key of its own: a stateless request, or a batch.
    Own(u64),
}

/// One listed request.
pub(super) struct Running {
    /// Tells this request apart from a later one listed under the same id.
    ticket: u64,
    /// Its task, once it runs as one.
    handle: Option<AbortHandle>,
    /// Its signal, once its call exists.
    cancellation: Option<Cancellation>,
    /// A `subscriptions/listen` stream: it never ends on its own.
    subscription: bool,
}

impl Running {
    /// Stop it: the task first, so a subscription cannot send its closing
    /// answer after all.
    pub(super) fn stop(self) {
        if let Some(handle) = self.handle {
            handle.abort();
        }
        if let Some(cancellation) = self.cancellation {
            cancellation.cancel();
        }
    }
}

/// The requests running on one connection or session.
#[derive(Default)]
pub(super) struct Table {
    running: HashMap<Key, Running>,
    /// The next ticket or key of its own.
    next: u64,
    /// Slots not yet dropped: listed requests, and cancelled ones whose
    /// task has not yet let go of its future.
    live: usize,
    /// When the last slot was dropped.
    last_end: Option<Instant>,
}

impl Table {
    /// Whether the request listed under `key` is the one with `ticket`.
    pub(super) fn holds(&self, key: &Key, ticket: u64) -> bool {
        self.running.get(key).is_some_and(|r| r.ticket == ticket)
    }

    /// Give a listed request its signal; `false` if it was cancelled.
    pub(super) fn arm(&mut self, slot: &Slot, cancellation: Cancellation) -> bool {
        match self.running.get_mut(&slot.key) {
            Some(running) if running.ticket == slot.ticket => {
                running.cancellation = Some(cancellation);
                true
            }
            _ => false,
        }
    }

    /// A listed request runs as its own task now.
    pub(super) fn started(&mut self, key: &Key, handle: AbortHandle, cancellation: Cancellation, subscription: bool) {
        if let Some(running) = self.running.get_mut(key) {
            running.handle = Some(handle);
            running.cancellation = Some(cancellation);
            running.subscription = subscription;
        }
    }

    /// Unlist the request under `key` (only if it is the one with `ticket`,
    /// when given), to stop it.
    pub(super) fn remove(&mut self, key: &Key, ticket: Option<u64>) -> Option<Running> {
        if ticket.is_some_and(|ticket| !self.holds(key, ticket)) {
            return None;
        }
        self.running.remove(key)
    }

    /// Unlist every request, to stop them all.
    pub(super) fn take_all(&mut self) -> Vec<Running> {
        self.running.drain().map(|(_, running)| running).collect()
    }

    /// The signals of the open subscriptions.
    pub(super) fn subscriptions(&self) -> Vec<Cancellation> {
        self.running.values().filter(|r| r.subscription).filter_map(|r| r.cancellation.clone()).collect()
    }

    /// When a request last ended, if one did.
    #[cfg(feature = "http")]
    pub(super) fn last_end(&self) -> Option<Instant> {
        self.last_end
    }

    /// How many slots are not yet dropped.
    pub(super) fn live(&self) -> usize {
        self.live
    }
}

/// One listed request's place in its table, and its place among the calls
/// that may run (its permit). Dropped, it unlists the request (if a later
/// one did not take its id) and frees the permit.
pub(super) struct Slot {
    calls: Arc<Calls>,
    pub(super) key: Key,
    pub(super) ticket: u64,
    /// Held by a call; a subscription holds none.
    pub(super) permit: Option<OwnedSemaphorePermit>,
    listed: bool,
}

impl Slot {
    /// List a request under `key` (a key of its own if `None`); the
    /// refusal if a running request uses that id.
    pub(super) fn list(calls: &Arc<Calls>, key: Option<Key>) -> Result<Slot, Box<Answer>> {
        let mut table = calls.lock();
        table.next += 1;
        let key = key.unwrap_or(Key::Own(table.next));
        if table.running.contains_key(&key) {
            let Key::Id(id) = key else { unreachable!("a key of its own is never in use") };
            let error = ErrorObject::invalid_request(format!("request id {id} is already in use by a running request"));
            return Err(Box::new(Answer::error(Some(id), error)));
        }
        let ticket = table.next;
        table.running.insert(key.clone(), Running { ticket, handle: None, cancellation: None, subscription: false });
        table.live += 1;
        drop(table);
        Ok(Slot { calls: calls.clone(), key, ticket, permit: None, listed: true })
    }

    /// The request has its answer: its id is free, and so is its permit.
    pub(super) fn unlist(&mut self) {
        if std::mem::take(&mut self.listed) {
            self.calls.lock().remove(&self.key, Some(self.ticket));
        }
        self.permit = None;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.unlist();
        let mut table = self.calls.lock();
        table.live -= 1;
        table.last_end = Some(Instant::now());
        let settled = table.live == 0;
        drop(table);
        // Only a drain waits, and only for nothing to run.
        if settled {
            self.calls.ended();
        }
    }
}
