//! The core of a connection: request ids and the answers they wait for,
//! and, in 2026-07-28, each request's `_meta` envelope and its mirroring
//! headers. What arrives (answers, the server's own requests,
//! notifications) is taken in `incoming`; 2026-07-28's input-required
//! rounds are answered in `rounds`; an expired session is opened again
//! in `renew`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use mcp_core::headers::ParamHeader;
use mcp_core::http::{MCP_METHOD, MCP_NAME, encode_value, mirrored_name};
use mcp_core::{
    ClientCapabilities, Implementation, JsonObject, LoggingLevel, Notification, RequestId, ServerCapabilities,
    envelope, methods,
};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::Error;
use crate::handlers::Handlers;
use crate::params::Params;
use crate::progress::Updates;
use crate::wire::{Inbox, Outbound, Wire};

mod incoming;
mod renew;
mod rounds;

/// How many of the server's requests are answered at once.
const MAX_ANSWERING: usize = 64;
/// How many notifications wait for a slow listener before it misses some.
const NOTIFICATIONS: usize = 256;

/// What one server may make the client hold, and wait for: the
/// [`ClientBuilder`](crate::ClientBuilder)'s settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// How long a request waits for its answer, sending it included.
    pub(crate) timeout: Duration,
    /// The largest message read.
    pub(crate) max_message_bytes: usize,
    /// How many pages one list may have.
    pub(crate) list_pages: usize,
    /// How many items one list may have, across its pages.
    pub(crate) list_items: usize,
    /// How long one list may take, across its pages (the time the
    /// server takes to answer them; a reader's own pauses do not count).
    /// `None`: the request timeout.
    pub(crate) list_timeout: Option<Duration>,
}

/// Which lifecycle requests follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize` first, then requests inside the session it opens
    /// (2024-11-05 to 2025-11-25).
    Handshake,
    /// No handshake: each request carries its version and capabilities
    /// in `_meta` (2026-07-28).
    Stateless,
}

/// What was agreed with the server.
#[derive(Clone, Debug)]
pub struct Negotiated {
    /// The lifecycle in use.
    pub era: Era,
    /// The protocol version requests speak.
    pub version: String,
    /// The server's name and version, when it said.
    pub server_info: Option<Implementation>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the model.
    pub instructions: Option<String>,
}

/// Options of one request.
#[derive(Default)]
pub(crate) struct RequestOptions {
    pub(crate) timeout: Option<Duration>,
    /// Where this request's progress goes (see [`crate::progress`]).
    pub(crate) progress: Option<Updates>,
    /// Told the id of each JSON-RPC request sent (a subscription's id is
    /// its request's).
    pub(crate) ids: Option<mpsc::UnboundedSender<RequestId>>,
    /// This request's answers to a 2026-07-28 server's input requests,
    /// instead of the client's handlers.
    pub(crate) answers: Option<crate::handlers::Fallback>,
}

/// Where a request's result goes, as its JSON text: the caller reads it
/// into the type it wants, with no value built on the way.
type Waiter = oneshot::Sender<Result<Box<RawValue>, Error>>;

/// How requests are framed once the version is settled.
enum Framing {
    Handshake,
    /// Each request's `_meta` carries these keys.
    Stateless(Arc<JsonObject>),
}

/// A request as it goes on the wire, its params borrowed.
#[derive(Serialize)]
struct Outgoing<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: &'a Params,
}

