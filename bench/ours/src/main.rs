//! The benchmark's server, built with this project: the same three tools
//! every peer serves, with the same answers.
//!
//! `bench-ours [--layers N] [--http ADDR]`: over stdio, or Streamable HTTP
//! at `ADDR`; `--layers N` adds N pass-through middleware layers (the
//! driver's middleware row).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_runtime::middleware;
use mcp_runtime::prelude::*;
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

/// Calls the `--layers` layers have seen: real work for each layer, so
/// none is optimized away.
static SEEN: AtomicU64 = AtomicU64::new(0);

fn main() -> Result<(), mcp_runtime::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|at| args.get(at + 1));
    // 4 MiB: room for the 1 MB argument, and the soak's oversized lines
    // are refused without costing a 16 MiB buffer each.
    let mut server = Server::new("bench-ours", "1.0.0").max_message_size(4 << 20);
    // Pass-through layers written as a user writes one (`from_fn`): count
    // the call, then run the rest of the pipeline.
    for _ in 0..value("--layers").and_then(|n| n.parse().ok()).unwrap_or(0) {
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
    server.run_stdio()
}
