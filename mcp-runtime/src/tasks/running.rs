//! One call that may become, or has become, a task on this replica: its
//! questions to the client (asked through the task, answered with
//! `tasks/update`), how to stop it, and how its state reaches the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::task::{DetailedTask, TaskStatus};
use mcp_core::{ErrorObject, InputRequest};
use serde_json::{Map, Value};
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

use super::Tasks;
use crate::dispatch::outgoing::Outgoing;
use crate::request::context::Cancellation;

/// A call of a tool that supports tasks, from before its first poll.
pub(crate) struct Running {
    /// Set when the call became a task.
    task: OnceLock<(Arc<Tasks>, String)>,
    inner: Mutex<Inner>,
    /// Writes to the store, one at a time and in order.
    publishing: tokio::sync::Mutex<()>,
    pub(crate) cancellation: Cancellation,
    pub(crate) abort: OnceLock<AbortHandle>,
    /// A protocol-level failure (a panic) that ends the task as `failed`.
    pub(crate) failure: OnceLock<ErrorObject>,
    /// Set for a 2025-11-25 task (see [`Flavour::Core`](super::Flavour)):
    /// its session's stream, where its status notifications and its
    /// questions to the client go (the call's own stream ended with the
    /// `CreateTaskResult`).
    pub(crate) session: Option<Outgoing>,
}

#[derive(Default)]
struct Inner {
    /// How many default keys were handed out.
    counter: u32,
    /// Open questions, by key.
    asked: Map<String, Value>,
    waiters: HashMap<String, oneshot::Sender<Value>>,
    /// The task as last written; `None` before it exists.
    record: Option<DetailedTask>,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").field("task", &self.task.get().map(|(_, id)| id)).finish_non_exhaustive()
    }
}

impl Running {
    pub(crate) fn new(cancellation: Cancellation, session: Option<Outgoing>) -> Arc<Running> {
        Arc::new(Running {
            task: OnceLock::new(),
            inner: Mutex::default(),
            publishing: tokio::sync::Mutex::new(()),
            cancellation,
            abort: OnceLock::new(),
            failure: OnceLock::new(),
            session,
        })
    }

    /// The task's id, once the call is one.
    pub(crate) fn id(&self) -> Option<&str> {
        self.task.get().map(|(_, id)| id.as_str())
    }

    /// Whether it is a 2025-11-25 task, whose questions go to the client as
    /// requests.
    pub(crate) fn is_core(&self) -> bool {
        self.session.is_some()
    }

    /// A question `request` went to the client directly (2025-11-25): the
    /// task waits for input until [`settled`](Self::settled).
    pub(crate) async fn waiting(&self, key: &str, request: InputRequest) {
        let request = serde_json::to_value(request).expect("an input request serializes");
        self.inner().asked.insert(key.to_owned(), request);
        self.publish().await;
    }

    /// The question under `key` was answered (or failed).
    pub(crate) async fn settled(&self, key: &str) {
        self.inner().asked.remove(key);
        self.publish().await;
    }

    /// Tell a 2025-11-25 client its task's new status. Optional in that
    /// version, and cheap: the task as `tasks/get` would show it.
    fn announce(&self, record: &DetailedTask) {
        if let Some(session) = &self.session {
            session.notify(mcp_core::methods::TASKS_STATUS, &record.for_2025_11_25());
        }
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the call is a task now.
    pub(crate) fn is_task(&self) -> bool {
        self.task.get().is_some()
    }

    /// The call became the task `record`, kept by `tasks`.
    pub(crate) fn became(&self, tasks: Arc<Tasks>, record: DetailedTask) {
        let id = record.task.task_id.clone();
        self.inner().record = Some(record);
        let _ = self.task.set((tasks, id));
    }

    /// The task as last written; `None` before the call became one.
    #[cfg(feature = "http")]
    pub(crate) fn record(&self) -> Option<DetailedTask> {
        self.inner().record.clone()
    }

    /// A key for the next question that names none.
    pub(crate) fn next_key(&self, kind: &str) -> String {
        let mut inner = self.inner();
        inner.counter += 1;
        format!("{kind}-{}", inner.counter)
    }

    /// Ask `request` under `key` through the task, and await the answer
    /// `tasks/update` brings.
    pub(crate) async fn ask(&self, key: String, request: InputRequest) -> Option<Value> {
        let (tx, rx) = oneshot::channel();
        {
            let mut inner = self.inner();
            let request = serde_json::to_value(request).expect("an input request serializes");
            inner.asked.insert(key.clone(), request);
            inner.waiters.insert(key, tx);
        }
        self.publish().await;
        rx.await.ok()
    }

    /// Hand `responses` to the questions they answer; other keys are
    /// ignored, as the extension says.
    pub(crate) async fn answer(&self, responses: Map<String, Value>) {
        {
            let mut inner = self.inner();
            for (key, response) in responses {
                if let Some(waiter) = inner.waiters.remove(&key) {
                    inner.asked.remove(&key);
                    let _ = waiter.send(response);
                }
            }
        }
        self.publish().await;
    }

    /// Write the task's status (and open questions) to the store.
    pub(crate) async fn publish(&self) {
        let Some((tasks, id)) = self.task.get() else { return };
        let _one_at_a_time = self.publishing.lock().await;
        let record = {
            let mut inner = self.inner();
            let inner = &mut *inner;
            let Some(record) = inner.record.as_mut() else { return };
            let (status, questions) = if inner.asked.is_empty() {
                (TaskStatus::Working, None)
            } else {
                (TaskStatus::InputRequired, Some(inner.asked.clone()))
            };
            if record.task.status == status && record.input_requests == questions {
                return;
            }
            record.task.status = status;
            record.input_requests = questions;
            record.task.last_updated_at = super::now();
            record.clone()
        };
        if tasks.write(record.clone()).await {
            self.announce(&record);
        } else {
            // Ended elsewhere (cancelled through a replica whose signal
            // did not arrive) or gone: the work has no one to answer.
            self.stop();
            tasks.forget(id);
        }
    }

    /// The task ended with `result` or `error`: its last write.
    pub(crate) async fn end(&self, outcome: Result<Value, ErrorObject>) {
        let Some((tasks, id)) = self.task.get() else { return };
        let _one_at_a_time = self.publishing.lock().await;
        let record = {
            let mut inner = self.inner();
            let Some(record) = inner.record.as_mut() else { return };
            record.input_requests = None;
            record.task.last_updated_at = super::now();
            match outcome {
                Ok(result) => {
                    record.task.status = TaskStatus::Completed;
                    record.result = Some(result);
                }
                Err(error) => {
                    record.task.status = TaskStatus::Failed;
                    record.task.status_message = Some(error.message.clone());
                    record.error = Some(error);
                }
            }
            record.clone()
        };
        if tasks.write(record.clone()).await {
            self.announce(&record);
        }
        tasks.forget(id);
    }

    /// Stop the work: its future is dropped, and what it spawned sees
    /// `ctx.cancelled()`.
    pub(crate) fn stop(&self) {
        if let Some(abort) = self.abort.get() {
            abort.abort();
        }
        self.cancellation.cancel();
    }
}
