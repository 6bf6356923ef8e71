//! A hostile or careless client cannot grow the server without bound or
//! lose answers: backpressure on unread output and on running calls,
//! subscriptions in batches, reused ids, malformed notifications, and
//! structured output that would break its own schema.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::{protocol::ProtocolVersion, testing::TestClient};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Answer at once.
#[tool]
fn quick() -> &'static str {
    "quick"
}

/// Answer after `ms` milliseconds.
#[tool]
async fn slow(ms: u64) -> &'static str {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "slow"
}

/// Log `count` messages of `size` bytes, then answer.
#[tool]
fn chatty(count: u32, size: usize, ctx: Context) -> &'static str {
    for n in 0..count {
        ctx.info(json!({ "n": n, "pad": "x".repeat(size) }));
    }
    "done"
}

fn request(id: u64, method: &str, params: Value) -> String {
    format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

#[tokio::test]
async fn a_client_that_does_not_read_stops_the_server_reading_and_loses_nothing() {
    let server = Server::empty("t", "1").tool(quick::Tool).max_queued_output(32 * 1024);
    let (client_in, server_in) = tokio::io::duplex(16 * 1024);
    let (server_out, client_out) = tokio::io::duplex(16 * 1024);
    tokio::spawn(server.serve(server_in, server_out));
    let (_, mut to_server) = tokio::io::split(client_in);
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    to_server.write_all(request(0, "initialize", init).as_bytes()).await.unwrap();

    // 20,000 requests, none of whose answers is read: the server must stop
    // reading (so this writer blocks) instead of queueing every answer.
    const N: u64 = 20_000;
    let written = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let progress = written.clone();
    let writer = tokio::spawn(async move {
        for id in 1..=N {
            to_server.write_all(request(id, "tools/list", json!({})).as_bytes()).await.unwrap();
            progress.store(id, std::sync::atomic::Ordering::SeqCst);
        }
        to_server
    });
    let at = || written.load(std::sync::atomic::Ordering::SeqCst);
    // The writer stops once the server stops reading: wait until it has
    // stood still for a while (not for a fixed time), then check that it
    // stays still.
    let window = Duration::from_millis(300);
    let (mut stalled_at, mut still) = (at(), 0);
    let started = tokio::time::Instant::now();
    while still < 2 && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(window).await;
        let now = at();
        still = if now == stalled_at { still + 1 } else { 0 };
        stalled_at = now;
    }
    tokio::time::sleep(window).await;
    assert!(
        stalled_at < N / 4 && at() == stalled_at,
        "the server read on while its output was unread ({stalled_at}, then {})",
        at()
    );

    // Reading now lets everything through: each answer exactly once.
    let mut lines = BufReader::new(client_out).lines();
    let mut seen = vec![false; N as usize + 1];
    let mut answered = 0;
    while answered <= N {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
        let id = serde_json::from_str::<Value>(&line).unwrap()["id"].as_u64().unwrap() as usize;
        assert!(!std::mem::replace(&mut seen[id], true), "answer {id} came twice");
        answered += 1;
    }
    assert!(seen.iter().all(|s| *s), "every request was answered");
    drop(writer.await.unwrap());
}

/// Messages until the answer to `id`: the log messages' numbers, and the
/// answer's text.
async fn logs_until_answer(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
    id: u64,
) -> (Vec<u64>, String) {
    let mut logs = Vec::new();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return (logs, message["result"]["content"][0]["text"].as_str().unwrap().to_owned());
        }
        if let Some(n) = message["params"]["data"]["n"].as_u64() {
            logs.push(n);
        }
    }
}

