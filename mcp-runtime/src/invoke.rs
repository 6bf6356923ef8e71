//! One pipeline for every request that runs a user's handler
//! (`tools/call`, `prompts/get`, `resources/read`, `completion/complete`):
//! the steps between "this request may run" and "this is its answer" are
//! written here once, so the kinds cannot drift apart.
//!
//! Each kind is one [`Invocable`] (`admission.rs`): before the pipeline,
//! [`admit`](crate::admission::admit) admits its request, the same steps
//! for every kind: it parses the params, finds the component, names the
//! span, checks scopes, runs the kind's own checks (a tool's arguments)
//! and the rate limits. Those refusals are the protocol's errors (or a
//! tool's error result) and run no user code. The kind value it admitted
//! is what the steps below call: its handler, its settling, its answer.
//!
//! Then, from the outside in:
//! 0. **Task** (a tool that supports tasks, called by a client that
//!    declared the extension; see [`crate::tasks`]): outermost, so all
//!    that follows (the user's layers too) runs in the task once the call
//!    has to wait, and a task's result is the reply a direct call gets.
//! 1. **Rounds** (2026-07-28's multi-round requests): around the layers
//!    and the handler, because it watches each poll of them: a layer or a
//!    handler that waits on a question the request did not answer is
//!    stopped, and the request is answered with an `InputRequiredResult`
//!    (the retry runs them again from the start, and each question is
//!    answered at once).
//! 2. **The user's middleware** (`Server::layer`, see
//!    [`crate::middleware`]): so a layer runs only for admitted requests
//!    and sees the answer as the client would (step 5). A server without
//!    layers boxes nothing here. The incident scope (whether internal
//!    errors show their details) is set once around this step, so it
//!    covers the layers and the handler alike.
//! 3. **Timeout**: around the handler's run, so the deadline covers all of
//!    it; dropping the handler's future is what stops it (its next
//!    `.await` never resumes).
//! 4. **`catch_unwind`**: a panic in the handler (or in building its
//!    future) becomes an internal error masked behind an incident id.
//!
//! On the way back:
//! 5. **Settling**, inside the middleware: each kind turns the handler's
//!    [`Outcome`] into what the client would see ([`Reply`] or a protocol
//!    error), in its [`Invocable::settle`]: a tool's failures become error
//!    results, a prompt's or a resource's become errors, internal ones
//!    masked behind an incident id.
//! 6. **The era check**: only running the handler shows that it needed a
//!    capability a 2026-07-28 client did not declare.
//! 7. **The answer**: each kind projects its reply for the request's
//!    protocol version ([`Invocable::finish`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use mcp_core::ErrorObject;
use serde_json::json;
use tower::Service;

use crate::admission::{Invocable, To};
use crate::client::rounds::{self, Round, Rounds};
use crate::dispatch::reply::Answer;
use crate::dispatch::{Action, Incoming};
use crate::middleware::{Invocation, Kind, Reply};
use crate::request::RequestParts;
use crate::tasks::{Detached, Plan};

/// How one handler's run ended.
pub(crate) enum Outcome<R> {
    /// It returned.
    Done(R),
    /// It panicked, with this message.
    Panicked(String),
    /// It ran past its timeout and was stopped.
    TimedOut(Duration),
}

/// What the pipeline needs beside the handler: the request's rounds, its
/// handler's timeout, and whether it may become a task.
#[derive(Default)]
pub(crate) struct Steps {
    pub(crate) rounds: Option<Arc<Rounds>>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) task: Option<Plan>,
}

