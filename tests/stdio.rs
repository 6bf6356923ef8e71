//! End to end over real pipes: spawn the built example servers and speak
//! JSON-RPC to them as a client would, checking every line they print.

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Process {
    fn spawn(path: &Path) -> Process {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {}: {e}", path.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Process { child, stdin, stdout }
    }

    async fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        stdin.flush().await.unwrap();
    }

    async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    /// The next stdout line, which must be a JSON-RPC 2.0 message.
    async fn recv(&mut self) -> Option<Value> {
        let line =
            tokio::time::timeout(TIMEOUT, self.stdout.next_line()).await.expect("the server answered").unwrap()?;
        let value: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line:?}"));
        assert_eq!(value["jsonrpc"], "2.0", "stdout carried a non-JSON-RPC message: {line}");
        Some(value)
    }

    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        let response = self.recv().await.expect("a response");
        assert_eq!(response["id"], id, "{response}");
        response
    }

    async fn initialize(&mut self) -> Value {
        let params = json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "stdio-test", "version": "0"}});
        let response = self.request(0, "initialize", params).await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        response["result"].clone()
    }

    /// Close stdin; return what is left on stdout, the exit code and stderr.
    async fn finish(mut self) -> (Vec<Value>, i32, String) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Some(message) = self.recv().await {
            rest.push(message);
        }
        let status = tokio::time::timeout(TIMEOUT, self.child.wait()).await.expect("the server exited").unwrap();
        let mut stderr = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut stderr).await.unwrap();
        (rest, status.code().expect("an exit code"), stderr)
    }
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {response}"))
}

#[tokio::test]
async fn calculator_example_serves_a_client_over_stdio() {
    let mut server = Process::spawn(&crate::common::example("calculator"));
    let init = server.initialize().await;
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "calculator");
    assert_eq!(init["capabilities"]["tools"], json!({"listChanged": true}));

    let list = server.request(1, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["calculator", "text_analyzer"]);
    let calculator = &tools[0];
    assert_eq!(calculator["description"], "Perform basic arithmetic on two numbers.");
    assert_eq!(
        calculator["inputSchema"],
        json!({"type": "object", "properties": {
            "operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"],
                          "description": "Which operation to apply"},
            "a": {"type": "number", "description": "The first operand"},
            "b": {"type": "number", "description": "The second operand"}
        }, "required": ["operation", "a", "b"]})
    );
    assert_eq!(tools[1]["inputSchema"]["properties"]["text"]["description"], "The text to analyze");

    let call = |id, name: &str, arguments: Value| (id, json!({"name": name, "arguments": arguments}));
    for (op, expected) in [("add", "result: 8"), ("subtract", "result: -2"), ("multiply", "result: 15")] {
        let (id, params) = call(2, "calculator", json!({"operation": op, "a": 3, "b": 5}));
        assert_eq!(text(&server.request(id, "tools/call", params).await), expected);
    }
    let (id, params) = call(3, "calculator", json!({"operation": "divide", "a": 1, "b": 4}));
    assert_eq!(text(&server.request(id, "tools/call", params).await), "result: 0.25");

    let (id, params) = call(4, "calculator", json!({"operation": "divide", "a": 1, "b": 0}));
    let response = server.request(id, "tools/call", params).await;
    assert_eq!(response["result"]["isError"], true);
    assert!(text(&response).contains("divide by zero"), "{response}");

    let sample = "Grüße, мир 🌍\n\tand  more";
    let (id, params) = call(5, "text_analyzer", json!({"text": sample}));
    // 23 Unicode scalar values in 31 bytes: characters are not bytes.
    assert_eq!((sample.chars().count(), sample.len()), (23, 31));
    assert_eq!(text(&server.request(id, "tools/call", params).await), "characters: 23\nwords: 5");

    let (id, params) = call(6, "no_such_tool", json!({}));
    let response = server.request(id, "tools/call", params).await;
    assert_eq!(response["error"]["code"], -32602);

    server.send_line("this is not json").await;
    let response = server.recv().await.unwrap();
    assert_eq!((response["error"]["code"].clone(), response["id"].clone()), (json!(-32700), Value::Null));
    let (id, params) = call(7, "calculator", json!({"operation": "add", "a": 1, "b": 1}));
    assert_eq!(text(&server.request(id, "tools/call", params).await), "result: 2");

    // A notification gets no reply: the next line answers the ping.
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})).await;
    assert_eq!(server.request(8, "ping", json!({})).await["result"], json!({}));

    let (rest, code, stderr) = server.finish().await;
    assert!(rest.is_empty(), "unexpected messages: {rest:?}");
    assert_eq!(code, 0, "stderr: {stderr}");
    assert!(stderr.contains("serving MCP over stdio"), "logs go to stderr: {stderr}");
}

