//! Opening a connection: the builder that says who the client is and what
//! it answers, the transports it connects over, and the lifecycle that
//! settles the protocol version (`server/discover`, or `initialize`).

use std::ffi::{OsStr, OsString};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_core::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ErrorObject, Implementation, ProtocolVersion,
    Root, ServerCapabilities, methods,
};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::Error;
use crate::handlers::Handlers;
use crate::lifecycle::{discover, initialize};
use crate::session::{Era, Limits, Negotiated, Session};
use crate::wire::child::{ChildOptions, ChildWire, Stderr};
use crate::wire::lines::Lines;
use crate::wire::{Inbox, Wire};

/// How long a request waits for its answer unless told otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How many pages a list may have unless told otherwise: a server that
/// pages its list by ten still lists ten thousand items.
const DEFAULT_LIST_PAGES: usize = 1_000;

/// How many items a list may have unless told otherwise.
const DEFAULT_LIST_ITEMS: usize = 100_000;

/// How long `Era::Auto` waits for `server/discover` before it tries
/// `initialize` instead (less if the client's timeout is shorter).
const DISCOVER_WAIT: Duration = Duration::from_secs(10);

/// Which protocol era to speak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EraChoice {
    /// Ask `server/discover` (2026-07-28); a server that does not know it
    /// gets `initialize` (2025-11-25 and older).
    #[default]
    Auto,
    /// This version only: `initialize` for a handshake version, `server/discover`
    /// and per-request `_meta` for 2026-07-28.
    Version(ProtocolVersion),
}

/// A connection to one MCP server. Cheap to clone: clones share the
/// connection, which ends when the last is dropped (a child server is
/// killed) or when [`close`](Client::close) is called (which also deletes
/// an HTTP session).
#[derive(Clone)]
pub struct Client {
    pub(crate) session: Arc<Session>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("negotiated", &self.session.negotiated()).finish()
    }
}

/// How to build a [`Client`]: who it is, what it answers, how long it
/// waits, which era it speaks; then where it connects.
pub struct ClientBuilder {
    info: Implementation,
    handlers: Handlers,
    pub(crate) limits: Limits,
    era: EraChoice,
    child: ChildOptions,
    #[cfg(feature = "http")]
    http: crate::wire::http::HttpOptions,
    pub(crate) cache: Option<Arc<crate::cache::Cache>>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            handlers: Handlers::default(),
            limits: Limits {
                timeout: DEFAULT_TIMEOUT,
                max_message_bytes: crate::wire::DEFAULT_MAX_MESSAGE,
                list_pages: DEFAULT_LIST_PAGES,
                list_items: DEFAULT_LIST_ITEMS,
                list_timeout: None,
            },
            era: EraChoice::Auto,
            child: ChildOptions::default(),
            #[cfg(feature = "http")]
            http: Default::default(),
            cache: None,
        }
    }
}

impl Client {
    /// A builder, to set the client's name, handlers and options.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Start `program` with `args` and speak to it over its stdio.
    pub async fn command<I, S>(program: impl AsRef<OsStr>, args: I) -> Result<Client, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Client::builder().command(program, args).await
    }

    /// Connect to a Streamable HTTP endpoint.
    #[cfg(feature = "http")]
    pub async fn http(url: &str) -> Result<Client, Error> {
        Client::builder().http(url).await
    }

    /// Speak newline-delimited JSON over a reader and a writer (a socket, a
    /// pipe; in the same process, [`ClientBuilder::messages`] frames nothing).
    pub async fn io<R, W>(reader: R, writer: W) -> Result<Client, Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        Client::builder().io(reader, writer).await
    }

    /// What was agreed with the server.
    pub fn negotiated(&self) -> Negotiated {
        self.session.negotiated().expect("a connected client has negotiated")
    }

    /// The era agreed (what `negotiated().era` says, without copying
    /// the rest).
    pub(crate) fn era(&self) -> Era {
        self.session.era().expect("a connected client has negotiated")
    }

    /// What the server offers.
    pub fn server_capabilities(&self) -> ServerCapabilities {
        self.negotiated().capabilities
    }

    /// What a child server wrote to stderr lately, when it is captured
    /// ([`ClientBuilder::stderr`]).
    pub fn server_log(&self) -> Option<String> {
        self.session.wire().server_log()
    }

    /// Replace the roots the client offers, and tell the server they
    /// changed. An error if the client was built without roots.
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<(), Error> {
        if !self.session.handlers.set_roots(roots) {
            return Err(Error::protocol("the client declared no roots: build it with `ClientBuilder::roots`"));
        }
        match self.era() {
            Era::Handshake => self.session.notify(methods::ROOTS_LIST_CHANGED, None).await,
            // A 2026-07-28 server asks for the roots with each request.
            Era::Stateless => Ok(()),
        }
    }

    /// Why the connection ended, if it has (a child server exited, its
    /// output closed): every request now fails at once, and a new client
    /// is needed. A Streamable HTTP connection has nothing to end; its
    /// failures are those of each request.
    pub fn closed(&self) -> Option<String> {
        self.session.closed()
    }

    /// Resolves once the connection ends, with why (see
    /// [`closed`](Self::closed)); never for a Streamable HTTP one.
    pub async fn ended(&self) -> String {
        self.session.ended().await
    }

    /// End the connection: an HTTP session is deleted, a child server's
    /// input closed (and the server ended if it does not exit).
    pub async fn close(self) {
        self.session.wire().close().await;
    }
}

