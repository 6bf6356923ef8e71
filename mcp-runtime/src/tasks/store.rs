//! Where tasks are kept between the requests that follow them: the
//! [`TaskStore`] trait, and [`MemoryTaskStore`], the default, bounded in
//! count and bytes. (`RedisStore` is the one replicas share, with the
//! `redis` feature.)

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::stream::BoxStream;
use mcp_core::task::DetailedTask;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::owners::Owners;
use crate::tools::BoxFuture;

/// Why a task store could not do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store is full: the task was not kept.
    Full(String),
    /// The store could not be reached or answered nonsense.
    Unavailable(String),
}

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskStoreError::Full(why) => write!(f, "the task store is full: {why}"),
            TaskStoreError::Unavailable(why) => write!(f, "the task store is unavailable: {why}"),
        }
    }
}

impl std::error::Error for TaskStoreError {}

/// Some of a session's tasks, oldest first, as a store lists them
/// ([`TaskStore::owned`]): each task's position in the list, then its id.
pub type OwnedTasks = Vec<(u64, String)>;

/// Keeps tasks as `tasks/get` shows them, so any replica that shares the
/// store can answer for a task. The replica that runs a task writes it;
/// the others read it and mark it cancelled.
///
/// A task is kept while it is not terminal, and for its `ttlMs` after it
/// becomes terminal (never less than its `ttlMs` from its creation, as the
/// extension requires); then it is gone.
pub trait TaskStore: Send + Sync + 'static {
    /// Keep a new task. It must be readable with [`get`](Self::get) once
    /// this returns.
    fn create(&self, task: DetailedTask) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The task with this id, if it is kept.
    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>>;

    /// Replace a kept task with `task`, unless the kept one is terminal
    /// already (a task ends once) or is gone: `Ok(false)` then.
    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>>;

    /// Pass `signal` to every replica sharing the store, so the one running
    /// its task acts on it. A store only one process uses has no one to
    /// tell: the default does nothing.
    fn signal(&self, signal: TaskSignal) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let _ = signal;
        Box::pin(std::future::ready(Ok(())))
    }

    /// The signals replicas pass from now on, until the stream ends (the
    /// runtime then listens again); `None` for a store only one process
    /// uses (the default).
    fn signals(&self) -> BoxFuture<'_, Result<Option<BoxStream<'static, TaskSignal>>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Note that the session `owner` created the task `task_id` (a
    /// 2025-11-25 client asked for it), so that session's `tasks/list`
    /// shows it from any replica sharing the store: how many tasks are
    /// noted for `owner` now (some may be gone).
    ///
    /// `None`, the default, says this store keeps no owners: each replica
    /// then keeps the lists of the sessions it serves, and a session moved
    /// to another replica lists only the tasks created there.
    fn own<'a>(&'a self, owner: &'a str, task_id: &'a str) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        let _ = (owner, task_id);
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Up to `limit` of the tasks noted for `owner`, oldest first, after
    /// the position `after`: each with its position, a number that grows
    /// with every task noted and does not change while the task is kept
    /// (it is the `tasks/list` cursor). Some may be gone; the runtime
    /// [disowns](Self::disown) those it finds. `None` (the default) when
    /// this store keeps no owners.
    fn owned<'a>(
        &'a self,
        owner: &'a str,
        after: Option<u64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Option<OwnedTasks>, TaskStoreError>> {
        let _ = (owner, after, limit);
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Forget `task_ids` from `owner`'s list: they are gone from the store.
    fn disown<'a>(&'a self, owner: &'a str, task_ids: &'a [String]) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let _ = (owner, task_ids);
        Box::pin(std::future::ready(Ok(())))
    }
}

/// What reached one replica for a task another may be running: answers
/// (`tasks/update`) or a cancellation (`tasks/cancel`). A store shared by
/// replicas carries it to all of them ([`TaskStore::signal`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "signal")]
#[non_exhaustive]
pub enum TaskSignal {
    /// Answers to the task's questions, by key.
    Answer {
        /// The task's id.
        task_id: String,
        /// The `inputResponses` of the `tasks/update`.
        responses: Map<String, Value>,
    },
    /// Stop the task: it was cancelled.
    Cancel {
        /// The task's id.
        task_id: String,
    },
}

impl TaskSignal {
    /// The task it is for.
    pub fn task_id(&self) -> &str {
        match self {
            TaskSignal::Answer { task_id, .. } | TaskSignal::Cancel { task_id } => task_id,
        }
    }
}

/// A shared store: the server keeps one handle, the program another (to
/// watch it, or to serve two servers from it).
impl<T: TaskStore> TaskStore for std::sync::Arc<T> {
    fn create(&self, task: DetailedTask) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        (**self).create(task)
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>> {
        (**self).get(task_id)
    }

    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        (**self).update(task)
    }

    fn signal(&self, signal: TaskSignal) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        (**self).signal(signal)
    }

    fn signals(&self) -> BoxFuture<'_, Result<Option<BoxStream<'static, TaskSignal>>, TaskStoreError>> {
        (**self).signals()
    }

    fn own<'a>(&'a self, owner: &'a str, task_id: &'a str) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        (**self).own(owner, task_id)
    }

    fn owned<'a>(
        &'a self,
        owner: &'a str,
        after: Option<u64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Option<OwnedTasks>, TaskStoreError>> {
        (**self).owned(owner, after, limit)
    }

    fn disown<'a>(&'a self, owner: &'a str, task_ids: &'a [String]) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        (**self).disown(owner, task_ids)
    }
}

