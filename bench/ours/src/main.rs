//! The benchmark's server, built with this project: the same three tools
//! every peer serves, with the same answers.

use std::time::Duration;

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

fn main() -> Result<(), mcp_runtime::Error> {
    // 4 MiB: room for the 1 MB argument, and the soak's oversized lines
    // are refused without costing a 16 MiB buffer each.
    let server = Server::new("bench-ours", "1.0.0").max_message_size(4 << 20);
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        // Streamable HTTP, for the HTTP soak.
        #[cfg(feature = "http")]
        (Some("--http"), Some(addr)) => {
            let runtime = tokio::runtime::Runtime::new().map_err(mcp_runtime::Error::Runtime)?;
            runtime.block_on(server.serve_http(addr))
        }
        _ => server.run_stdio(),
    }
}
