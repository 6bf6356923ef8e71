//! The tasks methods. The extension's: `tasks/get` (the task, with its
//! result, error or questions), `tasks/update` (answers to its questions)
//! and `tasks/cancel`, each for a client that declared the extension.
//! 2025-11-25's, for a client of that version without it: `tasks/get` and
//! `tasks/cancel` (the bare task), `tasks/result` (what the call would have
//! answered, once it ends) and `tasks/list` (the session's tasks). Each
//! unknown task id gets `-32602`, and so does the id of another
//! requestor's task (see [`Binding`]), with the same message: nothing
//! tells a stranger the task exists.

use std::sync::Arc;

use mcp_core::task::{self, DetailedTask, TaskIdParams, TaskStatus, UpdateTaskParams};
use mcp_core::{ErrorObject, JsonObject, ListToolsParams};
use serde_json::Value;

use super::{Binding, Flavour, TaskSignal, Tasks};
use crate::dispatch::reply::{Answer, Empty, Projection};
use crate::dispatch::{Action, Incoming, parse};
use crate::request::context::Cancellation;

impl crate::dispatch::reply::ResultBody for DetailedTask {}

/// The server's tasks, for a client that has them, and which.
fn tasks(request: &Incoming<'_>) -> Result<(Arc<Tasks>, Flavour), ErrorObject> {
    match Flavour::of(request) {
        Some(flavour) => Ok((request.shared().tasks.clone(), flavour)),
        None => Err(mcp_core::envelope::missing_capability(task::required_capabilities())),
    }
}

/// The server's tasks, for a 2025-11-25 client: the methods only that
/// version has.
fn core_tasks(request: &Incoming<'_>) -> Result<Arc<Tasks>, ErrorObject> {
    match tasks(request)? {
        (tasks, Flavour::Core) => Ok(tasks),
        (_, Flavour::Extension) => Err(ErrorObject::new(
            mcp_core::codes::METHOD_NOT_FOUND,
            "method not found: the tasks extension has no such method (2025-11-25's tasks have it)",
        )),
    }
}

/// A 2025-11-25 task, as `tasks/get` and `tasks/cancel` answer it.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct CoreTask(Value);

impl crate::dispatch::reply::ResultBody for CoreTask {}

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

/// The task `id`, if it is `binding`'s: another's is not looked for.
async fn find(tasks: &Tasks, binding: &Binding, id: &str) -> Result<DetailedTask, ErrorObject> {
    if !binding.admits(id) {
        return Err(unknown(id));
    }
    match tasks.store.get(id).await {
        Ok(Some(task)) => Ok(task),
        Ok(None) => Err(unknown(id)),
        Err(error) => Err(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, error.to_string())),
    }
}

pub(crate) fn get(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let (tasks, flavour) = tasks(request)?;
    let TaskIdParams { task_id, .. } = parse(params)?;
    let (id, projection, binding) = (request.id.clone(), request.projection.clone(), Binding::of(request));
    Ok(call(request, async move {
        let task = find(&tasks, &binding, &task_id).await?;
        Ok(match flavour {
            Flavour::Extension => projection.answer(id, task),
            Flavour::Core => projection.answer(id, CoreTask(task.for_2025_11_25())),
        })
    }))
}

/// `tasks/result` (2025-11-25): once the task ends, exactly what the call
/// would have answered (its result, with the task's id in `_meta`, or its
/// error); until then it waits.
pub(crate) fn result(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let tasks = core_tasks(request)?;
    let TaskIdParams { task_id, .. } = parse(params)?;
    let (id, projection, binding) = (request.id.clone(), request.projection.clone(), Binding::of(request));
    Ok(call(request, async move {
        loop {
            // Registered before the read, so a write between the two wakes it.
            let changed = tasks.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let task = find(&tasks, &binding, &task_id).await?;
            match task.task.status {
                TaskStatus::Completed => {
                    let mut result = task.result.unwrap_or_else(|| Value::Object(JsonObject::new()));
                    if let Some(object) = result.as_object_mut() {
                        let meta = object.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
                        if let Some(meta) = meta.as_object_mut() {
                            meta.extend(task::related_task_meta(&task_id));
                        }
                    }
                    return Ok(projection.answer(id, CoreTask(result)));
                }
                TaskStatus::Failed => {
                    let error = task.error.unwrap_or_else(ErrorObject::internal_error);
                    return Ok(Answer::error(Some(id), error));
                }
                TaskStatus::Cancelled => {
                    let message = format!("task `{task_id}` was cancelled before it ended");
                    return Ok(Answer::error(Some(id), ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, message)));
                }
                TaskStatus::Working | TaskStatus::InputRequired => {
                    // A task running on another replica writes to the shared
                    // store, which wakes no one here: poll it.
                    let _ = tokio::time::timeout(tasks.poll_interval, changed).await;
                }
            }
        }
    }))
}

