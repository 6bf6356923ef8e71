//! Middleware (`Server::layer`) through the protocol, in both eras: the
//! order layers run in, every kind of request they see, changes to
//! arguments and replies, answering without the handler, `when`, panics,
//! multi-round requests passing through, and the ready layers.

use std::sync::{Arc, Mutex};

use mcp_core::{ElicitAction, ElicitResult, ProtocolVersion};
use mcp_runtime::middleware::{self, ErrorObject, Invocation, Kind, Next, Reply};
use mcp_runtime::prelude::*;
use mcp_runtime::{prompts::GetPromptResult, testing::TestClient};
use serde_json::json;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST];

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Ask a name, then greet.
#[tool]
async fn greet(ctx: Context) -> Result<String, ToolError> {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Name {
        /// Your name
        name: String,
    }
    Ok(match ctx.elicit::<Name>("Who are you?").await? {
        Elicited::Accept(n) => format!("hello {}", n.name),
        _ => "hello nobody".into(),
    })
}

/// Say something.
#[prompt]
fn say(
    /// What
    what: String,
) -> String {
    what
}

/// A note.
#[resource("notes://{id}")]
fn note(id: String) -> String {
    format!("note {id}")
}

/// Fails as prompts do.
#[prompt]
fn broken() -> Result<String, PromptError> {
    Err(PromptError::new("cannot render"))
}

fn server() -> Server {
    Server::empty("m", "1")
        .tool(add::Tool)
        .tool(greet::Tool)
        .prompt(say::Prompt)
        .prompt(broken::Prompt)
        .resource(note::Resource)
}

type Seen = Arc<Mutex<Vec<String>>>;

/// A layer that writes `label kind name` before and `label done` after.
fn recorder(
    label: &'static str,
    seen: Seen,
) -> impl Fn(Invocation, Next) -> std::pin::Pin<Box<dyn Future<Output = Result<Reply, ErrorObject>> + Send>>
+ Clone
+ Send
+ Sync
+ 'static {
    move |invocation: Invocation, next: Next| {
        let seen = seen.clone();
        Box::pin(async move {
            seen.lock().unwrap().push(format!("{label} {:?} {}", invocation.kind(), invocation.name()));
            let reply = next.run(invocation).await;
            seen.lock().unwrap().push(format!("{label} done"));
            reply
        })
    }
}

fn text(result: &CallToolResult) -> &str {
    result.content[0].as_text().unwrap()
}

#[tokio::test]
async fn layers_run_in_the_order_added_around_every_kind_of_handler() {
    for version in ERAS {
        let seen = Seen::default();
        let server = server()
            .layer(middleware::from_fn(recorder("outer", seen.clone())))
            .layer(middleware::from_fn(recorder("inner", seen.clone())));
        let mut client = TestClient::connect_as(server, version).await.unwrap();
        assert_eq!(text(&client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap()), "3");
        let prompt = client.get_prompt("say", &[("what", "hi")]).await.unwrap();
        assert_eq!(prompt.messages.len(), 1);
        client.read_resource("notes://7").await.unwrap();
        assert_eq!(
            seen.lock().unwrap().clone(),
            [
                "outer Tool add",
                "inner Tool add",
                "inner done",
                "outer done",
                "outer Prompt say",
                "inner Prompt say",
                "inner done",
                "outer done",
                "outer Resource notes://7",
                "inner Resource notes://7",
                "inner done",
                "outer done",
            ],
            "{version:?}"
        );
        // Lists are not handler runs: no layer sees them.
        seen.lock().unwrap().clear();
        client.list_tools().await.unwrap();
        assert!(seen.lock().unwrap().is_empty());
    }
}

#[tokio::test]
async fn a_layer_changes_arguments_and_replies_or_answers_itself() {
    let rewrite = middleware::from_fn(|mut invocation: Invocation, next: Next| async move {
        if invocation.kind() == Kind::Tool && invocation.argument("a") == Some(&json!(100)) {
            // Answer without the handler.
            return Ok(Reply::Tool(CallToolResult::success(vec![Content::text("cached")])));
        }
        if invocation.argument("b") == Some(&json!(0)) {
            invocation.arguments_mut().insert("b".into(), json!(10));
        }
        match next.run(invocation).await? {
            Reply::Tool(mut result) => {
                let checked = format!("{} (checked)", text(&result));
                result.content = vec![Content::text(checked)];
                Ok(Reply::Tool(result))
            }
            other => Ok(other),
        }
    });
    for version in ERAS {
        let mut client = TestClient::connect_as(server().layer(rewrite.clone()), version).await.unwrap();
        assert_eq!(text(&client.call_tool("add", json!({"a": 1, "b": 0})).await.unwrap()), "11 (checked)");
        assert_eq!(text(&client.call_tool("add", json!({"a": 100, "b": 1})).await.unwrap()), "cached");
    }
}