#[tokio::test]
async fn notifications_to_a_client_that_does_not_read_are_dropped_past_the_limit_but_the_answer_is_not() {
    let server = Server::empty("t", "1").tool(chatty::Tool).max_queued_output(64 * 1024);
    let (mut to_server, server_in) = tokio::io::duplex(16 * 1024);
    let (server_out, client_out) = tokio::io::duplex(16 * 1024);
    tokio::spawn(server.serve(server_in, server_out));
    let mut lines = BufReader::new(client_out).lines();
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    to_server.write_all(request(0, "initialize", init).as_bytes()).await.unwrap();
    lines.next_line().await.unwrap().unwrap();

    // 5 MB of log messages that nobody reads while the tool runs: the
    // server keeps about 64 KiB of them, not all 5 MB.
    let call = json!({"name": "chatty", "arguments": {"count": 5000, "size": 1000}});
    to_server.write_all(request(1, "tools/call", call).as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (logs, answer) = logs_until_answer(&mut lines, 1).await;
    assert_eq!(answer, "done");
    assert!(!logs.is_empty() && logs.len() < 200, "{} of 5000 log messages were kept", logs.len());
    assert!(logs.windows(2).all(|w| w[0] < w[1]), "what is kept stays in order");

    // Under the limit, none is lost (500 of about 70 bytes: 35 KB).
    let call = json!({"name": "chatty", "arguments": {"count": 500, "size": 10}});
    to_server.write_all(request(2, "tools/call", call).as_bytes()).await.unwrap();
    let (logs, answer) = logs_until_answer(&mut lines, 2).await;
    assert_eq!((logs.len(), answer.as_str()), (500, "done"));
}

#[tokio::test]
async fn at_the_call_limit_the_next_request_waits_for_a_call_to_end() {
    let server = Server::empty("t", "1").tool(quick::Tool).tool(slow::Tool).max_running_calls(2);
    let mut client = server.connect_in_memory().unwrap();
    client.initialize().await.unwrap();
    for (id, tool, arguments) in
        [(10, "slow", json!({"ms": 300})), (11, "slow", json!({"ms": 300})), (12, "quick", json!({}))]
    {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
        client.send(&call).await.unwrap();
    }
    // The quick call is read only when a slow one has ended, so it cannot
    // be answered first.
    let first = client.recv().await.unwrap().unwrap();
    assert_ne!(first["id"], 12, "the third call ran beside two at the limit of two: {first}");
    let mut ids = vec![first["id"].as_u64().unwrap()];
    while ids.len() < 3 {
        ids.push(client.recv().await.unwrap().unwrap()["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, [10, 11, 12]);
}

fn listen(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
}

#[tokio::test]
async fn a_batch_holding_a_subscription_is_still_answered() {
    let mut client = Server::empty("t", "1").tool(quick::Tool).connect_in_memory().unwrap();
    let init =
        json!({"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    client.request("initialize", init).await.unwrap();
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, listen(2)]);
    client.send(&batch).await.unwrap();
    let answers = tokio::time::timeout(Duration::from_secs(5), client.recv()).await.expect("the batch is answered");
    let answers = answers.unwrap().unwrap();
    assert_eq!(answers[0]["id"], 1);
    assert!(answers[0]["result"]["tools"].is_array(), "{answers}");
    assert_eq!(answers[1]["id"], 2);
    assert_eq!(answers[1]["error"]["code"], -32600, "{answers}");
}

#[tokio::test]
async fn a_reused_subscription_id_is_refused_before_it_is_acknowledged() {
    let mut client = Server::empty("t", "1").tool(quick::Tool).connect_in_memory().unwrap();
    client.send(&listen(7)).await.unwrap();
    let ack = client.recv().await.unwrap().unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    client.send(&listen(7)).await.unwrap();
    let refused = client.recv().await.unwrap().unwrap();
    assert_eq!(refused["id"], 7, "the second listen is refused, with no second acknowledgement: {refused}");
    assert_eq!(refused["error"]["code"], -32600);
}

#[tokio::test]
async fn a_malformed_notification_gets_no_reply() {
    let mut client = Server::empty("t", "1").tool(quick::Tool).connect_in_memory().unwrap();
    client.initialize().await.unwrap();
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": [1, 2]})).await.unwrap();
    client.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})).await.unwrap();
    let next = client.recv().await.unwrap().unwrap();
    assert_eq!(next["id"], 5, "the notification was answered: {next}");
}

/// Statistics whose mean can be infinite.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Stats {
    mean: f64,
}

/// The mean of two huge numbers overflows to infinity.
#[tool]
fn stats(values: Vec<f64>) -> Json<Stats> {
    Json(Stats { mean: values.iter().sum::<f64>() / values.len() as f64 })
}

#[tokio::test]
async fn structured_output_that_breaks_its_own_schema_is_an_error_not_a_silent_null() {
    for version in [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST] {
        let mut client = TestClient::connect_as(Server::empty("t", "1").tool(stats::Tool), version).await.unwrap();
        let fine = client.call_tool("stats", json!({"values": [1.0, 3.0]})).await.unwrap();
        assert_eq!(fine.structured_content, Some(json!({"mean": 2.0})));
        let broken = client.call_tool("stats", json!({"values": [1e308, 1e308]})).await.unwrap();
        assert_eq!(broken.is_error, Some(true), "{broken:?}");
        assert_eq!(broken.structured_content, None);
        assert!(broken.content[0].as_text().unwrap().starts_with("internal error"), "{broken:?}");
    }
}
