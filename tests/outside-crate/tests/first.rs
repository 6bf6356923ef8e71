//! The README's "Your first test", on this crate's own tools.

use mcp_runtime::{Server, testing::TestClient};
use outside_crate as _; // the library, named so the linker keeps its tools
use serde_json::json;

#[tokio::test]
async fn greet_by_title() {
    let mut client = TestClient::connect(Server::new("outside", "0.1.0")).await.unwrap();
    let result = client.call_tool("greet", json!({"name": "Ada", "title": "Dr"})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Hello, Dr Ada"));
}
