//! Tasks from a [`TestClient`]: call a tool as a task, then follow it with
//! `tasks/get`, answer its questions with `tasks/update` and stop it with
//! `tasks/cancel`, through the client crate's tasks.

use mcp_core::task::DetailedTask;

use super::*;

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
        let called = self.client.call_as_task(name, arguments).await;
        self.settled(called)
    }

    /// The task as `tasks/get` shows it now.
    pub async fn get_task(&mut self, task_id: &str) -> Result<DetailedTask, ErrorObject> {
        let task = self.client.get_task(task_id).await;
        self.settled(task)
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
        let cancelled = self.client.cancel_task(task_id).await;
        self.settled(cancelled)
    }

    /// Poll the task until it ends, answering its questions on the way as
    /// this client answers the server's (its `on_elicit`, `on_sample`,
    /// `roots`); the task as it ended.
    pub async fn wait_task(&mut self, task_id: &str) -> Result<DetailedTask, ErrorObject> {
        let ended = self.client.wait_task(task_id).await;
        self.settled(ended)
    }

    /// Wait for the task to end ([`wait_task`](Self::wait_task)) and
    /// return its result, the one a direct call gives; a failed task's
    /// error and a cancelled task are `Err`.
    pub async fn finish_task(&mut self, task_id: &str) -> Result<CallToolResult, ErrorObject> {
        let finished = self.client.finish_task(task_id).await;
        self.settled(finished)
    }
}
