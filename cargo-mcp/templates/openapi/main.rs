//! Serve the API's operations as tools over stdio, or over Streamable
//! HTTP with `MCP_TRANSPORT=http` (at `MCP_HTTP_ADDR`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = std::env::var("API_BASE_URL").ok();
    {{crate}}::server(base.as_deref())?.run_blocking()?;
    Ok(())
}
