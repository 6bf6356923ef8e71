//! The client crate against hostile servers: over stdio, a pipe and HTTP,
//! what one server sends is bounded (a message's size, a list's pages,
//! items, bytes and time), a request's timeout covers its whole exchange,
//! and no secret of the URL reaches an error. The tests use the client's
//! default bounds where they can, so each shows what a caller gets
//! without setting anything.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::ProtocolVersion;
use mcp_runtime_client::{Client, ClientBuilder, EraChoice, Error};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The size of the client's default message limit.
const LIMIT: usize = 64 << 20;

fn builder() -> ClientBuilder {
    Client::builder().era(EraChoice::Version(ProtocolVersion::LATEST))
}

fn discovered() -> Value {
    json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}})
}

/// What the hostile HTTP server does with a request.
enum Reply {
    /// An ordinary JSON answer with this result.
    Result(Value),
    /// Take the request and never answer.
    Stall,
    /// An answer whose body (its length announced) comes a byte a second.
    Drip(Vec<u8>),
    /// A chunked body of this type: `head`, `size` bytes of `fill` in
    /// chunks of `block`, `tail`.
    Stream { content_type: &'static str, head: String, fill: u8, size: usize, block: usize, tail: String },
    /// Announce a body of this many bytes, then send none.
    Announce(usize),
    /// Announce 1,000 bytes, send 10, and hang up.
    Truncated,
}

type Script = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

/// A server on a free loopback port that answers `server/discover` and
/// notifications, and each request as `script` says.
async fn hostile_http(script: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let script: Script = Arc::new(script);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(connection(stream, script.clone()));
        }
    });
    url
}

async fn connection(stream: TcpStream, script: Script) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    loop {
        let Some(body) = crate::common::raw_http::read_body(&mut read).await else { return };
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let reply = match message["method"].as_str() {
            Some("server/discover") => Reply::Result(discovered()),
            _ if message.get("id").is_none() => {
                let accepted = "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n";
                if write.write_all(accepted.as_bytes()).await.is_err() {
                    return;
                }
                continue;
            }
            _ => script(&message),
        };
        let json = |length: usize| {
            format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {length}\r\n\r\n")
        };
        let written = match reply {
            Reply::Result(result) => {
                let body = json!({"jsonrpc": "2.0", "id": message["id"], "result": result}).to_string();
                write.write_all(format!("{}{body}", json(body.len())).as_bytes()).await
            }
            Reply::Stall => std::future::pending().await,
            Reply::Drip(body) => {
                let _ = write.write_all(json(body.len()).as_bytes()).await;
                for byte in body {
                    if write.write_all(&[byte]).await.is_err() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Ok(())
            }
            Reply::Stream { content_type, head, fill, size, block, tail } => {
                let headers =
                    format!("HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n");
                let chunk = |bytes: &[u8]| [format!("{:x}\r\n", bytes.len()).as_bytes(), bytes, b"\r\n"].concat();
                let mut sent = write.write_all(headers.as_bytes()).await;
                sent = match sent {
                    Ok(()) => write.write_all(&chunk(head.as_bytes())).await,
                    failed => failed,
                };
                let block = vec![fill; block];
                let mut left = size;
                while left > 0 && sent.is_ok() {
                    let n = left.min(block.len());
                    sent = write.write_all(&chunk(&block[..n])).await;
                    left -= n;
                }
                if sent.is_ok() {
                    sent = write.write_all(&[chunk(tail.as_bytes()), b"0\r\n\r\n".to_vec()].concat()).await;
                }
                sent
            }
            Reply::Announce(length) => {
                let _ = write.write_all(json(length).as_bytes()).await;
                std::future::pending().await
            }
            Reply::Truncated => {
                let _ = write.write_all(format!("{}{{\"jsonrpc\"", json(1000)).as_bytes()).await;
                return;
            }
        };
        if written.is_err() {
            return;
        }
    }
}

/// The start of an answer to `message` whose one text content follows.
fn text_answer_head(message: &Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":""#, message["id"])
}

