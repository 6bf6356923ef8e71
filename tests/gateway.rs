//! A gateway tried as a second tenant and a hostile upstream would: an
//! upstream session never passes from one client session to another, the
//! connections kept per session end with their sessions and are bounded,
//! no secret of the configuration reaches a caller, an upstream that never
//! lists holds no one, and a name two mounts offer always goes to the same
//! one.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_core::{CallToolResult, Content, ProtocolVersion};
use mcp_runtime::prelude::*;
use mcp_runtime::proxy::{Mount, Upstream};
use mcp_runtime_client::{Client, ClientBuilder, EraChoice};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A handshake-era upstream over a pipe that keeps a notebook per
/// connection (as a server keeps what one user told it): `remember`
/// writes a note, `recall` reads them. `live` counts its open connections.
async fn notebook(stream: tokio::io::DuplexStream, live: Arc<AtomicUsize>) {
    live.fetch_add(1, Ordering::SeqCst);
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = BufReader::new(read).lines();
    let mut notes: Vec<String> = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = message.get("id").cloned() else { continue };
        let text = |text: String| json!({ "content": [{ "type": "text", "text": text }] });
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "notebook", "version": "1" }
            }),
            "tools/list" => {
                let tools =
                    ["remember", "recall"].map(|name| json!({ "name": name, "inputSchema": { "type": "object" } }));
                json!({ "tools": tools })
            }
            "tools/call" => match message["params"]["name"].as_str().unwrap_or_default() {
                "remember" => {
                    notes.push(message["params"]["arguments"]["note"].as_str().unwrap_or_default().to_owned());
                    text("noted".into())
                }
                _ => text(notes.join(", ")),
            },
            _ => json!({}),
        };
        let answer = json!({ "jsonrpc": "2.0", "id": id, "result": result });
        if write.write_all(format!("{answer}\n").as_bytes()).await.is_err() {
            break;
        }
    }
    live.fetch_sub(1, Ordering::SeqCst);
}

fn notebook_upstream(live: Arc<AtomicUsize>) -> Upstream {
    Upstream::connect_with("notebook", move |builder| {
        let live = live.clone();
        async move {
            let (ours, theirs) = tokio::io::duplex(1 << 16);
            tokio::spawn(notebook(theirs, live));
            let (read, write) = tokio::io::split(ours);
            builder.io(read, write).await
        }
    })
}

/// `server` on a free loopback port.
async fn http_url(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { server.serve_http_on(listener, mcp_runtime::transport::HttpOptions::new()).await });
    format!("http://{addr}/mcp")
}

fn session_client() -> ClientBuilder {
    Client::builder().era(EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE))
}

fn text(result: &CallToolResult) -> String {
    match &result.content[0] {
        Content::Text(text) => text.text.clone(),
        other => panic!("{other:?}"),
    }
}

/// Wait up to `limit` for `done`.
async fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test]
async fn what_an_upstream_kept_for_one_client_session_never_reaches_the_next() {
    let live = Arc::new(AtomicUsize::new(0));
    let gateway = http_url(Server::empty("gateway", "1").mount("nb", notebook_upstream(live.clone()))).await;

    let alice = session_client().http(&gateway).await.unwrap();
    assert_eq!(text(&alice.call("nb_remember", json!({ "note": "alice's secret" })).await.unwrap()), "noted");
    assert_eq!(text(&alice.call("nb_recall", json!({})).await.unwrap()), "alice's secret");
    alice.close().await;

    // Bob comes after Alice left: he gets an upstream session of his own,
    // not the one that remembers her note.
    let bob = session_client().http(&gateway).await.unwrap();
    let recalled = text(&bob.call("nb_recall", json!({})).await.unwrap());
    assert!(!recalled.contains("alice"), "a stranger recalled: {recalled}");
    assert_eq!(text(&bob.call("nb_remember", json!({ "note": "bob's" })).await.unwrap()), "noted");
    assert_eq!(text(&bob.call("nb_recall", json!({})).await.unwrap()), "bob's");

    // And so does Carol, beside him.
    let carol = session_client().http(&gateway).await.unwrap();
    assert_eq!(text(&carol.call("nb_recall", json!({})).await.unwrap()), "");
    assert_eq!(text(&bob.call("nb_recall", json!({})).await.unwrap()), "bob's", "bob keeps his own");

    // A 2026-07-28 client has no session: it is never served on one that
    // a client session holds.
    let stateless = Client::builder().era(EraChoice::Version(ProtocolVersion::LATEST)).http(&gateway).await.unwrap();
    let recalled = text(&stateless.call("nb_recall", json!({})).await.unwrap());
    assert!(!recalled.contains("bob"), "a client without a session recalled: {recalled}");
    assert_eq!(text(&bob.call("nb_recall", json!({})).await.unwrap()), "bob's");
}

