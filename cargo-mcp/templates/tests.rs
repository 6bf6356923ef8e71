//! The server's tools, called as a client calls them, and what every
//! major MCP client would make of their schemas.

use mcp_runtime::clients::check_clients;
use mcp_runtime::testing::TestClient;
use serde_json::json;

#[tokio::test]
async fn add_adds() {
    let mut client = TestClient::connect({{crate}}::server()).await.unwrap();
    let result = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("5"));
}

#[tokio::test]
async fn greet_greets() {
    let mut client = TestClient::connect({{crate}}::server()).await.unwrap();
    let result = client.call_tool("greet", json!({"name": "Ada"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
}

/// Fails when a client would reject a tool or mishandle its schema:
/// keep it in CI.
#[test]
fn every_client_takes_the_tools() {
    check_clients(&{{crate}}::server()).assert_clear();
}