const TEXT_ANSWER_TAIL: &str = r#""}]}}"#;

fn says_the_limit(error: &Error) -> bool {
    let text = error.to_string();
    text.contains("64 MiB") && text.contains("max_message_bytes")
}

#[tokio::test]
async fn a_secret_in_the_url_reaches_no_error() {
    let secret = |error: &Error| format!("{error} {error:?}").contains("hunter2");
    // Nobody listens on the port.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://admin:hunter2@127.0.0.1:{port}/mcp?token=hunter2#hunter2");
    let refused = builder().http(&url).await.unwrap_err();
    assert!(matches!(refused, Error::Transport(_)) && !secret(&refused), "{refused}");
    let not_http = Client::http("ftp://admin:hunter2@host/?token=hunter2").await.unwrap_err();
    assert!(!secret(&not_http), "{not_http}");
    // A server that hangs up in the middle of its answer.
    let url = hostile_http(|_| Reply::Truncated).await;
    let url = format!("{}?token=hunter2", url.replace("http://", "http://admin:hunter2@"));
    let client = builder().http(&url).await.unwrap();
    let cut = client.call("t", json!({})).await.unwrap_err();
    assert!(matches!(cut, Error::Transport(_)) && !secret(&cut), "{cut}");
}

#[tokio::test]
async fn a_request_s_timeout_covers_a_server_that_takes_it_and_stalls() {
    let url = hostile_http(|_| Reply::Stall).await;
    let client = builder().timeout(Duration::from_secs(1)).http(&url).await.unwrap();
    let call = tokio::time::timeout(Duration::from_secs(10), client.call("t", json!({}))).await;
    assert!(matches!(call, Ok(Err(Error::Timeout(_)))), "{:?}", call.map(|c| c.map(drop)));
    // A body announced and never sent is the same.
    let url = hostile_http(|_| Reply::Announce(100)).await;
    let client = builder().timeout(Duration::from_secs(1)).http(&url).await.unwrap();
    let call = tokio::time::timeout(Duration::from_secs(10), client.call("t", json!({}))).await;
    assert!(matches!(call, Ok(Err(Error::Timeout(_)))), "{:?}", call.map(|c| c.map(drop)));
}

#[tokio::test]
async fn a_request_s_timeout_covers_an_answer_dripped_a_byte_a_second() {
    let url = hostile_http(|message| {
        let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"content": []}});
        Reply::Drip(answer.to_string().into_bytes())
    })
    .await;
    let client = builder().timeout(Duration::from_secs(2)).http(&url).await.unwrap();
    let call = tokio::time::timeout(Duration::from_secs(15), client.call("t", json!({}))).await;
    assert!(matches!(call, Ok(Err(Error::Timeout(_)))), "{:?}", call.map(|c| c.map(drop)));
}

#[tokio::test]
async fn an_http_answer_over_the_limit_fails_its_call_unread_and_the_client_goes_on() {
    let url = hostile_http(|message| match message["params"]["name"].as_str() {
        Some("announced") => Reply::Announce(LIMIT + 1),
        _ => Reply::Stream {
            content_type: "application/json",
            head: text_answer_head(message),
            fill: b'x',
            size: LIMIT + (8 << 20),
            block: 1 << 20,
            tail: TEXT_ANSWER_TAIL.into(),
        },
    })
    .await;
    let client = builder().http(&url).await.unwrap();
    for tool in ["streamed", "announced"] {
        let call = tokio::time::timeout(Duration::from_secs(20), client.call(tool, json!({}))).await;
        let error = call.expect("the call fails at once").map(drop).expect_err("the answer is over the limit");
        assert!(says_the_limit(&error), "{tool}: {error}");
    }
    client.ping().await.expect("the client goes on");
}

