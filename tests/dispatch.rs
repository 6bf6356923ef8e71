//! The protocol, driven in memory as a client would: handshake, listing,
//! calls, errors, concurrency, cancellation and shutdown.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use crate::common::memory::{call, connect};
use mcp_runtime::Error;
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Greet someone.
#[tool(read_only)]
fn greet(
    /// Whom to greet; everyone when absent
    name: Option<String>,
) -> String {
    format!("hello {}", name.as_deref().unwrap_or("world"))
}

/// A failure the model should see.
#[tool]
fn fail_public() -> Result<String, ToolError> {
    Err(ToolError::new("the widget is out of stock"))
}

/// A failure with internal details.
#[tool]
fn fail_internal() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("connection to db.internal:5432 refused"))
}

/// Panics.
#[tool]
fn panics() -> String {
    panic!("secret detail in a panic")
}

/// Sleep, then answer.
#[tool]
async fn slow(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}")
}

static RECORDED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

fn recorded(key: &str) -> bool {
    RECORDED.lock().unwrap().as_ref().is_some_and(|s| s.contains(key))
}

/// Wait, then record `key`.
#[tool]
async fn record(ms: u64, key: String) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    RECORDED.lock().unwrap().get_or_insert_with(HashSet::new).insert(key.clone());
    format!("recorded {key}")
}

/// A point.
#[derive(Deserialize, JsonSchema)]
struct Point {
    /// Horizontal
    x: i32,
    /// Vertical, when known
    y: Option<u8>,
}

/// A color.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Color {
    /// Like blood
    DeepRed,
    /// Like the sky
    Blue,
}

/// Describe shapes.
#[tool]
fn shapes(points: Vec<Point>, color: Color, scale: Option<u32>) -> String {
    let color = match color {
        Color::DeepRed => "deep red",
        Color::Blue => "blue",
    };
    let span: i64 = points.iter().map(|p| i64::from(p.x) + i64::from(p.y.unwrap_or(0))).sum();
    format!("{} points (span {span}) in {color} at {}x", points.len(), scale.unwrap_or(1))
}

/// A second tool that claims the name `add`.
#[tool(name = "add")]
fn add_again(a: f64) -> f64 {
    a
}

/// A hand-written tool that panics before it returns its future.
struct PanicsEarly;

impl mcp_runtime::tools::Tool for PanicsEarly {
    fn definition(&self) -> mcp_runtime::tools::ToolDefinition {
        let mut builder = mcp_runtime::tools::ToolBuilder::new("panics_early", module_path!(), "PanicsEarly");
        builder.description(Some("Panics in `call` itself.")).argument::<u8>("n", None, false);
        builder.build()
    }

    fn call(&self, _: mcp_runtime::request::RequestParts) -> mcp_runtime::tools::BoxFuture<'static, CallToolResult> {
        panic!("panicked before returning a future")
    }
}

fn server() -> Server {
    Server::empty("test-server", "1.2.3")
        .title("Test Server")
        .tool(add::Tool)
        .tool(greet::Tool)
        .tool(fail_public::Tool)
        .tool(fail_internal::Tool)
        .tool(panics::Tool)
        .tool(slow::Tool)
        .tool(record::Tool)
        .tool(shapes::Tool)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

fn error_code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error, got {response}"))
}

async fn handshake(version: &str) -> Value {
    let mut client = server().connect_in_memory().unwrap();
    let response = client
        .request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        )
        .await
        .unwrap();
    response["result"].clone()
}

#[tokio::test]
async fn initialize_echoes_known_versions_and_offers_the_latest_otherwise() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        assert_eq!(handshake(version).await["protocolVersion"], version);
    }
    assert_eq!(handshake("1999-01-01").await["protocolVersion"], "2025-11-25");
    assert_eq!(handshake("2026-07-28").await["protocolVersion"], "2025-11-25");
    let result = handshake("2025-06-18").await;
    assert_eq!(result["serverInfo"], json!({"name": "test-server", "version": "1.2.3", "title": "Test Server"}));
    assert_eq!(result["capabilities"], json!({"tools": {"listChanged": true}, "logging": {}}));
    // `title` on serverInfo is unknown to 2024-11-05 clients.
    assert_eq!(handshake("2024-11-05").await["serverInfo"], json!({"name": "test-server", "version": "1.2.3"}));
}