#[tokio::test]
async fn a_refusal_is_a_protocol_error_and_when_picks_what_a_layer_applies_to() {
    let refuse = middleware::from_fn(|_: Invocation, _: Next| async { Err(ErrorObject::invalid_params("read-only")) });
    let only_add = middleware::when(|i: &Invocation| i.kind() == Kind::Tool && i.name() == "add", refuse);
    for version in ERAS {
        let mut client = TestClient::connect_as(server().layer(only_add.clone()), version).await.unwrap();
        let refused = client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap_err();
        assert_eq!((refused.code, refused.message.as_str()), (-32602, "invalid params: read-only"));
        // Everything else goes straight on.
        assert_eq!(client.get_prompt("say", &[("what", "x")]).await.unwrap().messages.len(), 1);
    }
}

#[tokio::test]
async fn a_panicking_layer_is_masked_and_the_connection_goes_on() {
    let panics = middleware::from_fn(|invocation: Invocation, next: Next| async move {
        assert!(invocation.name() != "say", "layer exploded at /srv/secret");
        next.run(invocation).await
    });
    for version in ERAS {
        let server = server().layer(panics.clone()).show_internal_errors(false);
        let mut client = TestClient::connect_as(server, version).await.unwrap();
        let error = client.get_prompt("say", &[("what", "x")]).await.unwrap_err();
        assert_eq!(error.code, -32603);
        assert!(error.message.starts_with("internal error (incident "), "{}", error.message);
        assert!(!error.message.contains("secret"));
        assert_eq!(text(&client.call_tool("add", json!({"a": 2, "b": 2})).await.unwrap()), "4");
    }
}

#[tokio::test]
async fn a_reply_of_the_wrong_kind_is_an_internal_error() {
    let wrong = middleware::from_fn(|_: Invocation, _: Next| async {
        Ok(Reply::Prompt(GetPromptResult { description: None, messages: vec![], meta: None }))
    });
    let mut client = TestClient::connect(server().layer(wrong).show_internal_errors(true)).await.unwrap();
    let error = client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap_err();
    assert_eq!(error.code, -32603);
    assert!(error.message.contains("answered a tools/call request with a prompts/get reply"), "{}", error.message);
}

#[tokio::test]
async fn multi_round_requests_pass_through_layers_in_both_eras() {
    for version in ERAS {
        let seen = Seen::default();
        let server = server().layer(middleware::from_fn(recorder("layer", seen.clone())));
        let mut client = TestClient::builder(server)
            .version(version)
            .on_elicit(|_| ElicitResult {
                action: ElicitAction::Accept,
                content: json!({"name": "Ada"}).as_object().cloned(),
            })
            .connect()
            .await
            .unwrap();
        assert_eq!(text(&client.call_tool("greet", json!({})).await.unwrap()), "hello Ada", "{version:?}");
        // 2026-07-28 runs the handler twice: once to ask, once with the answer.
        let runs = if version.uses_handshake() { 1 } else { 2 };
        assert_eq!(seen.lock().unwrap().iter().filter(|s| s.as_str() == "layer Tool greet").count(), runs);
    }
}

#[tokio::test]
async fn map_failure_translates_protocol_errors_and_leaves_replies_alone() {
    let translate = middleware::map_failure(|error: ErrorObject, kind, name: &str| ErrorObject {
        message: format!("{kind:?} {name}: {} (see the manual)", error.message),
        ..error
    });
    for version in ERAS {
        let mut client = TestClient::connect_as(server().layer(translate.clone()), version).await.unwrap();
        let error = client.get_prompt("broken", &[]).await.unwrap_err();
        assert_eq!(error.message, "Prompt broken: cannot render (see the manual)");
        assert_eq!(text(&client.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap()), "2");
    }
}

