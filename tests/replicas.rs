//! Replicas of one server sharing state, as behind a load balancer: a
//! session started on one replica goes on at another, with its resource
//! subscriptions; a call stream dropped on one replica is resumed at
//! another; list changes and resource updates reach the clients of every
//! replica; a session ended on one ends on all. Run with the in-memory
//! stores shared in one process, and with Redis (`redis-server` on the
//! PATH; CI installs it).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::common::http::{Client, event_ids, events};
use mcp_runtime::prelude::*;
use mcp_runtime::{
    Server,
    resources::ResourcesHandle,
    stores::{LocalFanout, MemoryEventStore, MemorySessionStore},
    tools::ToolsHandle,
    transport::HttpOptions,
};
use reqwest::StatusCode;
use reqwest::header::ACCEPT;
use serde_json::{Value, json};

/// Echo the text back.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Report progress four times, slowly.
#[tool]
async fn steps(ctx: Context) -> &'static str {
    for i in 1..=4 {
        ctx.progress(f64::from(i), 4.0);
        tokio::time::sleep(Duration::from_millis(80)).await;
    }
    "all steps"
}

/// Added at run time.
#[tool]
fn late() -> &'static str {
    "late"
}

#[resource("replica://status")]
fn status() -> &'static str {
    "fine"
}

/// One replica: its address and its handles, to change its lists.
struct Replica {
    url: String,
    tools: ToolsHandle,
    resources: ResourcesHandle,
}

async fn replica(options: HttpOptions) -> Replica {
    let server = Server::empty("replica", "1").tool(echo::Tool).tool(steps::Tool).resource(status::Resource);
    let (tools, resources) = (server.tools_handle(), server.resources_handle());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, options).await.unwrap() });
    Replica { url: format!("http://{addr}/mcp"), tools, resources }
}

fn call(id: u64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": if name == "echo" { json!({"text": "hi"}) } else { json!({}) },
                   "_meta": {"progressToken": "p"}}})
}

/// The next `count` messages of an open event stream.
async fn next_messages(stream: &mut reqwest::Response, count: usize) -> Vec<Value> {
    let mut body = String::new();
    while events(&body).len() < count {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.chunk()).await;
        let chunk = chunk.expect("a message within 5 s").unwrap().expect("the stream stays open");
        body.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    events(&body)
}

/// The whole scenario, with the stores `options` gives each replica.
async fn replicas_act_as_one(options: impl Fn() -> HttpOptions) {
    let (a, b) = (replica(options()).await, replica(options()).await);
    let mut client = Client::new(&a.url);
    client.initialize().await;
    let subscribed = client.request("resources/subscribe", json!({"uri": "replica://status"})).await;
    assert_eq!(subscribed.last()["result"], json!({}));

    // The session goes on at B, which never saw its `initialize`.
    client.url = b.url.clone();
    let echoed = client.message(&call(3, "echo")).await;
    assert_eq!(echoed.status, StatusCode::OK, "{echoed:?}");
    assert_eq!(echoed.last()["result"]["content"][0]["text"], "hi");

    // B's stream for the session carries what happens on A: the update of
    // the resource the session subscribed to (on A), and A's list change.
    let get = client.http.get(&b.url).header(ACCEPT, "text/event-stream");
    let mut stream = get.header("mcp-session-id", client.session.clone().unwrap()).send().await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(100)).await;
    a.resources.updated("replica://status");
    a.tools.add(late::Tool).unwrap();
    let heard = next_messages(&mut stream, 2).await;
    assert_eq!(
        heard[0],
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "replica://status"}})
    );
    assert_eq!(heard[1]["method"], "notifications/tools/list_changed");
    drop(stream);

    // A call stream dropped at A resumes at B, from the shared events.
    client.url = a.url.clone();
    let mut first = client.post("application/json, text/event-stream").json(&call(4, "steps")).send().await.unwrap();
    let mut body = String::new();
    while events(&body).is_empty() {
        body.push_str(std::str::from_utf8(&first.chunk().await.unwrap().unwrap()).unwrap());
    }
    drop(first);
    let last = event_ids(&body).last().unwrap().clone();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let resume = client.http.get(&b.url).header(ACCEPT, "text/event-stream").header("last-event-id", &last);
    let resumed = resume.header("mcp-session-id", client.session.clone().unwrap()).send().await.unwrap();
    assert_eq!(resumed.status(), StatusCode::OK);
    let rest = events(&resumed.text().await.unwrap());
    let mut all = events(&body);
    all.extend(rest);
    let progress: Vec<f64> = all.iter().filter_map(|m| m["params"]["progress"].as_f64()).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0], "every step once, in order, across replicas");
    assert_eq!(all.last().unwrap()["result"]["content"][0]["text"], "all steps");

    // Ended at B, the session is gone at A too.
    client.url = b.url.clone();
    let ended = client.send(client.http.delete(&b.url).header("mcp-session-id", client.session.clone().unwrap())).await;
    assert_eq!(ended.status, StatusCode::OK);
    client.url = a.url.clone();
    let mut status = StatusCode::OK;
    for _ in 0..50 {
        status = client.message(&call(5, "echo")).await.status;
        if status == StatusCode::NOT_FOUND {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, StatusCode::NOT_FOUND, "a session ended on one replica is ended on all");
}

