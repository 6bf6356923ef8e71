//! The MCP endpoint's HTTP handlers: POST a message, GET the server's
//! stream, DELETE the session. Every refusal is a JSON-RPC error body with
//! a fixed text, never internal error details.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{ACCEPT, ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures_util::StreamExt;
use mcp_core::{ErrorObject, Message, ProtocolVersion, envelope, methods};
use serde_json::{Value, json};

use super::HttpOptions;
use super::guard::{self, Refusal};
use super::mirror;
use super::resume::{self, Hub, Numbered};
use super::sessions::{HttpSession, Sessions};
use super::sse;
use super::store::News;
use crate::dispatch::outgoing::{Drain, Outgoing};
use crate::dispatch::reply::Answer;
use crate::dispatch::{Action, Session, snapshot};
use crate::error::Error;
use crate::request::claims::Claims;
use crate::server::Shared;
use crate::tools::BoxFuture;
use crate::transport::connection::Limits;

const SESSION_ID: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const MCP_METHOD: &str = "mcp-method";
const MCP_NAME: &str = "mcp-name";
/// Our code for "no such session" (the implementation-defined range).
const SESSION_NOT_FOUND: i64 = -32001;
/// The most of an unwanted body read (and dropped) before a refusal, so
/// the connection can carry the client's next request.
const DRAIN_LIMIT: usize = 64 * 1024;
/// The longest an unwanted body is waited for before a refusal.
const DRAIN_TIME: Duration = Duration::from_secs(1);

/// One MCP endpoint: a server and its HTTP sessions.
pub(crate) struct Endpoint {
    shared: Arc<Shared>,
    options: HttpOptions,
    max_body: usize,
    /// The most bytes of notifications a response stream may leave unread.
    max_queued: usize,
    sessions: Arc<Sessions>,
    /// Where news for the other replicas goes, when there are any.
    news: Option<tokio::sync::mpsc::UnboundedSender<News>>,
    /// The token checks, when the endpoint is an OAuth protected resource.
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::Verifier>,
}

impl Endpoint {
    pub(crate) fn new(shared: Arc<Shared>, limits: Limits, options: HttpOptions) -> Result<Self, Error> {
        let max_body = options.max_body.unwrap_or(limits.max_message_size);
        let sessions = Arc::new(Sessions::new(options.max_sessions, options.idle_timeout, limits.max_queued_output));
        #[cfg(feature = "oauth")]
        let oauth = match options.oauth.clone() {
            Some(_) if options.token.is_some() => {
                return Err(Error::InvalidOAuth(
                    "both `bearer_token` and `oauth` are set; a request can show only one kind of token".into(),
                ));
            }
            Some(oauth) => Some(super::oauth::Verifier::new(oauth, &options.path)?),
            None => None,
        };
        let news = options
            .stores
            .fanout
            .clone()
            .map(|fanout| super::store::connect_fanout(&shared.announcer, Arc::downgrade(&sessions), fanout));
        Ok(Endpoint {
            shared,
            options,
            max_body,
            max_queued: limits.max_queued_output,
            sessions,
            news,
            #[cfg(feature = "oauth")]
            oauth,
        })
    }

    /// The claims of the request's access token when the endpoint takes
    /// OAuth tokens (`None` when it does not), or the refusal.
    #[cfg(feature = "oauth")]
    async fn authenticate(&self, headers: &HeaderMap) -> Result<Option<Claims>, Response> {
        use super::oauth::Refused;
        let Some(verifier) = &self.oauth else { return Ok(None) };
        let Some(token) = guard::bearer_of(headers) else {
            return Err(verifier.refusal(Refused::Unauthorized(None)));
        };
        match verifier.verify(token).await {
            Ok(claims) => Ok(Some(claims)),
            Err(refused) => {
                tracing::debug!("refused an access token");
                Err(verifier.refusal(refused))
            }
        }
    }

    #[cfg(not(feature = "oauth"))]
    async fn authenticate(&self, _: &HeaderMap) -> Result<Option<Claims>, Response> {
        Ok(None)
    }

    /// An answer the dispatcher gave at once, with `status`; one that
    /// refuses a request for a scope its token lacks is a 403 challenge.
    fn reply(&self, status: StatusCode, answer: &Answer) -> Response {
        #[cfg(feature = "oauth")]
        if let Some(forbidden) = self.oauth.as_ref().and_then(|verifier| verifier.forbidden(answer)) {
            return forbidden;
        }
        json_response(status, answer)
    }
}

pub(crate) fn router(endpoint: Arc<Endpoint>) -> Router {
    let path = endpoint.options.path.clone();
    #[allow(unused_mut)] // Without OAuth there is nothing to add.
    let mut router = Router::new().route(&path, any(handle));
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &endpoint.oauth {
        for metadata in &verifier.metadata_paths {
            router = router.route(metadata, axum::routing::get(resource_metadata));
        }
    }
    router.with_state(endpoint)
}

