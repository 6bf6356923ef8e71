//! Tasks through a gateway: a mounted tool keeps its upstream's task
//! support, the gateway declares tasks, a client's task runs there (past
//! the mount's per-call timeout), ends with the upstream's result, stops
//! the upstream's work when cancelled, and belongs to its session only.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::http::Client;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::proxy::Mount;
use mcp_runtime::testing::{TaskCall, TestClient};
use mcp_runtime::transport::HttpOptions;
use serde_json::{Value, json};

/// Sleep `ms` milliseconds, then say so.
#[tool(task = "optional")]
async fn slow(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// A batch job, run only as a task.
#[tool(task = "required")]
async fn batch(n: u64) -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    format!("batch {n} done")
}

/// Answer at once.
#[tool]
fn plain() -> &'static str {
    "plain"
}

/// How many `hold` and `hold_required` calls started, and were stopped.
static STARTED: AtomicUsize = AtomicUsize::new(0);
static STOPPED: AtomicUsize = AtomicUsize::new(0);

struct Stopped;

impl Drop for Stopped {
    fn drop(&mut self) {
        STOPPED.fetch_add(1, Ordering::SeqCst);
    }
}

async fn work_until_stopped() -> String {
    let _stopped = Stopped;
    STARTED.fetch_add(1, Ordering::SeqCst);
    std::future::pending::<()>().await;
    unreachable!()
}

/// Work until stopped.
#[tool(task = "optional")]
async fn hold() -> String {
    work_until_stopped().await
}

/// Work until stopped, only as a task.
#[tool(task = "required")]
async fn hold_required() -> String {
    work_until_stopped().await
}

fn upstream() -> Server {
    Server::empty("jobs", "1")
        .tool(slow::Tool)
        .tool(batch::Tool)
        .tool(plain::Tool)
        .tool(hold::Tool)
        .tool(hold_required::Tool)
}

/// A gateway mounting the upstream under `jobs`, whose direct calls may
/// take 300 ms.
fn gateway() -> Server {
    Server::empty("gateway", "1").mount_with(Mount::new("jobs", upstream()).timeout(Duration::from_millis(300)))
}

async fn serve(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, HttpOptions::new()).await.unwrap() });
    format!("http://{address}/mcp")
}

/// A 2025-11-25 session of the gateway: it and its `initialize` result.
async fn session(url: &str) -> (Client, Value) {
    let mut client = Client::new(url);
    let initialized = client.initialize().await;
    (client, initialized)
}

/// Ask the gateway for a task running `tool`: its id.
async fn create(client: &mut Client, tool: &str, arguments: Value) -> String {
    let created = client.request("tools/call", json!({"name": tool, "arguments": arguments, "task": {}})).await;
    let id = created.last()["result"]["task"]["taskId"].as_str();
    id.unwrap_or_else(|| panic!("no task: {created:?}")).to_owned()
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what} did not happen within 5 s");
}

#[tokio::test]
async fn mounted_tools_keep_their_task_support_and_the_gateway_declares_tasks() {
    let (mut client, initialized) = session(&serve(gateway()).await).await;
    let tasks = &initialized["capabilities"]["tasks"];
    assert_eq!(tasks, &json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}), "{initialized}");
    let tools = client.request("tools/list", json!({})).await.last()["result"]["tools"].clone();
    let support = |name: &str| {
        let tool = tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{tools}"));
        tool.get("execution").map(|e| e["taskSupport"].clone())
    };
    assert_eq!(support("jobs_slow"), Some(json!("optional")));
    assert_eq!(support("jobs_batch"), Some(json!("required")));
    assert_eq!(support("jobs_plain"), None);
}

#[tokio::test]
async fn a_task_through_the_gateway_runs_past_the_mounts_timeout_and_ends_with_the_upstreams_result() {
    let (mut client, _) = session(&serve(gateway()).await).await;
    // A direct call is held to the mount's 300 ms.
    let direct = client.call("jobs_slow", json!({"ms": 600})).await.last()["result"].clone();
    assert_eq!(direct["isError"], true, "{direct}");
    assert!(direct["content"][0]["text"].as_str().unwrap().contains("did not answer within 0.3 s"), "{direct}");

    // As a task it runs on, and the client polls it.
    let id = create(&mut client, "jobs_slow", json!({"ms": 600})).await;
    let task = client.request("tasks/get", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(task["status"], "working", "{task}");
    let result = client.request("tasks/result", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(result["content"][0]["text"], "slept 600 ms", "{result}");
    let task = client.request("tasks/get", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(task["status"], "completed", "{task}");

    // A tool the upstream runs only as a task: refused as a plain call
    // here, and run as a task upstream too when the client asks for one.
    let refused = client.call("jobs_batch", json!({"n": 7})).await;
    assert_eq!(refused.last()["error"]["code"], -32601, "{refused:?}");
    let id = create(&mut client, "jobs_batch", json!({"n": 7})).await;
    let result = client.request("tasks/result", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(result["content"][0]["text"], "batch 7 done", "{result}");
}

#[tokio::test]
async fn cancelling_a_gateway_task_stops_the_upstreams_work() {
    let (mut client, _) = session(&serve(gateway()).await).await;
    for (n, tool) in ["jobs_hold", "jobs_hold_required"].into_iter().enumerate() {
        let id = create(&mut client, tool, json!({})).await;
        until("the upstream's work started", || STARTED.load(Ordering::SeqCst) > n).await;
        let cancelled = client.request("tasks/cancel", json!({"taskId": id})).await.last()["result"].clone();
        assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
        // Past the mount's timeout: the task's end stopped it, not that.
        until("the upstream's work stopped", || STOPPED.load(Ordering::SeqCst) > n).await;
    }
}

#[tokio::test]
async fn a_gateway_task_is_unknown_to_another_session() {
    let url = serve(gateway()).await;
    let ((mut ann, _), (mut bob, _)) = (session(&url).await, session(&url).await);
    let id = create(&mut ann, "jobs_slow", json!({"ms": 5000})).await;
    let unknown = crate::task_isolation::unknown(&id);
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        assert_eq!(bob.request(method, json!({"taskId": id})).await.last()["error"], unknown, "{method}");
    }
    assert_eq!(bob.request("tasks/list", json!({})).await.last()["result"]["tasks"], json!([]));
    let task = ann.request("tasks/get", json!({"taskId": id})).await.last()["result"].clone();
    assert_eq!(task["status"], "working", "the task runs on for its own session: {task}");
    let listed = ann.request("tasks/list", json!({})).await.last()["result"]["tasks"].clone();
    assert_eq!(listed[0]["taskId"], id.as_str());
}

#[tokio::test]
async fn a_client_with_the_tasks_extension_follows_a_mounted_tool_as_a_task_in_both_eras() {
    for version in [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST] {
        let mut client = TestClient::builder(gateway()).version(version).tasks().connect().await.unwrap();
        let calls =
            [("jobs_slow", json!({"ms": 400}), "slept 400 ms"), ("jobs_batch", json!({"n": 4}), "batch 4 done")];
        for (tool, arguments, text) in calls {
            let TaskCall::Task(task) = client.call_as_task(tool, arguments).await.unwrap() else {
                panic!("{tool} waits on its upstream: a task ({version:?})")
            };
            let result = client.finish_task(&task.task_id).await.unwrap();
            assert_eq!(result.content[0].as_text(), Some(text), "{tool} {version:?}");
        }
    }
}
