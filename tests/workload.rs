//! Our entry for the published MCP workload (`bench/workload`,
//! `bench-workload`) against that workload's catalog service and a seeded
//! Redis, driven as the benchmark's k6 script drives it (a whole session per
//! call: `initialize` with 2024-11-05, `notifications/initialized`, the
//! call, `DELETE`), each answer checked as the script checks it, and then
//! against the catalog and Redis themselves. Needs `redis-server` on the
//! PATH (CI installs it; elsewhere the test is skipped with a note).

use std::sync::Arc;

use bench_workload_catalog::{catalog::Catalog, seed, service};
use serde_json::{Value, json};

/// The workload's services and our entry, running.
struct Workload {
    mcp: String,
    health: String,
    http: reqwest::Client,
    redis: redis::aio::MultiplexedConnection,
    _entry: tokio::process::Child,
    _redis: crate::replicas::redis::RedisServer,
}

async fn start() -> Option<Workload> {
    let redis_server = crate::replicas::redis::start().await?;
    seed::seed(&redis_server.url, true).await.expect("seeding Redis as seed.py does");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(service::serve(listener, Arc::new(Catalog::build())));
    let mut command = tokio::process::Command::new(crate::common::workspace_binary("bench-workload"));
    command.args(["--http", "127.0.0.1:0"]).env("API_SERVICE_URL", &api).env("REDIS_URL", &redis_server.url);
    let (entry, mcp) = crate::common::served_over_http(command).await;
    let health = mcp.replace("/mcp", "/health");
    let redis =
        redis::Client::open(redis_server.url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    Some(Workload { mcp, health, http: reqwest::Client::new(), redis, _entry: entry, _redis: redis_server })
}

impl Workload {
    /// POST one message as the script does; the status, the session id,
    /// and the body's JSON-RPC message (plain JSON or one SSE event).
    async fn post(&self, message: Value, session: Option<&str>) -> (u16, Option<String>, Option<Value>) {
        let mut request = self
            .http
            .post(&self.mcp)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
        let body = response.text().await.unwrap();
        let json = body.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or(&body).trim().to_owned();
        (status, session, serde_json::from_str(&json).ok())
    }

    /// A whole session around one request; its result.
    async fn session(&self, method: &str, params: Value) -> Value {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "k6-bench", "version": "1.0"}}});
        let (status, session, answer) = self.post(init, None).await;
        assert_eq!(status, 200);
        assert_eq!(answer.unwrap()["result"]["protocolVersion"], "2024-11-05");
        let session = session.expect("our entry gives a session");
        let (status, _, _) =
            self.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), Some(&session)).await;
        assert_eq!(status, 202);
        let request = json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params});
        let (status, _, answer) = self.post(request, Some(&session)).await;
        assert_eq!(status, 200, "{method}: {answer:?}");
        let status = self.http.delete(&self.mcp).header("mcp-session-id", &session).send().await.unwrap().status();
        assert!(status.is_success(), "DELETE: {status}");
        answer.unwrap()["result"].clone()
    }

    /// A tool's result text, as JSON (the contract's tools answer text).
    async fn call(&self, tool: &str, arguments: Value) -> Value {
        let result = self.session("tools/call", json!({"name": tool, "arguments": arguments})).await;
        assert_ne!(result["isError"], true, "{tool}: {result}");
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
    }
}

#[tokio::test]
async fn our_workload_entry_answers_the_published_contract() {
    let Some(mut w) = start().await else { return };
    let health: Value = w.http.get(&w.health).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["status"], "ok");
    let listed = w.session("tools/list", json!({})).await;
    let mut names: Vec<&str> =
        listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["checkout", "get_user_cart", "search_products"]);

    // search_products: the script's arguments, then none (the contract's
    // defaults are the same), both checked as the script checks them.
    let args = json!({"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10});
    let search = w.call("search_products", args).await;
    assert_eq!(search["total_found"], 2251);
    assert_eq!(search["products"].as_array().unwrap().len(), 10);
    let top: Vec<String> =
        redis::cmd("ZREVRANGE").arg("bench:popular").arg(0).arg(9).query_async(&mut w.redis).await.unwrap();
    let top: Vec<u64> = top.iter().map(|m| m.strip_prefix("product:").unwrap().parse().unwrap()).collect();
    assert_eq!(search["top10_popular_ids"], json!(top));
    assert_eq!(
        search["products"][0],
        json!({"id": 4901, "sku": "SKU-004901", "name": "Alpha Electronics Item 4901", "price": 50, "rating": 3,
            "popularity_rank": 0})
    );
    assert_eq!(w.call("search_products", json!({})).await, search);

    // get_user_cart: the seeded cart (user 3 has three items) and the first
    // five of its history.
    let cart = w.call("get_user_cart", json!({"user_id": "user-00003"})).await;
    assert_eq!(cart["user_id"], "user-00003");
    assert_eq!(cart["cart"]["item_count"], 3);
    assert_eq!(cart["cart"]["items"][0], json!({"product_id": 22, "qty": 1}));
    let orders: Vec<&str> =
        cart["recent_history"].as_array().unwrap().iter().map(|o| o["order_id"].as_str().unwrap()).collect();
    assert_eq!(orders, ["ORD-00003-01", "ORD-00003-02", "ORD-00003-03", "ORD-00003-04", "ORD-00003-05"]);

    // checkout: the catalog's total, and Redis's counter, history and
    // popularity moved by one.
    let items = json!([{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]);
    let order = w.call("checkout", json!({"user_id": "user-00007", "items": items})).await;
    assert_eq!(order["status"], "confirmed");
    assert_eq!(order["items_count"], 2);
    assert_eq!(order["order_id"], "ORD-user00007-2");
    // 2 × 1.41 + 14.36 = 17.18, tax 1.46, shipping 5.99.
    assert_eq!(order["total"], 24.63);
    assert_eq!(order["rate_limit_count"], 1);
    let history: i64 = redis::cmd("LLEN").arg("bench:history:user-00007").query_async(&mut w.redis).await.unwrap();
    assert_eq!(history, 21);
    let score: f64 =
        redis::cmd("ZSCORE").arg("bench:popular").arg("product:42").query_async(&mut w.redis).await.unwrap();
    // Seeded at 42 × 7 (below 10,000), one order more.
    assert_eq!(score, 295.0);
    // The contract's defaults: user-00042 and the two items above.
    let default = w.call("checkout", json!({})).await;
    assert_eq!((default["user_id"].as_str(), default["total"].as_f64()), (Some("user-00042"), Some(24.63)));
}
