//! Tasks from the client: call a tool as a task, follow it, cancel it,
//! list them, and wait for its result.
//!
//! Two wire shapes carry the one mechanism, as the server speaks them (see
//! the runtime's `tasks` module):
//!
//! - **The tasks extension** (`io.modelcontextprotocol/tasks`), for a
//!   client that declared it ([`ClientBuilder::tasks`](crate::ClientBuilder::tasks)),
//!   in any version: the server decides which calls become tasks (a call
//!   answers `resultType: "task"` and the task, flat); `tasks/get` shows
//!   the task with its result, error or questions; `tasks/update` answers
//!   the questions; `tasks/cancel` is acknowledged with nothing.
//! - **2025-11-25's core tasks**, for a client of that version that did
//!   not declare the extension: the client asks for a task
//!   (`params.task`), the answer is `{"task": …}` with `ttl` and
//!   `pollInterval`; `tasks/result` waits for the end and answers what the
//!   call would have; `tasks/list` pages the session's tasks; questions
//!   come as the server's requests, answered by the client's handlers.
//!
//! Each call here picks the shape from what was declared and negotiated,
//! and gives the same types back ([`Task`], [`DetailedTask`],
//! [`CallToolResult`]) whichever it is.

use std::borrow::Cow;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use mcp_core::task::{DetailedTask, EXTENSION, Task, TaskStatus};
use mcp_core::{CallToolResult, ProtocolVersion, methods};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::api::{typed, value};
use crate::params::Params;
use crate::{Client, Error};

/// The shortest wait between two polls of a task, whatever the server
/// suggests: a server that says `0` is not asked in a busy loop.
const MIN_POLL: Duration = Duration::from_millis(10);
/// The longest, for a server that suggests none or an unreasonable one.
const MAX_POLL: Duration = Duration::from_secs(30);
/// The wait between polls when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// How the server answered [`Client::call_as_task`]: a call either became
/// a task or was answered, so the two are all there is.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskCall {
    /// The call became this task: follow it with [`Client::get_task`],
    /// [`Client::finish_task`] or [`Client::cancel_task`].
    Task(Task),
    /// It was answered directly: the extension's server made no task of a
    /// call that ended at once, or the tool does not support tasks.
    Done(CallToolResult),
}

/// Which wire shape of tasks a client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Extension,
    Core,
}

impl Client {
    fn task_shape(&self) -> Shape {
        let declared = self.session.capabilities().other.get("extensions").and_then(|e| e.get(EXTENSION)).is_some();
        if !declared && self.negotiated().version == ProtocolVersion::V2025_11_25.as_str() {
            Shape::Core
        } else {
            Shape::Extension
        }
    }

    /// Call the tool `name` as a task. In 2025-11-25 (without the
    /// extension) the call asks for one (`params.task`); with the tasks
    /// extension the server decides, and a call that ends at once is
    /// answered directly ([`TaskCall::Done`]).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// use mcp_runtime_client::TaskCall;
    ///
    /// match client.call_as_task("report", serde_json::json!({ "year": 2025 })).await? {
    ///     TaskCall::Task(task) => println!("task {} is {}", task.task_id, task.status.as_str()),
    ///     TaskCall::Done(result) => println!("answered at once: {:?}", result.content),
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn call_as_task(&self, name: &str, arguments: impl Serialize) -> Result<TaskCall, Error> {
        let mut params = Params::tool_call(name, arguments)?;
        if self.task_shape() == Shape::Core {
            params.members().insert("task".into(), json!({}));
        }
        let result = self.forward_params(Cow::Borrowed(methods::TOOLS_CALL), params).send().await?;
        created(&result)
    }

    /// The task as the server shows it now (`tasks/get`): with the
    /// extension, its result once completed, its error once failed and its
    /// questions while it waits for input; in 2025-11-25, the task alone.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// let task = client.get_task("a-task-id").await?;
    /// println!("{}: {:?}", task.task.status.as_str(), task.task.status_message);
    /// # Ok(()) }
    /// ```
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, Error> {
        let result = self.request_text(methods::TASKS_GET, json!({ "taskId": task_id })).await?;
        match self.task_shape() {
            Shape::Extension => typed(&result),
            Shape::Core => {
                let task = Task::from_2025_11_25(value(&result)?)
                    .map_err(|e| Error::protocol(format!("tasks/get's task: {e}")))?;
                Ok(DetailedTask { task, result: None, error: None, input_requests: None })
            }
        }
    }

