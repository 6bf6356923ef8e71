//! One connection's protocol state and what each incoming message asks
//! for: the era of each request, the method table, and the answer's
//! projection. Transport-agnostic: it never reads or writes bytes.

pub(crate) mod arrival;
pub(crate) mod calls;
pub(crate) mod frame;
pub(crate) mod lifecycle;
pub(crate) mod listen;
#[cfg(feature = "otel")]
mod otel;
pub(crate) mod outgoing;
pub(crate) mod reply;
mod running;
mod session;
#[cfg(feature = "http")]
pub(crate) mod snapshot;
pub(crate) mod span;
pub(crate) mod table;

use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use mcp_core::{
    CancelledParams, Envelope, ErrorObject, JsonObject, Message, Notification, ProtocolVersion, Request, RequestId,
    envelope, methods,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tracing::Span;

use crate::catalog::views::{Owner, Rules};
use crate::client::Peer;
use crate::request::RequestParts;
use crate::request::claims::Claims;
use crate::request::context::{Cancellation, LOGGING_OFF, level_index};
use crate::server::Shared;
use crate::tools::BoxFuture;
use arrival::{Arrival, MirroredParams};
use outgoing::Outgoing;
use reply::{Answer, Projection, ResultBody};
use table::Eras;

pub(crate) use session::Session;

/// What the handshake settled.
#[derive(Debug)]
pub(crate) struct Negotiated {
    pub(crate) version: ProtocolVersion,
    /// The client, as its requests see it.
    pub(crate) peer: Arc<Peer>,
}

/// What dispatch decided for one incoming message: the handlers' output,
/// carried out by [`calls`] (no transport sees it).
pub(crate) enum Action {
    /// Nothing (a notification, or a response to us).
    None,
    /// Send this answer now.
    Reply(Answer),
    /// Run this request as its own task and send its answer when done;
    /// cancel it through the `Cancellation` (and by dropping the task).
    Call(RequestId, BoxFuture<'static, Answer>, Cancellation),
    /// A `subscriptions/listen` stream: run like a call, but it ends only
    /// when cancelled. Cancelling its `Cancellation` closes it gracefully
    /// (its future then answers); dropping its task closes it silently.
    Listen(RequestId, BoxFuture<'static, Answer>, Cancellation),
    /// Stop the request with this id, if it is still running.
    Cancel(RequestId),
}

/// One request on its way to its handler: its era settled, its client
/// known, and how its answer is to be shaped.
pub(crate) struct Incoming<'a> {
    pub(crate) id: RequestId,
    pub(crate) version: ProtocolVersion,
    pub(crate) peer: Arc<Peer>,
    /// Where the request's own notifications go: the connection on stdio,
    /// the request's response stream over HTTP.
    pub(crate) stream: &'a Outgoing,
    pub(crate) session: &'a Session,
    pub(crate) projection: Projection,
    /// The verified access token's claims: only over HTTP with OAuth.
    /// Without them nothing is scoped (stdio is local and trusted).
    pub(crate) claims: Option<Claims>,
    /// The request's span, on which its method records what it is about
    /// (see [`span`]).
    pub(crate) span: &'a Span,
    /// How its transport mirrors a tool call's arguments, if it does.
    pub(crate) mirrored: Option<&'a dyn MirroredParams>,
}

impl Incoming<'_> {
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.session.shared
    }

    /// The request as its handler sees it, asking for `target` with
    /// `arguments`; its cancellation and capability side channel are new.
    pub(crate) fn request_parts(
        &self,
        target: String,
        arguments: JsonObject,
        meta: Option<JsonObject>,
    ) -> RequestParts {
        RequestParts {
            target,
            arguments,
            request_id: self.id.clone(),
            meta,
            protocol_version: self.version,
            peer: Some(self.peer.clone()),
            outgoing: Some(self.stream.clone()),
            missing_capability: Arc::default(),
            cancellation: Cancellation::default(),
            state: self.session.shared.state.clone(),
            rounds: None,
            claims: self.claims.clone(),
            task: None,
            session_key: self.session.key,
            http_session: self.session.http_id().cloned(),
            view_owner: self.view_owner(),
            session_lasts: self.session.lasting_key().is_some(),
            views: Some(self.session.shared.views.clone()),
        }
    }

    /// Whose view of the catalog the request sees.
    pub(crate) fn view_owner(&self) -> Option<Owner> {
        Owner::of(self.claims.as_ref(), self.session.lasting_key())
    }

    /// The caller's own view of the catalog, if it has one.
    pub(crate) fn view(&self) -> Option<Arc<Rules>> {
        let views = &self.shared().views;
        if views.is_empty() {
            return None;
        }
        views.of(self.view_owner().as_ref())
    }

    /// Whether the request may see and use something that requires
    /// `scopes`: a request without a token may use anything.
    pub(crate) fn may_use(&self, scopes: &[String]) -> bool {
        self.claims.as_ref().is_none_or(|claims| claims.missing(scopes).is_empty())
    }

    /// Refuse the request unless its token grants every scope `what` (such
    /// as "tool `add`") requires: the insufficient-scope error, which HTTP
    /// answers with 403 and a challenge naming the scopes to ask for.
    pub(crate) fn authorize(&self, scopes: &[String], what: std::fmt::Arguments<'_>) -> Result<(), ErrorObject> {
        let Some(claims) = &self.claims else { return Ok(()) };
        let missing = claims.missing(scopes);
        if missing.is_empty() {
            return Ok(());
        }
        Err(crate::request::claims::insufficient_scope(claims, &missing, what))
    }

    /// Answer now with `body`, shaped for the request's era.
    pub(crate) fn reply(&self, body: impl ResultBody) -> Action {
        Action::Reply(self.projection.answer(self.id.clone(), body))
    }
}

