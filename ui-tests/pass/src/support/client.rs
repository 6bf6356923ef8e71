//! A client connected in memory, and readers for the results it gets.

use mcp_runtime::{Server, transport::InMemoryClient};
use serde_json::{Value, json};

/// A client that has completed the handshake with `server`.
pub async fn connect(server: Server) -> InMemoryClient {
    let mut client = server.connect_in_memory().expect("the server starts");
    client.initialize().await.expect("the handshake succeeds");
    client
}

/// The `tools/list` result's tools.
pub async fn list(client: &mut InMemoryClient) -> Vec<Value> {
    let response = client.request("tools/list", json!({})).await.expect("tools/list is answered");
    response["result"]["tools"].as_array().expect("a list of tools").clone()
}

/// The listed tool named `name`.
pub fn find<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no tool `{name}` in {tools:#?}"))
}

/// The `tools/call` result.
pub async fn call(client: &mut InMemoryClient, name: &str, arguments: Value) -> Value {
    let response = client
        .request("tools/call", json!({"name": name, "arguments": arguments}))
        .await
        .expect("tools/call is answered");
    response.get("result").cloned().unwrap_or_else(|| panic!("`{name}` got no result: {response}"))
}

/// The text of a successful result's single text block.
pub fn text(result: &Value) -> &str {
    assert_ne!(result["isError"], json!(true), "expected success: {result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {result}"))
}

/// The text of a failed (`isError`) result.
pub fn error(result: &Value) -> &str {
    assert_eq!(result["isError"], json!(true), "expected an error: {result}");
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {result}"))
}