/// Run `kind`'s handler through the pipeline as `request`'s call, once
/// [`admit`](crate::admission::admit) let it in: the kind settles the
/// handler's outcome into what the client would see, the server's
/// middleware sees that, and the kind makes it the answer (or refuses a
/// reply of another kind, which a layer may have made by mistake). Both
/// run inside the request's span.
pub(crate) fn call<K: Invocable>(request: &Incoming<'_>, kind: K, steps: Steps, mut parts: RequestParts) -> Action {
    let Steps { rounds, timeout, task: plan } = steps;
    parts.rounds = rounds.clone();
    parts.task = plan.as_ref().map(|plan| plan.running.clone());
    let (missing_capability, cancellation) = (parts.missing_capability.clone(), parts.cancellation.clone());
    let shared = request.shared();
    let show_details = shared.show_internal_errors;
    let middleware = shared.middleware.clone();
    let changes = if middleware.is_some() { shared.announcer.changes() } else { 0 };
    let repeatable = kind.repeatable();
    let kind = Arc::new(kind);
    let running = kind.clone();
    let handler = move |parts: RequestParts| {
        // Fn, not FnOnce: a `Retry` layer may run a repeatable handler again.
        let running = running.clone();
        // A hand-written handler may panic before it even returns its
        // future; that must not unwind into the connection.
        let future = std::panic::catch_unwind(AssertUnwindSafe(|| running.start(parts)));
        async move {
            let outcome = match future {
                Err(panic) => Outcome::Panicked(crate::incident::panic_message(&*panic).to_owned()),
                Ok(future) => run(timeout, future).await,
            };
            running.settle(outcome)
        }
    };
    let to = To::of(request);
    let (id, projection, version) = (to.id.clone(), to.projection.clone(), to.version);
    let run = async move {
        // One scope for the layers and the handler both: a layer's own
        // internal errors are masked (or shown) like the handler's.
        let answering = crate::incident::scope(show_details, async move {
            match middleware {
                None => handler(parts).await,
                Some(mut pipeline) => {
                    let invocation = Invocation::new(K::KIND, parts, changes, repeatable, handler);
                    // A pipeline is always ready: straight to its call, which
                    // runs the first layer's code up to its future, so in a
                    // guard of its own.
                    let called = std::panic::catch_unwind(AssertUnwindSafe(|| pipeline.call(invocation)));
                    let answered = match called {
                        Ok(layers) => AssertUnwindSafe(layers).catch_unwind().await,
                        Err(panic) => Err(panic),
                    };
                    answered.unwrap_or_else(|panic| {
                        let message = crate::incident::panic_message(&*panic);
                        let text =
                            crate::incident::masked("a middleware layer panicked", &message, &message, show_details);
                        Err(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, text))
                    })
                }
            }
        });
        // The rounds are driven around the layers and the handler both: a
        // layer may ask the client too. A request without rounds (most) is
        // not wrapped in their driver.
        let answered = match (plan, rounds) {
            (None, None) => answering.await,
            (None, rounds) => in_rounds(rounds, answering).await,
            (Some(plan), rounds) => match crate::tasks::detach(plan, in_rounds(rounds, answering)).await {
                Detached::Now(answered) => answered,
                Detached::Task(created) => return created.answer(&projection, id),
            },
        };
        if let Ok(Reply::InputRequired(input)) = answered {
            return projection.answer(id, input);
        }
        // Before the handler's own failure: that failure is most likely the
        // capability it could not use.
        if let (Some(capability), false) = (missing_capability.get(), version.uses_handshake()) {
            return Answer::error(Some(id), mcp_core::envelope::missing_capability(json!({ capability: {} })));
        }
        let reply = match answered {
            Ok(reply) => reply,
            Err(error) => return Answer::error(Some(id), error),
        };
        let given = reply.kind().map_or("?", Kind::method);
        kind.finish(reply, &to, &tracing::Span::current()).unwrap_or_else(|| {
            let what = format!("a middleware layer answered a {} request with a {given} reply", K::KIND.method());
            let text =
                crate::incident::masked("a middleware layer answered the wrong kind", &what, &what, show_details);
            Answer::error(Some(id), ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, text))
        })
    };
    Action::Call(request.id.clone(), Box::pin(run), cancellation)
}

/// The layers and the handler, driven one round at a time: a question
/// left waiting in either ends the round with its input request.
async fn in_rounds(
    rounds: Option<Arc<Rounds>>,
    answering: impl Future<Output = Result<Reply, ErrorObject>>,
) -> Result<Reply, ErrorObject> {
    match rounds::run(rounds, answering).await {
        Round::Done(answered) => answered,
        Round::InputRequired(input) => Ok(Reply::InputRequired(input)),
    }
}

/// A handler's future with its timeout, its panic caught.
async fn run<R>(timeout: Option<Duration>, future: impl Future<Output = R> + Send) -> Outcome<R> {
    let guarded = AssertUnwindSafe(future).catch_unwind();
    let ended = match timeout {
        Some(limit) => tokio::time::timeout(limit, guarded).await.map_err(|_| limit),
        None => Ok(guarded.await),
    };
    match ended {
        Ok(Ok(result)) => Outcome::Done(result),
        Ok(Err(panic)) => Outcome::Panicked(crate::incident::panic_message(&*panic).to_owned()),
        Err(limit) => Outcome::TimedOut(limit),
    }
}

/// "2 seconds", "0.5 seconds", "1 second": a timeout as error texts say it.
pub(crate) fn seconds(limit: Duration) -> String {
    let seconds = limit.as_secs_f64();
    if seconds == 1.0 { "1 second".to_owned() } else { format!("{seconds} seconds") }
}
