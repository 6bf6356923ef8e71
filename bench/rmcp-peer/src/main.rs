//! The benchmark's peer, written the way the official Rust SDK's README
//! shows: a router struct, `#[tool]` methods taking `Parameters<T>`. Over
//! stdio, or over Streamable HTTP with `--http ADDR` (sessions, the
//! default configuration) or `--http-stateless ADDR` (no sessions, JSON
//! responses), its tower service mounted in axum as its docs show. Without
//! the default feature `http`, a stdio-only server.

use std::time::Duration;

#[cfg(feature = "http")]
use axum::serve::ListenerExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
#[cfg(feature = "http")]
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
#[cfg(feature = "http")]
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
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
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        #[cfg(feature = "http")]
        (Some("--http"), Some(addr)) => serve_http(&addr, StreamableHttpServerConfig::default()).await,
        #[cfg(feature = "http")]
        (Some("--http-stateless"), Some(addr)) => {
            let config = StreamableHttpServerConfig::default().with_legacy_session_mode(false).with_json_response(true);
            serve_http(&addr, config).await
        }
        _ => {
            let service = Peer::new().serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
            Ok(())
        }
    }
}

/// Streamable HTTP at `/mcp`. The service makes a handler per session (per
/// request when stateless): a clone of one built here, so the tool router
/// is built once, as a production server would keep it.
#[cfg(feature = "http")]
async fn serve_http(addr: &str, config: StreamableHttpServerConfig) -> Result<(), Box<dyn std::error::Error>> {
    let peer = Peer::new();
    let service = StreamableHttpService::new(move || Ok(peer.clone()), LocalSessionManager::default().into(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    // TCP_NODELAY on accepted connections, as axum's docs show, so no
    // response waits on Nagle's algorithm.
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    eprintln!("bench-rmcp-peer: serving at http://{local}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}
