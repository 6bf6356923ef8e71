//! One mounted upstream: its connections (one shared, and one per client
//! session of this server where the upstream keeps sessions), kept up
//! (opened again after one ends), its lists mirrored into this server's
//! catalogs, and its announcements passed on.

use std::collections::BTreeSet;
use std::future::IntoFuture;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use mcp_core::{ErrorObject, JsonObject, LoggingMessageParams, Notification, methods};
use mcp_runtime_client::{Client, Era, Error as ClientError};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use super::forward::{ProxiedPrompt, ProxiedResource, ProxiedTool};
use super::names::Names;
use super::park::{Parking, Question};
use super::{Connect, Filter, Mount};
use crate::client::Peer;
use crate::component::announce::Announcer;
use crate::component::{Catalog, Kind};
use crate::prompts::Prompt;
use crate::prompts::catalog::Prompts;
use crate::request::{Context, FromRequest, RequestParts};
use crate::resources::Resource;
use crate::resources::catalog::{Statics, Templates};
use crate::tasks::running::Running;
use crate::tools::Tool;
use crate::tools::catalog::Tools;

/// How many of an upstream's resources are subscribed to, for updates.
const MAX_SUBSCRIBED: usize = 256;
/// The longest wait between attempts to reach an upstream that is down.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

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
    filter: Filter,
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
}

