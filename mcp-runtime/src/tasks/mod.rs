//! Tasks (the `io.modelcontextprotocol/tasks` extension): a call of a tool
//! that supports them, from a client that declared the extension, runs in
//! the background once it has to wait, and the call answers at once with
//! a task the client follows with `tasks/get`.
//!
//! A task is one layer of the call pipeline (`layer`; the runtime's
//! `invoke` module has its place), outside the user's middleware: it polls the rest once where
//! the call was read. A call that finishes in that poll is answered as
//! usual, and one that asks the client something in it (a 2026-07-28
//! multi-round request) gets its `InputRequiredResult`, so questions asked
//! before any work waits are answered before a task exists. Otherwise the
//! call's future goes on as a spawned task, kept in the server's
//! [`TaskStore`]; its later questions are asked through the task
//! (`input_required`, answered with `tasks/update`), and `tasks/cancel`
//! drops its future.
//!
//! Replicas that share a store (`RedisStore`, with the `redis` feature)
//! answer for each other's tasks: an update or cancellation that reaches a
//! replica not running the task is passed on as a [`TaskSignal`] to the one
//! that does, and the store keeps which session created which task, so a
//! session's `tasks/list` is the same through every replica.
//!
//! Each task is bound to the authorization context that created it: the
//! issuer and subject of the request's access token, else its HTTP
//! session, else nothing (stdio, stateless HTTP without OAuth, where the
//! unguessable id is all that guards it). The binding is part of the id,
//! so any store keeps tasks apart; a request of another context is
//! answered as for an unknown id. Each context runs at most
//! [`Server::max_running_tasks_per_requestor`](crate::Server::max_running_tasks_per_requestor)
//! tasks at once on a replica, so one client cannot take the store's
//! whole capacity; the tasks of an HTTP session without OAuth are
//! cancelled when the session ends for good, since no one can reach them
//! after.
//!
//! A 2025-11-25 client that did not declare the extension has the tasks of
//! that version's core protocol (SEP-1686) instead: the same layer, store
//! and methods, with that version's wire. It asks for a task itself
//! (`params.task` on `tools/call`), so its call becomes a task before it
//! is polled at all; it follows the task with `tasks/get`, `tasks/list`
//! and `tasks/result` (which waits for the end and answers what the call
//! would have), stops it with `tasks/cancel`, and hears
//! `notifications/tasks/status`. Questions its task asks go to it as
//! requests carrying the task's id in `_meta`, the task `input_required`
//! meanwhile.

mod binding;
mod layer;
pub(crate) mod methods;
mod owners;
#[cfg(feature = "redis")]
mod redis;
pub(crate) mod running;
mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use mcp_core::ErrorObject;
use mcp_core::task::{DetailedTask, Task, TaskStatus};

pub(crate) use binding::Binding;
pub(crate) use layer::{Asked, Detached, Plan, detach};
#[cfg(feature = "redis")]
pub(crate) use redis::Leases;
pub use store::{MemoryTaskStore, OwnedTasks, TaskSignal, TaskStore, TaskStoreError};

use owners::Owners;
use running::Running;

/// Whether a tool's calls may run as tasks: `#[tool(task = "optional")]`
/// or [`ToolBuilder::task`](crate::tools::ToolBuilder::task).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Every call is answered directly (the default).
    #[default]
    Never,
    /// A call from a client that declared the tasks extension becomes a
    /// task once it has to wait, and a 2025-11-25 client's call becomes
    /// one when it asks (`params.task`); other calls get the result
    /// directly. 2025-11-25 shows it as `execution.taskSupport:
    /// "optional"`.
    Optional,
    /// Only calls as tasks are taken: from clients that declared the tasks
    /// extension, or 2025-11-25 calls with `params.task`. A 2025-11-25
    /// call without it gets `-32601`, as that version says; other clients
    /// get `-32021` (missing client capability) naming the extension.
    Required,
}

/// Which tasks a client has: the two wire shapes of one mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// The `io.modelcontextprotocol/tasks` extension (SEP-2663), for a
    /// client of any version that declared it: the server decides what
    /// becomes a task, and questions go through `tasks/get` and
    /// `tasks/update`.
    Extension,
    /// 2025-11-25's core tasks (SEP-1686), for a client of that version
    /// without the extension: the client asks for a task, and questions
    /// are requests to it tied to the task.
    Core,
}

impl Flavour {
    /// The tasks `request`'s client has, if any.
    pub(crate) fn of(request: &crate::dispatch::Incoming<'_>) -> Option<Flavour> {
        if request.peer.declares_extension(mcp_core::task::EXTENSION) {
            Some(Flavour::Extension)
        } else if request.version == mcp_core::ProtocolVersion::V2025_11_25 {
            Some(Flavour::Core)
        } else {
            None
        }
    }
}

