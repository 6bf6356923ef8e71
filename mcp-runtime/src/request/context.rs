//! [`Context`]: what a running tool can know about its call and say to the
//! client while it works (progress, log messages), and whether the client
//! has cancelled it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_core::{
    ClientCapabilities, Implementation, JsonObject, LoggingLevel, LoggingMessageParams, ProgressParams,
    ProtocolVersion, RequestId, methods,
};
use serde_json::Value;
use tokio::sync::Notify;

use super::{FromRequest, Rejection, RequestParts};
use crate::client::ask::{Elicit, ElicitUrl, ListRoots, Sample, Sampling};
use crate::client::rounds::Rounds;
use crate::client::{Client, Peer};
use crate::dispatch::outgoing::Outgoing;
use crate::tasks::running::Running;
use crate::tools::ToolError;

/// Progress notifications closer together than this are coalesced: only
/// the latest is sent, so a tight loop cannot flood the client.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

/// A log threshold above every level: the request asked for no log
/// messages (2026-07-28 requests without a `logLevel`).
pub(crate) const LOGGING_OFF: u8 = u8::MAX;

/// The least severe level sent before the client sets one. The spec leaves
/// the default to the server; `info` keeps debug chatter out of clients
/// that never asked for it.
pub(crate) const DEFAULT_LOG_LEVEL: LoggingLevel = LoggingLevel::Info;

pub(crate) fn level_index(level: LoggingLevel) -> u8 {
    level as u8
}

/// Whether a call has been cancelled, shared by the call's context and the
/// connection that can cancel it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cancellation(Arc<CancellationState>);

#[derive(Debug, Default)]
struct CancellationState {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancellation {
    pub(crate) fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    pub(crate) async fn cancelled(&self) {
        loop {
            let notified = self.0.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// What a tool can know about its call and tell the client while it runs.
/// Take it as a parameter (`ctx: Context`); it is supplied by the runtime
/// and never appears in the input schema. Clones share one call.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Count to `n`, slowly.
/// #[tool]
/// async fn count(n: u32, ctx: Context) -> Result<String, ToolError> {
///     ctx.info(format!("counting to {n}"));
///     for i in 1..=n {
///         if ctx.is_cancelled() {
///             break;
///         }
///         // Real work would go here.
///         ctx.progress(f64::from(i), f64::from(n));
///     }
///     Ok(format!("counted to {n}"))
/// }
/// # fn main() {}
/// ```
#[derive(Clone, Debug)]
pub struct Context {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    tool: String,
    request_id: RequestId,
    meta: Option<JsonObject>,
    version: ProtocolVersion,
    peer: Option<Arc<Peer>>,
    outgoing: Option<Outgoing>,
    missing_capability: Arc<std::sync::OnceLock<String>>,
    rounds: Option<Arc<Rounds>>,
    task: Option<Arc<Running>>,
    cancellation: Cancellation,
    progress: Mutex<Progress>,
}

#[derive(Debug)]
struct Progress {
    token: Option<Value>,
    /// The last value sent, and when.
    sent: Option<(f64, Instant)>,
    /// A newer value held back by coalescing.
    pending: Option<ProgressParams>,
}

impl FromRequest for Context {
    fn from_request(call: &mut RequestParts) -> Result<Self, Rejection> {
        let token = call.meta.as_ref().and_then(|m| m.get("progressToken")).filter(|t| t.is_string() || t.is_number());
        Ok(Context {
            inner: Arc::new(Inner {
                tool: call.target.clone(),
                request_id: call.request_id.clone(),
                meta: call.meta.clone(),
                version: call.protocol_version,
                peer: call.peer.clone(),
                outgoing: call.outgoing.clone(),
                missing_capability: call.missing_capability.clone(),
                rounds: call.rounds.clone(),
                task: call.task.clone(),
                cancellation: call.cancellation.clone(),
                progress: Mutex::new(Progress { token: token.cloned(), sent: None, pending: None }),
            }),
        })
    }
}

impl Context {
    /// Report progress: `done` out of `total`. Does nothing when the client
    /// asked for no progress (sent no `progressToken`) or when `done` does
    /// not exceed the last value reported; updates closer together than
    /// 50 ms are coalesced (the latest is sent when the call ends, if not
    /// before).
    pub fn progress(&self, done: f64, total: f64) {
        self.report(done, Some(total), None);
    }

    /// [`progress`](Self::progress) with a message saying what is happening
    /// (shown to 2025-03-26 clients and later).
    pub fn progress_with_message(&self, done: f64, total: f64, message: impl Into<String>) {
        self.report(done, Some(total), Some(message.into()));
    }

    /// Pass on a mounted server's progress of the call this context is
    /// forwarding (under this request's token, coalesced like its own).
    #[cfg(feature = "proxy")]
    pub(crate) fn relay_progress(&self, done: f64, total: Option<f64>, message: Option<String>) {
        self.report(done, total, message);
    }

    /// Pass on a mounted server's log message, if the client wants its
    /// level.
    #[cfg(feature = "proxy")]
    pub(crate) fn relay_log(&self, params: &LoggingMessageParams) {
        let (Some(peer), Some(outgoing)) = (&self.inner.peer, &self.inner.outgoing) else { return };
        if level_index(params.level) >= peer.log_level.load(Ordering::Relaxed) {
            outgoing.notify(methods::MESSAGE, params);
        }
    }

    /// The client's handshake session, for telling sessions apart (none
    /// for a 2026-07-28 request, which has no session).
    #[cfg(feature = "proxy")]
    pub(crate) fn session(&self) -> Option<std::sync::Weak<Peer>> {
        self.inner.peer.as_ref().filter(|p| p.requests.is_some()).map(Arc::downgrade)
    }

    fn report(&self, done: f64, total: Option<f64>, message: Option<String>) {
        let Some(outgoing) = &self.inner.outgoing else { return };
        let mut progress = self.inner.progress.lock().unwrap_or_else(|e| e.into_inner());
        let Some(token) = progress.token.clone() else { return };
        let last = progress.pending.as_ref().map(|p| p.progress).or(progress.sent.map(|(value, _)| value));
        if !done.is_finite() || last.is_some_and(|last| done <= last) {
            return;
        }
        let message = message.filter(|_| self.inner.version.has_annotations());
        let params = ProgressParams { progress_token: token, progress: done, total, message };
        let now = Instant::now();
        let finished = total.is_some_and(|t| done >= t);
        let due = progress.sent.is_none_or(|(_, at)| now.duration_since(at) >= PROGRESS_INTERVAL);
        if due || finished {
            progress.pending = None;
            progress.sent = Some((done, now));
            outgoing.notify(methods::PROGRESS, &params);
        } else {
            progress.pending = Some(params);
        }
    }

    /// Send a log message at `level` to the client, if the client wants
    /// that level: set with `logging/setLevel` (`info` and above until
    /// then), or in 2026-07-28 per request (none unless the request asks).
    pub fn log(&self, level: LoggingLevel, data: impl Into<Value>) {
        let (Some(peer), Some(outgoing)) = (&self.inner.peer, &self.inner.outgoing) else { return };
        if level_index(level) < peer.log_level.load(Ordering::Relaxed) {
            return;
        }
        let params = LoggingMessageParams { level, logger: Some(self.inner.tool.clone()), data: data.into() };
        outgoing.notify(methods::MESSAGE, &params);
    }

    /// A `debug` log message.
    pub fn debug(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Debug, data);
    }

    /// An `info` log message.
    pub fn info(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Info, data);
    }

    /// A `warning` log message.
    pub fn warning(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Warning, data);
    }

