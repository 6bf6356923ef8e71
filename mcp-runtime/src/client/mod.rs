//! The client as a handle: who it is, what it declared it can do, and
//! requests to it (sampling, elicitation, roots) with a table of pending
//! requests, a timeout, and cancellation when the asker stops waiting; in
//! 2026-07-28, the same questions as a multi-round request's input
//! requests.

pub(crate) mod ask;
pub(crate) mod rounds;
pub(crate) mod seal;

pub use ask::{Elicit, ElicitUrl, Elicited, ListRoots, Sample, Sampling};

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::{
    CancelledParams, ClientCapabilities, ErrorObject, Implementation, InputRequest, RequestId, Root, methods,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::dispatch::outgoing::Outgoing;
use crate::request::Rejection;
use crate::tasks::running::Running;

/// The client of one session (or, in 2026-07-28, of one request), as the
/// requests it makes see it.
#[derive(Debug)]
pub(crate) struct Peer {
    /// The least severe level the client wants (as `level as u8`: the
    /// levels are declared least severe first), shared by the session's
    /// requests.
    pub(crate) log_level: Arc<AtomicU8>,
    /// As the client gave it (optional in the stateless era).
    pub(crate) client_info: Option<Implementation>,
    pub(crate) capabilities: ClientCapabilities,
    /// Requests to this client; `None` where the protocol has none
    /// (2026-07-28 asks through the tool result instead).
    pub(crate) requests: Option<Arc<PendingRequests>>,
    /// The client's roots, once asked, until it says they changed.
    pub(crate) roots: Arc<Mutex<Option<Vec<Root>>>>,
    /// Dropped with the peer, so what is kept for its session elsewhere
    /// (a mount's upstream connection) goes when the session does; made
    /// only when something waits for that.
    ended: std::sync::OnceLock<tokio::sync::watch::Sender<()>>,
    /// The owner key of per-user state for a session with no HTTP session
    /// id (stdio, in memory; made when first asked).
    state_key: std::sync::OnceLock<String>,
}

impl Peer {
    /// A client that declared `capabilities`.
    pub(crate) fn new(
        log_level: Arc<AtomicU8>,
        client_info: Option<Implementation>,
        capabilities: ClientCapabilities,
        requests: Option<Arc<PendingRequests>>,
    ) -> Peer {
        Peer {
            log_level,
            client_info,
            capabilities,
            requests,
            roots: Arc::default(),
            ended: Default::default(),
            state_key: Default::default(),
        }
    }

    /// Resolves once this client's session ends (the peer is dropped).
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn on_end(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut ended = self.ended.get_or_init(|| tokio::sync::watch::channel(()).0).subscribe();
        async move { while ended.changed().await.is_ok() {} }
    }

    /// A random id of this session, unguessable, for the state kept for it
    /// when it has no authenticated user.
    pub(crate) fn state_key(&self) -> &str {
        self.state_key.get_or_init(crate::random::hex_id::<16>)
    }

    /// Whether the client declared `capability`: a top-level key
    /// (`"sampling"`) or one inside it (`"elicitation.url"`).
    pub(crate) fn declared(&self, capability: &str) -> bool {
        let c = &self.capabilities;
        let (top, inner) = capability.split_once('.').map_or((capability, None), |(t, i)| (t, Some(i)));
        let declared = match top {
            "roots" => c.roots.as_ref(),
            "sampling" => c.sampling.as_ref(),
            "elicitation" => c.elicitation.as_ref(),
            "experimental" => c.experimental.as_ref(),
            other => c.other.get(other).and_then(Value::as_object),
        };
        match (declared, inner) {
            (Some(object), Some(inner)) => object.contains_key(inner),
            (declared, None) => declared.is_some() || c.other.contains_key(top),
            (None, Some(_)) => false,
        }
    }

    /// Whether the client declared the extension `name` (a key of its
    /// `extensions` capability).
    pub(crate) fn declares_extension(&self, name: &str) -> bool {
        let extensions = self.capabilities.other.get("extensions").and_then(Value::as_object);
        extensions.is_some_and(|e| e.contains_key(name))
    }

    /// The client's roots changed: ask again next time.
    pub(crate) fn forget_roots(&self) {
        *self.roots.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

type Waiter = oneshot::Sender<Result<Value, ErrorObject>>;

/// The requests a session has sent its client and not yet had answered.
#[derive(Debug)]
pub(crate) struct PendingRequests {
    waiting: Mutex<HashMap<RequestId, Waiter>>,
    next_id: AtomicI64,
    timeout: Duration,
}

impl PendingRequests {
    pub(crate) fn new(timeout: Duration) -> Self {
        PendingRequests { waiting: Mutex::default(), next_id: AtomicI64::new(1), timeout }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Waiter>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hand a response from the client to whoever waits for it; `false` if
    /// nobody does (an unknown id, or an asker that gave up).
    pub(crate) fn resolve(&self, response: mcp_core::Response) -> bool {
        let Some(id) = response.id else { return false };
        let Some(waiter) = self.waiting().remove(&id) else { return false };
        let outcome = match response.outcome {
            mcp_core::Outcome::Result(value) => Ok(value),
            mcp_core::Outcome::Error(error) => Err(error),
        };
        waiter.send(outcome).is_ok()
    }

    /// Forget every pending request: the connection is gone, so each asker
    /// learns that at once instead of at its timeout.
    pub(crate) fn abandon_all(&self) {
        self.waiting().clear();
    }
}

/// Which capability a client must have declared for a request method.
fn capability_for(method: &str) -> Option<&'static str> {
    match method {
        methods::SAMPLING_CREATE_MESSAGE => Some("sampling"),
        methods::ELICITATION_CREATE => Some("elicitation"),
        methods::ROOTS_LIST => Some("roots"),
        _ => None,
    }
}

/// The client that made the current request: who it is, what it can do,
/// and a way to ask it something and await the answer. Get it with
/// [`Context::client`](crate::Context::client).
#[derive(Clone, Debug)]
pub struct Client {
    pub(crate) peer: Option<Arc<Peer>>,
    /// Where requests to the client go: the connection on stdio, the
    /// current request's response stream over HTTP.
    pub(crate) stream: Option<Outgoing>,
    /// Set when a request fails for a capability the client lacks, so a
    /// 2026-07-28 request can be answered with the spec's error for that.
    pub(crate) missing_capability: Arc<std::sync::OnceLock<String>>,
    /// A 2026-07-28 request's rounds: questions become input requests.
    pub(crate) rounds: Option<Arc<rounds::Rounds>>,
    /// A call that may become a task: once it is one (or in the handshake
    /// versions, from the start), questions are asked through the task.
    pub(crate) task: Option<Arc<Running>>,
}

impl Client {
    /// The client's name and version, as it gave them in `initialize` (or,
    /// in 2026-07-28, with the request; clients may leave them out there).
    pub fn info(&self) -> Option<&Implementation> {
        self.peer.as_ref().and_then(|p| p.client_info.as_ref())
    }

    /// The client's capabilities, as it gave them in `initialize` (or, in
    /// 2026-07-28, for this request).
    pub fn capabilities(&self) -> Option<&ClientCapabilities> {
        self.peer.as_ref().map(|p| &p.capabilities)
    }

    /// Whether the client declared `capability` (`"sampling"`,
    /// `"elicitation"`, `"roots"`, or another key of its capabilities).
    pub fn has_capability(&self, capability: &str) -> bool {
        self.peer.as_ref().is_some_and(|p| p.declared(capability))
    }

    /// Send the client a request and await its result, decoded as `R`.
    ///
    /// Checked before anything is sent: the capability its method needs
    /// (`sampling/createMessage` needs `sampling`, `elicitation/create`
    /// needs `elicitation`, `roots/list` needs `roots`). A client that does
    /// not answer within the server's timeout
    /// ([`Server::client_request_timeout`](crate::Server::client_request_timeout))
    /// gets `notifications/cancelled`, as does one whose request the caller
    /// stops awaiting (its future dropped).
    ///
    /// In a 2026-07-28 request (`tools/call`, `prompts/get`,
    /// `resources/read`) it becomes an input request of a multi-round
    /// result, keyed by the method's last segment and its place among the
    /// handler's questions; the typed [`elicit`](Self::elicit),
    /// [`sample`](Self::sample) and [`roots`](Self::roots) are built on it.
    pub async fn request<R: DeserializeOwned>(&self, method: &str, params: impl Serialize) -> Result<R, ClientError> {
        let key = self.key(None, method.rsplit('/').next().unwrap_or(method));
        self.ask(key, method, params, capability_for(method), Ok).await
    }

    /// Ask `elicit` (a form the user fills in, typed as `T`): see
    /// [`Context::elicit`](crate::Context::elicit).
    pub fn elicit<T>(&self, message: impl Into<String>) -> ask::Elicit<T> {
        ask::Elicit::new(self.clone(), message.into())
    }

    /// Ask the user to open `url`: see
    /// [`Context::elicit_url`](crate::Context::elicit_url).
    pub fn elicit_url(&self, message: impl Into<String>, url: impl Into<String>) -> ask::ElicitUrl {
        ask::ElicitUrl::new(self.clone(), message.into(), url.into())
    }

    /// Ask the host's model: see [`Context::sample`](crate::Context::sample).
    pub fn sample(&self, sampling: ask::Sampling) -> ask::Sample {
        ask::Sample::new(self.clone(), sampling)
    }

    /// The client's roots: see [`Context::roots`](crate::Context::roots).
    pub fn roots(&self) -> ask::ListRoots {
        ask::ListRoots::new(self.clone())
    }

    /// Fail, and remember why (for 2026-07-28's `-32021`), unless the
    /// client declared `capability`.
    fn require(&self, capability: &str) -> Result<(), ClientError> {
        if self.has_capability(capability) {
            return Ok(());
        }
        let top = capability.split('.').next().unwrap_or(capability);
        let _ = self.missing_capability.set(top.to_owned());
        Err(ClientError::MissingCapability { capability: capability.to_owned() })
    }

    /// The key of a question in a multi-round request: `given`, or the
    /// next one of `kind`. Made when the question is awaited, so questions
    /// are numbered in the order the handler asks them.
    pub(crate) fn key(&self, given: Option<String>, kind: &str) -> Option<String> {
        if let Some(rounds) = &self.rounds {
            return Some(given.unwrap_or_else(|| rounds.next_key(kind)));
        }
        let task = self.task.as_ref()?;
        Some(given.unwrap_or_else(|| task.next_key(kind)))
    }

    /// The task questions go through: the call's, once it is a task, or
    /// from the start where no rounds could carry them.
    fn asking_task(&self) -> Option<&Arc<Running>> {
        self.task.as_ref().filter(|task| !task.is_core() && (task.is_task() || self.rounds.is_none()))
    }

    /// Ask the client `method` (checked against `capability` first) and
    /// read its answer with `decode`. In a multi-round request the answer
    /// comes with the request, or the question becomes an input request
    /// and this never resolves (the round ends); an answer that does not
    /// decode is asked again. Otherwise it is a request to the client.
    pub(crate) async fn ask<A, R>(
        &self,
        key: Option<String>,
        method: &str,
        params: impl Serialize,
        capability: Option<&str>,
        decode: impl Fn(A) -> Result<R, String>,
    ) -> Result<R, ClientError>
    where
        A: DeserializeOwned,
    {
        if let Some(capability) = capability {
            self.require(capability)?;
        }
        if let (Some(task), Some(key)) = (self.asking_task(), key.clone()) {
            let params = serde_json::to_value(params).map_err(|e| ClientError::InvalidRequest(e.to_string()))?;
            let request = InputRequest { method: method.to_owned(), params: params.as_object().cloned() };
            // A task stopped before its answer came is dropped with this future.
            let answer = task.ask(key, request).await.ok_or(ClientError::Disconnected)?;
            let answer = serde_json::from_value(answer).map_err(|e| ClientError::InvalidResponse(e.to_string()))?;
            return decode(answer).map_err(ClientError::InvalidResponse);
        }
        if let Some(task) = self.task.as_ref().filter(|task| task.is_core() && task.is_task()) {
            return self.ask_for_task(task, key, method, params, decode).await;
        }
        let (Some(rounds), Some(key)) = (&self.rounds, key) else {
            return decode(self.send(method, params).await?).map_err(ClientError::InvalidResponse);
        };
        if let Some(answer) = rounds.answer(&key) {
            match serde_json::from_value(answer).map_err(|e| e.to_string()).and_then(&decode) {
                Ok(answer) => return Ok(answer),
                Err(why) => tracing::debug!(key, why, "an answer does not fit its question; asking again"),
            }
        }
        let params = serde_json::to_value(params).map_err(|e| ClientError::InvalidRequest(e.to_string()))?;
        rounds.ask(key, InputRequest { method: method.to_owned(), params: params.as_object().cloned() });
        std::future::pending().await
    }

    /// Ask for a 2025-11-25 task: a request to the client tied to the task
    /// in its `_meta`, on the session's stream (the call's own stream
    /// ended when the task was created); the task waits for input until
    /// the answer comes, as that version says.
    async fn ask_for_task<A, R>(
        &self,
        task: &Arc<Running>,
        key: Option<String>,
        method: &str,
        params: impl Serialize,
        decode: impl Fn(A) -> Result<R, String>,
    ) -> Result<R, ClientError>
    where
        A: DeserializeOwned,
    {
        let mut params = serde_json::to_value(params).map_err(|e| ClientError::InvalidRequest(e.to_string()))?;
        if let (Some(id), Some(object)) = (task.id(), params.as_object_mut()) {
            let meta = object.entry("_meta").or_insert_with(|| Value::Object(mcp_core::JsonObject::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.extend(mcp_core::task::related_task_meta(id));
            }
        }
        let key = key.unwrap_or_else(|| task.next_key("request"));
        task.waiting(&key, InputRequest { method: method.to_owned(), params: params.as_object().cloned() }).await;
        let answer = self.send_on(task.session.clone(), method, params).await;
        task.settled(&key).await;
        decode(answer?).map_err(ClientError::InvalidResponse)
    }

    /// Send a request to the client and await its answer.
    async fn send<R: DeserializeOwned>(&self, method: &str, params: impl Serialize) -> Result<R, ClientError> {
        self.send_on(self.stream.clone(), method, params).await
    }

    /// Ping the client on `stream`: `false` only if it did not answer
    /// within `deadline` (or its connection is gone); an error answer is
    /// an answer.
    pub(crate) async fn ping(&self, stream: Outgoing, deadline: Duration) -> bool {
        let sent = self.send_on::<Value>(Some(stream), methods::PING, serde_json::json!({}));
        match tokio::time::timeout(deadline, sent).await {
            Ok(Ok(_) | Err(ClientError::Rejected(_) | ClientError::Unavailable)) => true,
            Ok(Err(_)) | Err(_) => false,
        }
    }

    /// Send a request to the client on `stream` and await its answer.
    async fn send_on<R: DeserializeOwned>(
        &self,
        stream: Option<Outgoing>,
        method: &str,
        params: impl Serialize,
    ) -> Result<R, ClientError> {
        let stream = stream.filter(Outgoing::carries_requests);
        let (Some(requests), Some(stream)) = (self.peer.as_ref().and_then(|p| p.requests.clone()), stream) else {
            return Err(ClientError::Unavailable);
        };
        let params = serde_json::to_value(params).map_err(|e| ClientError::InvalidRequest(e.to_string()))?;
        let id = RequestId::Number(requests.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        requests.waiting().insert(id.clone(), tx);
        let mut pending = Pending { requests: requests.clone(), stream: stream.clone(), id: Some(id.clone()) };
        stream.message(&mcp_core::Request::new(id, method, params.as_object().cloned()));
        let outcome = match tokio::time::timeout(requests.timeout, rx).await {
            Ok(Ok(outcome)) => outcome,
            // The session ended and dropped its table.
            Ok(Err(_)) => return Err(ClientError::Disconnected),
            Err(_) => return Err(ClientError::Timeout(requests.timeout)),
        };
        pending.id = None;
        let value = outcome.map_err(ClientError::Rejected)?;
        serde_json::from_value(value).map_err(|e| ClientError::InvalidResponse(e.to_string()))
    }
}

/// A request in flight: if it is dropped unanswered (timeout, or the
/// caller stopped awaiting), the client is told to stop working on it.
struct Pending {
    requests: Arc<PendingRequests>,
    stream: Outgoing,
    id: Option<RequestId>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if self.requests.waiting().remove(&id).is_some() {
            let params = CancelledParams { request_id: Some(id), reason: Some("the server stopped waiting".into()) };
            self.stream.notify(methods::CANCELLED, &params);
        }
    }
}

/// Why a request to the client got no usable answer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The client did not declare the capability the request needs.
    MissingCapability {
        /// The capability, e.g. `"sampling"`.
        capability: String,
    },
    /// This request cannot ask the client anything: a call made by hand, a
    /// method 2026-07-28 gives no input requests (only `tools/call`,
    /// `prompts/get` and `resources/read` have them), or an HTTP client
    /// that reads the call's answer as plain JSON and so would never see a
    /// request (it did not accept `text/event-stream`).
    Unavailable,
    /// The client did not answer in time; it was told to stop.
    Timeout(Duration),
    /// The client answered with an error.
    Rejected(ErrorObject),
    /// The connection ended before the client answered.
    Disconnected,
    /// The client's answer is not what the method returns.
    InvalidResponse(String),
    /// The request could not be made: a type that cannot be an
    /// elicitation form, or params that do not serialize. A bug in the
    /// server, so it is logged and masked.
    InvalidRequest(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::MissingCapability { capability } => {
                write!(f, "the client did not declare the `{capability}` capability")
            }
            ClientError::Unavailable => f.write_str(
                "this request cannot ask the client anything: only a tool call, a prompt or a read can, and over HTTP \
                 only if the client accepts text/event-stream",
            ),
            ClientError::Timeout(after) => write!(f, "the client did not answer within {} s", after.as_secs_f64()),
            ClientError::Rejected(error) => write!(f, "the client refused: {error}"),
            ClientError::Disconnected => f.write_str("the client disconnected before answering"),
            ClientError::InvalidResponse(why) => write!(f, "the client's answer is not valid: {why}"),
            ClientError::InvalidRequest(why) => write!(f, "the request to the client could not be made: {why}"),
        }
    }
}

/// `?` on a question to the client: what went wrong is shown (a missing
/// capability, a refusal, a timeout), except a request the server could
/// not make, which is a bug and is logged and masked. `ClientError` does
/// not implement `std::error::Error`, which is what lets this exist beside
/// the handlers' errors' conversions from any error.
impl From<ClientError> for Rejection {
    fn from(error: ClientError) -> Rejection {
        match error {
            ClientError::InvalidRequest(_) => Rejection::internal(error.to_string()),
            shown => Rejection::new(shown.to_string()),
        }
    }
}

impl From<ClientError> for crate::ToolError {
    fn from(error: ClientError) -> Self {
        Rejection::from(error).into()
    }
}

impl From<ClientError> for crate::ResourceError {
    fn from(error: ClientError) -> Self {
        Rejection::from(error).into()
    }
}

impl From<ClientError> for crate::PromptError {
    fn from(error: ClientError) -> Self {
        Rejection::from(error).into()
    }
}
