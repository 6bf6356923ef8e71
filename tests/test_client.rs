//! The public `TestClient`, as a user's unit tests would drive it: typed
//! listing and results, protocol errors, progress and log messages,
//! list changes, and cancelling a call in flight.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::{Server, testing::TestClient};
use serde_json::json;

/// Divide `a` by `b`, with progress and a log line.
#[tool]
fn divide(a: f64, b: f64, ctx: Context) -> Result<f64, ToolError> {
    ctx.info(format!("dividing {a} by {b}"));
    ctx.progress(1.0, 1.0);
    if b == 0.0 { Err(ToolError::new("cannot divide by zero")) } else { Ok(a / b) }
}

static FINISHED: AtomicBool = AtomicBool::new(false);

/// Wait a little, then record that it finished.
#[tool]
async fn wait() -> &'static str {
    tokio::time::sleep(Duration::from_millis(300)).await;
    FINISHED.store(true, Ordering::SeqCst);
    "finished"
}

/// Greet.
#[tool]
fn greet() -> &'static str {
    "hello"
}

fn server() -> Server {
    Server::empty("test-client", "1").tool(divide::Tool).tool(wait::Tool)
}

#[tokio::test]
async fn results_are_typed_and_protocol_errors_are_errors() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["divide", "wait"]);
    assert_eq!(tools[0].input_schema["required"], json!(["a", "b"]));

    let result = client.call_tool("divide", json!({"a": 6, "b": 4})).await.unwrap();
    assert!(!result.is_error());
    assert_eq!(result.content[0].as_text(), Some("1.5"));
    let result = client.call_tool("divide", json!({"a": 6, "b": 0})).await.unwrap();
    assert!(result.is_error());
    assert_eq!(result.content[0].as_text(), Some("cannot divide by zero"));
    let error = client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(error.code, -32602);
}

#[tokio::test]
async fn progress_and_log_messages_are_collected() {
    let mut client = TestClient::connect(server()).await.unwrap();
    client.call_tool("divide", json!({"a": 1, "b": 2})).await.unwrap();
    let progress = client.progress().await;
    assert_eq!(progress.iter().map(|p| (p.progress, p.total)).collect::<Vec<_>>(), [(1.0, Some(1.0))]);
    let logs = client.log_messages().await;
    assert_eq!(logs.len(), 1);
    assert_eq!((logs[0].level, logs[0].data.clone()), (LoggingLevel::Info, json!("dividing 1 by 2")));
    assert!(client.log_messages().await.is_empty(), "taken out of the queue");

    client.set_log_level(LoggingLevel::Error).await.unwrap();
    client.call_tool("divide", json!({"a": 1, "b": 2})).await.unwrap();
    assert!(client.log_messages().await.is_empty());
}

#[tokio::test]
async fn a_cancelled_call_stops_and_never_answers() {
    let mut client = TestClient::connect(server()).await.unwrap();
    let call = client.start_call("wait", json!({})).await;
    let id = call.id();
    // Other calls go on meanwhile.
    assert_eq!(client.call_tool("divide", json!({"a": 4, "b": 2})).await.unwrap().content[0].as_text(), Some("2"));
    client.cancel(call).await;
    // Closing waits for running calls (up to the grace period), so a call
    // that was still running would finish here and answer; the cancelled
    // one never does.
    let rest = client.close().await.unwrap();
    assert!(rest.iter().all(|m| m["id"] != id), "{rest:?}");
    assert!(!FINISHED.load(Ordering::SeqCst));
}

#[tokio::test]
async fn list_changes_are_counted() {
    let server = server();
    let tools = server.tools_handle();
    let mut client = TestClient::connect(server).await.unwrap();
    tools.add(greet::Tool).unwrap();
    tools.disable("wait");
    assert_eq!(client.list_changes().await, 2);
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["divide", "greet"]);
}

/// Wait a little.
#[tool]
async fn pause() -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "paused"
}

#[tokio::test]
async fn the_raw_client_shares_the_connection_and_gets_its_own_answers() {
    let mut client = TestClient::connect(Server::empty("raw", "1").tool(divide::Tool).tool(pause::Tool)).await.unwrap();
    // A call of the test client's waits while the raw client asks.
    let call = client.start_call("pause", json!({})).await;
    let raw = client.raw().request("tools/call", json!({"name": "divide", "arguments": {"a": 9, "b": 3}})).await;
    let raw = raw.unwrap();
    assert_eq!(raw["result"]["content"][0]["text"], "3", "{raw}");
    // A hand-written message is answered to the raw client too.
    client.raw().send(&json!({"jsonrpc": "2.0", "id": "by-hand", "method": "ping"})).await.unwrap();
    let answer = client.raw().response_to(&json!("by-hand")).await.unwrap();
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "by-hand", "result": {}}));
    // The raw call's log line went to the test client's queue, in order.
    let lines = client.log_messages().await;
    assert_eq!(lines.iter().map(|l| l.data.clone()).collect::<Vec<_>>(), [json!("dividing 9 by 3")]);
    assert!(client.raw().take_notifications().is_empty());
    assert_eq!(client.finish(call).await.unwrap().content[0].as_text(), Some("paused"));
}
