//! Our entry for the published MCP workload ("MCP Server Performance
//! Benchmark v2", `ADDING_SERVERS.md`'s tool contract), written as a user of
//! this framework writes a server: `#[tool]` functions with typed arguments
//! and the contract's defaults, one `reqwest` client and one Redis
//! connection shared through `State`, the parallel steps with
//! `tokio::join!`.
//!
//! The tools make the same calls as the benchmark's rmcp entry
//! (`bench/workload-rmcp`), with the same Redis commands and keys and the
//! same HTTP requests, and answer with the same JSON.
//!
//! ```sh
//! API_SERVICE_URL=http://127.0.0.1:8100 REDIS_URL=redis://127.0.0.1:6379 \
//!     bench-workload --http 127.0.0.1:8080     # MCP at /mcp, GET /health
//! ```

use std::collections::HashMap;
use std::net::SocketAddr;

use mcp_runtime::axum::{http::header, routing::get};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::HttpOptions;
use redis::aio::ConnectionManager;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What every tool talks to: the catalog service and Redis.
struct Backends {
    http: reqwest::Client,
    redis: ConnectionManager,
    api: String,
}

/// The catalog service's failures are the tool's: shown to the client.
fn failed(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(format!("{what}: {error}"))
}

/// Search products by category and price range, merged with popularity data
#[tool]
async fn search_products(
    #[arg(default = "Electronics")] category: String,
    #[arg(default = 50.0)] min_price: f64,
    #[arg(default = 500.0)] max_price: f64,
    #[arg(default = 10)] limit: u32,
    backends: State<Backends>,
) -> Result<String, ToolError> {
    let search = async {
        let query = [
            ("category", category.clone()),
            ("min_price", min_price.to_string()),
            ("max_price", max_price.to_string()),
            ("limit", limit.to_string()),
        ];
        let url = reqwest::Url::parse_with_params(&format!("{}/products/search", backends.api), &query)
            .map_err(|e| failed("product search", e))?;
        let response = backends.http.get(url).send().await.map_err(|e| failed("product search", e))?;
        response.json::<Value>().await.map_err(|e| failed("product search", e))
    };
    let mut redis = backends.redis.clone();
    let mut top = redis::cmd("ZREVRANGE");
    top.arg("bench:popular").arg(0).arg(9);
    let popular = top.query_async::<Vec<String>>(&mut redis);
    let (search, popular) = tokio::join!(search, popular);
    let search = search?;
    // As the contract's entries do: without Redis, no ranks.
    let top10: Vec<u64> =
        popular.unwrap_or_default().iter().filter_map(|m| m.strip_prefix("product:")?.parse().ok()).collect();
    let rank: HashMap<u64, usize> = top10.iter().enumerate().map(|(at, &id)| (id, at + 1)).collect();
    let products: Vec<Value> = search["products"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|product| {
            let id = product["id"].as_u64().unwrap_or(0);
            json!({
                "id": id, "sku": product["sku"], "name": product["name"],
                "price": product["price"], "rating": product["rating"],
                "popularity_rank": rank.get(&id).copied().unwrap_or(0),
            })
        })
        .collect();
    Ok(json!({
        "category": category,
        "total_found": search["total_found"],
        "products": products,
        "top10_popular_ids": top10,
        "server_type": "rust",
    })
    .to_string())
}

/// Get user cart details with recent order history
#[tool]
async fn get_user_cart(
    #[arg(default = "user-00042")] user_id: String,
    backends: State<Backends>,
) -> Result<String, ToolError> {
    let mut redis = backends.redis.clone();
    // First the cart: its first product is the one to read.
    let cart: HashMap<String, String> =
        redis::cmd("HGETALL").arg(format!("bench:cart:{user_id}")).query_async(&mut redis).await.unwrap_or_default();
    let items: Value = cart.get("items").and_then(|items| serde_json::from_str(items).ok()).unwrap_or(json!([]));
    let first_product = items[0]["product_id"].as_u64().unwrap_or(1);
    let estimated_total: f64 = cart.get("total").and_then(|t| t.parse().ok()).unwrap_or(0.0);
    // Then the product and the history at once; the product's answer is
    // not used, as in the contract.
    let product = backends.http.get(format!("{}/products/{first_product}", backends.api)).send();
    let mut recent = redis::cmd("LRANGE");
    recent.arg(format!("bench:history:{user_id}")).arg(0).arg(4);
    let history = recent.query_async::<Vec<String>>(&mut redis);
    let (_, history) = tokio::join!(product, history);
    let recent_history: Vec<Value> = history
        .unwrap_or_default()
        .iter()
        .map(|entry| serde_json::from_str(entry).unwrap_or_else(|_| json!({ "raw": entry })))
        .collect();
    let item_count = items.as_array().map_or(0, Vec::len);
    Ok(json!({
        "user_id": user_id,
        "cart": { "items": items, "item_count": item_count, "estimated_total": estimated_total },
        "recent_history": recent_history,
        "server_type": "rust",
    })
    .to_string())
}

