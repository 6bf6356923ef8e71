//! Tool attributes: name, title, description, the four hints, timeout,
//! icons and `_meta`, as a client sees them.

use std::time::Duration;

use crate::support::client::{call, connect, error, find, list, text};
use mcp_runtime::prelude::*;
use serde_json::json;

/// This doc comment is replaced by the attribute's description.
#[tool(
    name = "files.delete-one",
    title = "Delete a file",
    description = "Delete one file by path.",
    destructive,
    idempotent,
    read_only = false,
    open_world = false
)]
fn delete(path: String) -> String {
    format!("deleted {path}")
}

/// Sleep for a while; stopped after 50 ms.
#[tool(timeout = "50ms")]
async fn nap(seconds: u64) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    "rested".into()
}

/// Quick enough for its timeout.
#[tool(timeout = "1.5s", read_only)]
async fn quick() -> &'static str {
    "done"
}

const PRIORITY: u8 = 3;

/// Decorated with icons and metadata.
#[tool(
    icon = "https://example.com/icon.png",
    icon(src = "data:image/svg+xml;base64,PHN2Zy8+", mime_type = "image/svg+xml", sizes = ["any"], theme = "dark"),
    meta("com.example/priority" = PRIORITY, "com.example/tags" = ["a", "b"], "plain" = true)
)]
fn decorated() {}

/// Runs the case: its checks panic when a shape is not honoured.
#[tokio::main]
pub async fn run() {
    let mut client =
        connect(Server::empty("attrs", "1").tool(delete::Tool).tool(nap::Tool).tool(quick::Tool).tool(decorated::Tool))
            .await;
    let tools = list(&mut client).await;

    let delete = find(&tools, "files.delete-one");
    assert_eq!(delete["title"], "Delete a file");
    assert_eq!(delete["description"], "Delete one file by path.");
    assert_eq!(
        delete["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(find(&tools, "quick")["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(find(&tools, "nap")["title"], "Nap");

    let decorated = find(&tools, "decorated");
    assert_eq!(
        decorated["icons"],
        json!([
            {"src": "https://example.com/icon.png"},
            {"src": "data:image/svg+xml;base64,PHN2Zy8+", "mimeType": "image/svg+xml", "sizes": ["any"], "theme": "dark"}
        ])
    );
    assert_eq!(decorated["_meta"], json!({"com.example/priority": 3, "com.example/tags": ["a", "b"], "plain": true}));

    assert_eq!(text(&call(&mut client, "files.delete-one", json!({"path": "/tmp/x"})).await), "deleted /tmp/x");
    assert_eq!(text(&call(&mut client, "quick", json!({})).await), "done");
    let out = call(&mut client, "nap", json!({"seconds": 3600})).await;
    assert_eq!(error(&out), "tool `nap` timed out after 0.05 seconds and was stopped");
}