pub(crate) struct Session {
    wire: Box<dyn Wire>,
    pending: Mutex<HashMap<RequestId, Waiter>>,
    next_id: AtomicI64,
    pub(crate) handlers: Handlers,
    pub(crate) client_info: Implementation,
    pub(crate) limits: Limits,
    negotiated: RwLock<Option<Negotiated>>,
    /// What each request needs of the negotiation, cheap to read: set once.
    framing: std::sync::OnceLock<Framing>,
    notifications: broadcast::Sender<Notification>,
    progress: Mutex<HashMap<String, Updates>>,
    /// The server's requests being answered, to stop on its cancel.
    answering: Mutex<HashMap<RequestId, tokio::task::AbortHandle>>,
    /// Each tool's arguments mirrored in headers, from the last list.
    pub(crate) param_headers: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// Why the connection ended, once it has.
    closed: Mutex<Option<String>>,
    /// The same, for those awaiting the end.
    ended: tokio::sync::watch::Sender<Option<String>>,
    /// The log level set: 2026-07-28 requests ask for it in their `_meta`;
    /// a handshake session opened again is told it again.
    pub(crate) log_level: Mutex<Option<LoggingLevel>>,
    /// The URIs subscribed with `resources/subscribe` (as many as the
    /// application asked for), subscribed again in a session opened again.
    pub(crate) subscribed: Mutex<std::collections::BTreeSet<String>>,
    /// What the server allows to be kept, if the client keeps anything.
    pub(crate) cache: Option<Arc<crate::cache::Cache>>,
    /// With a cache, notifications queue here to be told in order, each
    /// change once the cache's store has heard of it (`incoming::relay`).
    relay: Option<mpsc::Sender<Notification>>,
    /// Opening the session again after it expired.
    renewal: renew::Renewal,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Session {
    pub(crate) fn start(
        wire: Box<dyn Wire>,
        inbox: &Inbox,
        handlers: Handlers,
        client_info: Implementation,
        limits: Limits,
        cache: Option<Arc<crate::cache::Cache>>,
    ) -> Arc<Session> {
        let notifications = broadcast::channel(NOTIFICATIONS).0;
        let relay = cache.clone().map(|cache| incoming::relay(cache, notifications.clone()));
        let session = Arc::new(Session {
            wire,
            pending: Mutex::default(),
            next_id: AtomicI64::new(0),
            handlers,
            client_info,
            limits,
            negotiated: RwLock::new(None),
            framing: std::sync::OnceLock::new(),
            notifications,
            progress: Mutex::default(),
            answering: Mutex::default(),
            param_headers: Mutex::default(),
            closed: Mutex::default(),
            ended: tokio::sync::watch::channel(None).0,
            log_level: Mutex::default(),
            subscribed: Mutex::default(),
            cache,
            relay,
            renewal: Default::default(),
        });
        inbox.connect(&session);
        session
    }

    pub(crate) fn wire(&self) -> &dyn Wire {
        &*self.wire
    }

    pub(crate) fn negotiated(&self) -> Option<Negotiated> {
        self.negotiated.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The era agreed, read without copying the negotiation.
    pub(crate) fn era(&self) -> Option<Era> {
        self.framing.get().map(|framing| match framing {
            Framing::Handshake => Era::Handshake,
            Framing::Stateless(_) => Era::Stateless,
        })
    }

    pub(crate) fn settle(&self, negotiated: Negotiated) {
        let framing = match negotiated.era {
            Era::Handshake => Framing::Handshake,
            Era::Stateless => Framing::Stateless(self.envelope(&negotiated.version)),
        };
        let _ = self.framing.set(framing);
        *self.negotiated.write().unwrap_or_else(|e| e.into_inner()) = Some(negotiated);
    }

    /// 2026-07-28's `_meta` keys for `version`, built once.
    fn envelope(&self, version: &str) -> Arc<JsonObject> {
        let mut meta = JsonObject::new();
        meta.insert(envelope::PROTOCOL_VERSION.into(), json!(version));
        meta.insert(envelope::CLIENT_CAPABILITIES.into(), json!(self.capabilities()));
        meta.insert(envelope::CLIENT_INFO.into(), json!(self.client_info));
        Arc::new(meta)
    }

    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        self.handlers.capabilities()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Notification> {
        self.notifications.subscribe()
    }

    /// Send a request and wait for its result, answering the rounds of
    /// input a 2026-07-28 server asks for on the way.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: Cow<'_, str>,
        mut params: Params,
        options: RequestOptions,
    ) -> Result<Box<RawValue>, Error> {
        let epoch = self.renewal.epoch();
        match self.request_rounds(&method, &mut params, &options).await {
            // Once: a server that forgets each new session at once is not
            // asked forever.
            Err(Error::SessionExpired) if method != methods::INITIALIZE => {
                Box::pin(self.renew(epoch)).await?;
                self.request_rounds(&method, &mut params, &options).await
            }
            other => other,
        }
    }

    /// One JSON-RPC request and its answer. `params` gets the request's
    /// `_meta` additions, and is kept for a retry.
    async fn request_once(
        self: &Arc<Self>,
        method: &str,
        params: &mut Params,
        options: &RequestOptions,
    ) -> Result<Box<RawValue>, Error> {
        if let Some(why) = lock(&self.closed).clone() {
            return Err(Error::Closed(why));
        }
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        if let Some(ids) = &options.ids {
            let _ = ids.send(id.clone());
        }
        let envelope = match self.framing.get() {
            Some(Framing::Stateless(envelope)) => Some(envelope.clone()),
            Some(Framing::Handshake) => None,
            // Before anything is settled, only `server/discover` speaks
            // the stateless way.
            None => {
                (method == methods::SERVER_DISCOVER).then(|| self.envelope(mcp_core::ProtocolVersion::LATEST.as_str()))
            }
        };
        let progress_token = options.progress.as_ref().map(|sender| {
            let token = format!("p{id}");
            lock(&self.progress).insert(token.clone(), sender.clone());
            token
        });
        // The level the client set, carried by each request of 2026-07-28
        // (which has no `logging/setLevel`).
        let level = envelope.as_ref().and_then(|_| *lock(&self.log_level));
        if progress_token.is_some() || level.is_some() {
            let meta = params.members().entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                if let Some(token) = &progress_token {
                    meta.insert("progressToken".into(), json!(token));
                }
                if let Some(level) = level {
                    meta.insert(envelope::LOG_LEVEL.into(), json!(level));
                }
            }
        }
        let headers = match envelope {
            Some(_) => self.mirroring_headers(method, params),
            None => Vec::new(),
        };
        params.set_era_meta(envelope);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let mut guard = Pending { session: self.clone(), id: id.clone(), progress: progress_token, done: false };
        let request = Outgoing { jsonrpc: "2.0", id: &id, method, params };
        let bytes =
            serde_json::to_vec(&request).map_err(|e| Error::protocol(format!("unserializable request: {e}")))?;
        // One deadline for the whole exchange: sending is waiting too (for
        // a full pipe, or for the whole of an HTTP exchange, whose answer
        // may stall or drip).
        let timeout = options.timeout.unwrap_or(self.limits.timeout);
        let deadline = tokio::time::Instant::now().checked_add(timeout);
        match self.wire.try_send(Outbound { bytes, id: Some(id), headers }) {
            Ok(sent) => sent?,
            Err(waiting) => within(deadline, timeout, self.wire.send(waiting)).await??,
        }
        let answer = match within(deadline, timeout, rx).await? {
            Ok(answer) => answer,
            Err(_) => Err(Error::Closed(lock(&self.closed).clone().unwrap_or_else(|| "the client was closed".into()))),
        };
        guard.done = true;
        answer
    }

