//! The calculator server: two tools over stdio.
//!
//! ```sh
//! cargo run --example calculator
//! ```
//!
//! Connect an MCP client to it (see the README), or try it by hand:
//!
//! ```sh
//! printf '%s\n' \
//!   '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}' \
//!   '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculator","arguments":{"operation":"add","a":3,"b":5}}}' \
//!   | cargo run -q --example calculator
//! ```

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

/// An arithmetic operation.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Operation {
    Add,
    Subtract,
    Multiply,
    Divide,
}

/// Perform basic arithmetic on two numbers.
#[tool(read_only, idempotent, open_world = false)]
async fn calculator(
    /// Which operation to apply
    operation: Operation,
    /// The first operand
    a: f64,
    /// The second operand
    b: f64,
) -> Result<String, ToolError> {
    let value = match operation {
        Operation::Add => a + b,
        Operation::Subtract => a - b,
        Operation::Multiply => a * b,
        Operation::Divide if b == 0.0 => return Err(ToolError::new("cannot divide by zero: `b` must not be 0")),
        Operation::Divide => a / b,
    };
    Ok(format!("result: {value}"))
}

/// Count the characters and words of a text.
///
/// Characters are Unicode scalar values; words are runs of non-whitespace.
#[tool(read_only, idempotent, open_world = false)]
fn text_analyzer(
    /// The text to analyze
    text: String,
) -> String {
    let characters = text.chars().count();
    let words = text.split_whitespace().count();
    format!("characters: {characters}\nwords: {words}")
}

fn main() -> Result<(), mcp_runtime::Error> {
    // stdio on one thread (the fast way to serve one client), or HTTP with
    // `--http ADDR` on a multi-threaded runtime.
    Server::new("calculator", env!("CARGO_PKG_VERSION")).run_blocking()
}
