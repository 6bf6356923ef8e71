//! The task layer of the call pipeline: a call polled once where it was
//! read, and kept as a task running in the background if it has to wait
//! (before any poll when a 2025-11-25 client asked for the task), answered
//! with the `CreateTaskResult` of its client's flavour of tasks.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use mcp_core::ErrorObject;
use mcp_core::task::Task;
use serde::Serialize;
use serde_json::Value;

use super::{Binding, Running, Tasks};
use crate::dispatch::reply::{Answer, ResultBody};
use crate::middleware::Reply;

/// What the task layer needs for one call that may become a task.
pub(crate) struct Plan {
    pub(crate) tasks: Arc<Tasks>,
    pub(crate) running: Arc<Running>,
    /// The reply as a direct call would have been answered with it.
    pub(crate) result: Box<dyn FnOnce(Reply) -> Option<Value> + Send>,
    /// Set when a 2025-11-25 client asked for the task (`params.task`).
    pub(crate) asked: Option<Asked>,
    /// Who may follow the task.
    pub(crate) binding: Binding,
}

/// A task a 2025-11-25 client asked for: it is created before the call is
/// polled, whether or not the call would wait.
pub(crate) struct Asked {
    /// The lifetime it asked for, in milliseconds.
    pub(crate) ttl: Option<u64>,
    /// Its session, whose `tasks/list` shows the task.
    pub(crate) owner: Arc<str>,
}

/// `CreateTaskResult` of the extension: the task, flat, with
/// `resultType: "task"`.
#[derive(Serialize)]
pub(crate) struct CreateTaskResult(pub(crate) Task);

impl ResultBody for CreateTaskResult {
    const RESULT_TYPE: &'static str = "task";
    const TYPED_IN_EVERY_ERA: bool = true;
}

/// `CreateTaskResult` of 2025-11-25: `{"task": Task}`.
#[derive(Serialize)]
pub(crate) struct CoreCreateTaskResult {
    task: Value,
}

impl ResultBody for CoreCreateTaskResult {}

/// A created task, as its client's flavour of tasks answers it.
pub(crate) enum Created {
    Extension(CreateTaskResult),
    Core(CoreCreateTaskResult),
}

impl Created {
    pub(crate) fn answer(self, projection: &crate::dispatch::reply::Projection, id: mcp_core::RequestId) -> Answer {
        match self {
            Created::Extension(created) => projection.answer(id, created),
            Created::Core(created) => projection.answer(id, created),
        }
    }
}

/// How the task layer answered a call.
pub(crate) enum Detached {
    /// The call ended at its first poll (or stopped to ask): answer as usual.
    Now(Result<Reply, ErrorObject>),
    /// It runs on as this task.
    Task(Created),
}

/// The task layer: poll `call` once; if it must wait, keep it as a task
/// and run it on in the background. A task the client asked for is
/// created before any poll.
pub(crate) async fn detach<F>(plan: Plan, call: F) -> Detached
where
    F: Future<Output = Result<Reply, ErrorObject>> + Send + 'static,
{
    let mut call = Box::pin(call);
    if plan.asked.is_none()
        && let Poll::Ready(answered) = crate::dispatch::poll_once(&mut call).await
    {
        return Detached::Now(answered);
    }
    let Plan { tasks, running, result, asked, binding } = plan;
    let requestor = binding.key();
    if let Err(refused) = tasks.reserve(&requestor) {
        // As when the store is full: a client that asked for a task hears
        // why it gets none; a call the server chose to detach goes on as a
        // direct call, which holds no room in the store.
        if asked.is_some() {
            return Detached::Now(Err(refused));
        }
        return Detached::Now(call.await);
    }
    tasks.listen().await;
    let record = tasks.new_task(&binding, asked.as_ref().and_then(|a| a.ttl));
    let created = record.task.clone();
    if let Err(error) = tasks.store.create(record.clone()).await {
        tasks.running().release(&requestor);
        if asked.is_some() {
            // The client waits for a task; a direct answer would confuse it.
            let message = format!("the call could not become a task: {error}");
            return Detached::Now(Err(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, message)));
        }
        tracing::warn!(%error, "a call could not become a task; it goes on as a direct call");
        return Detached::Now(call.await);
    }
    tasks.changed.notify_waiters();
    let id = created.task_id.clone();
    if let Some(asked) = &asked {
        tasks.own(&asked.owner, &id).await;
    }
    running.became(tasks.clone(), record);
    tasks.running().tasks.insert(id.clone(), (running.clone(), requestor));
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
    Detached::Task(match asked {
        None => Created::Extension(CreateTaskResult(created)),
        Some(_) => Created::Core(CoreCreateTaskResult { task: created.for_2025_11_25(false) }),
    })
}
