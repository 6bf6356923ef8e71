//! The MCP endpoint's HTTP handlers: POST a message, GET the server's
//! stream, DELETE the session. Every refusal is a JSON-RPC error body with
//! a fixed text, never internal error details. This file holds the
//! endpoint and the checks every request passes first; each method's
//! handling is in a file of its own.

mod post;
mod routes;
mod session;
mod stateless;
mod stream;

use super::responses::{error_response, json_response, missing_session, refused, session_not_found, too_many_sessions};
use post::{header_lists, unsupported_version};
use session::pump;
use stream::{CallStream, Sent};

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{ACCEPT, ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, ORIGIN};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures_util::StreamExt;
use mcp_core::jsonrpc::{member, request_meta};
use mcp_core::{ErrorObject, Message, ProtocolVersion, envelope, methods};
use serde_json::{Value, json};

use super::HttpOptions;
use super::cors;
use super::guard::{self, Refusal};
use super::mirror;
use super::resume::{self, Hub, Numbered};
use super::sessions::{HttpSession, SessionLimits, Sessions};
use super::sse;
use super::store::News;
use crate::dispatch::arrival::Arrival;
use crate::dispatch::calls::{Calls, Ids, Started, Submitted};
use crate::dispatch::frame::Frame;
use crate::dispatch::outgoing::{Drain, Outgoing};
use crate::dispatch::reply::Answer;
use crate::dispatch::{Session, snapshot};
use crate::error::Error;
use crate::request::claims::Claims;
use crate::server::Shared;
use crate::tools::BoxFuture;
use crate::transport::connection::Limits;

use axum::http::HeaderName;

// The MCP headers as `HeaderName`s: looking one up is a comparison, where
// a lookup by `&str` parses the name first (on every request).
const SESSION_ID: HeaderName = HeaderName::from_static(mcp_core::http::SESSION_ID);
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static(mcp_core::http::PROTOCOL_VERSION);
const LAST_EVENT_ID: HeaderName = HeaderName::from_static(mcp_core::http::LAST_EVENT_ID);
const MCP_METHOD: HeaderName = HeaderName::from_static(mcp_core::http::MCP_METHOD);
const MCP_NAME: HeaderName = HeaderName::from_static(mcp_core::http::MCP_NAME);

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
    /// The session stateless requests share: they keep nothing in it but
    /// the server and their shared allowance, so one serves them all
    /// rather than one built and dropped per request.
    stateless: Arc<Session>,
    /// The calls of stateless requests, each on its own (their ids are
    /// independent), within one limit: nothing tells their clients apart.
    stateless_calls: Arc<Calls>,
    /// Without session ids (`HttpOptions::session_ids(false)`): the session
    /// each handshake version's requests share, as if initialized by a
    /// client that declared nothing (by place in `ProtocolVersion::ALL`).
    assumed: [std::sync::OnceLock<Arc<Session>>; ProtocolVersion::ALL.len()],
    /// Where news for the other replicas goes, when there are any.
    news: Option<tokio::sync::mpsc::UnboundedSender<News>>,
    /// The token checks, when the endpoint is an OAuth protected resource.
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::Verifier>,
    /// The OAuth proxy, when the server is its own authorization server.
    #[cfg(feature = "oauth")]
    proxy: Option<Arc<super::oauth::proxy::Proxy>>,
    /// The program's own routes ([`HttpOptions::route`]), reached where
    /// the server's own paths are not.
    routes: Option<Router>,
}

