//! A fuzzer over framing and dispatch, on the stable toolchain (bolero's
//! random engine under `cargo test`), for both ends:
//! - JSON-RPC lines from the spec's examples, mutated byte by byte and
//!   spliced into each other, reach a server in memory. Whatever arrives,
//!   the server must go on answering (a `ping` after the input is
//!   answered), write only JSON-RPC, and end cleanly when the client
//!   closes.
//! - A server's lines (answers, notifications, its own requests,
//!   input-required results), mutated the same way, reach the client crate
//!   in the middle of a call. Whatever arrives, the call ends (with a
//!   result or an error), the client goes on working, and nothing panics.
//! - The client's framing: any bytes, in chunks of any size and lines of
//!   any length (some over its message limit, set small), in the middle
//!   of a call over a pipe; and its event-stream reader: any bytes, and
//!   the spec's events cut and spliced, as a call's HTTP answer stream in
//!   chunks of any size. The call ends, and the client goes on working.
//!
//! - The OAuth proxy's form and token endpoints (see `fuzz_oauth.rs`).
//!
//! CI runs 2,000 inputs of each. A long run: `MCP_FUZZ_ITERATIONS=10000000 cargo
//! test --release -p mcp-tests --test fuzz`; a failure prints the input and
//! `BOLERO_RANDOM_SEED` to replay it.

use std::time::Duration;

#[path = "fuzz_oauth.rs"]
mod oauth;
#[path = "common/raw_http.rs"]
mod raw_http;

use bolero::{TypeGenerator, check};
use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Messages as the spec's examples write them, in both eras.
const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"ExampleClient","version":"1.0.0"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"optional-cursor-value"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"p"}}}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"pick","arguments":{"size":"large","count":3}}}"#,
    r#"[{"jsonrpc":"2.0","id":5,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}]"#,
    r#"{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"notes://welcome"}}"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"review","arguments":{"code":"fn main() {}"}}}"#,
    r#"{"jsonrpc":"2.0","id":8,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"code","value":"f"}}}"#,
    r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":10,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"debug"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"done"}}"#,
    r#"{"jsonrpc":"2.0","id":13,"result":{"roots":[{"uri":"file:///x"}]}}"#,
    r#"{"jsonrpc":"2.0","id":14,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"greet","arguments":{},"inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"x"}}},"requestState":"e30.AAAA","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#,
];

/// One change to a seed.
#[derive(Debug, TypeGenerator)]
enum Edit {
    Set {
        at: u16,
        byte: u8,
    },
    Insert {
        at: u16,
        byte: u8,
    },
    Cut {
        at: u16,
        len: u8,
    },
    /// Splice the tail of another seed in at `at`.
    Splice {
        seed: u8,
        from: u16,
        at: u16,
    },
}

/// One input: seeds with their edits, and raw bytes as a line of their own.
#[derive(Debug, TypeGenerator)]
struct Input {
    lines: Vec<(u8, Vec<Edit>)>,
    raw: Vec<u8>,
}

fn at(position: u16, len: usize) -> usize {
    usize::from(position) % (len + 1)
}

fn build(seeds: &[&str], seed: u8, edits: &[Edit]) -> Vec<u8> {
    let mut line = seeds[usize::from(seed) % seeds.len()].as_bytes().to_vec();
    for edit in edits {
        match *edit {
            Edit::Set { at: p, byte } if !line.is_empty() => {
                let i = at(p, line.len() - 1);
                line[i] = byte;
            }
            Edit::Set { .. } => {}
            Edit::Insert { at: p, byte } => line.insert(at(p, line.len()), byte),
            Edit::Cut { at: p, len } => {
                let start = at(p, line.len());
                let end = (start + usize::from(len)).min(line.len());
                line.drain(start..end);
            }
            Edit::Splice { seed, from, at: p } => {
                let other = seeds[usize::from(seed) % seeds.len()].as_bytes();
                let tail = &other[at(from, other.len())..];
                let i = at(p, line.len());
                line.truncate(i);
                line.extend_from_slice(tail);
            }
        }
    }
    line
}

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    Large,
}

