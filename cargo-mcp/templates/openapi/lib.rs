//! The operations of the HTTP API that `openapi.yaml` describes, served
//! as tools: each `operationId` is a tool's name, its parameters and body
//! the tool's arguments, and a call is a request to the API at
//! `API_BASE_URL` (the document's `servers` URL when unset). Edit the
//! document, or point `openapi.yaml` at your API's own.

use mcp_runtime::Server;
use mcp_runtime::openapi::{Auth, OpenApi, OpenApiError};

/// The server's name in the MCP Registry: the README's `mcp-name:` line
/// and `[package.metadata.mcp] name` in Cargo.toml say the same.
pub const MCP_NAME: &str = "{{mcp_name}}";

const DOCUMENT: &str = include_str!("../openapi.yaml");

/// The server for the API at `base_url` (the document's own when `None`),
/// with `API_TOKEN` as its bearer token when set.
pub fn server(base_url: Option<&str>) -> Result<Server, OpenApiError> {
    let mut api = OpenApi::from_str(DOCUMENT)?;
    if let Some(base) = base_url {
        api = api.base_url(base);
    }
    if let Ok(token) = std::env::var("API_TOKEN") {
        api = api.auth(Auth::bearer(token));
    }
    Ok(Server::empty("{{name}}", env!("CARGO_PKG_VERSION")).openapi(&api)?)
}
