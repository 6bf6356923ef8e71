//! Streamable HTTP: serve a [`Server`] to remote clients, secure by
//! default.
//!
//! One endpoint (`/mcp` unless [`HttpOptions::path`] says otherwise) takes
//! POSTed JSON-RPC messages, streams server messages to a GET, and ends a
//! session on DELETE. The `initialize` response carries an
//! `Mcp-Session-Id`; every later request must send it back.
//!
//! What a server gets without asking: it listens on loopback only, answers
//! only to the `Host` names `localhost`, `127.0.0.1` and `[::1]`, refuses
//! web pages from other origins (DNS rebinding) and answers pages of the
//! origins it allows with the CORS headers a browser needs to read the
//! answers, caps request bodies, the
//! number of sessions and their idle time, closes connections that are
//! slow to send their headers or body, caps the number of open connections,
//! and never puts internal error text in a response.

mod conn;
mod cors;
mod endpoint;
mod guard;
mod mirror;
#[cfg(feature = "oauth")]
mod oauth;
mod responses;
mod resume;
mod server_card;
mod sessions;
mod sse;
pub(crate) mod store;

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, ToSocketAddrs};

use crate::error::Error;
use crate::server::Server;
pub(crate) use endpoint::Endpoint;
use guard::AllowList;
#[cfg(feature = "oauth")]
pub use oauth::proxy::{MemoryProxyStore, OAuthProxy, ProxyStore, TrustedIdp, Upstream};
#[cfg(feature = "oauth")]
pub use oauth::{Dpop, Introspection, OAuth};
pub use server_card::ServerCard;
#[cfg(feature = "redis")]
pub use store::RedisStore;
#[cfg(feature = "redis")]
pub(crate) use store::redis_within;
pub use store::{
    EventStore, Fanout, KeptEvent, LocalFanout, MemoryEventStore, MemorySessionStore, SessionStore, StoreError,
    StoreFuture,
};

/// How the HTTP endpoint behaves: its path, who may call it and its
/// limits. The defaults are the safe ones; each method says what it opens.
///
/// ```no_run
/// use mcp_runtime::{Server, transport::HttpOptions};
///
/// # async fn run() -> Result<(), mcp_runtime::Error> {
/// let options = HttpOptions::new()
///     .bearer_token(std::env::var("MCP_TOKEN").expect("set MCP_TOKEN"))
///     .allowed_hosts(["mcp.example.com"]);
/// Server::new("remote", "1.0.0").serve_http_with("0.0.0.0:8080", options).await
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub(crate) path: String,
    pub(crate) hosts: AllowList,
    pub(crate) origins: AllowList,
    pub(crate) token: Option<String>,
    pub(crate) max_body: Option<usize>,
    pub(crate) max_sessions: usize,
    pub(crate) idle_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) connections: conn::ConnectionLimits,
    pub(crate) stores: Stores,
    pub(crate) card: Option<ServerCard>,
    /// The program's own routes beside the endpoint ([`route`](Self::route)).
    pub(crate) routes: Vec<(String, axum::routing::MethodRouter)>,
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<OAuth>,
    #[cfg(feature = "oauth")]
    pub(crate) oauth_proxy: Option<Box<OAuthProxy>>,
}

/// What the endpoint keeps where replicas can share it (a struct of its
/// own so options stay `Debug`).
#[derive(Clone)]
pub(crate) struct Stores {
    pub(crate) events: Arc<dyn EventStore>,
    pub(crate) sessions: Option<Arc<dyn SessionStore>>,
    pub(crate) fanout: Option<Arc<dyn Fanout>>,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field("sessions", &self.sessions.is_some())
            .field("fanout", &self.fanout.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".to_owned(),
            hosts: guard::loopback_hosts(),
            origins: guard::loopback_origins(),
            token: None,
            max_body: None,
            max_sessions: 1024,
            idle_timeout: Duration::from_secs(30 * 60),
            body_timeout: Duration::from_secs(60),
            connections: conn::ConnectionLimits { header_read_timeout: Duration::from_secs(10), max_connections: 512 },
            stores: Stores { events: Arc::new(MemoryEventStore::default()), sessions: None, fanout: None },
            card: None,
            routes: Vec::new(),
            #[cfg(feature = "oauth")]
            oauth: None,
            #[cfg(feature = "oauth")]
            oauth_proxy: None,
        }
    }
}

