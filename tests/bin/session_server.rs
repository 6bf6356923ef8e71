//! A server over Streamable HTTP with room for two sessions, for the
//! tests of what it logs on stderr as sessions come and go
//! (`server_logs.rs`). An argument is the level it sets in code with
//! `Server::log_level`; without one it keeps the default.

use mcp_runtime::Server;
use mcp_runtime::logging::LevelFilter;
use mcp_runtime::transport::HttpOptions;

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let mut server = Server::empty("sessions", "0.0.0");
    if let Some(level) = std::env::args().nth(1) {
        server = server.log_level(level.parse::<LevelFilter>().expect("the argument is a level"));
    }
    server.serve_http_with("127.0.0.1:0", HttpOptions::new().max_sessions(2)).await
}
