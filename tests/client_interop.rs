//! The client crate against servers no one here wrote: the official Python
//! SDK's (tests/python/server.py, with mcp 2.x and 1.x) and TypeScript
//! SDK's (tests/ts/server.mjs), each over stdio and Streamable HTTP, in
//! every era the server speaks, forced and chosen by `EraChoice::Auto`.
//!
//! Ignored unless asked for: `.ci/server-interop` installs the SDKs and runs
//! `cargo test -p mcp-tests --test suite client_interop -- --ignored` with
//! - `MCP_INTEROP_PYTHON`: a Python with mcp 2.x (2026-07-28 and handshake),
//! - `MCP_INTEROP_PYTHON_V1`: a Python with mcp 1.x (handshake only),
//! - `MCP_INTEROP_NODE`: a Node.js, with `NODE_PATH` naming the
//!   node_modules that hold `@modelcontextprotocol/sdk` 1.x (handshake only).
//!
//! Every feature's assertion is about what came back from the other
//! implementation: the server's tools compute from our arguments, its
//! questions reach our closures and their answers come back in the tool's
//! result, its log messages are filtered by the level we asked for, and a
//! subscription hears the update a tool call triggers.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use mcp_core::{
    CompleteRef, CreateMessageResult, ElicitAction, ElicitResult, LoggingLevel, ProtocolVersion, Role, Root,
    SamplingContent, methods,
};
use mcp_runtime_client::{Client, ClientBuilder, Era, EraChoice, Error, Stderr};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// One of the servers under test: how to start it, and what it speaks.
struct Server {
    label: &'static str,
    program: String,
    script: PathBuf,
    /// The name it gives in its server info.
    name: &'static str,
    /// Whether it serves 2026-07-28 (`server/discover`).
    stateless: bool,
}

impl Server {
    fn from_env(var: &str, label: &'static str, script: &str, name: &'static str, stateless: bool) -> Server {
        let program = std::env::var(var).unwrap_or_else(|_| {
            panic!("{var} is not set: run .ci/server-interop, which installs the SDKs and sets it")
        });
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(script);
        Server { label, program, script, name, stateless }
    }

    /// The eras to connect in: each version the server speaks, forced, and
    /// `Auto`, with the era `Auto` must land on.
    fn eras(&self) -> Vec<(EraChoice, ProtocolVersion)> {
        let mut eras = vec![(EraChoice::Version(ProtocolVersion::LATEST_HANDSHAKE), ProtocolVersion::LATEST_HANDSHAKE)];
        if self.stateless {
            eras.push((EraChoice::Version(ProtocolVersion::LATEST), ProtocolVersion::LATEST));
            eras.push((EraChoice::Auto, ProtocolVersion::LATEST));
        } else {
            eras.push((EraChoice::Auto, ProtocolVersion::LATEST_HANDSHAKE));
        }
        eras
    }

    /// Start it over Streamable HTTP; it says where it listens on stderr.
    async fn serve_http(&self) -> (tokio::process::Child, String) {
        let mut child = tokio::process::Command::new(&self.program)
            .arg(&self.script)
            .arg("http")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("{}: starting {}: {e}", self.label, self.program));
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.unwrap() {
                eprintln!("[{} http] {line}", self.label);
                if let Some(url) = line.strip_prefix("listening at ") {
                    return url.trim().to_owned();
                }
            }
            panic!("{}: the HTTP server exited before it listened", self.label)
        })
        .await
        .unwrap_or_else(|_| panic!("{}: the HTTP server never said where it listens", self.label));
        // Keep reading its log, so a full pipe never stalls it.
        let label = self.label;
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("[{label} http] {line}");
            }
        });
        (child, url)
    }
}

/// How many times each of the server's questions reached our closures.
#[derive(Default)]
struct Asked {
    elicitations: AtomicUsize,
    samplings: AtomicUsize,
}