impl Endpoint {
    pub(crate) fn new(shared: Arc<Shared>, limits: Limits, options: HttpOptions) -> Result<Self, Error> {
        let max_body = options.max_body.unwrap_or(limits.max_message_size);
        let session_limits =
            SessionLimits { max_queued: limits.max_queued_output, max_running: limits.max_running_calls };
        let mut sessions = Sessions::new(options.max_sessions, options.idle_timeout, session_limits);
        #[cfg(feature = "oauth")]
        let bound_to_principals = options.oauth.is_some() || options.oauth_proxy.is_some();
        #[cfg(not(feature = "oauth"))]
        let bound_to_principals = false;
        // With OAuth, tasks are bound to principals, who outlive sessions.
        if !bound_to_principals {
            sessions = sessions.ending_tasks(shared.tasks.clone(), options.stores.sessions.is_some());
        }
        let sessions = Arc::new(sessions);
        #[cfg(feature = "oauth")]
        let (oauth, proxy) = {
            if options.oauth.is_some() && options.oauth_proxy.is_some() {
                return Err(Error::InvalidOAuth("both `oauth` and `oauth_proxy` are set; choose one".into()));
            }
            let (proxy, proxied) = match options.oauth_proxy.clone() {
                Some(settings) => {
                    let (proxy, oauth) =
                        super::oauth::proxy::Proxy::new(*settings, &options.path, options.hosts.clone())?;
                    (Some(Arc::new(proxy)), Some(oauth))
                }
                None => (None, None),
            };
            let oauth = match options.oauth.clone().or(proxied) {
                Some(_) if options.token.is_some() => {
                    return Err(Error::InvalidOAuth(
                        "both `bearer_token` and OAuth are set; a request can show only one kind of token".into(),
                    ));
                }
                Some(oauth) => Some(super::oauth::Verifier::new(oauth, &options.path)?),
                None => None,
            };
            (oauth, proxy)
        };
        // The paths the server serves itself, which the program's routes
        // would never be reached at.
        let mut taken = vec![(options.path.clone(), "the MCP endpoint")];
        if options.card.is_some() {
            let card = format!("{}/server-card", options.path.trim_end_matches('/'));
            let catalogs = super::server_card::CATALOG_PATHS.iter().map(|path| (*path).to_owned());
            taken.extend(std::iter::once(card).chain(catalogs).map(|path| (path, "the server card")));
        }
        #[cfg(feature = "oauth")]
        {
            let metadata = oauth.iter().flat_map(|verifier| verifier.metadata_paths.iter().cloned());
            taken.extend(metadata.map(|path| (path, "the protected resource metadata")));
            let proxied = proxy.iter().flat_map(|proxy| super::oauth::proxy::paths(proxy));
            taken.extend(proxied.map(|path| (path, "the OAuth proxy")));
        }
        let routes = routes::router(&options, &taken)?;
        let news = options
            .stores
            .fanout
            .clone()
            .map(|fanout| super::store::connect_fanout(&shared.announcer, Arc::downgrade(&sessions), fanout));
        Ok(Endpoint {
            stateless: Arc::new(stateless::session(&shared)),
            stateless_calls: Calls::new(limits.max_running_calls, Ids::PerRequest),
            assumed: Default::default(),
            shared,
            options,
            max_body,
            max_queued: limits.max_queued_output,
            sessions,
            news,
            #[cfg(feature = "oauth")]
            oauth,
            #[cfg(feature = "oauth")]
            proxy,
            routes,
        })
    }

    /// The claims of the request's access token when the endpoint takes
    /// OAuth tokens (`None` when it does not), or the refusal.
    #[cfg(feature = "oauth")]
    async fn authenticate(&self, method: &Method, headers: &HeaderMap) -> Result<Option<Claims>, Response> {
        use super::oauth::Refused;
        let Some(verifier) = &self.oauth else { return Ok(None) };
        match verifier.authenticate(method, headers).await {
            Ok(claims) => match &self.proxy {
                Some(proxy) if !proxy.alive(&claims).await => {
                    tracing::debug!("refused an access token of a revoked grant");
                    Err(verifier.refusal(Refused::Unauthorized(Some("the token was revoked"))))
                }
                _ => Ok(Some(claims)),
            },
            Err(refused) => {
                tracing::debug!("refused an access token");
                Err(verifier.refusal(refused))
            }
        }
    }

