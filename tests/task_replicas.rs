//! Tasks across two replicas sharing Redis, as behind a load balancer: a
//! task created through one is polled, answered and cancelled through the
//! other, and one whose replica dies is `failed` with the reason. Each
//! replica runs on a runtime of its own, so killing one stops everything
//! it ran, its lease renewals included. Needs `redis-server` on the PATH
//! (CI installs it).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::http::Client;
use crate::replicas::redis::start;
use mcp_runtime::prelude::*;
use mcp_runtime::stores::RedisStore;
use mcp_runtime::transport::HttpOptions;
use serde_json::{Value, json};

/// The word to say.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Word {
    word: String,
}

/// Ask for a word once the work has started, and say it back.
#[tool(task = "required")]
async fn say(ctx: Context) -> Result<String, ToolError> {
    tokio::task::yield_now().await;
    let answer = ctx.elicit::<Word>("Which word?").key("word").await?;
    Ok(answer.accepted().map_or_else(|| "nothing".to_owned(), |w| w.word))
}

/// Set when `endless`'s future is dropped.
static ENDLESS_DROPPED: AtomicBool = AtomicBool::new(false);

struct Dropped;

impl Drop for Dropped {
    fn drop(&mut self) {
        ENDLESS_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Work until stopped.
#[tool(task = "required")]
async fn endless() -> String {
    let _guard = Dropped;
    std::future::pending::<()>().await;
    unreachable!()
}

/// Work until stopped, with nothing to notice it.
#[tool(task = "required")]
async fn stuck() -> String {
    std::future::pending::<()>().await;
    unreachable!()
}

/// One replica, on a runtime of its own: killed when dropped.
struct Replica {
    client: Client,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Replica {
    async fn start(redis: &str) -> Replica {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let (address, started) = tokio::sync::oneshot::channel();
        let redis = redis.to_owned();
        runtime.spawn(async move {
            let store =
                RedisStore::connect(&redis).await.unwrap().prefix("tasks").task_lease(Duration::from_millis(300));
            let server = Server::empty("replica", "1").tool(say::Tool).tool(endless::Tool).tool(stuck::Tool);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            address.send(listener.local_addr().unwrap()).unwrap();
            server.task_store(store).serve_http_on(listener, HttpOptions::new()).await.unwrap();
        });
        let address = started.await.expect("the replica starts");
        Replica { client: Client::new(&format!("http://{address}/mcp")), runtime: Some(runtime) }
    }

    /// A 2026-07-28 request from a client that declared tasks.
    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":
                {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
        });
        self.client.request(method, params).await.last().clone()
    }

    /// Call `tool` as a task: its id.
    async fn create(&mut self, tool: &str) -> String {
        let created = self.request("tools/call", json!({"name": tool, "arguments": {}})).await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        created["result"]["taskId"].as_str().unwrap().to_owned()
    }

    /// `tasks/get` until the task is no longer `working`.
    async fn until_not_working(&mut self, id: &str) -> Value {
        loop {
            let task = self.request("tasks/get", json!({"taskId": id})).await["result"].clone();
            if task["status"] != "working" {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn kill(mut self) {
        self.runtime.take().unwrap().shutdown_background();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[tokio::test]
async fn a_task_created_on_one_replica_is_polled_answered_and_cancelled_through_another() {
    let Some(redis) = start().await else { return };
    let (mut a, mut b) = (Replica::start(&redis.url).await, Replica::start(&redis.url).await);

    let id = a.create("say").await;
    let asking = b.until_not_working(&id).await;
    assert_eq!(asking["status"], "input_required");
    assert_eq!(asking["inputRequests"]["word"]["method"], "elicitation/create");
    let answer = json!({"word": {"action": "accept", "content": {"word": "elsewhere"}}});
    let ack = b.request("tasks/update", json!({"taskId": id, "inputResponses": answer})).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let done = loop {
        let task = b.until_not_working(&id).await;
        if task["status"] != "input_required" {
            break task;
        }
    };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "elsewhere");

    let id = a.create("endless").await;
    let ack = b.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert_eq!(a.until_not_working(&id).await["status"], "cancelled");
    while !ENDLESS_DROPPED.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let unknown = b.request("tasks/get", json!({"taskId": "no-such-task"})).await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tokio::test]
async fn a_task_whose_replica_dies_is_failed_with_the_reason() {
    let Some(redis) = start().await else { return };
    let (mut a, mut b) = (Replica::start(&redis.url).await, Replica::start(&redis.url).await);
    let id = a.create("stuck").await;
    let first = b.request("tasks/get", json!({"taskId": id})).await;
    assert_eq!(first["result"]["status"], "working", "{first}");
    a.kill();
    let task = b.until_not_working(&id).await;
    assert_eq!(task["status"], "failed", "{task}");
    assert_eq!(task["statusMessage"], "the server running this task stopped");
    // The verdict is kept: it reads the same from then on.
    let again = b.request("tasks/get", json!({"taskId": id})).await["result"].clone();
    assert_eq!(again["status"], "failed");
}

#[tokio::test]
async fn the_redis_task_store_ends_a_task_once_and_forgets_it_after_its_ttl() {
    use mcp_runtime::protocol::task::{DetailedTask, Task, TaskStatus, timestamp};
    use mcp_runtime::tasks::TaskStore;
    let Some(redis) = start().await else { return };
    let store = RedisStore::connect(&redis.url).await.unwrap();
    let task = |status, ttl_ms| {
        let (created_at, last_updated_at) = (timestamp(0), timestamp(0));
        let task = Task {
            task_id: "t1".into(),
            status,
            status_message: None,
            created_at,
            last_updated_at,
            ttl_ms: Some(ttl_ms),
            poll_interval_ms: None,
        };
        DetailedTask { task, result: None, error: None, input_requests: None }
    };
    store.create(task(TaskStatus::Working, 60_000)).await.unwrap();
    assert_eq!(store.get("t1").await.unwrap().unwrap().task.status, TaskStatus::Working);
    assert!(store.update(task(TaskStatus::InputRequired, 60_000)).await.unwrap());
    assert!(store.update(task(TaskStatus::Cancelled, 50)).await.unwrap());
    assert!(!store.update(task(TaskStatus::Completed, 60_000)).await.unwrap(), "a task ends once");
    assert!(!store.update(task(TaskStatus::Working, 60_000)).await.unwrap());
    assert!(store.get("unknown").await.unwrap().is_none());
    // Kept for its TTL once terminal, then gone.
    while store.get("t1").await.unwrap().is_some() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!store.update(task(TaskStatus::Completed, 60_000)).await.unwrap(), "a task gone stays gone");
}
