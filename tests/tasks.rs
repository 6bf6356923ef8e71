//! The tasks extension through the protocol, as a 2026-07-28 client that
//! declared it sees it: a call that has to wait becomes a task, followed
//! with `tasks/get`, answered with `tasks/update`, stopped with
//! `tasks/cancel`; a client that did not declare it gets direct answers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::tasks::MemoryTaskStore;
use mcp_runtime::transport::InMemoryClient;
use serde_json::{Value, json};

/// Double a number, after waiting for the scheduler once.
#[tool(task = "optional")]
async fn double(n: u64) -> String {
    tokio::task::yield_now().await;
    format!("{}", n * 2)
}

/// Set when `forever`'s future is dropped.
static FOREVER_DROPPED: AtomicBool = AtomicBool::new(false);

struct Dropped;

impl Drop for Dropped {
    fn drop(&mut self) {
        FOREVER_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Work until stopped.
#[tool(task = "required")]
async fn forever() -> String {
    let _guard = Dropped;
    std::future::pending::<()>().await;
    unreachable!()
}

/// Whether to go on.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Go {
    go: bool,
}

/// Ask whether to go on once the work has started.
#[tool(task = "optional")]
async fn ask_midway(ctx: Context) -> Result<String, ToolError> {
    tokio::task::yield_now().await;
    let answer = ctx.elicit::<Go>("Go on?").key("go").await?;
    Ok(format!("go: {}", answer.accepted().is_some_and(|g| g.go)))
}

fn server(store: Arc<MemoryTaskStore>) -> Server {
    Server::empty("tasks", "1").tool(double::Tool).tool(forever::Tool).tool(ask_midway::Tool).task_store(store)
}

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A 2026-07-28 request from a client that declared tasks (or not).
async fn request(client: &mut InMemoryClient, tasks: bool, method: &str, mut params: Value) -> Value {
    let extensions = if tasks { json!({ TASKS: {} }) } else { json!({}) };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": extensions},
    });
    client.request(method, params).await.expect("the server answers")
}

