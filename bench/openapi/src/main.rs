//! What a call through an OpenAPI-made tool costs against the API's own
//! round trip over loopback. The API (`bench-openapi --api`, a small axum
//! service serving its document at `/openapi.json`) runs in a process of
//! its own; this process calls `GET /items/{id}` with a `reqwest` client,
//! and calls the tool made from that operation (`Server::openapi` from the
//! document at its URL) through an in-memory MCP connection, so the
//! difference is the tool's own work: the `tools/call` read, the argument
//! check, the request built, the answer read into a tool result and
//! written. A third column is a tool that answers the same item without
//! a request (the in-memory MCP call alone), so the table splits what the
//! tool adds into the MCP call every tool pays and the OpenAPI tool's own
//! work. Sequential calls, rounds alternating which goes first, every
//! answer checked.
//!
//! `--load FILE` (a document, gzipped if its name ends in `.gz`) times
//! instead how long a large document takes to become a server that has
//! answered its first `tools/list`: read, parsed, mapped, every tool's
//! definition built and listed.
//!
//! ```sh
//! cargo run --release -p bench-openapi -- [--calls N] [--rounds N]
//! cargo run --release -p bench-openapi -- --load tests/fixtures/openapi/api.github.com.json.gz
//! ```

use std::time::Instant;

use mcp_runtime::openapi::{OpenApi, Sources};
use mcp_runtime::request::RequestParts;
use mcp_runtime::tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition};
use mcp_runtime::{CallToolResult, Server};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

type Error = Box<dyn std::error::Error>;

/// The API's document: one operation, its answer an object, so the tool
/// has an output schema and answers with structured content too.
const DOCUMENT: &str = r#"{
  "openapi": "3.1.0",
  "info": {"title": "items", "version": "1"},
  "paths": {"/items/{id}": {"get": {
    "operationId": "get_item",
    "summary": "Get an item by its id",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
    "responses": {"200": {"description": "the item", "content": {"application/json": {"schema": {
      "type": "object", "required": ["id", "name", "price"],
      "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "price": {"type": "number"}}
    }}}}}
  }}}
}"#;

fn item(id: i64) -> Value {
    json!({"id": id, "name": format!("item {id}"), "price": 9.5})
}

/// `local_item`: the item, answered in process (the MCP call alone).
struct LocalItem;

impl Tool for LocalItem {
    fn definition(&self) -> ToolDefinition {
        let mut builder = ToolBuilder::new("local_item", module_path!(), "LocalItem");
        builder.description(Some("Get an item by its id, without asking the API.")).argument::<i64>("id", None, true);
        builder.build()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let id = request.arguments().get("id").and_then(Value::as_i64).unwrap_or_default();
        let item = item(id);
        let text = item.to_string();
        Box::pin(async move {
            CallToolResult {
                structured_content: Some(item),
                ..CallToolResult::success(vec![mcp_runtime::Content::text(text)])
            }
        })
    }
}

