//! The client crate against servers of ours, through the protocol: over a
//! pipe and over Streamable HTTP, in both eras, every feature; and against
//! servers that misbehave.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::pipe_to;
use futures_util::StreamExt;
use mcp_core::{
    CompleteRef, CreateMessageResult, ElicitAction, ElicitResult, ProtocolVersion, Role, Root, SamplingContent,
};
use mcp_runtime::completion::Completing;
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime_client::{Client, ClientBuilder, Era, EraChoice, Error};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
struct Split {
    words: Vec<String>,
    first: Option<String>,
}

/// Split text into words.
#[tool]
fn split(text: String) -> Json<Split> {
    let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    Json(Split { first: words.first().cloned(), words })
}

/// When to book.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct When {
    /// The day
    day: String,
}

/// Ask the user, the model and the roots, in one call.
#[tool]
async fn plan(ctx: Context) -> Result<String, ToolError> {
    let when = ctx.elicit::<When>("When?").await?.accepted().ok_or_else(|| ToolError::new("declined"))?;
    let answer = ctx.sample(Sampling::user("Greet")).await?;
    let roots = ctx.roots().await?;
    Ok(format!("{} / {} / {}", when.day, answer.text(), roots.len()))
}

/// Report progress three times.
#[tool]
async fn steps(ctx: Context) -> &'static str {
    for i in 1..=3 {
        ctx.progress(f64::from(i), 3.0);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    "stepped"
}

static HANG_STOPPED: AtomicBool = AtomicBool::new(false);

struct Flag;
impl Drop for Flag {
    fn drop(&mut self) {
        HANG_STOPPED.store(true, Ordering::SeqCst);
    }
}

/// Wait forever (until cancelled).
#[tool]
async fn hang() -> &'static str {
    let _flag = Flag;
    std::future::pending::<()>().await;
    "never"
}

/// Run a query in a region.
#[tool]
fn regional(#[arg(header = "Region")] region: String) -> String {
    format!("in {region}")
}

/// The app's settings.
#[resource("config://app", mime_type = "application/json")]
fn config() -> String {
    r#"{"debug":true}"#.into()
}

/// A note by title.
#[resource("notes://{title}")]
fn note(title: String) -> String {
    format!("note {title}")
}

/// Names starting with what was typed.
async fn names(completing: Completing) -> Vec<String> {
    ["Ada", "Alan", "Grace"].iter().filter(|n| n.starts_with(completing.value())).map(|n| n.to_string()).collect()
}

/// Greet someone.
#[prompt]
fn greet(
    /// Who
    #[arg(complete = names)]
    name: String,
) -> String {
    format!("Hello, {name}!")
}

fn server() -> Server {
    Server::empty("client-test", "1")
        .tool(add::Tool)
        .tool(split::Tool)
        .tool(plan::Tool)
        .tool(steps::Tool)
        .tool(hang::Tool)
        .tool(regional::Tool)
        .resource(config::Resource)
        .resource(note::Resource)
        .prompt(greet::Prompt)
}

fn builder(version: ProtocolVersion) -> ClientBuilder {
    Client::builder()
        .name("client-test", "1")
        .era(EraChoice::Version(version))
        .on_elicitation(|params| async move {
            assert_eq!(params.message, "When?");
            Ok(ElicitResult { action: ElicitAction::Accept, content: json!({"day": "friday"}).as_object().cloned() })
        })
        .on_sampling(|_| async {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: vec![SamplingContent::text("hi")],
                model: "m".into(),
                stop_reason: None,
            })
        })
        .roots(vec![Root { uri: "file:///w".into(), name: Some("w".into()), meta: None }])
}

/// A client of `server()` over an in-process pipe.
async fn over_pipe(version: ProtocolVersion) -> Client {
    pipe_to(server(), builder(version)).await
}

/// A client of a scripted server: each request gets what `answer` makes
/// of it (nothing for `None`).
async fn scripted(answer: fn(&Value) -> Option<Value>) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            if let Some(answer) = answer(&message) {
                write.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
            }
        }
    });
    let (read, write) = tokio::io::split(client_end);
    Client::io(read, write).await.expect("the client connects")
}

/// `server()` on a free loopback port.
async fn http_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { server().serve_http_on(listener, HttpOptions::new()).await.unwrap() });
    format!("http://{addr}/mcp")
}