#[tokio::test]
async fn requests_before_initialize_are_errors_except_ping() {
    let mut client = server().connect_in_memory().unwrap();
    let response = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(error_code(&response), -32600);
    assert!(response["error"]["message"].as_str().unwrap().contains("initialize"), "{response}");
    let response = client.request("ping", json!({})).await.unwrap();
    assert_eq!(response["result"], json!({}));
    client.initialize().await.unwrap();
    let again = client
        .request("initialize", json!({"protocolVersion": "2025-11-25", "clientInfo": {"name": "t", "version": "0"}}))
        .await
        .unwrap();
    assert_eq!(error_code(&again), -32600);
    // A malformed initialize is an invalid-params error that names the problem.
    let mut fresh = server().connect_in_memory().unwrap();
    let response = fresh.request("initialize", json!({"capabilities": {}})).await.unwrap();
    assert_eq!(error_code(&response), -32602);
    assert!(response["error"]["message"].as_str().unwrap().contains("protocolVersion"), "{response}");
}

#[tokio::test]
async fn tools_are_listed_sorted_with_portable_schemas() {
    let mut client = connect(server()).await;
    let result = client.request("tools/list", json!({})).await.unwrap()["result"].clone();
    let names: Vec<&str> = result["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "fail_internal", "fail_public", "greet", "panics", "record", "shapes", "slow"]);
    assert!(result.get("nextCursor").is_none());
    let tool = |name: &str| result["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();

    assert_eq!(
        tool("greet"),
        json!({
            "name": "greet",
            "title": "Greet",
            "description": "Greet someone.",
            "inputSchema": {"type": "object", "properties": {
                "name": {"type": "string", "description": "Whom to greet; everyone when absent"}
            }},
            "annotations": {"readOnlyHint": true}
        })
    );
    assert_eq!(
        tool("shapes")["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "points": {"type": "array", "items": {
                    "description": "A point.",
                    "type": "object",
                    "properties": {
                        "x": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647, "description": "Horizontal"},
                        "y": {"type": "integer", "minimum": 0, "maximum": 255, "description": "Vertical, when known"}
                    },
                    "required": ["x"]
                }},
                "color": {
                    "description": "A color.\n- deep_red: Like blood\n- blue: Like the sky",
                    "type": "string",
                    "enum": ["deep_red", "blue"]
                },
                "scale": {"type": "integer", "minimum": 0, "maximum": 4294967295u32}
            },
            "required": ["points", "color"]
        })
    );
    assert_eq!(tool("panics")["inputSchema"], json!({"type": "object", "properties": {}}));
}

#[tokio::test]
async fn each_version_sees_only_the_fields_it_knows() {
    for (version, has_annotations, has_title) in
        [("2024-11-05", false, false), ("2025-03-26", true, false), ("2025-06-18", true, true)]
    {
        let mut client = server().connect_in_memory().unwrap();
        client
            .request("initialize", json!({"protocolVersion": version, "clientInfo": {"name": "t", "version": "0"}}))
            .await
            .unwrap();
        let result = client.request("tools/list", json!({})).await.unwrap()["result"].clone();
        let greet = result["tools"].as_array().unwrap().iter().find(|t| t["name"] == "greet").unwrap();
        assert_eq!(greet.get("annotations").is_some(), has_annotations, "{version}: {greet}");
        assert_eq!(greet.get("title").is_some(), has_title, "{version}: {greet}");
    }
}