/// Pick some of a size.
#[tool]
fn pick(size: Size, #[arg(description = "how many")] count: u8) -> String {
    format!("{count} {}", matches!(size, Size::Large))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// Ask for a name.
#[tool]
async fn greet(ctx: Context) -> Result<String, ToolError> {
    Ok(ctx.elicit::<Name>("name?").await?.accepted().map_or_else(String::new, |n| n.name))
}

/// A note.
#[resource("notes://{title}")]
fn note(title: String) -> String {
    title
}

/// Review code.
#[prompt]
fn review(code: String) -> String {
    code
}

async fn exercise(input: &Input) {
    let server = Server::empty("fuzz", "1")
        .tool(add::Tool)
        .tool(pick::Tool)
        .tool(greet::Tool)
        .resource(note::Resource)
        .prompt(review::Prompt)
        .shutdown_grace(Duration::from_millis(200));
    let mut client = server.connect_in_memory().expect("the server starts");
    for (seed, edits) in &input.lines {
        let line = build(SEEDS, *seed, edits);
        client.send_line(&String::from_utf8_lossy(&line)).await.expect("the server reads");
    }
    client.send_line(&String::from_utf8_lossy(&input.raw)).await.expect("the server reads");
    client.send_line(r#"{"jsonrpc":"2.0","id":"fuzz-end","method":"ping"}"#).await.expect("the server reads");
    let answered = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let message = client.recv().await.expect("only JSON on the wire").expect("the server is still there");
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message["id"] == "fuzz-end" && message.get("method").is_none() {
                return;
            }
        }
    })
    .await;
    assert!(answered.is_ok(), "the server stopped answering");
    let rest: Vec<Value> = client.close().await.expect("the server ends cleanly");
    assert!(rest.iter().all(|m| m["jsonrpc"] == "2.0"));
}

#[test]
fn any_input_leaves_the_server_answering() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    check!().with_type::<Input>().with_iterations(iterations).for_each(|input| runtime.block_on(exercise(input)));
}

/// What a server sends a client in the middle of its call (the call is
/// request 2, after `server/discover`).
const SERVER_SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"x":{"type":"string","default":"d"}}}}},"b":{"method":"roots/list"}},"requestState":"s"}}"#,
    r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad","data":{"x":1}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p2","progress":1,"total":2}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
    r#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"maxTokens":1}}"#,
    r#"{"jsonrpc":"2.0","id":"s2","method":"roots/list"}"#,
    r#"{"jsonrpc":"2.0","id":"s3","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":"s4","method":"ping"}"#,
    r#"[{"jsonrpc":"2.0","id":99,"result":{}},{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}]"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}}"#,
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#,
];

/// A scripted server: discovery, then for the first call the fuzzed
/// lines, then (unless `dies`) ordinary answers to everything.
async fn scripted_server(stream: tokio::io::DuplexStream, lines: Vec<Vec<u8>>, dies: bool) {
    let (read, mut write) = tokio::io::split(stream);
    let mut requests = BufReader::new(read).lines();
    let mut fuzzed = Some(lines);
    while let Ok(Some(line)) = requests.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else { continue };
        if method == "tools/call"
            && let Some(lines) = fuzzed.take()
        {
            for line in lines {
                if write.write_all(&line).await.is_err() || write.write_all(b"\n").await.is_err() {
                    return;
                }
            }
            if dies {
                return;
            }
        }
        let result = match method {
            "server/discover" => json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}),
            "tools/call" => json!({"content": []}),
            // For a gateway mounting it.
            "tools/list" => json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            _ => json!({}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if write.write_all(format!("{answer}\n").as_bytes()).await.is_err() {
            return;
        }
    }
}

/// One client input: the server's lines, raw bytes, and whether the
/// server dies after them.
#[derive(Debug, TypeGenerator)]
struct ServerInput {
    lines: Vec<(u8, Vec<Edit>)>,
    raw: Vec<u8>,
    dies: bool,
}