fn builder(era: EraChoice, asked: &Arc<Asked>) -> ClientBuilder {
    let (on_elicit, on_sample) = (asked.clone(), asked.clone());
    Client::builder()
        .name("interop-driver", "1")
        .era(era)
        .timeout(Duration::from_secs(20))
        .on_elicitation(move |params| {
            let asked = on_elicit.clone();
            async move {
                asked.elicitations.fetch_add(1, Ordering::SeqCst);
                assert_eq!(params.message, "Which day?");
                let schema = params.requested_schema.expect("a form elicitation has a schema");
                assert!(schema["properties"].get("day").is_some(), "{schema:?}");
                Ok(ElicitResult {
                    action: ElicitAction::Accept,
                    content: json!({"day": "friday"}).as_object().cloned(),
                })
            }
        })
        .on_sampling(move |params| {
            let asked = on_sample.clone();
            async move {
                asked.samplings.fetch_add(1, Ordering::SeqCst);
                let asked_for = serde_json::to_value(&params.messages).unwrap();
                assert_eq!(asked_for[0]["content"]["text"], "Write a haiku about Rust", "{asked_for}");
                Ok(CreateMessageResult {
                    role: Role::Assistant,
                    content: vec![SamplingContent::text("crab shell, borrowed bright")],
                    model: "driver-model".into(),
                    stop_reason: Some("endTurn".into()),
                })
            }
        })
        .roots(vec![Root { uri: "file:///work/interop".into(), name: Some("work".into()), meta: None }])
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Split {
    words: Vec<String>,
    first: Option<String>,
}

fn text(result: &mcp_core::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("\n")
}

/// Every feature, against one connection.
async fn exercise(client: &Client, server: &Server, version: ProtocolVersion, asked: &Asked, at: &str) {
    let negotiated = client.negotiated();
    assert_eq!(negotiated.version, version.as_str(), "{at}");
    let era = if version.uses_handshake() { Era::Handshake } else { Era::Stateless };
    assert_eq!(negotiated.era, era, "{at}");
    assert_eq!(negotiated.server_info.as_ref().map(|i| i.name.as_str()), Some(server.name), "{at}");
    assert_eq!(negotiated.instructions.as_deref(), Some("A server for interop tests."), "{at}");

    // Tools: the list, a number (structured as `{"result": …}`), an object
    // with its output schema, and a call with wrong arguments.
    let tools = client.list_tools().await.unwrap_or_else(|e| panic!("{at}: tools/list: {e}"));
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["add", "book", "chatter", "haiku", "roots", "split", "touch"], "{at}");
    let split_tool = tools.iter().find(|t| t.name == "split").unwrap();
    let output = serde_json::to_value(&split_tool.output_schema).unwrap();
    assert!(output["properties"]["words"].is_object(), "{at}: split's output schema: {output}");

    let sum: f64 = client.call_structured("add", json!({"a": 2, "b": 3.5})).await.unwrap();
    assert_eq!(sum, 5.5, "{at}");
    let result = client.call("split", json!({"text": "borrow check  me"})).await.unwrap();
    assert!(result.structured_content.is_some(), "{at}: {result:?}");
    let split: Split = client.call_structured("split", json!({"text": "borrow check  me"})).await.unwrap();
    assert_eq!(
        split,
        Split { words: vec!["borrow".into(), "check".into(), "me".into()], first: Some("borrow".into()) }
    );
    let wrong = client.call_structured::<f64>("add", json!({"a": "two"})).await;
    assert!(matches!(wrong, Err(Error::Tool(_) | Error::Server(_))), "{at}: {wrong:?}");

    // The server's questions, answered by the closures; their answers
    // show in the tools' results.
    let (elicited, sampled) = (asked.elicitations.load(Ordering::SeqCst), asked.samplings.load(Ordering::SeqCst));
    let booked = client.call("book", json!({})).await.unwrap_or_else(|e| panic!("{at}: book: {e}"));
    assert_eq!(text(&booked), "booked for friday", "{at}: {booked:?}");
    assert_eq!(asked.elicitations.load(Ordering::SeqCst), elicited + 1, "{at}: asked once");
    let haiku = client.call("haiku", json!({})).await.unwrap_or_else(|e| panic!("{at}: haiku: {e}"));
    assert_eq!(text(&haiku), "driver-model wrote: crab shell, borrowed bright", "{at}: {haiku:?}");
    assert_eq!(asked.samplings.load(Ordering::SeqCst), sampled + 1, "{at}: sampled once");
    let roots = client.call("roots", json!({})).await.unwrap_or_else(|e| panic!("{at}: roots: {e}"));
    assert_eq!(text(&roots), "work=file:///work/interop", "{at}: {roots:?}");

    // Resources: the list, a read, the templates, a read through one.
    let resources = client.list_resources().await.unwrap_or_else(|e| panic!("{at}: resources/list: {e}"));
    assert!(resources.iter().any(|r| r.uri == "config://app"), "{at}: {resources:?}");
    let config = client.read_resource("config://app").await.unwrap();
    let config = serde_json::to_value(&config.contents[0]).unwrap();
    assert_eq!(config["text"], r#"{"debug": true}"#, "{at}: {config}");
    assert_eq!(config["mimeType"], "application/json", "{at}: {config}");
    let templates = client.list_resource_templates().await.unwrap();
    assert!(templates.iter().any(|t| t.uri_template == "notes://{title}"), "{at}: {templates:?}");
    let note = client.read_resource("notes://today").await.unwrap();
    assert_eq!(serde_json::to_value(&note.contents[0]).unwrap()["text"], "note today", "{at}");

    // Prompts and completion (of a prompt's argument and a template's variable).
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["greet"], "{at}");
    let prompt = client.get_prompt("greet", json!({"name": "Ada"})).await.unwrap();
    let message = serde_json::to_value(&prompt.messages[0]).unwrap();
    assert_eq!(message["content"]["text"], "Hello, Ada!", "{at}: {message}");
    let completed = client.complete(CompleteRef::Prompt { name: "greet".into() }, "name", "A", None).await.unwrap();
    assert_eq!(completed.completion.values, ["Ada", "Alan"], "{at}");
    let reference = CompleteRef::Resource { uri: "notes://{title}".into() };
    let completed = client.complete(reference, "title", "to", None).await.unwrap();
    assert_eq!(completed.completion.values, ["today", "tomorrow"], "{at}");

    // A subscription hears the update a tool call makes.
    let subscribes = client.server_capabilities().resources.as_ref().and_then(|r| r.subscribe) == Some(true);
    if subscribes {
        let mut updates = Box::pin(client.subscribe("notes://today").await.unwrap_or_else(|e| panic!("{at}: {e}")));
        let touched = client.call("touch", json!({"uri": "notes://today"})).await.unwrap();
        assert_eq!(text(&touched), "touched notes://today", "{at}");
        let update = tokio::time::timeout(Duration::from_secs(10), updates.next()).await;
        assert_eq!(update, Ok(Some("notes://today".to_owned())), "{at}: the update after touch");
    } else {
        eprintln!("{at}: the server does not declare resources.subscribe; not subscribing");
    }

    // The log level: only warning and error of the tool's four messages.
    let mut notifications = Box::pin(client.notifications());
    client.set_log_level(LoggingLevel::Warning).await.unwrap_or_else(|e| panic!("{at}: logging level: {e}"));
    let chattered = client.call("chatter", json!({})).await.unwrap();
    assert_eq!(text(&chattered), "chattered", "{at}");
    let mut heard = Vec::new();
    while !heard.iter().any(|(level, _)| level == "error") {
        let next = tokio::time::timeout(Duration::from_secs(10), notifications.next()).await;
        let notification = next.unwrap_or_else(|_| panic!("{at}: no error log message; heard {heard:?}")).unwrap();
        if notification.method == methods::MESSAGE {
            let params = Value::Object(notification.params.unwrap_or_default());
            heard.push((params["level"].as_str().unwrap_or_default().to_owned(), params["data"].clone()));
        }
    }
    let levels: Vec<&str> = heard.iter().map(|(level, _)| level.as_str()).collect();
    assert_eq!(levels, ["warning", "error"], "{at}: {heard:?}");
    assert_eq!(heard[1].1, "a error message", "{at}");

    client.ping().await.unwrap_or_else(|e| panic!("{at}: ping: {e}"));

    let unknown = client.call("no-such-tool", json!({})).await;
    assert!(
        matches!(&unknown, Err(Error::Server(_))) || matches!(&unknown, Ok(r) if r.is_error == Some(true)),
        "{at}: {unknown:?}"
    );
}

