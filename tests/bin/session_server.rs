//! A server started as a user's is (`Server::run`, `--http ADDR` on the
//! command line), with HTTP options given in code: room for two sessions
//! and a `/health` route of its own. The tests of what it logs as
//! sessions come and go (`server_logs.rs`) and of routes served by `run`
//! (`http_routes.rs`) start it. An argument besides `--http` is the level
//! it sets with `Server::log_level`; without one it keeps the default.

use mcp_runtime::Server;
use mcp_runtime::axum::routing::get;
use mcp_runtime::logging::LevelFilter;
use mcp_runtime::transport::HttpOptions;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mut server = Server::empty("sessions", "0.0.0");
    if let Some(level) = std::env::args().skip(1).find(|arg| !arg.starts_with("--http")) {
        server = server.log_level(level.parse::<LevelFilter>().expect("the argument is a level"));
    }
    let http = HttpOptions::new().max_sessions(2).route("/health", get(|| async { "ok" }));
    server.http_options(http).run().await
}