async fn exercise_client(input: &ServerInput) {
    use mcp_runtime_client::protocol::{CreateMessageResult, ElicitAction, ElicitResult, Role, SamplingContent};
    let mut lines: Vec<Vec<u8>> = input.lines.iter().map(|(seed, edits)| build(SERVER_SEEDS, *seed, edits)).collect();
    lines.push(input.raw.iter().copied().filter(|b| *b != b'\n').collect());
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(scripted_server(server_end, lines, input.dies));
    let (read, write) = tokio::io::split(client_end);
    // No timeout of the client's own shorter than the bound below: a call
    // that never ends must fail the test, not time out quietly.
    let client = mcp_runtime_client::Client::builder()
        .on_elicitation(|_| async { Ok(ElicitResult { action: ElicitAction::Accept, content: None }) })
        .on_sampling(|_| async {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: vec![SamplingContent::text("a")],
                model: "m".into(),
                stop_reason: None,
            })
        })
        .roots(Vec::new())
        .io(read, write)
        .await
        .expect("discovery is not fuzzed");
    let call = tokio::time::timeout(Duration::from_secs(10), client.call("t", json!({})).on_progress(|_| {})).await;
    let ended = call.expect("a call ends whatever the server sends");
    if !input.dies {
        // An answer the fuzz did not break comes from the script; either
        // way the client still works.
        drop(ended);
        // An error without an id that the fuzz left queued goes to the one
        // request waiting when it is read, which may be this ping (the
        // protocol cannot say which request it meant); the next works.
        // At most one such error per fuzzed line.
        let mut strays = input.lines.len();
        while let Err(error) = client.ping().await {
            assert!(
                strays > 0 && matches!(error, mcp_runtime_client::Error::Server(_)),
                "the client goes on working: {error:?}"
            );
            strays -= 1;
        }
    }
    client.close().await;
}

#[test]
fn any_server_output_ends_the_call_and_leaves_the_client_working() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    check!()
        .with_type::<ServerInput>()
        .with_iterations(iterations)
        .for_each(|input| runtime.block_on(exercise_client(input)));
}

/// A gateway's configuration, mutated: reading it never panics, and what
/// it refuses it refuses as a configuration error.
#[derive(Debug, TypeGenerator)]
struct ConfigInput {
    seed: u8,
    edits: Vec<Edit>,
}

const CONFIG_SEEDS: &[&str] = &[
    r#"{"mcpServers":{"calc":{"command":"calculator","args":["--stdio"],"env":{"A":"1"},"include":["add"]}}}"#,
    r#"{"mcpServers":{"web":{"type":"http","url":"http://127.0.0.1:1/mcp?k=v","headers":{"X":"y"},"timeout":5,"connectTimeout":1.5,"maxSessions":3}}}"#,
    r#"{"mcpServers":{"a":{"command":"x","exclude":["b"],"disabled":false,"autoApprove":[]},"b":{"url":"u","maxMessageBytes":10}}}"#,
];

#[test]
fn any_gateway_configuration_is_read_or_refused_with_a_reason() {
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    check!().with_type::<ConfigInput>().with_iterations(iterations).for_each(|input| {
        let text = String::from_utf8_lossy(&build(CONFIG_SEEDS, input.seed, &input.edits)).into_owned();
        match mcp_runtime::proxy::Config::from_json(&text) {
            Ok(config) => {
                let mounts = config.mounts();
                assert_eq!(mounts.len(), config.names().count());
            }
            Err(error) => assert!(matches!(error, mcp_runtime::Error::InvalidConfig(_)), "{error:?}"),
        }
    });
}