async fn every_feature(client: &Client, version: ProtocolVersion) {
    let negotiated = client.negotiated();
    assert_eq!(negotiated.version, version.as_str());
    assert_eq!(negotiated.era, if version.uses_handshake() { Era::Handshake } else { Era::Stateless });
    assert_eq!(negotiated.server_info.as_ref().map(|i| i.name.as_str()), Some("client-test"));

    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "hang", "plan", "regional", "split", "steps"], "{version}");

    let sum: f64 = client.call_structured("add", json!({"a": 2, "b": 3.5})).await.unwrap();
    assert_eq!(sum, 5.5, "{version}");
    let split: Split = client.call_structured("split", json!({"text": "one two"})).await.unwrap();
    assert_eq!(split, Split { words: vec!["one".into(), "two".into()], first: Some("one".into()) });
    let wrong = client.call("add", json!({"a": "x"})).await.unwrap();
    assert_eq!(wrong.is_error, Some(true), "{version}: {wrong:?}");
    assert!(matches!(client.call_structured::<f64>("add", json!({"a": "x"})).await, Err(Error::Tool(_))));

    // Elicitation, sampling and roots: requests to the client in the
    // handshake era, input-required rounds in 2026-07-28.
    let planned: String = client.call_structured("plan", json!({})).await.unwrap();
    assert_eq!(planned, "friday / hi / 1", "{version}");

    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let heard = seen.clone();
    let stepped = client.call("steps", json!({})).on_progress(move |p| heard.lock().unwrap().push(p.progress)).await;
    assert_eq!(stepped.unwrap().content[0].as_text(), Some("stepped"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The server may coalesce updates that come close together; what
    // arrives only grows and ends at the total.
    let seen = seen.lock().unwrap().clone();
    assert!(seen.windows(2).all(|w| w[0] < w[1]) && seen.last() == Some(&3.0), "{version}: {seen:?}");

    let resources = client.list_resources().await.unwrap();
    assert_eq!(resources[0].uri, "config://app");
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "notes://{title}");
    let read = client.read_resource("notes://today").await.unwrap();
    assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "note today");

    let prompt = client.get_prompt("greet", json!({"name": "Ada"})).await.unwrap();
    assert_eq!(serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"], "Hello, Ada!");
    let completed = client.complete(CompleteRef::Prompt { name: "greet".into() }, "name", "A", None).await.unwrap();
    assert_eq!(completed.completion.values, ["Ada", "Alan"], "{version}");

    let unknown = client.call("nope", json!({})).await.unwrap_err();
    assert!(unknown.server_error().is_some() || matches!(unknown, Error::Http { .. }), "{version}: {unknown}");
}

#[tokio::test]
async fn over_a_pipe_every_feature_works_in_both_eras() {
    for version in ERAS {
        let client = over_pipe(version).await;
        every_feature(&client, version).await;
        client.close().await;
    }
}

#[tokio::test]
async fn over_http_every_feature_works_in_both_eras() {
    let url = http_url().await;
    for version in ERAS {
        let client = builder(version).http(&url).await.expect("the client connects");
        every_feature(&client, version).await;
        // The tool's `Region` argument goes in its header too: a server
        // that checks it (ours) accepts the call.
        client.list_tools().await.unwrap();
        let result = client.call("regional", json!({"region": "Zürich"})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("in Zürich"), "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn auto_asks_for_discovery_and_falls_back_to_the_handshake() {
    // Ours speaks both: auto takes 2026-07-28.
    let client = pipe_to(server(), Client::builder()).await;
    assert_eq!(client.negotiated().era, Era::Stateless);

    // A server that knows only the handshake answers discovery with
    // "method not found"; the client goes on with `initialize`.
    let client = scripted(|message| {
        Some(match message["method"].as_str()? {
            "server/discover" => {
                json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
            }
            "initialize" => json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "old", "version": "0"}}}),
            "tools/list" => json!({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}),
            _ => return None,
        })
    })
    .await;
    let negotiated = client.negotiated();
    assert_eq!((negotiated.era, negotiated.version.as_str()), (Era::Handshake, "2025-06-18"));
    assert!(client.list_tools().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_call_dropped_or_timed_out_is_cancelled_on_the_server() {
    for version in ERAS {
        HANG_STOPPED.store(false, Ordering::SeqCst);
        let client = over_pipe(version).await;
        let timed_out = client.call("hang", json!({})).timeout(Duration::from_millis(100)).await;
        assert!(matches!(timed_out, Err(Error::Timeout(_))), "{timed_out:?}");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !HANG_STOPPED.load(Ordering::SeqCst) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(HANG_STOPPED.load(Ordering::SeqCst), "{version}: the server was told to stop the call");
        // The connection is still good.
        let sum: f64 = client.call_structured("add", json!({"a": 1, "b": 1})).await.unwrap();
        assert_eq!(sum, 2.0);
    }
}

#[tokio::test]
async fn the_calculator_example_over_stdio() {
    let client = Client::builder()
        .stderr(mcp_runtime_client::Stderr::Capture)
        .command(crate::common::example("calculator"), std::iter::empty::<&str>())
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "calculator"), "{tools:?}");
    let sum = client.call("calculator", json!({"operation": "add", "a": 40, "b": 2})).await.unwrap();
    assert_eq!(sum.content[0].as_text(), Some("result: 42"));
    client.close().await;
}

