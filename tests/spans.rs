//! Every request is one `tracing` span with the attributes of
//! OpenTelemetry's conventions for MCP server spans, whatever its method
//! and transport, covering the call's async work and recording its
//! outcome. A layer of this file's own captures the spans' fields; it is
//! installed for the test's thread only, and each test runs on a
//! current-thread runtime, so the server's tasks run on that thread and
//! the other tests of the binary are not seen.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use crate::common::http::Client;
use crate::common::memory::connect;
use mcp_runtime::prelude::*;
use mcp_runtime::{
    Server,
    transport::{HttpOptions, InMemoryClient},
};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::DefaultGuard;
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// Add two numbers, after a pause (so the call is a task of its own).
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    tokio::task::yield_now().await;
    tracing::info!("adding after the pause");
    a + b
}

/// Always fails, as a tool result.
#[tool]
fn refuse() -> Result<String, ToolError> {
    Err(ToolError::new("not today"))
}

/// A note, by title.
#[resource("notes://{title}")]
fn note(title: String) -> Result<String, ResourceError> {
    match title.as_str() {
        "lost" => Err(ResourceError::not_found("no such note")),
        "locked" => Err(ResourceError::new("the note is locked")),
        _ => Ok(format!("the note called {title}")),
    }
}

/// Greet someone.
#[prompt]
fn greet(name: String) -> String {
    format!("Say hello to {name}.")
}

fn server() -> Server {
    Server::empty("spans", "1").tool(add::Tool).tool(refuse::Tool).resource(note::Resource).prompt(greet::Prompt)
}

/// One request span's fields as recorded so far, and the events logged
/// inside it.
type Fields = BTreeMap<&'static str, String>;

/// Every request span started on this thread, in order.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<Fields>>>);

/// Which of [`Spans`] a span is (span ids are reused once spans close).
struct Index(usize);

struct Visitor<'a>(&'a mut Fields);

impl Visit for Visitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }
}

/// An event's message, added to its span's `events` field.
struct Message<'a>(&'a mut String);

impl Visit for Message<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.0.push_str(&format!("{value:?};"));
        }
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let meta = attrs.metadata();
        if meta.name() != "request" || !meta.target().starts_with("mcp_runtime") {
            return;
        }
        let mut fields = Fields::new();
        attrs.record(&mut Visitor(&mut fields));
        let mut spans = self.0.lock().unwrap();
        spans.push(fields);
        ctx.span(id).unwrap().extensions_mut().insert(Index(spans.len() - 1));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(index) = ctx.span(id).and_then(|span| span.extensions().get::<Index>().map(|i| i.0)) else { return };
        values.record(&mut Visitor(&mut self.0.lock().unwrap()[index]));
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let found =
            ctx.event_scope(event).into_iter().flatten().find_map(|s| s.extensions().get::<Index>().map(|i| i.0));
        if let Some(index) = found {
            let mut spans = self.0.lock().unwrap();
            event.record(&mut Message(spans[index].entry("events").or_default()));
        }
    }
}

impl Spans {
    /// Capture this thread's request spans until the guard is dropped.
    fn capture() -> (Spans, DefaultGuard) {
        let spans = Spans::default();
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
        (spans, guard)
    }

    /// The one span of the request with this id and method.
    fn of(&self, method: &str, id: &Value) -> Fields {
        let id = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let spans = self.0.lock().unwrap();
        let mut found = spans.iter().filter(|f| {
            f.get("mcp.method.name").map(String::as_str) == Some(method) && f.get("jsonrpc.request.id") == Some(&id)
        });
        let span = found.next().unwrap_or_else(|| panic!("no span of {method} {id} in {spans:#?}")).clone();
        assert!(found.next().is_none(), "two spans of {method} {id}");
        span
    }
}

/// The span of `method` with `params`, asked of `client`, and the answer.
async fn request(spans: &Spans, client: &mut InMemoryClient, method: &str, params: Value) -> (Fields, Value) {
    let answer = client.request(method, params).await.unwrap();
    (spans.of(method, &answer["id"]), answer)
}