#[tokio::test]
async fn sixty_four_requests_in_flight_are_all_answered_even_after_eof() {
    let mut server = Process::spawn(&crate::common::example("calculator"));
    server.initialize().await;
    let mut batch = String::new();
    for id in 1..=64 {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "calculator", "arguments": {"operation": "multiply", "a": id, "b": 2}}});
        batch.push_str(&request.to_string());
        batch.push('\n');
    }
    // All 64 at once, then EOF at once: every call must still be answered.
    server.send_line(batch.trim_end()).await;
    let (responses, code, stderr) = server.finish().await;
    assert_eq!(code, 0, "stderr: {stderr}");
    assert_eq!(responses.len(), 64);
    let mut seen = HashSet::new();
    for response in &responses {
        let id = response["id"].as_i64().unwrap();
        assert!(seen.insert(id), "id {id} answered twice");
        assert_eq!(text(response), format!("result: {}", id * 2), "response for id {id}");
    }
    assert_eq!(seen, (1..=64).collect());
}

#[tokio::test]
async fn the_smallest_server_runs_on_its_own_runtime() {
    let mut server = Process::spawn(&crate::common::example("adder"));
    server.initialize().await;
    let list = server.request(1, "tools/list", json!({})).await;
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "negate"]);
    let add = server.request(2, "tools/call", json!({"name": "add", "arguments": {"a": 0.5, "b": 2}})).await;
    assert_eq!(text(&add), "2.5");
    let negate = server.request(3, "tools/call", json!({"name": "negate", "arguments": {"x": 4}})).await;
    assert_eq!(text(&negate), "-4");
    let (rest, code, stderr) = server.finish().await;
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(code, 0, "stderr: {stderr}");
}

#[tokio::test]
async fn the_toolbox_example_returns_structured_output_images_and_refusals() {
    let mut server = Process::spawn(&crate::common::example("toolbox"));
    server.initialize().await;
    let list = server.request(1, "tools/list", json!({})).await;
    let stats = list["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "stats").unwrap().clone();
    assert_eq!(stats["outputSchema"]["required"], json!(["count", "min", "max", "mean"]));
    let result = server.request(2, "tools/call", json!({"name": "stats", "arguments": {"values": [1, 2, 6]}})).await;
    assert_eq!(result["result"]["structuredContent"], json!({"count": 3, "min": 1.0, "max": 6.0, "mean": 3.0}));
    let chart = json!({"name": "chart", "arguments": {"request": {"bars": [{"height": 50}]}}});
    let result = server.request(3, "tools/call", chart).await;
    assert_eq!(result["result"]["content"][0]["mimeType"], "image/svg+xml");
    let bad = json!({"name": "chart", "arguments": {"request": {"bars": [{"height": 101}]}}});
    let result = server.request(4, "tools/call", bad).await;
    assert_eq!(text(&result), "argument `request.bars[0].height`: must be at most 100.0, got the number 101");
    for id in 5..10 {
        let result = server.request(id, "tools/call", json!({"name": "define", "arguments": {"word": "tool"}})).await;
        assert_eq!(text(&result), "a device that helps do a task");
    }
    let result = server.request(10, "tools/call", json!({"name": "define", "arguments": {"word": "tool"}})).await;
    assert!(text(&result).starts_with("tool `define` is rate limited to 5 calls per minute"), "{result}");
    let (rest, code, stderr) = server.finish().await;
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(code, 0, "stderr: {stderr}");
}

#[tokio::test]
async fn the_long_task_example_reports_progress_and_stops_when_cancelled() {
    let mut server = Process::spawn(&crate::common::example("long_task"));
    server.initialize().await;
    let params = json!({"name": "process", "arguments": {"items": 100}, "_meta": {"progressToken": 7}});
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})).await;
    let mut progress = Vec::new();
    while progress.len() < 2 {
        let message = server.recv().await.expect("notifications while the task runs");
        match message["method"].as_str() {
            Some("notifications/progress") => progress.push(message["params"]["progress"].as_f64().unwrap()),
            Some("notifications/message") => assert_eq!(message["params"]["data"], "processing 100 items"),
            _ => panic!("unexpected {message}"),
        }
    }
    assert_eq!(progress, [1.0, 2.0]);
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})).await;
    // Whatever was already on its way may arrive; the cancelled call itself
    // never answers, and the server exits as soon as stdin closes.
    let (rest, code, stderr) = server.finish().await;
    assert!(rest.iter().all(|m| m.get("id").is_none()), "{rest:?}");
    assert!(rest.len() < 5, "the task went on after it was cancelled: {rest:?}");
    assert_eq!(code, 0, "stderr: {stderr}");
}