impl Session {
    /// Handle a JSON-RPC batch: only 2025-03-26 has them (its servers must
    /// accept them). Returns the ids the batch cancels and the future of
    /// its answers, in order (none for its notifications); or the error
    /// for a batch this session does not take.
    pub(super) fn batch(
        &self,
        items: Vec<Value>,
        stream: &Outgoing,
    ) -> Result<(Vec<RequestId>, BoxFuture<'static, Vec<Answer>>), ErrorObject> {
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
        let mut answers: Vec<BoxFuture<'static, Answer>> = Vec::new();
        for item in items {
            let message = match Message::from_value(item) {
                Ok(message) => message,
                Err(invalid) if invalid.notification => continue,
                Err(invalid) => {
                    answers.push(Box::pin(std::future::ready(invalid.into_response().into())));
                    continue;
                }
            };
            // A subscription never ends, so the batch it was in would never
            // be answered.
            if let Message::Request(request) = &message
                && request.method == methods::SUBSCRIPTIONS_LISTEN
            {
                let error = ErrorObject::invalid_request(
                    "`subscriptions/listen` opens a stream that never ends, so it cannot be part of a batch",
                );
                let answer = Answer::error(Some(request.id.clone()), error);
                answers.push(Box::pin(std::future::ready(answer)));
                continue;
            }
            match self.handle(message, stream) {
                Action::None => {}
                Action::Reply(answer) => answers.push(Box::pin(std::future::ready(answer))),
                Action::Call(_, future, _) | Action::Listen(_, future, _) => answers.push(future),
                Action::Cancel(id) => cancels.push(id),
            }
        }
        Ok((cancels, Box::pin(futures_util::future::join_all(answers))))
    }

    /// What to do for `message`. A request's own notifications (a call's
    /// progress and log messages) go to `stream`: the connection itself on
    /// stdio, the request's response stream over HTTP.
    pub(super) fn handle(&self, message: Message, stream: &Outgoing) -> Action {
        self.handle_arrived(message, stream, Arrival::default())
    }

    /// [`handle`](Self::handle) a message with what its transport knows of
    /// it besides (a verified token's claims, the envelope it read).
    pub(super) fn handle_arrived(&self, message: Message, stream: &Outgoing, arrival: Arrival<'_>) -> Action {
        match message {
            Message::Request(request) => self.request(request, stream, arrival),
            Message::Notification(notification) => self.notification(notification),
            Message::Response(response) => {
                if !self.requests.resolve(response) {
                    tracing::debug!("ignoring a response to no pending request of this server");
                }
                Action::None
            }
        }
    }

    /// Every request has its span ([`span`]), from routing to the answer,
    /// whatever its method. The span is not entered while the request is
    /// routed: `tracing-opentelemetry` starts the OpenTelemetry span when
    /// it is first entered, and fixes its name then, while the name (the
    /// tool's, the prompt's) is known only once the method has found it.
    /// The call's future, where the handler's own code runs, runs inside it.
    fn request(&self, request: Request, stream: &Outgoing, arrival: Arrival<'_>) -> Action {
        let Request { id, method, params, .. } = request;
        let span = span::start(&method, &id, self.transport);
        #[cfg(feature = "otel")]
        if !span.is_disabled() {
            otel::continue_trace(&span, mcp_core::jsonrpc::request_meta(params.as_ref()));
        }
        let action = match self.route(&id, &method, params.as_ref(), stream, arrival, &span) {
            Ok((incoming, handler)) => {
                handler(&incoming, params).unwrap_or_else(|error| Action::Reply(Answer::error(Some(id), error)))
            }
            Err(error) => Action::Reply(Answer::error(Some(id), error)),
        };
        span::finish(span, action)
    }

