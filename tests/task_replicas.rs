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

/// Say the text back, after a moment.
#[tool(task = "optional")]
async fn later(text: String) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    text
}

/// A replica sharing `tasks` and `options`' stores, on the test's runtime.
async fn core_replica(tasks: impl mcp_runtime::tasks::TaskStore, options: HttpOptions) -> String {
    let server = Server::empty("replica", "1").tool(later::Tool).task_store(tasks);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, options).await.unwrap() });
    format!("http://{address}/mcp")
}

/// A 2025-11-25 session moving between replicas `a` and `b` lists the
/// tasks it created on both, from either; another session lists none.
async fn a_session_lists_its_tasks_on_every_replica(a: &str, b: &str) {
    let mut client = Client::new(a);
    client.initialize().await;
    let mut ids = Vec::new();
    for (n, url) in [a, b, a].into_iter().enumerate() {
        client.url = url.to_owned();
        let call = json!({"name": "later", "arguments": {"text": n.to_string()}, "task": {}});
        let created = client.request("tools/call", call).await;
        let id = created.last()["result"]["task"]["taskId"].clone();
        assert!(id.is_string(), "{created:?}");
        ids.push(id);
    }
    for url in [a, b] {
        client.url = url.to_owned();
        let listed = client.request("tasks/list", json!({})).await.last()["result"].clone();
        let listed: Vec<Value> = listed["tasks"].as_array().unwrap().iter().map(|t| t["taskId"].clone()).collect();
        assert_eq!(listed, ids, "{url} lists the session's tasks from both replicas, oldest first");
    }
    let mut other = Client::new(b);
    other.initialize().await;
    assert_eq!(other.request("tasks/list", json!({})).await.last()["result"]["tasks"], json!([]));
}

#[tokio::test]
async fn a_session_lists_its_tasks_on_every_replica_sharing_the_memory_stores() {
    use mcp_runtime::stores::MemorySessionStore;
    use mcp_runtime::tasks::MemoryTaskStore;
    let (tasks, sessions) =
        (std::sync::Arc::new(MemoryTaskStore::default()), std::sync::Arc::new(MemorySessionStore::default()));
    let options = || HttpOptions::new().session_store(sessions.clone());
    let (a, b) = (core_replica(tasks.clone(), options()).await, core_replica(tasks, options()).await);
    a_session_lists_its_tasks_on_every_replica(&a, &b).await;
}

#[tokio::test]
async fn a_session_lists_its_tasks_on_every_replica_sharing_redis() {
    let Some(redis) = start().await else { return };
    let store = RedisStore::connect(&redis.url).await.unwrap().prefix("owners");
    let options = || HttpOptions::new().shared_store(store.clone());
    let (a, b) = (core_replica(store.clone(), options()).await, core_replica(store.clone(), options()).await);
    a_session_lists_its_tasks_on_every_replica(&a, &b).await;
}

#[tokio::test]
async fn the_redis_task_store_keeps_each_sessions_tasks_in_order_past_the_ones_gone() {
    use mcp_runtime::tasks::TaskStore;
    let Some(redis) = start().await else { return };
    let store = RedisStore::connect(&redis.url).await.unwrap().prefix("lists");
    for (n, id) in ["t1", "t2", "t3"].into_iter().enumerate() {
        assert_eq!(store.own("s1", id).await.unwrap(), Some(n + 1));
    }
    store.own("s2", "u1").await.unwrap();
    let first = store.owned("s1", None, 2).await.unwrap().unwrap();
    assert_eq!(first.iter().map(|(_, id)| id.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
    assert!(first[0].0 < first[1].0);
    // `t1` and `t2` go; the cursor (`t2`'s position) still points past them.
    store.disown("s1", &["t1".to_owned(), "t2".to_owned()]).await.unwrap();
    let rest = store.owned("s1", Some(first[1].0), 10).await.unwrap().unwrap();
    assert_eq!(rest.iter().map(|(_, id)| id.as_str()).collect::<Vec<_>>(), ["t3"]);
    let all = store.owned("s1", None, usize::MAX).await.unwrap().unwrap();
    assert_eq!(all, rest);
    let other = store.owned("s2", None, usize::MAX).await.unwrap().unwrap();
    assert_eq!(other.iter().map(|(_, id)| id.as_str()).collect::<Vec<_>>(), ["u1"]);
    assert!(store.owned("nobody", None, 10).await.unwrap().unwrap().is_empty());
}

#[tokio::test]
async fn with_redis_down_task_requests_fail_within_a_bounded_time() {
    let Some(redis) = start().await else { return };
    let mut replica = Replica::start(&redis.url).await;
    let id = replica.create("stuck").await;
    drop(redis);
    // The first request finds the connection dropped; the next ones wait
    // for it to be made again, which is what must not take long.
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let answer = replica.request("tasks/get", json!({"taskId": id})).await;
        let took = started.elapsed();
        let error = &answer["error"];
        assert_eq!(error["code"], -32603, "{answer}");
        assert!(error["message"].as_str().unwrap().contains("the task store is unavailable"), "{answer}");
        // The store's timeout is 2 s by default; without it each request
        // waited about 9 s here for the connection's retries.
        assert!(took < Duration::from_secs(6), "a tasks/get took {took:?} with Redis down: {answer}");
    }
}