#[tokio::test]
async fn the_logging_layer_logs_each_request_with_its_time_and_outcome() {
    let (captured, _guard) = crate::common::log::Captured::install();
    let mut client = TestClient::connect(server().layer(middleware::Logging::default())).await.unwrap();
    client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap();
    client.get_prompt("broken", &[]).await.unwrap_err();
    let log = captured.text();
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("request handled")).collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].contains("method=\"tools/call\"") && lines[0].contains("name=\"add\""), "{}", lines[0]);
    assert!(lines[0].contains("elapsed_ms=") && lines[0].contains("outcome=\"ok\""), "{}", lines[0]);
    assert!(lines[1].contains("outcome=\"error -32602: cannot render\""), "{}", lines[1]);
    // Milliseconds to the microsecond, without a float's rounding noise.
    for line in &lines {
        let elapsed = line.split("elapsed_ms=").nth(1).and_then(|rest| rest.split(' ').next()).unwrap();
        let decimals = elapsed.split_once('.').map_or(0, |(_, fraction)| fraction.len());
        assert!(elapsed.parse::<f64>().is_ok() && decimals <= 3, "{line}");
    }
    // Arguments stay out of the log.
    assert!(!lines[0].contains("\"a\""), "{}", lines[0]);
}

/// The `middleware` example, started with `args`: stdin and stdout are
/// the protocol's, stderr's lines arrive on the returned channel.
fn start_example(args: &[&str]) -> (tokio::process::Child, tokio::sync::mpsc::UnboundedReceiver<String>) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(crate::common::example("middleware"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let (lines, received) = tokio::sync::mpsc::unbounded_channel();
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Ok(Some(line)) = stderr.next_line().await {
            let _ = lines.send(line);
        }
    });
    (child, received)
}

/// Every line that has arrived on `lines` so far.
fn drain(lines: &mut tokio::sync::mpsc::UnboundedReceiver<String>) -> Vec<String> {
    std::iter::from_fn(|| lines.try_recv().ok()).collect()
}

#[tokio::test]
async fn the_example_audits_caches_and_refuses_over_stdio() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (mut child, mut stderr) = start_example(&[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut id = 0;
    let mut request = async |method: &str, params: serde_json::Value| {
        id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string() + "\n";
        stdin.write_all(line.as_bytes()).await.unwrap();
        if method == "initialize" {
            stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await.unwrap();
        }
        let answer: serde_json::Value = serde_json::from_str(&stdout.next_line().await.unwrap().unwrap()).unwrap();
        answer
    };
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    request("initialize", init).await;
    let call = |name: &str, arguments: serde_json::Value| json!({"name": name, "arguments": arguments});
    let first = request("tools/call", call("price", json!({"item": "apple"}))).await;
    let second = request("tools/call", call("price", json!({"item": "apple"}))).await;
    assert_eq!(first["result"], second["result"]);
    let restocked = request("tools/call", call("restock", json!({"item": "apple", "count": 2}))).await;
    assert_eq!(restocked["result"]["content"][0]["text"], "apple: 5 in stock");
    let third = request("tools/call", call("price", json!({"item": "apple"}))).await;
    assert_eq!(third["result"], first["result"]);
    drop(stdin);
    child.wait().await.unwrap();
    let lines = drain(&mut stderr);
    let asked = lines.iter().filter(|l| l.contains("asking the supplier for the price of apple")).count();
    // Once for the first call, once more after the restock emptied the cache.
    assert_eq!(asked, 2, "{lines:#?}");
    let audited: Vec<&String> = lines.iter().filter(|l| l.starts_with("audit: tools/call")).collect();
    assert_eq!(audited.len(), 4, "{lines:#?}");
    assert!(audited[2].contains("restock {\"item\":\"apple\",\"count\":2} -> ok"), "{}", audited[2]);
}

#[tokio::test]
async fn the_example_is_read_only_over_http_in_both_eras() {
    let (_child, mut stderr) = start_example(&["--read-only", "--http", "127.0.0.1:0"]);
    let url = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        loop {
            let line = stderr.recv().await.expect("the example says where it listens");
            if let Some((_, url)) = line.split_once("serving MCP over Streamable HTTP at ") {
                return url.to_owned();
            }
        }
    })
    .await
    .unwrap();
    // A session of the handshake era.
    let mut session = crate::common::http::Client::new(&url);
    session.initialize().await;
    let refused = session.call("restock", json!({"item": "pear", "count": 1})).await;
    assert_eq!(refused.last()["error"]["code"], -32602, "{refused:?}");
    let counted = session.call("count", json!({"item": "apple"})).await;
    assert_eq!(counted.last()["result"]["content"][0]["text"], "3", "{counted:?}");
    // 2026-07-28: each request on its own.
    let stateless = crate::common::http::Client::new(&url);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let message = |id: u32, name: &str, arguments: serde_json::Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}})
    };
    let refused = stateless.message(&message(1, "restock", json!({"item": "pear", "count": 1}))).await;
    let error = &refused.last()["error"];
    assert_eq!(error["message"], "invalid params: `restock` changes stock, and this server is read-only");
    let counted = stateless.message(&message(2, "count", json!({"item": "pear"}))).await;
    assert_eq!(counted.last()["result"]["content"][0]["text"], "0", "{counted:?}");
    let lines = drain(&mut stderr);
    assert!(
        lines.iter().any(|l| l == "audit: tools/call restock {\"item\":\"pear\",\"count\":1} -> refused"),
        "{lines:#?}"
    );
}

