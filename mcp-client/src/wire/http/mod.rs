//! Streamable HTTP: each message POSTed to the endpoint, its answer read
//! as JSON or as an event stream (resumed with `GET` and `Last-Event-ID`
//! when the server ends it early, after the `retry` it asked for); the
//! session id kept and sent, the server's own stream opened with `GET`,
//! and the session deleted on close. The event streams are read in
//! `stream`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use mcp_core::http::{PROTOCOL_VERSION, SESSION_ID};
use mcp_core::{Message, RequestId};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, WWW_AUTHENTICATE};
use tokio::sync::Notify;

use super::{Inbound, Inbox, Outbound, Wire};
use crate::Error;
use crate::session::Limits;

mod stream;

/// How long connecting waits for the server's own stream to open.
const STREAM_OPEN_WAIT: Duration = Duration::from_secs(5);
/// How many times one message is sent again after its authorization
/// changed (a new token, a wider scope).
const MAX_AUTH_RETRIES: u32 = 3;
/// How long closing waits for the server to delete its session.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// Credentials for an HTTP server: a header to send, and what to do when
/// the server refuses them. The OAuth client implements it; so can any
/// scheme of a user's own.
pub trait Authorization: Send + Sync + 'static {
    /// The `Authorization` header value for the next request, if any.
    fn header(&self) -> BoxFuture<'_, Result<Option<String>, Error>>;

    /// The server answered 401 or 403 with this `WWW-Authenticate`
    /// challenge: get new credentials and say `true` to send the request
    /// again, or `false` to give up (the caller gets the refusal).
    fn challenged<'a>(&'a self, status: u16, challenge: Option<&'a str>) -> BoxFuture<'a, Result<bool, Error>>;

    /// The headers for one request of `method` to `url` (what is sent):
    /// by default [`header`](Self::header) as `Authorization`. A scheme
    /// that proves possession of a key with each request (DPoP, RFC 9449)
    /// adds its proof, bound to this method and URL.
    fn request_headers<'a>(
        &'a self,
        method: &'a str,
        url: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, Error>> {
        let _ = (method, url);
        Box::pin(async move {
            Ok(self.header().await?.map(|value| vec![("Authorization".to_owned(), value)]).unwrap_or_default())
        })
    }

    /// An answer from `url` carried a `DPoP-Nonce` (RFC 9449 §9): the
    /// nonce for the next proofs there. Ignored by default.
    fn dpop_nonce(&self, url: &str, nonce: &str) {
        let _ = (url, nonce);
    }
}

/// Options of an HTTP connection.
#[derive(Clone, Default)]
pub(crate) struct HttpOptions {
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) authorization: Option<Arc<dyn Authorization>>,
}

pub(crate) struct HttpWire {
    shared: Arc<Shared>,
}

struct Shared {
    http: reqwest::Client,
    url: String,
    headers: HeaderMap,
    authorization: Option<Arc<dyn Authorization>>,
    max_message_bytes: usize,
    timeout: Duration,
    session: Mutex<Option<String>>,
    /// The server forgot the session (it answered 404) and no new one has
    /// been handed out: until one is, only `initialize` is sent (anything
    /// else would go without a session, be refused, and never be retried).
    expired: AtomicBool,
    version: Mutex<Option<String>>,
    inbox: Inbox,
    /// The answer streams being read, by request, to close on cancel.
    streams: Mutex<std::collections::HashMap<RequestId, tokio::task::AbortHandle>>,
    closed: AtomicBool,
    closing: Notify,
}

