//! The tasks extension's methods: `tasks/get` (the task, with its result,
//! error or questions), `tasks/update` (answers to its questions) and
//! `tasks/cancel`. Each needs the client to have declared the extension,
//! and each unknown task id gets `-32602`.

use std::sync::Arc;

use mcp_core::task::{self, DetailedTask, TaskIdParams, TaskStatus, UpdateTaskParams};
use mcp_core::{ErrorObject, JsonObject};

use super::{TaskSignal, Tasks};
use crate::dispatch::reply::{Answer, Empty, Projection};
use crate::dispatch::{Action, Incoming, parse};
use crate::request::context::Cancellation;

impl crate::dispatch::reply::ResultBody for DetailedTask {}

/// The server's tasks, for a client that declared the extension.
fn tasks(request: &Incoming<'_>) -> Result<Arc<Tasks>, ErrorObject> {
    if !request.peer.declared(&format!("extensions.{}", task::EXTENSION)) {
        return Err(mcp_core::envelope::missing_capability(task::required_capabilities()));
    }
    Ok(request.shared().tasks.clone())
}

fn unknown(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("no task `{id}`: it never existed here, or it expired"))
}

/// Run `work` as the request's call: the store may be remote.
fn call<F>(request: &Incoming<'_>, work: F) -> Action
where
    F: Future<Output = Result<Answer, ErrorObject>> + Send + 'static,
{
    let id = request.id.clone();
    let answer_id = id.clone();
    let run = async move { work.await.unwrap_or_else(|error| Answer::error(Some(answer_id), error)) };
    Action::Call(id, Box::pin(run), Cancellation::default())
}

async fn find(tasks: &Tasks, id: &str) -> Result<DetailedTask, ErrorObject> {
    match tasks.store.get(id).await {
        Ok(Some(task)) => Ok(task),
        Ok(None) => Err(unknown(id)),
        Err(error) => Err(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, error.to_string())),
    }
}

pub(crate) fn get(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let tasks = tasks(request)?;
    let TaskIdParams { task_id, .. } = parse(params)?;
    let (id, projection) = (request.id.clone(), request.projection.clone());
    Ok(call(request, async move { Ok(projection.answer(id, find(&tasks, &task_id).await?)) }))
}

pub(crate) fn update(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let tasks = tasks(request)?;
    let UpdateTaskParams { task_id, input_responses, .. } = parse(params)?;
    let (id, projection) = (request.id.clone(), request.projection.clone());
    Ok(call(request, async move {
        let task = find(&tasks, &task_id).await?;
        // Answers for an ended task are ignored: the extension acknowledges
        // every update of a known task. One running elsewhere gets them
        // from the replica running it.
        if let Some(running) = tasks.local(&task_id) {
            running.answer(input_responses).await;
        } else if !task.task.status.is_terminal() {
            pass_on(&tasks, TaskSignal::Answer { task_id, responses: input_responses }).await;
        }
        Ok(acknowledged(&projection, id))
    }))
}

pub(crate) fn cancel(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let tasks = tasks(request)?;
    let TaskIdParams { task_id, .. } = parse(params)?;
    let (id, projection) = (request.id.clone(), request.projection.clone());
    Ok(call(request, async move {
        let mut task = find(&tasks, &task_id).await?;
        if !task.task.status.is_terminal() {
            task.task.status = TaskStatus::Cancelled;
            task.task.status_message = Some("cancelled by the client".into());
            task.task.last_updated_at = super::now();
            task.input_requests = None;
            tasks.write(task).await;
            if let Some(running) = tasks.local(&task_id) {
                running.stop();
                tasks.forget(&task_id);
            } else {
                pass_on(&tasks, TaskSignal::Cancel { task_id }).await;
            }
        }
        Ok(acknowledged(&projection, id))
    }))
}

/// Tell the replica running the task; a failure is logged (a cancelled
/// task learns it anyway at its next write, which the store refuses).
async fn pass_on(tasks: &Tasks, signal: TaskSignal) {
    if let Err(error) = tasks.store.signal(signal).await {
        tracing::warn!(%error, "a task's update or cancellation could not reach the replica running it");
    }
}

/// `{resultType: "complete"}`, and nothing of the task.
fn acknowledged(projection: &Projection, id: mcp_core::RequestId) -> Answer {
    projection.answer(id, Typed(Empty {}))
}

/// An empty result that says `resultType: "complete"` in every era, as the
/// extension's acknowledgements do.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct Typed(Empty);

impl crate::dispatch::reply::ResultBody for Typed {
    const TYPED_IN_EVERY_ERA: bool = true;
}