/// The default [`TaskStore`]: in this process's memory, bounded by a
/// number of tasks and a number of bytes (of the tasks' JSON). When full,
/// expired tasks go first, then the oldest terminal ones; a store full of
/// running tasks refuses new ones. It keeps each task's owner with it, so
/// servers in one process that share it list a session's tasks alike.
pub struct MemoryTaskStore {
    max_tasks: usize,
    max_bytes: usize,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    tasks: HashMap<String, Entry>,
    bytes: usize,
    /// Creation order, for evicting the oldest terminal task first.
    order: std::collections::VecDeque<String>,
    /// No task expires before this: until then a create looks at none of
    /// them (a scan per create would make n creates cost n² steps).
    next_expiry: Option<Instant>,
    /// The sessions' lists of their tasks; a task leaves its list when it
    /// leaves the store.
    owners: Owners,
}

struct Entry {
    task: DetailedTask,
    bytes: usize,
    /// Set once terminal.
    expires: Option<Instant>,
    /// The session that created it, and its place in that session's list.
    owner: Option<(String, u64)>,
}

impl MemoryTaskStore {
    /// A store of at most `max_tasks` tasks taking at most `max_bytes`.
    pub fn new(max_tasks: usize, max_bytes: usize) -> Self {
        MemoryTaskStore { max_tasks, max_bytes, kept: Mutex::default() }
    }

    /// How many tasks it keeps now (expired ones it has not yet dropped
    /// included).
    pub fn len(&self) -> usize {
        self.kept().tasks.len()
    }