    /// The task's result once it ends: in 2025-11-25 `tasks/result`, which
    /// the server answers when the task ends (within the client's timeout,
    /// as any request); with the extension, `tasks/get` polled until then.
    /// A tool's error result is `Ok` with `is_error`, as a direct call's; a
    /// task that failed is [`Error::Server`] with its error, and one
    /// cancelled is [`Error::Cancelled`].
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// let result = client.task_result("a-task-id").await?;
    /// println!("{:?}", result.content);
    /// # Ok(()) }
    /// ```
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, Error> {
        match self.task_shape() {
            Shape::Core => {
                let result = self.request_text(methods::TASKS_RESULT, json!({ "taskId": task_id })).await?;
                typed(&result)
            }
            Shape::Extension => self.finish_task(task_id).await,
        }
    }

    /// Cancel the task (`tasks/cancel`): its work stops, and it reads
    /// `cancelled`. In 2025-11-25 a task that has ended already cannot be
    /// cancelled (the server refuses with `-32602`).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// client.cancel_task("a-task-id").await?;
    /// # Ok(()) }
    /// ```
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), Error> {
        self.request_text(methods::TASKS_CANCEL, json!({ "taskId": task_id })).await.map(drop)
    }

    /// The tasks of this session the server still keeps (`tasks/list`,
    /// every page, within the client's list bounds:
    /// [`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages)
    /// and [`max_list_items`](crate::ClientBuilder::max_list_items)).
    /// 2025-11-25's core tasks have it; the extension does not (the server
    /// refuses with `-32601`).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// for task in client.list_tasks().await? {
    ///     println!("{} {}", task.task_id, task.status.as_str());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list_tasks(&self) -> Result<Vec<Task>, Error> {
        let tasks: Vec<Value> = self.list_all(methods::TASKS_LIST, "tasks").await?;
        tasks
            .into_iter()
            .map(|task| Task::from_2025_11_25(task).map_err(|e| Error::protocol(format!("tasks/list's task: {e}"))))
            .collect()
    }

    /// Follow the task until it ends, and the task as it ended. It is
    /// polled as often as the server suggests (`pollInterval`), sooner when
    /// the server says its status changed (`notifications/tasks/status`);
    /// an extension task's questions are answered on the way by the
    /// client's handlers ([`ClientBuilder::on_elicitation`](crate::ClientBuilder::on_elicitation)
    /// and the others). Each poll is bounded by the client's timeout, the
    /// whole is not: drop the future to stop waiting (the task goes on).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// let ended = client.wait_task("a-task-id").await?;
    /// assert!(ended.task.status.is_terminal());
    /// # Ok(()) }
    /// ```
    pub async fn wait_task(&self, task_id: &str) -> Result<DetailedTask, Error> {
        // Listened to before the first look, so no change is missed.
        let mut changes = Box::pin(self.notifications());
        loop {
            let task = self.get_task(task_id).await?;
            match task.task.status {
                status if status.is_terminal() => return Ok(task),
                TaskStatus::InputRequired if task.input_requests.is_some() => {
                    self.answer_task(task_id, task.input_requests.unwrap_or_default()).await?;
                }
                _ => {
                    let suggested = task.task.poll_interval_ms.map_or(DEFAULT_POLL, Duration::from_millis);
                    let wait = suggested.clamp(MIN_POLL, MAX_POLL);
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = status_changed(&mut changes, task_id) => {}
                    }
                }
            }
        }
    }

    /// Wait for the task to end ([`wait_task`](Self::wait_task)) and give
    /// its result, as [`task_result`](Self::task_result) reads it.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// let result = client.finish_task("a-task-id").await?;
    /// println!("{:?}", result.content);
    /// # Ok(()) }
    /// ```
    pub async fn finish_task(&self, task_id: &str) -> Result<CallToolResult, Error> {
        let ended = self.wait_task(task_id).await?;
        let status = ended.task.status;
        match (self.task_shape(), status, ended.result, ended.error) {
            (_, TaskStatus::Cancelled, ..) => Err(Error::Cancelled(format!(
                "task `{task_id}` was cancelled: {}",
                ended.task.status_message.as_deref().unwrap_or("no reason given")
            ))),
            (Shape::Core, ..) => {
                let result = self.request_text(methods::TASKS_RESULT, json!({ "taskId": task_id })).await?;
                typed(&result)
            }
            (Shape::Extension, _, Some(result), _) => {
                serde_json::from_value(result).map_err(|e| Error::protocol(format!("the task's result: {e}")))
            }
            (Shape::Extension, _, None, Some(error)) => Err(Error::Server(error)),
            (Shape::Extension, status, None, None) => Err(Error::protocol(format!(
                "task `{task_id}` ended {} with neither result nor error",
                status.as_str()
            ))),
        }
    }

    /// Call the tool `name` as a task, wait for it, and give its result: a
    /// long call that holds no request open while it runs. Dropped before
    /// the end, the task is cancelled.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// let result = client.run_as_task("report", serde_json::json!({ "year": 2025 })).await?;
    /// println!("{:?}", result.content);
    /// # Ok(()) }
    /// ```
    pub async fn run_as_task(&self, name: &str, arguments: impl Serialize) -> Result<CallToolResult, Error> {
        match self.call_as_task(name, arguments).await? {
            TaskCall::Done(result) => Ok(result),
            TaskCall::Task(task) => self.follow(&task.task_id).await,
        }
    }

    /// [`finish_task`](Self::finish_task), the task cancelled if this is
    /// dropped before it ends: for a task the client started itself.
    pub(crate) async fn follow(&self, task_id: &str) -> Result<CallToolResult, Error> {
        let mut guard = CancelOnDrop { client: Some(self.clone()), task_id: task_id.to_owned() };
        let result = self.finish_task(task_id).await;
        guard.client = None;
        result
    }

    /// Answer an extension task's questions with the client's handlers
    /// (`tasks/update`).
    async fn answer_task(&self, task_id: &str, questions: Map<String, Value>) -> Result<(), Error> {
        let mut responses = Map::new();
        for (key, question) in questions {
            let method = question.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
            let params = question.get("params").and_then(Value::as_object).cloned();
            let answer = self.session.handlers.answer(&method, params).await.map_err(|error| {
                Error::protocol(format!("task `{task_id}` asked for input ({method}) the client cannot give: {error}"))
            })?;
            responses.insert(key, answer);
        }
        let params = json!({ "taskId": task_id, "inputResponses": responses });
        self.request_text(methods::TASKS_UPDATE, params).await.map(drop)
    }
}

