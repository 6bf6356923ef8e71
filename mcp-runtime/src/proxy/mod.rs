//! Servers made of servers. [`Server::mount`] serves another MCP server's
//! tools, resources, templates and prompts as this server's own, under a
//! prefix: a [`Server`] of this process, or any server the client crate
//! reaches ([`Upstream::command`] over stdio, [`Upstream::url`] over
//! Streamable HTTP). A proxy is a mount with an empty prefix; a gateway
//! is a server of mounts.
//!
//! # Names
//!
//! Tools and prompts are listed as `{prefix}_{name}` (`calc` + `add` is
//! `calc_add`); resource URIs and templates get the prefix as their first
//! segment after the scheme (`notes://today` under `memo` is
//! `notes://memo/today`), FastMCP's "path" rule, so a client sees both
//! names and every name routes back to one upstream. A name the mounting
//! server already has stays its own, and the mounted one is left out with
//! a warning.
//!
//! # What is forwarded
//!
//! Lists are mirrored (every page of the upstream's, re-read when it says
//! a list changed, and this server's clients told in turn); calls, reads,
//! gets and completions are forwarded as they come, through this server's
//! own pipeline (its middleware, timeouts, rate limits and scopes apply to
//! mounted components as to its own). A call's progress comes back under
//! the caller's token, log messages reach the client that is being served,
//! a cancelled or abandoned call is cancelled upstream, and the
//! upstream's questions (sampling, elicitation, roots) go to the caller's
//! client and its answers back, in either era on either side. Resource
//! updates of the upstream's resources (each subscribed when listed, up to
//! 256) reach this server's subscribers.
//!
//! A mounted tool keeps its upstream's task support, and a call a client
//! makes a task runs as a task of this server, bounded by
//! [`Mount::task_timeout`] rather than [`Mount::timeout`]; an upstream that
//! offers tasks may run it as a task of its own, which this server follows
//! and cancels with it (see the `tasks` submodule for why).
//!
//! # Connections
//!
//! An upstream that speaks 2026-07-28 keeps no session: one connection
//! serves every caller, since each request carries all it needs and its
//! questions come back with its own answer. One that speaks a handshake
//! era keeps a session (its log level, subscriptions, and the requests it
//! sends the client), so each client session of this server gets an
//! upstream connection of its own, opened on its first call and closed
//! when the session ends (at most [`Mount::max_sessions`] at once); the
//! first session uses the connection that mirrors the lists, which is
//! closed and opened afresh when that session ends, so nothing the
//! upstream kept for one client reaches another. Callers without a
//! session (2026-07-28 clients) share a connection of their own. Such a
//! caller gets the upstream's questions as input-required results, while
//! the upstream call waits, parked, for the retry that brings the answer:
//! it runs once, however many rounds the client takes. An upstream that
//! exits or stops answering costs the calls in flight one clear error
//! each; the next call reconnects, and
//! the lists are mirrored again once it is back. Other mounts go on
//! answering throughout. Errors that reach callers name an upstream by
//! its program or its URL without credentials, query or fragment.
//!
//! A name two mounts offer goes to the one mounted first, whichever
//! upstream comes up first.

mod config;
mod connect;
mod direct;
mod forward;
mod import;
mod link;
mod names;
mod park;
mod tasks;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
pub use mcp_runtime_client::{Client, ClientBuilder, Error as ClientError};

pub use config::Config;
pub(crate) use link::{Link, Targets};

use crate::Server;

/// Opens a connection to an upstream from a builder already set up to
/// pass the upstream's questions on.
type Connect = Arc<dyn Fn(ClientBuilder) -> BoxFuture<'static, Result<Client, ClientError>> + Send + Sync>;

/// How to reach a server to mount: a command, a URL, a [`Server`] of this
/// process, or a connection of your own making.
#[derive(Clone)]
pub struct Upstream {
    label: String,
    connect: Connect,
    /// The scopes each component requires, for a server of this process
    /// (which sees no access token over its pipe, so the mounting server
    /// enforces them).
    pub(crate) scopes: Option<Arc<Scopes>>,
    /// Whether each tool may run as a task, for a server of this process
    /// (spoken to in 2026-07-28, whose listings leave it out).
    pub(crate) task_support: Option<Arc<TaskSupportOf>>,
    /// What to check when it is started but never answers, for the log.
    pub(crate) hint: Option<String>,
    /// A server of this process, and whether its tools are called
    /// directly (it has no middleware of its own).
    pub(crate) child: Option<(Arc<crate::server::Shared>, bool)>,
}

/// A tool's task support, by name, as the server that defines it says.
pub(crate) type TaskSupportOf = dyn Fn(&str) -> crate::tasks::TaskSupport + Send + Sync;