    /// Settle a request's era and find its method. The era is the
    /// request's own: the stateless envelope in `_meta` makes it a
    /// 2026-07-28 request whatever else the connection does; without one it
    /// belongs to the handshake.
    fn route<'a>(
        &'a self,
        id: &RequestId,
        method: &str,
        params: Option<&JsonObject>,
        stream: &'a Outgoing,
        arrival: Arrival<'a>,
        span: &'a Span,
    ) -> Result<(Incoming<'a>, table::Handler), ErrorObject> {
        let Arrival { claims, envelope, mirrored } = arrival;
        let found = table::find(method).filter(|m| self.shared.serves(m.capability));
        // What a token may see is its own: no shared cache may keep it.
        let private = claims.is_some();
        let incoming = |version, peer, projection| Incoming {
            id: id.clone(),
            version,
            peer,
            stream,
            session: self,
            projection,
            claims: claims.clone(),
            span,
            mirrored,
        };
        // Read here unless the transport read it to tell the era.
        let envelope = match envelope {
            Some(envelope) => Some(envelope),
            None => Envelope::from_meta(mcp_core::jsonrpc::request_meta(params))?,
        };
        if let Some(envelope) = envelope {
            let method =
                found.filter(|m| m.eras != Eras::Handshake).ok_or_else(|| ErrorObject::method_not_found(method))?;
            let Envelope { version, capabilities, client_info, log_level } = envelope;
            let threshold = log_level.map_or(LOGGING_OFF, level_index);
            let peer = Arc::new(Peer::new(Arc::new(AtomicU8::new(threshold)), client_info, capabilities, None));
            let ttl = method.cacheable.then(|| u64::try_from(self.shared.cache_ttl.as_millis()).unwrap_or(u64::MAX));
            let projection = Projection::stateless(self.shared.modern_info.clone(), ttl, private);
            span.record("mcp.protocol.version", version.as_str());
            return Ok((incoming(version, peer, projection), method.handler));
        }
        // Only a handshake request belongs to a session: 2026-07-28 has none.
        if let Some(id) = &self.id {
            span.record("mcp.session.id", &**id);
        }
        let method_entry = found.ok_or_else(|| ErrorObject::method_not_found(method))?;
        if method_entry.eras == Eras::Stateless {
            return Err(ErrorObject::invalid_params(format!(
                "`{method}` is a 2026-07-28 request: params._meta must carry `{}` and `{}`",
                envelope::PROTOCOL_VERSION,
                envelope::CLIENT_CAPABILITIES
            )));
        }
        let (version, peer) = match self.negotiated.get() {
            Some(negotiated) => {
                span.record("mcp.protocol.version", negotiated.version.as_str());
                (negotiated.version, negotiated.peer.clone())
            }
            None if method_entry.before_initialize => (ProtocolVersion::LATEST_HANDSHAKE, self.anonymous.clone()),
            None => {
                return Err(ErrorObject::invalid_request(format!(
                    "`{method}` before `initialize`: send `initialize` first, or carry the 2026-07-28 fields \
                     (`{}`, `{}`) in params._meta",
                    envelope::PROTOCOL_VERSION,
                    envelope::CLIENT_CAPABILITIES
                )));
            }
        };
        Ok((incoming(version, peer, Projection::handshake()), method_entry.handler))
    }

    fn notification(&self, notification: Notification) -> Action {
        match notification.method.as_str() {
            methods::INITIALIZED => Action::None,
            methods::ROOTS_LIST_CHANGED => {
                if let Some(negotiated) = self.negotiated.get() {
                    negotiated.peer.forget_roots();
                }
                Action::None
            }
            methods::CANCELLED => match parse::<CancelledParams>(notification.params) {
                Ok(CancelledParams { request_id: Some(id), reason }) => {
                    tracing::debug!(%id, ?reason, "client cancelled a request");
                    // A subscription stops at once, not when its task is
                    // next polled: no notification may follow the cancel.
                    let subscription = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                    if let Some(listener) = subscription {
                        self.shared.announcer.unlisten(listener);
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
}

/// Poll `future` once, with the calling task's waker: its output if it is
/// ready at once. Most calls complete on their first poll; answering
/// those where they were read saves a task and the hand-offs to and from
/// it (a call that is still pending goes on as a task of its own, whose
/// first poll registers its own waker).
pub(crate) async fn poll_once<F: std::future::Future + Unpin>(future: &mut F) -> std::task::Poll<F::Output> {
    std::future::poll_fn(|cx| std::task::Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx))).await
}

/// Parse `params` into `T`; absent params read as `{}`.
pub(crate) fn parse<T: DeserializeOwned>(params: Option<JsonObject>) -> Result<T, ErrorObject> {
    serde_json::from_value(Value::Object(params.unwrap_or_default())).map_err(ErrorObject::invalid_params)
}