    /// 2026-07-28's headers mirroring the body: the method, the name it
    /// targets, and the tool's arguments marked `x-mcp-header`.
    fn mirroring_headers(&self, method: &str, params: &Params) -> Vec<(String, String)> {
        let mut headers = vec![(MCP_METHOD.to_owned(), method.to_owned())];
        let name = mirrored_name(method).and_then(|field| params.string(field));
        if let Some(name) = name {
            headers.push((MCP_NAME.to_owned(), encode_value(name).into_owned()));
        }
        if method == methods::TOOLS_CALL
            && let Some(name) = name
            && let Some(mirrored) = lock(&self.param_headers).get(name)
        {
            let arguments = params.arguments();
            for param in mirrored {
                let text = match param.value_in(arguments.as_deref()) {
                    Some(Value::String(text)) => encode_value(text).into_owned(),
                    Some(Value::Bool(value)) => value.to_string(),
                    Some(Value::Number(number)) if number.is_i64() || number.is_u64() => number.to_string(),
                    _ => continue,
                };
                headers.push((param.header_name(), text));
            }
        }
        headers
    }

    /// Send a notification.
    pub(crate) async fn notify(&self, method: &str, params: Option<JsonObject>) -> Result<(), Error> {
        let bytes = serde_json::to_vec(&Notification::new(method, params))
            .map_err(|e| Error::protocol(format!("unserializable notification: {e}")))?;
        let headers = match self.framing.get() {
            Some(Framing::Stateless(_)) => vec![(MCP_METHOD.to_owned(), method.to_owned())],
            _ => Vec::new(),
        };
        self.send_within(Outbound { bytes, id: None, headers }).await
    }

    /// Send a message that no answer follows, within the client's timeout
    /// (a server that takes an HTTP request and stalls would hold its
    /// sender, often a task of its own, for good).
    async fn send_within(&self, message: Outbound) -> Result<(), Error> {
        let timeout = self.limits.timeout;
        match tokio::time::timeout(timeout, self.wire.send(message)).await {
            Ok(sent) => sent,
            Err(_) => Err(Error::Timeout(timeout)),
        }
    }
}

/// `future`'s output, unless `deadline` (the end of `timeout`; `None`
/// for none) passes first.
async fn within<F: std::future::Future>(
    deadline: Option<tokio::time::Instant>,
    timeout: Duration,
    future: F,
) -> Result<F::Output, Error> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, future).await.map_err(|_| Error::Timeout(timeout)),
        None => Ok(future.await),
    }
}

/// A request waiting for its answer; dropped before it (the caller
/// stopped waiting, or timed out), it tells the server to stop.
struct Pending {
    session: Arc<Session>,
    id: RequestId,
    progress: Option<String>,
    done: bool,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(token) = &self.progress {
            lock(&self.session.progress).remove(token);
        }
        // An answered request's entry went with its answer.
        if self.done || lock(&self.session.pending).remove(&self.id).is_none() {
            return;
        }
        self.session.wire.cancelled(&self.id);
        let session = self.session.clone();
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                #[derive(Serialize)]
                #[serde(rename_all = "camelCase")]
                struct Cancelled {
                    request_id: RequestId,
                    reason: &'static str,
                }
                let params = serde_json::to_value(Cancelled { request_id: id, reason: "the client stopped waiting" });
                let params = params.ok().and_then(|p| p.as_object().cloned());
                let _ = session.notify(methods::CANCELLED, params).await;
            });
        }
    }
}