/// The server's tasks: where they are kept, how long, and the ones running
/// on this replica.
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    /// How long a finished task is kept.
    pub(crate) ttl: Duration,
    /// How often clients are told to poll.
    pub(crate) poll_interval: Duration,
    /// How many tasks one requestor may run here at once.
    per_requestor: usize,
    running: Mutex<Local>,
    /// Set once this replica listens for other replicas' signals.
    listening: tokio::sync::OnceCell<()>,
    /// Woken by every write, for `tasks/result` waiting for an end here
    /// (one elsewhere is polled for).
    pub(crate) changed: tokio::sync::Notify,
    /// The 2025-11-25 tasks of the sessions this replica serves, for
    /// `tasks/list` (a client lists its own tasks only) when the store
    /// keeps no owners; a store that does keeps them for every replica.
    local_owners: Mutex<Owners>,
    /// By owner, how many tasks its list holds before it is next pruned of
    /// gone ones: doubled after each pruning (from [`OWNED_PRUNE_AT`]), so
    /// a session keeping many live tasks is not scanned on every create.
    prune_at: Mutex<HashMap<Arc<str>, usize>>,
}

/// The tasks running on this replica, and how many each requestor runs.
#[derive(Default)]
struct Local {
    /// By id: the task and its requestor's [`Binding::key`].
    tasks: HashMap<String, (Arc<Running>, Arc<str>)>,
    /// By requestor key: its running tasks, those being created included.
    /// A requestor with none has no entry.
    counts: HashMap<Arc<str>, usize>,
}

impl Local {
    fn release(&mut self, key: &str) {
        if let Some(count) = self.counts.get_mut(key) {
            *count -= 1;
            if *count == 0 {
                self.counts.remove(key);
            }
        }
    }
}

/// How many task ids one session's list holds before the expired ones are
/// pruned from it.
const OWNED_PRUNE_AT: usize = 1024;

