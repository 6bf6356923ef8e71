//! The benchmark's proxy: `bench-proxy UPSTREAM [--http ADDR]` serves the
//! server started as `UPSTREAM` (spoken to over its stdio) as its own,
//! with its names unchanged, so the driver calls it exactly as it calls
//! the upstream itself.
//!
//! With `BENCH_IN_PROCESS=direct` in its environment it serves a
//! calculator of its own over stdio, and with `BENCH_IN_PROCESS=mounted`
//! the same
//! calculator as a [`Server`] of this process mounted with no prefix
//! (`Server::mount`): what an in-process mount costs against calling the
//! server it mounts, everything else alike.

use mcp_runtime::prelude::*;
use mcp_runtime::proxy::Upstream;
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

/// Perform basic arithmetic on two numbers (the answers `bench-ours`
/// gives).
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

fn calculator_server() -> Server {
    Server::empty("bench-calculator", "1.0.0").tool(calculator::Tool)
}

fn main() -> Result<(), mcp_runtime::Error> {
    // From the environment: the stdio server reads the command line as its
    // own flags.
    match std::env::var("BENCH_IN_PROCESS").as_deref() {
        Ok("direct") => return calculator_server().run_stdio(),
        Ok("mounted") => return Server::empty("bench-proxy", "1.0.0").mount("", calculator_server()).run_stdio(),
        _ => {}
    }
    let mut args = std::env::args().skip(1);
    let upstream = args.next().ok_or_else(|| mcp_runtime::Error::Launch("usage: bench-proxy UPSTREAM".into()))?;
    let server = Server::empty("bench-proxy", "1.0.0").mount("", Upstream::command(upstream, Vec::<String>::new()));
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => {
            let runtime = tokio::runtime::Runtime::new().map_err(mcp_runtime::Error::Runtime)?;
            runtime.block_on(server.serve_http(addr))
        }
        _ => server.run_stdio(),
    }
}