/// A server that sends garbage, answers ids no one asked, then dies in
/// the middle of a call: the call fails, saying the connection ended.
#[tokio::test]
async fn a_server_that_misbehaves_then_dies_fails_the_call_and_never_hangs() {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            match message["method"].as_str() {
                Some("server/discover") => {
                    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                        "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}});
                    write.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
                }
                Some("tools/call") => {
                    write.write_all(b"this is not json\n").await.unwrap();
                    write.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n").await.unwrap();
                    write.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}\n").await.unwrap();
                    return; // dies mid-call
                }
                _ => {}
            }
        }
    });
    let (read, write) = tokio::io::split(client_end);
    let client = Client::io(read, write).await.unwrap();
    let failed = tokio::time::timeout(Duration::from_secs(5), client.call("anything", json!({}))).await;
    assert!(matches!(failed, Ok(Err(Error::Closed(_)))), "{failed:?}");
    let again = client.call("anything", json!({})).await;
    assert!(matches!(again, Err(Error::Closed(_))), "{again:?}");
}

#[tokio::test]
async fn log_messages_and_list_changes_arrive_as_notifications() {
    let server = server().tool(chatter::Tool);
    let tools = server.tools_handle();
    let client = pipe_to(server, builder(ProtocolVersion::LATEST_HANDSHAKE)).await;
    let mut notifications = Box::pin(client.notifications());
    client.set_log_level(mcp_core::LoggingLevel::Warning).await.unwrap();
    client.call("chatter", json!({})).await.unwrap();
    assert!(tools.remove("hang"), "the tool was there to remove");
    // The messages at or above the level the client set, then the change.
    let mut heard = Vec::new();
    while heard.last().map(String::as_str) != Some("notifications/tools/list_changed") {
        let next = tokio::time::timeout(Duration::from_secs(5), notifications.next()).await;
        let notification = next.unwrap_or_else(|_| panic!("heard only {heard:?}")).unwrap();
        heard.push(match notification.params.as_ref().and_then(|p| p.get("level")) {
            Some(level) => format!("{}: {}", notification.method, level.as_str().unwrap()),
            None => notification.method,
        });
    }
    assert_eq!(
        heard,
        ["notifications/message: warning", "notifications/message: error", "notifications/tools/list_changed"]
    );
}

#[tokio::test]
async fn a_subscription_yields_each_change_in_both_eras_over_a_pipe_and_http() {
    for version in ERAS {
        for over_http in [false, true] {
            let server = server();
            let resources = server.resources_handle();
            let client = if over_http {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr: SocketAddr = listener.local_addr().unwrap();
                tokio::spawn(async move { server.serve_http_on(listener, HttpOptions::new()).await.unwrap() });
                builder(version).http(&format!("http://{addr}/mcp")).await.unwrap()
            } else {
                pipe_to(server, builder(version)).await
            };
            let mut updates = client.subscribe("config://app").await.unwrap();
            resources.updated("notes://other");
            resources.updated("config://app");
            let next = tokio::time::timeout(Duration::from_secs(5), updates.next()).await;
            assert_eq!(next.ok().flatten().as_deref(), Some("config://app"), "{version}, http: {over_http}");
            drop(updates);
            client.close().await;
        }
    }
}

/// A server that cannot read a request answers with an error whose id is
/// null: with one request waiting, that request gets it at once.
#[tokio::test]
async fn an_error_without_an_id_answers_the_one_request_waiting() {
    let client = scripted(|message| {
        Some(match message["method"].as_str()? {
            "server/discover" => json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}}),
            _ if message.get("id").is_some() => {
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "unreadable"}})
            }
            _ => return None,
        })
    })
    .await;
    let failed =
        tokio::time::timeout(Duration::from_secs(5), client.call("t", json!({}))).await.expect("answered at once");
    assert_eq!(failed.unwrap_err().server_error().map(|e| e.code), Some(-32700));
}

/// Log one message at each of debug, info, warning and error.
#[tool]
async fn chatter(ctx: Context) -> &'static str {
    ctx.debug("a debug message");
    ctx.info("an info message");
    ctx.warning("a warning message");
    ctx.error("an error message");
    "chattered"
}