#[tokio::test]
async fn connections_kept_per_client_session_end_with_it_and_are_bounded() {
    let live = Arc::new(AtomicUsize::new(0));
    let mount = Mount::new("nb", notebook_upstream(live.clone())).max_sessions(2);
    let gateway = http_url(Server::empty("gateway", "1").mount_with(mount)).await;

    // The first session uses the connection that mirrors the lists; two
    // more get connections of their own, and a fourth is refused, saying
    // why, until one of those ends.
    let mut clients = Vec::new();
    for n in 0..3 {
        let client = session_client().http(&gateway).await.unwrap();
        let result = client.call("nb_remember", json!({ "note": format!("n{n}") })).await.unwrap();
        assert_eq!(text(&result), "noted");
        clients.push(client);
    }
    assert!(eventually(Duration::from_secs(5), || live.load(Ordering::SeqCst) == 3).await);
    let fourth = session_client().http(&gateway).await.unwrap();
    let refused = fourth.call("nb_recall", json!({})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("at most 2 client sessions at once"), "{}", text(&refused));

    // Sessions that end take their connections with them, with no later
    // call needed to notice.
    let last = clients.pop().unwrap();
    last.close().await;
    let before = clients.pop().unwrap();
    before.close().await;
    assert!(
        eventually(Duration::from_secs(5), || live.load(Ordering::SeqCst) == 1).await,
        "{} upstream connections open after their sessions ended",
        live.load(Ordering::SeqCst)
    );
    assert_eq!(text(&fourth.call("nb_recall", json!({})).await.unwrap()), "", "room for the fourth now");
}

/// Forwards TCP connections to `to` until stopped: an upstream that can
/// be taken away.
struct Relay {
    port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn to(to: std::net::SocketAddr) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((mut inbound, _)) = listener.accept().await {
                connections.spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Relay { port, task }
    }
}

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[tokio::test]
async fn no_secret_of_an_upstream_url_reaches_a_caller() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        Server::empty("calc", "1")
            .tool(add::Tool)
            .serve_http_on(listener, mcp_runtime::transport::HttpOptions::new())
            .await
    });
    let relay = Relay::to(addr).await;
    let url = format!("http://carol:hunter2@127.0.0.1:{}/mcp?api_key=SECRET-KEY#frag", relay.port);
    let upstream = Upstream::url_with_headers(&url, [("Authorization", "Bearer SECRET-TOKEN")]);
    assert_eq!(upstream.label(), format!("http://127.0.0.1:{}/mcp", relay.port));
    // A proxy: the mount has no prefix, so it is named by its URL.
    let gateway = http_url(Server::empty("gateway", "1").mount_with(Mount::new("", upstream))).await;
    let client = session_client().http(&gateway).await.unwrap();
    let sum = client.call("add", json!({ "a": 1, "b": 2 })).await.unwrap();
    assert_eq!(text(&sum), "3");

    // The upstream goes away: the caller hears so, without its secrets.
    relay.task.abort();
    let _ = relay.task.await;
    let failed = client.call("add", json!({ "a": 1, "b": 2 })).await.unwrap();
    assert_eq!(failed.is_error, Some(true));
    let said = text(&failed);
    for secret in ["SECRET", "hunter2", "carol", "api_key", "frag"] {
        assert!(!said.contains(secret), "`{secret}` reached the caller: {said}");
    }
    assert!(said.contains(&format!("127.0.0.1:{}", relay.port)), "{said}");
}