/// One line of an order.
#[derive(Deserialize, Serialize, JsonSchema)]
struct CheckoutItem {
    product_id: u32,
    quantity: u32,
}

fn default_items() -> Vec<CheckoutItem> {
    vec![CheckoutItem { product_id: 42, quantity: 2 }, CheckoutItem { product_id: 1337, quantity: 1 }]
}

/// Process checkout: calculate total, update rate limit, record history
#[tool]
async fn checkout(
    #[arg(default = "user-00042")] user_id: String,
    #[arg(default = default_items())] items: Vec<CheckoutItem>,
    backends: State<Backends>,
) -> Result<String, ToolError> {
    let user_number: u64 = user_id.rsplit('-').next().and_then(|n| n.parse().ok()).unwrap_or(42);
    let rate_key = format!("bench:ratelimit:user-{:05}", user_number % 100);
    let product = items.first().map_or(42, |item| item.product_id);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs();
    let order = json!({ "order_id": format!("ORD-{user_id}-{now}"), "items": items, "ts": now }).to_string();
    // The price from the catalog service, and the counter, the history and
    // the popularity in one Redis round trip, at once.
    let calculate = async {
        let body = json!({ "user_id": user_id, "items": items });
        let response = backends.http.post(format!("{}/cart/calculate", backends.api)).json(&body).send().await?;
        response.json::<Value>().await
    };
    let mut redis = backends.redis.clone();
    let mut pipe = redis::pipe();
    pipe.cmd("INCR").arg(&rate_key);
    pipe.cmd("RPUSH").arg(format!("bench:history:{user_id}")).arg(&order).ignore();
    pipe.cmd("ZADD").arg("bench:popular").arg("INCR").arg(1).arg(format!("product:{product}")).ignore();
    let counted = pipe.query_async::<(i64,)>(&mut redis);
    let (calculated, counted) = tokio::join!(calculate, counted);
    let calculated = calculated.map_err(|e| failed("cart calculation", e))?;
    Ok(json!({
        "order_id": calculated["order_id"].as_str().unwrap_or("ORD-unknown"),
        "user_id": user_id,
        "total": calculated["total"].as_f64().unwrap_or(0.0),
        "items_count": items.len(),
        "rate_limit_count": counted.map_or(0, |(count,)| count),
        "status": "confirmed",
        "server_type": "rust",
    })
    .to_string())
}

const USAGE: &str =
    "usage: bench-workload [--no-session-ids] --http ADDR (API_SERVICE_URL and REDIS_URL from the environment)";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // These tools keep nothing per session, so the entry may answer
    // without session ids as the rmcp entry does (no DELETE follows);
    // the default issues them, as a user's first server would.
    let (session_ids, addr) = match &args[..] {
        [flag, addr] if flag == "--http" => (true, addr.clone()),
        [no, flag, addr] if no == "--no-session-ids" && flag == "--http" => (false, addr.clone()),
        _ => return Err(USAGE.into()),
    };
    let api = std::env::var("API_SERVICE_URL").unwrap_or_else(|_| "http://mcp-api-service:8100".into());
    let redis_url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://mcp-redis:6379".into());
    let http = reqwest::Client::builder().pool_max_idle_per_host(50).tcp_nodelay(true).build()?;
    let redis = ConnectionManager::new(redis::Client::open(redis_url)?).await?;

    // The contract's /health is a route of our own on the runtime's
    // server, so its accept loop (TCP_NODELAY, connection limits) and
    // logger stay.
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let local: SocketAddr = listener.local_addr()?;
    let health = || async { ([(header::CONTENT_TYPE, "application/json")], r#"{"status":"ok","server_type":"rust"}"#) };
    let mut options = HttpOptions::new().route("/health", get(health)).session_ids(session_ids);
    if !local.ip().is_loopback() {
        // In a container, clients name the server by its service name.
        options = options.allow_any_host();
    }
    Server::new("bench-workload", env!("CARGO_PKG_VERSION"))
        .with_state(Backends { http, redis, api })
        .serve_http_on(listener, options)
        .await?;
    Ok(())
}
