//! `Context` through the protocol: progress (with and without a token,
//! increasing, coalesced), log messages filtered by `logging/setLevel`,
//! cancellation seen by work the tool spawned, and what a tool can know
//! about its call.

use std::sync::Mutex;
use std::time::Duration;

use crate::common::memory::{call, connect};
use mcp_runtime::prelude::*;
use mcp_runtime::{Server, transport::InMemoryClient};
use serde_json::{Value, json};

/// Report progress at each of `steps`, pausing `pause_ms` between them.
#[tool]
async fn steps(values: Vec<f64>, pause_ms: u64, ctx: Context) -> String {
    for value in &values {
        ctx.progress_with_message(*value, 10.0, format!("at {value}"));
        tokio::time::sleep(Duration::from_millis(pause_ms)).await;
    }
    "done".into()
}

/// Report progress a thousand times in a tight loop.
#[tool]
fn burst(ctx: Context) -> &'static str {
    for i in 1..=1000 {
        ctx.progress(f64::from(i), 1000.0);
    }
    "done"
}

/// Log one message at each level.
#[tool]
fn chatty(ctx: Context) {
    ctx.debug("a debug line");
    ctx.info("an info line");
    ctx.warning(json!({"disk": "almost full"}));
    ctx.error("an error line");
}

static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Start background work that watches for cancellation, then wait forever.
#[tool]
async fn watched(key: String, ctx: Context) -> String {
    let watcher = ctx.clone();
    tokio::spawn(async move {
        watcher.cancelled().await;
        SEEN.lock().unwrap().push(format!("{key}: cancelled={}", watcher.is_cancelled()));
    });
    std::future::pending::<()>().await;
    unreachable!()
}

/// Say what the call knows about itself.
#[tool]
fn whoami(ctx: Context) -> Json<Value> {
    let client = ctx.client_info().unwrap();
    Json(json!({
        "tool": ctx.tool_name(),
        "request": ctx.request_id().to_string(),
        "client": format!("{} {}", client.name, client.version),
        "version": ctx.protocol_version().as_str(),
        "meta": ctx.meta(),
        "sampling": ctx.client_capabilities().unwrap().sampling.is_some(),
    }))
}

fn server() -> Server {
    Server::empty("context", "1")
        .tool(steps::Tool)
        .tool(burst::Tool)
        .tool(chatty::Tool)
        .tool(watched::Tool)
        .tool(whoami::Tool)
}

/// Call with a progress token, then collect what the server sent meanwhile.
async fn call_tracked(client: &mut InMemoryClient, name: &str, arguments: Value) -> (Value, Vec<Value>) {
    let params = json!({"name": name, "arguments": arguments, "_meta": {"progressToken": "t-1"}});
    let response = client.request("tools/call", params).await.unwrap();
    client.request("ping", json!({})).await.unwrap();
    (response["result"].clone(), client.take_notifications())
}

fn progress_values(notifications: &[Value]) -> Vec<f64> {
    notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .inspect(|n| assert_eq!(n["params"]["progressToken"], "t-1"))
        .map(|n| n["params"]["progress"].as_f64().unwrap())
        .collect()
}

#[tokio::test]
async fn progress_is_sent_only_with_a_token_and_only_forward() {
    let mut client = connect(server()).await;
    let (result, notifications) =
        call_tracked(&mut client, "steps", json!({"values": [1, 3, 2, 3, 7], "pause_ms": 60})).await;
    assert_eq!(result["content"][0]["text"], "done");
    assert_eq!(progress_values(&notifications), [1.0, 3.0, 7.0]);
    let first = notifications.iter().find(|n| n["method"] == "notifications/progress").unwrap();
    assert_eq!(first["params"], json!({"progressToken": "t-1", "progress": 1.0, "total": 10.0, "message": "at 1"}));

    // No token, no progress.
    call(&mut client, "steps", json!({"values": [1, 2], "pause_ms": 60})).await;
    client.request("ping", json!({})).await.unwrap();
    assert_eq!(client.take_notifications(), Vec::<Value>::new());
}

#[tokio::test]
async fn a_burst_of_progress_is_coalesced_and_still_ends_at_the_total() {
    let mut client = connect(server()).await;
    let (_, notifications) = call_tracked(&mut client, "burst", json!({})).await;
    let values = progress_values(&notifications);
    assert!(values.len() < 100, "{} notifications for 1000 updates", values.len());
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    assert_eq!(values.last(), Some(&1000.0));
}