impl HttpWire {
    /// A connection to `url`, reading what `limits` allow: answers and
    /// events of up to `max_message_bytes`, and the exchanges no request
    /// waits on (deleting the session, a stream that answers no request)
    /// within the request timeout.
    pub(crate) fn new(url: &str, options: HttpOptions, limits: &Limits, inbox: Inbox) -> Result<HttpWire, Error> {
        let supported = url.starts_with("http://") || (cfg!(feature = "tls") && url.starts_with("https://"));
        if !supported {
            let url = crate::error::redact_url(url);
            return Err(Error::transport(if url.starts_with("https://") {
                format!("`{url}` needs TLS: enable the client's `tls` feature")
            } else {
                format!("`{url}` is not an http:// or https:// URL")
            }));
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &options.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| Error::transport(format!("`{name}` is not an HTTP header name")))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|_| Error::transport(format!("the value of `{name}` cannot be sent in a header")))?;
            headers.append(name, value);
        }
        let http = reqwest::Client::builder().build().map_err(|e| Error::transport(format!("HTTP setup: {e}")))?;
        let shared = Shared {
            http,
            url: url.to_owned(),
            headers,
            authorization: options.authorization,
            max_message_bytes: limits.max_message_bytes,
            timeout: limits.timeout,
            session: Mutex::new(None),
            expired: AtomicBool::new(false),
            version: Mutex::new(None),
            inbox,
            streams: Mutex::default(),
            closed: AtomicBool::new(false),
            closing: Notify::new(),
        };
        Ok(HttpWire { shared: Arc::new(shared) })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Wire for HttpWire {
    fn send(&self, message: Outbound) -> BoxFuture<'_, Result<(), Error>> {
        let shared = self.shared.clone();
        Box::pin(async move { shared.post(message).await })
    }

    fn cancelled(&self, id: &RequestId) {
        if let Some(stream) = lock(&self.shared.streams).remove(id) {
            stream.abort();
        }
    }

    fn speak(&self, version: Option<&str>) {
        *lock(&self.shared.version) = version.map(str::to_owned);
    }

    fn opened(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let shared = self.shared.clone();
            // A server slow to open it does not hold up the connection.
            let first = match tokio::time::timeout(STREAM_OPEN_WAIT, shared.open_stream(None)).await {
                Ok(None) => return,
                Ok(Some(first)) => first,
                Err(_) => Err(Error::transport("the server took too long to open its stream")),
            };
            tokio::spawn(shared.listen(first));
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let shared = &self.shared;
            if shared.closed.swap(true, Ordering::AcqRel) {
                return;
            }
            shared.closing.notify_waiters();
            let session = lock(&shared.session).take();
            if let Some(session) = session {
                let delete =
                    shared.http.delete(&shared.url).headers(shared.headers.clone()).header(SESSION_ID, session);
                let delete = shared.with_version(delete);
                // With the connection's credentials (and a proof of its
                // own, for DPoP), but no new authorization for it.
                let send = async {
                    let delete = shared.with_authorization(delete).await.map_err(|e| e.to_string())?;
                    shared.http.execute(delete).await.map_err(crate::error::http_failure)
                };
                match tokio::time::timeout(shared.timeout.min(CLOSE_WAIT), send).await {
                    Ok(Ok(response))
                        if response.status().is_success() || response.status() == StatusCode::METHOD_NOT_ALLOWED => {}
                    Ok(Ok(response)) => {
                        tracing::debug!(status = %response.status(), "deleting the session was refused")
                    }
                    Ok(Err(error)) => tracing::debug!(%error, "deleting the session failed"),
                    Err(_) => tracing::debug!("the server did not answer the session's deletion in time"),
                }
            }
        })
    }
}

impl Shared {
    fn with_version(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match lock(&self.version).clone() {
            Some(version) => request.header(PROTOCOL_VERSION, version),
            None => request,
        }
    }

    fn with_session(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match lock(&self.session).clone() {
            Some(session) => request.header(SESSION_ID, session),
            None => request,
        }
    }