#[tokio::test]
async fn pages_follow_cursors_and_bad_cursors_are_invalid_params() {
    let mut client = connect(server().page_size(3)).await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let result = client.request("tools/list", params).await.unwrap()["result"].clone();
        pages += 1;
        names.extend(result["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        match result.get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().unwrap().to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names.len(), 8);
    for bad in ["nonsense", "99", "-1", "0"] {
        let response = client.request("tools/list", json!({"cursor": bad})).await.unwrap();
        assert_eq!(error_code(&response), -32602, "cursor {bad}");
    }
}

#[tokio::test]
async fn calls_run_async_and_sync_tools_with_optional_arguments() {
    let mut client = connect(server()).await;
    assert_eq!(text(&call(&mut client, "add", json!({"a": 2, "b": 3.5})).await), "5.5");
    assert_eq!(text(&call(&mut client, "greet", json!({})).await), "hello world");
    assert_eq!(text(&call(&mut client, "greet", json!({"name": null})).await), "hello world");
    assert_eq!(text(&call(&mut client, "greet", json!({"name": "Ada"})).await), "hello Ada");
    let shapes = json!({"points": [{"x": 1}, {"x": 2, "y": 3}], "color": "deep_red"});
    assert_eq!(text(&call(&mut client, "shapes", shapes).await), "2 points (span 6) in deep red at 1x");
    // No arguments at all, or `null`, mean none.
    let response = client.request("tools/call", json!({"name": "greet"})).await.unwrap();
    assert_eq!(text(&response["result"]), "hello world");
    let response = client.request("tools/call", json!({"name": "greet", "arguments": null})).await.unwrap();
    assert_eq!(text(&response["result"]), "hello world");
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_naming_every_field() {
    let mut client = connect(server()).await;
    let result = call(&mut client, "add", json!({"b": "two"})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(
        text(&result),
        "2 problems with the arguments:\n\
         - argument `a`: required but not sent\n\
         - argument `b`: expected a number, got the string \"two\""
    );
    let result = call(&mut client, "shapes", json!({"points": [], "color": "green"})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "argument `color`: expected one of \"deep_red\", \"blue\", got the string \"green\"");
    // Arguments that are not an object at all are the model's mistake too.
    let result = call(&mut client, "add", json!([1, 2])).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "`arguments` must be a JSON object, got an array of 2 items");
}

#[tokio::test]
async fn unknown_tools_and_malformed_params_are_protocol_errors() {
    let mut client = connect(server()).await;
    let response = client.request("tools/call", json!({"name": "nope", "arguments": {}})).await.unwrap();
    assert_eq!(error_code(&response), -32602);
    assert_eq!(response["error"]["message"], "invalid params: unknown tool: nope");
    // A near miss names the tool the model most likely meant.
    let response = client.request("tools/call", json!({"name": "ad", "arguments": {}})).await.unwrap();
    assert_eq!(error_code(&response), -32602);
    assert_eq!(response["error"]["message"], "invalid params: unknown tool: ad (did you mean `add`?)");
    let response = client.request("tools/call", json!({"name": "Greet", "arguments": {}})).await.unwrap();
    assert_eq!(response["error"]["message"], "invalid params: unknown tool: Greet (did you mean `greet`?)");
    let response = client.request("tools/call", json!({"arguments": {}})).await.unwrap();
    assert_eq!(error_code(&response), -32602);
    assert_eq!(response["error"]["message"], "invalid params: `name` is missing: the name of the tool to call");
    let response = client.request("tools/call", json!({"name": 7, "arguments": {}})).await.unwrap();
    assert_eq!(
        response["error"]["message"],
        "invalid params: `name` must be the tool's name as a string, not a number"
    );
    let response = client.request("tools/call", json!({"name": "add", "_meta": [1]})).await.unwrap();
    assert_eq!(response["error"]["message"], "invalid params: `_meta` must be an object, not an array");
    // Members the method does not know are ignored, and a null `_meta` is none.
    let response = client
        .request("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": null, "extra": 1}))
        .await
        .unwrap();
    assert_eq!(text(&response["result"]), "3");
    let response = client.request("resources/list", json!({})).await.unwrap();
    assert_eq!(error_code(&response), -32601);
    assert_eq!(response["id"], json!(response["id"].as_i64().unwrap()));
}

#[tokio::test]
async fn tool_errors_show_public_text_and_mask_internals_and_panics() {
    // Masked: "internal error" and an incident id to find the log entry.
    let masked = |result: &Value| {
        assert_eq!(result["isError"], true);
        let text = text(result);
        assert!(text.starts_with("internal error (incident ") && text.ends_with(')'), "{text}");
        assert!(!text.contains("db.internal") && !text.contains("secret"), "{text}");
        text.to_owned()
    };
    let mut client = connect(server()).await;
    let result = call(&mut client, "fail_public", json!({})).await;
    assert_eq!((result["isError"].clone(), text(&result)), (json!(true), "the widget is out of stock"));
    let first = masked(&call(&mut client, "fail_internal", json!({})).await);
    let second = masked(&call(&mut client, "panics", json!({})).await);
    assert_ne!(first, second, "each incident has its own id");
    // The server is still there.
    assert_eq!(text(&call(&mut client, "add", json!({"a": 1, "b": 1})).await), "2");

    let mut client = connect(Server::empty("s", "1").tool(PanicsEarly)).await;
    let list = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        list["result"]["tools"][0]["inputSchema"],
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 255}}})
    );
    masked(&call(&mut client, "panics_early", json!({})).await);
    assert_eq!(client.request("ping", json!({})).await.unwrap()["result"], json!({}));
}

#[tokio::test]
async fn a_development_server_shows_internal_details() {
    let mut client =
        connect(Server::empty("s", "1").tool(fail_internal::Tool).tool(panics::Tool).show_internal_errors(true)).await;
    let text_of = |result: Value| result["content"][0]["text"].as_str().unwrap().to_owned();
    let error = text_of(call(&mut client, "fail_internal", json!({})).await);
    assert!(error.starts_with("internal error (incident "), "{error}");
    assert!(error.ends_with("): connection to db.internal:5432 refused"), "{error}");
    let panic = text_of(call(&mut client, "panics", json!({})).await);
    assert!(panic.ends_with("): secret detail in a panic"), "{panic}");
}