/// Each transport × era against one server.
async fn drive(server: Server) {
    // stdio: a process per connection (a 2.x server binds its stdio
    // connection to the first era it hears).
    for (choice, version) in server.eras() {
        let at = format!("{} stdio {choice:?}", server.label);
        eprintln!("== {at}");
        let asked = Arc::new(Asked::default());
        let client = builder(choice, &asked)
            .stderr(Stderr::Capture)
            .command(&server.program, [server.script.as_os_str(), "stdio".as_ref()])
            .await
            .unwrap_or_else(|e| panic!("{at}: connecting: {e}"));
        exercise(&client, &server, version, &asked, &at).await;
        client.close().await;
    }
    // Streamable HTTP: one server, a connection per era.
    let (_child, url) = server.serve_http().await;
    for (choice, version) in server.eras() {
        let at = format!("{} http {choice:?}", server.label);
        eprintln!("== {at} ({url})");
        let asked = Arc::new(Asked::default());
        let client = builder(choice, &asked).http(&url).await.unwrap_or_else(|e| panic!("{at}: connecting: {e}"));
        exercise(&client, &server, version, &asked, &at).await;
        client.close().await;
    }
    if !server.stateless {
        // A handshake-only server: 2026-07-28, forced, is refused (not
        // quietly traded for the handshake).
        let asked = Arc::new(Asked::default());
        let refused = builder(EraChoice::Version(ProtocolVersion::LATEST), &asked).http(&url).await;
        assert!(refused.is_err(), "{}: 2026-07-28 forced on a handshake-only server: {refused:?}", server.label);
    }
}

