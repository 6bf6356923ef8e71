//! Streamable HTTP end to end, with a real HTTP client (reqwest): the
//! session lifecycle, JSON and SSE responses, the GET stream, cancellation
//! by disconnect, the security defaults, the limits, and 50 sessions at
//! once.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::common::http::{Client, event_ids, events};
use mcp_runtime::prelude::*;
use mcp_runtime::{Server, transport::HttpOptions};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Echo the text back.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Sleep, then say how long.
#[tool]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Report progress three times and log once.
#[tool]
async fn steps(ctx: Context) -> &'static str {
    ctx.info("starting");
    for i in 1..=3 {
        ctx.progress(f64::from(i), 3.0);
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    "stepped"
}

/// The keys of the `hang` calls that were cancelled (`http_calls` reads them too).
pub(crate) static CANCELLED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Wait until cancelled, and remember that it was.
#[tool]
pub(crate) async fn hang(key: String, ctx: Context) -> String {
    let watcher = ctx.clone();
    tokio::spawn(async move {
        watcher.cancelled().await;
        CANCELLED.lock().unwrap().insert(key);
    });
    std::future::pending::<String>().await
}

/// A tool that fails inside, with details that must not reach the client.
#[tool]
fn leaky() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("password=hunter2 at /srv/secret"))
}

/// Allowed twice a minute per session.
#[tool(rate_limit = "2/minute")]
fn scarce() -> &'static str {
    "ok"
}

fn server() -> Server {
    Server::empty("http-test", "1")
        .tool(echo::Tool)
        .tool(nap::Tool)
        .tool(steps::Tool)
        .tool(hang::Tool)
        .tool(leaky::Tool)
        .tool(scarce::Tool)
}

/// Serve `server` with `options` on a free loopback port, through the
/// mountable router (so mounting is tested too).
async fn start_with(server: Server, options: HttpOptions) -> String {
    let router = server.http_router(options).expect("the server builds");
    let app = mcp_runtime::axum::Router::new()
        .route("/health", mcp_runtime::axum::routing::get(|| async { "ok" }))
        .merge(router);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/mcp")
}

async fn start() -> String {
    start_with(server(), HttpOptions::new()).await
}

/// Serve `server` as `serve_http_with` does (our accept loop, with the
/// connection limits) on a free loopback port.
async fn serve_with(server: Server, options: HttpOptions) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, options).await.unwrap() });
    format!("http://{addr}/mcp")
}

/// The `host:port` of an endpoint's URL.
fn authority(url: &str) -> &str {
    url.trim_start_matches("http://").trim_end_matches("/mcp")
}

/// Everything the server sends on `connection` until it closes it; panics
/// if it is still open after `within`.
async fn until_closed(connection: &mut TcpStream, within: Duration) -> String {
    let mut seen = Vec::new();
    let read = tokio::time::timeout(within, connection.read_to_end(&mut seen)).await;
    assert!(read.is_ok(), "the server kept the connection open ({} bytes so far)", seen.len());
    String::from_utf8_lossy(&seen).into_owned()
}

#[tokio::test]
async fn a_session_starts_lists_calls_and_ends() {
    let url = start().await;
    let mut client = Client::new(&url);
    let init = client.initialize().await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "http-test");
    let session = client.session.clone().unwrap();
    assert!(session.len() >= 32 && session.chars().all(|c| c.is_ascii_hexdigit()), "{session}");

    let list = client.request("tools/list", json!({})).await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.content_type().starts_with("application/json"));
    let names: Vec<&str> =
        list.last()["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["echo", "hang", "leaky", "nap", "scarce", "steps"]);

    // A call that sends nothing before its result is answered as plain
    // JSON even to a client that takes an event stream: one write, no
    // stream to set up (a call that reports progress streams, below).
    let call = client.call("echo", json!({"text": "over http"})).await;
    assert_eq!(call.status, StatusCode::OK);
    assert!(call.content_type().starts_with("application/json"), "{call:?}");
    assert_eq!(call.last()["result"]["content"], json!([{"type": "text", "text": "over http"}]));

    // Bad arguments are a tool error, as over stdio.
    let bad = client.call("echo", json!({"text": 5})).await;
    assert_eq!(bad.last()["result"]["isError"], true);

    let ping = client.request("ping", json!({})).await;
    assert_eq!(ping.last()["result"], json!({}));

    let deleted = client.send(client.http.delete(&url).header("mcp-session-id", &session)).await;
    assert_eq!(deleted.status, StatusCode::OK);
    let after = client.request("tools/list", json!({})).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    assert_eq!(after.last()["error"]["code"], -32001);
    let again = client.send(client.http.delete(&url).header("mcp-session-id", &session)).await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_id_in_use_in_a_session_is_refused_while_its_call_runs() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let nap =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "nap", "arguments": {"ms": 500}}});
    let first = client.post("application/json").json(&nap);
    let running = tokio::spawn(async move { first.send().await.unwrap().text().await.unwrap() });
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    let again = client
        .message(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}}}))
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.last()["error"]["code"], -32600, "{again:?}");
    assert!(again.last()["error"]["message"].as_str().unwrap().contains("already in use"), "{again:?}");
    // The first call was not disturbed, and its end frees the id.
    let first: Value = serde_json::from_str(&running.await.unwrap()).unwrap();
    assert_eq!(first["result"]["content"][0]["text"], "slept 500 ms", "{first}");
    let reused = client.message(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).await;
    assert_eq!(reused.last()["result"], json!({}), "{reused:?}");
}

#[tokio::test]
async fn a_call_streams_its_progress_and_logs_before_the_result() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let answer = client
        .send(client.post("application/json, text/event-stream").json(&json!({
            "jsonrpc": "2.0", "id": "s", "method": "tools/call",
            "params": {"name": "steps", "arguments": {}, "_meta": {"progressToken": "p"}}
        })))
        .await;
    let methods: Vec<&str> = answer.messages.iter().map(|m| m["method"].as_str().unwrap_or("(response)")).collect();
    assert_eq!(
        methods,
        [
            "notifications/message",
            "notifications/progress",
            "notifications/progress",
            "notifications/progress",
            "(response)"
        ]
    );
    let progress: Vec<&Value> = answer.messages[1..4].iter().map(|m| &m["params"]["progress"]).collect();
    assert_eq!(progress, [&json!(1.0), &json!(2.0), &json!(3.0)]);
    assert_eq!(answer.messages[0]["params"]["data"], "starting");
    assert_eq!(answer.last()["id"], "s");
    assert_eq!(answer.last()["result"]["content"][0]["text"], "stepped");
}