/// An upstream that answers `initialize` and then nothing.
async fn mute(stream: tokio::io::DuplexStream) {
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        if message["method"] == "initialize" {
            let answer = json!({ "jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "mute", "version": "1" }
            }});
            let _ = write.write_all(format!("{answer}\n").as_bytes()).await;
        }
    }
}

fn piped(label: &str, serve: fn(tokio::io::DuplexStream) -> futures_util::future::BoxFuture<'static, ()>) -> Upstream {
    Upstream::connect_with(label, move |builder| async move {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        tokio::spawn(serve(theirs));
        let (read, write) = tokio::io::split(ours);
        builder.io(read, write).await
    })
}

#[tokio::test]
async fn an_upstream_that_never_lists_holds_no_one_past_its_connect_timeout() {
    let first_answer = |server: Server| async move {
        let started = Instant::now();
        let mut client = server.connect_in_memory().unwrap();
        client.initialize().await.unwrap();
        let tools = client.request("tools/list", json!({})).await.unwrap();
        let names: Vec<String> = tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        (names, started.elapsed())
    };
    let calc = || Server::empty("calc", "1").tool(add::Tool);
    // Takes the connection and never lists: its 1 s connect timeout bounds
    // each listing (not the client's 60 s, nor the 10 s serving waits).
    let never_lists = Mount::new("mute", piped("mute", |s| Box::pin(mute(s)))).connect_timeout(Duration::from_secs(1));
    let (names, waited) =
        first_answer(Server::empty("gateway", "1").mount_with(never_lists).mount("calc", calc())).await;
    assert_eq!(names, ["calc_add"], "the other mount is listed");
    assert!(waited < Duration::from_secs(8), "the first answer waited {waited:?}");
    // Never answers `initialize`, with the default 30 s to connect: serving
    // starts without it, the others listed.
    let silent = Mount::new(
        "silent",
        piped("silent", |s| {
            Box::pin(async move {
                let _keep = s;
                std::future::pending::<()>().await
            })
        }),
    );
    let (names, waited) = first_answer(Server::empty("gateway", "1").mount_with(silent).mount("calc", calc())).await;
    assert_eq!(names, ["calc_add"], "the other mount is listed");
    assert!(waited < Duration::from_secs(20), "the first answer waited {waited:?}");
}

