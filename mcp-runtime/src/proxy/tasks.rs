//! Tasks through a mount. A mounted tool keeps its upstream's task
//! support, and a call a client makes a task of this server runs here, in
//! this server's own tasks (see [`crate::tasks`]): the task's id is this
//! server's, bound to the client's authorization context and session like
//! any other, so no upstream id, and no other client's task, is ever in
//! reach; its limits (tasks per requestor, the store's bounds) and its
//! cancellation (`tasks/cancel`, the session's end) apply as to this
//! server's own tools. Relaying `tasks/*` to the upstream instead would
//! need a map of ids per client, with bounds and owners of its own, and
//! would hand the upstream's bindings (often none, for a pipe) to this
//! server's clients.
//!
//! The forwarded call inside the task is bounded by
//! [`Mount::task_timeout`](super::Mount::task_timeout), not
//! [`Mount::timeout`](super::Mount::timeout), once it is a task. Where the
//! upstream offers tasks and keeps no session, the call goes to it on a
//! connection that declares the tasks extension (opened on the first such
//! call), so the upstream may run it as a task of its own, which a tool
//! that requires tasks must; that task is followed with `tasks/get`,
//! its questions passed on to this task's client and answered with
//! `tasks/update`, and it is cancelled with `tasks/cancel` when this task
//! is. A call that is not a task here, of an upstream tool that turns out
//! to require tasks, is run the same way, within `Mount::timeout`.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_core::task::{DetailedTask, TaskStatus};
use mcp_core::{ErrorObject, JsonObject, codes, methods};
use mcp_runtime_client::{Client, Error as ClientError};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::link::{Link, ask};
use crate::request::{Context, FromRequest, RequestParts};

/// The shortest and longest wait between two polls of an upstream task,
/// whatever it suggests.
const POLL: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(5));

impl Link {
    /// Call the upstream's tool `name` (its `version`, if the call names
    /// one) with `arguments` for the request of `parts`: its result as the upstream's JSON text, its envelope still
    /// on (see [`own_envelope`](super::link::own_envelope)).
    pub(crate) async fn call_tool(
        self: &Arc<Self>,
        mut parts: RequestParts,
        name: &str,
        arguments: JsonObject,
        version: Option<&str>,
    ) -> Result<Box<RawValue>, ClientError> {
        let running = parts.task.clone();
        let ctx = Context::from_request(&mut parts).map_err(|_| ClientError::Transport("no context".into()))?;
        let mut params =
            JsonObject::from_iter([("name".into(), json!(name)), ("arguments".into(), Value::Object(arguments))]);
        if let Some(version) = version {
            params.insert("_meta".into(), json!({ crate::component::versions::META_KEY: version }));
        }
        let tasking = self.offers_tasks.load(Ordering::Relaxed) && !self.stateful.load(Ordering::Relaxed);
        if tasking && running.is_some() {
            let result = self.bounded_for(running.as_deref(), self.as_task(&ctx, params)).await?;
            return super::link::raw(&result);
        }
        // Kept for a second try only where one may come.
        let again = tasking.then(|| params.clone());
        match self.forward_raw_for(&ctx, running.as_deref(), methods::TOOLS_CALL, params).await {
            Err(ClientError::Server(e)) if e.code == codes::MISSING_CLIENT_CAPABILITY && names_tasks(&e) => {
                let Some(params) = again else { return Err(ClientError::Server(e)) };
                let result = self.bounded_for(running.as_deref(), self.as_task(&ctx, params)).await?;
                super::link::raw(&result)
            }
            answered => answered,
        }
    }