/// Serve the API on a free loopback port; say where on stdout.
async fn api() -> Result<(), Error> {
    use axum::routing::get;
    let app = axum::Router::new()
        .route("/openapi.json", get(|| async { ([("content-type", "application/json")], DOCUMENT) }))
        .route(
            "/items/{id}",
            get(|axum::extract::Path(id): axum::extract::Path<i64>| async move { axum::Json(item(id)) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// `calls` sequential calls of `one`: p50 in µs and calls/s.
async fn sequential<F: AsyncFnMut(i64) -> Result<(), Error>>(calls: usize, mut one: F) -> Result<(f64, f64), Error> {
    let mut latencies = Vec::with_capacity(calls);
    let started = Instant::now();
    for i in 0..calls {
        let t = Instant::now();
        one(i as i64).await?;
        latencies.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let rate = calls as f64 / started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    Ok((percentile(&latencies, 0.5), rate))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

async fn measure(calls: usize, rounds: usize) -> Result<(), Error> {
    let mut child = tokio::process::Command::new(std::env::current_exe()?)
        .arg("--api")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = tokio::io::BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    let base = lines.next_line().await?.ok_or("the API exited")?;

    let http = reqwest::Client::new();
    let api =
        OpenApi::load(&format!("{base}/openapi.json"), &Sources::new()).await?.base_url(&base).client(http.clone());
    let mut mcp = Server::empty("bench", "1").tool(LocalItem).openapi(&api)?.connect_in_memory()?;
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}});
    mcp.request("initialize", init).await?;
    mcp.notify("notifications/initialized", json!({})).await?;

    let direct = async |i: i64| -> Result<(), Error> {
        let answer: Value = http.get(format!("{base}/items/{i}")).send().await?.error_for_status()?.json().await?;
        if answer != item(i) {
            return Err(format!("the API answered {answer}").into());
        }
        Ok(())
    };
    let mut results: [Vec<(f64, f64)>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    const RUNS: [&str; 3] = ["the API directly", "through the tool", "a tool alone"];
    for round in 0..rounds {
        for at in 0..RUNS.len() {
            let which = (at + round) % RUNS.len();
            let figures = if which == 0 {
                sequential(calls, direct).await?
            } else {
                let tool = ["", "get_item", "local_item"][which];
                sequential(calls, async |i: i64| -> Result<(), Error> {
                    let answer = mcp.request("tools/call", json!({"name": tool, "arguments": {"id": i}})).await?;
                    if answer["result"]["structuredContent"] != item(i) {
                        return Err(format!("{tool} answered {answer}").into());
                    }
                    Ok(())
                })
                .await?
            };
            eprintln!("openapi round {}/{rounds}: {} {figures:?}", round + 1, RUNS[which]);
            results[which].push(figures);
        }
    }
    let p50 = |w: usize| median(&mut results[w].iter().map(|f| f.0).collect::<Vec<_>>());
    let rate = |w: usize| median(&mut results[w].iter().map(|f| f.1).collect::<Vec<_>>());
    println!("## An OpenAPI-made tool against the API's own round trip (loopback, sequential)\n");
    println!(
        "| measurement | unit | the API directly | through the tool | tool ÷ direct | a tool alone (no request) |"
    );
    println!("|---|---|---|---|---|---|");
    println!("| call p50 | µs | {:.1} | {:.1} | {:.2} | {:.1} |", p50(0), p50(1), p50(1) / p50(0), p50(2));
    println!("| calls/s | calls/s | {:.0} | {:.0} | {:.2} | {:.0} |", rate(0), rate(1), rate(1) / rate(0), rate(2));
    println!("\n{rounds} round(s) of {calls} calls; medians over rounds. Every answer was checked.\n");
    Ok(())
}

/// Time `file` from its bytes to a first `tools/list`, `rounds` times.
async fn load(file: &str, rounds: usize) -> Result<(), Error> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(file)?.read_to_end(&mut bytes)?;
    let text = if file.ends_with(".gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text)?;
        text
    } else {
        String::from_utf8(bytes)?
    };
    let mut figures: [Vec<f64>; 3] = Default::default();
    let mut tools = 0;
    for round in 0..rounds {
        let started = Instant::now();
        let api = OpenApi::from_str(&text)?.base_url("http://127.0.0.1:9");
        let parsed = started.elapsed();
        let server = Server::from_openapi(&api)?;
        let built = started.elapsed();
        let mut client = server.connect_in_memory()?;
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}});
        client.request("initialize", init).await?;
        let mut cursor = Value::Null;
        tools = 0;
        loop {
            let params = if cursor.is_null() { json!({}) } else { json!({"cursor": cursor}) };
            let page = client.request("tools/list", params).await?;
            tools += page["result"]["tools"].as_array().ok_or("no tools")?.len();
            cursor = page["result"]["nextCursor"].clone();
            if cursor.is_null() {
                break;
            }
        }
        let listed = started.elapsed();
        eprintln!("load round {}/{rounds}: {parsed:?} parsed, {built:?} built, {listed:?} listed", round + 1);
        for (slot, value) in figures.iter_mut().zip([parsed, built, listed]) {
            slot.push(value.as_secs_f64() * 1e3);
        }
    }
    println!(
        "## A large OpenAPI document to a server's first `tools/list` ({file}: {} KiB, {tools} tools)\n",
        text.len() / 1024
    );
    println!("| parsed | server built | every tool listed |");
    println!("|---|---|---|");
    let [mut parsed, mut built, mut listed] = figures;
    println!("| {:.0} ms | {:.0} ms | {:.0} ms |", median(&mut parsed), median(&mut built), median(&mut listed));
    println!("\nMedians of {rounds} rounds, each from the document's text.\n");
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--api") {
        return api().await;
    }
    if let Some(file) = args.iter().position(|a| a == "--load").and_then(|at| args.get(at + 1)) {
        let rounds = args.iter().position(|a| a == "--rounds").and_then(|at| args.get(at + 1));
        return load(file, rounds.and_then(|n| n.parse().ok()).unwrap_or(5)).await;
    }
    let number = |flag: &str, default: usize| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|at| args.get(at + 1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    measure(number("--calls", 2_000), number("--rounds", 3)).await
}