/// Who the shared connection serves, for an upstream with sessions.
enum Claim {
    /// No client session yet: the next one to call takes it.
    Free,
    /// This client session, on the upstream session of this generation.
    Held(Weak<Peer>, u64),
    /// The session that held this generation ended: no one else may use
    /// it (it carries that session's state) until it is opened anew.
    Retired(u64),
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
            tasking: Arc::new(Conn { declares_tasks: true, ..Conn::default() }),
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
        })
    }

    /// Start mirroring the upstream (once; needs a Tokio runtime).
    pub(crate) fn start(self: &Arc<Self>) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        tokio::spawn(mirror(Arc::downgrade(self)));
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
        let (conn, client) = self.connection(ctx).await?;
        if self.stateful.load(Ordering::Relaxed) && !ctx.protocol_version().uses_handshake() {
            // The upstream asks on its session and waits; the client
            // answers with a later retry: the call waits in between.
            let parked = self.parking.forward(ctx, &conn, client, method, params, self.timeout).await;
            if let Err(ClientError::Closed(_)) = &parked {
                conn.reset().await;
            }
            return parked.map(own_envelope);
        }
        let _caller = conn.enter(ctx.clone());
        let result = self.bounded_for(running, self.relayed(ctx, client.forward(method, params)).into_future()).await;
        if let Err(ClientError::Closed(_)) = &result {
            conn.reset().await;
        }
        result.map(own_envelope)
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

    /// The connection for a request of `ctx`'s client, and its client:
    /// the shared one for an upstream without sessions. For one with
    /// sessions: the shared one for the first client session of each
    /// upstream session, one of its own (up to [`Mount::max_sessions`])
    /// for every other, and the sessionless one for callers without a
    /// session.
    async fn connection(self: &Arc<Self>, ctx: &Context) -> Result<(Arc<Conn>, Client), ClientError> {
        let stateful = self.stateful.load(Ordering::Relaxed);
        let Some(session) = ctx.session().filter(|_| stateful) else {
            let conn = if stateful { &self.sessionless } else { &self.shared };
            return Ok((conn.clone(), conn.client(self).await?.0));
        };
        let own = lock(&self.sessions).iter().find(|(peer, _)| peer.ptr_eq(&session)).map(|(_, c)| c.clone());
        if let Some(conn) = own {
            let client = conn.client(self).await?.0;
            return Ok((conn, client));
        }
        let (client, generation) = self.shared.client(self).await?;
        if self.claim(&session, generation) {
            return Ok((self.shared.clone(), client));
        }
        let conn = self.own_connection(&session)?;
        let client = conn.client(self).await?.0;
        Ok((conn, client))
    }

    /// Whether `session` may use the shared connection's upstream session
    /// `generation`: it holds it, or takes it as the first.
    fn claim(self: &Arc<Self>, session: &Weak<Peer>, generation: u64) -> bool {
        let mut claim = lock(&self.claim);
        match &*claim {
            Claim::Held(peer, held) if *held == generation => return peer.ptr_eq(session),
            Claim::Retired(retired) if *retired == generation => return false,
            // Free, or a claim on an upstream session that is gone.
            _ => {}
        }
        let Some(peer) = session.upgrade() else { return false };
        *claim = Claim::Held(session.clone(), generation);
        let (link, ended) = (Arc::downgrade(self), peer.on_end());
        tokio::spawn(async move {
            ended.await;
            if let Some(link) = link.upgrade() {
                link.retire(generation).await;
            }
        });
        true
    }

    /// The client session holding the shared connection's upstream session
    /// `generation` ended: close it, so no other session inherits what the
    /// upstream kept for that one, and mirror from a fresh one.
    async fn retire(&self, generation: u64) {
        {
            let mut claim = lock(&self.claim);
            if matches!(&*claim, Claim::Held(_, held) if *held == generation) {
                *claim = Claim::Retired(generation);
            }
        }
        if self.shared.close(Some(generation)).await {
            self.renew.notify_one();
        }
    }

    /// A connection of `session`'s own, closed when the session ends.
    fn own_connection(self: &Arc<Self>, session: &Weak<Peer>) -> Result<Arc<Conn>, ClientError> {
        let mut sessions = lock(&self.sessions);
        sessions.retain(|(peer, _)| peer.strong_count() > 0);
        if let Some((_, conn)) = sessions.iter().find(|(peer, _)| peer.ptr_eq(session)) {
            return Ok(conn.clone());
        }
        let Some(peer) = session.upgrade() else {
            return Err(ClientError::Transport("the client session ended".into()));
        };
        if sessions.len() >= self.max_sessions {
            return Err(ClientError::Server(ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                format!(
                    "the mounted server `{}` serves at most {} client sessions at once, each on a connection of \
                     its own; try again once one ends",
                    self.label, self.max_sessions
                ),
            )));
        }
        let conn = Arc::new(Conn::default());
        sessions.push((session.clone(), conn.clone()));
        let (link, ended, mine) = (Arc::downgrade(self), peer.on_end(), Arc::downgrade(&conn));
        tokio::spawn(async move {
            ended.await;
            if let Some(link) = link.upgrade() {
                lock(&link.sessions).retain(|(_, conn)| !Weak::ptr_eq(&Arc::downgrade(conn), &mine));
            }
            if let Some(conn) = mine.upgrade() {
                conn.close(None).await;
            }
        });
        Ok(conn)
    }

    /// `list`, within the connect timeout: an upstream that takes a
    /// connection and never lists must not hold this server's first
    /// answer (or a client's `tools/list`) for longer.
    async fn bounded<T>(&self, list: impl Future<Output = Result<T, ClientError>>) -> Result<T, ClientError> {
        tokio::time::timeout(self.connect_timeout, list)
            .await
            .unwrap_or(Err(ClientError::Timeout(self.connect_timeout)))
    }

    /// Mirror the lists `client`'s server offers now.
    async fn sync(self: &Arc<Self>, client: &Client, tools: bool, resources: bool, prompts: bool) {
        let offers = client.server_capabilities();
        self.completes.store(offers.completions.is_some(), Ordering::Relaxed);
        let extensions = offers.other.get("extensions").and_then(Value::as_object);
        let tasks =
            extensions.is_some_and(|e| e.contains_key(mcp_core::task::EXTENSION)) || offers.other.contains_key("tasks");
        self.offers_tasks.store(tasks, Ordering::Relaxed);
        let (has_tools, has_resources, has_prompts) =
            (offers.tools.is_some(), offers.resources.is_some(), offers.prompts.is_some());
        // Every name the upstream offers, to check the filter's against
        // once all lists were read.
        let mut seen: Option<BTreeSet<String>> = (tools && resources && prompts).then(BTreeSet::new);
        let mut see = |names: &mut dyn Iterator<Item = &str>, ok: bool| match (&mut seen, ok) {
            (Some(seen), true) => seen.extend(names.map(str::to_owned)),
            _ => seen = None,
        };
        if tools {
            let listed = if has_tools { self.bounded(client.list_tools()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().map(|t| t.name.as_str()), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept = listed.into_iter().filter(|t| self.filter.keeps(&[&t.name], t.meta.as_ref()));
                kept.map(|t| Arc::new(ProxiedTool::new(self, self.rename(&t.name), t)) as Arc<dyn Tool>).collect()
            });
            self.mirror(&self.targets.tools, sources, "tools");
        }
        if resources {
            let listed = if has_resources { self.bounded(client.list_resources()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().flat_map(|r| [r.uri.as_str(), r.name.as_str()]), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept = listed.into_iter().filter(|r| self.filter.keeps(&[&r.uri, &r.name], r.meta.as_ref()));
                kept.map(|r| Arc::new(ProxiedResource::fixed(self, r)) as Arc<dyn Resource>).collect()
            });
            if let Some(kept) = self.mirror(&self.targets.statics, sources, "resources") {
                *lock(&self.statics) = kept;
            }
            let listed =
                if has_resources { self.bounded(client.list_resource_templates()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().flat_map(|t| [t.uri_template.as_str(), t.name.as_str()]), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept =
                    listed.into_iter().filter(|t| self.filter.keeps(&[&t.uri_template, &t.name], t.meta.as_ref()));
                kept.map(|t| Arc::new(ProxiedResource::template(self, t)) as Arc<dyn Resource>).collect()
            });
            self.mirror(&self.targets.templates, sources, "templates");
        }
        if prompts {
            let listed = if has_prompts { self.bounded(client.list_prompts()).await } else { Ok(Vec::new()) };
            see(&mut listed.iter().flatten().map(|p| p.name.as_str()), listed.is_ok());
            let sources = listed.map(|listed| {
                let kept = listed.into_iter().filter(|p| self.filter.keeps(&[&p.name], p.meta.as_ref()));
                kept.map(|p| Arc::new(ProxiedPrompt::new(self, self.rename(&p.name), p)) as Arc<dyn Prompt>).collect()
            });
            self.mirror(&self.targets.prompts, sources, "prompts");
        }
        if let Some(seen) = seen
            && !self.filter_checked.swap(true, Ordering::Relaxed)
        {
            for name in self.filter.named().filter(|name| !seen.contains(*name)) {
                tracing::warn!(upstream = %self.label, name, "the mount's `include`/`exclude` names something this server does not offer");
            }
        }
    }

    /// Make `sources` (the upstream's `what`, as listed) what this mount
    /// offers in `catalog`, or keep what it offered and warn if they could
    /// not be listed. The keys it serves now, if they were listed.
    fn mirror<K: Kind>(
        &self,
        catalog: &Catalog<K>,
        sources: Result<Vec<Arc<K::Source>>, ClientError>,
        what: &str,
    ) -> Option<BTreeSet<String>> {
        match sources {
            Ok(sources) => Some(catalog.replace(self.rank, sources, &self.label)),
            Err(error) => {
                tracing::warn!(upstream = %self.label, %error, "its {what} could not be listed");
                None
            }
        }
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

    /// The upstream URIs of the mirrored resources, to subscribe to.
    fn subscribable(&self, client: &Client) -> Vec<String> {
        let offers = client.server_capabilities();
        if offers.resources.as_ref().is_none_or(|r| r.subscribe != Some(true)) {
            return Vec::new();
        }
        lock(&self.statics).iter().filter_map(|uri| self.names.upstream_uri(uri)).take(MAX_SUBSCRIBED).collect()
    }

    /// Act on one of the upstream's notifications.
    async fn on_notification(self: &Arc<Self>, client: &Client, notification: Notification) {
        match notification.method.as_str() {
            methods::TOOLS_LIST_CHANGED => self.sync(client, true, false, false).await,
            methods::RESOURCES_LIST_CHANGED => self.sync(client, false, true, false).await,
            methods::PROMPTS_LIST_CHANGED => self.sync(client, false, false, true).await,
            methods::RESOURCES_UPDATED => {
                let uri = notification.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
                if let Some(uri) = uri {
                    self.targets.announcer.updated(&self.names.uri(uri));
                }
            }
            _ => {}
        }
    }
}

