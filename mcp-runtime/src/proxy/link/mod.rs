//! One mounted upstream, and forwarding to it: a request passed on, on the
//! connection of its client's session (`sessions`), within the mount's
//! timeouts, with its progress and the upstream's questions relayed. Its
//! connections are in `conn`, and the mirroring of its lists and
//! announcements in `mirror`.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use mcp_core::JsonObject;
use mcp_runtime_client::Error as ClientError;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::watch;

use super::names::Names;
use super::park::Parking;
use super::{Connect, Filter, Mount};
use crate::client::Peer;
use crate::component::Catalog;
use crate::component::announce::Announcer;
use crate::prompts::catalog::Prompts;
use crate::request::{Context, FromRequest, RequestParts};
use crate::resources::catalog::{Statics, Templates};
use crate::tasks::running::Running;
use crate::tools::catalog::Tools;

mod conn;
mod mirror;
mod sessions;

pub(crate) use conn::{Conn, ask};
use sessions::Claim;

/// Where a mount's components go: the mounting server's catalogs.
pub(crate) struct Targets {
    pub(crate) tools: Arc<Catalog<Tools>>,
    pub(crate) statics: Arc<Catalog<Statics>>,
    pub(crate) templates: Arc<Catalog<Templates>>,
    pub(crate) prompts: Arc<Catalog<Prompts>>,
    pub(crate) announcer: Arc<Announcer>,
}

/// One mounted upstream, shared by its proxied components.
pub(crate) struct Link {
    pub(crate) label: String,
    /// Its place among the server's mounts: an earlier mount wins a name
    /// two offer.
    rank: usize,
    pub(crate) names: Names,
    pub(crate) filter: Filter,
    renames: Vec<(String, String)>,
    connect: Connect,
    pub(crate) connect_timeout: Duration,
    pub(crate) timeout: Duration,
    /// What bounds a call once it is a task here ([`Mount::task_timeout`]).
    pub(crate) task_timeout: Duration,
    /// The scopes of an in-process upstream's components.
    scopes: Option<Arc<super::Scopes>>,
    /// The task support of an in-process upstream's tools.
    task_support: Option<Arc<super::TaskSupportOf>>,
    /// What to check when the upstream never answers, for the log.
    pub(crate) hint: Option<String>,
    targets: Targets,
    /// The connection that mirrors the lists, and serves every call of
    /// an upstream without sessions.
    shared: Arc<Conn>,
    /// Which client session the shared connection serves, where the
    /// upstream keeps sessions: one in the life of each upstream session,
    /// so what the upstream keeps for one client never reaches another.
    claim: Mutex<Claim>,
    /// One connection per other client session, closed when it ends.
    sessions: Mutex<Vec<(Weak<Peer>, Arc<Conn>)>>,
    /// Where the upstream keeps sessions, the connection of the callers
    /// that have none (2026-07-28 clients): never one a client session
    /// holds, whose upstream session keeps that client's state.
    sessionless: Arc<Conn>,
    /// The connection that declares the tasks extension, where an upstream
    /// without sessions runs the calls this server runs as tasks: opened
    /// on the first such call (see [`super::tasks`]).
    pub(crate) tasking: Arc<Conn>,
    /// How many client sessions may have a connection of their own.
    max_sessions: usize,
    /// The largest message read from the upstream.
    max_message_bytes: Option<usize>,
    /// Told when the shared connection was closed on purpose (its client
    /// session ended), so the lists are mirrored from the next one.
    renew: Arc<tokio::sync::Notify>,
    /// The upstream keeps sessions (it spoke a handshake era).
    pub(crate) stateful: AtomicBool,
    /// The upstream offers completions.
    pub(crate) completes: AtomicBool,
    /// The upstream offers the tasks extension (or 2025-11-25's tasks).
    pub(crate) offers_tasks: AtomicBool,
    /// The URIs of the upstream's resources this mount serves, to
    /// subscribe to.
    statics: Mutex<BTreeSet<String>>,
    /// 2026-07-28 callers' calls to an upstream with sessions, across
    /// their rounds.
    parking: Parking,
    /// Whether the first attempt to mirror the lists is over.
    ready: watch::Sender<bool>,
    /// Whether the filter's names were checked against the upstream's.
    filter_checked: AtomicBool,
    started: AtomicBool,
    /// A server of this process, and whether its tools are called directly
    /// (see [`super::direct`]).
    pub(crate) child: Option<(Arc<crate::server::Shared>, bool)>,
    /// The version the upstream's lists were read in, which shaped the
    /// output schemas this server lists for its tools.
    pub(crate) listed: Mutex<Option<mcp_core::ProtocolVersion>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Link {
    pub(crate) fn new(mount: Mount, rank: usize, targets: Targets) -> Arc<Link> {
        let label = if mount.prefix.is_empty() { mount.upstream.label.clone() } else { mount.prefix.clone() };
        Arc::new(Link {
            label,
            rank,
            names: Names::new(&mount.prefix),
            filter: mount.filter,
            renames: mount.renames,
            connect: mount.upstream.connect,
            connect_timeout: mount.connect_timeout,
            timeout: mount.timeout,
            task_timeout: mount.task_timeout,
            scopes: mount.upstream.scopes.clone(),
            task_support: mount.upstream.task_support.clone(),
            hint: mount.upstream.hint.clone(),
            targets,
            shared: Arc::default(),
            claim: Mutex::new(Claim::Free),
            sessions: Mutex::default(),
            sessionless: Arc::default(),
            tasking: Arc::new(Conn::declaring_tasks()),
            max_sessions: mount.max_sessions,
            max_message_bytes: mount.max_message_bytes,
            renew: Arc::default(),
            stateful: AtomicBool::new(false),
            completes: AtomicBool::new(false),
            offers_tasks: AtomicBool::new(false),
            statics: Mutex::default(),
            parking: Parking::default(),
            ready: watch::channel(false).0,
            filter_checked: AtomicBool::new(false),
            started: AtomicBool::new(false),
            child: mount.upstream.child.clone(),
            listed: Mutex::new(None),
        })
    }

    /// Start mirroring the upstream (once; needs a Tokio runtime).
    pub(crate) fn start(self: &Arc<Self>) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        tokio::spawn(mirror::mirror(Arc::downgrade(self)));
    }