#[tokio::test]
async fn a_server_default_timeout_stops_tools_without_their_own() {
    let mut client =
        connect(Server::empty("s", "1").tool(slow::Tool).tool(add::Tool).default_timeout(Duration::from_millis(50)))
            .await;
    let result = call(&mut client, "slow", json!({"ms": 60_000})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "tool `slow` timed out after 0.05 seconds and was stopped");
    assert_eq!(text(&call(&mut client, "add", json!({"a": 1, "b": 2})).await), "3");
}

#[tokio::test]
async fn malformed_input_gets_errors_and_the_server_goes_on() {
    let mut client = connect(server()).await;
    client.send_line("{not json").await.unwrap();
    let response = client.recv().await.unwrap().unwrap();
    assert_eq!((error_code(&response), response["id"].clone()), (-32700, Value::Null));
    client.send(&json!({"jsonrpc": "1.0", "id": 41, "method": "ping"})).await.unwrap();
    let response = client.recv().await.unwrap().unwrap();
    assert_eq!((error_code(&response), response["id"].clone()), (-32600, json!(41)));
    client.send(&json!([{"jsonrpc": "2.0", "id": 42, "method": "ping"}])).await.unwrap();
    let response = client.recv().await.unwrap().unwrap();
    assert_eq!(error_code(&response), -32600);
    client.send(&json!("just a string")).await.unwrap();
    assert_eq!(error_code(&client.recv().await.unwrap().unwrap()), -32600);
    // Notifications, known or not, get no reply: the next message is the ping's.
    client.notify("notifications/whatever", json!({})).await.unwrap();
    client.send_line("").await.unwrap();
    client.send(&json!({"jsonrpc": "2.0", "id": 43, "method": "ping"})).await.unwrap();
    assert_eq!(client.recv().await.unwrap().unwrap(), json!({"jsonrpc": "2.0", "id": 43, "result": {}}));
}

#[tokio::test]
async fn oversized_messages_are_refused_and_skipped() {
    let mut client = connect(server().max_message_size(256)).await;
    let big = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "x".repeat(1000)}}});
    client.send(&big).await.unwrap();
    let response = client.recv().await.unwrap().unwrap();
    assert_eq!(error_code(&response), -32600);
    assert!(response["error"]["message"].as_str().unwrap().contains("exceeds the limit of 256 bytes"), "{response}");
    assert_eq!(text(&call(&mut client, "greet", json!({"name": "Bo"})).await), "hello Bo");
}

#[tokio::test]
async fn a_slow_call_never_delays_ping_or_other_calls() {
    let mut client = connect(server()).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 400}}}))
        .await
        .unwrap();
    // Read raw, in arrival order: were calls handled one after another, the
    // slow call's answer would come first.
    client.send(&json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"})).await.unwrap();
    assert_eq!(client.recv().await.unwrap().unwrap()["id"], "ping");
    client
        .send(&json!({"jsonrpc": "2.0", "id": "add", "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}))
        .await
        .unwrap();
    let add = client.recv().await.unwrap().unwrap();
    assert_eq!((add["id"].clone(), text(&add["result"])), (json!("add"), "3"));
    let slow = client.recv().await.unwrap().unwrap();
    assert_eq!((slow["id"].clone(), text(&slow["result"])), (json!("slow"), "slept 400"));
}

#[tokio::test]
async fn a_reused_id_of_a_running_call_is_refused() {
    let mut client = connect(server()).await;
    let slow = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 300}}});
    client.send(&slow).await.unwrap();
    client.send(&slow).await.unwrap();
    let first = client.recv().await.unwrap().unwrap();
    assert_eq!((error_code(&first), first["id"].clone()), (-32600, json!(5)));
    let second = client.recv().await.unwrap().unwrap();
    assert_eq!(text(&second["result"]), "slept 300");
}

#[tokio::test]
async fn an_id_in_use_by_a_running_call_is_refused_and_free_again_once_it_ends() {
    let mut client = connect(server()).await;
    let slow = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 300}}});
    client.send(&slow).await.unwrap();
    client.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).await.unwrap();
    // The refusal comes first, while the call still runs, and leaves it running.
    let refused = client.response_to(&json!(7)).await.unwrap();
    assert_eq!(error_code(&refused), -32600, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("request id 7 is already in use"), "{refused}");
    let answered = client.response_to(&json!(7)).await.unwrap();
    assert_eq!(text(&answered["result"]), "slept 300");
    // Ended, the id is free again.
    client.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).await.unwrap();
    assert_eq!(client.response_to(&json!(7)).await.unwrap()["result"], json!({}));
}