#[tokio::test]
async fn an_event_over_the_limit_fails_its_call_and_the_client_goes_on() {
    let url = hostile_http(|message| Reply::Stream {
        content_type: "text/event-stream",
        head: format!("id: 1\ndata: {}", text_answer_head(message)),
        fill: b'x',
        size: LIMIT + (4 << 20),
        block: 64 << 10,
        tail: format!("{TEXT_ANSWER_TAIL}\n\n"),
    })
    .await;
    let client = builder().http(&url).await.unwrap();
    let call = tokio::time::timeout(Duration::from_secs(30), client.call("t", json!({}))).await;
    let error = call.expect("the call fails at once").map(drop).expect_err("the event is over the limit");
    assert!(says_the_limit(&error), "{error}");
    client.ping().await.expect("the client goes on");
}

#[tokio::test]
async fn a_32_mb_event_is_read_in_linear_time() {
    // The quadratic reader took 37 s for this in a release build (and
    // longer in a test's): a generous bound still tells them apart.
    let size = 32 << 20;
    let url = hostile_http(move |message| Reply::Stream {
        content_type: "text/event-stream",
        head: format!("id: 1\r\ndata: {}", text_answer_head(message)),
        fill: b'x',
        size,
        // Chunks the size a network gives: the quadratic reader searched
        // the whole buffer again for each.
        block: 16 << 10,
        tail: format!("{TEXT_ANSWER_TAIL}\r\n\r\n"),
    })
    .await;
    let client = builder().http(&url).await.unwrap();
    let call = tokio::time::timeout(Duration::from_secs(30), client.call("t", json!({}))).await;
    let result = call.expect("read well within 30 s").expect("an event under the limit is read");
    let mcp_core::Content::Text(text) = &result.content[0] else { panic!("a text") };
    assert_eq!(text.text.len(), size);
}

#[tokio::test]
async fn an_answer_over_the_line_limit_fails_its_call_at_once_and_the_connection_goes_on() {
    // A server over stdio whose answer to the call (id 2, its id after
    // the result) is 70 MB long; it answers the ping (id 3) after it.
    let answer = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{}}}}}}}}"#
        )
    };
    let script = format!(
        r#"read -r line; echo '{}'; read -r line; printf '{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"'; head -c 70000000 /dev/zero | tr '\0' x; printf '"}}]}},"id":2}}\n'; read -r line; echo '{}'; read -r line"#,
        answer(1),
        answer(3)
    );
    let client = builder().timeout(Duration::from_secs(60)).command("sh", ["-c", &script]).await.unwrap();
    let call = tokio::time::timeout(Duration::from_secs(20), client.call("t", json!({}))).await;
    let error = call.expect("the call fails at once, not at its timeout").map(drop).expect_err("over the limit");
    assert!(says_the_limit(&error), "{error}");
    let ping = tokio::time::timeout(Duration::from_secs(10), client.ping()).await;
    ping.expect("answered").expect("the connection goes on");
    client.close().await;
}

/// A client of a server over an in-process pipe that answers
/// `server/discover`, and each other request as `answer` says, after
/// `delay`.
async fn over_pipe(
    builder: ClientBuilder,
    delay: Duration,
    mut answer: impl FnMut(&Value) -> Option<Vec<u8>> + Send + 'static,
) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            let reply = match message["method"].as_str() {
                Some("server/discover") => Some(
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": discovered()}).to_string().into_bytes(),
                ),
                _ if message.get("id").is_none() => None,
                _ => {
                    tokio::time::sleep(delay).await;
                    answer(&message)
                }
            };
            if let Some(mut reply) = reply {
                reply.push(b'\n');
                if write.write_all(&reply).await.is_err() {
                    return;
                }
            }
        }
    });
    let (read, write) = tokio::io::split(client_end);
    builder.io(read, write).await.expect("the client connects")
}

fn result(message: &Value, result: Value) -> Option<Vec<u8>> {
    Some(json!({"jsonrpc": "2.0", "id": message["id"], "result": result}).to_string().into_bytes())
}

#[tokio::test]
async fn a_line_over_the_limit_whose_id_cannot_be_read_fails_the_call_waiting() {
    let client = over_pipe(builder(), Duration::ZERO, |message| match message["method"].as_str() {
        Some("tools/call") => Some(vec![b'x'; LIMIT + 1]),
        _ => result(message, json!({})),
    })
    .await;
    let call = tokio::time::timeout(Duration::from_secs(20), client.call("t", json!({}))).await;
    let error = call.expect("the call fails at once").map(drop).expect_err("over the limit");
    assert!(says_the_limit(&error), "{error}");
    client.ping().await.expect("the connection goes on");
}