/// How many tasks one page of `tasks/list` holds.
const LIST_PAGE: usize = 100;

/// `tasks/list` (2025-11-25): the tasks this session created and the
/// store still keeps, oldest first, a page at a time. The cursor is the
/// position of the last task of the page before, which does not move when
/// tasks before it go.
pub(crate) fn list(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let tasks = core_tasks(request)?;
    let ListToolsParams { cursor, .. } = parse(params)?;
    let after = match cursor {
        None => None,
        Some(cursor) => {
            Some(cursor.parse::<u64>().map_err(|_| ErrorObject::invalid_params(format!("unknown cursor `{cursor}`")))?)
        }
    };
    let owner = request.session.owner();
    let (id, projection, binding) = (request.id.clone(), request.projection.clone(), Binding::of(request));
    let unavailable =
        |error: super::TaskStoreError| ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, error.to_string());
    Ok(call(request, async move {
        // One more than a page, to know whether another follows.
        let owned = tasks.owned(&owner, after, LIST_PAGE + 1).await.map_err(unavailable)?;
        let more = owned.len() > LIST_PAGE;
        let (mut page, mut gone) = (Vec::new(), Vec::new());
        for (_, task_id) in owned.iter().take(LIST_PAGE) {
            // The session's own tasks are its binding's; this only makes
            // sure, should a list and a binding ever disagree.
            if !binding.admits(task_id) {
                continue;
            }
            match tasks.store.get(task_id).await.map_err(unavailable)? {
                Some(task) => page.push(task.for_2025_11_25()),
                None => gone.push(task_id.clone()),
            }
        }
        let next_cursor = more.then(|| owned[LIST_PAGE - 1].0.to_string());
        // Expired tasks leave the list.
        tasks.disown(&owner, &gone).await;
        Ok(projection.answer(id, TaskList { tasks: page, next_cursor }))
    }))
}

/// `ListTasksResult`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskList {
    tasks: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

impl crate::dispatch::reply::ResultBody for TaskList {}

pub(crate) fn update(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let (tasks, flavour) = tasks(request)?;
    if flavour == Flavour::Core {
        // 2025-11-25's tasks ask their questions as requests to the client.
        return Err(ErrorObject::new(
            mcp_core::codes::METHOD_NOT_FOUND,
            "method not found: tasks/update belongs to the tasks extension, which this client did not declare",
        ));
    }
    let UpdateTaskParams { task_id, input_responses, .. } = parse(params)?;
    let (id, projection, binding) = (request.id.clone(), request.projection.clone(), Binding::of(request));
    Ok(call(request, async move {
        let task = find(&tasks, &binding, &task_id).await?;
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

/// `tasks/cancel`: the extension acknowledges any known task; 2025-11-25
/// refuses to cancel an ended one (`-32602`) and answers with the task,
/// cancelled.
pub(crate) fn cancel(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let (tasks, flavour) = tasks(request)?;
    let TaskIdParams { task_id, .. } = parse(params)?;
    let (id, projection, binding) = (request.id.clone(), request.projection.clone(), Binding::of(request));
    Ok(call(request, async move {
        let mut task = find(&tasks, &binding, &task_id).await?;
        if flavour == Flavour::Core && task.task.status.is_terminal() {
            let status = task.for_2025_11_25()["status"].as_str().unwrap_or_default().to_owned();
            return Err(ErrorObject::invalid_params(format!(
                "task `{task_id}` has ended ({status}): it cannot be cancelled"
            )));
        }
        if !task.task.status.is_terminal() {
            super::cancelled(&mut task, "cancelled by the client");
            tasks.write(task.clone()).await;
            if let Some(running) = tasks.local(&task_id) {
                running.stop();
                tasks.forget(&task_id);
            } else {
                pass_on(&tasks, TaskSignal::Cancel { task_id }).await;
            }
        }
        Ok(match flavour {
            Flavour::Extension => acknowledged(&projection, id),
            Flavour::Core => projection.answer(id, CoreTask(task.for_2025_11_25())),
        })
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