    /// Whether it keeps no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes its tasks take, as their JSON.
    pub fn bytes(&self) -> usize {
        self.kept().bytes
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for MemoryTaskStore {
    /// 10,000 tasks, 64 MiB.
    fn default() -> Self {
        MemoryTaskStore::new(10_000, 64 << 20)
    }
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("max_tasks", &self.max_tasks)
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

fn size_of(task: &DetailedTask) -> usize {
    serde_json::to_vec(task).map_or(0, |v| v.len())
}

fn expiry(task: &DetailedTask) -> Option<Instant> {
    task.task.status.is_terminal().then(|| Instant::now() + Duration::from_millis(task.task.ttl_ms.unwrap_or(0)))
}

impl Kept {
    /// A task will expire at `at`: the next create after it looks.
    fn expires(&mut self, at: Option<Instant>) {
        if let Some(at) = at {
            self.next_expiry = Some(self.next_expiry.map_or(at, |t| t.min(at)));
        }
    }

    fn remove(&mut self, id: &str) {
        if let Some(entry) = self.tasks.remove(id) {
            self.bytes -= entry.bytes;
            if let Some((owner, position)) = entry.owner {
                self.owners.remove(&owner, position);
            }
        }
    }

    /// Drop expired tasks, then the oldest terminal ones, until `bytes`
    /// more fit in one more task; whether they do.
    fn make_room(&mut self, bytes: usize, max_tasks: usize, max_bytes: usize) -> bool {
        let now = Instant::now();
        if self.next_expiry.is_some_and(|t| t <= now) {
            let expired: Vec<String> = self
                .tasks
                .iter()
                .filter(|(_, e)| e.expires.is_some_and(|t| t <= now))
                .map(|(k, _)| k.clone())
                .collect();
            for id in expired {
                self.remove(&id);
            }
            self.order.retain(|id| self.tasks.contains_key(id));
            self.next_expiry = self.tasks.values().filter_map(|e| e.expires).min();
        }
        let fits = |k: &Kept| k.tasks.len() < max_tasks && k.bytes + bytes <= max_bytes;
        while !fits(self) {
            let Some(at) = self.order.iter().position(|id| self.tasks[id].expires.is_some()) else { return false };
            let id = self.order.remove(at).expect("the position is in the queue");
            self.remove(&id);
        }
        true
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: DetailedTask) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let bytes = size_of(&task);
        let mut kept = self.kept();
        let result = if kept.make_room(bytes, self.max_tasks, self.max_bytes) {
            let id = task.task.task_id.clone();
            kept.bytes += bytes;
            kept.order.push_back(id.clone());
            let expires = expiry(&task);
            kept.expires(expires);
            kept.tasks.insert(id, Entry { task, bytes, expires, owner: None });
            Ok(())
        } else {
            Err(TaskStoreError::Full(format!(
                "{} running tasks (at most {} tasks, {} bytes)",
                kept.tasks.len(),
                self.max_tasks,
                self.max_bytes
            )))
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, TaskStoreError>> {
        let now = Instant::now();
        let found =
            self.kept().tasks.get(task_id).filter(|e| e.expires.is_none_or(|t| t > now)).map(|e| e.task.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update(&self, task: DetailedTask) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        let mut kept = self.kept();
        let kept = &mut *kept;
        let replaced = match kept.tasks.get_mut(&task.task.task_id) {
            Some(entry) if entry.expires.is_none() => {
                let bytes = size_of(&task);
                kept.bytes = kept.bytes - entry.bytes + bytes;
                let expires = expiry(&task);
                (entry.task, entry.bytes, entry.expires) = (task, bytes, expires);
                kept.expires(expires);
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(replaced)))
    }

    fn own<'a>(&'a self, owner: &'a str, task_id: &'a str) -> BoxFuture<'a, Result<Option<usize>, TaskStoreError>> {
        let mut kept = self.kept();
        let kept = &mut *kept;
        // A task that is gone already has no list to be in.
        let count = match kept.tasks.get_mut(task_id) {
            Some(entry) if entry.owner.is_none() => {
                let (position, count) = kept.owners.own(owner, task_id);
                entry.owner = Some((owner.to_owned(), position));
                count
            }
            _ => kept.owners.count(owner),
        };
        Box::pin(std::future::ready(Ok(Some(count))))
    }

    fn owned<'a>(
        &'a self,
        owner: &'a str,
        after: Option<u64>,
        limit: usize,
    ) -> BoxFuture<'a, Result<Option<OwnedTasks>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(Some(self.kept().owners.owned(owner, after, limit)))))
    }

    fn disown<'a>(&'a self, owner: &'a str, task_ids: &'a [String]) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let mut kept = self.kept();
        kept.owners.disown(owner, task_ids);
        for id in task_ids {
            if let Some(entry) = kept.tasks.get_mut(id)
                && entry.owner.as_ref().is_some_and(|(o, _)| o == owner)
            {
                entry.owner = None;
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use mcp_core::task::{Task, TaskStatus, timestamp};

    use super::*;

    /// A task `id` in `status`, kept a minute once it ends.
    pub(crate) fn task(id: &str, status: TaskStatus) -> DetailedTask {
        let task = Task {
            task_id: id.into(),
            status,
            status_message: None,
            created_at: timestamp(0),
            last_updated_at: timestamp(0),
            ttl_ms: Some(60_000),
            poll_interval_ms: None,
        };
        DetailedTask { task, result: None, error: None, input_requests: None }
    }

    #[tokio::test]
    async fn a_full_store_drops_its_oldest_finished_task_and_refuses_when_all_run() {
        let store = MemoryTaskStore::new(2, 1 << 20);
        store.create(task("a", TaskStatus::Working)).await.unwrap();
        store.create(task("b", TaskStatus::Working)).await.unwrap();
        assert!(matches!(store.create(task("c", TaskStatus::Working)).await, Err(TaskStoreError::Full(_))));
        assert!(store.update(task("a", TaskStatus::Completed)).await.unwrap());
        store.create(task("c", TaskStatus::Working)).await.unwrap();
        assert!(store.get("a").await.unwrap().is_none());
        assert_eq!(store.len(), 2);
    }

    #[tokio::test]
    async fn a_task_leaves_its_owners_list_when_it_leaves_the_store() {
        let store = MemoryTaskStore::new(2, 1 << 20);
        let ids = |owned: Option<OwnedTasks>| owned.unwrap().into_iter().map(|(_, id)| id).collect::<Vec<_>>();
        store.create(task("a", TaskStatus::Working)).await.unwrap();
        store.create(task("b", TaskStatus::Working)).await.unwrap();
        assert_eq!(store.own("s1", "a").await.unwrap(), Some(1));
        assert_eq!(store.own("s2", "b").await.unwrap(), Some(1));
        assert_eq!(store.own("s1", "gone").await.unwrap(), Some(1), "a task the store lacks is not noted");
        assert_eq!(ids(store.owned("s1", None, 10).await.unwrap()), ["a"]);
        // `a` ends and makes room for `c`: it leaves `s1`'s list with it.
        assert!(store.update(task("a", TaskStatus::Completed)).await.unwrap());
        store.create(task("c", TaskStatus::Working)).await.unwrap();
        store.own("s1", "c").await.unwrap();
        let owned = store.owned("s1", None, 10).await.unwrap().unwrap();
        assert_eq!(owned.iter().map(|(_, id)| id.as_str()).collect::<Vec<_>>(), ["c"]);
        assert!(store.owned("s1", Some(owned[0].0), 10).await.unwrap().unwrap().is_empty());
        store.disown("s2", &["b".to_owned()]).await.unwrap();
        assert!(ids(store.owned("s2", None, 10).await.unwrap()).is_empty());
    }

    #[tokio::test]
    async fn a_terminal_task_is_not_replaced() {
        let store = MemoryTaskStore::default();
        store.create(task("a", TaskStatus::Working)).await.unwrap();
        assert!(store.update(task("a", TaskStatus::Cancelled)).await.unwrap());
        assert!(!store.update(task("a", TaskStatus::Completed)).await.unwrap());
        assert_eq!(store.get("a").await.unwrap().unwrap().task.status, TaskStatus::Cancelled);
        assert!(!store.update(task("gone", TaskStatus::Completed)).await.unwrap());
    }
}
