//! Servers made of servers: a mounted server's tools, resources,
//! templates and prompts served under a prefix, with calls, questions,
//! progress and changes passing through, in both eras on the client's
//! side.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::pipe_to;
use futures_util::StreamExt;
use mcp_core::{
    CompleteRef, CreateMessageResult, ElicitAction, ElicitResult, ProtocolVersion, ResourceContents, Role,
    SamplingContent,
};
use mcp_runtime::completion::Completing;
use mcp_runtime::prelude::*;
use mcp_runtime::proxy::{Mount, Upstream};
use mcp_runtime_client::{Client, ClientBuilder, EraChoice};
use serde_json::json;

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// The mounting server's own tool.
#[tool]
async fn own() -> &'static str {
    "own"
}

/// Today's memo.
#[resource("memo://today")]
fn today() -> String {
    "water the plants".into()
}

/// One day's memo.
#[resource("memo://day/{n}")]
fn day(n: u32) -> String {
    format!("day {n}")
}

async fn names(completing: Completing) -> Vec<String> {
    ["Ada", "Alan", "Grace"].into_iter().filter(|n| n.starts_with(completing.value())).map(String::from).collect()
}

/// Greet someone.
#[prompt]
fn greet(#[arg(complete = names)] name: String) -> String {
    format!("Say hello to {name}.")
}

/// When to book.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct When {
    /// The day
    day: String,
}

/// Ask the user and the model, reporting progress on the way.
#[tool]
async fn book(ctx: Context) -> Result<String, ToolError> {
    ctx.progress(1.0, 3.0);
    let when = ctx.elicit::<When>("When?").await?.accepted().ok_or_else(|| ToolError::new("declined"))?;
    ctx.progress(2.0, 3.0);
    let answer = ctx.sample(Sampling::user("Name it")).await?;
    ctx.progress(3.0, 3.0);
    Ok(format!("{} / {}", when.day, answer.text()))
}

/// The server mounted in the tests.
fn upstream() -> Server {
    Server::empty("memo", "1")
        .tool(add::Tool)
        .tool(book::Tool)
        .resource(today::Resource)
        .resource(day::Resource)
        .prompt(greet::Prompt)
}

fn builder(version: ProtocolVersion) -> ClientBuilder {
    Client::builder()
        .name("proxy-test", "1")
        .era(EraChoice::Version(version))
        .on_elicitation(|params| async move {
            assert_eq!(params.message, "When?");
            Ok(ElicitResult { action: ElicitAction::Accept, content: json!({"day": "friday"}).as_object().cloned() })
        })
        .on_sampling(|_| async {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: vec![SamplingContent::text("Pip")],
                model: "m".into(),
                stop_reason: None,
            })
        })
}

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

#[tokio::test]
async fn a_mounted_server_is_served_under_its_prefix_in_both_eras() {
    for version in ERAS {
        let gateway = Server::empty("gateway", "1").tool(own::Tool).mount("calc", upstream());
        let client = pipe_to(gateway, builder(version)).await;
        let mut tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        tools.sort();
        assert_eq!(tools, ["calc_add", "calc_book", "own"], "{version:?}");
        let sum: f64 = client.call_structured("calc_add", json!({ "a": 2, "b": 3 })).await.unwrap();
        assert_eq!(sum, 5.0);
        let wrong = client.call("calc_add", json!({ "a": "two" })).await.unwrap();
        assert_eq!(wrong.is_error, Some(true), "the upstream's own argument check answers: {wrong:?}");

        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["memo://calc/today"]);
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "memo://calc/day/{n}");
        let read = client.read_resource("memo://calc/today").await.unwrap();
        let ResourceContents::Text { uri, text, .. } = &read.contents[0] else { panic!("{read:?}") };
        assert_eq!((uri.as_str(), text.as_str()), ("memo://calc/today", "water the plants"));
        let read = client.read_resource("memo://calc/day/3").await.unwrap();
        let ResourceContents::Text { uri, text, .. } = &read.contents[0] else { panic!("{read:?}") };
        assert_eq!((uri.as_str(), text.as_str()), ("memo://calc/day/3", "day 3"));
        let missing = client.read_resource("memo://calc/nothing").await.unwrap_err();
        assert!(missing.to_string().contains("memo://calc/nothing"), "{missing}");

        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts[0].name, "calc_greet");
        let got = client.get_prompt("calc_greet", json!({ "name": "Ada" })).await.unwrap();
        assert!(format!("{:?}", got.messages).contains("Say hello to Ada."), "{got:?}");
        let completed =
            client.complete(CompleteRef::Prompt { name: "calc_greet".into() }, "name", "A", None).await.unwrap();
        assert_eq!(completed.completion.values, ["Ada", "Alan"]);
    }
}

