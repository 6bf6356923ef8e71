//! The benchmark's peer, written the way FlyMCPRust's README shows: plain
//! functions under `#[tool]`, registered with `.tool::<name>()`, served over
//! stdio, or over Streamable HTTP with `--http ADDR`.

use std::time::Duration;

use flymcprust::prelude::*;
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
async fn calculator(operation: Operation, a: f64, b: f64) -> Result<String, ToolError> {
    let value = match operation {
        Operation::Add => a + b,
        Operation::Subtract => a - b,
        Operation::Multiply => a * b,
        Operation::Divide if b == 0.0 => return Err(ToolError::user("cannot divide by zero")),
        Operation::Divide => a / b,
    };
    Ok(format!("result: {value}"))
}

/// Count the characters and words of a text.
#[tool]
async fn text_analyzer(text: String) -> String {
    format!("characters: {}\nwords: {}", text.chars().count(), text.split_whitespace().count())
}

/// Sleep for `ms` milliseconds.
#[tool]
async fn sleep(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("bench-flymcprust", "1.0.0")
        .tool::<calculator>()
        .tool::<text_analyzer>()
        .tool::<sleep>()
        .build()?;
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => {
            // `Server::serve_http` as the README shows, but on a listener
            // bound first, so the driver can learn the port of `:0`.
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!("bench-flymcprust: serving at http://{}/mcp", listener.local_addr()?);
            let service = flymcprust::transport::http::StreamableHttpService::new(server);
            flymcprust::transport::http::serve(listener, service, "/mcp", std::future::pending()).await?;
        }
        _ => server.serve_stdio().await?,
    }
    Ok(())
}