impl Tasks {
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        ttl: Duration,
        poll_interval: Duration,
        per_requestor: usize,
    ) -> Tasks {
        Tasks {
            store,
            ttl,
            poll_interval,
            per_requestor,
            running: Mutex::default(),
            listening: tokio::sync::OnceCell::new(),
            changed: tokio::sync::Notify::new(),
            local_owners: Mutex::default(),
            prune_at: Mutex::default(),
        }
    }

    fn local_owners(&self) -> std::sync::MutexGuard<'_, Owners> {
        self.local_owners.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn prune_at(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, usize>> {
        self.prune_at.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Up to `limit` of `owner`'s tasks after position `after`, oldest
    /// first, with their positions (some may be gone).
    pub(crate) async fn owned(
        &self,
        owner: &str,
        after: Option<u64>,
        limit: usize,
    ) -> Result<OwnedTasks, TaskStoreError> {
        match self.store.owned(owner, after, limit).await? {
            Some(owned) => Ok(owned),
            None => Ok(self.local_owners().owned(owner, after, limit)),
        }
    }

    /// Forget `owner`'s tasks that the store no longer keeps.
    pub(crate) async fn disown(&self, owner: &str, gone: &[String]) {
        if gone.is_empty() {
            return;
        }
        self.local_owners().disown(owner, gone);
        if let Err(error) = self.store.disown(owner, gone).await {
            tracing::debug!(%error, "gone tasks could not be taken off their session's list");
        }
    }

    /// The session `owner` ended here: this replica forgets what it kept
    /// of its tasks (a store that keeps owners keeps its list, which the
    /// session may go on using through another replica).
    pub(crate) fn forget_session(&self, owner: &str) {
        self.local_owners().forget(owner);
        self.prune_at().remove(owner);
    }

    /// Note that `owner` created the task `id`; a long list is pruned of
    /// gone tasks, so it stays about as long as the store's.
    async fn own(&self, owner: &Arc<str>, id: &str) {
        let count = match self.store.own(owner, id).await {
            Ok(Some(count)) => count,
            Ok(None) => self.local_owners().own(owner, id).1,
            Err(error) => {
                tracing::warn!(%error, "a task could not be put on its session's list; tasks/list will not show it");
                return;
            }
        };
        let due = count >= *self.prune_at().entry(owner.clone()).or_insert(OWNED_PRUNE_AT);
        if !due {
            return;
        }
        let Ok(all) = self.owned(owner, None, usize::MAX).await else { return };
        let mut gone = Vec::new();
        for (_, id) in &all {
            if matches!(self.store.get(id).await, Ok(None)) {
                gone.push(id.clone());
            }
        }
        self.disown(owner, &gone).await;
        self.prune_at().insert(owner.clone(), OWNED_PRUNE_AT.max(2 * (all.len() - gone.len())));
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Local> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The task `id`, if it runs on this replica.
    pub(crate) fn local(&self, id: &str) -> Option<Arc<Running>> {
        self.running().tasks.get(id).map(|(running, _)| running.clone())
    }

    /// The task `id` no longer runs here: its requestor may run another.
    fn forget(&self, id: &str) {
        let mut local = self.running();
        if let Some((_, key)) = local.tasks.remove(id) {
            local.release(&key);
        }
    }

    /// Count one more task for the requestor `key`, or refuse it when the
    /// requestor runs as many as it may.
    fn reserve(&self, key: &Arc<str>) -> Result<(), ErrorObject> {
        let mut local = self.running();
        let count = local.counts.entry(key.clone()).or_default();
        if *count >= self.per_requestor {
            let message = format!(
                "too many running tasks: a client may run at most {} tasks at once here, and this one runs {count}; \
                 wait for one to end, or cancel one",
                self.per_requestor
            );
            return Err(ErrorObject::new(mcp_core::codes::INVALID_REQUEST, message));
        }
        *count += 1;
        Ok(())
    }

    /// The requestor `key`'s HTTP session ended, and with it the only way
    /// to reach its tasks: those running here are stopped and marked
    /// cancelled.
    #[cfg(feature = "http")]
    pub(crate) fn end_requestor(self: &Arc<Self>, key: &str) {
        let ended: Vec<Arc<Running>> = {
            let mut local = self.running();
            let ids: Vec<String> =
                local.tasks.iter().filter(|(_, (_, k))| &**k == key).map(|(id, _)| id.clone()).collect();
            let ended: Vec<Arc<Running>> =
                ids.iter().filter_map(|id| local.tasks.remove(id)).map(|(running, _)| running).collect();
            ended.iter().for_each(|_| local.release(key));
            ended
        };
        if ended.is_empty() {
            return;
        }
        for running in &ended {
            running.stop();
        }
        tracing::debug!(tasks = ended.len(), "cancelled the running tasks of an ended HTTP session");
        let tasks = self.clone();
        tokio::spawn(async move {
            for running in ended {
                if let Some(mut task) = running.record() {
                    cancelled(&mut task, "cancelled: the session that created it ended");
                    tasks.write(task).await;
                }
            }
        });
    }

    /// Write `task` to the store; a failure is logged (the task goes on,
    /// and the next write may succeed). `false` when the store refused it:
    /// the task ended already (cancelled through another replica) or is
    /// gone.
    async fn write(&self, task: DetailedTask) -> bool {
        let kept = match self.store.update(task).await {
            Ok(kept) => kept,
            Err(error) => {
                tracing::warn!(%error, "a task's state could not be written to the task store");
                true
            }
        };
        self.changed.notify_waiters();
        kept
    }

    /// Hear the signals other replicas pass, from the first task this
    /// replica runs on, so none for it is missed once it exists.
    async fn listen(self: &Arc<Self>) {
        self.listening
            .get_or_init(|| async {
                if let Some(signals) = self.signals().await {
                    tokio::spawn(hear(Arc::downgrade(self), signals));
                }
            })
            .await;
    }

    /// The store's signals; `None` when it has none to pass (or cannot be
    /// reached: logged, and tried again later).
    async fn signals(&self) -> Option<Option<BoxStream<'static, TaskSignal>>> {
        match self.store.signals().await {
            Ok(None) => None,
            Ok(Some(signals)) => Some(Some(signals)),
            Err(error) => {
                tracing::warn!(%error, "could not hear the other replicas' task signals; retrying");
                Some(None)
            }
        }
    }

    /// Act on `signal` if its task runs here.
    pub(crate) async fn receive(&self, signal: TaskSignal) {
        let Some(running) = self.local(signal.task_id()) else { return };
        match signal {
            TaskSignal::Answer { responses, .. } => running.answer(responses).await,
            TaskSignal::Cancel { task_id } => {
                running.stop();
                self.forget(&task_id);
            }
        }
    }

    /// A new task of `binding`, working, kept for `ttl` milliseconds when
    /// the client asked for less than the server keeps tasks.
    fn new_task(&self, binding: &Binding, ttl: Option<u64>) -> DetailedTask {
        let now = now();
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let task = Task {
            task_id: binding.new_id(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms: Some(ttl.map_or(millis(self.ttl), |ttl| ttl.min(millis(self.ttl))).max(1)),
            poll_interval_ms: Some(millis(self.poll_interval).max(1)),
        };
        DetailedTask { task, result: None, error: None, input_requests: None }
    }
}

/// Act on other replicas' signals while the server lives, listening again
/// (backing off) when the store's stream ends.
async fn hear(tasks: Weak<Tasks>, mut signals: Option<BoxStream<'static, TaskSignal>>) {
    let mut delay = Duration::from_millis(100);
    loop {
        if let Some(mut stream) = signals.take() {
            delay = Duration::from_millis(100);
            while let Some(signal) = stream.next().await {
                let Some(tasks) = tasks.upgrade() else { return };
                tasks.receive(signal).await;
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(5));
        let Some(tasks) = tasks.upgrade() else { return };
        match tasks.signals().await {
            Some(stream) => signals = stream,
            None => return,
        }
    }
}

/// Mark `task` cancelled, saying `why`.
pub(crate) fn cancelled(task: &mut DetailedTask, why: &str) {
    task.task.status = TaskStatus::Cancelled;
    task.task.status_message = Some(why.into());
    task.task.last_updated_at = now();
    task.input_requests = None;
}

/// Now, as tasks' timestamps say it.
fn now() -> String {
    let millis = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis();
    mcp_core::task::timestamp(u64::try_from(millis).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests;
