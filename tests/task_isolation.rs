//! Tasks over HTTP belong to whoever created them: another session's
//! requests are answered as for a task that never existed, a session
//! cannot hold every task the server runs, and the tasks of a session that
//! ends are stopped. (Two OAuth principals are in `oauth.rs`.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::http::Client;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::task::TaskStatus;
use mcp_runtime::tasks::{MemoryTaskStore, TaskStore};
use mcp_runtime::transport::HttpOptions;
use serde_json::{Value, json};

/// Work until stopped.
#[tool(task = "optional")]
async fn wait() -> String {
    std::future::pending::<()>().await;
    unreachable!()
}

/// Rest a moment, then answer.
#[tool(task = "optional")]
async fn nap() -> String {
    tokio::time::sleep(Duration::from_millis(50)).await;
    "rested".into()
}

/// How many `hold` calls were stopped.
static HOLDS_STOPPED: AtomicUsize = AtomicUsize::new(0);

struct Stopped;

impl Drop for Stopped {
    fn drop(&mut self) {
        HOLDS_STOPPED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Work until stopped, counting the stops.
#[tool(task = "optional")]
async fn hold() -> String {
    let _stopped = Stopped;
    std::future::pending::<()>().await;
    unreachable!()
}

/// Wait until `count` `hold` calls were stopped (only one test calls it).
async fn until_stopped(count: usize) {
    while HOLDS_STOPPED.load(Ordering::SeqCst) < count {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(HOLDS_STOPPED.load(Ordering::SeqCst), count);
}

/// Serve `server` over HTTP on a free port: its URL.
async fn serve(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, HttpOptions::new()).await.unwrap() });
    format!("http://{address}/mcp")
}

/// A 2025-11-25 session.
async fn session(url: &str) -> Client {
    let mut client = Client::new(url);
    client.initialize().await;
    client
}

/// The error of a task id nobody ever had, as every other requestor gets
/// it for a task that is not theirs.
pub(crate) fn unknown(id: &str) -> Value {
    json!({"code": -32602, "message": format!("invalid params: no task `{id}`: it never existed here, or it expired")})
}

/// Ask for a task running `tool` (2025-11-25): its id.
async fn create(client: &mut Client, tool: &str) -> String {
    let created = client.request("tools/call", json!({"name": tool, "arguments": {}, "task": {}})).await;
    let id = created.last()["result"]["task"]["taskId"].as_str();
    id.unwrap_or_else(|| panic!("no task: {created:?}")).to_owned()
}

#[tokio::test]
async fn another_sessions_task_is_unknown_to_every_tasks_method() {
    let url = serve(Server::empty("tasks", "1").tool(wait::Tool)).await;
    let (mut ann, mut bob) = (session(&url).await, session(&url).await);
    let id = create(&mut ann, "wait").await;
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let answer = bob.request(method, json!({"taskId": id})).await;
        assert_eq!(answer.last()["error"], unknown(&id), "{method}");
    }
    assert_eq!(bob.request("tasks/list", json!({})).await.last()["result"]["tasks"], json!([]));
    // An id nobody had is answered alike.
    let never = id.chars().rev().collect::<String>();
    assert_eq!(bob.request("tasks/get", json!({"taskId": never})).await.last()["error"], unknown(&never));
    // The task ran on, untouched, for its own session.
    let task = ann.request("tasks/get", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(task["status"], "working", "{task}");
    let listed = ann.request("tasks/list", json!({})).await.last()["result"]["tasks"].clone();
    assert_eq!(listed[0]["taskId"], id.as_str());
    let cancelled = ann.request("tasks/cancel", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(cancelled["status"], "cancelled");
}

/// A 2026-07-28 request of a client that declared the tasks extension.
fn stateless(method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

#[tokio::test]
async fn stateless_clients_without_auth_follow_any_task_whose_id_they_know() {
    let url = serve(Server::empty("tasks", "1").tool(wait::Tool)).await;
    let request = stateless;
    let created = Client::new(&url).message(&request("tools/call", json!({"name": "wait", "arguments": {}}))).await;
    let id = created.last()["result"]["taskId"].as_str().expect("a task").to_owned();
    // Nothing tells stateless requests apart: the id is the key.
    let other = Client::new(&url);
    let task = other.message(&request("tasks/get", json!({"taskId": id}))).await.last()["result"].clone();
    assert_eq!(task["status"], "working", "{task}");
    let ack = other.message(&request("tasks/cancel", json!({"taskId": id}))).await;
    assert_eq!(ack.last()["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_session_runs_at_most_its_share_of_tasks_and_they_stop_when_it_ends() {
    let store = Arc::new(MemoryTaskStore::default());
    let server = Server::empty("tasks", "1").tool(hold::Tool).task_store(store.clone());
    let url = serve(server.max_running_tasks_per_requestor(2)).await;
    let (mut ann, mut bob) = (session(&url).await, session(&url).await);
    let held = [create(&mut ann, "hold").await, create(&mut ann, "hold").await];
    let refused = ann.request("tools/call", json!({"name": "hold", "arguments": {}, "task": {}})).await;
    let error = &refused.last()["error"];
    assert_eq!(error["code"], -32600, "{refused:?}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("too many running tasks") && message.contains("at most 2"), "{message}");

    // Another session is not held up by the first.
    let bobs = create(&mut bob, "hold").await;
    // A task that ends makes room again.
    let cancelled = ann.request("tasks/cancel", json!({"taskId": held[0]})).await;
    assert_eq!(cancelled.last()["result"]["status"], "cancelled");
    let third = create(&mut ann, "hold").await;
    until_stopped(1).await;

    // Ann's session ends: nobody can reach its tasks now, so they stop.
    let deleted = ann.send(ann.http.delete(&url).header("mcp-session-id", ann.session.clone().unwrap())).await;
    assert_eq!(deleted.status, reqwest::StatusCode::OK);
    for id in [&held[1], &third] {
        let status = loop {
            let task = store.get(id).await.unwrap().expect("the task is kept");
            if task.task.status != TaskStatus::Working {
                break task.task.status;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(status, TaskStatus::Cancelled);
    }
    until_stopped(3).await;
    let task = bob.request("tasks/get", json!({"taskId": bobs})).await.last()["result"].clone();
    assert_eq!(task["status"], "working", "another session's task runs on: {task}");
}

#[tokio::test]
async fn a_call_past_its_requestors_task_limit_that_did_not_ask_for_a_task_is_answered_directly() {
    let server = Server::empty("tasks", "1").tool(wait::Tool).tool(nap::Tool).max_running_tasks_per_requestor(1);
    let url = serve(server).await;
    let client = Client::new(&url);
    let created = client.message(&stateless("tools/call", json!({"name": "wait", "arguments": {}}))).await;
    assert_eq!(created.last()["result"]["resultType"], "task", "{created:?}");
    // The one task this requestor may run is running: the server makes
    // no second, and the call is answered as if tasks were not there.
    let answered = client.message(&stateless("tools/call", json!({"name": "nap", "arguments": {}}))).await;
    let result = &answered.last()["result"];
    assert_eq!(result["content"][0]["text"], "rested", "{answered:?}");
}