#[tokio::test]
async fn questions_and_progress_pass_through_in_every_pairing_of_eras() {
    for upstream_era in ERAS {
        for version in ERAS {
            let inner = Upstream::connect_with("memo", move |builder| async move {
                let builder = builder.era(EraChoice::Version(upstream_era));
                let (ours, theirs) = tokio::io::duplex(1 << 16);
                let (read, write) = tokio::io::split(theirs);
                tokio::spawn(upstream().serve(read, write));
                let (read, write) = tokio::io::split(ours);
                builder.io(read, write).await
            });
            let gateway = Server::empty("gateway", "1").mount("calc", inner);
            let client = pipe_to(gateway, builder(version)).await;
            let heard = Arc::new(Mutex::new(Vec::new()));
            let progress = heard.clone();
            let booked = client
                .call("calc_book", json!({}))
                .on_progress(move |p| progress.lock().unwrap().push(p.progress))
                .await
                .unwrap();
            let pairing = format!("upstream {upstream_era:?}, client {version:?}");
            assert_eq!(booked.is_error, None, "{pairing}: {booked:?}");
            let text = booked.content.iter().find_map(|c| match c {
                mcp_core::Content::Text(text) => Some(text.text.clone()),
                _ => None,
            });
            assert_eq!(text.as_deref(), Some("friday / Pip"), "{pairing}");
            if version.uses_handshake() {
                // 2026-07-28 runs the handler again per round, so progress
                // is only certain where there is one run.
                let heard = heard.lock().unwrap().clone();
                assert!(heard.contains(&3.0), "{pairing}: progress heard {heard:?}");
            }
        }
    }
}

#[tokio::test]
async fn changes_of_a_mounted_server_reach_the_clients() {
    for version in ERAS {
        let inner = upstream();
        let tools = inner.tools_handle();
        let resources = inner.resources_handle();
        let gateway = Server::empty("gateway", "1").mount_with(Mount::new("calc", inner).except(["book"]));
        let client = pipe_to(gateway, builder(version)).await;
        let names = |tools: Vec<mcp_core::Tool>| tools.into_iter().map(|t| t.name).collect::<Vec<_>>();
        assert_eq!(names(client.list_tools().await.unwrap()), ["calc_add"], "`except` leaves `book` out");
        let mut updates = client.subscribe("memo://calc/today").await.unwrap();
        let mut changes = client.watch(&[]).await.unwrap();
        tools.add(own::Tool).unwrap();
        let change = tokio::time::timeout(Duration::from_secs(5), changes.next()).await.expect("a list change");
        assert_eq!(change.unwrap().method, "notifications/tools/list_changed", "{version:?}");
        assert_eq!(names(client.list_tools().await.unwrap()), ["calc_add", "calc_own"]);
        resources.updated("memo://today");
        let updated = tokio::time::timeout(Duration::from_secs(5), updates.next()).await.expect("an update");
        assert_eq!(updated.as_deref(), Some("memo://calc/today"), "{version:?}");
    }
}

/// A fake upstream speaking the handshake over a pipe, with tools that
/// misbehave: `crash` ends the connection, `stall` never answers, `flood`
/// sends a flood of log messages first, `garbage` sends lines that are no
/// JSON-RPC first; `ok` answers.
pub(crate) async fn misbehaving(stream: tokio::io::DuplexStream) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        let Some(id) = message.get("id").cloned() else { continue };
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {}, "logging": {} },
                "serverInfo": { "name": "misbehaving", "version": "1" }
            }),
            "tools/list" => {
                let tools = ["crash", "stall", "flood", "garbage", "ok"]
                    .map(|name| json!({ "name": name, "inputSchema": { "type": "object" } }));
                json!({ "tools": tools })
            }
            "tools/call" => match message["params"]["name"].as_str().unwrap_or_default() {
                "crash" => return,
                "stall" => continue,
                "flood" => {
                    let log = json!({ "jsonrpc": "2.0", "method": "notifications/message",
                        "params": { "level": "info", "data": "x".repeat(200) } });
                    for _ in 0..5_000 {
                        write.write_all(format!("{log}\n").as_bytes()).await.unwrap();
                    }
                    json!({ "content": [{ "type": "text", "text": "flooded" }] })
                }
                "garbage" => {
                    write.write_all(b"this is no JSON\n{\"jsonrpc\": \"2.0\", \"id\": []}\n\x00\xff\n").await.unwrap();
                    json!({ "content": [{ "type": "text", "text": "after garbage" }] })
                }
                _ => json!({ "content": [{ "type": "text", "text": "ok" }] }),
            },
            _ => json!({}),
        };
        let answer = json!({ "jsonrpc": "2.0", "id": id, "result": result });
        if write.write_all(format!("{answer}\n").as_bytes()).await.is_err() {
            return;
        }
    }
}