    /// An `error` log message.
    pub fn error(&self, data: impl Into<Value>) {
        self.log(LoggingLevel::Error, data);
    }

    /// End this call's HTTP event stream now, and let the client poll for
    /// the rest (SEP-1699): the call goes on, its messages are kept, and
    /// the client reconnects with `Last-Event-ID` to read them and the
    /// result. For long calls, so no connection is held open while they
    /// work. Returns `false`, doing nothing, where a stream cannot be
    /// resumed (stdio, a client that takes plain JSON, 2026-07-28).
    pub fn close_stream(&self) -> bool {
        self.inner.outgoing.as_ref().is_some_and(Outgoing::close_connection)
    }

    /// Whether the client has cancelled this call. The tool's future is
    /// dropped on cancellation, so this matters to work that outlives an
    /// `.await`: blocking loops and tasks the tool spawned.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Resolves when the client cancels this call (for tasks the tool
    /// spawned, which are not dropped with it).
    pub async fn cancelled(&self) {
        self.inner.cancellation.cancelled().await;
    }

    /// The JSON-RPC id of the `tools/call` request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.inner.meta.as_ref()
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool
    }

    /// The protocol version of the session.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The client's name and version, as it gave them in `initialize` (or,
    /// in 2026-07-28, with the request; clients may leave them out there).
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.peer.as_ref().and_then(|p| p.client_info.as_ref())
    }

    /// Fail unless the client declared `capability` (`"sampling"`,
    /// `"elicitation"`, `"roots"`, or another key of its capabilities) for
    /// this call. Use it with `?` before work that needs the capability. A
    /// 2026-07-28 client then gets the protocol error the spec defines for
    /// this (`-32021`, naming the capability); older clients, which
    /// declared their capabilities once, get a tool error saying the same.
    pub fn require_client_capability(&self, capability: &str) -> Result<(), ToolError> {
        if self.inner.peer.as_ref().is_some_and(|p| p.declared(capability)) {
            return Ok(());
        }
        let _ = self.inner.missing_capability.set(capability.to_owned());
        Err(ToolError::new(format!(
            "tool `{}` needs the client capability `{capability}`, which this client did not declare",
            self.inner.tool
        )))
    }

    /// The client's capabilities, as it gave them in `initialize` (or, in
    /// 2026-07-28, for this request).
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.inner.peer.as_ref().map(|p| &p.capabilities)
    }

    /// The client as a handle, to send it requests of its own
    /// ([`Client::request`]).
    pub fn client(&self) -> Client {
        Client {
            peer: self.inner.peer.clone(),
            stream: self.inner.outgoing.clone(),
            missing_capability: self.inner.missing_capability.clone(),
            rounds: self.inner.rounds.clone(),
            task: self.inner.task.clone(),
        }
    }

    /// Ask the user to fill in a form, typed as `T` (a struct whose fields
    /// are strings, numbers, booleans or enums: the flat forms clients
    /// render), and await what they did. Accepted values are checked
    /// against the form and read into `T`.
    ///
    /// One `.await` in every protocol era:
    /// - **2024-11-05 to 2025-11-25**: an `elicitation/create` request to
    ///   the client, over stdio or on the call's own HTTP stream, awaited
    ///   for at most [`Server::client_request_timeout`](crate::Server::client_request_timeout);
    ///   dropping the future cancels it at the client.
    /// - **2026-07-28**: the request is answered with an
    ///   `InputRequiredResult` asking this (and every other question the
    ///   handler asked in the same poll, e.g. with `tokio::join!`); the
    ///   client's retry brings the answer and the handler **runs again from
    ///   the start**, this `.await` now returning at once. Work before it
    ///   runs again in each round: keep it idempotent, or keep its result
    ///   with [`once`](Self::once).
    ///
    /// A client that did not declare `elicitation` is never asked: the
    /// error says so (`?` shows it to the model; a 2026-07-28 request is
    /// answered with the spec's `-32021`). A `T` that cannot be a form is
    /// an internal error naming the field.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct When {
    ///     /// Day, as YYYY-MM-DD
    ///     day: String,
    ///     /// How many people
    ///     people: u8,
    /// }
    ///
    /// /// Book a table.
    /// #[tool]
    /// async fn book(ctx: Context) -> Result<String, ToolError> {
    ///     match ctx.elicit::<When>("When should I book?").await? {
    ///         Elicited::Accept(when) => Ok(format!("booked for {} on {}", when.people, when.day)),
    ///         Elicited::Decline | Elicited::Cancel => Ok("not booked".into()),
    ///     }
    /// }
    /// # fn main() {}
    /// ```
    pub fn elicit<T>(&self, message: impl Into<String>) -> Elicit<T> {
        self.client().elicit(message)
    }

    /// Ask the user to open `url` (for what must not pass through the
    /// client: credentials, payments). Needs a client that declared URL
    /// elicitation (2025-11-25: `elicitation.url`). `Accept` means the user
    /// agreed to open it. Eras as for [`elicit`](Self::elicit).
    pub fn elicit_url(&self, message: impl Into<String>, url: impl Into<String>) -> ElicitUrl {
        self.client().elicit_url(message, url)
    }

    /// Ask the host's model for a message (`sampling/createMessage`) and
    /// await its answer ([`text`](mcp_core::CreateMessageResult::text) has
    /// its text). Needs a client that declared `sampling` (and
    /// `sampling.tools` when the request offers tools). Eras as for
    /// [`elicit`](Self::elicit).
    pub fn sample(&self, sampling: Sampling) -> Sample {
        self.client().sample(sampling)
    }

    /// The client's roots (`roots/list`): the directories it lets the
    /// server work in. A session asks once and keeps the answer until the
    /// client sends `notifications/roots/list_changed`. Needs a client that
    /// declared `roots`. Eras as for [`elicit`](Self::elicit).
    pub fn roots(&self) -> ListRoots {
        self.client().roots()
    }

    /// Run `work` once across the rounds of a 2026-07-28 request: the
    /// first round runs it and keeps its value (serialized) in the sealed
    /// `requestState`; the rounds after return that value without running
    /// it. Use it for work before a question to the client that must not
    /// be repeated (reserving, charging) or whose answer must not change.
    /// The state is signed, not encrypted: the client can read what is
    /// kept, so keep ids, not secrets, and keep it small. In the handshake
    /// versions a handler runs once, and so does `work`.
    pub async fn once<T, F>(&self, name: &str, work: F) -> T
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
        F: std::future::Future<Output = T>,
    {
        crate::client::ask::once(&self.client(), name, work).await
    }
}

impl Drop for Inner {
    /// The last coalesced progress value still reaches the client.
    fn drop(&mut self) {
        let progress = self.progress.get_mut().unwrap_or_else(|e| e.into_inner());
        if let (Some(pending), Some(outgoing), false) =
            (progress.pending.take(), &self.outgoing, self.cancellation.is_cancelled())
        {
            outgoing.notify(methods::PROGRESS, &pending);
        }
    }
}