/// A gateway mounting a scripted upstream that sends fuzzed lines during
/// the first call: the gateway answers that call (a result or an error),
/// and the next, whatever the upstream sent.
async fn exercise_gateway(input: &ServerInput) {
    let mut lines: Vec<Vec<u8>> = input.lines.iter().map(|(seed, edits)| build(SERVER_SEEDS, *seed, edits)).collect();
    lines.push(input.raw.iter().copied().filter(|b| *b != b'\n').collect());
    let (lines, dies) = (std::sync::Mutex::new(Some(lines)), input.dies);
    let lines = std::sync::Arc::new(lines);
    let upstream = mcp_runtime::proxy::Upstream::connect_with("scripted", move |builder| {
        // The fuzzed lines go to the first connection; a reconnection is
        // served plainly.
        let script = lines.lock().unwrap().take();
        async move {
            let (ours, theirs) = tokio::io::duplex(1 << 16);
            let plain = script.is_none();
            tokio::spawn(scripted_server(theirs, script.unwrap_or_default(), dies && !plain));
            let (read, write) = tokio::io::split(ours);
            builder.io(read, write).await
        }
    });
    let mount = mcp_runtime::proxy::Mount::new("up", upstream).timeout(Duration::from_secs(5));
    let mut client = Server::empty("gateway", "1").mount_with(mount).connect_in_memory().unwrap();
    client.initialize().await.unwrap();
    for _ in 0..2 {
        let call = client.request("tools/call", json!({"name": "up_t", "arguments": {}}));
        let answer = tokio::time::timeout(Duration::from_secs(20), call).await.expect("the gateway answers").unwrap();
        assert!(answer.get("result").is_some() || answer.get("error").is_some(), "{answer}");
    }
    let pong = client.request("ping", json!({})).await.unwrap();
    assert!(pong.get("result").is_some(), "{pong}");
}

#[test]
fn any_upstream_output_leaves_the_gateway_answering() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // A gateway per input: fewer inputs than the other targets by default.
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(500);
    check!()
        .with_type::<ServerInput>()
        .with_iterations(iterations)
        .for_each(|input| runtime.block_on(exercise_gateway(input)));
}

/// The client's framing: what a server writes, in chunks of any size and
/// lines of any length (some over the client's message limit), in the
/// middle of a call. The call ends, whatever came, and the client goes on.
#[derive(Debug, TypeGenerator)]
struct FramingInput {
    /// Written one after another, each flushed on its own.
    chunks: Vec<Vec<u8>>,
    /// How many times the chunks are written: enough makes a line over
    /// the limit.
    repeat: u8,
}

/// The limit the framing and event-stream fuzzers give the client: small,
/// so that inputs cross it.
const FUZZ_LIMIT: usize = 256;

async fn exercise_framing(input: &FramingInput) {
    let (client_end, server_end) = tokio::io::duplex(1 << 12);
    let chunks = input.chunks.clone();
    let repeat = usize::from(input.repeat % 8) + 1;
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_end);
        let mut requests = BufReader::new(read).lines();
        while let Ok(Some(line)) = requests.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
            let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else { continue };
            if method == "tools/call" {
                for chunk in std::iter::repeat_n(&chunks, repeat).flatten() {
                    if write.write_all(chunk).await.is_err() || write.flush().await.is_err() {
                        return;
                    }
                }
                // What the fuzz left unfinished ends here.
                if write.write_all(b"\n").await.is_err() {
                    return;
                }
            }
            let result = if method == "server/discover" {
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}})
            } else {
                json!({"content": []})
            };
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
            if write.write_all(format!("{answer}\n").as_bytes()).await.is_err() {
                return;
            }
        }
    });
    let (read, write) = tokio::io::split(client_end);
    let client = mcp_runtime_client::Client::builder()
        .era(mcp_runtime_client::EraChoice::Version(mcp_core::ProtocolVersion::LATEST))
        .max_message_bytes(FUZZ_LIMIT)
        .io(read, write)
        .await
        .expect("discovery is not fuzzed");
    let call = tokio::time::timeout(Duration::from_secs(10), client.call("t", json!({}))).await;
    assert!(call.is_ok(), "a call ends whatever the server sends");
    // A line over the limit whose id cannot be read fails every call
    // waiting, and may be read while the next waits: one per line at most.
    let lines = input.chunks.iter().flatten().filter(|b| **b == b'\n').count() * repeat + 2;
    let mut pinged = None;
    for _ in 0..lines {
        pinged = tokio::time::timeout(Duration::from_secs(10), client.ping()).await.ok();
        match &pinged {
            Some(Err(mcp_runtime_client::Error::Limit(_) | mcp_runtime_client::Error::Server(_))) => {}
            _ => break,
        }
    }
    assert!(matches!(pinged, Some(Ok(()))), "the client goes on working: {pinged:?}");
    client.close().await;
}

