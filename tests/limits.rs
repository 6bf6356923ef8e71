//! Rate limits through the protocol: a burst up to the limit runs, the
//! next call gets a tool error saying when to retry, and the limits of a
//! tool and of the server both apply.

use std::time::Duration;

use crate::common::memory::{call, connect};
use mcp_runtime::prelude::*;
use mcp_runtime::{Error, Server};
use serde_json::{Value, json};

/// Look something up; at most two calls a minute.
#[tool(rate_limit = "2/m")]
fn lookup(key: String) -> String {
    format!("value of {key}")
}

/// Echo, with no limit of its own.
#[tool]
fn echo(text: String) -> String {
    text
}

fn refusal(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_tool_over_its_limit_is_told_when_to_retry() {
    let mut client = connect(Server::empty("limits", "1").tool(lookup::Tool).tool(echo::Tool)).await;
    for _ in 0..2 {
        assert_eq!(call(&mut client, "lookup", json!({"key": "k"})).await["content"][0]["text"], "value of k");
    }
    let text = refusal(&call(&mut client, "lookup", json!({"key": "k"})).await);
    assert!(text.starts_with("tool `lookup` is rate limited to 2 calls per minute; retry in "), "{text}");
    assert!(text.ends_with(" seconds"), "{text}");
    // Bad arguments are answered before the limit and use none of it;
    // other tools are not affected.
    let bad = call(&mut client, "lookup", json!({})).await;
    assert_eq!(bad["content"][0]["text"], "argument `key`: required but not sent");
    assert_eq!(call(&mut client, "echo", json!({"text": "hi"})).await["content"][0]["text"], "hi");
}

#[tokio::test]
async fn a_server_limit_covers_all_tools_together() {
    let server =
        Server::empty("limits", "1").tool(lookup::Tool).tool(echo::Tool).rate_limit(3, Duration::from_secs(3600));
    let mut client = connect(server).await;
    call(&mut client, "echo", json!({"text": "1"})).await;
    call(&mut client, "lookup", json!({"key": "2"})).await;
    call(&mut client, "echo", json!({"text": "3"})).await;
    let text = refusal(&call(&mut client, "echo", json!({"text": "4"})).await);
    assert!(text.starts_with("this server is rate limited to 3 calls per hour; retry in "), "{text}");
}

#[tokio::test]
async fn a_limit_that_allows_nothing_stops_the_server_at_start_up() {
    let server = Server::empty("limits", "1").tool(echo::Tool).rate_limit(0, Duration::from_secs(1));
    let err = server.tool_definitions().unwrap_err();
    assert!(matches!(err, Error::InvalidRateLimit { tool: None, .. }), "{err}");
    let server = Server::empty("limits", "1").tool(echo::Tool).rate_limit(5, Duration::ZERO);
    assert!(matches!(server.connect_in_memory().map(drop), Err(Error::InvalidRateLimit { .. })));
}
