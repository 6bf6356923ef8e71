//! Serve the library's tools over Streamable HTTP as an OAuth 2.1
//! protected resource: every request needs an access token that the
//! authorization server at `MCP_OAUTH_ISSUER` issued for this server
//! (`MCP_PUBLIC_URL`, `http://127.0.0.1:8000/mcp` by default), and a tool
//! with `scopes` needs them in the token. Clients find the authorization
//! server in the protected resource metadata the server serves.

use mcp_runtime::transport::{HttpOptions, OAuth, ServerCard};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::var("MCP_HTTP_ADDR").unwrap_or_else(|_| "127.0.0.1:8000".into());
    let resource = std::env::var("MCP_PUBLIC_URL").unwrap_or_else(|_| format!("http://{addr}/mcp"));
    let issuer = std::env::var("MCP_OAUTH_ISSUER")
        .map_err(|_| "set MCP_OAUTH_ISSUER to your authorization server's issuer (https://auth.example.com)")?;
    let card = ServerCard::new({{crate}}::MCP_NAME).description(env!("CARGO_PKG_DESCRIPTION")).url(&resource);
    let options = HttpOptions::new().oauth(OAuth::new(resource, issuer)).server_card(card);
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on({{crate}}::server().serve_http_with(addr.as_str(), options))?;
    Ok(())
}
