//! The protocol state of one connection (the handshake era) and what each
//! incoming message asks for. Transport-agnostic: it never reads or writes.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use futures_util::FutureExt;
use mcp_core::{
    CallToolParams, CallToolResult, CancelledParams, Envelope, ErrorObject, Implementation, InitializeParams,
    InitializeResult, JsonObject, ListToolsParams, Message, Notification, ProtocolVersion, Request, RequestId,
    Response, ServerCapabilities, SetLevelParams, ToolsCapability, envelope, methods,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tracing::Instrument;

use crate::arguments::problems_result;
use crate::context::{Cancellation, DEFAULT_LOG_LEVEL, LOGGING_OFF, Outgoing, Peer, level_index};
use crate::param::ToolCall;
use crate::state::StateMap;
use crate::tool::BoxFuture;

/// What a server is, shared by all its connections.
pub(crate) struct Shared {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) catalog: Arc<crate::catalog::Catalog>,
    pub(crate) page_size: Option<usize>,
    /// Decode JSON that models send as strings (`Server::strict_arguments`).
    pub(crate) lenient_arguments: bool,
    /// Show internal error details to clients (`Server::show_internal_errors`).
    pub(crate) show_internal_errors: bool,
    /// Values shared by all calls (`Server::with_state`).
    pub(crate) state: Arc<StateMap>,
    /// The limit on calls to all tools together (`Server::rate_limit`).
    pub(crate) limiter: Option<crate::limit::Limiter>,
    /// How long 2026-07-28 clients may cache lists (`Server::cache_ttl`).
    pub(crate) cache_ttl: std::time::Duration,
}

/// What the handshake settled.
#[derive(Debug)]
pub(crate) struct Negotiated {
    pub(crate) version: ProtocolVersion,
    /// The client, as its calls see it.
    pub(crate) peer: Arc<Peer>,
}

/// What the connection must do for one incoming message.
pub(crate) enum Action {
    /// Nothing (a notification, or a response to us).
    None,
    /// Send this response now.
    Reply(Response),
    /// Run this call as its own task and send its response when done;
    /// cancel it through the `Cancellation` (and by dropping the task).
    Call(RequestId, BoxFuture<'static, Response>, Cancellation),
    /// A `subscriptions/listen` stream: run like a call, but it ends only
    /// when cancelled. Cancelling its `Cancellation` closes it gracefully
    /// (its future then answers); dropping its task closes it silently.
    Listen(RequestId, BoxFuture<'static, Response>, Cancellation),
    /// Stop the call with this id, if it is still running.
    Cancel(RequestId),
}

/// `subscriptions/listen` params: which notifications the stream carries.
#[derive(serde::Deserialize)]
struct ListenParams {
    notifications: SubscriptionFilter,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionFilter {
    tools_list_changed: Option<bool>,
}

/// A catalog listener, removed when its subscription ends.
struct Listener(Arc<crate::catalog::Catalog>, u64);

impl Drop for Listener {
    fn drop(&mut self) {
        self.0.unlisten(self.1);
    }
}

impl Shared {
    /// What this server can do, the same in every era.
    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            tools: Some(ToolsCapability { list_changed: Some(true) }),
            logging: Some(JsonObject::new()),
            ..Default::default()
        }
    }

    /// A result as `version` wants it: from 2026-07-28 on, every result
    /// says it is complete and names the server.
    pub(crate) fn stamp(&self, mut result: Value, version: ProtocolVersion) -> Value {
        if version.uses_handshake() {
            return result;
        }
        if let Value::Object(fields) = &mut result {
            fields.insert("resultType".into(), json!("complete"));
            let meta = fields.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert(envelope::SERVER_INFO.into(), json!(self.info.for_version(version)));
            }
        }
        result
    }