/// The protected resource metadata (RFC 9728): public, so no token is
/// asked for, but only under the names the server answers to.
#[cfg(feature = "oauth")]
async fn resource_metadata(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let options = &endpoint.options;
    if let Err(refusal) = guard::check(request.headers(), &options.hosts, &None, None) {
        return refused(refusal);
    }
    match &endpoint.oauth {
        Some(verifier) => verifier.metadata(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Checks who is asking before anything else, then goes by method.
async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let options = &endpoint.options;
    if let Err(refusal) = guard::check(&parts.headers, &options.hosts, &options.origins, options.token.as_deref()) {
        return after_unwanted_body(body, refused(refusal)).await;
    }
    let claims = match endpoint.authenticate(&parts.headers).await {
        Ok(claims) => claims,
        Err(refusal) => return after_unwanted_body(body, refusal).await,
    };
    match parts.method {
        Method::POST => endpoint.post(&parts.headers, body, claims).await,
        Method::GET => after_unwanted_body(body, endpoint.get(&parts.headers, claims.as_ref()).await).await,
        Method::DELETE => after_unwanted_body(body, endpoint.delete(&parts.headers, claims.as_ref()).await).await,
        _ => {
            let mut response =
                error_response(StatusCode::METHOD_NOT_ALLOWED, ErrorObject::invalid_request("use POST, GET or DELETE"));
            response.headers_mut().insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            after_unwanted_body(body, response).await
        }
    }
}

/// Answer with `response` a request whose body we do not want (a refusal,
/// or a GET or DELETE). A response sent while the body is still arriving
/// leaves the connection unusable, and a keep-alive client that is not
/// told would send its next request into a closed connection: so a small
/// body is read and dropped first (the connection then carries the next
/// request), and a larger or slower one gets `Connection: close`.
async fn after_unwanted_body(body: Body, mut response: Response) -> Response {
    let mut chunks = body.into_data_stream();
    let drained = tokio::time::timeout(DRAIN_TIME, async {
        let mut read = 0;
        while let Some(chunk) = chunks.next().await {
            read += chunk.map_err(drop)?.len();
            if read > DRAIN_LIMIT {
                return Err(());
            }
        }
        Ok(())
    })
    .await;
    if !matches!(drained, Ok(Ok(()))) {
        close(&mut response);
    }
    response
}

/// Tell the client the connection closes after `response` (hyper then
/// closes it), so it sends its next request on a new one.
fn close(response: &mut Response) {
    response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
}

impl Endpoint {
    async fn post(&self, headers: &HeaderMap, body: Body, claims: Option<Claims>) -> Response {
        let media = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).and_then(|v| v.split(';').next());
        if !media.is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json")) {
            let error = ErrorObject::invalid_request("send JSON-RPC with Content-Type: application/json");
            return after_unwanted_body(body, error_response(StatusCode::UNSUPPORTED_MEDIA_TYPE, error)).await;
        }
        let body = match self.read_body(headers, body).await {
            Ok(body) => body,
            Err(response) => return *response,
        };
        let message = match parse(&body) {
            Ok(message) => message,
            Err(response) => return *response,
        };
        let sse = header_lists(headers, ACCEPT.as_str(), "text/event-stream");
        if matches!(&message, Message::Request(r) if r.method == methods::SUBSCRIPTIONS_LISTEN) && !sse {
            let error = ErrorObject::invalid_request(
                "subscriptions/listen answers with an event stream: send Accept: text/event-stream",
            );
            return error_response(StatusCode::NOT_ACCEPTABLE, error);
        }
        let Some(id) = headers.get(SESSION_ID) else {
            return match message {
                // A 2026-07-28 request, by its envelope or by the version its
                // header names (its envelope is then checked, and missing).
                Message::Request(request) if has_envelope(&request) || names_stateless_version(headers) => {
                    self.stateless(headers, request, sse, claims).await
                }
                Message::Request(request) if request.method == methods::INITIALIZE => {
                    self.initialize(Message::Request(request), claims).await
                }
                // Stateless clients cancel by closing the response stream.
                Message::Notification(_) => StatusCode::ACCEPTED.into_response(),
                Message::Request(request) => missing_session(Some(request.id)),
                Message::Response(_) => missing_session(None),
            };
        };
        let session = self.find_session(id, claims.as_ref()).await;
        let Some(session) = session else { return session_not_found() };
        if let Some(response) = unsupported_version(headers) {
            return response;
        }
        self.touch(&session);
        match message {
            Message::Request(request) => {
                let saves = snapshot::changes_snapshot(&request.method);
                // A client that takes an event stream gets a resumable one.
                let (stream, rx) = session.call_queue(sse);
                let action = session.session.handle_authorized(Message::Request(request), &stream, claims);
                let call = matches!(action, Action::Call(..));
                match action {
                    Action::Reply(answer) => {
                        if saves && answer.error_object().is_none() {
                            self.save(&session).await;
                        }
                        self.reply(StatusCode::OK, &answer)
                    }
                    Action::Call(id, mut future, cancellation) | Action::Listen(id, mut future, cancellation) => {
                        // A call that completes at once (most tools) is
                        // answered here: a task of its own would only hand
                        // its answer back across threads.
                        let done = match call && !session.is_running(&id) {
                            true => crate::dispatch::poll_once(&mut future).await,
                            false => std::task::Poll::Pending,
                        };
                        match done {
                            // Nothing came before it: the answer is all there is.
                            std::task::Poll::Ready(answer) if rx.is_empty() => {
                                return json_response(StatusCode::OK, &answer);
                            }
                            std::task::Poll::Ready(answer) => {
                                stream.send(&answer);
                                stream.end();
                            }
                            std::task::Poll::Pending => {
                                let task_session = session.clone();
                                let task_id = id.clone();
                                let started = session.start_call(id.clone(), cancellation, || {
                                    tokio::spawn(async move {
                                        answer(future, &stream).await;
                                        task_session.finish_call(&task_id);
                                    })
                                    .abort_handle()
                                });
                                if !started {
                                    let error = ErrorObject::invalid_request(format!(
                                        "request id {id} is already in use by a running request"
                                    ));
                                    return json_response(StatusCode::OK, &Answer::error(Some(id), error));
                                }
                            }
                        }
                        let resumable = sse.then(|| session.new_stream());
                        let ok = |_: &[u8]| StatusCode::OK;
                        let Some((number, hub)) = resumable else {
                            // Plain JSON cannot be resumed: hanging up cancels.
                            let on_drop: Box<dyn FnOnce() + Send> = Box::new(move || session.cancel_call(&id));
                            return CallStream::direct(rx, Some(on_drop)).respond(false, ok).await;
                        };
                        // Resumable: a dropped connection is not a cancel
                        // (the spec's SHOULD NOT); the call goes on and the
                        // client reconnects for the rest.
                        session.track(number, hub.clone());
                        let reader = hub.read(0).await.expect("a new stream reads from its start");
                        tokio::spawn(pump(rx, hub.clone()));
                        let response = CallStream::resumable(number, reader, true).respond(true, ok).await;
                        // Answered as plain JSON: there are no event ids to
                        // resume from, so its events never reach the store
                        // (a session of many quick calls costs it nothing);
                        // an event stream's do, before its first byte.
                        if response.headers().get(CONTENT_TYPE).is_some_and(|t| t == "application/json") {
                            session.forget_stream(number);
                            hub.forget().await;
                        } else {
                            hub.persist().await;
                        }
                        response
                    }
                    Action::None | Action::Cancel(_) => StatusCode::ACCEPTED.into_response(),
                }
            }
            notification_or_response => {
                if let Action::Cancel(id) = session.session.handle(notification_or_response, &Outgoing::nowhere()) {
                    session.cancel_call(&id);
                }
                StatusCode::ACCEPTED.into_response()
            }
        }
    }

    /// A 2026-07-28 request outside any session: answered from the request
    /// alone, by a session of its own that lives as long as its answer.
    async fn stateless(
        &self,
        headers: &HeaderMap,
        request: mcp_core::Request,
        sse: bool,
        claims: Option<Claims>,
    ) -> Response {
        // In the spec's order: the envelope's required keys (-32602), then
        // the headers against the body (-32020), then the rest of the
        // envelope, with the request itself (-32022 and the like).
        let meta = request.params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object);
        if let Some(error) =
            envelope::require_keys(meta).err().or_else(|| header_mismatch(headers, &request, &self.shared))
        {
            return json_response(StatusCode::BAD_REQUEST, &Answer::error(Some(request.id), error));
        }
        let session = Session::new(self.shared.clone(), Outgoing::nowhere())
            .sharing_allowances(STATELESS_ALLOWANCES)
            .over_http(None);
        let (queue, rx) = Outgoing::bounded(self.max_queued);
        let queue = queue.answer_only();
        match session.handle_authorized(Message::Request(request), &queue, claims) {
            Action::Reply(answer) => {
                let code = answer.error_object().map(|e| e.code);
                self.reply(stateless_status(code), &answer)
            }
            Action::Call(_, mut future, cancellation) => {
                // As in a session: a call that completes at once is answered
                // here, with no task.
                if let std::task::Poll::Ready(answer) = crate::dispatch::poll_once(&mut future).await {
                    if rx.is_empty() {
                        let code = answer.error_object().map(|e| e.code);
                        return self.reply(stateless_status(code), &answer);
                    }
                    queue.send(&answer);
                    queue.end();
                    let status = |answer: &[u8]| stateless_status(error_code(answer));
                    return CallStream::direct(rx, None).respond(sse, status).await;
                }
                self.stateless_task(session, queue, rx, future, cancellation, sse).await
            }
            Action::Listen(_, future, cancellation) => {
                self.stateless_task(session, queue, rx, future, cancellation, sse).await
            }
            Action::None | Action::Cancel(_) => StatusCode::ACCEPTED.into_response(),
        }
    }

    /// Run a stateless call (or subscription) as its own task, for as long
    /// as its client waits for it.
    async fn stateless_task(
        &self,
        session: Session,
        queue: Outgoing,
        rx: Drain<Vec<u8>>,
        future: BoxFuture<'static, Answer>,
        cancellation: crate::request::context::Cancellation,
        sse: bool,
    ) -> Response {
        let task = tokio::spawn(async move { answer(future, &queue).await });
        let on_drop: Box<dyn FnOnce() + Send> = Box::new(move || {
            task.abort();
            cancellation.cancel();
            drop(session);
        });
        let status = |answer: &[u8]| stateless_status(error_code(answer));
        CallStream::direct(rx, Some(on_drop)).respond(sse, status).await
    }

    /// Start a session: it is kept (and its id sent) only if `initialize`
    /// succeeds.
    async fn initialize(&self, message: Message, claims: Option<Claims>) -> Response {
        let Ok(mut session) = self.sessions.create(self.shared.clone(), self.options.stores.events.clone(), None)
        else {
            return too_many_sessions();
        };
        session.owner = super::sessions::owner_of(claims.as_ref());
        let response = match session.session.handle(message, &Outgoing::nowhere()) {
            Action::Reply(answer) => answer,
            _ => unreachable!("`initialize` is answered at once"),
        };
        if response.error_object().is_some() {
            return json_response(StatusCode::OK, &response);
        }
        let Ok(session) = self.sessions.insert(session) else { return too_many_sessions() };
        // Saved before the client learns its id: its next request may go
        // to another replica.
        self.save(&session).await;
        let mut reply = json_response(StatusCode::OK, &response);
        let id = HeaderValue::from_str(&session.id).expect("a session id is a header value");
        reply.headers_mut().insert(SESSION_ID, id);
        reply
    }

    /// The session `id`, if it is one of this claimant's: open here, or
    /// saved by another replica (then it opens here).
    async fn find_session(&self, id: &HeaderValue, claims: Option<&Claims>) -> Option<Arc<HttpSession>> {
        let id = id.to_str().ok()?;
        let session = match self.sessions.get(id) {
            Some(session) => session,
            None => self.restore(id).await?,
        };
        session.owned_by(claims).then_some(session)
    }

    /// Open here a session another replica saved; `None` if no store has
    /// it (or the table is full of busy sessions).
    async fn restore(&self, id: &str) -> Option<Arc<HttpSession>> {
        let store = self.options.stores.sessions.as_ref()?;
        // Only ids this server could have made: anything else is not
        // worth a trip to the store.
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let record = match store.load(id).await {
            Ok(record) => record?,
            Err(error) => {
                tracing::warn!(%error, "the session store could not be read; the session is not found");
                return None;
            }
        };
        let Ok(snapshot) = serde_json::from_slice::<snapshot::Snapshot>(&record) else {
            tracing::warn!(session = %id, "a saved session could not be read; it is not found");
            return None;
        };
        let mut session =
            self.sessions.create(self.shared.clone(), self.options.stores.events.clone(), Some(id.to_owned())).ok()?;
        session.owner = snapshot.owner.clone();
        session.session.restore(snapshot);
        tracing::info!(session = %id, "took up a session another replica started");
        self.sessions.insert(session).ok()
    }

    /// Save the session where other replicas find it.
    async fn save(&self, session: &HttpSession) {
        let Some(store) = &self.options.stores.sessions else { return };
        let Some(snapshot) = session.session.snapshot(session.owner.clone()) else { return };
        let record = serde_json::to_vec(&snapshot).expect("a session snapshot serializes");
        if let Err(error) = store.save(&session.id, &record, self.options.idle_timeout).await {
            tracing::warn!(session = %session.id, %error, "could not save a session; other replicas cannot take it up");
        }
    }

    /// Mark the session active, here and (now and then) in the store, so
    /// that it expires there no sooner than here.
    fn touch(&self, session: &Arc<HttpSession>) {
        session.touch();
        let Some(store) = &self.options.stores.sessions else { return };
        if !session.due_for_refresh(self.options.idle_timeout / 8) {
            return;
        }
        let (store, id, ttl) = (store.clone(), session.id.clone(), self.options.idle_timeout);
        tokio::spawn(async move {
            if let Err(error) = store.touch(&id, ttl).await {
                tracing::debug!(%error, "could not refresh a saved session");
            }
        });
    }

    /// The server's stream of messages that belong to no request.
    async fn get(&self, headers: &HeaderMap, claims: Option<&Claims>) -> Response {
        if !header_lists(headers, ACCEPT.as_str(), "text/event-stream") {
            let error = ErrorObject::invalid_request("GET opens an event stream: send Accept: text/event-stream");
            return error_response(StatusCode::NOT_ACCEPTABLE, error);
        }
        let session = match self.session_of(headers, claims).await {
            Ok(session) => session,
            Err(response) => return *response,
        };
        if let Some(response) = unsupported_version(headers) {
            return response;
        }
        if let Some(last) = headers.get(LAST_EVENT_ID) {
            return resume_stream(&session, last).await;
        }
        let Some(mut rx) = session.open_stream() else {
            let error = ErrorObject::invalid_request("this session already has an open GET stream");
            return error_response(StatusCode::CONFLICT, error);
        };
        self.touch(&session);
        let events = futures_util::stream::poll_fn(move |cx| {
            rx.poll_recv(cx).map(|message| message.map(|bytes| sse::message(None, &bytes)))
        });
        sse::response(events)
    }

    /// End a session: its calls stop and its stream closes, and no
    /// replica takes it up again.
    async fn delete(&self, headers: &HeaderMap, claims: Option<&Claims>) -> Response {
        let session = match self.session_of(headers, claims).await {
            Ok(session) => session,
            Err(response) => return *response,
        };
        if let Some(store) = &self.options.stores.sessions
            && let Err(error) = store.remove(&session.id).await
        {
            tracing::warn!(session = %session.id, %error, "could not remove an ended session from the store");
        }
        if let Some(news) = &self.news {
            let _ = news.send(News::Ended(session.id.clone()));
        }
        match self.sessions.remove(&session.id) {
            true => StatusCode::OK.into_response(),
            false => session_not_found(),
        }
    }

    /// The request's session: one of its own subject's (another's is not
    /// found, so a stolen session id is no use without its owner's token).
    async fn session_of(
        &self,
        headers: &HeaderMap,
        claims: Option<&Claims>,
    ) -> Result<Arc<HttpSession>, Box<Response>> {
        let Some(id) = headers.get(SESSION_ID) else {
            return Err(Box::new(missing_session(None)));
        };
        self.find_session(id, claims).await.ok_or_else(|| Box::new(session_not_found()))
    }

    /// The whole body, within the size and time limits. A refusal here
    /// leaves the body partly unread, so it closes the connection.
    async fn read_body(&self, headers: &HeaderMap, body: Body) -> Result<Bytes, Box<Response>> {
        let limit = self.options.body_timeout;
        let mut read = std::pin::pin!(self.read_body_untimed(headers, body));
        // A body that has already arrived (most do: they are small) is read
        // without arming a timer.
        let mut outcome = match crate::dispatch::poll_once(&mut read).await {
            std::task::Poll::Ready(outcome) => outcome,
            std::task::Poll::Pending => tokio::time::timeout(limit, read).await.unwrap_or_else(|_| {
                tracing::debug!(?limit, "a request body took too long to arrive");
                let error =
                    ErrorObject::invalid_request(format!("the request body took longer than {limit:?} to arrive"));
                Err(Box::new(error_response(StatusCode::REQUEST_TIMEOUT, error)))
            }),
        };
        if let Err(response) = &mut outcome {
            close(response);
        }
        outcome
    }

    async fn read_body_untimed(&self, headers: &HeaderMap, body: Body) -> Result<Bytes, Box<Response>> {
        let too_large = || {
            let error =
                ErrorObject::invalid_request(format!("request body exceeds the limit of {} bytes", self.max_body));
            Box::new(error_response(StatusCode::PAYLOAD_TOO_LARGE, error))
        };
        let declared = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|length| length > self.max_body as u64) {
            return Err(too_large());
        }
        // Counted as it arrives: a chunked body declares no length.
        // A body that came in one chunk (most) is kept as it came, uncopied.
        let mut chunks = body.into_data_stream();
        let mut first = Bytes::new();
        let mut joined = Vec::new();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| {
                tracing::debug!(error = %e, "reading a request body failed");
                error_response(
                    StatusCode::BAD_REQUEST,
                    ErrorObject::invalid_request("the request body could not be read"),
                )
            })?;
            if first.len() + joined.len() + chunk.len() > self.max_body {
                return Err(too_large());
            }
            if first.is_empty() && joined.is_empty() {
                first = chunk;
            } else {
                joined.extend_from_slice(&std::mem::take(&mut first));
                joined.extend_from_slice(&chunk);
            }
        }
        Ok(if joined.is_empty() { first } else { Bytes::from(joined) })
    }
}