    /// The call on the connection that declares tasks, followed to its end
    /// if the upstream makes it a task.
    async fn as_task(self: &Arc<Self>, ctx: &Context, params: JsonObject) -> Result<Value, ClientError> {
        let (client, _) = self.tasking.client(self).await?;
        let _caller = self.tasking.enter(ctx.clone());
        let answered = self.relayed(ctx, client.forward(methods::TOOLS_CALL, params)).await;
        if let Err(ClientError::Closed(_) | ClientError::SessionExpired) = &answered {
            self.tasking.reset().await;
        }
        let answered = answered?;
        if answered.get("resultType").and_then(Value::as_str) != Some("task") {
            return Ok(super::link::own_envelope(answered));
        }
        let id = answered.get("taskId").and_then(Value::as_str).unwrap_or_default().to_owned();
        let mut cancel = CancelOnDrop { client: client.clone(), id: Some(id.clone()), bound: self.connect_timeout };
        let ended = self.follow(ctx, &client, &id, interval(&answered)).await;
        if matches!(&ended, Ok(_) | Err(ClientError::Server(_))) {
            // It ended there (or the upstream knows it no longer).
            cancel.id = None;
        }
        ended.map(super::link::own_envelope)
    }

    /// Poll the upstream's task `id` until it ends: its result, or its
    /// error. Its questions go to `ctx`'s client, each once.
    async fn follow(&self, ctx: &Context, client: &Client, id: &str, mut wait: Duration) -> Result<Value, ClientError> {
        let mut asked = BTreeSet::new();
        loop {
            tokio::time::sleep(wait).await;
            let got = client.forward(methods::TASKS_GET, json_object(json!({ "taskId": id })));
            let got = got.timeout(self.connect_timeout).await?;
            wait = interval(&got);
            let task: DetailedTask = serde_json::from_value(got)
                .map_err(|e| ClientError::Protocol(format!("`tasks/get` answered with no task: {e}")))?;
            match task.task.status {
                TaskStatus::Completed => return Ok(task.result.unwrap_or_else(|| json!({ "content": [] }))),
                TaskStatus::Failed => {
                    let why = task.task.status_message.unwrap_or_else(|| "its task failed".into());
                    return Err(ClientError::Server(
                        task.error.unwrap_or_else(|| ErrorObject::new(codes::INTERNAL_ERROR, why)),
                    ));
                }
                TaskStatus::Cancelled => {
                    let message = format!("the mounted server `{}` cancelled the call's task", self.label);
                    return Err(ClientError::Server(ErrorObject::new(codes::INTERNAL_ERROR, message)));
                }
                TaskStatus::InputRequired => {
                    let mut responses = Map::new();
                    for (key, request) in task.input_requests.unwrap_or_default() {
                        if !asked.insert(key.clone()) {
                            continue;
                        }
                        let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
                        let params = request.get("params").and_then(Value::as_object).cloned();
                        let answer = ask(ctx, method, params).await.map_err(ClientError::Server)?;
                        responses.insert(key, answer);
                    }
                    if !responses.is_empty() {
                        let update = json_object(json!({ "taskId": id, "inputResponses": responses }));
                        client.forward(methods::TASKS_UPDATE, update).timeout(self.connect_timeout).await?;
                    }
                }
                TaskStatus::Working => {}
            }
        }
    }
}

/// Whether a missing-capability error names the tasks extension: the
/// upstream's tool requires tasks.
fn names_tasks(error: &ErrorObject) -> bool {
    error.data.as_ref().is_some_and(|d| d.to_string().contains(mcp_core::task::EXTENSION))
        || error.message.contains(mcp_core::task::EXTENSION)
}

/// How long to wait before the next poll: what the task suggests, within
/// [`POLL`].
fn interval(task: &Value) -> Duration {
    let suggested = task.get("pollIntervalMs").and_then(Value::as_u64).map_or(POLL.0, Duration::from_millis);
    suggested.clamp(POLL.0, POLL.1)
}

fn json_object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

/// Cancels the upstream task `id` when dropped: this server's task was
/// cancelled (its future dropped), or ran past its bound.
struct CancelOnDrop {
    client: Client,
    id: Option<String>,
    bound: Duration,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let (client, bound) = (self.client.clone(), self.bound);
        // A drop cannot wait: the cancellation goes on its own, bounded.
        tokio::spawn(async move {
            let params = json_object(json!({ "taskId": id }));
            if let Err(error) = client.forward(methods::TASKS_CANCEL, params).timeout(bound).await {
                tracing::debug!(%error, "an upstream task could not be cancelled");
            }
        });
    }
}
