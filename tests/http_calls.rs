//! The rules every transport's running calls follow, over HTTP: the limit
//! of calls running at once (`Server::max_running_calls`) holds for an
//! HTTP session and for stateless requests as it does for stdio (the next
//! call waits for one to end), a stateless request whose client hangs up
//! has its call cancelled, two stateless requests may both use id 1, and a
//! slow first poll is logged.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::http::{Answer, Client};
use mcp_runtime::prelude::*;
use mcp_runtime::{Server, transport::HttpOptions};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Sleep, then say how long.
#[tool]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Echo the text back.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Block the thread before answering, as a synchronous tool doing slow
/// work does.
#[tool]
fn blocking(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    "done".into()
}

/// Serve a server of these tools that runs at most two calls at once.
async fn start() -> String {
    let server = Server::empty("calls", "1")
        .tool(nap::Tool)
        .tool(echo::Tool)
        .tool(crate::http::hang::Tool)
        .tool(blocking::Tool)
        .max_running_calls(2);
    let router = server.http_router(HttpOptions::new()).expect("the server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}/mcp")
}

/// A 2026-07-28 call (no session) of `tool` with id `id`.
fn stateless_call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
    "name": tool, "arguments": arguments,
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }}})
}

fn session_call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

fn text(answer: &Answer) -> &str {
    answer.last()["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {answer:?}"))
}

/// Two slow calls take both slots; a quick third one, sent while they run,
/// is answered only once one of them ended (as stdio reads it only then).
async fn third_call_waits(client: Arc<Client>, call: fn(u64, &str, Value) -> Value) {
    let started = Instant::now();
    let slow: Vec<_> = (1..=2)
        .map(|id| {
            let client = client.clone();
            tokio::spawn(async move { client.message(&call(id, "nap", json!({"ms": 600}))).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let quick = client.message(&call(3, "echo", json!({"text": "hi"}))).await;
    let waited = started.elapsed();
    assert_eq!((quick.status, text(&quick)), (StatusCode::OK, "hi"), "{quick:?}");
    assert!(waited >= Duration::from_millis(550), "the third call ran beside two at the limit of two ({waited:?})");
    for call in slow {
        let answer = call.await.unwrap();
        assert_eq!(text(&answer), "slept 600 ms", "{answer:?}");
    }
}

#[tokio::test]
async fn at_the_call_limit_a_session_call_waits_for_one_to_end() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    third_call_waits(Arc::new(client), session_call).await;
}

#[tokio::test]
async fn at_the_call_limit_a_stateless_call_waits_for_one_to_end() {
    let url = start().await;
    third_call_waits(Arc::new(Client::new(&url)), stateless_call).await;
}

#[tokio::test]
async fn a_stateless_request_whose_client_hangs_up_has_its_call_cancelled() {
    let url = start().await;
    let client = Client::new(&url);
    let call = stateless_call(1, "hang", json!({"key": "stateless hang-up"}));
    let request =
        client.post("application/json").header("mcp-method", "tools/call").header("mcp-name", "hang").json(&call);
    let hanging = tokio::spawn(request.send());
    tokio::time::sleep(Duration::from_millis(150)).await;
    hanging.abort();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !crate::http::CANCELLED.lock().unwrap().contains("stateless hang-up") {
        assert!(Instant::now() < deadline, "the call was not cancelled when its client hung up");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn two_stateless_requests_may_both_use_id_1_at_once() {
    let url = start().await;
    let client = Arc::new(Client::new(&url));
    let calls: Vec<_> = [300, 200]
        .map(|ms| {
            let client = client.clone();
            tokio::spawn(async move { client.message(&stateless_call(1, "nap", json!({"ms": ms}))).await })
        })
        .into_iter()
        .collect();
    for (call, ms) in calls.into_iter().zip([300, 200]) {
        let answer = call.await.unwrap();
        assert_eq!(answer.last()["id"], 1, "{answer:?}");
        assert_eq!(text(&answer), format!("slept {ms} ms"), "{answer:?}");
    }
}

/// Whether a call of `blocking` sent as `call` is logged as slow to first
/// wait. One thread: the server logs through this test's subscriber.
async fn warns_of_a_slow_first_poll(session: bool) -> String {
    let (captured, _guard) = crate::common::log::Captured::install();
    let url = start().await;
    let mut client = Client::new(&url);
    let call = if session {
        client.initialize().await;
        session_call(5, "blocking", json!({"ms": 120}))
    } else {
        stateless_call(5, "blocking", json!({"ms": 120}))
    };
    let answer = client.message(&call).await;
    assert_eq!(text(&answer), "done", "{answer:?}");
    captured.text()
}

#[tokio::test]
async fn a_slow_first_poll_is_logged_for_stateless_and_session_calls() {
    for session in [false, true] {
        let log = warns_of_a_slow_first_poll(session).await;
        assert!(log.contains("before it first waited"), "no warning (session: {session}): {log}");
    }
}
