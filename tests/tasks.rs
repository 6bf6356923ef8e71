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

/// Two replicas sharing the store, each with a client of its own, so the
/// store is churned from two threads at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_short_tasks_lose_no_result_and_stay_within_the_store_bounds() {
    let store = Arc::new(MemoryTaskStore::new(500, 1 << 20));
    let replicas = (0..2u64).map(|first| {
        let store = store.clone();
        tokio::spawn(async move {
            let mut client = server(store.clone()).connect_in_memory().unwrap();
            for n in (first..10_000).step_by(2) {
                let call = json!({"name": "double", "arguments": {"n": n}});
                let created = request(&mut client, true, "tools/call", call).await;
                let id = created["result"]["taskId"].as_str().expect("a task").to_owned();
                let done = until(&mut client, &id, &["completed", "failed", "cancelled"]).await;
                assert_eq!(done["result"]["content"][0]["text"], (n * 2).to_string());
                assert!(store.len() <= 500 && store.bytes() <= 1 << 20);
            }
        })
    });
    for replica in replicas.collect::<Vec<_>>() {
        replica.await.expect("every task of the replica ended with its result");
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

// 2025-11-25's tasks (SEP-1686): the same tasks, asked for by the client
// with `params.task`, on that version's wire.

/// Answer at once (never a task).
#[tool]
fn plain() -> &'static str {
    "plain"
}

fn core_server(store: Arc<MemoryTaskStore>) -> Server {
    server(store).tool(plain::Tool)
}

/// A 2025-11-25 session of a client that declared tasks (for its side, as
/// that version has clients do) and elicitation.
async fn core_client(server: Server) -> (InMemoryClient, Value) {
    let mut client = server.connect_in_memory().unwrap();
    let init = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}, "tasks": {"list": {}, "cancel": {}}},
        "clientInfo": {"name": "sep-1686", "version": "1"},
    });
    let initialized = client.request("initialize", init).await.unwrap();
    client.notify("notifications/initialized", json!({})).await.unwrap();
    (client, initialized["result"].clone())
}

async fn core(client: &mut InMemoryClient, method: &str, params: Value) -> Value {
    client.request(method, params).await.expect("the server answers")
}

/// `tasks/get` until the task is in one of `statuses`.
async fn core_until(client: &mut InMemoryClient, id: &str, statuses: &[&str]) -> Value {
    loop {
        let task = core(client, "tasks/get", json!({"taskId": id})).await["result"].clone();
        if statuses.contains(&task["status"].as_str().unwrap_or("")) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_2025_11_25_client_asks_for_a_task_and_gets_the_result_a_direct_call_gives() {
    let (mut client, initialized) = core_client(core_server(Arc::default())).await;
    let tasks = &initialized["capabilities"]["tasks"];
    assert_eq!(tasks, &json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}));
    let tools = core(&mut client, "tools/list", json!({})).await["result"]["tools"].clone();
    let support = |name: &str| {
        let tool = tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
        tool.get("execution").map(|e| e["taskSupport"].clone())
    };
    assert_eq!(support("double"), Some(json!("optional")));
    assert_eq!(support("forever"), Some(json!("required")));
    assert_eq!(support("plain"), None);

    let direct = core(&mut client, "tools/call", json!({"name": "double", "arguments": {"n": 21}})).await;
    assert_eq!(direct["result"]["content"][0]["text"], "42");
    let call = json!({"name": "double", "arguments": {"n": 21}, "task": {"ttl": 60_000}});
    let created = core(&mut client, "tools/call", call).await["result"].clone();
    let task = &created["task"];
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60_000);
    assert!(
        task["pollInterval"].as_u64().is_some() && task["createdAt"].is_string() && task["lastUpdatedAt"].is_string()
    );
    assert!(created.get("resultType").is_none() && task.get("ttlMs").is_none());
    let id = task["taskId"].as_str().unwrap().to_owned();

    // `tasks/result` waits for the end, then answers what the call would have.
    let result = core(&mut client, "tasks/result", json!({"taskId": id})).await["result"].clone();
    assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"], json!({"taskId": id}));
    let mut without_meta = result.clone();
    without_meta.as_object_mut().unwrap().remove("_meta");
    assert_eq!(without_meta, direct["result"]);
    let done = core(&mut client, "tasks/get", json!({"taskId": id})).await["result"].clone();
    assert_eq!((done["status"].as_str(), done["taskId"].as_str()), (Some("completed"), Some(id.as_str())));
    assert!(done.get("result").is_none() && done.get("resultType").is_none());

    let listed = core(&mut client, "tasks/list", json!({})).await["result"].clone();
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(listed["tasks"][0]["taskId"], id.as_str());
    assert!(listed.get("nextCursor").is_none());

    // Status notifications came along (optional in that version, sent here).
    let statuses: Vec<Value> = client
        .take_notifications()
        .into_iter()
        .filter(|n| n["method"] == "notifications/tasks/status")
        .map(|n| n["params"]["status"].clone())
        .collect();
    assert_eq!(statuses.last(), Some(&json!("completed")));
}