/// The scopes a server's components require, by kind and name (a
/// resource's URI), as the server that defines them says.
pub(crate) type Scopes = dyn Fn(ScopeOf, &str) -> Vec<String> + Send + Sync;

/// Which kind of component [`Scopes`] is asked about.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ScopeOf {
    Tool,
    Resource,
    Template,
    Prompt,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Upstream").field(&self.label).finish()
    }
}

impl Upstream {
    /// A server started as `program` with `args`, spoken to over its
    /// stdio (started again if it exits).
    pub fn command<I, S>(program: impl Into<OsString>, args: I) -> Upstream
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Upstream::command_with_env(program, args, Vec::<(OsString, OsString)>::new())
    }

    /// [`command`](Self::command) with these environment variables set
    /// (on top of this process's).
    pub fn command_with_env<I, S, E, K, V>(program: impl Into<OsString>, args: I, env: E) -> Upstream
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
        E: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        let program: OsString = program.into();
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let env: Vec<(OsString, OsString)> = env.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        // Its name only: arguments may carry secrets, and the label reaches
        // callers in errors.
        let label = Path::new(&program).file_name().unwrap_or(&program).to_string_lossy().into_owned();
        // The program only, as the label: its arguments may carry secrets.
        let hint =
            format!("check its command (`{}`) and arguments: does it speak MCP over stdio?", program.to_string_lossy());
        let mut upstream = Upstream::connect_with(label, move |builder| {
            let (program, args) = (program.clone(), args.clone());
            // A gateway served over HTTP (`MCP_TRANSPORT=http`) must not
            // make the servers it speaks to over stdio serve HTTP too.
            let builder = builder.env("MCP_TRANSPORT", "stdio");
            let builder = env.iter().fold(builder, |b, (k, v)| b.env(k.clone(), v.clone()));
            async move { builder.command(program, args).await }
        });
        upstream.hint = Some(hint);
        upstream
    }

    /// A server at a Streamable HTTP URL.
    pub fn url(url: impl Into<String>) -> Upstream {
        Upstream::url_with_headers(url, Vec::<(String, String)>::new())
    }

    /// [`url`](Self::url), sending these headers with every request (an
    /// `Authorization` the upstream wants, say).
    pub fn url_with_headers<I, K, V>(url: impl Into<String>, headers: I) -> Upstream
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let url = url.into();
        let headers: Vec<(String, String)> = headers.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        let label = mcp_runtime_client::redact_url(&url);
        let hint = format!("check its URL ({label}): does an MCP server answer there?");
        let mut upstream = Upstream::connect_with(label, move |builder| {
            let url = url.clone();
            let builder = headers.iter().fold(builder, |b, (k, v)| b.header(k.clone(), v.clone()));
            async move { builder.http(&url).await }
        });
        upstream.hint = Some(hint);
        upstream
    }

    /// A connection of your own making: `connect` gets a builder that
    /// already passes the upstream's questions on (keep that), to which
    /// it adds what it needs (OAuth, a timeout, an era) and connects.
    /// `label` names the upstream in logs and errors, which callers see:
    /// keep secrets out of it.
    pub fn connect_with<F, Fut>(label: impl Into<String>, connect: F) -> Upstream
    where
        F: Fn(ClientBuilder) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Client, ClientError>> + Send + 'static,
    {
        Upstream {
            label: label.into(),
            connect: Arc::new(move |builder| Box::pin(connect(builder))),
            scopes: None,
            task_support: None,
            hint: None,
            child: None,
        }
    }

    /// What the upstream is called in logs and errors.
    pub fn label(&self) -> &str {
        &self.label
    }
}

