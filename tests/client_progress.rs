//! The client crate hears a call's progress before the call resolves:
//! every update the server sent before its answer has reached the call's
//! `on_progress` once the `.await` returns, over a pipe and over
//! Streamable HTTP, in both eras.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use mcp_core::ProtocolVersion;
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime_client::{Client, EraChoice};
use serde_json::json;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// How many updates `count` sends.
const UPDATES: u32 = 20;

/// How many calls each transport makes in each era: the race this guards
/// against was lost in most runs, so a few dozen show it.
const RUNS: usize = 25;

/// Count to [`UPDATES`], reporting each step.
#[tool]
async fn count(ctx: Context) -> &'static str {
    for i in 1..=UPDATES {
        // An update that reaches its total is never coalesced: each of
        // them goes on the wire, before the result.
        ctx.progress(f64::from(i), f64::from(i));
    }
    "counted"
}

fn server() -> Server {
    Server::empty("progress-test", "1").tool(count::Tool)
}

/// `RUNS` calls of `count`, each checked as soon as its `.await` returns.
async fn every_update_before_the_result(client: &Client, how: &str) {
    for run in 0..RUNS {
        let heard = Arc::new(AtomicU32::new(0));
        let counter = heard.clone();
        let result = client
            .call("count", json!({}))
            .on_progress(move |_| {
                // A handler with some work to do, as a progress bar's is:
                // it falls behind the reader, which is what a call must
                // not overtake.
                std::thread::sleep(Duration::from_micros(200));
                counter.fetch_add(1, Ordering::SeqCst);
            })
            .await
            .unwrap();
        assert_eq!(result.content[0].as_text(), Some("counted"));
        let heard = heard.load(Ordering::SeqCst);
        assert_eq!(heard, UPDATES, "{how}, run {run}: {heard} of {UPDATES} updates heard when the call returned");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_a_pipe_every_update_is_heard_before_the_call_returns() {
    for version in ERAS {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(server().serve(server_read, server_write));
        let (read, write) = tokio::io::split(client_end);
        let client = Client::builder().era(EraChoice::Version(version)).io(read, write).await.unwrap();
        every_update_before_the_result(&client, &format!("pipe, {}", version.as_str())).await;
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_every_update_is_heard_before_the_call_returns() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { server().serve_http_on(listener, HttpOptions::new()).await.unwrap() });
    let url = format!("http://{addr}/mcp");
    for version in ERAS {
        let client = Client::builder().era(EraChoice::Version(version)).http(&url).await.unwrap();
        every_update_before_the_result(&client, &format!("HTTP, {}", version.as_str())).await;
        client.close().await;
    }
}