impl ClientBuilder {
    /// The name and version the client gives the server.
    pub fn name(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// How long a request waits for its answer (60 s unless set); a
    /// request that times out is cancelled. It covers the whole exchange
    /// on every transport: over HTTP, a server that takes the request and
    /// stalls, or drips its answer, is timed out like one that never
    /// answers.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.limits.timeout = timeout;
        self
    }

    /// The largest message read from the server, in bytes (64 MiB unless
    /// set), on every transport: a line over stdio, an HTTP answer's body,
    /// one event of an event stream. A larger one is not held in memory:
    /// the call it answers fails at once with [`Error::Limit`], and the
    /// connection goes on. (A line whose id cannot be read fails every
    /// call waiting, since any may be the one it answered.)
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_message_bytes = bytes;
        self
    }

    /// How many pages one paged list (`tools/list`, `resources/list`, …)
    /// may have (1,000 unless set); past it the list fails with
    /// [`Error::Limit`]. A cursor the list already gave fails it at once,
    /// as a protocol error: its pages would never end. Whatever the
    /// bounds, a list also holds no more than
    /// [`max_message_bytes`](Self::max_message_bytes) across its pages.
    pub fn max_list_pages(mut self, pages: usize) -> Self {
        self.limits.list_pages = pages;
        self
    }

    /// How many items one paged list may have across its pages (100,000
    /// unless set); past it the list fails with [`Error::Limit`].
    pub fn max_list_items(mut self, items: usize) -> Self {
        self.limits.list_items = items;
        self
    }

    /// How long one paged list may take across its pages (the
    /// [`timeout`](Self::timeout) unless set): the time the server takes
    /// to answer them, not a reader's own pauses between pages. Past it
    /// the list fails with [`Error::Limit`].
    pub fn list_timeout(mut self, timeout: Duration) -> Self {
        self.limits.list_timeout = Some(timeout);
        self
    }

    /// Which era to speak ([`EraChoice::Auto`] unless set).
    pub fn era(mut self, era: EraChoice) -> Self {
        self.era = era;
        self
    }

    /// What becomes of a child server's stderr ([`Stderr::Inherit`]
    /// unless set).
    pub fn stderr(mut self, stderr: Stderr) -> Self {
        self.child.stderr = stderr;
        self
    }

    /// Hear each line a child server writes to stderr as it is read, with
    /// [`Stderr::Capture`] (the lines are kept for
    /// [`Client::server_log`] all the same): to show the server's log as
    /// it runs, say, or to keep it beyond the client (a connection that
    /// fails to open has no client to ask).
    pub fn on_stderr_line(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.child.on_line = Some(Arc::new(f));
        self
    }

    /// Set a variable in a child server's environment (on top of this
    /// process's): an API key, say, as the `env` of an `mcpServers` entry.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.child.env.push((key.into(), value.into()));
        self
    }

    /// Answer the server's sampling requests (and declare `sampling`).
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.on_sampling(f);
        self
    }

    /// Answer the server's elicitations in form mode (and declare
    /// `elicitation`).
    pub fn on_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.on_elicitation(false, f);
        self
    }

    /// Answer the server's elicitations in form and URL mode (a URL one
    /// has `mode: "url"`: open its page for the user, then accept).
    pub fn on_elicitation_with_urls<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.handlers.on_elicitation(true, f);
        self
    }

    /// Answer the server's requests that no other handler answers (a
    /// method of an extension, or sampling, elicitation or roots when
    /// their handler is not given), from the method and its params.
    /// Declares no capability. Without it such requests get `method not
    /// found`; with it a client can refuse them in words of its own.
    pub fn on_other_request<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String, Option<mcp_core::JsonObject>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.handlers.on_other(f);
        self
    }

    /// Answer every request of the server with `f` (its method and
    /// params), declaring every capability a server may ask of
    /// (`sampling`, `elicitation` in form and URL mode, `roots`): for a
    /// proxy, which passes the questions on to a client of its own and
    /// refuses in that client's words what it cannot do. The other
    /// handlers are then not asked, but a single request's own
    /// ([`Forward::on_input`](crate::Forward::on_input)) still is.
    pub fn relay<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String, Option<mcp_core::JsonObject>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.handlers.relay(f);
        self
    }

    /// Declare the tasks extension (`io.modelcontextprotocol/tasks`): a
    /// server that has it may run any call of a tool that supports tasks
    /// as one. A [`Client::call`] that becomes a task is followed to its
    /// end by itself (and the task cancelled if the call is dropped or
    /// times out first); [`Client::call_as_task`] gives the task to follow
    /// instead. Without it, a 2025-11-25 session has that version's core
    /// tasks, which the client asks for call by call.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_runtime_client::Error> {
    /// use mcp_runtime_client::Client;
    ///
    /// let client = Client::builder().tasks().http("http://localhost:8080/mcp").await?;
    /// let result = client.run_as_task("report", serde_json::json!({})).await?;
    /// # Ok(()) }
    /// ```
    pub fn tasks(mut self) -> Self {
        self.handlers.extension(mcp_core::task::EXTENSION.into(), json!({}));
        self
    }

    /// Declare the extension `name` (under `capabilities.extensions`) with
    /// its `settings`: `io.modelcontextprotocol/ui` with
    /// `{"mimeTypes": ["text/html;profile=mcp-app"]}` for a host that
    /// renders MCP Apps views, so the server offers their tools.
    pub fn extension(mut self, name: impl Into<String>, settings: Value) -> Self {
        self.handlers.extension(name.into(), settings);
        self
    }

    /// Offer these roots (and declare `roots` with `listChanged`).
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.handlers.roots(roots);
        self
    }

    /// A header sent with every HTTP request.
    #[cfg(feature = "http")]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.http.headers.push((name.into(), value.into()));
        self
    }

    /// Credentials for an HTTP server ([`Authorization`](crate::Authorization)).
    #[cfg(feature = "http")]
    pub fn authorization(mut self, authorization: Arc<dyn crate::Authorization>) -> Self {
        self.http.authorization = Some(authorization);
        self
    }

    /// Start `program` with `args` and speak to it over its stdio.
    pub async fn command<I, S>(self, program: impl AsRef<OsStr>, args: I) -> Result<Client, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let inbox = Inbox::default();
        let wire =
            ChildWire::spawn(program.as_ref(), &args, &self.child, self.limits.max_message_bytes, inbox.clone())?;
        self.open(Box::new(wire), inbox).await
    }

    /// Connect to a Streamable HTTP endpoint.
    #[cfg(feature = "http")]
    pub async fn http(self, url: &str) -> Result<Client, Error> {
        let inbox = Inbox::default();
        let wire = crate::wire::http::HttpWire::new(url, self.http.clone(), &self.limits, inbox.clone())?;
        self.open(Box::new(wire), inbox).await
    }

    /// Speak newline-delimited JSON over a reader and a writer.
    pub async fn io<R, W>(self, reader: R, writer: W) -> Result<Client, Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let inbox = Inbox::default();
        let lines = Lines::start(reader, writer, inbox.clone(), self.limits.max_message_bytes);
        self.open(Box::new(lines), inbox).await
    }

    pub(crate) async fn open(self, wire: Box<dyn Wire>, inbox: Inbox) -> Result<Client, Error> {
        let session = Session::start(wire, &inbox, self.handlers, self.info, self.limits, self.cache);
        let client = Client { session };
        let opened = match self.era {
            EraChoice::Auto => match discover(&client, Some(DISCOVER_WAIT.min(self.limits.timeout))).await {
                Ok(negotiated) => Ok(negotiated),
                Err(Error::Closed(why)) => Err(Error::Closed(why)),
                Err(error) => {
                    tracing::debug!(%error, "no server/discover; trying initialize");
                    initialize(&client, ProtocolVersion::LATEST_HANDSHAKE).await
                }
            },
            EraChoice::Version(version) if version.uses_handshake() => initialize(&client, version).await,
            EraChoice::Version(_) => discover(&client, None).await,
        };
        match opened {
            Ok(negotiated) => {
                client.session.begin(negotiated).await?;
                Ok(client)
            }
            Err(error) => {
                client.session.wire().close().await;
                Err(error)
            }
        }
    }
}