/// `text` with every URL in it [redacted](mcp_runtime_client::redact_url): an upstream's errors (a
/// connection of the user's making, a transport's) may name the URL they
/// were sent to, and they reach callers.
pub(crate) fn redact_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let start = rest[..at].rfind(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c))).map_or(0, |i| i + 1);
        let end =
            rest[at..].find(|c: char| c.is_whitespace() || "()<>\"'`,".contains(c)).map_or(rest.len(), |i| at + i);
        out.push_str(&rest[..start]);
        out.push_str(&mcp_runtime_client::redact_url(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A server of this process, served to the mounting one in memory (the
/// client crate's message channels paired with the runtime's in-memory
/// transport): it keeps its own state, middleware and limits, and every
/// connection to it shares them. Without middleware of its own, its tools
/// are called directly, with none of the protocol in between (see the
/// `direct` submodule): its checks, limits and timeouts still apply.
impl From<Server> for Upstream {
    fn from(server: Server) -> Upstream {
        let label = format!("server `{}`", server.info().name);
        let built = server.build().map_err(|e| Arc::new(e.to_string()));
        let scopes = built.as_ref().ok().map(|(shared, _)| {
            let shared = shared.clone();
            Arc::new(move |kind: ScopeOf, name: &str| {
                match kind {
                    ScopeOf::Tool => shared.tools.current().get(name).map(|e| e.definition.scopes.clone()),
                    ScopeOf::Resource => {
                        shared.resources.statics.current().get(name).map(|e| e.definition.scopes.clone())
                    }
                    ScopeOf::Template => {
                        shared.resources.templates.current().get(name).map(|e| e.definition.scopes.clone())
                    }
                    ScopeOf::Prompt => shared.prompts.current().get(name).map(|e| e.definition.scopes.clone()),
                }
                .unwrap_or_default()
            }) as Arc<Scopes>
        });
        let task_support = built.as_ref().ok().map(|(shared, _)| {
            let shared = shared.clone();
            Arc::new(move |name: &str| {
                shared.tools.current().get(name).map(|e| e.definition.task_support).unwrap_or_default()
            }) as Arc<TaskSupportOf>
        });
        // Direct unless its middleware must see the requests, or some of
        // its tools are its protocol methods (which its dispatch answers).
        let child = built
            .as_ref()
            .ok()
            .map(|(shared, _)| (shared.clone(), shared.middleware.is_none() && shared.transforms.as_tools.is_empty()));
        // Its connection is shared by every caller of the mount: a view
        // it kept for that connection would be all of theirs. Its tools
        // called directly change the mount's views instead.
        if let Ok((shared, _)) = &built {
            shared.views.refuse_changes();
        }
        let mut upstream = Upstream::connect_with(label, move |builder| {
            let built = built.clone();
            async move {
                let (shared, limits) = built.map_err(|why| ClientError::Transport(why.to_string()))?;
                shared.ready().await;
                // Whole messages each way: the client's serialized request
                // is what the server parses, and the server's serialized
                // answer what the client reads, with no framing and no
                // byte stream in between.
                let (theirs, to_server, from_server) = crate::transport::memory::pair();
                tokio::spawn(crate::transport::connection::serve(theirs, None, shared, limits));
                builder.messages(to_server, from_server).await
            }
        });
        upstream.scopes = scopes;
        upstream.task_support = task_support;
        // Its tools are called with nothing in between unless it has
        // middleware of its own, which sees the protocol's requests.
        upstream.child = child;
        upstream
    }
}

/// A mount: where a server's components go in this one, and which.
/// Made by [`Mount::new`]; given to [`Server::mount_with`].
#[derive(Clone, Debug)]
pub struct Mount {
    pub(crate) prefix: String,
    pub(crate) upstream: Upstream,
    pub(crate) filter: Filter,
    pub(crate) renames: Vec<(String, String)>,
    pub(crate) connect_timeout: Duration,
    pub(crate) timeout: Duration,
    pub(crate) task_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) max_message_bytes: Option<usize>,
}

/// Which of an upstream's components a mount serves.
#[derive(Clone, Debug, Default)]
pub(crate) struct Filter {
    only: Option<BTreeSet<String>>,
    except: BTreeSet<String>,
    tagged: Option<BTreeSet<String>>,
    except_tagged: BTreeSet<String>,
}

impl Filter {
    /// The names it lists (in `only` and `except`).
    pub(crate) fn named(&self) -> impl Iterator<Item = &str> {
        self.only.iter().flatten().chain(&self.except).map(String::as_str)
    }

    /// Whether it serves every component.
    pub(crate) fn keeps_all(&self) -> bool {
        self.only.is_none() && self.except.is_empty() && self.tagged.is_none() && self.except_tagged.is_empty()
    }

    /// Whether a component with these names (a tool's or prompt's name; a
    /// resource's URI and name) and `_meta` is served.
    pub(crate) fn keeps(&self, names: &[&str], meta: Option<&mcp_core::JsonObject>) -> bool {
        let named = |set: &BTreeSet<String>| names.iter().any(|n| set.contains(*n));
        let tags = crate::component::tags::of(meta);
        let tagged = |set: &BTreeSet<String>| tags.iter().any(|t| set.contains(t));
        self.only.as_ref().is_none_or(named)
            && !named(&self.except)
            && self.tagged.as_ref().is_none_or(tagged)
            && !tagged(&self.except_tagged)
    }
}

impl Mount {
    /// Mount `upstream` under `prefix` (empty: under the upstream's own
    /// names, a proxy).
    pub fn new(prefix: impl Into<String>, upstream: impl Into<Upstream>) -> Mount {
        Mount {
            prefix: prefix.into(),
            upstream: upstream.into(),
            filter: Filter::default(),
            renames: Vec::new(),
            connect_timeout: Duration::from_secs(30),
            timeout: Duration::from_secs(10 * 60),
            task_timeout: Duration::from_secs(24 * 60 * 60),
            max_sessions: 64,
            max_message_bytes: None,
        }
    }

    /// Serve only these (tools' and prompts' names, resources' URIs or
    /// names, as the upstream has them).
    pub fn only<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Mount {
        self.filter.only = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Serve all but these (names as for [`only`](Self::only)).
    pub fn except<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Mount {
        self.filter.except.extend(names.into_iter().map(Into::into));
        self
    }

    /// Serve only components with one of these tags: their `_meta.tags`,
    /// which `#[tool(tags = [..])]` (and the builders' `tags`) set on this
    /// runtime's servers, or FastMCP's `_meta._fastmcp.tags`.
    pub fn tagged<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Mount {
        self.filter.tagged = Some(tags.into_iter().map(Into::into).collect());
        self
    }

    /// Serve no component with one of these tags.
    pub fn except_tagged<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Mount {
        self.filter.except_tagged.extend(tags.into_iter().map(Into::into));
        self
    }

    /// List the upstream's tool or prompt `upstream` as exactly `name`
    /// (no prefix added).
    pub fn rename(mut self, upstream: impl Into<String>, name: impl Into<String>) -> Mount {
        self.renames.push((upstream.into(), name.into()));
        self
    }

    /// How long one forwarded request may wait for the upstream's answer
    /// before the caller gets an error saying so (and the upstream is told
    /// to stop): 10 minutes by default, so a stalled upstream never holds
    /// a call for good; raise it for tools that take longer. The mounting
    /// server's own timeouts apply as well.
    pub fn timeout(mut self, timeout: Duration) -> Mount {
        self.timeout = timeout;
        self
    }

    /// How long a call of a mounted tool may run once it is a task of
    /// this server (its client asked for one, or declared the tasks
    /// extension): a day by default. [`timeout`](Self::timeout) bounds the
    /// call until it becomes a task; this bound replaces it after, since a
    /// task is how a client says it will wait. Past it the task fails
    /// with an error saying so, and the upstream is told to stop.
    pub fn task_timeout(mut self, timeout: Duration) -> Mount {
        self.task_timeout = timeout;
        self
    }

    /// How long connecting, and each listing of the upstream's tools,
    /// resources and prompts, may take before the upstream counts as down
    /// (30 s by default).
    pub fn connect_timeout(mut self, timeout: Duration) -> Mount {
        self.connect_timeout = timeout;
        self
    }

    /// How many client sessions of this server may have an upstream
    /// connection of their own at once, for an upstream that keeps
    /// sessions (64 by default; each may be a process of the upstream's):
    /// a session beyond them gets an error saying so until one ends. A
    /// session's connection closes when the session does.
    pub fn max_sessions(mut self, max: usize) -> Mount {
        self.max_sessions = max.max(1);
        self
    }

    /// The largest message read from the upstream, in bytes (the client's
    /// default, 64 MiB, otherwise): a larger answer fails its call with an
    /// error naming the limit.
    pub fn max_message_bytes(mut self, max: usize) -> Mount {
        self.max_message_bytes = Some(max.max(1));
        self
    }
}

impl Server {
    /// Serve `upstream`'s tools, resources, templates and prompts under
    /// `prefix` (see the [`proxy`](crate::proxy) module for the naming and
    /// what is forwarded). `upstream` is an [`Upstream`] or a [`Server`].
    ///
    /// ```no_run
    /// use mcp_runtime::Server;
    /// use mcp_runtime::proxy::Upstream;
    ///
    /// # fn main() -> Result<(), mcp_runtime::Error> {
    /// Server::empty("gateway", "1.0.0")
    ///     .mount("calc", Upstream::command("calculator", ["--stdio"]))
    ///     .mount("search", Upstream::url("http://127.0.0.1:8001/mcp"))
    ///     .run_blocking()
    /// # }
    /// ```
    pub fn mount(self, prefix: impl Into<String>, upstream: impl Into<Upstream>) -> Self {
        self.mount_with(Mount::new(prefix, upstream))
    }

    /// Mount every server of a gateway configuration (the `mcpServers`
    /// JSON of MCP clients) under its name.
    pub fn mount_config(self, config: &Config) -> Self {
        config.mounts().into_iter().fold(self, Server::mount_with)
    }

    /// [`mount`](Self::mount) with filters and renames ([`Mount`]).
    pub fn mount_with(mut self, mount: Mount) -> Self {
        // What a mount offers is known only once it is reached, so every
        // kind may change while the server runs.
        self.tools.make_dynamic();
        self.resources.statics.make_dynamic();
        self.resources.templates.make_dynamic();
        self.prompts.make_dynamic();
        self.mounts.push(mount);
        self
    }
}

#[cfg(test)]
mod tests;