#[tokio::test]
async fn replicas_sharing_the_memory_stores_act_as_one_server() {
    let events = Arc::new(MemoryEventStore::default());
    let sessions = Arc::new(MemorySessionStore::default());
    let fanout = LocalFanout::default();
    replicas_act_as_one(|| {
        HttpOptions::new().event_store(events.clone()).session_store(sessions.clone()).fanout(fanout.clone())
    })
    .await;
}

#[tokio::test]
async fn without_a_session_store_another_replica_does_not_know_the_session() {
    let (a, b) = (replica(HttpOptions::new()).await, replica(HttpOptions::new()).await);
    let mut client = Client::new(&a.url);
    client.initialize().await;
    client.url = b.url.clone();
    assert_eq!(client.message(&call(3, "echo")).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_session_id_no_store_has_is_not_found_and_one_of_another_subject_is_refused() {
    let sessions = Arc::new(MemorySessionStore::default());
    let options = || HttpOptions::new().session_store(sessions.clone());
    let (a, b) = (replica(options()).await, replica(options()).await);
    let mut client = Client::new(&b.url);
    client.session = Some("0123456789abcdef0123456789abcdef".into());
    assert_eq!(client.message(&call(3, "echo")).await.status, StatusCode::NOT_FOUND);
    client.session = Some("../../etc/passwd".into());
    assert_eq!(client.message(&call(3, "echo")).await.status, StatusCode::NOT_FOUND);
    // A real one moves.
    client.session = None;
    client.url = a.url.clone();
    client.initialize().await;
    client.url = b.url.clone();
    assert_eq!(client.message(&call(4, "echo")).await.status, StatusCode::OK);
}

pub(crate) mod redis {
    use super::*;
    use mcp_runtime::stores::RedisStore;

    /// A Redis server of the test's own on a free loopback port, stopped
    /// when dropped.
    pub(crate) struct RedisServer {
        child: std::process::Child,
        pub(crate) url: String,
    }

    impl Drop for RedisServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// Start `redis-server`; `None` (and a note) where it is not
    /// installed, except under CI, which installs it and must run this.
    pub(crate) async fn start() -> Option<RedisServer> {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let spawned = std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn();
        let child = match spawned {
            Ok(child) => child,
            Err(e) if std::env::var_os("CI").is_none() => {
                eprintln!("skipping: redis-server could not be started ({e}); CI installs it");
                return None;
            }
            Err(e) => panic!("redis-server could not be started under CI: {e}"),
        };
        let server = RedisServer { child, url: format!("redis://127.0.0.1:{port}/") };
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return Some(server);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("redis-server did not open port {port}");
    }

    #[tokio::test]
    async fn replicas_sharing_redis_act_as_one_server() {
        let Some(redis) = start().await else { return };
        let store = RedisStore::connect(&redis.url).await.unwrap().prefix("test");
        replicas_act_as_one(|| HttpOptions::new().shared_store(store.clone())).await;
    }

    #[tokio::test]
    async fn the_redis_event_store_refuses_holes_and_forgets_sessions() {
        use mcp_runtime::stores::EventStore;
        let Some(redis) = start().await else { return };
        let store = RedisStore::connect(&redis.url).await.unwrap();
        for (number, message) in [(1, "a"), (2, "a"), (3, "")] {
            store.keep("s1/7", number, message.as_bytes()).await.unwrap();
        }
        let replayed = store.replay("s1/7", 1).await.unwrap().unwrap();
        assert_eq!(replayed, [(2, b"a".to_vec()), (3, Vec::new())], "equal messages stay apart; the end is kept");
        assert_eq!(store.replay("unknown/1", 0).await.unwrap(), None);
        store.keep("s1/8", 2, b"b").await.unwrap();
        assert_eq!(store.replay("s1/8", 0).await.unwrap(), None, "event 1 was never kept: a hole");
        store.keep("s2/1", 1, b"c").await.unwrap();
        store.forget("s1/").await.unwrap();
        assert_eq!(store.replay("s1/7", 0).await.unwrap(), None);
        assert!(store.replay("s2/1", 0).await.unwrap().is_some(), "another session's streams stay");
    }
}