/// Run a call (or subscription) to its end, then queue its answer and
/// the end-of-stream marker for its [`CallStream`].
async fn answer(future: BoxFuture<'static, Answer>, stream: &Outgoing) {
    let answer = future.await;
    stream.send(&answer);
    stream.end();
}

/// A reconnect to a call stream (`GET` with `Last-Event-ID`): what the
/// client missed, then the rest live, until the call's answer. A stream
/// another replica ran (the session moved here) replays from the store.
async fn resume_stream(session: &HttpSession, last: &HeaderValue) -> Response {
    let last = last.to_str().unwrap_or_default();
    let Some((number, after)) = resume::parse_event_id(last) else {
        let error = ErrorObject::invalid_request(format!("Last-Event-ID {last:?} is not an id this server sent"));
        return error_response(StatusCode::BAD_REQUEST, error);
    };
    let gone = || {
        let error = ErrorObject::invalid_request(format!(
            "the events after {last} are no longer kept: the stream ended long ago or outgrew the event store"
        ));
        error_response(StatusCode::NOT_FOUND, error)
    };
    let reader = match session.stream(number) {
        Some(hub) => hub.read(after).await,
        None => resume::replay_kept(&**session.events(), &session.stream_key(number), after).await,
    };
    let Some(reader) = reader else { return gone() };
    session.touch();
    CallStream::resumable(number, reader, false).into_sse(Vec::new())
}