#[tokio::test]
async fn an_upstream_that_crashes_stalls_floods_or_sends_garbage_costs_its_caller_one_clear_error() {
    let connects = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let misbehaving_upstream = |connects: Arc<std::sync::atomic::AtomicUsize>| {
        Upstream::connect_with("misbehaving", move |builder| {
            connects.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move {
                let (ours, theirs) = tokio::io::duplex(1 << 16);
                tokio::spawn(misbehaving(theirs));
                let (read, write) = tokio::io::split(ours);
                builder.io(read, write).await
            }
        })
    };
    // The stall is met by a mount of its own with a short timeout; the
    // flood takes its time in a debug build, so the others have longer.
    let gateway = Server::empty("gateway", "1")
        .mount_with(Mount::new("bad", misbehaving_upstream(connects.clone())).timeout(Duration::from_secs(10)))
        .mount_with(Mount::new("slow", misbehaving_upstream(Arc::default())).timeout(Duration::from_millis(500)))
        .mount("good", upstream());
    let client = pipe_to(gateway, builder(ProtocolVersion::LATEST_HANDSHAKE)).await;
    let text = |result: &mcp_core::CallToolResult| match &result.content[0] {
        mcp_core::Content::Text(text) => text.text.clone(),
        other => panic!("{other:?}"),
    };

    let stalled = client.call("slow_stall", json!({})).await.unwrap();
    assert_eq!(stalled.is_error, Some(true));
    assert!(text(&stalled).contains("did not answer within 0.5 s"), "{}", text(&stalled));
    let after = client.call("slow_ok", json!({})).await.unwrap();
    assert_eq!(text(&after), "ok", "a stalled call costs only itself");

    let flooded = client.call("bad_flood", json!({})).await.unwrap();
    assert_eq!(text(&flooded), "flooded");
    let garbage = client.call("bad_garbage", json!({})).await.unwrap();
    assert_eq!(text(&garbage), "after garbage");

    let crashed = client.call("bad_crash", json!({})).await.unwrap();
    assert_eq!(crashed.is_error, Some(true));
    assert!(text(&crashed).contains("`bad` is unavailable"), "{}", text(&crashed));
    let sum: f64 = client.call_structured("good_add", json!({ "a": 1, "b": 1 })).await.unwrap();
    assert_eq!(sum, 2.0, "the other mount answers throughout");
    // The next call reconnects.
    let again = client.call("bad_ok", json!({})).await.unwrap();
    assert_eq!(text(&again), "ok");
    assert!(connects.load(std::sync::atomic::Ordering::SeqCst) >= 2);
}

static HANG_STOPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

struct Flag;
impl Drop for Flag {
    fn drop(&mut self) {
        HANG_STOPPED.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Wait until cancelled.
#[tool]
async fn hang() -> &'static str {
    let _flag = Flag;
    std::future::pending::<()>().await;
    "never"
}

/// Log a line, then answer.
#[tool]
async fn chatty(ctx: Context) -> &'static str {
    ctx.info("a line from upstream");
    "said"
}

/// `server` on a free loopback port.
async fn http_url(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, mcp_runtime::transport::HttpOptions::new()).await });
    format!("http://{addr}/mcp")
}

fn answering(day: &'static str) -> ClientBuilder {
    Client::builder()
        .era(EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE))
        .on_elicitation(move |_| async move {
            // Slow enough that both calls are in flight at once.
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(ElicitResult { action: ElicitAction::Accept, content: json!({ "day": day }).as_object().cloned() })
        })
        .on_sampling(|_| async {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: vec![SamplingContent::text("Pip")],
                model: "m".into(),
                stop_reason: None,
            })
        })
}

