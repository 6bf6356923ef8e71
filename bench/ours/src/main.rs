//! The benchmark's server, built with this project: the same three tools
//! every peer serves, with the same answers.
//!
//! `bench-ours [--layers N] [--tasks] [--http ADDR]`: over stdio, or
//! Streamable HTTP at `ADDR`; `--layers N` adds N pass-through middleware
//! layers (the driver's middleware row), `--tasks` a fourth tool,
//! `calculator_task`, the calculator with task support (the tasks row).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_runtime::middleware;
use mcp_runtime::prelude::*;
use mcp_runtime::request::RequestParts;
use mcp_runtime::tasks::TaskSupport;
use mcp_runtime::tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition};
use schemars::JsonSchema;
use serde::Deserialize;

/// An arithmetic operation.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Operation {
    Add,
    Subtract,
    Multiply,
    Divide,
}

/// Perform basic arithmetic on two numbers.
#[tool]
fn calculator(operation: Operation, a: f64, b: f64) -> Result<String, ToolError> {
    let value = match operation {
        Operation::Add => a + b,
        Operation::Subtract => a - b,
        Operation::Multiply => a * b,
        Operation::Divide if b == 0.0 => return Err(ToolError::new("cannot divide by zero")),
        Operation::Divide => a / b,
    };
    Ok(format!("result: {value}"))
}

/// Count the characters and words of a text.
#[tool]
fn text_analyzer(text: String) -> String {
    format!("characters: {}\nwords: {}", text.chars().count(), text.split_whitespace().count())
}

/// Sleep for `ms` milliseconds.
#[tool]
async fn sleep(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// `calculator` with task support (`--tasks` only, so the three tools every
/// peer serves are listed alone otherwise): the same function, under
/// another name, whose calls a client may ask to run as tasks.
struct CalculatorTask;

impl Tool for CalculatorTask {
    fn definition(&self) -> ToolDefinition {
        let mut builder = ToolBuilder::new("calculator_task", module_path!(), "CalculatorTask");
        builder
            .description(Some("Perform basic arithmetic on two numbers, as a task if asked."))
            .argument::<Operation>("operation", None, true)
            .argument::<f64>("a", None, true)
            .argument::<f64>("b", None, true)
            .task(TaskSupport::Optional);
        builder.build()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        calculator::Tool.call(request)
    }
}

/// Calls the `--layers` layers have seen: real work for each layer, so
/// none is optimized away.
static SEEN: AtomicU64 = AtomicU64::new(0);

fn main() -> Result<(), mcp_runtime::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|at| args.get(at + 1));
    // 4 MiB: room for the 1 MB argument, and the soak's oversized lines
    // are refused without costing a 16 MiB buffer each.
    let mut server = Server::new("bench-ours", "1.0.0").max_message_size(4 << 20);
    if args.iter().any(|a| a == "--tasks") {
        server = server.tool(CalculatorTask);
    }
    // Pass-through layers written as a user writes one (`from_fn`): count
    // the call, then run the rest of the pipeline.
    let layers: usize = match value("--layers").map(|n| n.parse()) {
        None => 0,
        Some(Ok(layers)) => layers,
        Some(Err(_)) => {
            eprintln!("bench-ours: --layers takes a number of layers");
            std::process::exit(2);
        }
    };
    for _ in 0..layers {
        server = server.layer(middleware::from_fn(|invocation, next: middleware::Next| async move {
            SEEN.fetch_add(1, Ordering::Relaxed);
            next.run(invocation).await
        }));
    }
    // Streamable HTTP, for the HTTP tables and soak.
    #[cfg(feature = "http")]
    if let Some(addr) = value("--http") {
        let runtime = tokio::runtime::Runtime::new().map_err(mcp_runtime::Error::Runtime)?;
        return runtime.block_on(server.serve_http(addr.as_str()));
    }
    // Its flags are its own: none is left for `run_stdio`.
    server.args(Vec::<String>::new()).run_stdio()
}