/// Resolves when the server says task `task_id`'s status changed (never,
/// once the notifications end).
async fn status_changed(changes: &mut (impl Stream<Item = mcp_core::Notification> + Unpin), task_id: &str) {
    while let Some(notification) = changes.next().await {
        let about = notification.params.as_ref().and_then(|p| p.get("taskId")).and_then(Value::as_str);
        if notification.method == methods::TASKS_STATUS && about == Some(task_id) {
            return;
        }
    }
    std::future::pending().await
}

/// A call's answer as [`TaskCall`]: a task in either shape, or the result.
pub(crate) fn created(result: &RawValue) -> Result<TaskCall, Error> {
    // A tool's result says neither `task` nor `resultType: "task"`: most
    // are read once, straight into their type.
    if !result.get().contains("task") && !result.get().contains("\\u") {
        return typed(result).map(TaskCall::Done);
    }
    let mut result = value(result)?;
    let shape = |e: serde_json::Error| Error::protocol(format!("the created task: {e}"));
    if let Some(task) = result.get_mut("task").filter(|t| t.is_object()).map(Value::take) {
        return Task::from_2025_11_25(task).map(TaskCall::Task).map_err(shape);
    }
    if result.get("resultType").and_then(Value::as_str) == Some("task") {
        return serde_json::from_value(result).map(TaskCall::Task).map_err(shape);
    }
    serde_json::from_value(result).map(TaskCall::Done).map_err(|e| Error::protocol(format!("the result: {e}")))
}

/// Cancels a task the client started when its follower is dropped before
/// the end (a caller that stopped waiting, a timeout).
struct CancelOnDrop {
    client: Option<Client>,
    task_id: String,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else { return };
        let task_id = std::mem::take(&mut self.task_id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(error) = client.cancel_task(&task_id).await {
                    tracing::debug!(%error, task_id, "cancelling a task no one waits for failed");
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> TaskCall {
        created(&RawValue::from_string(text.to_owned()).unwrap()).unwrap()
    }

    #[test]
    fn a_call_answers_a_task_in_either_shape_or_its_result() {
        let times = r#""createdAt":"a","lastUpdatedAt":"b""#;
        let core = read(&format!(r#"{{"task":{{"taskId":"c","status":"working",{times},"ttl":5,"pollInterval":7}}}}"#));
        let TaskCall::Task(core) = core else { panic!("{core:?}") };
        assert_eq!((core.task_id.as_str(), core.ttl_ms, core.poll_interval_ms), ("c", Some(5), Some(7)));
        let extension = read(&format!(r#"{{"resultType":"task","taskId":"e","status":"working",{times},"ttlMs":5}}"#));
        let TaskCall::Task(extension) = extension else { panic!("{extension:?}") };
        assert_eq!((extension.task_id.as_str(), extension.ttl_ms), ("e", Some(5)));
        let done = read(r#"{"content":[{"type":"text","text":"a task"}]}"#);
        assert!(matches!(&done, TaskCall::Done(result) if result.content[0].as_text() == Some("a task")), "{done:?}");
    }
}
