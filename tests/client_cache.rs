//! The client's cache (SEP-2549) against our server over Streamable HTTP,
//! requests counted at the server: a list the server allows to be kept is
//! asked for once however often it is listed; its pages are merged; it is
//! asked for again once its time is up and after `list_changed`, never
//! served from the cache then; a Redis store is shared by clients, and so
//! is a change one of them hears. And an
//! expired 2025-11-25 session is opened again, the request sent once more:
//! requests made while it is wait for it, those that waited for one that
//! failed end expired, and the next request tries again; the new session
//! is told the old one's log level and subscriptions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use mcp_runtime::{Server, axum};
use mcp_runtime_client::cache::{MemoryCache, RedisCache};
use mcp_runtime_client::{Client, EraChoice};
use serde_json::json;

/// Say hello.
#[tool]
fn hello() -> &'static str {
    "hello"
}

/// Say bye.
#[tool]
fn bye() -> &'static str {
    "bye"
}

/// Wave.
#[tool]
fn wave() -> &'static str {
    "wave"
}

/// What reached the server: requests by `Mcp-Method` (2026-07-28), the
/// session ids sent, and the 404s and 400s answered to requests (`POST`);
/// and a gate on `initialize` sent without a session (a renewal's).
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Log>>, Arc<Gate>);

#[derive(Default)]
struct Log {
    methods: HashMap<String, usize>,
    sessions: Vec<String>,
    not_found: usize,
    bad_request: usize,
}

/// Holds (while `hold` says so), then fails (`fail` times) the
/// `initialize` requests that arrive, counting them in `arrived`.
#[derive(Default)]
struct Gate {
    hold: tokio::sync::watch::Sender<bool>,
    arrived: AtomicUsize,
    fail: AtomicUsize,
}

impl Gate {
    /// Let an `initialize` request on, or answer it with this refusal.
    async fn pass(&self) -> Option<axum::http::StatusCode> {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        let mut hold = self.hold.subscribe();
        let _ = hold.wait_for(|held| !held).await;
        let failing = self.fail.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok();
        failing.then_some(axum::http::StatusCode::SERVICE_UNAVAILABLE)
    }
}

impl Seen {
    fn count(&self, method: &str) -> usize {
        self.0.lock().unwrap().methods.get(method).copied().unwrap_or(0)
    }
}