    /// A result clients may cache (lists and `server/discover`): how long,
    /// and for whom. The tools are the same for every client, so any cache
    /// may share them; they can change at run time, so by default a client
    /// asks again rather than trust a copy (`Server::cache_ttl`).
    fn cacheable(&self, mut result: Value) -> Value {
        result["ttlMs"] = json!(u64::try_from(self.cache_ttl.as_millis()).unwrap_or(u64::MAX));
        result["cacheScope"] = json!("public");
        result
    }
}

/// One session's protocol state: a stdio or in-memory connection, or an
/// HTTP session.
pub(crate) struct Session {
    shared: Arc<Shared>,
    /// Tells this session's allowances apart in the rate limiters.
    key: u64,
    /// Whether `key` is this session's alone, so its allowances can be
    /// forgotten when it ends (not when it shares them with others).
    owns_key: bool,
    /// Messages that belong to no request (`tools/list_changed`).
    outgoing: Outgoing,
    /// The least severe log level the client wants (`logging/setLevel`).
    log_level: Arc<AtomicU8>,
    negotiated: OnceLock<Negotiated>,
    /// Registered for `tools/list_changed` once initialized.
    listener: OnceLock<u64>,
    /// Open `subscriptions/listen` streams: their catalog listeners.
    subscriptions: std::sync::Mutex<std::collections::HashMap<RequestId, u64>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(id) = self.listener.get() {
            self.shared.catalog.unlisten(*id);
        }
        for (_, listener) in self.subscriptions.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
            self.shared.catalog.unlisten(listener);
        }
        if self.owns_key {
            self.shared.catalog.current().forget_idle_allowances();
            if let Some(limiter) = &self.shared.limiter {
                limiter.forget_idle();
            }
        }
    }
}

