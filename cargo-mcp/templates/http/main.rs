//! Serve the library's tools over Streamable HTTP at `MCP_HTTP_ADDR`
//! (`127.0.0.1:8000` by default), with a server card at `/mcp/server-card`
//! for clients to read before they connect (experimental: it follows the
//! SEP-2127 draft). Set `MCP_PUBLIC_URL` to the URL clients use once the
//! server is deployed, and `MCP_TOKEN` to require a bearer token.

use mcp_runtime::transport::{HttpOptions, ServerCard};

fn main() -> Result<(), mcp_runtime::Error> {
    let addr = std::env::var("MCP_HTTP_ADDR").unwrap_or_else(|_| "127.0.0.1:8000".into());
    let mut card = ServerCard::new({{crate}}::MCP_NAME).description(env!("CARGO_PKG_DESCRIPTION"));
    let mut options = HttpOptions::new();
    if let Ok(url) = std::env::var("MCP_PUBLIC_URL") {
        card = card.url(url);
    }
    if let Ok(token) = std::env::var("MCP_TOKEN") {
        options = options.bearer_token(token);
    }
    let runtime = tokio::runtime::Runtime::new().map_err(mcp_runtime::Error::Runtime)?;
    runtime.block_on({{crate}}::server().serve_http_with(addr.as_str(), options.server_card(card)))
}
