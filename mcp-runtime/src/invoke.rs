//! One pipeline for every request that runs a user's handler
//! (`tools/call`, `prompts/get`, `resources/read`, `completion/complete`):
//! the steps between "this request may run" and "this is its answer" are
//! written here once, so the kinds cannot drift apart.
//!
//! Before the pipeline, each method admits its request: it parses the
//! params, finds the component, names the span and checks scopes, and a
//! tool checks its arguments and rate limits. Those refusals are the
//! protocol's errors (or a tool's error result) and run no user code.
//!
//! Then, from the outside in:
//! 1. **Timeout**: outermost, so the deadline covers everything below;
//!    dropping the handler's future is what stops it (its next `.await`
//!    never resumes).
//! 2. **Incident scope and `catch_unwind`**: a panic in the handler (or in
//!    building its future) becomes an internal error masked behind an
//!    incident id, and what the handler logs knows whether details show.
//! 3. **Rounds** (2026-07-28's multi-round requests): right around the
//!    handler, because it watches each poll of it: a handler that waits on
//!    a question the request did not answer is stopped, and the request is
//!    answered with an `InputRequiredResult`.
//! 4. **The era check**: after the handler, because only running it shows
//!    that it needed a capability a 2026-07-28 client did not declare.
//! 5. **The answer**: each kind turns the [`Outcome`] into its result or
//!    error, in one function of its own.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use mcp_core::InputRequiredResult;
use serde_json::json;

use crate::client::rounds::{self, Round, Rounds};
use crate::dispatch::reply::Answer;
use crate::dispatch::{Action, Incoming};
use crate::request::RequestParts;

/// How one handler's run ended.
pub(crate) enum Outcome<R> {
    /// It returned.
    Done(R),
    /// It panicked, with this message.
    Panicked(String),
    /// It ran past its timeout and was stopped.
    TimedOut(Duration),
}

/// What the pipeline needs beside the handler: the request's rounds and
/// its handler's timeout.
#[derive(Default)]
pub(crate) struct Steps {
    pub(crate) rounds: Option<Arc<Rounds>>,
    pub(crate) timeout: Option<Duration>,
}

/// Run `start(parts)` through the pipeline as `request`'s call; `answer`
/// turns its outcome into the answer (it runs inside the request's span).
pub(crate) fn call<R, F>(
    request: &Incoming<'_>,
    steps: Steps,
    mut parts: RequestParts,
    start: impl FnOnce(RequestParts) -> F,
    answer: impl FnOnce(Outcome<R>) -> Answer + Send + 'static,
) -> Action
where
    F: Future<Output = R> + Send + 'static,
    R: Send + 'static,
{
    parts.rounds = steps.rounds.clone();
    let (missing_capability, cancellation) = (parts.missing_capability.clone(), parts.cancellation.clone());
    let show_details = request.shared().show_internal_errors;
    // A hand-written handler may panic before it even returns its future;
    // that must not unwind into the connection.
    let future = std::panic::catch_unwind(AssertUnwindSafe(|| start(parts)));
    let (id, projection, version) = (request.id.clone(), request.projection.clone(), request.version);
    let run = async move {
        let outcome = match future {
            Err(panic) => Outcome::Panicked(crate::incident::panic_message(&*panic).to_owned()),
            Ok(future) => match run(steps, show_details, future).await {
                Ok(outcome) => outcome,
                Err(input) => return projection.answer(id, input),
            },
        };
        if let (Some(capability), false) = (missing_capability.get(), version.uses_handshake()) {
            return Answer::error(Some(id), mcp_core::envelope::missing_capability(json!({ capability: {} })));
        }
        answer(outcome)
    };
    Action::Call(request.id.clone(), Box::pin(run), cancellation)
}

/// Steps 1 to 3 around a handler's future; `Err` when it stopped to ask
/// the client for input.
async fn run<R>(
    steps: Steps,
    show_details: bool,
    future: impl Future<Output = R> + Send,
) -> Result<Outcome<R>, InputRequiredResult> {
    let future = rounds::run(steps.rounds, future);
    let guarded = crate::incident::scope(show_details, AssertUnwindSafe(future).catch_unwind());
    let ended = match steps.timeout {
        Some(limit) => tokio::time::timeout(limit, guarded).await.map_err(|_| limit),
        None => Ok(guarded.await),
    };
    Ok(match ended {
        Ok(Ok(Round::Done(result))) => Outcome::Done(result),
        Ok(Ok(Round::InputRequired(input))) => return Err(input),
        Ok(Err(panic)) => Outcome::Panicked(crate::incident::panic_message(&*panic).to_owned()),
        Err(limit) => Outcome::TimedOut(limit),
    })
}

/// "2 seconds", "0.5 seconds", "1 second": a timeout as error texts say it.
pub(crate) fn seconds(limit: Duration) -> String {
    let seconds = limit.as_secs_f64();
    if seconds == 1.0 { "1 second".to_owned() } else { format!("{seconds} seconds") }
}