fn log_levels(notifications: &[Value]) -> Vec<String> {
    notifications
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .inspect(|n| assert_eq!(n["params"]["logger"], "chatty"))
        .map(|n| n["params"]["level"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn log_messages_follow_the_level_the_client_sets() {
    let mut client = connect(server()).await;
    let init_capabilities = {
        let mut c = server().connect_in_memory().unwrap();
        c.initialize().await.unwrap()["capabilities"].clone()
    };
    assert_eq!(init_capabilities["logging"], json!({}));

    let (_, notifications) = call_tracked(&mut client, "chatty", json!({})).await;
    assert_eq!(log_levels(&notifications), ["info", "warning", "error"], "info and above by default");
    let warning = notifications.iter().find(|n| n["params"]["level"] == "warning").unwrap();
    assert_eq!(warning["params"]["data"], json!({"disk": "almost full"}));

    for (level, expected) in [
        ("error", vec!["error"]),
        ("debug", vec!["debug", "info", "warning", "error"]),
        ("warning", vec!["warning", "error"]),
    ] {
        let response = client.request("logging/setLevel", json!({"level": level})).await.unwrap();
        assert_eq!(response["result"], json!({}));
        let (_, notifications) = call_tracked(&mut client, "chatty", json!({})).await;
        assert_eq!(log_levels(&notifications), expected, "at {level}");
    }
    let response = client.request("logging/setLevel", json!({"level": "loud"})).await.unwrap();
    assert_eq!(response["error"]["code"], -32602);
}

#[tokio::test]
async fn work_a_tool_spawned_sees_the_cancellation() {
    let mut client = connect(server()).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "watched", "arguments": {"key": "w1"}}}))
        .await
        .unwrap();
    // The call is running once a later request is answered.
    client.request("ping", json!({})).await.unwrap();
    client.notify("notifications/cancelled", json!({"requestId": 41, "reason": "user"})).await.unwrap();
    // Cancelling an unknown or finished request is ignored.
    client.notify("notifications/cancelled", json!({"requestId": 999})).await.unwrap();
    let mut seen = false;
    for _ in 0..200 {
        if SEEN.lock().unwrap().contains(&"w1: cancelled=true".to_owned()) {
            seen = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(seen, "the spawned watcher never saw the cancellation");
    // No response is ever sent for the cancelled call.
    client.request("ping", json!({})).await.unwrap();
    let rest = client.close().await.unwrap();
    assert!(rest.iter().all(|m| m["id"] != 41), "{rest:?}");
}

#[tokio::test]
async fn a_tool_knows_its_call_and_its_client() {
    let mut client = server().connect_in_memory().unwrap();
    let init = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"sampling": {}},
        "clientInfo": {"name": "probe", "version": "9.1"}
    });
    client.request("initialize", init).await.unwrap();
    client.notify("notifications/initialized", json!({})).await.unwrap();
    let response = client
        .request("tools/call", json!({"name": "whoami", "arguments": {}, "_meta": {"trace": "abc"}}))
        .await
        .unwrap();
    assert_eq!(
        // `Value` has no object schema, so 2025-06-18 gets it wrapped.
        response["result"]["structuredContent"]["result"],
        json!({
            "tool": "whoami",
            "request": "2",
            "client": "probe 9.1",
            "version": "2025-06-18",
            "meta": {"trace": "abc"},
            "sampling": true
        })
    );
}

/// Take the context by reference.
#[tool]
async fn borrowed(ctx: &Context, label: String) -> String {
    tokio::task::yield_now().await;
    format!("{label} from {}", ctx.tool_name())
}

#[tokio::test]
async fn the_context_can_be_taken_by_reference() {
    let mut client = connect(Server::empty("context", "1").tool(borrowed::Tool)).await;
    let result = call(&mut client, "borrowed", json!({"label": "hi"})).await;
    assert_eq!(result["content"][0]["text"], "hi from borrowed");
}

/// Ask the client for its roots and say how many it has.
#[tool]
async fn count_roots(ctx: Context) -> Result<String, ToolError> {
    let roots: Value =
        ctx.client().request("roots/list", json!({})).await.map_err(|e| ToolError::new(e.to_string()))?;
    Ok(format!("{} roots", roots["roots"].as_array().map_or(0, Vec::len)))
}

/// A client that declared `capabilities` in its handshake.
async fn connect_declaring(server: Server, capabilities: Value) -> InMemoryClient {
    let mut client = server.connect_in_memory().unwrap();
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}});
    let response = client.request("initialize", init).await.unwrap();
    assert!(response.get("result").is_some(), "{response}");
    client.notify("notifications/initialized", json!({})).await.unwrap();
    client
}