/// A result without what the upstream's era put around it (its
/// `resultType`, its own name in `_meta`): this server's era puts its own.
pub(crate) fn own_envelope(mut result: Value) -> Value {
    if let Value::Object(result) = &mut result {
        result.remove("resultType");
        if let Some(Value::Object(meta)) = result.get_mut("_meta") {
            meta.retain(|key, _| !key.starts_with("io.modelcontextprotocol/"));
            if meta.is_empty() {
                result.remove("_meta");
            }
        }
    }
    result
}

/// Keep the shared connection up and the lists mirrored, for as long as
/// the link lives.
async fn mirror(link: Weak<Link>) {
    let mut backoff = Duration::from_millis(250);
    loop {
        let Some(strong) = link.upgrade() else { return };
        let client = match strong.shared.client(&strong).await {
            Ok((client, _)) => client,
            Err(error) => {
                tracing::warn!(upstream = %strong.label, %error, retry_in = ?backoff, "the mounted server cannot be reached");
                strong.ready.send_replace(true);
                drop(strong);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
        };
        backoff = Duration::from_millis(250);
        strong.stateful.store(client.negotiated().era == Era::Handshake, Ordering::Relaxed);
        strong.sync(&client, true, true, true).await;
        strong.ready.send_replace(true);
        let uris = strong.subscribable(&client);
        let watched = match client.watch(&uris).await {
            Ok(watched) => watched.boxed(),
            Err(error) => {
                tracing::debug!(upstream = %strong.label, %error, "no resource updates from the mounted server");
                client.notifications().boxed()
            }
        };
        drop(strong);
        let mut watched = watched;
        loop {
            tokio::select! {
                next = watched.next() => match (next, link.upgrade()) {
                    (Some(notification), Some(strong)) => strong.on_notification(&client, notification).await,
                    (None, _) => break,
                    (_, None) => return,
                },
                why = client.ended() => {
                    tracing::warn!(upstream = ?link.upgrade().map(|l| l.label.clone()), %why, "the mounted server's connection ended; reconnecting");
                    break;
                }
                () = renewed(&link) => {
                    backoff = Duration::ZERO;
                    break;
                }
            }
        }
        match link.upgrade() {
            Some(strong) => strong.shared.reset().await,
            None => return,
        }
        tokio::time::sleep(backoff).await;
        backoff = backoff.max(Duration::from_millis(250));
    }
}

/// Resolves when the link's shared connection was closed on purpose (never
/// once the link is gone).
async fn renewed(link: &Weak<Link>) {
    match link.upgrade() {
        Some(strong) => {
            let renew = strong.renew.clone();
            drop(strong);
            renew.notified().await
        }
        None => std::future::pending().await,
    }
}

/// One connection to the upstream, opened when first needed and again
/// after it ends, and the calls in flight on it (to whose clients the
/// upstream's own requests go).
#[derive(Default)]
pub(crate) struct Conn {
    /// The client, and which of the connection's upstream sessions it is.
    client: tokio::sync::Mutex<Option<(Client, u64)>>,
    /// How many clients it opened.
    generations: AtomicU64,
    callers: Mutex<Vec<Caller>>,
    next: AtomicU64,
    /// It declares the tasks extension, so the upstream may answer a call
    /// with a task (which only [`super::tasks`] follows).
    declares_tasks: bool,
}

struct Caller {
    id: u64,
    target: Target,
    /// Set when the call ends, to stop passing on questions for it.
    done: watch::Sender<bool>,
}

/// Where the upstream's questions during a call go.
#[derive(Clone)]
enum Target {
    /// The client of the call's request.
    Live(Context),
    /// A call parked across a 2026-07-28 client's rounds.
    Parked(mpsc::Sender<Question>),
}

/// A call in flight on a connection, until dropped.
pub(crate) struct Entered {
    conn: Arc<Conn>,
    id: u64,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut callers = lock(&self.conn.callers);
        if let Some(i) = callers.iter().position(|c| c.id == self.id) {
            callers.remove(i).done.send_replace(true);
        }
    }
}