/// Move a call's messages into its resumable stream, ending it when the
/// call ends (also when it was stopped and sent no answer).
async fn pump(mut rx: Drain<Vec<u8>>, hub: Arc<Hub>) {
    while let Some(message) = rx.recv().await {
        let end = message.is_empty();
        hub.take(message).await;
        if end {
            return;
        }
    }
    hub.push(Vec::new()).await;
}

/// Where a call stream's messages come from.
enum Source {
    /// Straight from the call: plain JSON, stateless requests.
    Direct(Drain<Vec<u8>>),
    /// From a resumable stream, numbered; `prime` opens it with an empty
    /// event carrying the first id and the reconnection delay.
    Resumable { stream: u64, rx: Drain<Numbered>, prime: bool },
}

/// A running call's messages, ending with its response. Dropped before
/// the response (the client went away), it runs `on_drop` (a direct
/// stream cancels its call; a resumable one does not).
struct CallStream {
    source: Source,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
    done: bool,
}

impl Drop for CallStream {
    fn drop(&mut self) {
        if let (false, Some(cancel)) = (self.done, self.on_drop.take()) {
            tracing::debug!("the client stopped waiting for a call; cancelling it");
            cancel();
        }
    }
}

impl CallStream {
    fn direct(rx: Drain<Vec<u8>>, on_drop: Option<Box<dyn FnOnce() + Send>>) -> Self {
        CallStream { source: Source::Direct(rx), on_drop, done: false }
    }