#[tokio::test]
async fn a_client_that_takes_only_json_gets_the_result_as_json() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    client.next_id += 1;
    let message =
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "steps", "arguments": {}}});
    let answer = client.send(client.post("application/json").json(&message)).await;
    assert!(answer.content_type().starts_with("application/json"));
    assert_eq!(answer.messages.len(), 1);
    assert_eq!(answer.last()["result"]["content"][0]["text"], "stepped");
}

#[tokio::test]
async fn the_get_stream_carries_list_changes_and_only_one_is_open() {
    let server = server();
    let tools = server.tools_handle();
    let url = start_with(server, HttpOptions::new()).await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let session = client.session.clone().unwrap();
    let get = || client.http.get(&url).header(ACCEPT, "text/event-stream").header("mcp-session-id", &session);

    let mut stream = get().send().await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert!(stream.headers()[CONTENT_TYPE].to_str().unwrap().starts_with("text/event-stream"));
    assert_eq!(get().send().await.unwrap().status(), StatusCode::CONFLICT);
    let no_accept = client.http.get(&url).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(no_accept.status(), StatusCode::NOT_ACCEPTABLE);

    assert!(tools.disable("nap"));
    let mut seen = String::new();
    while !seen.contains("\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.chunk()).await.unwrap().unwrap().unwrap();
        seen.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    assert_eq!(events(&seen), [json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})]);

    // Ending the session closes its stream.
    client.send(client.http.delete(&url).header("mcp-session-id", &session)).await;
    let rest =
        tokio::time::timeout(Duration::from_secs(5), async { while stream.chunk().await.unwrap().is_some() {} }).await;
    assert!(rest.is_ok(), "the GET stream stayed open after DELETE");
}

#[tokio::test]
async fn a_client_that_hangs_up_cancels_its_call_and_notifications_cancel_too() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;

    // Hang up on a plain JSON answer (which cannot be resumed): the
    // request is dropped while the call runs.
    let request = client.post("application/json").json(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hang", "arguments": {"key": "hung-up"}}}),
    );
    let hanging = tokio::spawn(request.send());
    tokio::time::sleep(Duration::from_millis(100)).await;
    hanging.abort();
    wait_until(|| CANCELLED.lock().unwrap().contains("hung-up")).await;

    // `notifications/cancelled` from another POST.
    let pending = tokio::spawn(client.post("application/json, text/event-stream").json(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hang", "arguments": {"key": "notified"}}}),
    ).send());
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancel = client
        .message(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}))
        .await;
    assert_eq!(cancel.status, StatusCode::ACCEPTED);
    wait_until(|| CANCELLED.lock().unwrap().contains("notified")).await;
    let response = pending.await.unwrap().unwrap();
    let body = response.text().await.unwrap();
    assert_eq!(events(&body), Vec::<Value>::new(), "a cancelled call gets no response: {body:?}");
}