/// A page of `tools/list`: `tools`, then `next` as its cursor.
fn page(message: &Value, tools: Vec<Value>, next: Option<String>) -> Option<Vec<u8>> {
    result(message, json!({"tools": tools, "nextCursor": next}))
}

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

/// Lists the client must give up on, each with what its error names.
#[tokio::test]
async fn a_list_that_never_ends_fails_on_its_first_bound_reached() {
    let endless = |n: &mut u64| {
        *n += 1;
        Some(format!("c{n}"))
    };
    let mut cases: Vec<(&str, Client)> = Vec::new();
    // Fresh cursors, a tool a page.
    let mut n = 0;
    cases.push(("more than 1000 pages (ClientBuilder::max_list_pages)", {
        over_pipe(builder(), Duration::ZERO, move |m| page(m, vec![tool("t")], endless(&mut n))).await
    }));
    // Cursors that come round again, but never twice in a row.
    let mut n = 0;
    cases.push(("gave the cursor \"b\" a second time", {
        over_pipe(builder(), Duration::ZERO, move |m| {
            n += 1;
            page(m, vec![tool("t")], Some(["a", "b"][n % 2].into()))
        })
        .await
    }));
    // Pages of 40,000 small tools.
    let mut n = 0;
    cases.push(("more than 100000 items (ClientBuilder::max_list_items)", {
        let tools: Vec<Value> = (0..40_000).map(|i| tool(&format!("t{i}"))).collect();
        over_pipe(builder(), Duration::ZERO, move |m| page(m, tools.clone(), endless(&mut n))).await
    }));
    // Pages of one tool with a 1 MiB description.
    let mut n = 0;
    cases.push(("pages hold more than 64 MiB (ClientBuilder::max_message_bytes)", {
        let big = json!({"name": "t", "description": "d".repeat(1 << 20), "inputSchema": {"type": "object"}});
        over_pipe(builder(), Duration::ZERO, move |m| page(m, vec![big.clone()], endless(&mut n))).await
    }));
    // Pages a third of a second apart, the timeout 2 s: the list's time
    // is the timeout.
    let mut n = 0;
    cases.push(("took longer than 2s", {
        let slow = builder().timeout(Duration::from_secs(2));
        over_pipe(slow, Duration::from_millis(300), move |m| page(m, vec![tool("t")], endless(&mut n))).await
    }));
    for (says, client) in cases {
        // A guard against a list that never ends, generous for a loaded machine.
        let listed = tokio::time::timeout(Duration::from_secs(120), client.list_tools()).await;
        let error = listed.expect("the list ends").map(|tools| tools.len()).expect_err("the list is refused");
        assert!(error.to_string().contains(says), "{says}: {error}");
        client.ping().await.expect("the client goes on");
    }
}

#[tokio::test]
async fn a_list_s_bounds_are_the_builder_s() {
    let mut n = 0;
    let bounded = builder().max_list_pages(3).max_list_items(10).list_timeout(Duration::from_secs(30));
    let client = over_pipe(bounded, Duration::ZERO, move |m| {
        n += 1;
        page(m, vec![tool(&format!("t{n}"))], Some(format!("c{n}")))
    })
    .await;
    let error = client.list_tools().await.unwrap_err();
    assert!(matches!(&error, Error::Limit(why) if why.contains("more than 3 pages")), "{error}");
    let small = builder().max_message_bytes(1000);
    let client = over_pipe(small, Duration::ZERO, |m| {
        result(m, json!({"content": [{"type": "text", "text": "x".repeat(2000)}]}))
    })
    .await;
    let error = client.call("t", json!({})).await.unwrap_err();
    assert!(matches!(&error, Error::Limit(why) if why.contains("1000 bytes")), "{error}");
}