impl HttpOptions {
    /// The defaults: `/mcp`, loopback hosts and origins only, no token,
    /// bodies up to the server's [`max_message_size`](Server::max_message_size)
    /// read within 60 seconds, 1024 sessions (the least recently used idle
    /// one ends to make room), each ended after 30 idle minutes; and, when
    /// served by [`Server::serve_http_with`], request headers within 10
    /// seconds and at most 512 open connections.
    pub fn new() -> Self {
        HttpOptions::default()
    }

    /// Serve the endpoint at `path` instead of `/mcp`.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') { path } else { format!("/{path}") };
        self
    }

    /// The `Host` names the server answers to (instead of the loopback
    /// names): the public name when it listens on a real interface. An
    /// entry without a port allows any port. Other hosts get 403.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Accept any `Host` header. Only behind a proxy that checks it: without
    /// the check, a web page can reach a local server through DNS rebinding.
    pub fn allow_any_host(mut self) -> Self {
        self.hosts = None;
        self
    }

    /// The web origins (`https://app.example.com`) whose pages may call the
    /// server, instead of pages served from loopback. An entry without a
    /// port allows any port. Requests without an `Origin` header (programs,
    /// not browsers) are not affected; other origins get 403. Pages of an
    /// allowed origin get what a browser needs to call across origins: an
    /// answer to their preflight (`OPTIONS`, which needs no token), and
    /// answers they may read, `Mcp-Session-Id` and `WWW-Authenticate`
    /// included.
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// Accept requests from any web origin.
    pub fn allow_any_origin(mut self) -> Self {
        self.origins = None;
        self
    }

    /// Require `Authorization: Bearer <token>` on every request (compared
    /// in constant time); a missing or wrong token gets 401 with
    /// `WWW-Authenticate`.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Make the endpoint an OAuth 2.1 protected resource, as the MCP spec's
    /// authorization has it: every request needs a JWT access token that
    /// `oauth`'s authorization server issued for this server, per-tool
    /// scopes apply, and the protected resource metadata is served (see
    /// [`OAuth`]). Instead of [`bearer_token`](Self::bearer_token): a
    /// server with both does not start.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Make the server its clients' authorization server too, signing
    /// users in at an upstream identity provider (see [`OAuthProxy`]): the
    /// endpoint takes the proxy's tokens as [`oauth`](Self::oauth) takes
    /// another server's, and serves the proxy's endpoints beside it.
    /// Instead of `oauth` and `bearer_token`.
    #[cfg(feature = "oauth")]
    pub fn oauth_proxy(mut self, proxy: OAuthProxy) -> Self {
        self.oauth_proxy = Some(Box::new(proxy));
        self
    }

    /// Serve `card` at `<path>/server-card` and in the host's AI catalog,
    /// for clients to read before they connect (see [`ServerCard`]).
    pub fn server_card(mut self, card: ServerCard) -> Self {
        self.card = Some(card);
        self
    }

    /// The largest request body accepted, in bytes; larger ones get 413.
    /// Defaults to the server's `max_message_size`.
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body = Some(bytes);
        self
    }

    /// How many sessions may be open at once. When the table is full, a new
    /// `initialize` ends the least recently used idle session (no running
    /// call, no open stream; its next request gets 404), so no client can
    /// lock others out by opening sessions it never uses; only when every
    /// session is busy does `initialize` get 503.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// End a session after this long without a request, a running call or
    /// an open stream; its next request gets 404 and the client starts a
    /// new one.
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    /// The longest a request body may take to arrive, from the end of its
    /// headers to its last byte (default 60 seconds): a client that sends a
    /// body slowly, or not at all, gets 408 and the connection is closed,
    /// instead of holding it and its buffer forever. Unlike the other
    /// connection limits, this one also applies to a mounted
    /// [`http_router`](Server::http_router).
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// The longest a connection may take to send a complete request header
    /// (default 10 seconds), counted from when it opens and again from the
    /// end of each response: a connection that sends nothing, or a header
    /// a byte at a time, is closed (with 408 if it sent part of one). As
    /// hyper counts it from the end of the previous response, this is
    /// also how long an idle kept-alive connection stays open. A
    /// connection streaming a response (a call's or the GET stream) is
    /// not idle and is not closed. Applies to [`Server::serve_http_with`];
    /// a router you serve yourself gets what your server sets.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.connections.header_read_timeout = timeout;
        self
    }

    /// How many connections may be open at once (default 512, which keeps
    /// clear of the usual limit of 1024 open files). Past it, new
    /// connections are not accepted and wait in the system's listen queue
    /// until one closes, so idle connections cannot make the process run
    /// out of files (the header timeout closes them in turn). Keep it
    /// below the process's open-file limit (`ulimit -n`). Applies to
    /// [`Server::serve_http_with`].
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.connections.max_connections = connections;
        self
    }

    /// Where the events of resumable call streams are kept, so a client
    /// that lost its connection reconnects with `Last-Event-ID` and misses
    /// nothing: [`MemoryEventStore`] (4 MiB, oldest streams dropped first)
    /// unless set. Replicas behind a load balancer need a shared one.
    pub fn event_store(mut self, store: impl EventStore) -> Self {
        self.stores.events = Arc::new(store);
        self
    }

    /// Save handshake sessions in `store`, so any replica can serve any
    /// session: one that gets a request for a session it does not have
    /// loads it from the store (see [`SessionStore`]). Without one, each
    /// session lives in the memory of the replica that started it.
    pub fn session_store(mut self, store: impl SessionStore) -> Self {
        self.stores.sessions = Some(Arc::new(store));
        self
    }

    /// Tell the other replicas through `fanout` when a list changes or a
    /// resource is updated here, and pass on what they announce, so every
    /// client hears of every change whichever replica it is connected to.
    pub fn fanout(mut self, fanout: impl Fanout) -> Self {
        self.stores.fanout = Some(Arc::new(fanout));
        self
    }

    /// Share everything replicas must share through one store: the events
    /// of resumable streams, handshake sessions and change announcements
    /// (as [`event_store`](Self::event_store), [`session_store`](Self::session_store)
    /// and [`fanout`](Self::fanout) each do). With the `redis` feature:
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")]
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::{Server, stores::RedisStore, transport::HttpOptions};
    ///
    /// let store = RedisStore::connect("redis://127.0.0.1:6379/").await?;
    /// let options = HttpOptions::new().shared_store(store).allow_any_host();
    /// Server::new("notes", "1.0.0").serve_http_with("0.0.0.0:8080", options).await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Replicas must also share the key that seals 2026-07-28 request
    /// state ([`Server::request_state_keys`]).
    pub fn shared_store<S>(mut self, store: S) -> Self
    where
        S: EventStore + SessionStore + Fanout,
    {
        let store = Arc::new(store);
        self.stores = Stores { events: store.clone(), sessions: Some(store.clone()), fanout: Some(store) };
        self
    }
}