/// Serve `server` over HTTP, every request noted in the returned log.
async fn serve(server: Server, options: HttpOptions) -> (String, Seen) {
    let seen = Seen::default();
    let log = seen.clone();
    let router = server.http_router(options).unwrap().layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let log = log.clone();
            async move {
                let post = request.method() == axum::http::Method::POST;
                let (method, session) = {
                    let header =
                        |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
                    (header("mcp-method"), header("mcp-session-id"))
                };
                let mut request = request;
                if post && session.is_none() {
                    let (parts, body) = request.into_parts();
                    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
                    let message: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                    if message["method"] == "initialize"
                        && let Some(refused) = log.1.pass().await
                    {
                        return axum::response::IntoResponse::into_response(refused);
                    }
                    request = axum::extract::Request::from_parts(parts, axum::body::Body::from(body));
                }
                let response = next.run(request).await;
                let mut log = log.0.lock().unwrap();
                if let Some(method) = method {
                    *log.methods.entry(method).or_default() += 1;
                }
                if let Some(session) = session.filter(|s| !log.sessions.contains(s)) {
                    log.sessions.push(session);
                }
                log.not_found += usize::from(post && response.status() == axum::http::StatusCode::NOT_FOUND);
                log.bad_request += usize::from(post && response.status() == axum::http::StatusCode::BAD_REQUEST);
                response
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (url, seen)
}

fn names(tools: Vec<mcp_runtime::protocol::Tool>) -> Vec<String> {
    tools.into_iter().map(|t| t.name).collect()
}

fn catalog(ttl: Duration) -> Server {
    Server::empty("catalog", "1").tool(hello::Tool).tool(bye::Tool).cache_ttl(ttl)
}

#[tokio::test]
async fn listing_tools_a_hundred_times_within_the_ttl_asks_once() {
    let (url, seen) = serve(catalog(Duration::from_secs(600)), HttpOptions::new()).await;
    let client = Client::builder().cache(MemoryCache::new(16)).http(&url).await.unwrap();
    for _ in 0..100 {
        assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello"]);
    }
    assert_eq!(seen.count("tools/list"), 1);
    // Without a cache, every list is asked for.
    let uncached = Client::http(&url).await.unwrap();
    for _ in 0..3 {
        uncached.list_tools().await.unwrap();
    }
    assert_eq!(seen.count("tools/list"), 4);
}

#[tokio::test]
async fn pages_are_merged_and_kept_as_one_list() {
    let server = catalog(Duration::from_secs(600)).tool(wave::Tool).page_size(1);
    let (url, seen) = serve(server, HttpOptions::new()).await;
    let client = Client::builder().cache(MemoryCache::new(16)).http(&url).await.unwrap();
    for _ in 0..5 {
        assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello", "wave"]);
    }
    assert_eq!(seen.count("tools/list"), 3, "one request per page, once");
}

#[tokio::test]
async fn a_list_is_served_from_the_cache_while_its_ttl_lasts_and_asked_for_again_after() {
    let ttl = Duration::from_millis(300);
    let (url, seen) = serve(catalog(ttl), HttpOptions::new()).await;
    let client = Client::builder().cache(MemoryCache::new(16)).http(&url).await.unwrap();
    for round in 1..=3 {
        let asked = tokio::time::Instant::now();
        assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello"]);
        let answered = tokio::time::Instant::now();
        assert_eq!(seen.count("tools/list"), round, "asked for once its time was up");
        assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello"]);
        // The entry's time started once the list was asked for, so
        // within `ttl` of `asked` it is fresh (a machine too busy to list
        // twice within it shows nothing about the cache here).
        if asked.elapsed() < ttl {
            assert_eq!(seen.count("tools/list"), round, "served from the cache");
        }
        // And past `ttl` of the answer it is not.
        tokio::time::sleep_until(answered + ttl).await;
    }
}

#[tokio::test]
async fn no_list_is_kept_when_the_server_allows_none() {
    // The default (`ttlMs: 0`).
    let (url, seen) = serve(Server::empty("c", "1").tool(hello::Tool), HttpOptions::new()).await;
    let client = Client::builder().cache(MemoryCache::new(16)).http(&url).await.unwrap();
    client.list_tools().await.unwrap();
    client.list_tools().await.unwrap();
    assert_eq!(seen.count("tools/list"), 2);
}

#[tokio::test]
async fn a_cached_list_is_never_served_after_list_changed() {
    let server = catalog(Duration::from_secs(600));
    let tools = server.tools_handle();
    let (url, seen) = serve(server, HttpOptions::new()).await;
    let client = Client::builder().cache(MemoryCache::new(16)).http(&url).await.unwrap();
    let mut changes = client.watch(&[]).await.unwrap();
    assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello"]);
    assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello"]);
    assert_eq!(seen.count("tools/list"), 1);
    tools.add(wave::Tool).unwrap();
    let change = tokio::time::timeout(Duration::from_secs(5), changes.next()).await.expect("a list change");
    assert_eq!(change.unwrap().method, "notifications/tools/list_changed");
    assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello", "wave"]);
    assert_eq!(seen.count("tools/list"), 2);
    assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello", "wave"], "kept again");
    assert_eq!(seen.count("tools/list"), 2);
}

#[tokio::test]
async fn clients_share_a_redis_cache() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let (url, seen) = serve(catalog(Duration::from_secs(600)), HttpOptions::new()).await;
    for _ in 0..3 {
        let store = RedisCache::connect(&redis.url, "cache-test").await.unwrap();
        let client = Client::builder().cache(store).http(&url).await.unwrap();
        assert_eq!(names(client.list_tools().await.unwrap()), ["bye", "hello"]);
    }
    assert_eq!(seen.count("tools/list"), 1, "the second and third clients found the first one's list");
}

#[tokio::test]
async fn a_change_one_client_hears_makes_another_on_the_same_redis_ask_again() {
    let Some(redis) = crate::replicas::redis::start().await else { return };
    let server = catalog(Duration::from_secs(600));
    let tools = server.tools_handle();
    let (url, seen) = serve(server, HttpOptions::new()).await;
    let prefix = "cache-change-test";
    let hearing = Client::builder().cache(RedisCache::connect(&redis.url, prefix).await.unwrap()).http(&url).await;
    let hearing = hearing.unwrap();
    let other = Client::builder().cache(RedisCache::connect(&redis.url, prefix).await.unwrap()).http(&url).await;
    let other = other.unwrap();
    let mut changes = hearing.watch(&[]).await.unwrap();
    assert_eq!(names(hearing.list_tools().await.unwrap()), ["bye", "hello"]);
    assert_eq!(names(other.list_tools().await.unwrap()), ["bye", "hello"]);
    assert_eq!(seen.count("tools/list"), 1);
    tools.add(wave::Tool).unwrap();
    let change = tokio::time::timeout(Duration::from_secs(5), changes.next()).await.expect("a list change");
    assert_eq!(change.unwrap().method, "notifications/tools/list_changed");
    // The other client heard nothing, but the store did.
    assert_eq!(names(other.list_tools().await.unwrap()), ["bye", "hello", "wave"]);
    assert_eq!(seen.count("tools/list"), 2);
    assert_eq!(names(hearing.list_tools().await.unwrap()), ["bye", "hello", "wave"], "the new list is shared");
    assert_eq!(seen.count("tools/list"), 2);
}