    fn resumable(stream: u64, rx: Drain<Numbered>, prime: bool) -> Self {
        CallStream { source: Source::Resumable { stream, rx, prime }, on_drop: None, done: false }
    }

    /// The next message and its number, or `None` after the response.
    async fn next(&mut self) -> Option<Numbered> {
        let message = match &mut self.source {
            Source::Direct(rx) => rx.recv().await.map(|bytes| (0, bytes)),
            Source::Resumable { rx, .. } => rx.recv().await,
        };
        match message {
            Some((number, bytes)) if !bytes.is_empty() => Some((number, bytes)),
            _ => {
                self.done = true;
                None
            }
        }
    }

    /// A call whose answer comes before anything else (within
    /// [`FIRST_MESSAGE_WAIT`]) is answered as plain JSON, in one write and
    /// with the HTTP status `status` gives it; one that sends notifications
    /// or requests first, or takes longer, gets an event stream if the
    /// client takes one, else plain JSON with the answer alone.
    async fn respond(mut self, sse: bool, status: impl FnOnce(&[u8]) -> StatusCode) -> Response {
        if !sse {
            return self.into_json(status).await;
        }
        let first = match tokio::time::timeout(FIRST_MESSAGE_WAIT, self.next()).await {
            Ok(Some(first)) => first,
            // A resumable stream whose connection the call closed at once
            // (`Context::close_stream`): its priming event tells the
            // client where to resume.
            Ok(None) if matches!(self.source, Source::Resumable { .. }) => return self.into_sse(Vec::new()),
            // Cancelled (by DELETE or `notifications/cancelled`).
            Ok(None) => return StatusCode::ACCEPTED.into_response(),
            Err(_) => return self.into_sse(Vec::new()),
        };
        // A call's only response is its answer: one that comes first is
        // all there is.
        if is_response(&first.1) {
            self.done = true;
            return (status(&first.1), [(CONTENT_TYPE, "application/json")], first.1).into_response();
        }
        self.into_sse(vec![first])
    }