impl Server {
    /// Serve over Streamable HTTP on `addr` with the default
    /// [`HttpOptions`] until the process ends. Bind to loopback
    /// (`127.0.0.1:8080`); the address actually bound is printed on stderr.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_runtime::Error> {
    /// mcp_runtime::Server::new("calculator", "1.0.0").serve_http("127.0.0.1:8080").await
    /// # }
    /// ```
    pub async fn serve_http(self, addr: impl ToSocketAddrs + fmt::Debug) -> Result<(), Error> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`serve_http`](Self::serve_http) with options.
    ///
    /// An address that does not resolve or cannot be bound is an error
    /// naming it: `cannot listen on 127.0.0.1:8000: Address already in use`.
    pub async fn serve_http_with(
        self,
        addr: impl ToSocketAddrs + fmt::Debug,
        options: HttpOptions,
    ) -> Result<(), Error> {
        let listener = conn::bind(addr).await?;
        self.serve_http_on(listener, options).await
    }

    /// [`serve_http_with`](Self::serve_http_with) on a listener already
    /// bound: to learn the port of `127.0.0.1:0` before serving, or to take
    /// a socket from a service manager. Connections get every limit of
    /// `options`, the header timeout and the connection cap included.
    pub async fn serve_http_on(self, listener: TcpListener, options: HttpOptions) -> Result<(), Error> {
        crate::logging::init_stderr_at(self.log_level);
        let local = listener.local_addr()?;
        let name = self.info().name.clone();
        warn_if_exposed(local, &options);
        let path = options.path.clone();
        let limits = options.connections;
        let (shared, built) = self.build()?;
        // Mounted servers are reached before the first client is.
        shared.ready().await;
        let endpoint = endpoint(shared, built, options)?;
        eprintln!("{name}: serving MCP over Streamable HTTP at http://{local}{path}");
        conn::serve(listener, endpoint::Direct::new(endpoint), limits).await?;
        Ok(())
    }

    /// The endpoint as an [`axum::Router`], to merge into an application
    /// of your own, which then serves it. To add a route or two (a health
    /// check), use [`HttpOptions::route`] with
    /// [`serve_http_with`](Self::serve_http_with) instead: this router
    /// leaves out what the server's own accept loop does, and `axum::serve`
    /// does none of it:
    ///
    /// - `TCP_NODELAY` on each connection: without it a small answer can
    ///   wait for the client's delayed ACK (tens of milliseconds a call).
    ///   With axum 0.8, `axum::serve::ListenerExt::tap_io` sets it (below).
    /// - The connection limits ([`HttpOptions::header_read_timeout`],
    ///   [`HttpOptions::max_connections`]): serve with hyper's
    ///   `server::conn::http1::Builder` and a cap of your own to have them.
    /// - The stderr logger: call [`logging::init_stderr_at`](crate::logging::init_stderr_at)
    ///   with the level you want before serving, or install a `tracing`
    ///   subscriber of your own; [`Server::log_level`] does not apply here.
    ///
    /// The router keeps the request limits (body size and read time,
    /// sessions) and the `Host` and `Origin` checks, and serves the routes
    /// of [`HttpOptions::route`] too.
    ///
    /// ```no_run
    /// use mcp_runtime::axum::{self, serve::ListenerExt};
    /// use mcp_runtime::{Server, transport::HttpOptions};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// mcp_runtime::logging::init_stderr();
    /// let mcp = Server::new("app", "1.0.0").http_router(HttpOptions::new())?;
    /// let app = axum::Router::new().route("/health", axum::routing::get(|| async { "ok" })).merge(mcp);
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?.tap_io(|tcp| {
    ///     let _ = tcp.set_nodelay(true);
    /// });
    /// axum::serve(listener, app).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn http_router(self, options: HttpOptions) -> Result<axum::Router, Error> {
        let (shared, limits) = self.build()?;
        Ok(endpoint::router(endpoint(shared, limits, options)?))
    }
}