fn field<'a>(span: &'a Fields, name: &str) -> Option<&'a str> {
    span.get(name).map(String::as_str)
}

#[tokio::test]
async fn a_tool_call_is_one_span_named_after_its_tool_around_its_work() {
    let (spans, _guard) = Spans::capture();
    let mut client = connect(server()).await;
    let (span, answer) =
        request(&spans, &mut client, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "3");
    assert_eq!(field(&span, "otel.name"), Some("tools/call add"));
    assert_eq!(field(&span, "otel.kind"), Some("server"));
    assert_eq!(field(&span, "mcp.method.name"), Some("tools/call"));
    assert_eq!(field(&span, "gen_ai.tool.name"), Some("add"));
    assert_eq!(field(&span, "gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(field(&span, "jsonrpc.request.id"), Some(answer["id"].to_string().as_str()));
    assert_eq!(field(&span, "mcp.protocol.version"), Some("2025-11-25"));
    // The tool ran inside the span, after an await.
    assert_eq!(field(&span, "events"), Some("adding after the pause;"));
    for absent in ["error.type", "rpc.response.status_code", "otel.status_code", "mcp.session.id", "network.transport"]
    {
        assert_eq!(field(&span, absent), None, "{absent} in {span:#?}");
    }

    // The handshake's own span has the version it settled.
    let spans_now = spans.0.lock().unwrap().clone();
    let initialize = spans_now.iter().find(|f| field(f, "mcp.method.name") == Some("initialize")).unwrap();
    assert_eq!(field(initialize, "otel.name"), Some("initialize"));
    assert_eq!(field(initialize, "mcp.protocol.version"), Some("2025-11-25"));
    assert_eq!(field(initialize, "gen_ai.operation.name"), None);
}

#[tokio::test]
async fn a_tool_error_result_is_a_failed_span() {
    let (spans, _guard) = Spans::capture();
    let mut client = connect(server()).await;
    let (span, answer) = request(&spans, &mut client, "tools/call", json!({"name": "refuse", "arguments": {}})).await;
    assert_eq!(answer["result"]["isError"], true);
    assert_eq!(field(&span, "otel.name"), Some("tools/call refuse"));
    assert_eq!(field(&span, "error.type"), Some("tool_error"));
    assert_eq!(field(&span, "otel.status_code"), Some("error"));
    assert_eq!(field(&span, "rpc.response.status_code"), None, "the JSON-RPC answer is a result");

    // Arguments the tool cannot take are a tool error too, answered at once.
    let (span, answer) =
        request(&spans, &mut client, "tools/call", json!({"name": "add", "arguments": {"a": "one"}})).await;
    assert_eq!(answer["result"]["isError"], true);
    assert_eq!(field(&span, "error.type"), Some("tool_error"));
    assert_eq!(field(&span, "gen_ai.tool.name"), Some("add"));
}

#[tokio::test]
async fn error_answers_carry_their_code_and_only_the_servers_failures_are_errors() {
    let (spans, _guard) = Spans::capture();
    let mut client = connect(server()).await;

    // The caller's mistakes: the code, but no failure (the conventions'
    // server status: -32700, -32600, -32601, -32602 and -32002 are not).
    let (span, answer) = request(&spans, &mut client, "nothing/here", json!({})).await;
    assert_eq!(answer["error"]["code"], -32601);
    assert_eq!(field(&span, "otel.name"), Some("nothing/here"));
    assert_eq!(field(&span, "rpc.response.status_code"), Some("-32601"));
    assert_eq!(field(&span, "error.type"), None);
    assert_eq!(field(&span, "otel.status_code"), None);

    let (span, answer) = request(&spans, &mut client, "tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!(answer["error"]["code"], -32602);
    assert_eq!(field(&span, "rpc.response.status_code"), Some("-32602"));
    assert_eq!(field(&span, "error.type"), None);
    // A name the server does not have does not name the span.
    assert_eq!(field(&span, "otel.name"), Some("tools/call"));
    assert_eq!(field(&span, "gen_ai.tool.name"), None);

    let (span, answer) = request(&spans, &mut client, "resources/read", json!({"uri": "notes://lost"})).await;
    assert_eq!(answer["error"]["code"], -32002);
    assert_eq!(field(&span, "rpc.response.status_code"), Some("-32002"));
    assert_eq!(field(&span, "error.type"), None);

    // The server's failure: the code as the error type, an error status
    // with the answer's message.
    let (span, answer) = request(&spans, &mut client, "resources/read", json!({"uri": "notes://locked"})).await;
    assert_eq!(answer["error"]["code"], -32603);
    assert_eq!(field(&span, "rpc.response.status_code"), Some("-32603"));
    assert_eq!(field(&span, "error.type"), Some("-32603"));
    assert_eq!(field(&span, "otel.status_code"), Some("error"));
    assert_eq!(field(&span, "otel.status_description"), answer["error"]["message"].as_str());
}

#[tokio::test]
async fn resources_and_prompts_record_their_target() {
    let (spans, _guard) = Spans::capture();
    let mut client = connect(server()).await;
    let (span, answer) = request(&spans, &mut client, "resources/read", json!({"uri": "notes://today"})).await;
    assert_eq!(answer["result"]["contents"][0]["text"], "the note called today");
    assert_eq!(field(&span, "mcp.resource.uri"), Some("notes://today"));
    // URIs are too many to name spans after.
    assert_eq!(field(&span, "otel.name"), Some("resources/read"));
    assert_eq!(field(&span, "error.type"), None);

    let (span, answer) =
        request(&spans, &mut client, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
    assert!(answer["result"]["messages"].is_array(), "{answer}");
    assert_eq!(field(&span, "otel.name"), Some("prompts/get greet"));
    assert_eq!(field(&span, "gen_ai.prompt.name"), Some("greet"));
    assert_eq!(field(&span, "gen_ai.operation.name"), None, "only tool calls are `execute_tool`");

    let (span, _) = request(&spans, &mut client, "tools/list", json!({})).await;
    assert_eq!(field(&span, "otel.name"), Some("tools/list"));
    assert_eq!(field(&span, "gen_ai.tool.name"), None);
}

/// Serve `server()` over HTTP on a free loopback port.
async fn start_http() -> String {
    let router = server().http_router(HttpOptions::new()).expect("the server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}/mcp")
}

#[tokio::test]
async fn http_requests_carry_their_session_and_transport() {
    let (spans, _guard) = Spans::capture();
    let url = start_http().await;
    let mut client = Client::new(&url);
    client.initialize().await;
    let session = client.session.clone().unwrap();
    let call = client.call("add", json!({"a": 2, "b": 3})).await;
    assert_eq!(call.last()["result"]["content"][0]["text"], "5");
    let span = spans.of("tools/call", &call.last()["id"]);
    assert_eq!(field(&span, "mcp.session.id"), Some(session.as_str()));
    assert_eq!(field(&span, "network.transport"), Some("tcp"));
    assert_eq!(field(&span, "mcp.protocol.version"), Some("2025-11-25"));
    assert_eq!(field(&span, "otel.name"), Some("tools/call add"));

    // A 2026-07-28 request belongs to no session (the conventions: the
    // attribute must not be set then), and a string id is written as it is.
    let stateless = Client::new(&url);
    let message = json!({"jsonrpc": "2.0", "id": "call-7", "method": "tools/call", "params": {
        "name": "add", "arguments": {"a": 1, "b": 1},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }});
    let answer = stateless.message(&message).await;
    assert_eq!(answer.last()["result"]["content"][0]["text"], "2");
    let span = spans.of("tools/call", &json!("call-7"));
    assert_eq!(field(&span, "jsonrpc.request.id"), Some("call-7"));
    assert_eq!(field(&span, "mcp.session.id"), None);
    assert_eq!(field(&span, "network.transport"), Some("tcp"));
    assert_eq!(field(&span, "mcp.protocol.version"), Some("2026-07-28"));
}