    /// Resolves once the first attempt to reach the upstream and mirror
    /// its lists is over (whatever its outcome).
    pub(crate) async fn ready(&self) {
        let mut ready = self.ready.subscribe();
        let _ = ready.wait_for(|r| *r).await;
    }

    /// Forward `method` with `params` for the request of `parts`: on the
    /// connection of its client's session, its progress and the
    /// upstream's questions passed on to that client.
    pub(crate) async fn forward(
        self: &Arc<Self>,
        mut parts: RequestParts,
        method: &str,
        params: JsonObject,
    ) -> Result<Value, ClientError> {
        let running = parts.task.clone();
        let ctx = Context::from_request(&mut parts).map_err(|_| ClientError::Transport("no context".into()))?;
        self.forward_for(&ctx, running.as_deref(), method, params).await
    }

    /// [`forward`](Self::forward) for `ctx`'s request, which `running`
    /// (if any) may have made a task of this server.
    pub(crate) async fn forward_for(
        self: &Arc<Self>,
        ctx: &Context,
        running: Option<&Running>,
        method: &str,
        params: JsonObject,
    ) -> Result<Value, ClientError> {
        let raw = self.forward_raw_for(ctx, running, method, params).await?;
        // Text the client read as JSON is JSON.
        Ok(own_envelope(serde_json::from_str(raw.get()).unwrap_or_default()))
    }

    /// [`forward_for`](Self::forward_for), its result as the upstream's
    /// JSON text, its envelope still on (see [`own_envelope`]): a caller
    /// reads it straight into its own type.
    pub(crate) async fn forward_raw_for(
        self: &Arc<Self>,
        ctx: &Context,
        running: Option<&Running>,
        method: &str,
        params: JsonObject,
    ) -> Result<Box<RawValue>, ClientError> {
        let (conn, client) = self.connection(ctx).await?;
        if self.stateful.load(Ordering::Relaxed) && !ctx.protocol_version().uses_handshake() {
            // The upstream asks on its session and waits; the client
            // answers with a later retry: the call waits in between.
            let parked = self.parking.forward(ctx, &conn, client, method, params, self.timeout).await;
            if let Err(ClientError::Closed(_) | ClientError::SessionExpired) = &parked {
                conn.reset().await;
            }
            return parked.and_then(|value| raw(&value));
        }
        let _caller = conn.enter(ctx.clone());
        let result = self.bounded_for(running, self.relayed(ctx, client.forward(method, params)).raw()).await;
        if let Err(ClientError::Closed(_) | ClientError::SessionExpired) = &result {
            conn.reset().await;
        }
        result
    }