    /// Stream what `already` came, then progress, log messages and requests
    /// as they come, then the response; a resumable stream's events carry
    /// ids, after a priming event if it is new.
    fn into_sse(mut self, already: Vec<Numbered>) -> Response {
        let stream = match &mut self.source {
            Source::Resumable { stream, prime, .. } => {
                let primed = std::mem::take(prime);
                Some((*stream, primed))
            }
            Source::Direct(_) => None,
        };
        let priming = stream
            .filter(|(_, primed)| *primed)
            .map(|(number, _)| sse::priming(&resume::event_id(number, 0), RECONNECT_AFTER));
        let number = stream.map(|(number, _)| number);
        let first = futures_util::stream::iter(
            priming.into_iter().chain(already.iter().map(|m| event(number, m))).collect::<Vec<_>>(),
        );
        let rest = futures_util::stream::unfold(self, move |mut call| async move {
            let message = call.next().await?;
            Some((event(number, &message), call))
        });
        sse::response(first.chain(rest))
    }

    /// Only the response: a client that takes no event stream gets no
    /// notifications.
    async fn into_json(mut self, status: impl FnOnce(&[u8]) -> StatusCode) -> Response {
        let mut last = None;
        while let Some((_, bytes)) = self.next().await {
            last = Some(bytes);
        }
        match last {
            Some(bytes) => (status(&bytes), [(CONTENT_TYPE, "application/json")], bytes).into_response(),
            // The call was cancelled (by DELETE or `notifications/cancelled`).
            None => StatusCode::ACCEPTED.into_response(),
        }
    }
}