async fn wait_until(done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn requests_outside_a_session_are_refused_with_the_right_status() {
    let url = start().await;
    let mut client = Client::new(&url);
    let before = client.request("tools/list", json!({})).await;
    assert_eq!(before.status, StatusCode::BAD_REQUEST);
    assert!(before.last()["error"]["message"].as_str().unwrap().contains("Mcp-Session-Id"));

    client.session = Some("0123456789abcdef0123456789abcdef".into());
    let unknown = client.request("tools/list", json!({})).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);

    client.session = None;
    client.initialize().await;
    let wrong_version = client
        .send(
            client
                .post("application/json")
                .header("mcp-protocol-version", "1999-01-01")
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
        )
        .await;
    assert_eq!(wrong_version.status, StatusCode::BAD_REQUEST);
    assert!(wrong_version.last()["error"]["data"]["supported"].as_array().unwrap().contains(&json!("2025-06-18")));
    let right_version = client
        .send(
            client
                .post("application/json")
                .header("mcp-protocol-version", "2025-11-25")
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
        )
        .await;
    assert_eq!(right_version.status, StatusCode::OK);

    let not_json = client.send(client.post("application/json").body("{nope")).await;
    assert_eq!(not_json.status, StatusCode::BAD_REQUEST);
    assert_eq!(not_json.last()["error"]["code"], -32700);
    let session = client.session.clone().unwrap();
    let plain = client.http.post(&url).header("mcp-session-id", &session).header(CONTENT_TYPE, "text/plain");
    let plain = client.send(plain.body("{}")).await;
    assert_eq!(plain.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let put = client.send(client.http.put(&url)).await;
    assert_eq!(put.status, StatusCode::METHOD_NOT_ALLOWED);
    // The application's own routes are untouched.
    let health = client.http.get(url.replace("/mcp", "/health")).send().await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_forbidden() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let rebound = client.send(client.post("application/json").header("host", "evil.example").json(&ping)).await;
    assert_eq!(rebound.status, StatusCode::FORBIDDEN);
    let origin = client.send(client.post("application/json").header("origin", "http://evil.example").json(&ping)).await;
    assert_eq!(origin.status, StatusCode::FORBIDDEN);
    // Whoever reads a refusal learns the setting that lifts it.
    let why = origin.last()["error"]["message"].as_str().unwrap();
    assert!(why.contains("HttpOptions::allowed_origins"), "{why}");
    let local =
        client.send(client.post("application/json").header("origin", "http://localhost:6274").json(&ping)).await;
    assert_eq!(local.status, StatusCode::OK);

    let url = start_with(server(), HttpOptions::new().allowed_origins(["https://app.example.com"])).await;
    let client = Client::new(&url);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let app =
        client.send(client.post("application/json").header("origin", "https://app.example.com").json(&init)).await;
    assert_eq!(app.status, StatusCode::OK);
    let other =
        client.send(client.post("application/json").header("origin", "http://localhost:6274").json(&init)).await;
    assert_eq!(other.status, StatusCode::FORBIDDEN);
}

/// A server in a container, reached by its service name (`http://mcp:8080/mcp`):
/// the loopback defaults refuse it with a 403 that names the option to
/// set, and that option lets it in.
#[tokio::test]
async fn a_refused_host_is_told_which_option_allows_it() {
    let url = serve_with(server(), HttpOptions::new()).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let client = Client::new(&url);
    let refused = client.send(client.post("application/json").header("host", "mcp:8080").json(&init)).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let why = refused.last()["error"]["message"].as_str().unwrap();
    assert!(why.contains("HttpOptions::allowed_hosts"), "{why}");

    let url = serve_with(server(), HttpOptions::new().allowed_hosts(["mcp"])).await;
    let client = Client::new(&url);
    let allowed = client.send(client.post("application/json").header("host", "mcp:8080").json(&init)).await;
    assert_eq!(allowed.status, StatusCode::OK, "{:?}", allowed.messages);
    assert_eq!(allowed.last()["result"]["serverInfo"]["name"], "http-test");
}

/// What a browser does from a page of another origin: a preflight (with
/// no token: browsers never send one there), then the request, whose
/// answer and headers the page may read only if the server says so.
#[tokio::test]
async fn pages_of_an_allowed_origin_can_call_across_origins_and_others_cannot() {
    const APP: &str = "https://app.example.com";
    let options = HttpOptions::new().allowed_origins([APP]).bearer_token("s3cret-token");
    let url = serve_with(server(), options).await;
    let http = reqwest::Client::new();
    let preflight = |origin: &str| {
        http.request(reqwest::Method::OPTIONS, &url)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "authorization, content-type, mcp-protocol-version")
    };
    let asked = preflight(APP).send().await.unwrap();
    assert_eq!(asked.status(), StatusCode::NO_CONTENT, "a preflight needs no token");
    let headers = asked.headers();
    assert_eq!(headers["access-control-allow-origin"], APP);
    assert!(headers["access-control-allow-methods"].to_str().unwrap().contains("POST"));
    assert_eq!(headers["access-control-allow-headers"], "authorization, content-type, mcp-protocol-version");
    assert!(headers.get("access-control-max-age").is_some());

    let foreign = preflight("https://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    assert!(foreign.headers().get("access-control-allow-origin").is_none(), "nothing lets that page read it");

    let client = Client::new(&url);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let from_app = || client.post("application/json").header("origin", APP).json(&init);
    let started = client.send(from_app().bearer_auth("s3cret-token")).await;
    assert_eq!(started.status, StatusCode::OK);
    assert_eq!(started.headers["access-control-allow-origin"], APP);
    assert!(started.headers.get_all("vary").iter().any(|v| v == "origin"), "{:?}", started.headers);
    let exposed = started.headers["access-control-expose-headers"].to_str().unwrap();
    assert!(exposed.contains("mcp-session-id") && exposed.contains("www-authenticate"), "{exposed}");
    assert!(started.headers.get("mcp-session-id").is_some());

    // The page reads a refusal of its token too: its OAuth client needs the challenge.
    let refused = client.send(from_app()).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert_eq!(refused.headers["access-control-allow-origin"], APP);
    assert_eq!(refused.headers["www-authenticate"], "Bearer");

    // A program (no `Origin`) gets no CORS headers, and an OPTIONS only the methods.
    let program = client.send(client.post("application/json").bearer_auth("s3cret-token").json(&init)).await;
    assert_eq!(program.status, StatusCode::OK);
    assert!(program.headers.get("access-control-allow-origin").is_none());
    let options = http.request(reqwest::Method::OPTIONS, &url).send().await.unwrap();
    assert_eq!(options.status(), StatusCode::NO_CONTENT);
    assert_eq!(options.headers()["allow"], "GET, POST, DELETE, OPTIONS");
}

#[tokio::test]
async fn a_bearer_token_is_required_when_set() {
    let url = start_with(server(), HttpOptions::new().bearer_token("s3cret-token")).await;
    let client = Client::new(&url);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let missing = client.send(client.post("application/json").json(&init)).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(missing.headers["www-authenticate"], "Bearer");
    let wrong = client.send(client.post("application/json").bearer_auth("s3cret-tokem").json(&init)).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert_eq!(wrong.headers["www-authenticate"], r#"Bearer error="invalid_token""#);
    let right = client.send(client.post("application/json").bearer_auth("s3cret-token").json(&init)).await;
    assert_eq!(right.status, StatusCode::OK);
}

#[tokio::test]
async fn oversized_bodies_get_413_declared_or_streamed() {
    let url = start_with(server(), HttpOptions::new().max_body_size(1024)).await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let big = "x".repeat(2000);
    let declared = client.call("echo", json!({"text": big})).await;
    assert_eq!(declared.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(declared.last()["error"]["message"].as_str().unwrap().contains("1024 bytes"));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": big}}});
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        body.to_string().into_bytes().chunks(100).map(|c| Ok(c.to_vec())).collect();
    let streamed = client
        .send(client.post("application/json").body(reqwest::Body::wrap_stream(futures_util::stream::iter(chunks))))
        .await;
    assert_eq!(streamed.status, StatusCode::PAYLOAD_TOO_LARGE);
    // The session is unharmed.
    assert_eq!(client.call("echo", json!({"text": "small"})).await.last()["result"]["content"][0]["text"], "small");
}

#[tokio::test]
async fn internal_errors_do_not_leak_over_http() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let answer = client.call("leaky", json!({})).await;
    let text = answer.last()["result"]["content"][0]["text"].as_str().unwrap().to_owned();
    assert_eq!(answer.last()["result"]["isError"], true);
    assert!(text.contains("internal error") && !text.contains("hunter2"), "{text}");
}

#[tokio::test]
async fn rate_limits_and_the_session_cap_apply_per_session() {
    let url = start_with(server().rate_limit(100, Duration::from_secs(60)), HttpOptions::new().max_sessions(2)).await;
    let mut first = Client::new(&url);
    first.initialize().await;
    let mut second = Client::new(&url);
    second.initialize().await;
    for _ in 0..2 {
        assert_eq!(first.call("scarce", json!({})).await.last()["result"]["content"][0]["text"], "ok");
    }
    let refused = first.call("scarce", json!({})).await;
    assert!(refused.last()["result"]["content"][0]["text"].as_str().unwrap().contains("rate limited"));
    // The other session has its own allowance.
    assert_eq!(second.call("scarce", json!({})).await.last()["result"]["content"][0]["text"], "ok");

    // Sessions with an open stream are busy: none can make room.
    let _streams = [open_get_stream(&first).await, open_get_stream(&second).await];
    let mut third = Client::new(&url);
    let full = third
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(full.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(full.headers.contains_key("retry-after"));
    let session = first.session.clone().unwrap();
    first.send(first.http.delete(&url).header("mcp-session-id", session)).await;
    third.initialize().await;
}

/// Open the session's GET stream (which keeps the session busy while the
/// response lives).
async fn open_get_stream(client: &Client) -> reqwest::Response {
    let session = client.session.clone().unwrap();
    let get = client.http.get(&client.url).header(ACCEPT, "text/event-stream").header("mcp-session-id", session);
    let stream = get.send().await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    stream
}

#[tokio::test]
async fn a_full_session_table_ends_its_least_recently_used_idle_session() {
    let url = start_with(server(), HttpOptions::new().max_sessions(3)).await;
    let mut clients = Vec::new();
    for _ in 0..3 {
        let mut client = Client::new(&url);
        client.initialize().await;
        clients.push(client);
    }
    // The first is used again: the second is now the least recently used.
    assert_eq!(clients[0].request("ping", json!({})).await.status, StatusCode::OK);
    // The third is busy with a stream, so it is never the one to go.
    let _stream = open_get_stream(&clients[2]).await;

    // A client that fills the table cannot lock a newcomer out.
    let mut newcomer = Client::new(&url);
    newcomer.initialize().await;
    let evicted = clients[1].request("ping", json!({})).await;
    assert_eq!(evicted.status, StatusCode::NOT_FOUND);
    assert_eq!(evicted.last()["error"]["code"], -32001);
    assert_eq!(clients[0].request("ping", json!({})).await.status, StatusCode::OK);
    assert_eq!(clients[2].request("ping", json!({})).await.status, StatusCode::OK);
    assert_eq!(newcomer.request("ping", json!({})).await.status, StatusCode::OK);

    // Many `initialize` calls from one client only push out idle sessions.
    for _ in 0..10 {
        Client::new(&url).initialize().await;
    }
    assert_eq!(clients[2].request("ping", json!({})).await.status, StatusCode::OK);
}

#[tokio::test]
async fn idle_connections_are_closed_and_cannot_lock_clients_out() {
    let options = HttpOptions::new().max_connections(4).header_read_timeout(Duration::from_millis(300));
    let url = serve_with(server(), options).await;
    // Three times the cap, sending nothing.
    let mut idle = Vec::new();
    for _ in 0..12 {
        idle.push(TcpStream::connect(authority(&url)).await.unwrap());
    }
    let mut client = Client::new(&url);
    let started = Instant::now();
    tokio::time::timeout(Duration::from_secs(10), client.initialize()).await.expect("the client is answered");
    let answer = client.call("echo", json!({"text": "still served"})).await;
    assert_eq!(answer.last()["result"]["content"][0]["text"], "still served");
    // It waited for the idle connections ahead of it to time out, four at a time.
    assert!(started.elapsed() >= Duration::from_millis(500), "{:?}", started.elapsed());
    for connection in &mut idle {
        until_closed(connection, Duration::from_secs(5)).await;
    }
}

/// Our own connections hand the endpoint's path straight to it and every
/// other path to the router: the endpoint answers at the path it was given
/// and nowhere else, and the other paths get the router's 404.
#[tokio::test]
async fn the_served_endpoint_answers_at_its_path_and_nowhere_else() {
    let base = serve_with(server(), HttpOptions::new().path("/v1/tools")).await;
    let base = base.trim_end_matches("/mcp");
    let mut client = Client::new(&format!("{base}/v1/tools"));
    client.initialize().await;
    let answer = client.call("echo", json!({"text": "at its path"})).await;
    assert_eq!(answer.last()["result"]["content"][0]["text"], "at its path");
    let http = reqwest::Client::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    for path in ["/mcp", "/v1/tools/", "/v1", "/v1/tools/x", "/"] {
        let response = http
            .post(format!("{base}{path}"))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .json(&initialize)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn a_connection_that_sends_part_of_a_header_is_closed_after_the_header_timeout() {
    let url = serve_with(server(), HttpOptions::new().header_read_timeout(Duration::from_millis(300))).await;
    let mut connection = TcpStream::connect(authority(&url)).await.unwrap();
    let started = Instant::now();
    connection.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Ty").await.unwrap();
    let seen = until_closed(&mut connection, Duration::from_secs(5)).await;
    assert!(started.elapsed() >= Duration::from_millis(250), "{:?}", started.elapsed());
    assert!(seen.is_empty() || seen.starts_with("HTTP/1.1 408"), "{seen}");

    // A kept-alive connection is closed once idle for as long.
    let mut connection = TcpStream::connect(authority(&url)).await.unwrap();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json\r\n\
         Mcp-Method: tools/list\r\nContent-Length: {}\r\n\r\n{ping}",
        ping.len()
    );
    connection.write_all(request.as_bytes()).await.unwrap();
    let seen = until_closed(&mut connection, Duration::from_secs(5)).await;
    assert!(seen.starts_with("HTTP/1.1 200") && seen.contains(r#""name":"echo""#), "{seen}");
}

#[tokio::test]
async fn a_body_that_arrives_too_slowly_gets_408_and_the_connection_closes() {
    // A limit of the endpoint: a mounted router has it too.
    let url = start_with(server(), HttpOptions::new().body_read_timeout(Duration::from_millis(300))).await;
    let mut connection = TcpStream::connect(authority(&url)).await.unwrap();
    let started = Instant::now();
    connection
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    let seen = until_closed(&mut connection, Duration::from_secs(5)).await;
    assert!(started.elapsed() >= Duration::from_millis(250), "{:?}", started.elapsed());
    assert!(seen.starts_with("HTTP/1.1 408"), "{seen}");
    assert!(seen.to_ascii_lowercase().contains("connection: close"), "{seen}");
}

#[tokio::test]
async fn a_refusal_sent_before_the_body_arrives_leaves_a_keep_alive_connection_working() {
    let url = start().await;
    let refusals = [
        ("POST", "text/plain", "localhost", "415"),
        ("POST", "application/json", "evil.example", "403"),
        ("PUT", "application/json", "localhost", "405"),
    ];
    for (method, media, host, status) in refusals {
        // A keep-alive client whose body is still arriving when the
        // request is refused, then its next request on the same connection.
        let mut connection = TcpStream::connect(authority(&url)).await.unwrap();
        let head =
            format!("{method} /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: {media}\r\nContent-Length: 20\r\n\r\n");
        connection.write_all(format!("{head}{{\"jsonrpc\":").as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let rest = "\"2.0\"}   ".to_owned() + "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n";
        let _ = connection.write_all(rest.as_bytes()).await;
        let mut seen = Vec::new();
        let mut buf = [0; 4096];
        let deadline = Instant::now() + Duration::from_secs(3);
        while !String::from_utf8_lossy(&seen).ends_with("\r\n\r\nok") && Instant::now() < deadline {
            match tokio::time::timeout_at(deadline.into(), connection.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => seen.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
        let seen = String::from_utf8_lossy(&seen).into_owned();
        assert!(seen.starts_with(&format!("HTTP/1.1 {status}")), "{seen}");
        // Either the connection carried the next request, or the refusal
        // said it would close (and the client knew to open another).
        let said_close = seen.split("\r\n\r\n").next().unwrap().to_ascii_lowercase().contains("connection: close");
        assert!(said_close || seen.ends_with("\r\n\r\nok"), "{status}: the connection closed unannounced: {seen}");
    }
}

#[tokio::test]
async fn idle_sessions_end() {
    let url = start_with(server(), HttpOptions::new().session_idle_timeout(Duration::from_millis(200))).await;
    let mut client = Client::new(&url);
    client.initialize().await;
    assert_eq!(client.request("ping", json!({})).await.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(client.request("ping", json!({})).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_slow_call_keeps_its_session_and_the_others_unblocked() {
    let url = start_with(server(), HttpOptions::new().session_idle_timeout(Duration::from_millis(200))).await;
    let mut slow = Client::new(&url);
    slow.initialize().await;
    let started = Instant::now();
    let nap = tokio::spawn(async move { slow.call("nap", json!({"ms": 700})).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut quick = Client::new(&url);
    quick.initialize().await;
    assert_eq!(quick.call("echo", json!({"text": "now"})).await.last()["result"]["content"][0]["text"], "now");
    assert!(!nap.is_finished(), "the quick call waited for the slow one");
    // The slow call outlives the idle timeout: a running call is activity.
    let answer = nap.await.unwrap();
    assert_eq!(answer.last()["result"]["content"][0]["text"], "slept 700 ms");
    assert!(started.elapsed() >= Duration::from_millis(700));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_sessions_at_once_each_see_only_their_own_answers() {
    let url = start().await;
    let clients = (0..50).map(|n| {
        let url = url.clone();
        tokio::spawn(async move {
            let mut client = Client::new(&url);
            client.initialize().await;
            for call in 0..4 {
                let text = format!("session {n} call {call}");
                let answer = client.call("echo", json!({"text": text})).await;
                assert_eq!(answer.last()["result"]["content"][0]["text"], text.as_str());
            }
            client.session.unwrap()
        })
    });
    let mut sessions = BTreeSet::new();
    for client in clients.collect::<Vec<_>>() {
        sessions.insert(client.await.unwrap());
    }
    assert_eq!(sessions.len(), 50, "every session has its own id");
}

#[tokio::test]
async fn the_official_rust_sdk_client_speaks_to_it() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;

    let url = start().await;
    let transport = StreamableHttpClientTransport::from_uri(url);
    let client = ().serve(transport).await.expect("the rmcp client connects");
    let info = client.peer_info().expect("the server introduced itself");
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("http-test"));
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 6);
    let arguments = json!({"text": "from rmcp"}).as_object().cloned();
    let result = client.call_tool(CallToolRequestParams::new("echo").with_arguments(arguments.unwrap())).await.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "from rmcp");
    client.cancel().await.unwrap();
}

/// A 2026-07-28 request: no session, the envelope in `_meta`.
fn modern(method: &str, mut params: serde_json::Value) -> serde_json::Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/logLevel": "info",
    });
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
}

#[tokio::test]
async fn stateless_requests_need_no_session() {
    let url = start().await;
    let client = Client::new(&url);
    let discover = client.message(&modern("server/discover", json!({}))).await;
    assert_eq!(discover.status, StatusCode::OK);
    assert!(discover.headers.get("mcp-session-id").is_none());
    assert_eq!(discover.last()["result"]["supportedVersions"][0], "2026-07-28");
    assert_eq!(discover.last()["result"]["cacheScope"], "public");

    let call = client.message(&modern("tools/call", json!({"name": "steps", "arguments": {}}))).await;
    let methods: Vec<&str> = call.messages.iter().map(|m| m["method"].as_str().unwrap_or("(response)")).collect();
    assert_eq!(
        methods,
        ["notifications/message", "(response)"],
        "log messages at the request's level, no progress without a token"
    );
    assert_eq!(call.last()["result"]["resultType"], "complete");

    // The spec's HTTP statuses for envelope mistakes.
    let mut incomplete = modern("tools/list", json!({}));
    incomplete["params"]["_meta"].as_object_mut().unwrap().remove("io.modelcontextprotocol/clientCapabilities");
    assert_eq!(client.message(&incomplete).await.status, StatusCode::BAD_REQUEST);
    let ping = client.message(&modern("ping", json!({}))).await;
    assert_eq!((ping.status, ping.last()["error"]["code"].clone()), (StatusCode::NOT_FOUND, json!(-32601)));
    // `initialize` is gone from 2026-07-28 too: no session is started.
    let init =
        json!({"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let initialize = client.message(&modern("initialize", init)).await;
    assert_eq!(
        (initialize.status, initialize.last()["error"]["code"].clone(), initialize.last()["id"].clone()),
        (StatusCode::NOT_FOUND, json!(-32601), json!(7))
    );
    assert!(initialize.headers.get("mcp-session-id").is_none());
    let mismatch = client
        .send(client.post("application/json").header("mcp-method", "tools/call").json(&modern("tools/list", json!({}))))
        .await;
    assert_eq!((mismatch.status, mismatch.last()["error"]["code"].clone()), (StatusCode::BAD_REQUEST, json!(-32020)));
    assert_eq!(mismatch.last()["id"], 7, "an error answer carries the request's id");
    // Without a session, the version header makes a request stateless: its
    // envelope is checked before the headers are compared with it.
    let stateless =
        |body: &Value| client.post("application/json").header("mcp-protocol-version", "2026-07-28").json(body);
    let bare = json!({"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {}});
    let no_meta = client.send(stateless(&bare)).await;
    assert_eq!(
        (no_meta.status, no_meta.last()["error"]["code"].clone(), no_meta.last()["id"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32602), json!(7))
    );
    let mut no_version = modern("server/discover", json!({}));
    no_version["params"]["_meta"].as_object_mut().unwrap().remove("io.modelcontextprotocol/protocolVersion");
    let no_version = client.send(stateless(&no_version)).await;
    assert_eq!(
        (no_version.status, no_version.last()["error"]["code"].clone(), no_version.last()["id"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32602), json!(7))
    );
    // A version the header and the body disagree on is a mismatch first,
    // before the body's version is found unsupported.
    let mut unknown_version = modern("server/discover", json!({}));
    unknown_version["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let unknown_version = client.send(stateless(&unknown_version)).await;
    assert_eq!(
        (unknown_version.status, unknown_version.last()["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32020))
    );
    // A handshake request without its session is refused with its id.
    let sessionless = client
        .send(client.post("application/json").json(&json!(
            {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}
        )))
        .await;
    assert_eq!((sessionless.status, sessionless.last()["id"].clone()), (StatusCode::BAD_REQUEST, json!(8)));
    let agreeing = client
        .send(
            client
                .post("application/json")
                .header("mcp-method", "tools/list")
                .header("mcp-protocol-version", "2026-07-28")
                .json(&modern("tools/list", json!({}))),
        )
        .await;
    assert_eq!(agreeing.status, StatusCode::OK);
}

/// The suite's `http-header-validation` cases (SEP-2243): a stateless
/// request mirrors its method in `Mcp-Method`, and a call its tool's name
/// in `Mcp-Name`; a missing or different header is -32020 with HTTP 400.
#[tokio::test]
async fn stateless_requests_must_mirror_their_method_and_name_in_headers() {
    let url = start().await;
    let client = Client::new(&url);
    let post = |body: &Value, headers: &[(&str, &str)]| {
        let mut request = client.post("application/json").header("mcp-protocol-version", "2026-07-28").json(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        client.send(request)
    };
    let list = modern("tools/list", json!({}));
    let call = modern("tools/call", json!({"name": "echo", "arguments": {"text": "hi"}}));
    let rejected: [(&Value, &[(&str, &str)]); 6] = [
        (&list, &[]),
        (&list, &[("mcp-method", "prompts/list")]),
        // Values are case-sensitive.
        (&list, &[("mcp-method", "TOOLS/LIST")]),
        (&call, &[("mcp-method", "tools/call")]),
        (&call, &[("mcp-method", "tools/call"), ("mcp-name", "wrong_tool_name")]),
        // A list has no name to mirror.
        (&list, &[("mcp-method", "tools/list"), ("mcp-name", "echo")]),
    ];
    for (body, headers) in rejected {
        let answer = post(body, headers).await;
        let error = &answer.last()["error"];
        assert_eq!(
            (answer.status, error["code"].clone(), answer.last()["id"].clone()),
            (StatusCode::BAD_REQUEST, json!(-32020), json!(7)),
            "{headers:?}: {error}"
        );
    }
    // Header names in any case; whitespace around a value is not part of it.
    let accepted: [(&Value, &[(&str, &str)]); 4] = [
        (&list, &[("MCP-METHOD", "tools/list")]),
        (&list, &[("mcp-method", "tools/list")]),
        (&list, &[("Mcp-Method", "  tools/list\t")]),
        (&call, &[("Mcp-Method", "tools/call"), ("Mcp-Name", "  echo  ")]),
    ];
    for (body, headers) in accepted {
        let answer = post(body, headers).await;
        assert_eq!(answer.status, StatusCode::OK, "{headers:?}: {answer:?}");
        assert!(answer.last().get("result").is_some(), "{headers:?}: {answer:?}");
    }
}

/// Route a request by region.
#[tool]
fn route(
    /// Where to send it
    #[arg(header = "Region")]
    region: Option<String>,
) -> String {
    format!("routed to {region:?}")
}

/// The suite's `http-custom-header-server-validation` cases (SEP-2243): an
/// argument marked `x-mcp-header` arrives in `Mcp-Param-<name>` as well,
/// literally or as `=?base64?…?=`, and must agree with the body.
#[tokio::test]
async fn mirrored_arguments_must_agree_with_their_param_headers() {
    let url = start_with(Server::empty("mirror", "1").tool(route::Tool), HttpOptions::new()).await;
    let mut client = Client::new(&url);
    let listed = client.message(&modern("tools/list", json!({}))).await;
    assert_eq!(listed.last()["result"]["tools"][0]["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region");

    let call = |region: Option<&str>, header: Option<&str>| {
        let arguments = region.map_or_else(|| json!({}), |r| json!({"region": r}));
        let body = modern("tools/call", json!({"name": "route", "arguments": arguments}));
        let mut request = client
            .post("application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "route")
            .json(&body);
        if let Some(header) = header {
            request = request.header("Mcp-Param-Region", header);
        }
        client.send(request)
    };
    let accepted = [
        (Some("Hello"), Some("Hello")),
        (Some("Hello"), Some("=?base64?SGVsbG8=?=")),
        (Some("SGVsbG8="), Some("SGVsbG8=")),
        (Some("=?base64?SGVsbG8="), Some("=?base64?SGVsbG8=")),
        (Some("Zürich"), Some("=?base64?WsO8cmljaA==?=")),
        (None, None),
    ];
    for (region, header) in accepted {
        let answer = call(region, header).await;
        assert_eq!(answer.status, StatusCode::OK, "{region:?} {header:?}: {answer:?}");
        assert_eq!(answer.last()["result"]["content"][0]["text"], format!("routed to {region:?}"));
    }
    let rejected = [
        (Some("Hello"), Some("Goodbye")),
        (Some("Hello"), None),
        (None, Some("Hello")),
        (Some("Hello"), Some("=?base64?SGVsbG8?=")),
        (Some("Hello"), Some("=?base64?SGVs!!!bG8=?=")),
    ];
    for (region, header) in rejected {
        let answer = call(region, header).await;
        assert_eq!(
            (answer.status, answer.last()["error"]["code"].clone(), answer.last()["id"].clone()),
            (StatusCode::BAD_REQUEST, json!(-32020), json!(7)),
            "{region:?} {header:?}"
        );
    }
    // Older versions never see the keyword.
    client.initialize().await;
    let listed = client.request("tools/list", json!({})).await;
    let region = &listed.last()["result"]["tools"][0]["inputSchema"]["properties"]["region"];
    assert_eq!(region["type"], "string");
    assert!(region.get("x-mcp-header").is_none(), "{region}");
}

#[tokio::test]
async fn a_subscription_streams_list_changes_until_the_client_hangs_up() {
    let server = server();
    let tools = server.tools_handle();
    let url = start_with(server, HttpOptions::new()).await;
    let client = Client::new(&url);
    let listen = modern("subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let mut stream = client
        .post("application/json, text/event-stream")
        .header("mcp-method", "subscriptions/listen")
        .json(&listen)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let mut seen = String::new();
    let mut next_event = async || {
        while !seen.contains("\n\n") {
            let chunk = tokio::time::timeout(Duration::from_secs(5), stream.chunk()).await.unwrap().unwrap().unwrap();
            seen.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        let (event, rest) = seen.split_once("\n\n").unwrap();
        let event = events(&format!("{event}\n\n")).remove(0);
        seen = rest.to_owned();
        event
    };
    let ack = next_event().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert!(tools.disable("nap"));
    let change = next_event().await;
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);

    let no_stream =
        client.send(client.post("application/json").header("mcp-method", "subscriptions/listen").json(&listen)).await;
    assert_eq!(no_stream.status, StatusCode::NOT_ACCEPTABLE);
}

/// Ask the client for its roots and say how many it has.
#[tool]
async fn count_roots(ctx: Context) -> Result<String, ToolError> {
    let roots: Value =
        ctx.client().request("roots/list", json!({})).await.map_err(|e| ToolError::new(e.to_string()))?;
    Ok(format!("{} roots", roots["roots"].as_array().map_or(0, Vec::len)))
}

#[tokio::test]
async fn a_request_to_the_client_travels_on_the_call_stream_and_its_answer_comes_back_by_post() {
    let url = start_with(Server::empty("asking", "1").tool(count_roots::Tool), HttpOptions::new()).await;
    let mut client = Client::new(&url);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {"name": "t", "version": "1"}});
    let answer = client.request("initialize", init).await;
    client.session = Some(answer.headers["mcp-session-id"].to_str().unwrap().to_owned());
    client.message(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "count_roots"}});
    let mut stream = client.post("application/json, text/event-stream").json(&call).send().await.unwrap();
    assert_eq!(stream.headers()[CONTENT_TYPE], "text/event-stream");
    let mut body = String::new();
    let request = loop {
        let chunk = stream.chunk().await.unwrap().expect("the stream stays open until the call ends");
        body.push_str(std::str::from_utf8(&chunk).unwrap());
        if let Some(request) = events(&body).into_iter().find(|m| m["method"] == "roots/list") {
            break request;
        }
    };
    let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [{"uri": "file:///only"}]}});
    let posted = client.message(&reply).await;
    assert_eq!(posted.status, StatusCode::ACCEPTED);
    while let Some(chunk) = stream.chunk().await.unwrap() {
        body.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    let messages = events(&body);
    let result = messages.last().unwrap();
    assert_eq!(result["id"], 5);
    assert_eq!(result["result"]["content"][0]["text"], "1 roots");
}

#[tokio::test]
async fn a_client_that_takes_only_json_is_never_sent_a_request_it_would_not_see() {
    let url = start_with(Server::empty("asking", "1").tool(count_roots::Tool), HttpOptions::new()).await;
    let mut client = Client::new(&url);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {"name": "t", "version": "1"}});
    let answer = client.request("initialize", init).await;
    client.session = Some(answer.headers["mcp-session-id"].to_str().unwrap().to_owned());
    client.message(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

    // Accept: application/json only: the roots request could never reach
    // it, so the tool learns that at once instead of at the 60 s timeout.
    let call = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "count_roots"}});
    let started = std::time::Instant::now();
    let answer =
        tokio::time::timeout(Duration::from_secs(10), client.send(client.post("application/json").json(&call)))
            .await
            .expect("answered without waiting for the client");
    assert!(started.elapsed() < Duration::from_secs(5));
    let text = answer.last()["result"]["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.contains("text/event-stream"), "{text}");
    assert_eq!(answer.last()["result"]["isError"], true);
}

/// Needs the client's model.
#[tool]
async fn needs_sampling(ctx: Context) -> Result<String, ToolError> {
    Ok(ctx.sample(mcp_runtime::Sampling::user("hi")).await?.text())
}

#[tokio::test]
async fn a_stateless_call_missing_a_client_capability_is_400_with_32021() {
    let url = start_with(Server::empty("asking", "1").tool(needs_sampling::Tool), HttpOptions::new()).await;
    let client = Client::new(&url);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "needs_sampling", "arguments": {}, "_meta": meta}});
    let answer = client.message(&call).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{answer:?}");
    assert!(answer.content_type().starts_with("application/json"));
    assert_eq!(answer.last()["id"], 9);
    assert_eq!(answer.last()["error"]["code"], -32021);
    assert_eq!(answer.last()["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));
}

/// Report progress slowly, closing the stream after the first step if
/// asked to, so the client polls for the rest.
#[tool]
async fn slow_steps(ctx: Context, #[arg(default)] close: bool) -> &'static str {
    for i in 1..=4 {
        ctx.progress(f64::from(i), 4.0);
        if close && i == 1 {
            assert!(ctx.close_stream(), "a session's event stream can be resumed");
        }
        tokio::time::sleep(Duration::from_millis(80)).await;
    }
    "all steps"
}

async fn resumable_session() -> (Client, String) {
    let url = start_with(Server::empty("resume", "1").tool(slow_steps::Tool), HttpOptions::new()).await;
    let mut client = Client::new(&url);
    client.initialize().await;
    (client, url)
}

fn slow_call(id: u64, close: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "slow_steps", "arguments": {"close": close}, "_meta": {"progressToken": "p"}}})
}

/// GET the rest of a stream after `last`.
async fn resume(client: &Client, url: &str, last: &str) -> reqwest::Response {
    let mut get = client.http.get(url).header(ACCEPT, "text/event-stream").header("last-event-id", last);
    get = get.header("mcp-session-id", client.session.clone().unwrap());
    get.send().await.unwrap()
}

#[tokio::test]
async fn a_dropped_event_stream_resumes_from_its_last_event_with_nothing_lost() {
    let (client, url) = resumable_session().await;
    let mut stream =
        client.post("application/json, text/event-stream").json(&slow_call(3, false)).send().await.unwrap();
    assert_eq!(stream.headers()[CONTENT_TYPE], "text/event-stream");
    // Read up to the first progress notification, then hang up.
    let mut body = String::new();
    while events(&body).is_empty() {
        body.push_str(std::str::from_utf8(&stream.chunk().await.unwrap().unwrap()).unwrap());
    }
    drop(stream);
    let ids = event_ids(&body);
    assert!(body.starts_with("id: ") && body.contains("retry: 500"), "a priming event opens the stream: {body:?}");
    assert!(ids[0].ends_with(".0"), "{ids:?}");
    let last = ids.last().unwrap().clone();

    // The call was not cancelled by the drop: the rest arrives on resume.
    let resumed = resume(&client, &url, &last).await;
    assert_eq!(resumed.status(), StatusCode::OK);
    let rest = resumed.text().await.unwrap();
    let mut all = events(&body);
    all.extend(events(&rest));
    let progress: Vec<f64> = all.iter().filter_map(|m| m["params"]["progress"].as_f64()).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0], "every step once, in order");
    assert_eq!(all.last().unwrap()["result"]["content"][0]["text"], "all steps");
    let mut numbers: Vec<String> = event_ids(&body).into_iter().chain(event_ids(&rest)).collect();
    let before = numbers.len();
    numbers.dedup();
    assert_eq!(numbers.len(), before, "no event twice: {numbers:?}");

    // The whole stream can be read again from its start (it is kept), and
    // ids the server never sent are refused.
    let again = resume(&client, &url, &ids[0]).await.text().await.unwrap();
    assert_eq!(events(&again).len(), 5);
    assert_eq!(resume(&client, &url, "nonsense").await.status(), StatusCode::BAD_REQUEST);
    assert_eq!(resume(&client, &url, "999.0").await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_tool_can_close_its_stream_and_the_client_polls_for_the_rest() {
    let (client, url) = resumable_session().await;
    let first = client.post("application/json, text/event-stream").json(&slow_call(4, true)).send().await.unwrap();
    let body = first.text().await.unwrap();
    let seen = events(&body);
    assert_eq!(seen.len(), 1, "the stream ends after the first step: {body:?}");
    let last = event_ids(&body).last().unwrap().clone();
    let rest = resume(&client, &url, &last).await.text().await.unwrap();
    let rest = events(&rest);
    let progress: Vec<f64> = rest.iter().filter_map(|m| m["params"]["progress"].as_f64()).collect();
    assert_eq!(progress, [2.0, 3.0, 4.0]);
    assert_eq!(rest.last().unwrap()["result"]["content"][0]["text"], "all steps");
}

#[tokio::test]
async fn events_the_store_no_longer_holds_are_refused_not_skipped() {
    // The stream (about 230 bytes of bookkeeping) and its last two events.
    let options = HttpOptions::new().event_store(mcp_runtime::stores::MemoryEventStore::new(600));
    let url = start_with(Server::empty("resume", "1").tool(slow_steps::Tool), options).await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let body = client.post("application/json, text/event-stream").json(&slow_call(5, false)).send().await.unwrap();
    let body = body.text().await.unwrap();
    let ids = event_ids(&body);
    assert_eq!(events(&body).len(), 5);
    // 600 bytes hold the last events only: from the start is a hole.
    assert_eq!(resume(&client, &url, &ids[0]).await.status(), StatusCode::NOT_FOUND);
    let last_but_one = &ids[ids.len() - 2];
    let tail = resume(&client, &url, last_but_one).await.text().await.unwrap();
    assert_eq!(events(&tail).last().unwrap()["result"]["content"][0]["text"], "all steps");
}

/// Log `count` messages of `size` bytes, then answer.
#[tool]
fn chatty(count: u32, size: usize, ctx: Context) -> &'static str {
    for n in 0..count {
        ctx.info(json!({ "n": n, "pad": "x".repeat(size) }));
    }
    "done"
}

#[tokio::test]
async fn a_reader_that_falls_behind_is_cut_off_and_resumes_with_nothing_lost() {
    // 24 MB of log messages, far more than the socket buffers hold, to a
    // client that reads nothing at first: the server keeps 64 KiB for the
    // reader (the store keeps every event), so the stream ends early and
    // the client resumes from its last event.
    let server = Server::empty("behind", "1").tool(chatty::Tool).max_queued_output(64 * 1024);
    let options = HttpOptions::new().event_store(mcp_runtime::stores::MemoryEventStore::new(64 << 20));
    let url = start_with(server, options).await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "chatty", "arguments": {"count": 3000, "size": 8000}}});
    let stream = client.post("application/json, text/event-stream").json(&call).send().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let first = stream.text().await.unwrap();
    let seen = events(&first);
    assert!(seen.len() < 3000 && seen.iter().all(|m| m.get("result").is_none()), "{} events", seen.len());

    let mut all = seen;
    let mut last = event_ids(&first).last().unwrap().clone();
    while all.last().is_none_or(|m| m.get("result").is_none()) {
        let rest = resume(&client, &url, &last).await;
        assert_eq!(rest.status(), StatusCode::OK);
        let rest = rest.text().await.unwrap();
        all.extend(events(&rest));
        last = event_ids(&rest).last().unwrap_or(&last).clone();
    }
    let logs: Vec<u64> = all.iter().filter_map(|m| m["params"]["data"]["n"].as_u64()).collect();
    assert_eq!(logs, (0..3000).collect::<Vec<u64>>(), "every message once, in order");
    assert_eq!(all.last().unwrap()["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn a_quick_call_answered_as_json_keeps_no_events_behind() {
    let url = start().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let call = |id: u64, name: &str, arguments: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    // The session's first call stream: answered at once, so as plain JSON,
    // with no event id to resume from.
    let quick = client.post("application/json, text/event-stream").json(&call(3, "echo", json!({"text": "hi"})));
    let quick = quick.send().await.unwrap();
    assert_eq!(quick.headers()[CONTENT_TYPE], "application/json");
    // The second: it streams, and its events are kept for a reconnect.
    let slow = client.post("application/json, text/event-stream").json(&call(4, "steps", json!({})));
    let body = slow.send().await.unwrap().text().await.unwrap();
    let first = event_ids(&body)[0].clone();
    let (stream, _) = first.split_once('.').unwrap();
    let quick_stream = stream.parse::<u64>().unwrap() - 1;
    assert_eq!(resume(&client, &url, &first).await.status(), StatusCode::OK, "a streamed call is kept");
    let quick = format!("{quick_stream}.0");
    assert_eq!(resume(&client, &url, &quick).await.status(), StatusCode::NOT_FOUND, "a JSON answer is not");
}
