//! The MCP Registry's `server.json` for a crate: read from the crate's
//! manifest, checked against the crate (its README's `mcp-name` line,
//! its version) and against the registry's pinned schema.

pub mod checks;
pub mod http;
pub mod manifest;
pub mod schema;
pub mod server_json;
