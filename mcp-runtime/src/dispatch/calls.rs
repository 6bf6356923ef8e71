//! The requests running on one connection or session, whatever carries
//! it: each started where it was read (answered at once if it finishes at
//! its first poll), its id refused while in use, their number bounded,
//! each cancellable by id, and all drained when the connection ends. The
//! message loop of every message transport and the HTTP sessions both keep
//! their running requests in a [`Table`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use mcp_core::{ErrorObject, RequestId};
use tokio::task::{AbortHandle, JoinSet};

use super::outgoing::Outgoing;
use super::reply::Answer;
use super::{Action, poll_once};
use crate::request::context::Cancellation;
use crate::tools::BoxFuture;

/// One running request.
struct Running {
    handle: AbortHandle,
    cancellation: Cancellation,
    /// A `subscriptions/listen` stream: it never ends on its own, and it
    /// does not count against the limit of running calls.
    subscription: bool,
}

/// The requests running on one connection or session, by id: which ids
/// are in use and how to stop each. A connection owns its table ([`Calls`]);
/// an HTTP session, whose requests arrive concurrently, keeps one behind a
/// lock.
#[derive(Default)]
pub(crate) struct Table {
    running: HashMap<RequestId, Running>,
}

impl Table {
    /// The refusal for a request whose id a running request still uses, if
    /// it does: refused before the request does anything (a subscription
    /// would otherwise be acknowledged, then refused).
    pub(crate) fn refuse_id_in_use(&self, id: &RequestId) -> Option<Answer> {
        self.in_use(id).then(|| {
            let error = ErrorObject::invalid_request(format!("request id {id} is already in use by a running request"));
            Answer::error(Some(id.clone()), error)
        })
    }

    /// Whether a request with this id runs now.
    pub(crate) fn in_use(&self, id: &RequestId) -> bool {
        self.running.get(id).is_some_and(|r| !r.handle.is_finished())
    }

    /// Track a request that runs as its own task.
    pub(crate) fn track(&mut self, id: RequestId, handle: AbortHandle, cancellation: Cancellation, subscription: bool) {
        self.running.insert(id, Running { handle, cancellation, subscription });
    }

    /// A request ended: its id is free again.
    pub(crate) fn forget(&mut self, id: &RequestId) {
        self.running.remove(id);
    }

    /// Stop the request with `id`, if it still runs. Dropping its future
    /// stops it at its next `.await`; the spec sends no answer for a
    /// cancelled request. Aborted before the signal, so a subscription
    /// cannot send its closing answer after all.
    pub(crate) fn cancel(&mut self, id: &RequestId) {
        if let Some(running) = self.running.remove(id) {
            running.handle.abort();
            running.cancellation.cancel();
        }
    }

    /// Stop every request (the session ended).
    #[cfg(feature = "http")]
    pub(crate) fn cancel_all(&mut self) {
        for (_, running) in self.running.drain() {
            running.cancellation.cancel();
            running.handle.abort();
        }
    }

    /// Whether any request still runs.
    #[cfg(feature = "http")]
    pub(crate) fn busy(&self) -> bool {
        self.running.values().any(|r| !r.handle.is_finished())
    }

    /// The calls that count against the limit (subscriptions do not).
    fn calls(&self) -> usize {
        self.running.values().filter(|r| !r.subscription).count()
    }
}

/// The requests running on one connection: its [`Table`], and their tasks.
pub(crate) struct Calls {
    tasks: JoinSet<Option<RequestId>>,
    table: Table,
    max_running: usize,
}

impl Calls {
    /// No calls yet; at most `max_running` at once.
    pub(crate) fn new(max_running: usize) -> Self {
        Calls { tasks: JoinSet::new(), table: Table::default(), max_running }
    }

    /// Wait until fewer calls than the limit run, so a client that sends
    /// faster than its calls end is read no further meanwhile.
    pub(crate) async fn admit(&mut self) {
        self.reap();
        while self.table.calls() >= self.max_running {
            let Some(done) = self.tasks.join_next().await else { break };
            self.forget(done);
        }
    }