    #[cfg(not(feature = "oauth"))]
    async fn authenticate(&self, _: &Method, _: &HeaderMap) -> Result<Option<Claims>, Response> {
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
    let mut router = Router::new().route(&path, any(handle));
    if let Some(card) = &endpoint.options.card {
        super::server_card::warn_if_invalid(card);
        let at = format!("{}/server-card", path.trim_end_matches('/'));
        router = router.route(&at, any(server_card));
        for catalog in super::server_card::CATALOG_PATHS {
            router = router.route(catalog, any(server_card));
        }
    }
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &endpoint.oauth {
        for metadata in &verifier.metadata_paths {
            router = router.route(metadata, any(resource_metadata));
        }
    }
    let routes = endpoint.routes.clone();
    #[cfg(feature = "oauth")]
    let proxy = endpoint.proxy.clone();
    let router = router.with_state(endpoint);
    #[cfg(feature = "oauth")]
    let router = match proxy {
        Some(proxy) => router.merge(super::oauth::proxy::routes(proxy)),
        None => router,
    };
    // Behind the server's own paths, never in their way.
    match routes {
        Some(routes) => router.fallback_service(routes),
        None => router,
    }
}

/// The server card or the AI catalog that lists it (experimental): public,
/// so no token is asked for, but only under the names the server answers
/// to.
async fn server_card(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    use super::server_card::{self as card, Facts};
    let options = &endpoint.options;
    let Some(settings) = &options.card else { return StatusCode::NOT_FOUND.into_response() };
    if let Err(refusal) = guard::check(request.headers(), &options.hosts, &None, None) {
        return refused(refusal);
    }
    let host = card::host(request.headers());
    let is_catalog = request.uri().path().starts_with("/.well-known/");
    let document = if is_catalog {
        card::catalog(settings, &options.path, host)
    } else {
        let capabilities = endpoint.shared.capabilities();
        #[cfg(feature = "oauth")]
        let oauth = options.oauth.is_some() || options.oauth_proxy.is_some();
        #[cfg(not(feature = "oauth"))]
        let oauth = false;
        let auth = if oauth {
            Some(
                "An OAuth 2.1 access token: `Bearer TOKEN` (the server's protected resource metadata names its authorization server)",
            )
        } else {
            options.token.as_ref().map(|_| "The server's bearer token: `Bearer TOKEN`")
        };
        let facts = Facts {
            info: &endpoint.shared.info,
            extensions: capabilities.other.get("extensions"),
            path: &options.path,
            auth,
        };
        card::card(settings, &facts, host)
    };
    card::answer(request.method(), request.headers(), &document, is_catalog)
}

/// The protected resource metadata (RFC 9728): public, so no token is
/// asked for and any page may read it, but only under the names the
/// server answers to.
#[cfg(feature = "oauth")]
async fn resource_metadata(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let options = &endpoint.options;
    if let Err(refusal) = guard::check(request.headers(), &options.hosts, &None, None) {
        return refused(refusal);
    }
    const METHODS: HeaderValue = HeaderValue::from_static("GET, HEAD, OPTIONS");
    let mut response = match (&endpoint.oauth, request.method()) {
        (Some(_), &Method::OPTIONS) => cors::preflight(request.headers(), METHODS),
        (Some(verifier), &Method::GET | &Method::HEAD) => verifier.metadata(),
        (Some(_), _) => {
            let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
            response.headers_mut().insert(ALLOW, METHODS);
            response
        }
        (None, _) => return StatusCode::NOT_FOUND.into_response(),
    };
    cors::public(&mut response);
    response
}

/// The endpoint as the server's own connections serve it: a request for
/// the endpoint's path goes straight to its handler, anything else (the
/// OAuth metadata, a 404) through the router. The router's way costs, on
/// every call, a clone of its boxed service, a route lookup and two more
/// boxed futures: some 6% of what a whole call to a small tool does.
#[derive(Clone)]
pub(crate) struct Direct {
    endpoint: Arc<Endpoint>,
    router: Router,
    /// The endpoint's path as requests name it; `None` when it has a
    /// parameter in it, which only the router matches.
    path: Option<Arc<str>>,
}

impl Direct {
    pub(crate) fn new(endpoint: Arc<Endpoint>) -> Self {
        let path = &endpoint.options.path;
        let path = (!path.contains(['{', '*'])).then(|| Arc::from(path.as_str()));
        Direct { router: router(endpoint.clone()), endpoint, path }
    }
}

impl hyper::service::Service<hyper::Request<hyper::body::Incoming>> for Direct {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = BoxFuture<'static, Result<Response, Self::Error>>;