#[tokio::test]
async fn an_expired_session_is_opened_again_and_the_request_sent_once_more() {
    let (url, seen) = serve(catalog(Duration::ZERO), HttpOptions::new()).await;
    let handshake = EraChoice::Version(mcp_runtime::protocol::ProtocolVersion::V2025_11_25);
    let client = Client::builder().era(handshake).http(&url).await.unwrap();
    assert_eq!(client.call("hello", json!({})).await.unwrap().content.len(), 1);
    // The server drops the session (as one does when it expires).
    let session = seen.0.lock().unwrap().sessions[0].clone();
    let deleted = reqwest::Client::new().delete(&url).header("mcp-session-id", &session).send().await.unwrap();
    assert!(deleted.status().is_success(), "{deleted:?}");

    let answer = client.call("hello", json!({})).await.expect("answered in a new session");
    assert_eq!(serde_json::to_value(&answer.content).unwrap()[0]["text"], "hello");
    let log = seen.0.lock().unwrap();
    assert_eq!(log.not_found, 1, "one 404, then a new session");
    assert_eq!(log.sessions.len(), 2, "{:?}", log.sessions);
}

/// A handshake client of a fresh server, one call made; and the server's
/// session dropped (as one does when it expires).
async fn expired_session() -> (Client, Seen) {
    let (url, seen) = serve(catalog(Duration::ZERO), HttpOptions::new()).await;
    let handshake = EraChoice::Version(mcp_runtime::protocol::ProtocolVersion::V2025_11_25);
    let client = Client::builder().era(handshake).http(&url).await.unwrap();
    client.call("hello", json!({})).await.unwrap();
    expire(&url, &seen).await;
    (client, seen)
}

/// Drop the server's first session.
async fn expire(url: &str, seen: &Seen) {
    let session = seen.0.lock().unwrap().sessions[0].clone();
    let deleted = reqwest::Client::new().delete(url).header("mcp-session-id", &session).send().await.unwrap();
    assert!(deleted.status().is_success(), "{deleted:?}");
}

/// The app's config.
#[resource("config://app")]
fn config() -> String {
    "debug".into()
}

/// The app's theme.
#[resource("config://theme")]
fn theme() -> String {
    "dark".into()
}

/// Log one message at info and one at warning.
#[tool]
async fn chatter(ctx: Context) -> &'static str {
    ctx.info("an info message");
    ctx.warning("a warning message");
    "chattered"
}

#[tokio::test]
async fn a_session_opened_again_is_told_the_log_level_and_subscribed_again() {
    let server = catalog(Duration::ZERO).tool(chatter::Tool).resource(config::Resource).resource(theme::Resource);
    let resources = server.resources_handle();
    let (url, seen) = serve(server, HttpOptions::new()).await;
    let handshake = EraChoice::Version(mcp_runtime::protocol::ProtocolVersion::V2025_11_25);
    let client = Client::builder().era(handshake).http(&url).await.unwrap();
    client.set_log_level(mcp_runtime::protocol::LoggingLevel::Warning).await.unwrap();
    let mut config = Box::pin(client.subscribe("config://app").await.unwrap());
    drop(client.subscribe("config://theme").await.unwrap());
    client.unsubscribe("config://theme").await.unwrap();
    let mut heard = Box::pin(client.notifications());
    expire(&url, &seen).await;

    client.call("chatter", json!({})).await.expect("answered in a new session");
    assert_eq!(seen.0.lock().unwrap().sessions.len(), 2);
    // The server's default level (info) would let the first message through.
    let message = next(&mut heard).await;
    assert_eq!(message.method, "notifications/message");
    assert_eq!(message.params.unwrap()["level"], "warning", "the level set before");

    // The theme, unsubscribed from, would be heard first.
    resources.updated("config://theme");
    resources.updated("config://app");
    let update = tokio::time::timeout(Duration::from_secs(5), config.next()).await;
    assert_eq!(update.ok().flatten().as_deref(), Some("config://app"), "heard in the new session");
    let updated = loop {
        let notification = next(&mut heard).await;
        if notification.method == "notifications/resources/updated" {
            break notification.params.unwrap()["uri"].clone();
        }
    };
    assert_eq!(updated, "config://app", "not subscribed again to what was unsubscribed from");
}

