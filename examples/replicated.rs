//! One replica of a server that runs as several behind a load balancer,
//! sharing its state through Redis: any replica serves any session, a
//! dropped call stream resumes on any replica, and every client hears of
//! every change. `deploy/scale-out/run` starts three of these behind
//! HAProxy and drives them.
//!
//! ```sh
//! redis-server --port 6379 &
//! REDIS_URL=redis://127.0.0.1:6379/ MCP_REQUEST_STATE_KEY=$(openssl rand -hex 32) REPLICA=r1 \
//!   cargo run --release --example replicated --features redis -- --http 127.0.0.1:8001
//! ```
//!
//! The environment it reads (the same on every replica but `REPLICA`):
//! - `REDIS_URL`: the shared Redis (default `redis://127.0.0.1:6379/`);
//! - `MCP_REQUEST_STATE_KEY`: the key that seals 2026-07-28 request state,
//!   at least 32 bytes (required: replicas must share it);
//! - `MCP_ALLOWED_HOSTS`: the `Host` names clients use, comma-separated,
//!   when not loopback;
//! - `REPLICA`: this replica's name, which every answer carries.

use mcp_runtime::prelude::*;
use mcp_runtime::{Server, stores::RedisStore, transport::HttpOptions};
use schemars::JsonSchema;
use serde::Serialize;

/// A sum, and the replica that worked it out.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
    replica: String,
}

/// Add two integers.
#[tool(read_only, idempotent, open_world = false)]
fn add(
    /// The first operand
    a: i64,
    /// The second operand
    b: i64,
) -> Result<Json<Sum>, ToolError> {
    let sum = a.checked_add(b).ok_or_else(|| ToolError::new("the sum does not fit in 64 bits"))?;
    Ok(Json(Sum { sum, replica: replica() }))
}

fn replica() -> String {
    std::env::var("REPLICA").unwrap_or_else(|_| format!("pid {}", std::process::id()))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let addr = args.windows(2).find(|w| w[0] == "--http").map_or("127.0.0.1:8000", |w| w[1].as_str());
    let redis = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".to_owned());
    let key = std::env::var("MCP_REQUEST_STATE_KEY")
        .map_err(|_| "set MCP_REQUEST_STATE_KEY to the same secret of 32 bytes or more on every replica")?;
    let store = RedisStore::connect(&redis).await.map_err(|e| format!("cannot reach Redis at {redis}: {e}"))?;
    let mut options = HttpOptions::new().shared_store(store);
    if let Ok(hosts) = std::env::var("MCP_ALLOWED_HOSTS") {
        options = options.allowed_hosts(hosts.split(',').map(str::trim).filter(|h| !h.is_empty()));
    }
    Server::new("replicated", "1.0.0").request_state_keys([key]).serve_http_with(addr, options).await?;
    Ok(())
}