#[tokio::test]
async fn cancelling_a_call_drops_it_and_sends_nothing() {
    let mut client = connect(server()).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "record", "arguments": {"ms": 500, "key": "cancelled-call"}}}))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.notify("notifications/cancelled", json!({"requestId": 77, "reason": "user gave up"})).await.unwrap();
    // Cancelling unknown or finished requests is ignored.
    client.notify("notifications/cancelled", json!({"requestId": 12345})).await.unwrap();
    // Past the moment the tool would have recorded, had it not been dropped.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(!recorded("cancelled-call"), "the cancelled tool ran to completion");
    client.send(&json!({"jsonrpc": "2.0", "id": 78, "method": "ping"})).await.unwrap();
    assert_eq!(client.recv().await.unwrap().unwrap()["id"], 78, "a response was sent for the cancelled call");
    // The same tool, not cancelled, does record.
    assert_eq!(text(&call(&mut client, "record", json!({"ms": 1, "key": "kept-call"})).await), "recorded kept-call");
    assert!(recorded("kept-call"));
}

#[tokio::test]
async fn closing_the_input_finishes_running_calls_and_flushes() {
    let mut client = connect(server()).await;
    for id in 0..3 {
        client
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"ms": 100 + id * 50}}}))
            .await
            .unwrap();
    }
    let rest = client.close().await.unwrap();
    let mut ids: Vec<i64> = rest.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, [0, 1, 2]);
}

#[tokio::test]
async fn calls_past_the_grace_period_are_cancelled_at_close() {
    let mut client = connect(server().shutdown_grace(Duration::from_millis(100))).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "record", "arguments": {"ms": 2000, "key": "after-grace"}}}))
        .await
        .unwrap();
    // Had close waited for the call, its response would be here and its
    // side effect recorded.
    let rest = client.close().await.unwrap();
    assert!(rest.is_empty(), "{rest:?}");
    assert!(!recorded("after-grace"));
}

#[test]
fn duplicate_names_fail_at_startup_naming_both_functions() {
    let err = Server::empty("s", "1").tool(add::Tool).tool(add_again::Tool).tool_definitions().unwrap_err();
    assert!(matches!(err, Error::DuplicateTool { .. }));
    assert_eq!(
        err.to_string(),
        "two tools are named `add`: `suite::dispatch::add` and `suite::dispatch::add_again`; \
         rename one with `#[tool(name = \"…\")]`"
    );
    let err = Server::empty("s", "1").tool(greet::Tool).tool(greet::Tool).tool_definitions().unwrap_err();
    assert_eq!(err.to_string(), "tool `greet` (`suite::dispatch::greet`) is registered twice; register each tool once");
    // (`Server::new` runs the same check over every tool in the binary;
    // this suite's binary also holds tools other files break on purpose.)
}

#[test]
fn explicit_registration_serves_exactly_the_chosen_tools() {
    let names: Vec<String> = Server::empty("s", "1")
        .tool(slow::Tool)
        .tool(greet::Tool)
        .tool_definitions()
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["greet", "slow"]);
}

#[tokio::test]
async fn capabilities_are_exactly_what_is_served() {
    // A server with no tools offers none, and has no tools methods.
    let mut client = mcp_runtime::Server::empty("bare", "1").connect_in_memory().unwrap();
    let init = client.initialize().await.unwrap();
    assert_eq!(init["capabilities"], json!({"logging": {}}), "{init}");
    let listed = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(error_code(&listed), -32601, "{listed}");
    let called = client.request("tools/call", json!({"name": "add"})).await.unwrap();
    assert_eq!(error_code(&called), -32601, "{called}");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let discovered = client.request("server/discover", json!({"_meta": meta})).await.unwrap();
    assert_eq!(discovered["result"]["capabilities"], json!({"logging": {}}), "{discovered}");
    let listed = client.request("tools/list", json!({"_meta": meta})).await.unwrap();
    assert_eq!(error_code(&listed), -32601, "{listed}");

    // One that may gain tools at run time offers them from the start.
    let server = mcp_runtime::Server::empty("growing", "1");
    let _tools = server.tools_handle();
    let mut client = server.connect_in_memory().unwrap();
    let init = client.initialize().await.unwrap();
    assert_eq!(init["capabilities"]["tools"], json!({"listChanged": true}), "{init}");
    assert_eq!(client.request("tools/list", json!({})).await.unwrap()["result"], json!({"tools": []}));
}