/// The next notification heard.
async fn next(
    heard: &mut (impl futures_util::Stream<Item = mcp_runtime::protocol::Notification> + Unpin),
) -> mcp_runtime::protocol::Notification {
    let next = tokio::time::timeout(Duration::from_secs(5), heard.next()).await;
    next.expect("a notification").expect("the connection is open")
}

/// A call that finds the session expired and opens a new one, held at
/// the server; then seven calls made while it is (they find it expired
/// too). With the number of `initialize` requests the server had had.
async fn calls_during_a_renewal(client: &Client, seen: &Seen) -> (Vec<tokio::task::JoinHandle<CallOutcome>>, usize) {
    seen.1.hold.send_replace(true);
    let arrived = seen.1.arrived.load(Ordering::SeqCst);
    let call = || {
        let client = client.clone();
        tokio::spawn(async move { client.call("hello", json!({})).await })
    };
    let first = call();
    tokio::time::timeout(Duration::from_secs(10), async {
        while seen.1.arrived.load(Ordering::SeqCst) == arrived {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("a new initialize");
    let calls = std::iter::once(first).chain((0..7).map(|_| call())).collect();
    // Let them reach the wire while the new session is not yet open.
    tokio::time::sleep(Duration::from_millis(200)).await;
    (calls, arrived)
}

type CallOutcome = Result<mcp_runtime::protocol::CallToolResult, mcp_runtime_client::Error>;

#[tokio::test]
async fn requests_made_while_the_session_is_opened_again_are_answered_in_the_new_one() {
    let (client, seen) = expired_session().await;
    let (calls, arrived) = calls_during_a_renewal(&client, &seen).await;
    seen.1.hold.send_replace(false);
    for call in calls {
        let answer = call.await.unwrap().expect("answered in the new session");
        assert_eq!(serde_json::to_value(&answer.content).unwrap()[0]["text"], "hello");
    }
    let log = seen.0.lock().unwrap();
    assert_eq!((log.not_found, log.bad_request), (1, 0), "nothing sent without a session");
    assert_eq!(log.sessions.len(), 2, "one new session: {:?}", log.sessions);
    assert_eq!(seen.1.arrived.load(Ordering::SeqCst), arrived + 1, "one initialize");
}

#[tokio::test]
async fn requests_that_waited_for_a_session_that_failed_to_open_again_end_expired() {
    let (client, seen) = expired_session().await;
    seen.1.fail.store(1, Ordering::SeqCst);
    let (calls, arrived) = calls_during_a_renewal(&client, &seen).await;
    seen.1.hold.send_replace(false);
    let mut calls = calls.into_iter();
    let opening = calls.next().unwrap().await.unwrap().expect_err("the new session was refused");
    assert!(matches!(opening, mcp_runtime_client::Error::Http { status: 503, .. }), "{opening:?}");
    for call in calls {
        let waited = call.await.unwrap().expect_err("no session to send it in");
        assert!(matches!(waited, mcp_runtime_client::Error::SessionExpired), "{waited:?}");
    }
    assert_eq!(seen.1.arrived.load(Ordering::SeqCst), arrived + 1, "they did not each try again");

    let answer = client.call("hello", json!({})).await.expect("a later call opens one");
    assert_eq!(serde_json::to_value(&answer.content).unwrap()[0]["text"], "hello");
    let log = seen.0.lock().unwrap();
    assert_eq!((log.not_found, log.bad_request), (1, 0), "nothing sent without a session");
    assert_eq!(log.sessions.len(), 2, "{:?}", log.sessions);
}

#[tokio::test]
async fn a_session_that_failed_to_open_again_is_opened_by_the_next_request() {
    let (client, seen) = expired_session().await;
    seen.1.fail.store(1, Ordering::SeqCst);
    client.call("hello", json!({})).await.expect_err("the new session was refused");
    let answer = client.call("hello", json!({})).await.expect("answered in a session opened this time");
    assert_eq!(serde_json::to_value(&answer.content).unwrap()[0]["text"], "hello");
    let log = seen.0.lock().unwrap();
    assert_eq!((log.not_found, log.bad_request), (1, 0), "nothing sent without a session");
    assert_eq!(log.sessions.len(), 2, "{:?}", log.sessions);
}
