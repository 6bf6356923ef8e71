//! An HTTP endpoint that issues no session ids
//! (`HttpOptions::session_ids(false)`): `initialize` is answered without
//! one, each handshake-era request is answered from itself (the version its
//! `MCP-Protocol-Version` header names, 2025-03-26 without one), the
//! methods that need a session are refused with an error that says so,
//! nothing of one client reaches another (per-user state needs a token or
//! a handle), and our client works against it.

use crate::common::http::Client as RawClient;
use mcp_core::ProtocolVersion;
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime::userstate::{StateLimits, UserState, UserStore};
use mcp_runtime_client::{Client, EraChoice};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Add two numbers.
#[tool(title = "Add")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Count your calls.
#[tool]
async fn count(calls: UserState<u64>) -> Result<u64, ToolError> {
    Ok(calls
        .update(|n| {
            *n += 1;
            *n
        })
        .await?)
}

async fn serve() -> String {
    let server = Server::empty("plain", "1")
        .tool(add::Tool)
        .tool(count::Tool)
        .user_state(UserStore::memory(StateLimits::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server.serve_http_on(listener, HttpOptions::new().session_ids(false)));
    url
}

/// POST `message`, naming `version` in `MCP-Protocol-Version` if given.
async fn post(client: &RawClient, version: Option<&str>, message: Value) -> crate::common::http::Answer {
    let mut request = client.post("application/json, text/event-stream").json(&message);
    if let Some(version) = version {
        request = request.header("mcp-protocol-version", version);
    }
    client.send(request).await
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn each_handshake_request_is_answered_from_itself_and_what_needs_a_session_is_refused() {
    let url = serve().await;
    let client = RawClient::new(&url);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let answer = post(&client, None, init).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert!(answer.headers.get("mcp-session-id").is_none(), "no session id: {answer:?}");
    assert_eq!(answer.last()["result"]["protocolVersion"], "2025-11-25");
    let initialized =
        post(&client, Some("2025-11-25"), json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(initialized.await.status, StatusCode::ACCEPTED);

    let sum = post(&client, Some("2025-11-25"), call(2, "add", json!({"a": 2, "b": 3}))).await;
    assert_eq!(sum.status, StatusCode::OK, "{sum:?}");
    assert_eq!(sum.last()["result"]["content"][0]["text"], "5", "{sum:?}");
    let listed = post(&client, Some("2025-06-18"), json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})).await;
    let names: Vec<&str> =
        listed.last()["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "count"]);
    assert_eq!(listed.last()["result"]["tools"][0]["title"], "Add", "2025-06-18 lists titles");
    // Without the header, 2025-03-26, which lists no titles.
    let old = post(&client, None, json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})).await;
    assert_eq!(old.last()["result"]["tools"][0]["name"], "add", "{old:?}");
    assert!(old.last()["result"]["tools"][0].get("title").is_none(), "{old:?}");
    let unknown = post(&client, Some("1999-01-01"), call(5, "add", json!({"a": 1, "b": 1}))).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST, "{unknown:?}");

    let refusals = [
        json!({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel", "params": {"level": "debug"}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/subscribe", "params": {"uri": "x://y"}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "tasks/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "task": {"ttl": 1000}}}),
    ];
    for message in refusals {
        let refused = post(&client, Some("2025-11-25"), message.clone()).await;
        let error = &refused.last()["error"];
        assert_eq!(error["code"], -32600, "{message}: {refused:?}");
        let text = error["message"].as_str().unwrap();
        assert!(text.contains("needs a session") && text.contains("session_ids(false)"), "{text}");
    }

    // No session owns state: without a token or a handle there is no user,
    // and one client's calls never count as another's.
    let counted = post(&client, Some("2025-11-25"), call(10, "count", json!({}))).await;
    assert_eq!(counted.last()["result"]["isError"], true, "{counted:?}");
    let text = counted.last()["result"]["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("this request has no user"), "{text}");
}

#[tokio::test]
async fn our_client_works_against_an_endpoint_without_session_ids() {
    let url = serve().await;
    let client = Client::builder()
        .name("sessionless", "1")
        .era(EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE))
        .http(&url)
        .await
        .unwrap();
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["add", "count"]);
    let sum = client.call("add", json!({"a": 20, "b": 22})).await.unwrap();
    let text: Vec<&str> = sum.content.iter().filter_map(|c| c.as_text()).collect();
    assert_eq!(text, ["42"]);
}

/// Work that may become a task.
#[tool(task = "optional")]
async fn slow() -> String {
    "done".into()
}

/// A note.
#[resource("notes://today")]
fn today() -> String {
    "nothing yet".into()
}

#[tokio::test]
async fn initialize_declares_only_what_works_without_a_session() {
    let server = || Server::empty("plain", "1").tool(add::Tool).tool(slow::Tool).resource(today::Resource);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server().serve_http_on(listener, HttpOptions::new().session_ids(false)));
    let client = RawClient::new(&url);
    let init = |version: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    };
    for version in ["2025-11-25", "2025-03-26"] {
        let answer = post(&client, None, init(version)).await;
        let capabilities = &answer.last()["result"]["capabilities"];
        // What works: the lists, reads, logging on a call's own stream.
        assert_eq!(capabilities["tools"], json!({}), "{version}: no listChanged: {capabilities}");
        assert_eq!(capabilities["resources"], json!({}), "{version}: no subscribe: {capabilities}");
        assert!(capabilities.get("logging").is_some(), "{version}: {capabilities}");
        // What needs a session to come back to: tasks, in both spellings.
        assert!(capabilities.get("tasks").is_none(), "{version}: {capabilities}");
        assert!(capabilities.pointer("/extensions/io.modelcontextprotocol~1tasks").is_none(), "{capabilities}");
    }

    // The same server with session ids declares them all.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server().serve_http_on(listener, HttpOptions::new()));
    let answer = post(&RawClient::new(&url), None, init("2025-11-25")).await;
    let capabilities = &answer.last()["result"]["capabilities"];
    assert_eq!(capabilities["tools"]["listChanged"], true, "{capabilities}");
    assert_eq!(capabilities["resources"]["subscribe"], true, "{capabilities}");
    assert!(capabilities.get("tasks").is_some(), "{capabilities}");
    assert!(capabilities.pointer("/extensions/io.modelcontextprotocol~1tasks").is_some(), "{capabilities}");
}