/// 2026-07-28 has no `resources/subscribe`, `logging/setLevel` or `ping`:
/// a subscription is a `subscriptions/listen` the server acknowledges, the
/// log level rides each request's `_meta`, and `ping` asks
/// `server/discover`. Over a pipe and over HTTP, against our server
/// (which, like the Python SDK's 2.x, refuses the handshake's methods in
/// 2026-07-28).
#[tokio::test]
async fn in_2026_07_28_subscriptions_log_levels_and_ping_use_that_era_s_requests() {
    let stateless = || {
        let server = server().tool(chatter::Tool);
        let resources = server.resources_handle();
        (server, resources)
    };
    let (pipe_server, pipe_resources) = stateless();
    let pipe = pipe_to(pipe_server, builder(ProtocolVersion::LATEST)).await;

    let (http_server, http_resources) = stateless();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { http_server.serve_http_on(listener, HttpOptions::new()).await.unwrap() });
    let http = builder(ProtocolVersion::LATEST).http(&url).await.unwrap();

    for (client, resources, at) in [(&pipe, &pipe_resources, "pipe"), (&http, &http_resources, "http")] {
        assert_eq!(client.negotiated().era, Era::Stateless);
        client.ping().await.unwrap_or_else(|e| panic!("{at}: ping: {e}"));

        let mut updates = Box::pin(client.subscribe("notes://today").await.unwrap_or_else(|e| panic!("{at}: {e}")));
        resources.updated("notes://other");
        resources.updated("notes://today");
        let update = tokio::time::timeout(Duration::from_secs(5), updates.next()).await;
        assert_eq!(update, Ok(Some("notes://today".to_owned())), "{at}");

        let mut notifications = Box::pin(client.notifications());
        client.set_log_level(mcp_core::LoggingLevel::Warning).await.unwrap_or_else(|e| panic!("{at}: {e}"));
        let chattered = client.call("chatter", json!({})).await.unwrap();
        assert_eq!(chattered.content[0].as_text(), Some("chattered"));
        let mut heard = Vec::new();
        while heard.len() < 2 {
            let next = tokio::time::timeout(Duration::from_secs(5), notifications.next()).await;
            let notification = next.unwrap_or_else(|_| panic!("{at}: heard only {heard:?}")).unwrap();
            if notification.method == "notifications/message" {
                heard.push(notification.params.unwrap()["data"].clone());
            }
        }
        assert_eq!(heard, ["a warning message", "an error message"], "{at}");
    }
}

/// What the official Python SDK's 1.x server does with 2026-07-28's
/// `server/discover` over HTTP: a 400 that names a new session (ended at
/// once) and carries an error under an id of its own, `"server-error"`.
/// `Auto` must go straight on to `initialize`, without that session: not
/// wait for an answer that never comes, nor send the dead session along.
#[tokio::test]
async fn auto_over_http_falls_back_at_once_from_a_refusal_that_names_a_dead_session() {
    use mcp_runtime::axum::http::{HeaderMap, StatusCode};
    use mcp_runtime::axum::response::IntoResponse;

    async fn endpoint(headers: HeaderMap, body: String) -> mcp_runtime::axum::response::Response {
        let message: Value = serde_json::from_str(&body).unwrap();
        let session = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let json = [("content-type", "application/json")];
        let refusal = |message: &str| {
            json!({"jsonrpc": "2.0", "id": "server-error", "error": {"code": -32600, "message": message}}).to_string()
        };
        match (message["method"].as_str(), session.as_deref()) {
            (Some("initialize"), None) => {
                let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "python-like", "version": "1"}}});
                (StatusCode::OK, [("content-type", "application/json"), ("mcp-session-id", "live")], answer.to_string())
                    .into_response()
            }
            (_, Some("live")) if message.get("id").is_none() => StatusCode::ACCEPTED.into_response(),
            (Some("tools/list"), Some("live")) => {
                (json, json!({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}).to_string())
                    .into_response()
            }
            (_, Some("live")) => (StatusCode::BAD_REQUEST, json, refusal("unexpected")).into_response(),
            (_, Some(_)) => (StatusCode::NOT_FOUND, json, refusal("Session not found")).into_response(),
            (_, None) => (
                StatusCode::BAD_REQUEST,
                [("content-type", "application/json"), ("mcp-session-id", "dead")],
                refusal("Bad Request: Missing session ID"),
            )
                .into_response(),
        }
    }

    let app = mcp_runtime::axum::Router::new()
        .route("/mcp", mcp_runtime::axum::routing::post(endpoint).get(|| async { StatusCode::METHOD_NOT_ALLOWED }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, app).await.unwrap() });

    let connected = tokio::time::timeout(Duration::from_secs(5), Client::http(&url)).await;
    let client = connected.expect("no wait for an answer the refusal already gave").expect("the client connects");
    let negotiated = client.negotiated();
    assert_eq!((negotiated.era, negotiated.version.as_str()), (Era::Handshake, "2025-11-25"));
    assert!(client.list_tools().await.unwrap().is_empty());
}
