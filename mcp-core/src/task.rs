//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a
//! request the server chose to run in the background answers with a task
//! handle, and the client follows it with `tasks/get`, answers its
//! questions with `tasks/update` and stops it with `tasks/cancel`.
//!
//! 2025-11-25 had tasks in the core protocol (SEP-1686), asked for by the
//! client (`params.task`) and shaped differently on the wire: the same
//! [`Task`] is sent as [`Task::for_2025_11_25`] shows it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::jsonrpc::{ErrorObject, JsonObject};

/// The extension's name, under `capabilities.extensions` on both sides.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The capabilities a client must declare for tasks, as `-32021` names
/// them: `{"extensions": {"io.modelcontextprotocol/tasks": {}}}`.
pub fn required_capabilities() -> Value {
    json!({ "extensions": { EXTENSION: {} } })
}

/// The `_meta` key that ties a 2025-11-25 message (a `tasks/result`
/// answer, a question asked for a task) to its task: `{"taskId": …}`.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// `params.task` of a 2025-11-25 task-augmented request: the client asks
/// for a task, and may say how long it wants it kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMetadata {
    /// How long after its creation to keep the task, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// What a 2025-11-25 server with task tools declares as
/// `capabilities.tasks`: `tasks/list`, `tasks/cancel` and task-augmented
/// `tools/call`.
pub fn capability_2025_11_25() -> Value {
    json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
}

/// `{"io.modelcontextprotocol/related-task": {"taskId": id}}`.
pub fn related_task_meta(task_id: &str) -> JsonObject {
    let mut meta = JsonObject::new();
    meta.insert(RELATED_TASK.into(), json!({ "taskId": task_id }));
    meta
}

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client's answers (`inputRequests` on `tasks/get`).
    InputRequired,
    /// Finished with a result (a tool's error result too).
    Completed,
    /// Ended by a protocol-level error (`error` on `tasks/get`).
    Failed,
    /// Stopped by `tasks/cancel`.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended for good.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// The status as the wire spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// A task as every tasks result shows it. `CreateTaskResult` is this,
/// flat, with `resultType: "task"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The server's id for it.
    pub task_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// Why it is there, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When its status last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long after it was created the server keeps it, in milliseconds.
    pub ttl_ms: Option<u64>,
    /// How often the server suggests polling it, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// The task as 2025-11-25 sends it (`Task` of that schema): `ttl` and
    /// `pollInterval` for `ttlMs` and `pollIntervalMs`. `tool_error` says
    /// its result is a tool's error result, which that version counts as
    /// `failed` where the extension says `completed`.
    pub fn for_2025_11_25(&self, tool_error: bool) -> Value {
        let status = match self.status {
            TaskStatus::Completed if tool_error => TaskStatus::Failed,
            status => status,
        };
        let mut task = json!({
            "taskId": self.task_id,
            "status": status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.last_updated_at,
            "ttl": self.ttl_ms,
        });
        if let Some(message) = &self.status_message {
            task["statusMessage"] = message.clone().into();
        }
        if let Some(interval) = self.poll_interval_ms {
            task["pollInterval"] = interval.into();
        }
        task
    }

    /// A task as 2025-11-25 sends it (`ttl`, `pollInterval`): what
    /// [`for_2025_11_25`](Self::for_2025_11_25) writes, read back. That
    /// version's `failed` stays `failed`, though it may be a tool's error
    /// result (its `tasks/result` tells).
    ///
    /// ```
    /// use mcp_runtime_core::task::{Task, TaskStatus};
    ///
    /// let task = serde_json::json!({
    ///     "taskId": "t1", "status": "working", "createdAt": "2025-11-25T00:00:00.000Z",
    ///     "lastUpdatedAt": "2025-11-25T00:00:00.000Z", "ttl": 60000, "pollInterval": 500,
    /// });
    /// let task = Task::from_2025_11_25(task).unwrap();
    /// assert_eq!((task.status, task.ttl_ms, task.poll_interval_ms), (TaskStatus::Working, Some(60000), Some(500)));
    /// ```
    pub fn from_2025_11_25(task: Value) -> Result<Task, serde_json::Error> {
        /// `Task` of the 2025-11-25 schema.
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Core {
            task_id: String,
            status: TaskStatus,
            #[serde(default)]
            status_message: Option<String>,
            created_at: String,
            last_updated_at: String,
            #[serde(default)]
            ttl: Option<u64>,
            #[serde(default)]
            poll_interval: Option<u64>,
        }
        let Core { task_id, status, status_message, created_at, last_updated_at, ttl, poll_interval } =
            serde_json::from_value(task)?;
        Ok(Task {
            task_id,
            status,
            status_message,
            created_at,
            last_updated_at,
            ttl_ms: ttl,
            poll_interval_ms: poll_interval,
        })
    }
}

