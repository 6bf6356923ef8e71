//! Helpers for the tests that drive a server in memory, as a client would.

use mcp_runtime::{Server, transport::InMemoryClient};
use serde_json::{Value, json};

/// A client that has completed the handshake with `server` at the newest
/// handshake version.
pub async fn connect(server: Server) -> InMemoryClient {
    let mut client = server.connect_in_memory().expect("the server starts");
    client.initialize().await.expect("the handshake succeeds");
    client
}

/// A client that has completed the handshake at protocol `version`.
pub async fn connect_as(server: Server, version: &str) -> InMemoryClient {
    let mut client = server.connect_in_memory().expect("the server starts");
    let init = json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    let response = client.request("initialize", init).await.expect("initialize is answered");
    assert_eq!(response["result"]["protocolVersion"], version, "{response}");
    client.notify("notifications/initialized", json!({})).await.expect("the client can write");
    client
}

/// The `tools/list` result's tools.
pub async fn list(client: &mut InMemoryClient) -> Vec<Value> {
    let response = client.request("tools/list", json!({})).await.expect("tools/list is answered");
    response["result"]["tools"].as_array().unwrap_or_else(|| panic!("no tools in {response}")).clone()
}

/// The `tools/call` result.
pub async fn call(client: &mut InMemoryClient, name: &str, arguments: Value) -> Value {
    let response = client
        .request("tools/call", json!({"name": name, "arguments": arguments}))
        .await
        .expect("tools/call is answered");
    response.get("result").cloned().unwrap_or_else(|| panic!("expected a result, got {response}"))
}