/// Distinct keys for sessions, process-wide.
static NEXT_SESSION_KEY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Session {
    pub(crate) fn new(shared: Arc<Shared>, outgoing: Outgoing) -> Self {
        let log_level = Arc::new(AtomicU8::new(level_index(DEFAULT_LOG_LEVEL)));
        let key = NEXT_SESSION_KEY.fetch_add(1, Ordering::Relaxed);
        Session {
            shared,
            key,
            owns_key: true,
            outgoing,
            log_level,
            negotiated: OnceLock::new(),
            listener: OnceLock::new(),
            subscriptions: std::sync::Mutex::default(),
        }
    }

    /// Count this session's calls against the allowance `key` shares with
    /// others (stateless HTTP requests, which nothing tells apart).
    #[cfg(feature = "http")]
    pub(crate) fn sharing_allowances(mut self, key: u64) -> Self {
        self.key = key;
        self.owns_key = false;
        self
    }

    /// Handle a JSON-RPC batch: only 2025-03-26 has them (its servers must
    /// accept them). Returns the ids the batch cancels and the future of
    /// its responses, in order (none for its notifications); or the error
    /// for a batch this session does not take.
    pub(crate) fn batch(
        &self,
        items: Vec<Value>,
        stream: &Outgoing,
    ) -> Result<(Vec<RequestId>, BoxFuture<'static, Vec<Response>>), ErrorObject> {
        let version = self.negotiated.get().map(|n| n.version);
        if version != Some(ProtocolVersion::V2025_03_26) {
            return Err(ErrorObject::invalid_request(
                "JSON-RPC batches are part of protocol version 2025-03-26 only; send one message at a time",
            ));
        }
        if items.is_empty() {
            return Err(ErrorObject::invalid_request("an empty batch"));
        }
        let mut cancels = Vec::new();
        let mut answers: Vec<BoxFuture<'static, Response>> = Vec::new();
        for item in items {
            let message = match Message::from_value(item) {
                Ok(message) => message,
                Err(invalid) => {
                    answers.push(Box::pin(std::future::ready(invalid.into_response())));
                    continue;
                }
            };
            match self.handle(message, stream) {
                Action::None => {}
                Action::Reply(response) => answers.push(Box::pin(std::future::ready(response))),
                Action::Call(_, future, _) | Action::Listen(_, future, _) => answers.push(future),
                Action::Cancel(id) => cancels.push(id),
            }
        }
        Ok((cancels, Box::pin(futures_util::future::join_all(answers))))
    }

    /// What to do for `message`. A request's own notifications (a call's
    /// progress and log messages) go to `stream`: the connection itself on
    /// stdio, the request's response stream over HTTP.
    pub(crate) fn handle(&self, message: Message, stream: &Outgoing) -> Action {
        match message {
            Message::Request(request) => self.request(request, stream),
            Message::Notification(notification) => self.notification(notification),
            // We send no requests yet, so there is nothing to match a response to.
            Message::Response(response) => {
                tracing::debug!(id = ?response.id, "ignoring a response to a request this server did not send");
                Action::None
            }
        }
    }

    fn request(&self, request: Request, stream: &Outgoing) -> Action {
        let Request { id, method, params, .. } = request;
        let reply = |outcome: Result<Value, ErrorObject>| {
            Action::Reply(match outcome {
                Ok(result) => Response::result(id.clone(), result),
                Err(error) => Response::error(Some(id.clone()), error),
            })
        };
        // The era is the request's own: the stateless envelope in `_meta`
        // makes it a 2026-07-28 request whatever else the connection does;
        // without one it belongs to the handshake (`initialize` included).
        let meta = params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object);
        let envelope = match Envelope::from_meta(meta) {
            _ if method == methods::INITIALIZE => None,
            Ok(envelope) => envelope,
            Err(error) => return reply(Err(error)),
        };
        if let Some(envelope) = envelope {
            return self.stateless(id, &method, params, envelope, stream);
        }
        match method.as_str() {
            methods::INITIALIZE => reply(self.initialize(params)),
            methods::PING => reply(Ok(json!({}))),
            methods::SERVER_DISCOVER | methods::SUBSCRIPTIONS_LISTEN => {
                reply(Err(ErrorObject::invalid_params(format!(
                    "`{method}` is a 2026-07-28 request: params._meta must carry `{}` and `{}`",
                    envelope::PROTOCOL_VERSION,
                    envelope::CLIENT_CAPABILITIES
                ))))
            }
            _ => {
                let Some(negotiated) = self.negotiated.get() else {
                    return reply(Err(ErrorObject::invalid_request(format!(
                        "`{method}` before `initialize`: send `initialize` first, or carry the 2026-07-28 \
                         fields (`{}`, `{}`) in params._meta",
                        envelope::PROTOCOL_VERSION,
                        envelope::CLIENT_CAPABILITIES
                    ))));
                };
                match method.as_str() {
                    methods::TOOLS_LIST => reply(self.list_tools(params, negotiated.version)),
                    methods::TOOLS_CALL => {
                        let cancellation = Cancellation::default();
                        let call = self.call_tool(
                            id.clone(),
                            params,
                            negotiated.version,
                            &negotiated.peer,
                            &cancellation,
                            stream,
                        );
                        match call {
                            Ok(future) => Action::Call(id, future, cancellation),
                            Err(error) => reply(Err(error)),
                        }
                    }
                    methods::LOGGING_SET_LEVEL => reply(self.set_level(params)),
                    _ => reply(Err(ErrorObject::method_not_found(&method))),
                }
            }
        }
    }

    /// A 2026-07-28 request: everything it needs is in the request itself.
    fn stateless(
        &self,
        id: RequestId,
        method: &str,
        params: Option<JsonObject>,
        envelope: Envelope,
        stream: &Outgoing,
    ) -> Action {
        let version = envelope.version;
        let reply = |outcome: Result<Value, ErrorObject>| {
            Action::Reply(match outcome {
                Ok(result) => Response::result(id.clone(), self.shared.stamp(result, version)),
                Err(error) => Response::error(Some(id.clone()), error),
            })
        };
        match method {
            methods::SERVER_DISCOVER => reply(Ok(self.shared.cacheable(self.discover()))),
            methods::TOOLS_LIST => reply(self.list_tools(params, version).map(|list| self.shared.cacheable(list))),
            methods::TOOLS_CALL => {
                let threshold = envelope.log_level.map_or(LOGGING_OFF, level_index);
                let peer = Arc::new(Peer {
                    log_level: Arc::new(AtomicU8::new(threshold)),
                    client_info: envelope.client_info,
                    capabilities: envelope.capabilities,
                });
                let cancellation = Cancellation::default();
                match self.call_tool(id.clone(), params, version, &peer, &cancellation, stream) {
                    Ok(future) => Action::Call(id, future, cancellation),
                    Err(error) => reply(Err(error)),
                }
            }
            methods::SUBSCRIPTIONS_LISTEN => match parse::<ListenParams>(params) {
                Ok(params) => self.listen(id, &params, version, stream),
                Err(error) => reply(Err(error)),
            },
            // `ping` and `logging/setLevel` are gone from this version.
            _ => reply(Err(ErrorObject::method_not_found(method))),
        }
    }

    /// What `server/discover` says: the versions, capabilities and
    /// instructions (the server's name is stamped on every result).
    fn discover(&self) -> Value {
        let mut result = json!({
            "supportedVersions": envelope::supported_versions(),
            "capabilities": self.shared.capabilities(),
        });
        if let Some(instructions) = &self.shared.instructions {
            result["instructions"] = json!(instructions);
        }
        result
    }

    /// Open a subscription: acknowledge what it will carry, then send the
    /// tool list's changes on `stream` until the client cancels it (no
    /// answer) or the connection ends (answered, the graceful close).
    fn listen(&self, id: RequestId, params: &ListenParams, version: ProtocolVersion, stream: &Outgoing) -> Action {
        let tag = json!({ envelope::SUBSCRIPTION_ID: id });
        let tools = params.notifications.tools_list_changed == Some(true);
        let honoured = if tools { json!({"toolsListChanged": true}) } else { json!({}) };
        stream.notify(methods::SUBSCRIPTIONS_ACKNOWLEDGED, &json!({"_meta": tag, "notifications": honoured}));
        let listener = tools.then(|| {
            let listener = self.shared.catalog.listen(stream.clone(), Some(id.clone()));
            self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), listener);
            Listener(self.shared.catalog.clone(), listener)
        });
        let cancellation = Cancellation::default();
        let ended = cancellation.clone();
        let shared = self.shared.clone();
        let key = id.clone();
        let future = async move {
            ended.cancelled().await;
            drop(listener);
            Response::result(id, shared.stamp(json!({ "_meta": tag }), version))
        };
        Action::Listen(key, Box::pin(future), cancellation)
    }

    fn notification(&self, notification: Notification) -> Action {
        match notification.method.as_str() {
            methods::INITIALIZED => Action::None,
            methods::CANCELLED => match parse::<CancelledParams>(notification.params) {
                Ok(CancelledParams { request_id: Some(id), reason }) => {
                    tracing::debug!(%id, ?reason, "client cancelled a request");
                    // A subscription stops at once, not when its task is
                    // next polled: no notification may follow the cancel.
                    let subscription = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                    if let Some(listener) = subscription {
                        self.shared.catalog.unlisten(listener);
                    }
                    Action::Cancel(id)
                }
                Ok(_) => Action::None,
                Err(error) => {
                    tracing::warn!(%error, "ignoring a malformed `notifications/cancelled`");
                    Action::None
                }
            },
            other => {
                tracing::debug!(method = other, "ignoring an unknown notification");
                Action::None
            }
        }
    }

    fn initialize(&self, params: Option<JsonObject>) -> Result<Value, ErrorObject> {
        let params: InitializeParams = parse(params)?;
        let version = ProtocolVersion::negotiate(&params.protocol_version);
        tracing::info!(
            client = %params.client_info.name,
            client_version = %params.client_info.version,
            requested = %params.protocol_version,
            protocol = %version,
            "client connected"
        );
        let peer = Peer {
            log_level: self.log_level.clone(),
            client_info: Some(params.client_info),
            capabilities: params.capabilities,
        };
        let negotiated = Negotiated { version, peer: Arc::new(peer) };
        self.negotiated
            .set(negotiated)
            .map_err(|_| ErrorObject::invalid_request("`initialize` was already received on this connection"))?;
        let _ = self.listener.set(self.shared.catalog.listen(self.outgoing.clone(), None));
        let result = InitializeResult {
            protocol_version: version,
            capabilities: self.shared.capabilities(),
            server_info: self.shared.info.for_version(version),
            instructions: self.shared.instructions.clone(),
            meta: None,
        };
        Ok(serde_json::to_value(result).expect("an initialize result is JSON"))
    }

    fn list_tools(&self, params: Option<JsonObject>, version: ProtocolVersion) -> Result<Value, ErrorObject> {
        let params: ListToolsParams = parse(params)?;
        let tools = self.shared.catalog.current();
        let entries = tools.entries();
        // A cursor names the last tool of the previous page, and the list is
        // sorted by name, so paging stays right while tools come and go.
        let start = match params.cursor.as_deref() {
            None => 0,
            Some(cursor) => {
                let after = cursor
                    .strip_prefix(CURSOR_PREFIX)
                    .ok_or_else(|| ErrorObject::invalid_params(format!("invalid cursor {cursor:?}")))?;
                entries.partition_point(|e| e.definition.tool.name.as_str() <= after)
            }
        };
        let end = self.shared.page_size.map_or(entries.len(), |size| (start + size).min(entries.len()));
        let tools: Vec<Value> = entries[start..end].iter().map(|e| e.listed(version).clone()).collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(tools));
        if end < entries.len() && end > start {
            let last = &entries[end - 1].definition.tool.name;
            result.insert("nextCursor".into(), Value::String(format!("{CURSOR_PREFIX}{last}")));
        }
        Ok(Value::Object(result))
    }

    /// A call answered without running the tool.
    fn answered(
        &self,
        id: RequestId,
        result: CallToolResult,
        version: ProtocolVersion,
    ) -> BoxFuture<'static, Response> {
        let result = serde_json::to_value(result.for_version(version)).expect("a tool result is JSON");
        Box::pin(std::future::ready(Response::result(id, self.shared.stamp(result, version))))
    }

    fn set_level(&self, params: Option<JsonObject>) -> Result<Value, ErrorObject> {
        let SetLevelParams { level } = parse(params)?;
        self.log_level.store(level_index(level), Ordering::Relaxed);
        Ok(json!({}))
    }

    fn call_tool(
        &self,
        id: RequestId,
        params: Option<JsonObject>,
        version: ProtocolVersion,
        peer: &Arc<Peer>,
        cancellation: &Cancellation,
        stream: &Outgoing,
    ) -> Result<BoxFuture<'static, Response>, ErrorObject> {
        // The arguments are the tool's business, and any mistake in them is
        // reported to the model as a tool result, so they are taken out
        // before the rest is parsed.
        let mut params = params.unwrap_or_default();
        let arguments = params.remove("arguments");
        let params: CallToolParams = parse(Some(params))?;
        let tools = self.shared.catalog.current();
        let entry = tools
            .get(&params.name)
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown tool: {}", params.name)))?;
        let over_limit =
            |limiter: &Option<crate::limit::Limiter>| limiter.as_ref().and_then(|l| l.check(self.key).err());
        let check = match entry.check() {
            Ok(check) => check,
            Err(reason) => {
                let result = crate::incident::report(
                    "a tool's input schema cannot be compiled",
                    &reason,
                    &entry.definition.rust_path,
                    self.shared.show_internal_errors,
                );
                return Ok(self.answered(id, result, version));
            }
        };
        let arguments = match check.prepare(arguments, self.shared.lenient_arguments) {
            Ok(arguments) => arguments,
            Err(problems) => return Ok(self.answered(id, problems_result(&problems), version)),
        };
        // After the arguments: a call that cannot run uses no allowance.
        let refusal = over_limit(&entry.limiter)
            .map(|why| format!("tool `{}` {why}", params.name))
            .or_else(|| over_limit(&self.shared.limiter).map(|why| format!("this server {why}")));
        if let Some(refusal) = refusal {
            return Ok(self.answered(id, CallToolResult::error_text(refusal), version));
        }
        let missing_capability = Arc::new(OnceLock::new());
        let call = ToolCall {
            missing_capability: missing_capability.clone(),
            tool: params.name.clone(),
            arguments,
            request_id: id.clone(),
            meta: params.meta,
            protocol_version: version,
            peer: Some(peer.clone()),
            outgoing: Some(stream.clone()),
            cancellation: cancellation.clone(),
            state: self.shared.state.clone(),
        };
        // A hand-written tool may panic before it even returns its future;
        // that must not unwind into the connection.
        let show_details = self.shared.show_internal_errors;
        let future = std::panic::catch_unwind(AssertUnwindSafe(|| entry.handler.call(call)))
            .unwrap_or_else(|panic| Box::pin(std::future::ready(panicked(&*panic, show_details))));
        let span = tracing::info_span!("tools/call", tool = %params.name, id = %id);
        let timeout = entry.definition.timeout;
        let wraps_output = entry.wraps_output && version.wraps_structured_output();
        let shared = self.shared.clone();
        Ok(Box::pin(
            async move {
                let run = crate::incident::scope(show_details, AssertUnwindSafe(future).catch_unwind());
                let outcome = match timeout {
                    // Dropping the future at the deadline is what stops the
                    // tool: its next `.await` never resumes.
                    Some(limit) => tokio::time::timeout(limit, run).await.map_err(|_| limit),
                    None => Ok(run.await),
                };
                let mut result = match outcome {
                    Ok(Ok(result)) => result,
                    Ok(Err(panic)) => panicked(&*panic, show_details),
                    Err(limit) => timed_out(&params.name, limit),
                };
                // The schema was wrapped, so the value is too, even when it
                // is an object itself (`for_version` wraps only non-objects).
                if wraps_output && let Some(value) = result.structured_content.as_mut().filter(|v| v.is_object()) {
                    *value = json!({ "result": value.take() });
                }
                if let (Some(capability), false) = (missing_capability.get(), version.uses_handshake()) {
                    return Response::error(Some(id), envelope::missing_capability(json!({ capability: {} })));
                }
                let result = serde_json::to_value(result.for_version(version)).expect("a tool result is JSON");
                Response::result(id, shared.stamp(result, version))
            }
            .instrument(span),
        ))
    }
}

/// What a `tools/list` cursor starts with; anything else is not ours.
const CURSOR_PREFIX: &str = "after:";

/// Parse `params` into `T`; absent params read as `{}`.
fn parse<T: DeserializeOwned>(params: Option<JsonObject>) -> Result<T, ErrorObject> {
    serde_json::from_value(Value::Object(params.unwrap_or_default())).map_err(ErrorObject::invalid_params)
}

/// A call ran past its tool's timeout and was stopped.
fn timed_out(tool: &str, limit: std::time::Duration) -> CallToolResult {
    tracing::warn!(tool, timeout = ?limit, "tool call timed out and was stopped");
    let seconds = limit.as_secs_f64();
    let unit = if seconds == 1.0 { "second" } else { "seconds" };
    CallToolResult::error_text(format!("tool `{tool}` timed out after {seconds} {unit} and was stopped"))
}

/// A tool panicked: log the panic, tell the client only "internal error".
fn panicked(panic: &(dyn std::any::Any + Send), show_details: bool) -> CallToolResult {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string panic payload");
    crate::incident::report("tool panicked", &message, &message, show_details)
}
