//! A call's progress: heard in order, and all of what came before the
//! call's answer heard before the call resolves.
//!
//! Why this shape. The reader (the task that reads the server) never runs
//! a handler: one slow handler would hold up every answer and every other
//! call's progress. It only pushes the update onto the call's own queue,
//! which never waits. A task of the call's runs the handler over that
//! queue, in order. Once the call has its answer, it waits for that task
//! to empty the queue before it resolves: the reader pushed every update
//! that preceded the answer on the wire before it delivered the answer,
//! so all of them are heard by then, and a progress bar read right after
//! the `.await` is complete. A slow handler delays only its own call, and
//! for at most the call's timeout past the answer: then the call resolves
//! anyway (a stuck handler does not cost the server's result), and the
//! rest is heard after it.
//!
//! The queue is bounded ([`PROGRESS`]): past it, the newest update takes
//! the place of the last one waiting, rather than being dropped, since a
//! later update says more than the one before it, and the last one (the
//! bar at its end) is the one that must not be lost.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::ProgressParams;
use tokio::sync::Notify;

/// How many updates wait for a slow handler before the newest takes the
/// place of the last waiting.
pub(crate) const PROGRESS: usize = 256;

/// The handler of a call's progress.
pub(crate) type Handler = Box<dyn FnMut(ProgressParams) + Send>;

/// Where the reader puts a call's updates; one per holder (the call's
/// options and the session's table of tokens), the queue ends when the
/// last is dropped.
pub(crate) struct Updates(Arc<Shared>);

/// The task that runs a call's handler, to wait for.
pub(crate) struct Heard(tokio::task::JoinHandle<()>);

struct Shared {
    state: Mutex<State>,
    /// Woken by each update, and by the last [`Updates`] going.
    wake: Notify,
}

#[derive(Default)]
struct State {
    waiting: VecDeque<ProgressParams>,
    /// How many [`Updates`] are held.
    holders: usize,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A queue for a call's updates, and the task that hears them with `f`.
pub(crate) fn channel(mut f: Handler) -> (Updates, Heard) {
    let shared = Arc::new(Shared { state: Mutex::new(State { holders: 1, ..State::default() }), wake: Notify::new() });
    let queue = shared.clone();
    let task = tokio::spawn(async move {
        loop {
            let next = {
                let mut state = queue.state();
                match state.waiting.pop_front() {
                    Some(update) => Some(update),
                    None if state.holders == 0 => return,
                    None => None,
                }
            };
            match next {
                Some(update) => f(update),
                // A wake between the look and this wait is kept by
                // `notify_one` for the wait.
                None => queue.wake.notified().await,
            }
        }
    });
    (Updates(shared), Heard(task))
}

impl Updates {
    /// Queue `update`, never waiting.
    pub(crate) fn push(&self, update: ProgressParams) {
        let mut state = self.0.state();
        if state.waiting.len() >= PROGRESS
            && let Some(last) = state.waiting.back_mut()
        {
            *last = update;
        } else {
            state.waiting.push_back(update);
        }
        drop(state);
        self.0.wake.notify_one();
    }
}

impl Clone for Updates {
    fn clone(&self) -> Self {
        self.0.state().holders += 1;
        Updates(self.0.clone())
    }
}

impl Drop for Updates {
    fn drop(&mut self) {
        self.0.state().holders -= 1;
        self.0.wake.notify_one();
    }
}

impl Heard {
    /// Resolves once every update queued is heard and no more can come
    /// (every [`Updates`] is gone), or after `within`, whichever is first.
    pub(crate) async fn all(self, within: Duration) {
        if tokio::time::timeout(within, self.0).await.is_err() {
            tracing::warn!(?within, "a progress handler is still busy after the call ended; the call goes on");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(progress: f64) -> ProgressParams {
        ProgressParams { progress_token: "t".into(), progress, total: None, message: None }
    }

    #[tokio::test]
    async fn every_update_is_heard_in_order_before_the_queue_ends() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let into = heard.clone();
        let (updates, done) = channel(Box::new(move |p| into.lock().unwrap().push(p.progress)));
        let table = updates.clone();
        for n in 0..10 {
            table.push(update(f64::from(n)));
        }
        drop((updates, table));
        done.all(Duration::from_secs(5)).await;
        assert_eq!(*heard.lock().unwrap(), (0..10).map(f64::from).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn past_the_bound_the_newest_takes_the_last_place() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let into = heard.clone();
        let (updates, done) = channel(Box::new(move |p| into.lock().unwrap().push(p.progress)));
        // On this one thread, the handler runs only once these are queued.
        let count = u32::try_from(PROGRESS).unwrap() + 10;
        for n in 0..count {
            updates.push(update(f64::from(n)));
        }
        drop(updates);
        done.all(Duration::from_secs(5)).await;
        let heard = heard.lock().unwrap();
        assert_eq!(heard.len(), PROGRESS);
        assert_eq!(heard.last(), Some(&f64::from(count - 1)), "the last update is kept");
    }
}