    fn call(&self, request: hyper::Request<hyper::body::Incoming>) -> Self::Future {
        let request = request.map(Body::new);
        if self.path.as_deref() == Some(request.uri().path()) {
            let endpoint = self.endpoint.clone();
            return Box::pin(async move { Ok(serve(&endpoint, request).await) });
        }
        let router = self.router.clone();
        Box::pin(async move { tower::ServiceExt::oneshot(router, request).await })
    }
}

/// The router's handler of the endpoint's path.
async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    serve(&endpoint, request).await
}

/// Checks who is asking before anything else, then answers; a page of an
/// allowed origin gets the headers that let it read the answer, refusals
/// of its token included (its OAuth client reads the challenge).
async fn serve(endpoint: &Endpoint, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let options = &endpoint.options;
    // A browser's preflight never carries credentials: no token is asked of it.
    let preflight = parts.method == Method::OPTIONS;
    let token = if preflight { None } else { options.token.as_deref() };
    let mut response = match guard::check(&parts.headers, &options.hosts, &options.origins, token) {
        Err(refusal @ Refusal::Forbidden(_)) => return after_unwanted_body(body, refused(refusal)).await,
        Err(refusal) => after_unwanted_body(body, refused(refusal)).await,
        Ok(()) if preflight => after_unwanted_body(body, cors::preflight(&parts.headers, cors::ENDPOINT_METHODS)).await,
        Ok(()) => endpoint.answer(&parts.method, &parts.headers, body).await,
    };
    if let Some(origin) = parts.headers.get(ORIGIN) {
        cors::allow(&mut response, origin.clone());
    }
    response
}

impl Endpoint {
    /// A request that may ask: its token's claims, then by method.
    async fn answer(&self, method: &Method, headers: &HeaderMap, body: Body) -> Response {
        let claims = match self.authenticate(method, headers).await {
            Ok(claims) => claims,
            Err(refusal) => return after_unwanted_body(body, refusal).await,
        };
        match *method {
            Method::POST => self.post(headers, body, claims).await,
            Method::GET => after_unwanted_body(body, self.get(headers, claims.as_ref()).await).await,
            Method::DELETE => after_unwanted_body(body, self.delete(headers, claims.as_ref()).await).await,
            _ => {
                let error = ErrorObject::invalid_request("use POST, GET or DELETE");
                let mut response = error_response(StatusCode::METHOD_NOT_ALLOWED, error);
                response.headers_mut().insert(ALLOW, cors::ENDPOINT_METHODS);
                after_unwanted_body(body, response).await
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    async fn closes(body: Body) -> bool {
        let response = after_unwanted_body(body, StatusCode::ACCEPTED.into_response()).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "the answer itself is unchanged");
        match response.headers().get(CONNECTION) {
            None => false,
            Some(value) => {
                assert_eq!(value, "close");
                true
            }
        }
    }

    #[tokio::test]
    async fn a_small_unwanted_body_is_read_so_the_connection_stays_open() {
        assert!(!closes(Body::empty()).await);
        assert!(!closes(Body::from(vec![b'x'; DRAIN_LIMIT])).await);
    }

    #[tokio::test]
    async fn a_large_or_stalled_unwanted_body_closes_the_connection() {
        assert!(closes(Body::from(vec![b'x'; DRAIN_LIMIT + 1])).await);
        let stalled = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
        assert!(closes(Body::from_stream(stalled)).await, "given up after {DRAIN_TIME:?}");
    }
}
