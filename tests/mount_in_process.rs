//! A mounted `Server` of this process whose tools are called with nothing
//! in between: what its own pipeline would check still holds (arguments,
//! rate limits counted per caller, timeouts, shared values), and its
//! handlers see the caller's request (its client, its progress), over
//! stdio and HTTP in both eras.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_core::{Content, ProtocolVersion};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime_client::{Client, ClientBuilder, EraChoice};
use serde_json::json;

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Which client calls, as the handler sees it.
#[tool]
async fn who(ctx: Context) -> String {
    ctx.progress(1.0, 1.0);
    ctx.client_info().map(|info| info.name.clone()).unwrap_or_else(|| "nobody".into())
}

/// Counts its calls in the mounted server's shared value.
#[tool]
async fn count(calls: State<AtomicU64>) -> u64 {
    calls.fetch_add(1, Ordering::SeqCst) + 1
}

/// Once a minute per caller.
#[tool(rate_limit = "1/minute")]
async fn scarce() -> &'static str {
    "granted"
}

/// Never done in time.
#[tool(timeout = "100ms")]
async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "late"
}

fn inner() -> Server {
    Server::empty("inner", "1")
        .tool(add::Tool)
        .tool(who::Tool)
        .tool(count::Tool)
        .tool(scarce::Tool)
        .tool(slow::Tool)
        .with_state(AtomicU64::new(0))
}

fn gateway() -> Server {
    Server::empty("gateway", "1").mount("in", inner())
}

fn builder(name: &str, version: ProtocolVersion) -> ClientBuilder {
    Client::builder().name(name, "1").era(EraChoice::Version(version))
}

async fn http_url(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, HttpOptions::new()).await.unwrap() });
    format!("http://{addr}/mcp")
}

fn text(result: &mcp_core::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect()
}

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

#[tokio::test]
async fn a_mounted_server_of_this_process_keeps_its_checks_and_sees_the_caller() {
    for version in ERAS {
        let url = http_url(gateway()).await;
        let alice = builder("alice", version).http(&url).await.unwrap();
        let bob = builder("bob", version).http(&url).await.unwrap();

        let sum = alice.call("in_add", json!({"a": 2, "b": 3})).await.unwrap();
        assert_eq!((text(&sum), sum.is_error), ("5".into(), None), "{version:?}: {sum:?}");

        // Its handler runs for the caller: the caller's client, and its
        // progress reaches that client.
        let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let progress = heard.clone();
        let who = alice
            .call("in_who", json!({}))
            .on_progress(move |p| progress.lock().unwrap().push(p.progress))
            .await
            .unwrap();
        assert_eq!(text(&who), "alice", "{version:?}");
        assert_eq!(text(&bob.call("in_who", json!({})).await.unwrap()), "bob", "{version:?}");
        assert_eq!(*heard.lock().unwrap(), [1.0], "{version:?}: the progress of the mounted tool");

        // Its arguments are checked as its own server checks them: the
        // model reads what is wrong.
        let wrong = alice.call("in_add", json!({"a": "two", "b": 3})).await.unwrap();
        assert_eq!(wrong.is_error, Some(true), "{version:?}: {wrong:?}");
        assert!(text(&wrong).contains("`a`"), "{version:?}: {}", text(&wrong));

        // Its shared values are its own, and shared by every caller.
        let first = alice.call("in_count", json!({})).await.unwrap();
        let second = bob.call("in_count", json!({})).await.unwrap();
        assert_eq!((text(&first), text(&second)), ("1".into(), "2".into()), "{version:?}");

        // Its rate limit counts each session apart.
        assert_eq!(text(&alice.call("in_scarce", json!({})).await.unwrap()), "granted");
        let refused = alice.call("in_scarce", json!({})).await.unwrap();
        assert_eq!(refused.is_error, Some(true), "{version:?}: {refused:?}");
        assert!(text(&refused).contains("rate limited"), "{}", text(&refused));
        if version.uses_handshake() {
            // A session each: bob's allowance is his own. (Callers without
            // a session share the server's one allowance.)
            assert_eq!(text(&bob.call("in_scarce", json!({})).await.unwrap()), "granted", "{version:?}");
        }

        // Its timeout stops it.
        let late = alice.call("in_slow", json!({})).await.unwrap();
        assert_eq!(late.is_error, Some(true), "{version:?}: {late:?}");
        assert!(text(&late).contains("timed out"), "{}", text(&late));
    }
}

#[tokio::test]
async fn a_mounted_server_with_middleware_of_its_own_still_gets_requests() {
    use std::sync::Arc;
    let seen = Arc::new(AtomicU64::new(0));
    let counted = seen.clone();
    let inner = inner().layer(mcp_runtime::middleware::from_fn(
        move |invocation: mcp_runtime::middleware::Invocation, next: mcp_runtime::middleware::Next| {
            counted.fetch_add(1, Ordering::SeqCst);
            next.run(invocation)
        },
    ));
    let url = http_url(Server::empty("gateway", "1").mount("in", inner)).await;
    let client = builder("carol", ProtocolVersion::LATEST).http(&url).await.unwrap();
    let sum = client.call("in_add", json!({"a": 1, "b": 1})).await.unwrap();
    assert_eq!(text(&sum), "2", "{sum:?}");
    assert_eq!(seen.load(Ordering::SeqCst), 1, "its middleware saw the call");
}
