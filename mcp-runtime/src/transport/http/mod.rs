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
mod options;
mod responses;
mod resume;
mod server_card;
mod sessions;
mod sse;
pub(crate) mod store;

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, ToSocketAddrs};

use crate::error::Error;
use crate::server::Server;
pub(crate) use endpoint::Endpoint;
#[cfg(feature = "oauth")]
pub use oauth::proxy::{MemoryProxyStore, OAuthProxy, ProxyStore, TrustedIdp, Upstream};
#[cfg(feature = "oauth")]
pub use oauth::{Dpop, Introspection, OAuth};
pub use options::HttpOptions;
pub use server_card::ServerCard;
#[cfg(feature = "redis")]
pub use store::RedisStore;
#[cfg(feature = "redis")]
pub(crate) use store::redis_within;
pub use store::{
    EventStore, Fanout, KeptEvent, LocalFanout, MemoryEventStore, MemorySessionStore, SessionStore, StoreError,
    StoreFuture,
};

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
