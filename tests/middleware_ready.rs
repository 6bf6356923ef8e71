//! The ready layers users used to write by hand, through the protocol:
//! `Retry` runs a failed call of a read-only or idempotent tool again (a
//! mounted server's too), within its bound, and never another tool's nor
//! a call that may become a task;
//! `ResponseLimit` refuses a reply too large with an error that says so;
//! `Timing` records a histogram per component through OpenTelemetry, with
//! no resource URI and no caller's mistake counted as a failure.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::common::memory::{call, connect};
use mcp_runtime::Server;
use mcp_runtime::middleware::{ResponseLimit, Retry, Timing};
use mcp_runtime::prelude::*;
use mcp_runtime::proxy::Mount;
use mcp_runtime::tasks::MemoryTaskStore;
use opentelemetry::metrics::MeterProvider;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use serde_json::{Value, json};

/// How many calls each tool had.
#[derive(Default)]
struct Calls(AtomicU32);

/// Look something up; fails until its third call.
#[tool(read_only)]
fn lookup(calls: State<Calls>) -> Result<String, ToolError> {
    match calls.0.fetch_add(1, Ordering::SeqCst) + 1 {
        n if n < 3 => Err(ToolError::new(format!("upstream busy (call {n})"))),
        n => Ok(format!("found on call {n}")),
    }
}

/// Charge a card; fails on its first call.
#[tool(destructive)]
fn charge(calls: State<Calls>) -> Result<String, ToolError> {
    match calls.0.fetch_add(1, Ordering::SeqCst) {
        0 => Err(ToolError::new("declined")),
        _ => Ok("charged".to_owned()),
    }
}

/// Text of `size` bytes.
#[tool(idempotent)]
fn blob(size: usize) -> String {
    "x".repeat(size)
}

/// A large resource.
#[resource("big://one")]
fn big() -> String {
    "y".repeat(10_000)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {result}"))
}

fn server(tool: impl mcp_runtime::tools::Tool + 'static, retry: Retry) -> Server {
    Server::empty("retry", "1").tool(tool).with_state(Calls::default()).layer(retry)
}

#[tokio::test]
async fn a_failed_read_only_call_is_run_again_within_the_bound() {
    let mut client = connect(server(lookup::Tool, Retry::new(3, Duration::from_millis(1)))).await;
    let result = call(&mut client, "lookup", json!({})).await;
    assert_eq!(text(&result), "found on call 3");

    // Two attempts are not enough: the last failure is the answer.
    let mut client = connect(server(lookup::Tool, Retry::new(2, Duration::from_millis(1)))).await;
    let result = call(&mut client, "lookup", json!({})).await;
    assert_eq!((result["isError"].as_bool(), text(&result)), (Some(true), "upstream busy (call 2)"));
    let result = call(&mut client, "lookup", json!({})).await;
    assert_eq!(text(&result), "found on call 3", "the next call is the tool's third");
}

/// Look something up, perhaps as a task; fails until its third call.
#[tool(read_only, task = "optional")]
fn lookup_task(calls: State<Calls>) -> Result<String, ToolError> {
    lookup(calls)
}

#[tokio::test]
async fn a_call_that_may_become_a_task_is_never_run_twice() {
    // A task settles once: its call is not repeated, whether or not it
    // became a task before it failed.
    let server = Server::empty("retry", "1")
        .tool(lookup_task::Tool)
        .tool(lookup::Tool)
        .with_state(Calls::default())
        .task_store(std::sync::Arc::new(MemoryTaskStore::default()))
        .layer(Retry::new(3, Duration::from_millis(1)));
    let mut client = server.connect_in_memory().unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let mut result = async |method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = meta.clone();
        client.request(method, params).await.unwrap()["result"].clone()
    };
    let mut answer = result("tools/call", json!({"name": "lookup_task", "arguments": {}})).await;
    if answer["resultType"] == "task" {
        let id = answer["taskId"].as_str().unwrap().to_owned();
        answer = loop {
            let task = result("tasks/get", json!({"taskId": id})).await;
            if task["status"] != "working" {
                break task["result"].clone();
            }
            tokio::task::yield_now().await;
        };
    }
    assert_eq!((answer["isError"].as_bool(), text(&answer)), (Some(true), "upstream busy (call 1)"), "{answer}");
    // Nothing ran it again, even after it answered: the next call of the
    // shared counter is its second (and is retried to its third).
    let next = result("tools/call", json!({"name": "lookup", "arguments": {}})).await;
    assert_eq!(text(&next), "found on call 3", "{next}");
}