#[tokio::test]
async fn a_2025_11_25_client_must_ask_for_a_task_where_the_tool_says_so_and_only_there() {
    let (mut client, _) = core_client(core_server(Arc::default())).await;
    let required = core(&mut client, "tools/call", json!({"name": "forever", "arguments": {}})).await;
    assert_eq!(required["error"]["code"], -32601);
    let forbidden = core(&mut client, "tools/call", json!({"name": "plain", "arguments": {}, "task": {}})).await;
    assert_eq!(forbidden["error"]["code"], -32601);
    let plain = core(&mut client, "tools/call", json!({"name": "plain", "arguments": {}})).await;
    assert_eq!(plain["result"]["content"][0]["text"], "plain");
    // The extension's method is not this version's.
    let update = core(&mut client, "tasks/update", json!({"taskId": "x", "inputResponses": {}})).await;
    assert_eq!(update["error"]["code"], -32601);
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let unknown = core(&mut client, method, json!({"taskId": "nope"})).await;
        assert_eq!(unknown["error"]["code"], -32602, "{method}");
    }
    let cursor = core(&mut client, "tasks/list", json!({"cursor": "not-a-cursor"})).await;
    assert_eq!(cursor["error"]["code"], -32602);
}

#[tokio::test]
async fn a_2025_11_25_task_is_cancelled_once_and_then_has_no_result() {
    let (mut client, _) = core_client(core_server(Arc::default())).await;
    let created = core(&mut client, "tools/call", json!({"name": "forever", "arguments": {}, "task": {}})).await;
    let id = created["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = core(&mut client, "tasks/cancel", json!({"taskId": id})).await["result"].clone();
    assert_eq!((cancelled["taskId"].as_str(), cancelled["status"].as_str()), (Some(id.as_str()), Some("cancelled")));
    let again = core(&mut client, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["error"]["code"], -32602);
    assert_eq!(core_until(&mut client, &id, &["cancelled"]).await["status"], "cancelled");
    let result = core(&mut client, "tasks/result", json!({"taskId": id})).await;
    assert!(result.get("error").is_some(), "{result}");
}

#[tokio::test]
async fn a_2025_11_25_task_asks_the_client_with_its_id_and_waits_for_input_meanwhile() {
    let (mut client, _) = core_client(core_server(Arc::default())).await;
    let created = core(&mut client, "tools/call", json!({"name": "ask_midway", "arguments": {}, "task": {}})).await;
    let id = created["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(core_until(&mut client, &id, &["input_required"]).await["status"], "input_required");
    let question = loop {
        let message = client.recv().await.unwrap().expect("the server asks");
        if message["method"] == "elicitation/create" {
            break message;
        }
    };
    assert_eq!(question["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str());
    let answer = json!({"action": "accept", "content": {"go": true}});
    client.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": answer})).await.unwrap();
    let result = core(&mut client, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["result"]["content"][0]["text"], "go: true");
}

#[tokio::test]
async fn a_2025_11_25_task_lives_as_long_as_the_client_asked_and_lists_page_by_page() {
    let store = Arc::new(MemoryTaskStore::default());
    let (mut client, _) = core_client(core_server(store.clone())).await;
    let call = json!({"name": "double", "arguments": {"n": 1}, "task": {"ttl": 50}});
    let created = core(&mut client, "tools/call", call).await;
    assert_eq!(created["result"]["task"]["ttl"], 50);
    let id = created["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    core_until(&mut client, &id, &["completed"]).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let expired = core(&mut client, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(expired["error"]["code"], -32602);

    let mut ids = Vec::new();
    for n in 0..120 {
        let call = json!({"name": "double", "arguments": {"n": n}, "task": {}});
        ids.push(core(&mut client, "tools/call", call).await["result"]["task"]["taskId"].clone());
    }
    let first = core(&mut client, "tasks/list", json!({})).await["result"].clone();
    let cursor = first["nextCursor"].as_str().expect("a second page").to_owned();
    let second = core(&mut client, "tasks/list", json!({"cursor": cursor})).await["result"].clone();
    assert!(second.get("nextCursor").is_none());
    let listed: Vec<Value> = [&first, &second]
        .iter()
        .flat_map(|page| page["tasks"].as_array().unwrap().iter().map(|t| t["taskId"].clone()))
        .collect();
    assert_eq!(listed, ids, "the expired task left the list; the rest are there, oldest first");
    // Another session, of a server sharing the store, sees none of them.
    let (mut other, _) = core_client(core_server(store)).await;
    assert_eq!(core(&mut other, "tasks/list", json!({})).await["result"]["tasks"], json!([]));
}
