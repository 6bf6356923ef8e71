//! The `everything` example, which the official conformance suite tests in
//! CI (`.ci/run`), checked here against the suite's expectations directly.
//!
//! The suite passes some scenarios vacuously (a server that answers an
//! unknown tool with an error result passes `tools-call-error`), so this
//! test makes sure every fixture it calls is really listed and really
//! behaves as its scenario says. The example runs as a process serving
//! HTTP on a port of its choosing, as CI runs it.

use crate::common::http::Client;
use serde_json::{Value, json};
use tokio::process::Child;

/// The tools the suite's tools scenarios call (`tools-call-*`, apart from
/// sampling and elicitation, which wait for those features).
const FIXTURES: [&str; 8] = [
    "test_audio_content",
    "test_embedded_resource",
    "test_error_handling",
    "test_image_content",
    "test_multiple_content_types",
    "test_simple_text",
    "test_tool_with_logging",
    "test_tool_with_progress",
];

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Start the example on a free port; return it and its endpoint's URL.
async fn start() -> (Child, String) {
    crate::common::example_over_http("everything", &["--http".as_ref(), "127.0.0.1:0".as_ref()]).await
}

async fn call(client: &mut Client, tool: &str, meta: Value) -> Vec<Value> {
    client.next_id += 1;
    let message = json!({
        "jsonrpc": "2.0", "id": client.next_id, "method": "tools/call",
        "params": {"name": tool, "_meta": meta}
    });
    client.message(&message).await.messages
}

#[tokio::test]
async fn every_fixture_the_suite_calls_is_listed_and_behaves_as_its_scenario_expects() {
    let (_server, url) = start().await;
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
    let mut client = Client::new(&url);
    // As the suite's client connects.
    let init = client.initialize().await;
    assert_eq!(init["serverInfo"]["name"], "everything");

    let listed = client.request("tools/list", json!({})).await;
    let tools = listed.last()["result"]["tools"].as_array().unwrap().clone();
    for fixture in FIXTURES {
        let tool = tools.iter().find(|t| t["name"] == *fixture).unwrap_or_else(|| panic!("{fixture} is not listed"));
        assert!(!tool["description"].as_str().unwrap_or("").is_empty(), "{fixture} has no description");
        assert_eq!(tool["inputSchema"]["type"], "object");
    }

    let content = |messages: &[Value]| messages.last().unwrap()["result"]["content"].clone();
    let text = call(&mut client, "test_simple_text", json!({})).await;
    assert_eq!(content(&text), json!([{"type": "text", "text": "This is a simple text response for testing."}]));

    let image = call(&mut client, "test_image_content", json!({})).await;
    assert_eq!(content(&image), json!([{"type": "image", "data": PNG, "mimeType": "image/png"}]));

    let audio = call(&mut client, "test_audio_content", json!({})).await;
    assert_eq!(content(&audio), json!([{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]));

    let embedded = call(&mut client, "test_embedded_resource", json!({})).await;
    assert_eq!(
        content(&embedded),
        json!([{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."
        }}])
    );

    let mixed = call(&mut client, "test_multiple_content_types", json!({})).await;
    assert_eq!(
        content(&mixed),
        json!([
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": {
                "uri": "test://mixed-content-resource", "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"
            }}
        ])
    );

    let error = call(&mut client, "test_error_handling", json!({})).await;
    let result = &error.last().unwrap()["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], "This tool intentionally returns an error for testing");

    // The suite sets the level to debug first and counts every log message.
    let level = client.request("logging/setLevel", json!({"level": "debug"})).await;
    assert_eq!(level.last()["result"], json!({}));
    let logged = call(&mut client, "test_tool_with_logging", json!({})).await;
    let logs: Vec<&Value> =
        logged.iter().filter(|m| m["method"] == "notifications/message").map(|m| &m["params"]["data"]).collect();
    assert_eq!(logs, ["Tool execution started", "Tool processing data", "Tool execution completed"]);

    // The suite's client sends its request id as the (numeric) token.
    let progressed = call(&mut client, "test_tool_with_progress", json!({"progressToken": 1})).await;
    let progress: Vec<(&Value, &Value)> = progressed
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| (&m["params"]["progressToken"], &m["params"]["progress"]))
        .collect();
    assert_eq!(progress, [(&json!(1), &json!(0.0)), (&json!(1), &json!(50.0)), (&json!(1), &json!(100.0))]);
    assert!(progressed.last().unwrap()["result"]["content"][0]["text"].as_str().unwrap().contains("token 1"));

    // An unknown tool is a protocol error here, so no scenario can pass
    // merely because the server reported a missing fixture as a tool error.
    let unknown = call(&mut client, "test_no_such_fixture", json!({})).await;
    assert_eq!(unknown.last().unwrap()["error"]["code"], -32602);

    // The sampling fixture asks the client only if it declared sampling
    // (this one did not): a tool error, never a request that hangs.
    let sampling =
        client.request("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}})).await.messages;
    assert_eq!(sampling.len(), 1, "no request went to the client: {sampling:?}");
    let result = &sampling[0]["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], "the client did not declare the `sampling` capability");
}

#[tokio::test]
async fn the_example_refuses_a_rebinding_request_as_the_suite_checks() {
    let (_server, url) = start().await;
    let client = Client::new(&url);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
    }});
    let evil = client
        .post("application/json, text/event-stream")
        .header("host", "evil.example.com")
        .header("origin", "http://evil.example.com");
    assert_eq!(client.send(evil.json(&init)).await.status, reqwest::StatusCode::FORBIDDEN);
    let authority = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let good = client
        .post("application/json, text/event-stream")
        .header("host", &authority)
        .header("origin", format!("http://{authority}"));
    assert_eq!(client.send(good.json(&init)).await.status, reqwest::StatusCode::OK);
}