/// Search the web.
#[tool]
fn search(
    /// The query
    query: String,
    /// Which engine
    engine: String,
    /// How many results
    limit: Option<u32>,
) -> String {
    format!("{} results for {query} on {engine}", limit.unwrap_or(10))
}

#[tokio::test]
async fn a_transformed_tool_is_listed_and_called_as_its_new_self() {
    for version in ERAS {
        let server = Server::empty("t", "1").tool(docs_search());
        let mut client = TestClient::connect_as(server, version).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.len(), 1);
        let tool = &tools[0];
        assert_eq!(tool.name, "search_docs");
        assert_eq!(tool.description.as_deref(), Some("Search the documentation."));
        let properties = tool.input_schema["properties"].as_object().unwrap();
        assert_eq!(properties.keys().collect::<Vec<_>>(), ["question", "limit"]);
        assert_eq!(properties["question"]["description"], "What to look for");
        assert_eq!(tool.input_schema["required"], json!(["question"]));
        let answered = client.call_tool("search_docs", json!({"question": "layers", "limit": 3})).await.unwrap();
        assert_eq!(text(&answered), "3 results for layers on docs");
        // A fixed argument sent anyway is replaced.
        let sent_anyway = client.call_tool("search_docs", json!({"question": "x", "engine": "web"})).await.unwrap();
        assert_eq!(text(&sent_anyway), "10 results for x on docs");
        let missing = client.call_tool("search_docs", json!({})).await.unwrap();
        assert_eq!(text(&missing), "argument `question`: required but not sent");
    }
}

/// `search`, shown as a search of the documentation only.
fn docs_search() -> middleware::Transform<search::Tool> {
    middleware::Transform::new(search::Tool)
        .name("search_docs")
        .description("Search the documentation.")
        .rename_argument("query", "question")
        .describe_argument("question", "What to look for")
        .fix("engine", json!("docs"))
}

/// How many times `counted` ran.
struct Reads(std::sync::atomic::AtomicUsize);

/// A resource that says how often it was read.
#[resource("counted://{name}")]
fn counted(name: String, reads: State<Reads>) -> String {
    let n = reads.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    format!("{name} read {n} times")
}

fn counted_server(cache: middleware::Cache) -> Server {
    Server::empty("c", "1").resource(counted::Resource).with_state(Reads(0.into())).layer(cache)
}