/// The endpoint of a built server.
fn endpoint(
    shared: Arc<crate::server::Shared>,
    limits: crate::transport::connection::Limits,
    options: HttpOptions,
) -> Result<Arc<Endpoint>, Error> {
    // A key made by this process is right for a lone server; only a
    // store shared with replicas says there are others to agree with.
    let replicated = options.stores.sessions.is_some() || options.stores.fanout.is_some();
    if shared.request_state.random && replicated {
        tracing::warn!(
            "a store for replicas is configured, but no Server::request_state_keys: 2026-07-28 requests that \
             ask the client something carry state signed with a key made by this process, which the other \
             replicas cannot check; give every replica the same keys"
        );
    }
    if !protected(&options) && scoped(&shared) {
        tracing::warn!(
            "some tools, resources or prompts require scopes, but the endpoint takes no OAuth tokens \
             (HttpOptions::oauth), so scopes do not apply and every client may use them"
        );
    }
    Ok(Arc::new(Endpoint::new(shared, limits, options)?))
}

/// A server on a real interface that still checks for loopback names
/// answers nobody; say so at start-up rather than with 403s later.
fn warn_if_exposed(local: SocketAddr, options: &HttpOptions) {
    if !local.ip().is_loopback() && options.hosts == guard::loopback_hosts() {
        tracing::warn!(
            %local,
            "listening on a non-loopback address, but only Host names localhost, 127.0.0.1 and [::1] are \
             accepted; set HttpOptions::allowed_hosts to the names clients use"
        );
    }
    if !local.ip().is_loopback() && options.token.is_none() && !protected(options) {
        tracing::warn!(%local, "listening on a non-loopback address without a bearer token: anyone who can reach it can call every tool");
    }
}

/// Whether the endpoint takes OAuth access tokens.
fn protected(options: &HttpOptions) -> bool {
    #[cfg(feature = "oauth")]
    return options.oauth.is_some() || options.oauth_proxy.is_some();
    #[cfg(not(feature = "oauth"))]
    {
        let _ = options;
        false
    }
}

/// Whether anything the server offers requires a scope.
fn scoped(shared: &crate::server::Shared) -> bool {
    shared.tools.current().entries().iter().any(|e| !e.definition.scopes.is_empty())
        || shared.prompts.current().entries().iter().any(|e| !e.definition.scopes.is_empty())
        || shared.resources.statics.current().entries().iter().any(|e| !e.definition.scopes.is_empty())
        || shared.resources.templates.current().entries().iter().any(|e| !e.definition.scopes.is_empty())
}