    /// See [`Table::refuse_id_in_use`]; calls that ended meanwhile free
    /// their ids first.
    pub(crate) fn refuse_id_in_use(&mut self, id: &RequestId) -> Option<Answer> {
        self.reap();
        self.table.refuse_id_in_use(id)
    }

    /// Do what dispatch decided for one message, answering on `out`.
    pub(crate) async fn perform(&mut self, action: Action, out: &Outgoing) {
        match action {
            Action::None => {}
            Action::Reply(answer) => out.answer(&answer),
            Action::Call(id, future, cancellation) => self.start(id, future, cancellation, false, out).await,
            Action::Listen(id, future, cancellation) => self.start(id, future, cancellation, true, out).await,
            Action::Cancel(id) => self.cancel(&id),
        }
    }

    /// Stop the request with `id`, if it still runs ([`Table::cancel`]).
    pub(crate) fn cancel(&mut self, id: &RequestId) {
        self.table.cancel(id);
    }

    /// Run a batch's requests, answered together (they are not cancellable
    /// one by one).
    pub(crate) fn spawn_batch(&mut self, answers: BoxFuture<'static, Vec<Answer>>, out: &Outgoing) {
        let out = out.clone();
        self.tasks.spawn(async move {
            let responses = answers.await;
            if !responses.is_empty() {
                out.answers(&responses);
            }
            None
        });
    }

    /// The connection ends: close subscriptions gracefully (each answers
    /// its `subscriptions/listen`), let calls finish within `grace`, then
    /// cancel the rest.
    pub(crate) async fn drain(mut self, grace: Duration) {
        self.table.running.values().filter(|r| r.subscription).for_each(|r| r.cancellation.cancel());
        if self.tasks.is_empty() {
            return;
        }
        let tasks = &mut self.tasks;
        let drained = tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            tracing::warn!(
                running = self.tasks.len(),
                ?grace,
                "input closed; cancelling calls still running after the grace period"
            );
            self.table.running.values().for_each(|r| r.cancellation.cancel());
            self.tasks.shutdown().await;
        }
    }

    /// A call that completes at once (most tools) is answered here: a task
    /// of its own would only hand its answer back across threads. One that
    /// waits goes on as its own task, as does every subscription.
    async fn start(
        &mut self,
        id: RequestId,
        mut future: BoxFuture<'static, Answer>,
        cancellation: Cancellation,
        subscription: bool,
        out: &Outgoing,
    ) {
        if !subscription && let Poll::Ready(answer) = first_poll(&mut future).await {
            out.answer(&answer);
            return;
        }
        let out = out.clone();
        let task_id = id.clone();
        let handle = self.tasks.spawn(async move {
            out.answer(&future.await);
            Some(task_id)
        });
        self.table.track(id, handle, cancellation, subscription);
    }

    /// Free the ids of the calls that ended.
    fn reap(&mut self) {
        while let Some(done) = self.tasks.try_join_next() {
            self.forget(done);
        }
    }

    fn forget(&mut self, done: Result<Option<RequestId>, tokio::task::JoinError>) {
        if let Ok(Some(id)) = done {
            self.table.forget(&id);
        }
    }
}

/// Poll a call once where its request was read (see [`poll_once`]). Until
/// it first waits, the connection reads nothing: a first poll longer than
/// [`SLOW_FIRST_POLL`] (a synchronous tool doing slow work) is logged once,
/// with what to do.
pub(crate) async fn first_poll(future: &mut BoxFuture<'static, Answer>) -> Poll<Answer> {
    static WARNED: AtomicBool = AtomicBool::new(false);
    let started = Instant::now();
    let polled = poll_once(future).await;
    let took = started.elapsed();
    if took > SLOW_FIRST_POLL && !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "a call ran {took:?} before it first waited, and the connection read nothing meanwhile: make slow \
             tools `async` and move blocking work into `tokio::task::spawn_blocking` (logged once)"
        );
    }
    polled
}

/// How long a call may run before it first waits without a warning.
const SLOW_FIRST_POLL: Duration = Duration::from_millis(50);
