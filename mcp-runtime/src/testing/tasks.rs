//! Tasks from a [`TestClient`]: call a tool as a task, then follow it with
//! `tasks/get`, answer its questions with `tasks/update` and stop it with
//! `tasks/cancel`.

use std::time::Duration;

use mcp_core::task::{DetailedTask, Task, TaskStatus};

use super::*;

/// How the server answered [`TestClient::call_as_task`].
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskCall {
    /// The call became this task.
    Task(Task),
    /// It ended before it had to wait: the direct answer.
    Done(CallToolResult),
}

/// The longest a test client waits between two polls of a task, whatever
/// the server suggests: tests should not idle.
const MAX_POLL: Duration = Duration::from_millis(10);

impl TestClient {
    /// Call `name` as a task (the client must declare tasks:
    /// [`TestClientBuilder::tasks`]). A call that has to wait becomes a
    /// task; one that ends at once is answered directly.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::protocol::ProtocolVersion;
    /// use mcp_runtime::testing::{TaskCall, TestClient};
    ///
    /// /// Build the report.
    /// #[tool(task = "optional")]
    /// async fn report() -> String {
    ///     tokio::task::yield_now().await;
    ///     "done".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::empty("reports", "1").tool(report::Tool);
    /// let mut client =
    ///     TestClient::builder(server).version(ProtocolVersion::LATEST).tasks().connect().await.unwrap();
    /// let TaskCall::Task(task) = client.call_as_task("report", serde_json::json!({})).await.unwrap() else {
    ///     panic!("the report waits, so it is a task");
    /// };
    /// let result = client.finish_task(&task.task_id).await.unwrap();
    /// assert_eq!(result.content[0].as_text(), Some("done"));
    /// # }
    /// ```
    pub async fn call_as_task(&mut self, name: &str, arguments: Value) -> Result<TaskCall, ErrorObject> {
        let call = self.start_call(name, arguments).await;
        let result = self.rounds(methods::TOOLS_CALL, call.id, call.params).await?;
        if result.get("resultType").and_then(Value::as_str) == Some("task") {
            serde_json::from_value(result).map(TaskCall::Task).map_err(local_error)
        } else {
            serde_json::from_value(result).map(TaskCall::Done).map_err(local_error)
        }
    }

    /// The task as `tasks/get` shows it now.
    pub async fn get_task(&mut self, task_id: &str) -> Result<DetailedTask, ErrorObject> {
        let result = self.request(methods::TASKS_GET, json!({ "taskId": task_id })).await?;
        serde_json::from_value(result).map_err(local_error)
    }

    /// Answer the task's questions (`inputResponses`, by key).
    pub async fn update_task(
        &mut self,
        task_id: &str,
        responses: serde_json::Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        let params = json!({ "taskId": task_id, "inputResponses": responses });
        self.request(methods::TASKS_UPDATE, params).await.map(drop)
    }

    /// Cancel the task: its work stops, and it reads `cancelled`.
    pub async fn cancel_task(&mut self, task_id: &str) -> Result<(), ErrorObject> {
        self.request(methods::TASKS_CANCEL, json!({ "taskId": task_id })).await.map(drop)
    }

    /// Poll the task until it ends, answering its questions on the way as
    /// this client answers the server's (its `on_elicit`, `on_sample`,
    /// `roots`); the task as it ended.
    pub async fn wait_task(&mut self, task_id: &str) -> Result<DetailedTask, ErrorObject> {
        loop {
            let task = self.get_task(task_id).await?;
            match task.task.status {
                status if status.is_terminal() => return Ok(task),
                TaskStatus::InputRequired => {
                    let mut responses = serde_json::Map::new();
                    for (key, request) in task.input_requests.unwrap_or_default() {
                        let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
                        let params = request.get("params").cloned().unwrap_or_default();
                        responses.insert(key, self.answers.answer(method, params)?);
                    }
                    self.update_task(task_id, responses).await?;
                }
                _ => {
                    let suggested = Duration::from_millis(task.task.poll_interval_ms.unwrap_or(0));
                    tokio::time::sleep(suggested.min(MAX_POLL)).await;
                }
            }
        }
    }

    /// Wait for the task to end ([`wait_task`](Self::wait_task)) and
    /// return its result, the one a direct call gives; a failed task's
    /// error and a cancelled task are `Err`.
    pub async fn finish_task(&mut self, task_id: &str) -> Result<CallToolResult, ErrorObject> {
        let task = self.wait_task(task_id).await?;
        match (task.task.status, task.result, task.error) {
            (TaskStatus::Completed, Some(result), _) => serde_json::from_value(result).map_err(local_error),
            (_, _, Some(error)) => Err(error),
            (status, ..) => Err(local_error(format!("the task ended {} without a result", status.as_str()))),
        }
    }
}