#[tokio::test]
async fn run_stdio_inside_a_runtime_is_an_error_not_a_panic() {
    let err = mcp_runtime::Server::empty("s", "1").run_stdio().unwrap_err();
    assert!(matches!(err, mcp_runtime::Error::Runtime(_)), "{err}");
    assert!(err.to_string().starts_with("cannot start the async runtime: "), "{err}");
    assert!(err.to_string().contains("use `serve_stdio().await`"), "{err}");
}

#[tokio::test]
async fn stray_stdout_writes_never_reach_the_protocol_stream() {
    let mut server = Process::spawn(Path::new(env!("CARGO_BIN_EXE_noisy-server")));
    server.initialize().await;
    let params = json!({"name": "noisy", "arguments": {"word": "boo"}});
    let response = server.request(1, "tools/call", params).await;
    assert_eq!(text(&response), "said boo (child ran: true)");
    assert_eq!(server.request(2, "ping", json!({})).await["result"], json!({}));
    let (rest, code, stderr) = server.finish().await;
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(code, 0);
    let strays =
        ["stray println from a tool: boo", "stray output of a child process", "a partial line without newline"];
    for stray in strays {
        assert!(stderr.contains(stray), "{stray:?} should have gone to stderr: {stderr}");
    }
}

#[tokio::test]
async fn the_counter_refuses_to_overflow_and_keeps_its_value() {
    let mut server = Process::spawn(&crate::common::example("counter"));
    server.initialize().await;
    let call = |id, by: i64| (id, "tools/call", json!({"name": "increment", "arguments": {"by": by}}));
    let (id, method, params) = call(1, i64::MAX);
    let first = server.request(id, method, params).await;
    assert_eq!(text(&first), i64::MAX.to_string());
    let (id, method, params) = call(2, i64::MAX);
    let second = server.request(id, method, params).await;
    assert_eq!(second["result"]["isError"], true, "{second}");
    assert!(text(&second).contains("would overflow"), "{second}");
    let current = server.request(3, "tools/call", json!({"name": "current", "arguments": {}})).await;
    assert_eq!(text(&current), i64::MAX.to_string(), "the refused call changed nothing");
    let (_, status, _) = server.finish().await;
    assert_eq!(status, 0);
}

#[tokio::test]
async fn a_client_that_closes_our_output_ends_the_server_cleanly() {
    let mut server = Process::spawn(&crate::common::example("calculator"));
    server.initialize().await;
    // Close the read end of the server's stdout, keep its stdin open, and
    // ask for something: the answer cannot be written, and the server ends
    // at once (not when stdin closes), with success.
    let Process { mut child, stdin, stdout } = server;
    drop(stdout);
    let mut stdin = stdin.unwrap();
    let ask = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
    // The first write may still land in the pipe; keep asking until the
    // server notices (each answer it writes fails).
    let exited = tokio::time::timeout(TIMEOUT, async {
        loop {
            let _ = stdin.write_all(format!("{ask}\n").as_bytes()).await;
            let _ = stdin.flush().await;
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the server noticed its output was closed while its input stayed open");
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).await.unwrap();
    assert_eq!(exited.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
    drop(stdin);
}

/// The tools an example lists, as a 2025-06-18 client receives them.
async fn listed_tools(example: &str) -> Vec<mcp_runtime::protocol::Tool> {
    let mut server = Process::spawn(&crate::common::example(example));
    server.initialize().await;
    let list = server.request(1, "tools/list", json!({})).await;
    let tools = serde_json::from_value(list["result"]["tools"].clone()).expect("tools/list lists tools");
    let (_, code, stderr) = server.finish().await;
    assert_eq!(code, 0, "stderr: {stderr}");
    tools
}

#[tokio::test]
async fn the_calculator_and_toolbox_examples_are_clear_for_every_client() {
    use mcp_runtime::clients::KnownClient;

    mcp_runtime::clients::ClientReport::for_tools(&listed_tools("calculator").await).assert_clear();
    let toolbox = mcp_runtime::clients::ClientReport::for_tools(&listed_tools("toolbox").await);
    // `stats` declares an output schema, which Claude Desktop has greyed out.
    let others: Vec<KnownClient> = KnownClient::ALL.into_iter().filter(|c| *c != KnownClient::ClaudeDesktop).collect();
    toolbox.assert_clear_for(&others);
    let desktop: Vec<(&str, &str)> =
        toolbox.problems_for(KnownClient::ClaudeDesktop).iter().map(|p| (p.item.as_str(), p.path.as_str())).collect();
    assert_eq!(desktop, [("tool stats", "outputSchema")], "{toolbox}");
}
