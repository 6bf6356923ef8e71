//! Tasks (the `io.modelcontextprotocol/tasks` extension): a call of a tool
//! that supports them, from a client that declared the extension, runs in
//! the background once it has to wait, and the call answers at once with
//! a task the client follows with `tasks/get`.
//!
//! A task is one layer of the call pipeline (see the runtime's `invoke`
//! module), outside the user's middleware: it polls the rest once where
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
//! that does.

pub(crate) mod methods;
#[cfg(feature = "redis")]
mod redis;
pub(crate) mod running;
mod store;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use std::task::Poll;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use mcp_core::ErrorObject;
use mcp_core::task::{DetailedTask, Task, TaskStatus};
use serde::Serialize;
use serde_json::Value;

#[cfg(feature = "redis")]
pub(crate) use redis::Leases;
pub use store::{MemoryTaskStore, TaskSignal, TaskStore, TaskStoreError};

use crate::dispatch::reply::ResultBody;
use crate::middleware::Reply;
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
    /// task once it has to wait; other clients get the result directly.
    Optional,
    /// Only clients that declared the tasks extension may call it; others
    /// get `-32021` (missing client capability) naming the extension.
    Required,
}

/// The server's tasks: where they are kept, how long, and the ones running
/// on this replica.
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    /// How long a finished task is kept.
    pub(crate) ttl: Duration,
    /// How often clients are told to poll.
    pub(crate) poll_interval: Duration,
    running: Mutex<HashMap<String, Arc<Running>>>,
    /// Set once this replica listens for other replicas' signals.
    listening: tokio::sync::OnceCell<()>,
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, ttl: Duration, poll_interval: Duration) -> Tasks {
        Tasks { store, ttl, poll_interval, running: Mutex::default(), listening: tokio::sync::OnceCell::new() }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Running>>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The task `id`, if it runs on this replica.
    pub(crate) fn local(&self, id: &str) -> Option<Arc<Running>> {
        self.running().get(id).cloned()
    }

    fn forget(&self, id: &str) {
        self.running().remove(id);
    }

    /// Write `task` to the store; a failure is logged (the task goes on,
    /// and the next write may succeed). `false` when the store refused it:
    /// the task ended already (cancelled through another replica) or is
    /// gone.
    async fn write(&self, task: DetailedTask) -> bool {
        match self.store.update(task).await {
            Ok(kept) => kept,
            Err(error) => {
                tracing::warn!(%error, "a task's state could not be written to the task store");
                true
            }
        }
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

    /// A new task, working.
    fn new_task(&self) -> DetailedTask {
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).expect("the operating system's random number generator failed");
        let now = now();
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let task = Task {
            task_id: id.iter().map(|b| format!("{b:02x}")).collect(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms: Some(millis(self.ttl).max(1)),
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

/// Now, as tasks' timestamps say it.
fn now() -> String {
    let millis = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis();
    mcp_core::task::timestamp(u64::try_from(millis).unwrap_or(u64::MAX))
}

/// What the task layer needs for one call that may become a task.
pub(crate) struct Plan {
    pub(crate) tasks: Arc<Tasks>,
    pub(crate) running: Arc<Running>,
    /// The reply as a direct call would have been answered with it.
    pub(crate) result: Box<dyn FnOnce(Reply) -> Option<Value> + Send>,
}

/// `CreateTaskResult`: the task, flat, with `resultType: "task"`.
#[derive(Serialize)]
pub(crate) struct CreateTaskResult(pub(crate) Task);

impl ResultBody for CreateTaskResult {
    const RESULT_TYPE: &'static str = "task";
    const TYPED_IN_EVERY_ERA: bool = true;
}

/// How the task layer answered a call.
pub(crate) enum Detached {
    /// The call ended at its first poll (or stopped to ask): answer as usual.
    Now(Result<Reply, ErrorObject>),
    /// It runs on as this task.
    Task(CreateTaskResult),
}

/// The task layer: poll `call` once; if it must wait, keep it as a task
/// and run it on in the background.
pub(crate) async fn detach<F>(plan: Plan, call: F) -> Detached
where
    F: Future<Output = Result<Reply, ErrorObject>> + Send + 'static,
{
    let mut call = Box::pin(call);
    if let Poll::Ready(answered) = crate::dispatch::poll_once(&mut call).await {
        return Detached::Now(answered);
    }
    let Plan { tasks, running, result } = plan;
    tasks.listen().await;
    let record = tasks.new_task();
    let created = record.task.clone();
    if let Err(error) = tasks.store.create(record.clone()).await {
        tracing::warn!(%error, "a call could not become a task; it goes on as a direct call");
        return Detached::Now(call.await);
    }
    let id = created.task_id.clone();
    running.became(tasks.clone(), record);
    tasks.running().insert(id.clone(), running.clone());
    // Questions asked in the first poll (handshake versions have no rounds).
    running.publish().await;
    let work = running.clone();
    let handle = tokio::spawn(async move {
        let answered = call.await;
        let outcome = match (work.failure.get(), answered) {
            (Some(failure), _) => Err(failure.clone()),
            (None, Ok(reply)) => result(reply).ok_or_else(ErrorObject::internal_error),
            (None, Err(error)) => Err(error),
        };
        work.end(outcome).await;
    });
    let _ = running.abort.set(handle.abort_handle());
    Detached::Task(CreateTaskResult(created))
}