impl DetailedTask {
    /// Whether its result is a tool's error result (`isError: true`).
    pub fn is_tool_error(&self) -> bool {
        self.result.as_ref().and_then(|r| r.get("isError")).and_then(Value::as_bool) == Some(true)
    }

    /// The task as 2025-11-25 sends it: see [`Task::for_2025_11_25`].
    pub fn for_2025_11_25(&self) -> Value {
        self.task.for_2025_11_25(self.is_tool_error())
    }
}

/// What `tasks/get` answers: the task, with its result once completed, its
/// error once failed, and its open questions while it waits for input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// The request's result, as a direct call would have answered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The protocol-level error that ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// Its open questions to the client, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Map<String, Value>>,
}

/// The params of `tasks/get` and `tasks/cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The params of `tasks/update`: answers to a task's questions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers, keyed like the task's `inputRequests`.
    pub input_responses: Map<String, Value>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// ISO 8601 (UTC, milliseconds) for `millis` since the Unix epoch.
pub fn timestamp(millis: u64) -> String {
    let (days, rest) = (millis / 86_400_000, millis % 86_400_000);
    // Days to a civil date (Howard Hinnant's algorithm), for dates after 1970.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    let (h, m, s, ms) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(timestamp(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(timestamp(1_767_225_599_999), "2025-12-31T23:59:59.999Z");
    }

    #[test]
    fn a_2025_11_25_task_says_ttl_and_counts_tool_errors_as_failed() {
        let task = Task {
            task_id: "t".into(),
            status: TaskStatus::Completed,
            status_message: None,
            created_at: timestamp(0),
            last_updated_at: timestamp(0),
            ttl_ms: Some(1000),
            poll_interval_ms: Some(100),
        };
        let value = task.for_2025_11_25(false);
        assert_eq!(value["status"], "completed");
        assert_eq!((value["ttl"].as_u64(), value["pollInterval"].as_u64()), (Some(1000), Some(100)));
        assert!(value.get("ttlMs").is_none() && value.get("statusMessage").is_none());
        assert_eq!(task.for_2025_11_25(true)["status"], "failed");
        assert_eq!(Task::from_2025_11_25(task.for_2025_11_25(false)).unwrap(), task);
        let unlimited =
            json!({"taskId": "t", "status": "cancelled", "createdAt": "a", "lastUpdatedAt": "b", "ttl": null});
        assert_eq!(Task::from_2025_11_25(unlimited).unwrap().ttl_ms, None);
    }

    #[test]
    fn a_detailed_task_is_flat() {
        let task = Task {
            task_id: "t".into(),
            status: TaskStatus::InputRequired,
            status_message: None,
            created_at: timestamp(0),
            last_updated_at: timestamp(0),
            ttl_ms: Some(1000),
            poll_interval_ms: Some(100),
        };
        let detailed = DetailedTask { task, result: None, error: None, input_requests: Some(Map::new()) };
        let value = serde_json::to_value(&detailed).unwrap();
        assert_eq!(value["taskId"], "t");
        assert_eq!(value["status"], "input_required");
        assert_eq!(value["ttlMs"], 1000);
        assert!(value.get("task").is_none() && value.get("result").is_none());
    }
}
