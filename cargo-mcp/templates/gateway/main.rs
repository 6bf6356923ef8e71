//! Serve the library's tools together with every server of an
//! `mcpServers` file (`MCP_GATEWAY_CONFIG`, `gateway.json` by default;
//! `gateway.example.json` shows one), each mounted under its name: a tool
//! `add` of a server `calc` is `calc_add`. Over stdio, or Streamable HTTP
//! with `MCP_TRANSPORT=http`.

use mcp_runtime::proxy::Config;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::var("MCP_GATEWAY_CONFIG").unwrap_or_else(|_| "gateway.json".into());
    let mut server = {{crate}}::server();
    if std::path::Path::new(&path).exists() {
        server = server.mount_config(&Config::from_file(&path)?);
    } else {
        eprintln!("{{name}}: no {path}, so only this crate's own tools are served");
    }
    server.run_blocking()?;
    Ok(())
}