    /// The request, with the authorization's headers for its method and
    /// URL.
    async fn with_authorization(&self, request: reqwest::RequestBuilder) -> Result<reqwest::Request, Error> {
        let mut request = request.build().map_err(|e| Error::transport(crate::error::http_failure(e)))?;
        let Some(authorization) = &self.authorization else { return Ok(request) };
        let method = request.method().as_str().to_owned();
        let url = request.url().as_str().to_owned();
        for (name, value) in authorization.request_headers(&method, &url).await? {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| Error::transport(format!("the authorization's `{name}` is not an HTTP header name")))?;
            let value = HeaderValue::try_from(value)
                .map_err(|_| Error::transport(format!("the authorization's `{name}` cannot be sent in a header")))?;
            request.headers_mut().insert(name, value);
        }
        Ok(request)
    }

    /// Send a request built by `build` with the connection's headers and
    /// credentials, asking the authorization for new ones when refused.
    async fn exchange(&self, build: impl Fn() -> reqwest::RequestBuilder) -> Result<reqwest::Response, Error> {
        let mut retries = 0;
        loop {
            let request = self.with_session(self.with_version(build().headers(self.headers.clone())));
            let request = self.with_authorization(request).await?;
            let response =
                self.http.execute(request).await.map_err(|e| Error::transport(crate::error::http_failure(e)))?;
            let status = response.status();
            if let Some(authorization) = &self.authorization
                && let Some(nonce) = response.headers().get("dpop-nonce").and_then(|v| v.to_str().ok())
            {
                authorization.dpop_nonce(&self.url, nonce);
            }
            let refused = status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN;
            let Some(authorization) = self.authorization.as_ref().filter(|_| refused) else { return Ok(response) };
            if retries >= MAX_AUTH_RETRIES {
                return Ok(response);
            }
            let challenge = response.headers().get(WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()).map(str::to_owned);
            if !authorization.challenged(status.as_u16(), challenge.as_deref()).await? {
                return Ok(response);
            }
            retries += 1;
        }
    }

    async fn post(self: Arc<Self>, message: Outbound) -> Result<(), Error> {
        let Outbound { bytes, id, headers } = message;
        // Refused here, so the request joins the renewal (the session
        // layer's); a renewal that failed leaves it expired, and the next
        // request tries again.
        let renewing = self.expired.load(Ordering::Acquire);
        if renewing && !is_initialize(&bytes) {
            return Err(Error::SessionExpired);
        }
        let sent_session = lock(&self.session).clone();
        let response = self
            .exchange(|| {
                let mut request = self
                    .http
                    .post(&self.url)
                    .header(CONTENT_TYPE, "application/json")
                    .header(ACCEPT, "application/json, text/event-stream")
                    .body(bytes.clone());
                for (name, value) in &headers {
                    request = request.header(name.as_str(), value.as_str());
                }
                request
            })
            .await?;
        let status = response.status();
        // The session expired: the spec's signal to start a new one, which
        // the session layer does (whatever the body says).
        if status == StatusCode::NOT_FOUND && sent_session.is_some() {
            let mut session = lock(&self.session);
            if *session == sent_session {
                *session = None;
                self.expired.store(true, Ordering::Release);
            }
            return Err(Error::SessionExpired);
        }
        // A session is what a successful answer (to `initialize`) hands
        // out: a refusal may name one it has already ended (the Python
        // SDK's 1.x answers 2026-07-28's `server/discover` so), and
        // sending that with the next request would be refused in turn.
        if status.is_success()
            && let Some(session) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok())
        {
            *lock(&self.session) = Some(session.to_owned());
            self.expired.store(false, Ordering::Release);
        }
        // A new session without an id (a server that stopped keeping
        // them) is a session too.
        if renewing && status.is_success() {
            self.expired.store(false, Ordering::Release);
        }
        if status == StatusCode::ACCEPTED {
            return Ok(());
        }
        if status.is_success() && media_type(response.headers()) == "text/event-stream" {
            // Held while the reader starts, so it cannot finish (and
            // forget itself) before it is listed.
            let mut streams = lock(&self.streams);
            match id {
                Some(id) => {
                    let reader = tokio::spawn(self.clone().read_stream(response, Some(id.clone())));
                    streams.insert(id, reader.abort_handle());
                }
                // A stream that answers no request (a server's odd answer
                // to a notification) waits on no caller's deadline.
                None => {
                    let timeout = self.timeout;
                    tokio::spawn(tokio::time::timeout(timeout, self.clone().read_stream(response, None)));
                }
            }
            return Ok(());
        }
        let body = self.read_body(response).await?;
        // A JSON-RPC answer is the answer, whatever the status says; but
        // only an answer to this message: a refusal's error under an id of
        // the server's own (the Python SDK's 1.x says `"server-error"`)
        // answers nothing, and the request would wait for its timeout.
        let mut items = Vec::new();
        super::incoming::each(&body, |item| items.push(item));
        // (An error with a null id answers it too: see below.)
        let answered =
            items.iter().filter_map(Inbound::answer_to).any(|to| id.is_none() || to == id.as_ref() || to.is_none());
        for item in items {
            match (item, &id) {
                // An error without an id (the server could not read the
                // request) in the answer to this request is its answer.
                (
                    Inbound::Message(Message::Response(mcp_core::Response {
                        id: None,
                        outcome: mcp_core::Outcome::Error(error),
                        ..
                    })),
                    Some(id),
                ) => {
                    self.inbox.deliver(Inbound::Failed(id.clone(), Error::Server(error)));
                }
                (item, _) => {
                    self.inbox.deliver(item);
                }
            }
        }
        if answered || (status.is_success() && id.is_none()) {
            return Ok(());
        }
        Err(Error::Http { status: status.as_u16(), body: clip(&String::from_utf8_lossy(&body)) })
    }

    /// An answer's body, up to the size limit: past it, the rest is not
    /// read and the request fails.
    async fn read_body(&self, response: reqwest::Response) -> Result<Vec<u8>, Error> {
        let limit = self.max_message_bytes;
        read_limited(response, limit).await.map_err(|unread| match unread {
            Unread::TooLarge(size) => Error::too_large("the server's answer", size, limit),
            Unread::Failed(error) => Error::transport(crate::error::http_failure(error)),
        })
    }
}

/// Why a body was not read whole.
pub(crate) enum Unread {
    /// It is larger than the limit: this many bytes, announced or seen.
    TooLarge(usize),
    /// Reading it failed.
    Failed(reqwest::Error),
}

/// `response`'s body, holding at most `limit` bytes of it: a larger one
/// (announced by its `Content-Length`, or as it streams) is not read on.
pub(crate) async fn read_limited(response: reqwest::Response, limit: usize) -> Result<Vec<u8>, Unread> {
    if let Some(length) = response.content_length().filter(|&n| n > limit as u64) {
        return Err(Unread::TooLarge(usize::try_from(length).unwrap_or(usize::MAX)));
    }
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(Unread::Failed)?;
        if body.len() + chunk.len() > limit {
            return Err(Unread::TooLarge(body.len() + chunk.len()));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Whether `bytes` is an `initialize` request (read only while the
/// session is expired, so the usual path parses nothing).
fn is_initialize(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Method>(bytes).is_ok_and(|m| m.method.as_deref() == Some(mcp_core::methods::INITIALIZE))
}

fn media_type(headers: &HeaderMap) -> String {
    let value = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    value.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

fn clip(text: &str) -> String {
    let clipped: String = text.chars().take(300).collect();
    if clipped.len() < text.len() { format!("{clipped}…") } else { clipped }
}