/// Whether a message is a response (no `method`), not a notification or
/// a request.
fn is_response(message: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(message).is_ok_and(|p| p.method.is_none())
}

/// An event of a call stream: with its id when the stream is resumable.
fn event(stream: Option<u64>, (number, bytes): &Numbered) -> Bytes {
    let id = stream.map(|stream| resume::event_id(stream, *number));
    sse::message(id.as_deref(), bytes)
}

/// Stateless requests over HTTP share one rate-limit allowance: nothing
/// tells their clients apart.
const STATELESS_ALLOWANCES: u64 = u64::MAX;

/// How long a client whose event stream ended waits before reconnecting.
const RECONNECT_AFTER: Duration = Duration::from_millis(500);

/// How long a call's first message is awaited before its event stream
/// starts: an answer by then goes out as plain JSON (one write, and an HTTP
/// status of its own); a slower call still gets its stream's headers and
/// keep-alives early.
const FIRST_MESSAGE_WAIT: Duration = Duration::from_millis(250);

/// The HTTP status of a stateless answer: 404 for a method the server does
/// not have, 400 for the envelope's errors, else 200.
fn stateless_status(error: Option<i64>) -> StatusCode {
    match error {
        Some(mcp_core::codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(code) if STATELESS_BAD_REQUEST.contains(&code) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// The error code of a serialized answer, if it is an error.
fn error_code(answer: &[u8]) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct Answer {
        error: Option<Code>,
    }
    #[derive(serde::Deserialize)]
    struct Code {
        code: i64,
    }
    serde_json::from_slice::<Answer>(answer).ok()?.error.map(|e| e.code)
}

/// Envelope errors that the spec answers with 400 over HTTP.
const STATELESS_BAD_REQUEST: [i64; 4] = [
    mcp_core::codes::INVALID_PARAMS,
    mcp_core::codes::HEADER_MISMATCH,
    mcp_core::codes::MISSING_CLIENT_CAPABILITY,
    mcp_core::codes::UNSUPPORTED_PROTOCOL_VERSION,
];

/// Whether a request carries the 2026-07-28 envelope (complete or not).
fn has_envelope(request: &mcp_core::Request) -> bool {
    let meta = request.params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object);
    meta.is_some_and(|m| m.contains_key(envelope::PROTOCOL_VERSION) || m.contains_key(envelope::CLIENT_CAPABILITIES))
}

/// Whether the `MCP-Protocol-Version` header names a version without a
/// handshake.
fn names_stateless_version(headers: &HeaderMap) -> bool {
    let version = headers.get(PROTOCOL_VERSION).and_then(|v| v.to_str().ok()).and_then(ProtocolVersion::parse);
    version.is_some_and(|v| !v.uses_handshake())
}

/// What the `Mcp-Name` header mirrors for `method`: the tool or prompt
/// name, or the URI of a read (other methods have no name to mirror).
fn mirrored_name(method: &str) -> Option<&'static str> {
    match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        _ => None,
    }
}

