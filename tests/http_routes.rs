//! The program's own routes beside the MCP endpoint (`HttpOptions::route`),
//! served by the server's own accept loop: they answer, the endpoint still
//! answers MCP and keeps its checks, and a route in the server's way is an
//! error when it starts.

use std::net::SocketAddr;

use crate::common::http::Client;
use mcp_runtime::axum::routing::{get, post};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::{HttpOptions, ServerCard};
use mcp_runtime::{Error, Server};
use reqwest::StatusCode;
use serde_json::json;

/// Shout the text back.
#[tool]
fn shout(text: String) -> String {
    text.to_uppercase()
}

fn server() -> Server {
    Server::empty("routes-test", "1").tool(shout::Tool)
}

/// Serve `options` as `serve_http_with` does (the server's accept loop),
/// on a free loopback port: the base URL, without the endpoint's path.
async fn serve(options: HttpOptions) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { server().serve_http_on(listener, options).await.unwrap() });
    format!("http://{addr}")
}

/// MCP on `url`: a session, and a call answered.
async fn answers_mcp(url: &str) {
    let mut client = Client::new(url);
    client.initialize().await;
    let called = client.call("shout", json!({"text": "hi"})).await;
    assert_eq!(called.status, StatusCode::OK, "{called:?}");
    assert_eq!(called.last()["result"]["content"][0]["text"], "HI");
}

#[tokio::test]
async fn an_added_health_route_answers_beside_the_endpoint() {
    let base = serve(HttpOptions::new().route("/health", get(|| async { "ok" }))).await;
    let http = reqwest::Client::new();
    let health = http.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    assert_eq!(health.text().await.unwrap(), "ok");
    answers_mcp(&format!("{base}/mcp")).await;
    // The route's own methods, and nothing where no route is.
    let posted = http.post(format!("{base}/health")).send().await.unwrap();
    assert_eq!(posted.status(), StatusCode::METHOD_NOT_ALLOWED);
    let missing = http.get(format!("{base}/nowhere")).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
}

/// A route that matches every path is reached only where the server's
/// own paths are not; a token the endpoint asks for is not asked of the
/// routes, and the routes do not lift it from the endpoint.
#[tokio::test]
async fn routes_never_shadow_or_weaken_the_endpoint() {
    let options = HttpOptions::new()
        .bearer_token("s3cret-token")
        .route("/{*rest}", get(|| async { "the program's" }).post(|| async { "the program's" }));
    let base = serve(options).await;
    let http = reqwest::Client::new();
    let other = http.get(format!("{base}/anything/at/all")).send().await.unwrap();
    assert_eq!(other.text().await.unwrap(), "the program's", "no token asked of the program's route");
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let unauthorized = http.post(format!("{base}/mcp")).json(&ping).send().await.unwrap();
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED, "the endpoint still asks for its token");

    let mut client = Client::new(&format!("{base}/mcp"));
    client.http = reqwest::Client::builder()
        .default_headers(
            [(reqwest::header::AUTHORIZATION, "Bearer s3cret-token".parse().unwrap())].into_iter().collect(),
        )
        .build()
        .unwrap();
    client.initialize().await;
    let called = client.call("shout", json!({"text": "mcp"})).await;
    assert_eq!(called.last()["result"]["content"][0]["text"], "MCP", "the endpoint answers MCP, not the route");
}

#[tokio::test]
async fn routes_answer_only_the_hosts_and_origins_the_endpoint_does() {
    let base = serve(HttpOptions::new().route("/health", get(|| async { "ok" }))).await;
    let http = reqwest::Client::new();
    let rebound = http.get(format!("{base}/health")).header("host", "evil.example").send().await.unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
    assert!(rebound.text().await.unwrap().contains("HttpOptions::allowed_hosts"));
    let page = http.get(format!("{base}/health")).header("origin", "http://evil.example").send().await.unwrap();
    assert_eq!(page.status(), StatusCode::FORBIDDEN);

    let options = HttpOptions::new().allowed_hosts(["mcp"]).route("/health", get(|| async { "ok" }));
    let base = serve(options).await;
    let named = http.get(format!("{base}/health")).header("host", "mcp:8080").send().await.unwrap();
    assert_eq!(named.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn the_router_to_mount_serves_the_routes_too_behind_the_endpoint() {
    let options =
        HttpOptions::new().route("/health", get(|| async { "ok" })).route("/{*rest}", post(|| async { "caught" }));
    let router = server().http_router(options).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { mcp_runtime::axum::serve(listener, router).await.unwrap() });
    let health = reqwest::get(format!("http://{addr}/health")).await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    answers_mcp(&format!("http://{addr}/mcp")).await;
    let caught = reqwest::Client::new().post(format!("http://{addr}/elsewhere")).send().await.unwrap();
    assert_eq!(caught.text().await.unwrap(), "caught");
}

/// A program started with `run` (`--http ADDR`) serves the routes of the
/// options it gave `Server::http_options`, beside MCP.
#[tokio::test]
async fn a_server_run_from_the_command_line_serves_its_routes() {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_session-server"));
    command.arg("--http=127.0.0.1:0").env_remove("MCP_TRANSPORT");
    let (_server, url) = crate::common::served_over_http(command).await;
    let health = reqwest::get(url.replace("/mcp", "/health")).await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    Client::new(&url).initialize().await;
}

/// Why `options` cannot be served, both ways of serving them.
async fn refused(options: HttpOptions) -> String {
    let Err(mounted) = server().http_router(options.clone()) else { panic!("the router was built") };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served = server().serve_http_on(listener, options).await.expect_err("the server does not start");
    assert!(matches!(served, Error::InvalidRoute { .. }), "{served}");
    assert_eq!(mounted.to_string(), served.to_string());
    served.to_string()
}

#[tokio::test]
async fn a_route_in_the_servers_way_is_an_error_at_start_not_a_panic() {
    let ok = || get(|| async { "ok" });
    let why = refused(HttpOptions::new().route("/mcp", ok())).await;
    assert!(why.contains("`/mcp`") && why.contains("the MCP endpoint"), "{why}");
    let why = refused(HttpOptions::new().path("/api/mcp").route("api/mcp", ok())).await;
    assert!(why.contains("`/api/mcp`") && why.contains("the MCP endpoint"), "{why}");
    let card = HttpOptions::new().server_card(ServerCard::new("com.example/routes"));
    let why = refused(card.route("/.well-known/ai-catalog.json", ok())).await;
    assert!(why.contains("the server card"), "{why}");

    let why = refused(HttpOptions::new().route("/hook", ok()).route("/hook", post(|| async { "posted" }))).await;
    assert!(why.contains("added twice") && why.contains("get(a).post(b)"), "{why}");
    let why = refused(HttpOptions::new().route("/users/{id}", ok()).route("/users/{name}", ok())).await;
    assert!(why.contains("`/users/{name}`") && why.contains("conflict"), "{why}");
    let why = refused(HttpOptions::new().route("/users/:id", ok())).await;
    assert!(why.contains("`{name}`"), "{why}");
}