impl Conn {
    /// The connection's client, connecting if there is none (or the last
    /// one ended).
    pub(crate) async fn client(self: &Arc<Self>, link: &Link) -> Result<(Client, u64), ClientError> {
        let mut slot = self.client.lock().await;
        if let Some((client, generation)) = slot.as_ref().filter(|(c, _)| c.closed().is_none()) {
            return Ok((client.clone(), *generation));
        }
        let conn = Arc::downgrade(self);
        let builder = Client::builder()
            .name(format!("mcp-runtime proxy ({})", link.label), env!("CARGO_PKG_VERSION"))
            // Tools for views are mirrored; this server's own clients see
            // them only if they render views.
            .extension(mcp_core::apps::EXTENSION, serde_json::json!({ "mimeTypes": [mcp_core::apps::MIME_TYPE] }))
            .relay(move |method, params| {
                let conn = conn.clone();
                async move {
                    match conn.upgrade() {
                        Some(conn) => conn.ask(&method, params).await,
                        None => Err(ErrorObject::internal_error()),
                    }
                }
            });
        let builder = match link.max_message_bytes {
            Some(max) => builder.max_message_bytes(max),
            None => builder,
        };
        let builder = match self.declares_tasks {
            true => builder.extension(mcp_core::task::EXTENSION, serde_json::json!({})),
            false => builder,
        };
        let client = super::connect::telling(link, (link.connect)(builder)).await?;
        tokio::spawn(pass_on_logs(Arc::downgrade(self), client.notifications().boxed()));
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        *slot = Some((client.clone(), generation));
        Ok((client, generation))
    }

