//! [`HttpOptions`]: how the HTTP endpoint behaves (its path, who may call
//! it, its limits, its stores, sessions, routes and authorization), built
//! by chained calls whose defaults are the safe ones.

use std::sync::Arc;
use std::time::Duration;

use super::conn;
use super::guard::{self, AllowList};
use super::{EventStore, Fanout, MemoryEventStore, ServerCard, SessionStore};
#[cfg(feature = "oauth")]
use super::{OAuth, OAuthProxy};

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
    /// Whether `initialize` opens a session (`session_ids`).
    pub(crate) session_ids: bool,
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
            session_ids: true,
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
    /// bodies up to the server's [`max_message_size`](crate::Server::max_message_size)
    /// read within 60 seconds, 1024 sessions (the least recently used idle
    /// one ends to make room), each ended after 30 idle minutes; and, when
    /// served by [`Server::serve_http_with`](crate::Server::serve_http_with), request headers within 10
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

    /// Whether a 2025-11-25 (or older) client's `initialize` opens a
    /// session (an `Mcp-Session-Id`); yes by default. A server that keeps
    /// nothing per session may say no: its handshake-era requests are then
    /// answered from the request alone (its `MCP-Protocol-Version` header
    /// names the version; without one, 2025-03-26 as the spec says), and a
    /// client sends no `DELETE`. Without a session, nothing lives between
    /// requests: no server-to-client requests (elicitation, sampling,
    /// roots: the client declared no capabilities), no `list_changed` or
    /// resource updates, and the methods that need one (`logging/setLevel`,
    /// `resources/subscribe`, `tasks/*`, a call asking to be a task) are
    /// refused with an error that says so; per-user state and views go by
    /// the access token's subject, as on the 2026-07-28 path.
    pub fn session_ids(mut self, issue: bool) -> Self {
        self.session_ids = issue;
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
    /// [`http_router`](crate::Server::http_router).
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
    /// not idle and is not closed. Applies to [`Server::serve_http_with`](crate::Server::serve_http_with);
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
    /// [`Server::serve_http_with`](crate::Server::serve_http_with).
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
    /// state ([`Server::request_state_keys`](crate::Server::request_state_keys)).
    pub fn shared_store<S>(mut self, store: S) -> Self
    where
        S: EventStore + SessionStore + Fanout,
    {
        let store = Arc::new(store);
        self.stores = Stores { events: store.clone(), sessions: Some(store.clone()), fanout: Some(store) };
        self
    }
}