    /// `forward` with `ctx`'s progress and questions passed on, and no
    /// deadline of its own: [`bounded_for`](Self::bounded_for) sets it.
    pub(crate) fn relayed<'a>(
        &self,
        ctx: &Context,
        mut forward: mcp_runtime_client::Forward<'a>,
    ) -> mcp_runtime_client::Forward<'a> {
        forward = forward.timeout(self.timeout.max(self.task_timeout));
        if ctx.meta().is_some_and(|m| m.contains_key("progressToken")) {
            let progress = ctx.clone();
            forward = forward.on_progress(move |p| progress.relay_progress(p.progress, p.total, p.message));
        }
        let asker = ctx.clone();
        forward.on_input(move |method, params| {
            let ctx = asker.clone();
            async move { ask(&ctx, &method, params).await }
        })
    }

    /// `work` within [`Mount::timeout`], or, once its call is a task of
    /// this server (`running`), within [`Mount::task_timeout`] from its
    /// start: a client that asked for a task said it will wait. Past the
    /// bound `work` is dropped, which tells the upstream to stop.
    pub(crate) async fn bounded_for<T>(
        &self,
        running: Option<&Running>,
        work: impl Future<Output = Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        tokio::pin!(work);
        tokio::select! {
            done = &mut work => return done,
            () = tokio::time::sleep(self.timeout) => {}
        }
        if !running.is_some_and(Running::is_task) || self.task_timeout <= self.timeout {
            return Err(ClientError::Timeout(self.timeout));
        }
        let rest = self.task_timeout - self.timeout;
        tokio::time::timeout(rest, work).await.unwrap_or(Err(ClientError::Timeout(self.task_timeout)))
    }

    /// A request on the shared connection, for what no one session asks
    /// (completions).
    pub(crate) async fn request(self: &Arc<Self>, method: &str, params: JsonObject) -> Result<Value, ClientError> {
        let client = self.shared.client(self).await?.0;
        client.forward(method, params).timeout(self.timeout.min(self.connect_timeout)).await
    }

    /// Words for a failed forward, for the caller.
    pub(crate) fn describe(&self, error: &ClientError) -> String {
        super::redact_urls(&match error {
            ClientError::Server(error) => error.message.clone(),
            ClientError::Closed(why) => {
                format!("the mounted server `{}` is unavailable ({why}); it is being restarted, try again", self.label)
            }
            ClientError::Timeout(limit) => format!(
                "the mounted server `{}` did not answer within {} s; the request was cancelled",
                self.label,
                limit.as_secs_f64()
            ),
            other => format!("the mounted server `{}` failed: {other}", self.label),
        })
    }

    /// Whether the upstream's tool `tool` may run as a task: as its
    /// listing says (2025-11-25), as its server says (one of this
    /// process), or, for one that lists no such thing (2026-07-28, where a
    /// server decides which calls become tasks) but offers the tasks
    /// extension, `Optional`: this server can run any of them as a task.
    pub(crate) fn task_support(&self, tool: &mcp_core::Tool) -> crate::tasks::TaskSupport {
        use crate::tasks::TaskSupport;
        let listed = tool.execution.as_ref().and_then(|e| e.get("taskSupport")).and_then(Value::as_str);
        match (listed, &self.task_support) {
            (Some("optional"), _) => TaskSupport::Optional,
            (Some("required"), _) => TaskSupport::Required,
            (Some(_), _) => TaskSupport::Never,
            (None, Some(of)) => of(&tool.name),
            (None, None) if self.offers_tasks.load(Ordering::Relaxed) => TaskSupport::Optional,
            (None, None) => TaskSupport::Never,
        }
    }

    /// The scopes the upstream's component `name` requires (none known
    /// for an upstream out of process: it checks its own).
    pub(crate) fn scopes(&self, kind: super::ScopeOf, name: &str) -> Vec<String> {
        self.scopes.as_ref().map(|scopes| scopes(kind, name)).unwrap_or_default()
    }

    /// A tool's or prompt's name here: its rename, or the prefixed name.
    fn rename(&self, upstream: &str) -> String {
        match self.renames.iter().find(|(from, _)| from == upstream) {
            Some((_, to)) => to.clone(),
            None => self.names.name(upstream),
        }
    }
}

/// A result without what the upstream's era put around it (its
/// `resultType`, its own name in `_meta`): this server's era puts its own.
pub(crate) fn own_envelope(mut result: Value) -> Value {
    if let Value::Object(result) = &mut result {
        result.remove("resultType");
        if let Some(Value::Object(meta)) = result.get_mut("_meta") {
            own_meta(meta);
            if meta.is_empty() {
                result.remove("_meta");
            }
        }
    }
    result
}

/// A result's `_meta` without the upstream era's members.
pub(crate) fn own_meta(meta: &mut JsonObject) {
    meta.retain(|key, _| !key.starts_with("io.modelcontextprotocol/"));
}

/// A value as JSON text (for the rare paths that had to read it).
pub(crate) fn raw(value: &Value) -> Result<Box<RawValue>, ClientError> {
    serde_json::value::to_raw_value(value).map_err(|e| ClientError::Protocol(e.to_string()))
}
