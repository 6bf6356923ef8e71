//! Tool sets that change while the server runs: each change is announced
//! with `notifications/tools/list_changed`, and listing pages stay right
//! across changes.

use crate::common::memory::{call, connect, list};
use mcp_runtime::prelude::*;
use mcp_runtime::{Error, Server, transport::InMemoryClient};
use serde_json::{Value, json};

/// Tool a.
#[tool]
fn alpha() -> &'static str {
    "a"
}

/// Tool b.
#[tool]
fn bravo() -> &'static str {
    "b"
}

/// Tool c.
#[tool]
fn charlie() -> &'static str {
    "c"
}

/// Tool d.
#[tool]
fn delta() -> &'static str {
    "d"
}

/// Another tool called `alpha`.
#[tool(name = "alpha")]
fn alpha_again() -> &'static str {
    "a2"
}

async fn names(client: &mut InMemoryClient) -> Vec<String> {
    list(client).await.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

/// The `list_changed` notifications received so far.
async fn changes(client: &mut InMemoryClient) -> usize {
    client.request("ping", json!({})).await.unwrap();
    let notifications = client.take_notifications();
    assert!(notifications.iter().all(|n| n["method"] == "notifications/tools/list_changed"), "{notifications:?}");
    notifications.len()
}

#[tokio::test]
async fn adding_removing_enabling_and_disabling_are_announced() {
    let server = Server::empty("dynamic", "1").tool(alpha::Tool);
    let tools = server.tools_handle();
    tools.add(bravo::Tool).unwrap();
    let mut client = server.connect_in_memory().unwrap();
    let init = client.initialize().await.unwrap();
    assert_eq!(init["capabilities"]["tools"], json!({"listChanged": true}));
    assert_eq!(names(&mut client).await, ["alpha", "bravo"]);
    assert_eq!(changes(&mut client).await, 0);

    tools.add(charlie::Tool).unwrap();
    assert_eq!(changes(&mut client).await, 1);
    assert_eq!(names(&mut client).await, ["alpha", "bravo", "charlie"]);
    assert_eq!(call(&mut client, "charlie", json!({})).await["content"][0]["text"], "c");

    assert!(tools.disable("bravo"));
    assert!(!tools.disable("bravo"), "already disabled");
    assert_eq!(changes(&mut client).await, 1);
    assert_eq!(names(&mut client).await, ["alpha", "charlie"]);
    let response = client.request("tools/call", json!({"name": "bravo", "arguments": {}})).await.unwrap();
    assert_eq!(response["error"]["code"], -32602);
    assert_eq!(tools.names(), ["alpha", "bravo", "charlie"], "a disabled tool is still registered");

    assert!(tools.enable("bravo"));
    assert_eq!(changes(&mut client).await, 1);
    assert_eq!(names(&mut client).await, ["alpha", "bravo", "charlie"]);

    assert!(tools.remove("alpha"));
    assert!(!tools.remove("alpha"));
    assert_eq!(changes(&mut client).await, 1);
    assert_eq!(names(&mut client).await, ["bravo", "charlie"]);

    // A change that would break the server is refused, and nothing changes.
    tools.add(alpha::Tool).unwrap();
    assert_eq!(changes(&mut client).await, 1);
    let err = tools.add(alpha_again::Tool).unwrap_err();
    assert!(matches!(err, Error::DuplicateTool { .. }), "{err}");
    assert_eq!(changes(&mut client).await, 0);
    assert_eq!(call(&mut client, "alpha", json!({})).await["content"][0]["text"], "a");
}

#[tokio::test]
async fn every_connected_client_hears_of_a_change() {
    let server = Server::empty("dynamic", "1").tool(alpha::Tool);
    let tools = server.tools_handle();
    let mut first = connect(server).await;
    tools.add(bravo::Tool).unwrap();
    assert_eq!(changes(&mut first).await, 1);
    drop(first);
    // A closed connection is simply no longer told.
    tools.add(charlie::Tool).unwrap();
}

#[tokio::test]
async fn pages_stay_right_when_tools_change_between_them() {
    let server = Server::empty("dynamic", "1").tool(alpha::Tool).tool(bravo::Tool).tool(charlie::Tool).page_size(2);
    let tools = server.tools_handle();
    let mut client = connect(server).await;
    let page = |result: &Value| -> Vec<String> {
        result["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
    };
    let first = client.request("tools/list", json!({})).await.unwrap()["result"].clone();
    assert_eq!(page(&first), ["alpha", "bravo"]);
    let cursor = first["nextCursor"].clone();

    // The page's last tool goes away and another arrives: the next page
    // still starts after it, with nothing skipped and nothing repeated.
    tools.remove("bravo");
    tools.add(delta::Tool).unwrap();
    let second = client.request("tools/list", json!({"cursor": cursor})).await.unwrap()["result"].clone();
    assert_eq!(page(&second), ["charlie", "delta"]);
    assert_eq!(second.get("nextCursor"), None);
    // A cursor that is not ours is invalid params.
    let response = client.request("tools/list", json!({"cursor": "3"})).await.unwrap();
    assert_eq!(response["error"]["code"], -32602);
}

/// Allowed once a minute.
#[tool(rate_limit = "1/minute")]
fn scarce() -> &'static str {
    "granted"
}

#[tokio::test]
async fn a_change_at_run_time_leaves_the_other_tools_allowances_alone() {
    let server = Server::empty("dynamic", "1").tool(scarce::Tool);
    let tools = server.tools_handle();
    let mut client = connect(server).await;
    let first = call(&mut client, "scarce", json!({})).await;
    assert_eq!(first["content"][0]["text"], "granted");
    let second = call(&mut client, "scarce", json!({})).await;
    assert_eq!(second["isError"], true, "{second}");
    // Adding, disabling and enabling other tools rebuilds none of the
    // others: `scarce` is still out of calls for this minute.
    tools.add(alpha::Tool).unwrap();
    tools.disable("alpha");
    tools.enable("alpha");
    let third = call(&mut client, "scarce", json!({})).await;
    assert_eq!(third["isError"], true, "the allowance was reset by a change: {third}");
    assert!(third["content"][0]["text"].as_str().unwrap().contains("rate limited"), "{third}");
    assert_eq!(call(&mut client, "alpha", json!({})).await["content"][0]["text"], "a");
}
