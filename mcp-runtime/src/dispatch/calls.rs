//! The requests running on one connection or session, whatever carries
//! it, and the one way a transport hands dispatch a message: [`Calls::submit`]
//! answers it at once or starts it. A message transport (stdio, memory, a
//! [`Transport`](crate::transport::Transport) of one's own), an HTTP
//! session and the stateless HTTP requests all go through it, so each gets
//! the same rules: an id in use is refused before its request does
//! anything, at most `max_running_calls` calls run at once (the next one
//! waits for a slot), a call that finishes at its first poll is answered
//! where it was read (and one whose first poll is slow is logged), a
//! running call is cancelled by `notifications/cancelled` or by its
//! client hanging up ([`Started::cancel`]), and all are drained or
//! cancelled when the connection or session ends.
//!
//! What runs is listed in a table ([`running`](super::running)); the
//! transports never see what dispatch decided for a message, only its
//! outcome ([`Submitted`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;
use std::time::{Duration, Instant};

use mcp_core::Message;
use serde_json::Value;
use tokio::sync::{Notify, Semaphore};

use super::arrival::Arrival;
use super::outgoing::Outgoing;
use super::reply::Answer;
use super::running::{Key, Slot, Table};
use super::{Action, Session, poll_once};
use crate::request::context::Cancellation;
use crate::tools::BoxFuture;

/// How the requests of one table are told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// What a request/response transport uses (HTTP is the built-in one).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) enum Ids {
    /// By their JSON-RPC ids: one client sends them all (a connection, an
    /// HTTP session), so an id in use is refused and
    /// `notifications/cancelled` names the request it stops.
    Shared,
    /// Each request on its own: stateless HTTP requests, whose ids mean
    /// something only within their own HTTP request (two clients may both
    /// send id 1). Nothing is refused for its id; a request is cancelled
    /// only by its client hanging up.
    PerRequest,
}

/// What became of one submitted message.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) enum Submitted {
    /// Nothing to answer: a notification (a cancellation was carried out),
    /// a response to the server's own request, or a call cancelled before
    /// it started.
    Nothing,
    /// Its answer, now: the request was refused, needed no call, or its
    /// call finished at its first poll. Nothing was queued for it.
    Answered(Answer),
    /// Its call runs: its messages, then its answer go to the stream it
    /// was submitted with (then the stream's end, if the stream is the
    /// request's own).
    Started(Started),
}

/// A call that runs, to cancel it when its client hangs up (a request/
/// response transport's: HTTP's).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Started {
    calls: Arc<Calls>,
    key: Key,
    ticket: u64,
}

#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl Started {
    /// Cancel the call, if it still runs (and not a later one reusing its
    /// id): the client stopped waiting for it.
    pub(crate) fn cancel(&self) {
        self.calls.cancel_ticket(&self.key, self.ticket);
    }
}

/// The calls running on one connection, HTTP session, or among the
/// stateless HTTP requests of one endpoint.
pub(crate) struct Calls {
    table: Mutex<Table>,
    /// One permit per call that may run; a subscription takes none.
    slots: Arc<Semaphore>,
    ids: Ids,
    /// Told whenever the last listed request is gone.
    ended: Notify,
    /// Whether a slow first poll was logged here already.
    warned: AtomicBool,
}