#[tokio::test]
async fn a_name_two_mounts_offer_goes_to_the_earlier_one_whichever_answers_first() {
    /// Multiply two numbers.
    #[tool]
    async fn mul(a: f64, b: f64) -> f64 {
        a * b
    }
    for round in 0..2 {
        // The earlier mount is the slower to come up in one round, the
        // faster in the other.
        let (first_delay, second_delay) = if round == 0 { (400, 0) } else { (0, 400) };
        let delayed = |server: Server, delay: u64| {
            let built = Arc::new(tokio::sync::Mutex::new(Some(server)));
            Upstream::connect_with("delayed", move |builder| {
                let built = built.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(delay)).await;
                    let server = built.lock().await.take().expect("connected once");
                    let (ours, theirs) = tokio::io::duplex(1 << 16);
                    let (their_read, their_write) = tokio::io::split(theirs);
                    tokio::spawn(server.serve(their_read, their_write));
                    let (read, write) = tokio::io::split(ours);
                    builder.io(read, write).await
                }
            })
        };
        let server = Server::empty("gateway", "1")
            .mount_with(
                Mount::new("one", delayed(Server::empty("a", "1").tool(add::Tool), first_delay)).rename("add", "op"),
            )
            .mount_with(
                Mount::new("two", delayed(Server::empty("b", "1").tool(mul::Tool), second_delay)).rename("mul", "op"),
            );
        let mut client = server.connect_in_memory().unwrap();
        client.initialize().await.unwrap();
        let answer =
            client.request("tools/call", json!({ "name": "op", "arguments": { "a": 2, "b": 5 } })).await.unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], "7", "round {round}: {answer}");
    }

    // The earlier mount drops the name: the next one offering it serves it.
    let first = Server::empty("a", "1").tool(add::Tool);
    let first_tools = first.tools_handle();
    let server = Server::empty("gateway", "1")
        .mount_with(Mount::new("one", first).rename("add", "op"))
        .mount_with(Mount::new("two", Server::empty("b", "1").tool(mul::Tool)).rename("mul", "op"));
    let mut client = server.connect_in_memory().unwrap();
    client.initialize().await.unwrap();
    let call = json!({ "name": "op", "arguments": { "a": 2, "b": 5 } });
    assert_eq!(client.request("tools/call", call.clone()).await.unwrap()["result"]["content"][0]["text"], "7");
    assert!(first_tools.remove("add"));
    let mut answer = Value::Null;
    for _ in 0..250 {
        answer = client.request("tools/call", call.clone()).await.unwrap();
        if answer["result"]["content"][0]["text"] == "10" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(answer["result"]["content"][0]["text"], "10", "the second mount's `op` serves: {answer}");
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// Many HTTP clients at once through a gateway with two well-behaved
/// upstreams (one keeping per-session notes) and two hostile ones: every
/// call answered, no note crossing between sessions, the hostile calls
/// costing their callers a clear error each. `MCP_SOAK_SECONDS` makes it
/// a soak (3 s in an ordinary run); the resident memory at its start,
/// middle and end is printed (BENCHMARKS.md has a long run's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_through_good_and_hostile_upstreams_lose_and_cross_nothing() {
    let seconds: u64 = std::env::var("MCP_SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let live = Arc::new(AtomicUsize::new(0));
    let gateway = Server::empty("gateway", "1")
        .mount("nb", notebook_upstream(live.clone()))
        .mount("calc", Server::empty("calc", "1").tool(add::Tool))
        .mount_with(
            Mount::new("bad", piped("bad", |s| Box::pin(crate::proxy::misbehaving(s))))
                .timeout(Duration::from_millis(300)),
        )
        .mount_with(Mount::new("mute", piped("mute", |s| Box::pin(mute(s)))).connect_timeout(Duration::from_secs(1)));
    let url = http_url(gateway).await;
    let start = Instant::now();
    let rss = Arc::new(std::sync::Mutex::new(vec![rss_kib()]));
    let mut clients = tokio::task::JoinSet::new();
    for n in 0..24u64 {
        let (url, rss) = (url.clone(), rss.clone());
        clients.spawn(async move {
            let deadline = Instant::now() + Duration::from_secs(seconds);
            let (mut calls, mut notes, mut mid) = (0u64, Vec::new(), false);
            while Instant::now() < deadline {
                // A session at a time, a few rounds each, then a new one.
                let client = session_client().http(&url).await.expect("the gateway takes a session");
                notes.clear();
                for round in 0..5u64 {
                    let note = format!("c{n}r{round}s{calls}");
                    assert_eq!(text(&client.call("nb_remember", json!({ "note": note })).await.unwrap()), "noted");
                    notes.push(note);
                    let recalled = text(&client.call("nb_recall", json!({})).await.unwrap());
                    assert_eq!(recalled, notes.join(", "), "client {n} recalled another session's notes");
                    let sum = client.call("calc_add", json!({ "a": n, "b": calls })).await.unwrap();
                    assert_eq!(text(&sum), (n + calls).to_string());
                    let bad = ["bad_stall", "bad_flood", "bad_garbage", "bad_crash"][(calls % 4) as usize];
                    let answer = client.call(bad, json!({})).await.expect("an answer, whatever the upstream did");
                    if bad == "bad_stall" || bad == "bad_crash" {
                        assert_eq!(answer.is_error, Some(true), "{bad}: {answer:?}");
                    }
                    calls += 4;
                }
                client.close().await;
                if n == 0 && !mid && Instant::now() + Duration::from_secs(seconds) / 2 > deadline {
                    mid = true;
                    rss.lock().unwrap().push(rss_kib());
                }
            }
            calls
        });
    }
    let mut total = 0;
    while let Some(calls) = clients.join_next().await {
        total += calls.expect("a client failed");
    }
    rss.lock().unwrap().push(rss_kib());
    assert!(
        eventually(Duration::from_secs(5), || live.load(Ordering::SeqCst) <= 1).await,
        "per-session upstream connections left open"
    );
    let rss = rss.lock().unwrap();
    eprintln!(
        "gateway soak: {total} calls from 24 clients in {:.1} s; RSS start/middle/end {:?} KiB",
        start.elapsed().as_secs_f64(),
        *rss
    );
}