#[test]
fn any_framing_ends_the_call_and_leaves_the_client_working() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    check!()
        .with_type::<FramingInput>()
        .with_iterations(iterations)
        .for_each(|input| runtime.block_on(exercise_framing(input)));
}

/// The client's event-stream reader: a call's answer stream is the fuzz's
/// bytes, in its chunks (each a chunk of the HTTP body), then a blank
/// line and the answer. The call ends, whatever came, and the client goes
/// on.
#[derive(Debug, TypeGenerator)]
struct StreamInput {
    chunks: Vec<Vec<u8>>,
    /// Seeds of events, cut and spliced as the framing fuzzer's lines are.
    events: Vec<(u8, Vec<Edit>)>,
}

const EVENT_SEEDS: &[&str] = &[
    "id: 1\nretry: 10\ndata:\n\n",
    ": keep-alive\r\n",
    "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}\r\n\r\n",
    "data: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n",
    "id:\0x\rretry: x\rdata\r\r",
    "data: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n\n",
];

/// The body of the next answer stream, as chunks.
type NextStream = std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>;

/// An HTTP server whose every `tools/call` is answered with the event
/// stream `next` holds, then the answer.
async fn event_stream_server(next: NextStream) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let next = next.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut read = BufReader::new(read);
                loop {
                    let Some(body) = raw_http::read_body(&mut read).await else { return };
                    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let reply = match (message.get("id"), message["method"].as_str()) {
                        (None, _) => b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_vec(),
                        (Some(id), Some("tools/call")) => {
                            let chunk =
                                |bytes: &[u8]| [format!("{:x}\r\n", bytes.len()).as_bytes(), bytes, b"\r\n"].concat();
                            let mut reply =
                                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
                                    .to_vec();
                            let chunks = next.lock().unwrap().clone();
                            for piece in chunks.iter().filter(|c| !c.is_empty()) {
                                reply.extend(chunk(piece));
                            }
                            let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}});
                            reply.extend(chunk(format!("\n\ndata: {answer}\n\n").as_bytes()));
                            reply.extend(b"0\r\n\r\n");
                            reply
                        }
                        (Some(id), _) => {
                            let result = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}});
                            let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                                body.len()
                            )
                            .into_bytes()
                        }
                    };
                    if write.write_all(&reply).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

async fn exercise_stream(url: &str, next: &NextStream, input: &StreamInput) {
    let mut chunks = input.chunks.clone();
    // The seeds' events, split where the fuzz's chunks are.
    let events: Vec<u8> = input.events.iter().flat_map(|(seed, edits)| build(EVENT_SEEDS, *seed, edits)).collect();
    let mut rest = &events[..];
    for size in input.chunks.iter().map(Vec::len).cycle().take(64) {
        if rest.is_empty() {
            break;
        }
        let (piece, after) = rest.split_at((size + 1).min(rest.len()));
        chunks.push(piece.to_vec());
        rest = after;
    }
    chunks.push(rest.to_vec());
    *next.lock().unwrap() = chunks;
    let client = mcp_runtime_client::Client::builder()
        .era(mcp_runtime_client::EraChoice::Version(mcp_core::ProtocolVersion::LATEST))
        .max_message_bytes(FUZZ_LIMIT)
        .http(url)
        .await
        .expect("discovery is not fuzzed");
    let call = tokio::time::timeout(Duration::from_secs(10), client.call("t", json!({}))).await;
    assert!(call.is_ok(), "a call ends whatever its stream holds");
    let pinged = tokio::time::timeout(Duration::from_secs(10), client.ping()).await;
    assert!(matches!(pinged, Ok(Ok(()))), "the client goes on working: {pinged:?}");
}

#[test]
fn any_event_stream_ends_the_call_and_leaves_the_client_working() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let next = NextStream::default();
    let url = runtime.block_on(event_stream_server(next.clone()));
    let iterations = std::env::var("MCP_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    check!()
        .with_type::<StreamInput>()
        .with_iterations(iterations)
        .for_each(|input| runtime.block_on(exercise_stream(&url, &next, input)));
}