async fn read(client: &mut TestClient, uri: &str) -> String {
    let result = client.read_resource(uri).await.unwrap();
    serde_json::to_value(&result.contents[0]).unwrap()["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_cache_answers_repeated_reads_until_a_change_is_announced() {
    use std::time::Duration;
    for version in ERAS {
        let server = counted_server(middleware::Cache::new(10, Duration::from_secs(3600)));
        let resources = server.resources_handle();
        let mut client = TestClient::connect_as(server, version).await.unwrap();
        assert_eq!(read(&mut client, "counted://a").await, "a read 1 times");
        assert_eq!(read(&mut client, "counted://a").await, "a read 1 times", "{version:?}: kept");
        assert_eq!(read(&mut client, "counted://b").await, "b read 2 times");
        resources.updated("counted://b");
        assert_eq!(read(&mut client, "counted://a").await, "a read 3 times", "{version:?}: a change empties it");
        assert_eq!(read(&mut client, "counted://a").await, "a read 3 times");
    }
}

#[tokio::test]
async fn the_cache_is_bounded_and_expires() {
    use std::time::Duration;
    let mut client =
        TestClient::connect(counted_server(middleware::Cache::new(1, Duration::from_secs(3600)))).await.unwrap();
    assert_eq!(read(&mut client, "counted://a").await, "a read 1 times");
    assert_eq!(read(&mut client, "counted://b").await, "b read 2 times");
    // Room for one: `b` pushed `a` out.
    assert_eq!(read(&mut client, "counted://a").await, "a read 3 times");
    let mut client = TestClient::connect(counted_server(middleware::Cache::new(10, Duration::ZERO))).await.unwrap();
    assert_eq!(read(&mut client, "counted://a").await, "a read 1 times");
    assert_eq!(read(&mut client, "counted://a").await, "a read 2 times", "nothing outlives a zero TTL");
    // Only the kinds it caches.
    let tools = counted_server(middleware::Cache::new(10, Duration::from_secs(3600)).kinds([Kind::Tool]));
    let mut client = TestClient::connect(tools).await.unwrap();
    assert_eq!(read(&mut client, "counted://a").await, "a read 1 times");
    assert_eq!(read(&mut client, "counted://a").await, "a read 2 times");
}

#[tokio::test]
async fn throttle_limits_each_name_and_only_the_kinds_it_limits() {
    use mcp_runtime::tools::RateLimit;
    use std::time::Duration;
    let limit = RateLimit::new(2, Duration::from_secs(3600));
    let throttle = middleware::Throttle::per_client(limit).unwrap().per_name();
    let mut first = TestClient::connect(server_with(throttle)).await.unwrap();
    for _ in 0..2 {
        assert_eq!(text(&first.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap()), "2");
    }
    let refused = first.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).starts_with("tool `add` is rate limited to 2 calls per hour; retry in "),
        "{}",
        text(&refused)
    );
    // Another name has its own allowance.
    assert_eq!(first.get_prompt("say", &[("what", "x")]).await.unwrap().messages.len(), 1);
    // Only the kinds it limits.
    let prompts_only = middleware::Throttle::per_client(limit).unwrap().kinds([Kind::Prompt]);
    let mut client = TestClient::connect(server_with(prompts_only)).await.unwrap();
    for _ in 0..3 {
        client.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap();
    }
    client.get_prompt("say", &[("what", "x")]).await.unwrap();
    client.get_prompt("say", &[("what", "x")]).await.unwrap();
    let refused = client.get_prompt("say", &[("what", "x")]).await.unwrap_err();
    assert_eq!(refused.code, -32600);
    assert!(refused.message.starts_with("prompt `say` is rate limited"), "{}", refused.message);
}

#[tokio::test]
async fn throttle_gives_each_client_an_allowance_of_its_own() {
    use mcp_runtime::tools::RateLimit;
    use std::time::Duration;
    // One throttle (one shared limiter) in front of two connections.
    let throttle = middleware::Throttle::per_client(RateLimit::new(2, Duration::from_secs(3600))).unwrap();
    let mut first = TestClient::connect(server_with(throttle.clone())).await.unwrap();
    let mut second = TestClient::connect(server_with(throttle)).await.unwrap();
    for _ in 0..2 {
        assert_eq!(text(&first.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap()), "2");
    }
    assert_eq!(first.call_tool("add", json!({"a": 1, "b": 1})).await.unwrap().is_error, Some(true));
    // The first client spent its allowance; the second still has all of it.
    for _ in 0..2 {
        assert_eq!(text(&second.call_tool("add", json!({"a": 2, "b": 2})).await.unwrap()), "4");
    }
    assert_eq!(second.call_tool("add", json!({"a": 2, "b": 2})).await.unwrap().is_error, Some(true));
}

fn server_with(throttle: middleware::Throttle) -> Server {
    server().layer(throttle)
}