#[tokio::test]
async fn a_tool_not_marked_repeatable_is_never_run_twice() {
    let mut client = connect(server(charge::Tool, Retry::new(5, Duration::from_millis(1)))).await;
    let result = call(&mut client, "charge", json!({})).await;
    assert_eq!((result["isError"].as_bool(), text(&result)), (Some(true), "declined"));
    assert_eq!(text(&call(&mut client, "charge", json!({})).await), "charged", "called once before");
}

#[tokio::test]
async fn a_mounted_servers_idempotent_tool_is_retried_through_the_gateway() {
    let upstream = Server::empty("inner", "1").tool(lookup::Tool).with_state(Calls::default());
    let gateway = Server::empty("gateway", "1")
        .mount_with(Mount::new("up", upstream))
        .layer(Retry::new(3, Duration::from_millis(1)));
    let mut client = connect(gateway).await;
    assert_eq!(text(&call(&mut client, "up_lookup", json!({})).await), "found on call 3");
}

#[tokio::test]
async fn a_reply_over_the_limit_is_refused_with_a_clear_error() {
    let server = Server::empty("limit", "1").tool(blob::Tool).resource(big::Resource).layer(ResponseLimit::new(1000));
    let mut client = connect(server).await;
    assert_eq!(text(&call(&mut client, "blob", json!({"size": 10})).await).len(), 10);
    let refused = call(&mut client, "blob", json!({"size": 5000})).await;
    assert_eq!(refused["isError"], true);
    let message = text(&refused);
    assert!(message.starts_with("the result of tool `blob` is 50"), "{message}");
    assert!(message.ends_with("more than this server sends (1000 bytes at most); ask for less"), "{message}");
    let read = client.request("resources/read", json!({"uri": "big://one"})).await.unwrap();
    let error = read["error"]["message"].as_str().unwrap_or_else(|| panic!("{read}"));
    assert!(error.starts_with("resource `big://one` is 10"), "{error}");
}

/// An item, by its id: a template with as many URIs as ids; there is no
/// item 0.
#[resource("item://{id}")]
fn item(id: u64) -> Result<String, ResourceError> {
    match id {
        0 => Err(ResourceError::not_found("there is no item 0")),
        id => Ok(id.to_string()),
    }
}

#[tokio::test]
async fn timing_records_a_histogram_per_component() {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
    let timing = Timing::new(&provider.meter("tests"));
    let server = Server::empty("timed", "1").tool(blob::Tool).tool(lookup::Tool).with_state(Calls::default());
    let mut client = connect(server.resource(item::Resource).layer(timing)).await;
    call(&mut client, "blob", json!({"size": 1})).await;
    call(&mut client, "blob", json!({"size": 2})).await;
    call(&mut client, "lookup", json!({})).await;
    // Each URI of a template is read, and none of them is an attribute.
    for uri in ["item://1", "item://2"] {
        let read = client.request("resources/read", json!({"uri": uri})).await.unwrap();
        assert_eq!(read["result"]["contents"][0]["text"], &uri[7..], "{read}");
    }
    // The caller's mistake is timed, but is no failure of the server's.
    let missing = client.request("resources/read", json!({"uri": "item://0"})).await.unwrap();
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    provider.force_flush().unwrap();

    let mut points = Vec::new();
    for resource in exporter.get_finished_metrics().unwrap() {
        for scope in resource.scope_metrics() {
            for metric in scope.metrics().filter(|m| m.name() == mcp_runtime::middleware::DURATION) {
                let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data() else {
                    panic!("{metric:?} is not a histogram of seconds");
                };
                for point in histogram.data_points() {
                    let mut attributes: Vec<String> =
                        point.attributes().map(|kv| format!("{}={}", kv.key, kv.value)).collect();
                    attributes.sort();
                    points.push((attributes.join(" "), point.count()));
                }
            }
        }
    }
    points.sort();
    assert_eq!(
        points,
        [
            ("error.type=tool_error gen_ai.tool.name=lookup mcp.method.name=tools/call".to_owned(), 1),
            ("gen_ai.tool.name=blob mcp.method.name=tools/call".to_owned(), 2),
            ("mcp.method.name=resources/read".to_owned(), 3),
        ]
    );
}
