//! The runtime's `otel` feature with a real OpenTelemetry pipeline, set up
//! as the README shows (a `tracing-opentelemetry` layer over the SDK's
//! tracer, with a span processor of this file's own instead of an OTLP
//! exporter): the request spans come out as OpenTelemetry server spans,
//! and a client's `_meta.traceparent` makes the client's span their
//! parent. The layer is this thread's only, as in `spans`.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::http::Client;
use crate::common::memory::connect;
use mcp_runtime::axum::extract::Request;
use mcp_runtime::axum::middleware::{Next, from_fn};
use mcp_runtime::axum::response::Response;
use mcp_runtime::prelude::*;
use mcp_runtime::{Server, transport::HttpOptions};
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId, TracerProvider};
use opentelemetry::{Context, KeyValue, Value};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanProcessor};
use serde_json::json;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;

/// Multiply two numbers.
#[tool]
async fn multiply(a: f64, b: f64) -> f64 {
    tokio::task::yield_now().await;
    a * b
}

/// Every span that ended, as it would be exported.
#[derive(Clone, Debug, Default)]
struct Ended(Arc<Mutex<Vec<SpanData>>>);

impl SpanProcessor for Ended {
    fn on_start(&self, _: &mut opentelemetry_sdk::trace::Span, _: &Context) {}

    fn on_end(&self, span: SpanData) {
        self.0.lock().unwrap().push(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _: Duration) -> OTelSdkResult {
        Ok(())
    }
}

impl Ended {
    /// The `nth` ended span named `name` (from 0), waiting a little for
    /// it: a call's span ends when its task lets go of it, about when the
    /// answer is sent.
    async fn named(&self, name: &str, nth: usize) -> SpanData {
        for _ in 0..100 {
            if let Some(span) = self.0.lock().unwrap().iter().filter(|s| s.name == name).nth(nth) {
                return span.clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no span {nth} named {name} in {:#?}", self.0.lock().unwrap());
    }
}

/// Capture this thread's spans through `tracing-opentelemetry`, as a
/// program that exports them would, until the guard is dropped.
fn pipeline() -> (Ended, tracing::subscriber::DefaultGuard) {
    let ended = Ended::default();
    let provider = SdkTracerProvider::builder().with_span_processor(ended.clone()).build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("tests"));
    (ended, tracing::subscriber::set_default(tracing_subscriber::registry().with(layer)))
}

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

#[tokio::test]
async fn a_clients_traceparent_makes_its_span_the_parent_of_the_request_span() {
    let (ended, _guard) = pipeline();
    let mut client = connect(Server::empty("otel", "1").tool(multiply::Tool)).await;

    let traced = json!({"name": "multiply", "arguments": {"a": 6, "b": 7}, "_meta": {
        "traceparent": TRACEPARENT,
        "tracestate": "rojo=00f067aa0ba902b7",
    }});
    let answer = client.request("tools/call", traced).await.unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "42");
    let span = ended.named("tools/call multiply", 0).await;
    assert_eq!(span.span_context.trace_id(), TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap());
    assert_eq!(span.parent_span_id, SpanId::from_hex("00f067aa0ba902b7").unwrap());
    assert!(span.parent_span_is_remote);
    assert_eq!(span.span_context.trace_state().get("rojo"), Some("00f067aa0ba902b7"));
    assert_eq!(span.span_kind, SpanKind::Server);
    assert_eq!(span.status, Status::Unset);
    assert_eq!(attribute(&span, "mcp.method.name"), Some(&Value::from("tools/call")));
    assert_eq!(attribute(&span, "gen_ai.tool.name"), Some(&Value::from("multiply")));
    assert_eq!(attribute(&span, "gen_ai.operation.name"), Some(&Value::from("execute_tool")));
    assert_eq!(attribute(&span, "mcp.protocol.version"), Some(&Value::from("2025-11-25")));
    assert!(attribute(&span, "error.type").is_none());
    assert!(!span.attributes.contains(&KeyValue::new("otel.name", "tools/call multiply")), "the name is no attribute");

    // Without trace context, or with one that does not parse, the span
    // starts a trace of its own.
    let malformed = json!({"name": "nope", "_meta": {"traceparent": "00-not-a-trace-01"}});
    let answer = client.request("tools/call", malformed).await.unwrap();
    assert_eq!(answer["error"]["code"], -32602);
    let span = ended.named("tools/call", 0).await;
    assert_ne!(span.span_context.trace_id(), TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap());
    assert_eq!(span.parent_span_id, SpanId::INVALID);
    assert_eq!(attribute(&span, "rpc.response.status_code"), Some(&Value::from("-32602")));
    assert_eq!(span.status, Status::Unset, "an unknown tool is the caller's mistake");

    // A tool error result fails the span, though the answer is a result.
    let answer = client.request("tools/call", json!({"name": "multiply", "arguments": {"a": "six"}})).await.unwrap();
    assert_eq!(answer["result"]["isError"], true);
    let failed = ended.named("tools/call multiply", 1).await;
    assert_eq!(attribute(&failed, "error.type"), Some(&Value::from("tool_error")));
    assert!(matches!(failed.status, Status::Error { .. }), "{:?}", failed.status);
}

/// An HTTP server span around each request, as a program's own HTTP
/// tracing would make.
async fn http_span(request: Request, next: Next) -> Response {
    next.run(request).instrument(tracing::info_span!("POST /mcp", otel.kind = "server")).await
}

#[tokio::test]
async fn the_http_requests_span_becomes_a_link_of_the_request_span_it_carried() {
    let (ended, _guard) = pipeline();
    let router = Server::empty("otel", "1").tool(multiply::Tool).http_router(HttpOptions::new()).unwrap();
    let app = router.layer(from_fn(http_span));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, app).await.unwrap() });

    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "multiply", "arguments": {"a": 2, "b": 4},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "traceparent": TRACEPARENT,
        },
    }});
    let answer = Client::new(&format!("http://{addr}/mcp")).message(&message).await;
    assert_eq!(answer.last()["result"]["content"][0]["text"], "8");
    let http = ended.named("POST /mcp", 0).await;
    let span = ended.named("tools/call multiply", 0).await;
    // The MCP request's parent is the client's span, whatever carried it;
    // the HTTP request that carried it is linked.
    assert_eq!(span.span_context.trace_id(), TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap());
    assert_eq!(span.parent_span_id, SpanId::from_hex("00f067aa0ba902b7").unwrap());
    let linked: Vec<_> = span.links.iter().map(|link| link.span_context.span_id()).collect();
    assert_eq!(linked, [http.span_context.span_id()]);
    assert_eq!(attribute(&span, "network.transport"), Some(&Value::from("tcp")));
}