    /// Forget the client, so the next request connects again.
    pub(crate) async fn reset(&self) {
        self.client.lock().await.take();
    }

    /// End the client (of `generation` only, if given): its upstream
    /// session closes and its process, if any, exits. Whether one was.
    async fn close(&self, generation: Option<u64>) -> bool {
        let taken = {
            let mut slot = self.client.lock().await;
            match &*slot {
                Some((_, current)) if generation.is_none_or(|g| g == *current) => slot.take(),
                _ => None,
            }
        };
        match taken {
            Some((client, _)) => {
                client.close().await;
                true
            }
            None => false,
        }
    }

    /// Note a call in flight for `ctx`'s client.
    pub(crate) fn enter(self: &Arc<Self>, ctx: Context) -> Entered {
        self.enter_as(Target::Live(ctx))
    }

    /// Note a parked call in flight, whose questions go to `asking`.
    pub(crate) fn enter_parked(self: &Arc<Self>, asking: mpsc::Sender<Question>) -> Entered {
        self.enter_as(Target::Parked(asking))
    }

    fn enter_as(self: &Arc<Self>, target: Target) -> Entered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.callers).push(Caller { id, target, done: watch::channel(false).0 });
        Entered { conn: self.clone(), id }
    }

    /// The latest call in flight: whose client the upstream's requests,
    /// which name no call, go to.
    fn current(&self) -> Option<(Target, watch::Receiver<bool>)> {
        lock(&self.callers).last().map(|c| (c.target.clone(), c.done.subscribe()))
    }

    /// The client of the latest live call, for log messages.
    fn current_client(&self) -> Option<Context> {
        lock(&self.callers).iter().rev().find_map(|c| match &c.target {
            Target::Live(ctx) => Some(ctx.clone()),
            Target::Parked(_) => None,
        })
    }

    /// Pass one of the upstream's requests on to the client of the latest
    /// call, for as long as that call lasts.
    async fn ask(&self, method: &str, params: Option<JsonObject>) -> Result<Value, ErrorObject> {
        let Some((target, mut done)) = self.current() else {
            return Err(ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                format!("`{method}` cannot be passed on: no client is waiting on this server now"),
            ));
        };
        let answer = async {
            match target {
                Target::Live(ctx) => ask(&ctx, method, params).await,
                Target::Parked(asking) => {
                    let (reply, answer) = oneshot::channel();
                    let question = Question { method: method.to_owned(), params, reply };
                    if asking.send(question).await.is_err() {
                        return Err(ErrorObject::internal_error());
                    }
                    answer.await.unwrap_or_else(|_| Err(ErrorObject::internal_error()))
                }
            }
        };
        tokio::select! {
            answer = answer => answer,
            _ = done.wait_for(|d| *d) => Err(ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                format!("`{method}` was not answered: the call it came with ended"),
            )),
        }
    }
}

/// Ask the client of `ctx` what the upstream asked: a request in the
/// handshake eras, an input request of the call's result in 2026-07-28.
pub(crate) async fn ask(ctx: &Context, method: &str, params: Option<JsonObject>) -> Result<Value, ErrorObject> {
    let params = Value::Object(params.unwrap_or_default());
    ctx.client().request::<Value>(method, params).await.map_err(|error| match error {
        crate::client::ClientError::Rejected(error) => error,
        other => ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, other.to_string()),
    })
}

/// Pass the upstream's log messages on a connection to the client of its
/// latest call.
async fn pass_on_logs(conn: Weak<Conn>, mut notifications: futures_util::stream::BoxStream<'static, Notification>) {
    while let Some(notification) = notifications.next().await {
        if notification.method != methods::MESSAGE {
            continue;
        }
        let Some(conn) = conn.upgrade() else { return };
        let params = notification.params.map(Value::Object).unwrap_or_default();
        if let (Some(ctx), Ok(message)) =
            (conn.current_client(), serde_json::from_value::<LoggingMessageParams>(params))
        {
            ctx.relay_log(&message);
        }
    }
}