impl Calls {
    /// No calls yet; at most `max_running` at once.
    pub(crate) fn new(max_running: usize, ids: Ids) -> Arc<Self> {
        Arc::new(Calls {
            table: Mutex::default(),
            slots: Arc::new(Semaphore::new(max_running.clamp(1, Semaphore::MAX_PERMITS))),
            ids,
            ended: Notify::new(),
            warned: AtomicBool::new(false),
        })
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn ended(&self) {
        self.ended.notify_waiters();
    }

    /// Wait until a call may start, so a message transport whose client
    /// sends faster than its calls end reads no further meanwhile.
    pub(crate) async fn admit(&self) {
        drop(self.slots.acquire().await);
    }

    /// Hand one message to dispatch on `session`: answered at once, or
    /// started. A request's own messages (progress, log messages, requests
    /// to the client) and a started call's answer go to `stream`; with
    /// `own_stream` (an HTTP request's response) the stream is ended after
    /// the answer. `arrival` is what the transport knows of the message
    /// besides (an HTTP request's token claims, the envelope it read).
    pub(crate) async fn submit(
        self: &Arc<Self>,
        session: &Session,
        message: Message,
        stream: &Outgoing,
        arrival: Arrival<'_>,
        own_stream: bool,
    ) -> Submitted {
        let Message::Request(request) = message else {
            if let Action::Cancel(id) = session.handle(message, stream)
                && self.ids == Ids::Shared
            {
                self.cancel(&Key::Id(id));
            }
            return Submitted::Nothing;
        };
        let key = match self.ids {
            Ids::Shared => Some(Key::Id(request.id.clone())),
            Ids::PerRequest => None,
        };
        // Listed before it does anything: a second request with its id is
        // refused, a subscription before it is acknowledged.
        let slot = match Slot::list(self, key) {
            Ok(slot) => slot,
            Err(refusal) => return Submitted::Answered(*refusal),
        };
        match session.handle_arrived(Message::Request(request), stream, arrival) {
            Action::None | Action::Cancel(_) => Submitted::Nothing,
            Action::Reply(answer) => Submitted::Answered(answer),
            Action::Call(_, future, cancellation) => self.run(slot, future, cancellation, stream, own_stream).await,
            Action::Listen(_, future, cancellation) => self.spawn(slot, future, cancellation, stream, own_stream),
        }
    }

    /// Hand a JSON-RPC batch to dispatch: its requests are answered
    /// together, as one call (one slot against the limit; they are not
    /// cancellable one by one). `Err` is the answer to a batch this
    /// session does not take.
    pub(crate) async fn submit_batch(
        self: &Arc<Self>,
        session: &Session,
        items: Vec<Value>,
        out: &Outgoing,
    ) -> Result<(), Answer> {
        let (cancels, answers) = session.batch(items, out).map_err(|error| Answer::error(None, error))?;
        if self.ids == Ids::Shared {
            cancels.into_iter().for_each(|id| self.cancel(&Key::Id(id)));
        }
        let Ok(mut slot) = Slot::list(self, None) else { unreachable!("a key of its own is never in use") };
        let key = slot.key.clone();
        slot.permit = Some(self.slots.clone().acquire_owned().await.expect("the slots are never closed"));
        let out = out.clone();
        let mut table = self.lock();
        let handle = tokio::spawn(async move {
            let responses = answers.await;
            slot.unlist();
            if !responses.is_empty() {
                out.answers(&responses);
            }
        });
        table.started(&key, handle.abort_handle(), Cancellation::default(), false);
        Ok(())
    }

    /// A call: it waits for a slot, then is polled once where it was read
    /// (most calls finish there: a task of its own would only hand the
    /// answer back across threads); one that waits goes on as its own task.
    async fn run(
        self: &Arc<Self>,
        mut slot: Slot,
        mut future: BoxFuture<'static, Answer>,
        cancellation: Cancellation,
        stream: &Outgoing,
        own_stream: bool,
    ) -> Submitted {
        slot.permit = Some(match self.slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => self.slots.clone().acquire_owned().await.expect("the slots are never closed"),
        });
        // Cancelled while it waited for its slot: it never starts.
        if !self.lock().arm(&slot, cancellation.clone()) {
            return Submitted::Nothing;
        }
        if let Poll::Ready(answer) = self.first_poll(&mut future).await {
            return Submitted::Answered(answer);
        }
        self.spawn(slot, future, cancellation, stream, own_stream)
    }

