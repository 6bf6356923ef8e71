//! The client crate's tasks against a server of ours, over Streamable HTTP,
//! in every shape the server speaks: 2025-11-25's core tasks (asked for
//! with `params.task`), and the tasks extension declared in a 2025-11-25
//! session and in 2026-07-28.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_core::task::TaskStatus;
use mcp_core::{ElicitAction, ElicitResult, ProtocolVersion};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime_client::{Client, ClientBuilder, EraChoice, Error, TaskCall};
use serde_json::json;

/// Each shape: the version, and whether the client declares the extension.
const SHAPES: [(ProtocolVersion, bool); 3] =
    [(ProtocolVersion::V2025_11_25, false), (ProtocolVersion::V2025_11_25, true), (ProtocolVersion::LATEST, true)];

/// Take `ms` milliseconds, then say so.
#[tool(task = "optional")]
async fn slow(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Work until stopped.
#[tool(task = "optional")]
async fn forever() -> String {
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
    tokio::time::sleep(Duration::from_millis(20)).await;
    let answer = ctx.elicit::<Go>("Go on?").key("go").await?;
    Ok(format!("go: {}", answer.accepted().is_some_and(|g| g.go)))
}

async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let server = Server::empty("tasks", "1").tool(slow::Tool).tool(forever::Tool).tool(ask_midway::Tool);
    tokio::spawn(async move { server.serve_http_on(listener, HttpOptions::new()).await.unwrap() });
    format!("http://{addr}/mcp")
}

fn builder((version, extension): (ProtocolVersion, bool)) -> ClientBuilder {
    let builder = Client::builder().era(EraChoice::Version(version)).on_elicitation(|_| async {
        Ok(ElicitResult { action: ElicitAction::Accept, content: json!({"go": true}).as_object().cloned() })
    });
    if extension { builder.tasks() } else { builder }
}

async fn connect(url: &str, shape: (ProtocolVersion, bool)) -> Client {
    builder(shape).http(url).await.expect("the client connects")
}

fn text(result: &mcp_core::CallToolResult) -> &str {
    result.content[0].as_text().unwrap_or_default()
}

/// The task `call` became.
fn task(call: TaskCall) -> mcp_core::task::Task {
    match call {
        TaskCall::Task(task) => task,
        TaskCall::Done(result) => panic!("answered directly: {result:?}"),
    }
}

#[tokio::test]
async fn a_task_is_created_seen_working_and_ends_with_the_tools_result() {
    let url = serve().await;
    for shape in SHAPES {
        let client = connect(&url, shape).await;
        let created = task(client.call_as_task("slow", json!({"ms": 300})).await.unwrap());
        assert_eq!(created.status, TaskStatus::Working, "{shape:?}");
        assert!(created.ttl_ms.is_some() && created.poll_interval_ms.is_some(), "{shape:?}: {created:?}");
        let seen = client.get_task(&created.task_id).await.unwrap();
        assert_eq!((seen.task.task_id.as_str(), seen.task.status), (created.task_id.as_str(), TaskStatus::Working));
        let result = client.task_result(&created.task_id).await.unwrap();
        assert_eq!(text(&result), "slept 300 ms", "{shape:?}");
        let ended = client.get_task(&created.task_id).await.unwrap();
        assert_eq!(ended.task.status, TaskStatus::Completed, "{shape:?}");

        // Created, waited for and read in one go.
        let result = client.run_as_task("slow", json!({"ms": 20})).await.unwrap();
        assert_eq!(text(&result), "slept 20 ms", "{shape:?}");
        // A plain call gets the result whatever the server made of it.
        let result = client.call("slow", json!({"ms": 20})).await.unwrap();
        assert_eq!(text(&result), "slept 20 ms", "{shape:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_running_task_is_cancelled_and_has_no_result() {
    let url = serve().await;
    for shape in SHAPES {
        let client = connect(&url, shape).await;
        let running = task(client.call_as_task("forever", json!({})).await.unwrap());
        client.cancel_task(&running.task_id).await.unwrap();
        assert_eq!(client.get_task(&running.task_id).await.unwrap().task.status, TaskStatus::Cancelled);
        let finished = client.finish_task(&running.task_id).await;
        assert!(matches!(finished, Err(Error::Cancelled(_))), "{shape:?}: {finished:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_task_asks_midway_and_the_clients_handlers_answer() {
    let url = serve().await;
    for shape in SHAPES {
        let client = connect(&url, shape).await;
        let result = client.run_as_task("ask_midway", json!({})).await.unwrap();
        assert_eq!(text(&result), "go: true", "{shape:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn core_tasks_are_listed_within_the_clients_list_bounds() {
    let url = serve().await;
    let core = (ProtocolVersion::V2025_11_25, false);
    let client = connect(&url, core).await;
    let first = task(client.call_as_task("slow", json!({"ms": 1})).await.unwrap());
    let listed = client.list_tasks().await.unwrap();
    assert_eq!(listed.iter().map(|t| t.task_id.as_str()).collect::<Vec<_>>(), [first.task_id.as_str()]);
    task(client.call_as_task("slow", json!({"ms": 1})).await.unwrap());
    assert_eq!(client.list_tasks().await.unwrap().len(), 2);

    let bounded = builder(core).max_list_items(1).http(&url).await.unwrap();
    task(bounded.call_as_task("slow", json!({"ms": 1})).await.unwrap());
    task(bounded.call_as_task("slow", json!({"ms": 1})).await.unwrap());
    let over = bounded.list_tasks().await;
    assert!(matches!(&over, Err(Error::Limit(why)) if why.contains("max_list_items")), "{over:?}");

    // The extension has no list.
    let extension = connect(&url, (ProtocolVersion::LATEST, true)).await;
    let refused = extension.list_tasks().await.unwrap_err();
    assert_eq!(refused.server_error().map(|e| e.code), Some(-32601), "{refused}");
}

#[tokio::test]
async fn another_sessions_task_is_refused_as_unknown() {
    let url = serve().await;
    // Handshake sessions bind their tasks; 2026-07-28 without OAuth has no
    // session to bind them to.
    for shape in &SHAPES[..2] {
        let owner = connect(&url, *shape).await;
        let stranger = connect(&url, *shape).await;
        let running = task(owner.call_as_task("forever", json!({})).await.unwrap());
        let refusals = [
            stranger.get_task(&running.task_id).await.map(drop),
            stranger.cancel_task(&running.task_id).await,
            stranger.task_result(&running.task_id).await.map(drop),
        ];
        for refused in refusals {
            let code = refused.as_ref().err().and_then(Error::server_error).map(|e| e.code);
            assert_eq!(code, Some(-32602), "{shape:?}: {refused:?}");
        }
        assert_eq!(owner.get_task(&running.task_id).await.unwrap().task.status, TaskStatus::Working);
        owner.cancel_task(&running.task_id).await.unwrap();
    }
}
