//! Serve the library's tools over stdio (a client starts this program),
//! or over Streamable HTTP with `MCP_TRANSPORT=http` (at `MCP_HTTP_ADDR`,
//! `127.0.0.1:8000` by default).

fn main() -> Result<(), mcp_runtime::Error> {
    {{crate}}::server().run_blocking()
}