/// Send a `count_roots` call with `id` without waiting for it.
async fn start_count_roots(client: &mut InMemoryClient, id: i64) {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "count_roots"}});
    client.send(&call).await.unwrap();
}

/// The next message from the server that is a request to the client.
async fn next_request(client: &mut InMemoryClient) -> Value {
    loop {
        let message = client.recv().await.unwrap().expect("the server is still there");
        if message.get("method").is_some() && message.get("id").is_some() {
            return message;
        }
    }
}

/// The text of a `tools/call` response.
fn result_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {response}"))
}

#[tokio::test]
async fn a_tool_asks_the_client_and_awaits_its_answer() {
    let server = Server::empty("asking", "1").tool(count_roots::Tool);
    let mut client = connect_declaring(server, json!({"roots": {}})).await;
    start_count_roots(&mut client, 10).await;
    let request = next_request(&mut client).await;
    assert_eq!(request["method"], "roots/list");
    let roots = json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]});
    client.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": roots})).await.unwrap();
    let response = client.response_to(&json!(10)).await.unwrap();
    assert_eq!(result_text(&response), "2 roots");

    // An error from the client reaches the tool as a refusal.
    start_count_roots(&mut client, 11).await;
    let request = next_request(&mut client).await;
    let error = json!({"code": -32603, "message": "no roots today"});
    client.send(&json!({"jsonrpc": "2.0", "id": request["id"], "error": error})).await.unwrap();
    let response = client.response_to(&json!(11)).await.unwrap();
    assert_eq!(result_text(&response), "the client refused: no roots today (-32603)");
    assert_eq!(response["result"]["isError"], true);
}

#[tokio::test]
async fn a_client_without_the_capability_is_never_asked() {
    let server = Server::empty("asking", "1").tool(count_roots::Tool);
    let mut client = connect_declaring(server, json!({"sampling": {}})).await;
    let response = client.request("tools/call", json!({"name": "count_roots"})).await.unwrap();
    assert_eq!(result_text(&response), "the client did not declare the `roots` capability");
    client.request("ping", json!({})).await.unwrap();
    assert_eq!(client.take_notifications(), Vec::<Value>::new());
    let rest = client.close().await.unwrap();
    assert!(rest.iter().all(|m| m.get("method").is_none()), "no request reached the client: {rest:?}");
}

#[tokio::test]
async fn an_unanswered_request_times_out_and_is_cancelled_at_the_client() {
    let server =
        Server::empty("asking", "1").tool(count_roots::Tool).client_request_timeout(Duration::from_millis(100));
    let mut client = connect_declaring(server, json!({"roots": {}})).await;
    start_count_roots(&mut client, 20).await;
    let request = next_request(&mut client).await;
    let response = client.response_to(&json!(20)).await.unwrap();
    assert_eq!(result_text(&response), "the client did not answer within 0.1 s");
    let cancelled = client.take_notifications();
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(cancelled[0]["method"], "notifications/cancelled");
    assert_eq!(cancelled[0]["params"]["requestId"], request["id"]);
    // A late answer is ignored, and the session goes on.
    client.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": []}})).await.unwrap();
    assert_eq!(client.request("ping", json!({})).await.unwrap()["result"], json!({}));
}

#[tokio::test]
async fn cancelling_the_call_cancels_its_request_to_the_client() {
    let server = Server::empty("asking", "1").tool(count_roots::Tool);
    let mut client = connect_declaring(server, json!({"roots": {}})).await;
    start_count_roots(&mut client, 30).await;
    let request = next_request(&mut client).await;
    client.notify("notifications/cancelled", json!({"requestId": 30})).await.unwrap();
    let cancelled = loop {
        let message = client.recv().await.unwrap().expect("the server is still there");
        if message["method"] == "notifications/cancelled" {
            break message;
        }
    };
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
    let rest = client.close().await.unwrap();
    assert!(rest.iter().all(|m| m.get("id") != Some(&json!(30))), "a cancelled call is not answered: {rest:?}");
}

#[tokio::test]
async fn the_client_handle_tells_who_the_client_is() {
    /// Say who asks.
    #[tool]
    fn who(ctx: Context) -> String {
        let client = ctx.client();
        let name = client.info().map_or("?", |i| i.name.as_str()).to_owned();
        format!("{name} roots={} sampling={}", client.has_capability("roots"), client.has_capability("sampling"))
    }
    let mut client = connect_declaring(Server::empty("who", "1").tool(who::Tool), json!({"roots": {}})).await;
    let response = client.request("tools/call", json!({"name": "who"})).await.unwrap();
    assert_eq!(result_text(&response), "t roots=true sampling=false");
}
