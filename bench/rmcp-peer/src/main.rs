//! The benchmark's peer, written the way the official Rust SDK's README
//! shows: a router struct, `#[tool]` methods taking `Parameters<T>`.

use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
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

/// The calculator's arguments.
#[derive(Deserialize, JsonSchema)]
struct CalculatorArgs {
    operation: Operation,
    a: f64,
    b: f64,
}

/// The text analyzer's arguments.
#[derive(Deserialize, JsonSchema)]
struct TextArgs {
    text: String,
}

/// The sleep tool's arguments.
#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    ms: u64,
}

/// The server.
#[derive(Clone)]
struct Peer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Peer {
    fn new() -> Self {
        Peer { tool_router: Self::tool_router() }
    }

    /// Perform basic arithmetic on two numbers.
    #[tool]
    async fn calculator(&self, Parameters(args): Parameters<CalculatorArgs>) -> Result<String, String> {
        let CalculatorArgs { operation, a, b } = args;
        let value = match operation {
            Operation::Add => a + b,
            Operation::Subtract => a - b,
            Operation::Multiply => a * b,
            Operation::Divide if b == 0.0 => return Err("cannot divide by zero".into()),
            Operation::Divide => a / b,
        };
        Ok(format!("result: {value}"))
    }

    /// Count the characters and words of a text.
    #[tool]
    async fn text_analyzer(&self, Parameters(args): Parameters<TextArgs>) -> String {
        format!("characters: {}\nwords: {}", args.text.chars().count(), args.text.split_whitespace().count())
    }

    /// Sleep for `ms` milliseconds.
    #[tool]
    async fn sleep(&self, Parameters(args): Parameters<SleepArgs>) -> String {
        tokio::time::sleep(Duration::from_millis(args.ms)).await;
        format!("slept {} ms", args.ms)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Peer {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Peer::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