/// `tasks/get` until the task is in one of `statuses`.
async fn until(client: &mut InMemoryClient, id: &str, statuses: &[&str]) -> Value {
    loop {
        let task = request(client, true, "tasks/get", json!({"taskId": id})).await["result"].clone();
        if statuses.contains(&task["status"].as_str().unwrap_or("")) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_task_ends_with_the_result_a_direct_call_gives() {
    let mut client = server(Arc::default()).connect_in_memory().unwrap();
    let direct = request(&mut client, false, "tools/call", json!({"name": "double", "arguments": {"n": 21}})).await;
    assert_eq!(direct["result"]["resultType"], "complete");
    let created = request(&mut client, true, "tools/call", json!({"name": "double", "arguments": {"n": 21}})).await;
    let created = &created["result"];
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert!(created["ttlMs"].as_u64().unwrap() > 0 && created.get("result").is_none());
    let done = until(&mut client, created["taskId"].as_str().unwrap(), &["completed"]).await;
    let mut expected = direct["result"].clone();
    let object = expected.as_object_mut().unwrap();
    object.remove("_meta");
    let mut got = done["result"].clone();
    got.as_object_mut().unwrap().remove("_meta");
    got.as_object_mut().unwrap().insert("resultType".into(), json!("complete"));
    assert_eq!(got, expected);
}

#[tokio::test]
async fn cancelling_a_task_drops_its_work() {
    let mut client = server(Arc::default()).connect_in_memory().unwrap();
    let created = request(&mut client, true, "tools/call", json!({"name": "forever", "arguments": {}})).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let ack = request(&mut client, true, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("status").is_none());
    assert_eq!(until(&mut client, &id, &["cancelled", "completed", "failed"]).await["status"], "cancelled");
    while !FOREVER_DROPPED.load(Ordering::SeqCst) {
        tokio::task::yield_now().await;
    }
    // Cancelling again is acknowledged the same way; an unknown task is not.
    let again = request(&mut client, true, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["result"]["resultType"], "complete");
    let unknown = request(&mut client, true, "tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tokio::test]
async fn a_question_midway_is_asked_and_answered_through_the_task() {
    let mut client = server(Arc::default()).connect_in_memory().unwrap();
    let created = request(&mut client, true, "tools/call", json!({"name": "ask_midway", "arguments": {}})).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = until(&mut client, &id, &["input_required"]).await;
    assert_eq!(waiting["inputRequests"]["go"]["method"], "elicitation/create");
    let answer = json!({"go": {"action": "accept", "content": {"go": true}}});
    let ack = request(&mut client, true, "tasks/update", json!({"taskId": id, "inputResponses": answer})).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let done = until(&mut client, &id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "go: true");
}

#[tokio::test]
async fn clients_without_the_extension_get_direct_answers_or_the_capability_error() {
    let mut client = server(Arc::default()).connect_in_memory().unwrap();
    let direct = request(&mut client, false, "tools/call", json!({"name": "double", "arguments": {"n": 2}})).await;
    assert_eq!(direct["result"]["content"][0]["text"], "4");
    let required = request(&mut client, false, "tools/call", json!({"name": "forever", "arguments": {}})).await;
    assert_eq!(required["error"]["code"], -32021);
    assert_eq!(required["error"]["data"]["requiredCapabilities"]["extensions"][TASKS], json!({}));
    let get = request(&mut client, false, "tasks/get", json!({"taskId": "x"})).await;
    assert_eq!(get["error"]["code"], -32021);
    let discover = request(&mut client, false, "server/discover", json!({})).await;
    assert_eq!(discover["result"]["capabilities"]["extensions"][TASKS], json!({}));
    let removed = request(&mut client, true, "tasks/list", json!({})).await;
    assert_eq!(removed["error"]["code"], -32601);
}

#[tokio::test]
async fn ten_thousand_short_tasks_lose_no_result_and_stay_within_the_store_bounds() {
    let store = Arc::new(MemoryTaskStore::new(500, 1 << 20));
    let mut client = server(store.clone()).connect_in_memory().unwrap();
    for n in 0..10_000u64 {
        let created = request(&mut client, true, "tools/call", json!({"name": "double", "arguments": {"n": n}})).await;
        let id = created["result"]["taskId"].as_str().expect("a task").to_owned();
        let done = until(&mut client, &id, &["completed", "failed", "cancelled"]).await;
        assert_eq!(done["result"]["content"][0]["text"], (n * 2).to_string());
        assert!(store.len() <= 500 && store.bytes() <= 1 << 20);
    }
}

#[tokio::test]
async fn the_test_client_calls_as_a_task_answers_its_questions_and_cancels_it_in_both_eras() {
    use mcp_runtime::protocol::{ElicitAction, ElicitResult, ProtocolVersion};
    use mcp_runtime::testing::{TaskCall, TestClient};
    for version in [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST] {
        let mut client = TestClient::builder(server(Arc::default()))
            .version(version)
            .tasks()
            .on_elicit(|_| ElicitResult {
                action: ElicitAction::Accept,
                content: json!({"go": true}).as_object().cloned(),
            })
            .connect()
            .await
            .unwrap();
        let TaskCall::Task(task) = client.call_as_task("ask_midway", json!({})).await.unwrap() else {
            panic!("ask_midway waits before it asks: a task")
        };
        let result = client.finish_task(&task.task_id).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("go: true"), "{version:?}");

        let TaskCall::Task(task) = client.call_as_task("forever", json!({})).await.unwrap() else {
            panic!("forever never ends: a task")
        };
        client.cancel_task(&task.task_id).await.unwrap();
        let ended = client.wait_task(&task.task_id).await.unwrap();
        assert_eq!(ended.task.status.as_str(), "cancelled");
        assert!(client.finish_task(&task.task_id).await.is_err(), "a cancelled task has no result");
        assert_eq!(client.get_task("nope").await.unwrap_err().code, -32602);
    }
}