/// 2026-07-28 mirrors parts of the body in headers (SEP-2243): every
/// request sends `Mcp-Method`, and one whose body names a tool, prompt or
/// resource sends it as `Mcp-Name` (in the `=?base64?…?=` form if a header
/// cannot carry it). A header that is missing, or that disagrees with the
/// body, is `-32020` (400). Header names are case-insensitive; values are
/// compared exactly once the whitespace around them (RFC 9110 §5.5) is
/// trimmed. `MCP-Protocol-Version` is compared when sent. Then the
/// `Mcp-Param-*` headers of a tool call, for the arguments its input
/// schema marks with `x-mcp-header`.
fn header_mismatch(headers: &HeaderMap, request: &mcp_core::Request, shared: &Shared) -> Option<ErrorObject> {
    let params = request.params.as_ref();
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
    let body_version = meta.and_then(|m| m.get(envelope::PROTOCOL_VERSION)).and_then(Value::as_str);
    let body_name =
        mirrored_name(&request.method).and_then(|field| params.and_then(|p| p.get(field))).and_then(Value::as_str);
    // (header, what the body says, whether the header must be sent)
    let checks = [
        (PROTOCOL_VERSION, body_version, false),
        (MCP_METHOD, Some(request.method.as_str()), true),
        (MCP_NAME, body_name, body_name.is_some()),
    ];
    for (header, body, required) in checks {
        let body_says = body.unwrap_or("nothing");
        let Some(sent) = headers.get(header) else {
            if required {
                return Some(mirror::mismatch(format!("{header} is missing, the body says {body_says:?}")));
            }
            continue;
        };
        let sent = mirror::text(sent);
        let decoded = if header == MCP_NAME { mirror::decode(&sent) } else { Some(sent.clone()) };
        if decoded.as_deref() != body {
            return Some(mirror::mismatch(format!("{header} is {sent:?}, the body says {body_says:?}")));
        }
    }
    if request.method != methods::TOOLS_CALL {
        return None;
    }
    let tools = shared.tools.current();
    let tool = tools.get(body_name?)?;
    mirror::param_mismatch(headers, &tool.param_headers, params.and_then(|p| p.get("arguments")))
}

/// Parse one POSTed message; a batch is refused.
fn parse(body: &[u8]) -> Result<Message, Box<Response>> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| Box::new(error_response(StatusCode::BAD_REQUEST, ErrorObject::parse_error(e))))?;
    if value.is_array() {
        let error = ErrorObject::invalid_request("JSON-RPC batches are not supported; send one message per request");
        return Err(Box::new(error_response(StatusCode::BAD_REQUEST, error)));
    }
    Message::from_value(value)
        .map_err(|invalid| Box::new(json_response(StatusCode::BAD_REQUEST, &invalid.into_response())))
}

/// A request naming a protocol version we do not speak gets 400 (absent,
/// the spec has the server assume the negotiated one).
fn unsupported_version(headers: &HeaderMap) -> Option<Response> {
    let version = headers.get(PROTOCOL_VERSION)?;
    if version.to_str().ok().and_then(ProtocolVersion::parse).is_some() {
        return None;
    }
    let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
    let error = ErrorObject::invalid_request(format!(
        "unsupported MCP-Protocol-Version {:?}; supported: {}",
        String::from_utf8_lossy(version.as_bytes()),
        supported.join(", ")
    ))
    .with_data(json!({ "supported": supported }));
    Some(error_response(StatusCode::BAD_REQUEST, error))
}

/// Whether a header lists `value` (as one of its comma-separated items).
fn header_lists(headers: &HeaderMap, name: &str, value: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| item.split(';').next().is_some_and(|media| media.trim().eq_ignore_ascii_case(value)))
}

fn refused(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Forbidden(why) => {
            error_response(StatusCode::FORBIDDEN, ErrorObject::new(-32000, format!("Forbidden: {why}")))
        }
        Refusal::Unauthorized { presented } => {
            let challenge = if presented { r#"Bearer error="invalid_token""# } else { "Bearer" };
            let mut response = error_response(StatusCode::UNAUTHORIZED, ErrorObject::new(-32000, "Unauthorized"));
            response.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
            response
        }
    }
}

/// A request that needs a session came without one; `id` is the
/// request's, when there is one to answer.
fn missing_session(id: Option<mcp_core::RequestId>) -> Response {
    let error = ErrorObject::invalid_request("missing Mcp-Session-Id header: start a session with `initialize`");
    json_response(StatusCode::BAD_REQUEST, &Answer::error(id, error))
}

fn session_not_found() -> Response {
    let error = ErrorObject::new(
        SESSION_NOT_FOUND,
        "session not found (it ended or never existed): start a new one with `initialize`",
    );
    error_response(StatusCode::NOT_FOUND, error)
}

fn too_many_sessions() -> Response {
    let error = ErrorObject::new(-32000, "the server has too many open sessions; retry later");
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, error);
    response.headers_mut().insert("retry-after", HeaderValue::from_static("5"));
    response
}

pub(super) fn error_response(status: StatusCode, error: ErrorObject) -> Response {
    json_response(status, &Answer::error(None, error))
}

pub(super) fn json_response(status: StatusCode, message: &impl serde::Serialize) -> Response {
    match serde_json::to_vec(message) {
        Ok(bytes) => (status, [(CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}