    /// Run a call (or subscription) as its own task, listed until it ends.
    fn spawn(
        self: &Arc<Self>,
        mut slot: Slot,
        future: BoxFuture<'static, Answer>,
        cancellation: Cancellation,
        stream: &Outgoing,
        own_stream: bool,
    ) -> Submitted {
        let (key, ticket) = (slot.key.clone(), slot.ticket);
        let stream = stream.clone();
        // Locked while the task starts, so it cannot end before it is listed.
        let mut table = self.lock();
        if !table.holds(&key, ticket) {
            // Cancelled during its first poll.
            return Submitted::Nothing;
        }
        let subscription = slot.permit.is_none();
        let handle = tokio::spawn(async move {
            let answer = future.await;
            // Its id is free once it has its answer.
            slot.unlist();
            stream.answer(&answer);
            if own_stream {
                stream.end();
            }
        });
        table.started(&key, handle.abort_handle(), cancellation, subscription);
        drop(table);
        Submitted::Started(Started { calls: self.clone(), key, ticket })
    }

    /// Stop the request listed under `key`, if it still runs. Dropping its
    /// future stops it at its next `.await`; the spec sends no answer for
    /// a cancelled request. Aborted before the signal, so a subscription
    /// cannot send its closing answer after all.
    fn cancel(&self, key: &Key) {
        let running = self.lock().remove(key, None);
        if let Some(running) = running {
            running.stop();
        }
    }

    fn cancel_ticket(&self, key: &Key, ticket: u64) {
        let running = self.lock().remove(key, Some(ticket));
        if let Some(running) = running {
            running.stop();
        }
    }

    /// Stop every request (the session ended).
    pub(crate) fn cancel_all(&self) {
        let running = self.lock().take_all();
        running.into_iter().for_each(|running| running.stop());
    }

    /// Whether any call, batch or subscription still runs.
    #[cfg(feature = "http")]
    pub(crate) fn busy(&self) -> bool {
        self.lock().live() > 0
    }

    /// When a call, batch or subscription last ended, if one did.
    #[cfg(feature = "http")]
    pub(crate) fn last_end(&self) -> Option<Instant> {
        self.lock().last_end()
    }

    /// The connection ends: close subscriptions gracefully (each answers
    /// its `subscriptions/listen`), let calls finish within `grace`, then
    /// cancel the rest.
    pub(crate) async fn drain(&self, grace: Duration) {
        let subscriptions = self.lock().subscriptions();
        subscriptions.iter().for_each(Cancellation::cancel);
        if tokio::time::timeout(grace, self.settled()).await.is_err() {
            tracing::warn!(
                running = self.lock().live(),
                ?grace,
                "input closed; cancelling calls still running after the grace period"
            );
            self.cancel_all();
            self.settled().await;
        }
    }

    /// Wait until nothing runs (every task ended, or dropped once aborted).
    async fn settled(&self) {
        loop {
            let ended = self.ended.notified();
            let mut ended = std::pin::pin!(ended);
            ended.as_mut().enable();
            if self.lock().live() == 0 {
                return;
            }
            ended.await;
        }
    }

    /// Poll a call once where its request was read (see [`poll_once`]).
    /// Until it first waits, the connection (or the HTTP request) does
    /// nothing else: a first poll longer than [`SLOW_FIRST_POLL`] (a
    /// synchronous tool doing slow work) is logged, once per table, with
    /// what to do.
    async fn first_poll(&self, future: &mut BoxFuture<'static, Answer>) -> Poll<Answer> {
        let started = Instant::now();
        let polled = poll_once(future).await;
        let took = started.elapsed();
        if took > SLOW_FIRST_POLL && !self.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "a call ran {took:?} before it first waited, and the connection read nothing meanwhile: make slow \
                 tools `async` and move blocking work into `tokio::task::spawn_blocking` (logged once)"
            );
        }
        polled
    }
}

/// How long a call may run before it first waits without a warning.
const SLOW_FIRST_POLL: Duration = Duration::from_millis(50);