#[tokio::test]
async fn a_handshake_upstream_over_http_gets_a_connection_per_client_session() {
    let upstream_url = http_url(upstream().tool(hang::Tool).tool(chatty::Tool)).await;
    let handshake = Upstream::connect_with("memo over HTTP", move |builder| {
        let url = upstream_url.clone();
        async move { builder.era(EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE)).http(&url).await }
    });
    let gateway_url = http_url(Server::empty("gateway", "1").mount("calc", handshake)).await;
    let monday = answering("monday").http(&gateway_url).await.unwrap();
    let tuesday = answering("tuesday").http(&gateway_url).await.unwrap();
    // Each session's question goes to its own client, with both in flight.
    let (a, b) = tokio::join!(monday.call("calc_book", json!({})), tuesday.call("calc_book", json!({})));
    let text = |result: mcp_core::CallToolResult| match &result.content[0] {
        mcp_core::Content::Text(text) => text.text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(text(a.unwrap()), "monday / Pip");
    assert_eq!(text(b.unwrap()), "tuesday / Pip");

    // Log messages reach the client of the call.
    let mut notes = Box::pin(monday.notifications());
    assert_eq!(text(monday.call("calc_chatty", json!({})).await.unwrap()), "said");
    let heard = tokio::time::timeout(Duration::from_secs(5), notes.next()).await.expect("a log message").unwrap();
    assert_eq!(heard.method, "notifications/message");
    assert_eq!(heard.params.unwrap()["data"], "a line from upstream");

    // A call the client stops waiting for is cancelled upstream.
    let abandoned = tuesday.call("calc_hang", json!({})).timeout(Duration::from_millis(300)).await;
    assert!(abandoned.is_err(), "{abandoned:?}");
    let stopped = async {
        while !HANG_STOPPED.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), stopped).await.expect("the upstream's handler was stopped");
}

static BOOKINGS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `book`, counting how often it runs.
#[tool]
async fn counted(ctx: Context) -> Result<String, ToolError> {
    BOOKINGS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let when = ctx.elicit::<When>("When?").await?.accepted().ok_or_else(|| ToolError::new("declined"))?;
    let answer = ctx.sample(Sampling::user("Name it")).await?;
    Ok(format!("{} / {}", when.day, answer.text()))
}

#[tokio::test]
async fn a_stateless_client_in_front_of_a_handshake_upstream_gets_rounds_while_the_upstream_call_waits() {
    let inner = Upstream::connect_with("memo", |builder| async move {
        let builder = builder.era(EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE));
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(theirs);
        tokio::spawn(Server::empty("memo", "1").tool(counted::Tool).serve(read, write));
        let (read, write) = tokio::io::split(ours);
        builder.io(read, write).await
    });
    let gateway = Server::empty("gateway", "1").mount("calc", inner);
    let client = pipe_to(gateway, builder(ProtocolVersion::LATEST)).await;
    let booked = client.call("calc_counted", json!({})).await.unwrap();
    let text = match &booked.content[0] {
        mcp_core::Content::Text(text) => text.text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(text, "friday / Pip");
    // Two questions, three rounds for the client; one run upstream.
    assert_eq!(BOOKINGS.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// How many times `hits` was called.
#[tool]
fn hits(counter: State<std::sync::atomic::AtomicU64>) -> u64 {
    counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
}

#[tokio::test]
async fn an_imported_server_is_a_renamed_copy_called_directly() {
    let other = upstream().tool(hits::Tool).with_state(std::sync::atomic::AtomicU64::new(41));
    let server = Server::empty("gateway", "1").tool(own::Tool).import("calc", other);
    let client = pipe_to(server, builder(ProtocolVersion::LATEST)).await;
    let mut tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    tools.sort();
    assert_eq!(tools, ["calc_add", "calc_book", "calc_hits", "own"]);
    let sum: f64 = client.call_structured("calc_add", json!({ "a": 2, "b": 3 })).await.unwrap();
    assert_eq!(sum, 5.0);
    let hits: u64 = client.call_structured("calc_hits", json!({})).await.unwrap();
    assert_eq!(hits, 42, "the imported server's shared value came along");
    let read = client.read_resource("memo://calc/day/3").await.unwrap();
    let ResourceContents::Text { text, .. } = &read.contents[0] else { panic!("{read:?}") };
    assert_eq!(text, "day 3");
    let completed =
        client.complete(CompleteRef::Prompt { name: "calc_greet".into() }, "name", "G", None).await.unwrap();
    assert_eq!(completed.completion.values, ["Grace"]);
    let booked = client.call("calc_book", json!({})).await.unwrap();
    assert!(format!("{:?}", booked.content).contains("friday / Pip"), "{booked:?}");
}

#[tokio::test]
async fn a_test_client_sees_a_mounted_server_from_its_first_request() {
    let server = Server::empty("gateway", "1").mount("calc", upstream());
    let mut client = mcp_runtime::testing::TestClient::connect(server).await.unwrap();
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["calc_add", "calc_book"]);
    let added = client.call_tool("calc_add", json!({ "a": 1, "b": 2 })).await.unwrap();
    assert!(format!("{:?}", added.content).contains("\"3\""), "{added:?}");
}