#[tokio::test]
#[ignore = "needs the official Python SDK 2.x: run .ci/server-interop"]
async fn python_sdk_server() {
    drive(Server::from_env("MCP_INTEROP_PYTHON", "python-2.x", "python/server.py", "python-interop-server", true))
        .await;
}

#[tokio::test]
#[ignore = "needs the official Python SDK 1.x: run .ci/server-interop"]
async fn python_sdk_v1_server() {
    drive(Server::from_env("MCP_INTEROP_PYTHON_V1", "python-1.x", "python/server.py", "python-interop-server", false))
        .await;
}

#[tokio::test]
#[ignore = "needs Node.js and the official TypeScript SDK 1.x: run .ci/server-interop"]
async fn typescript_sdk_server() {
    drive(Server::from_env("MCP_INTEROP_NODE", "typescript-1.x", "ts/server.mjs", "ts-interop-server", false)).await;
}

/// The three SDK servers mounted into one of ours, and driven through it by
/// our client in both eras, over a pipe and over Streamable HTTP: the
/// mounted servers' tools compute, their questions reach our closures
/// through the proxy, their resources, prompts and completions come back.
#[tokio::test]
#[ignore = "needs the official Python SDK 2.x and 1.x and the TypeScript SDK 1.x: run .ci/server-interop"]
async fn sdk_servers_behind_our_proxy() {
    use mcp_runtime::proxy::Upstream;
    let servers = [
        Server::from_env("MCP_INTEROP_PYTHON", "python-2.x", "python/server.py", "python-interop-server", true),
        Server::from_env("MCP_INTEROP_PYTHON_V1", "python-1.x", "python/server.py", "python-interop-server", false),
        Server::from_env("MCP_INTEROP_NODE", "typescript-1.x", "ts/server.mjs", "ts-interop-server", false),
    ];
    let prefixes = ["py", "pyone", "ts"];
    let gateway = || {
        let mut gateway = mcp_runtime::Server::empty("gateway", "1");
        for (server, prefix) in servers.iter().zip(prefixes) {
            let script = server.script.to_string_lossy().into_owned();
            let node_path = std::env::var("NODE_PATH").unwrap_or_default();
            let upstream =
                Upstream::command_with_env(&server.program, [script, "stdio".into()], [("NODE_PATH", node_path)]);
            gateway = gateway.mount(prefix, upstream);
        }
        gateway
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let http = gateway();
    tokio::spawn(async move { http.serve_http_on(listener, mcp_runtime::transport::HttpOptions::new()).await });
    for version in [ProtocolVersion::LATEST_HANDSHAKE, ProtocolVersion::LATEST] {
        for over_http in [false, true] {
            let at = format!("through the proxy, {version:?}, {}", if over_http { "HTTP" } else { "pipe" });
            let asked = Arc::new(Asked::default());
            let client = builder(EraChoice::Version(version), &asked);
            let client = if over_http {
                client.http(&url).await.unwrap()
            } else {
                let (ours, theirs) = tokio::io::duplex(1 << 16);
                let (read, write) = tokio::io::split(theirs);
                tokio::spawn(gateway().serve(read, write));
                let (read, write) = tokio::io::split(ours);
                client.io(read, write).await.unwrap()
            };
            // The gateway serves after 10 s even if a mount is not up yet (a
            // Python server on a loaded machine can take longer); its tools
            // then join with `list_changed`. Wait for them, within 60 s.
            let started = std::time::Instant::now();
            loop {
                let listed = client.list_tools().await.unwrap();
                let has = |prefix: &str| listed.iter().any(|t| t.name == format!("{prefix}_add"));
                if prefixes.iter().all(|prefix| has(prefix)) {
                    break;
                }
                assert!(started.elapsed() < Duration::from_secs(60), "{at}: the mounts' tools never all came");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            for prefix in prefixes {
                let added = client.call(&format!("{prefix}_add"), json!({ "a": 2, "b": 3 })).await.unwrap();
                let sum = added.structured_content.as_ref().and_then(|s| s["result"].as_f64());
                assert_eq!(sum, Some(5.0), "{at}: {prefix}_add: {added:?}");
                let text = |r: &mcp_core::CallToolResult| r.content[0].as_text().map(str::to_owned);
                let booked = client.call(&format!("{prefix}_book"), json!({})).await.unwrap();
                assert_eq!(text(&booked).as_deref(), Some("booked for friday"), "{at}: {prefix}_book");
                let haiku = client.call(&format!("{prefix}_haiku"), json!({})).await.unwrap();
                let want = "driver-model wrote: crab shell, borrowed bright";
                assert_eq!(text(&haiku).as_deref(), Some(want), "{at}: {prefix}_haiku");
                let config = client.read_resource(&format!("config://{prefix}/app")).await.unwrap();
                assert!(format!("{:?}", config.contents).contains("debug"), "{at}: {config:?}");
                let note = client.read_resource(&format!("notes://{prefix}/today")).await.unwrap();
                assert!(format!("{:?}", note.contents).contains("note today"), "{at}: {note:?}");
                let greeting = client.get_prompt(&format!("{prefix}_greet"), json!({ "name": "Ada" })).await.unwrap();
                assert!(format!("{:?}", greeting.messages).contains("Hello, Ada!"), "{at}: {greeting:?}");
                let reference = CompleteRef::Prompt { name: format!("{prefix}_greet") };
                let names = client.complete(reference, "name", "A", None).await.unwrap();
                assert_eq!(names.completion.values, ["Ada", "Alan"], "{at}: {prefix}_greet completions");
            }
            assert!(asked.elicitations.load(Ordering::SeqCst) >= 3, "{at}: the forms reached our closure");
            assert!(asked.samplings.load(Ordering::SeqCst) >= 3, "{at}: the samplings reached our closure");
            client.close().await;
        }
    }
}
