//! The benchmark's proxy: `bench-proxy UPSTREAM [--http ADDR]` serves the
//! server started as `UPSTREAM` (spoken to over its stdio) as its own,
//! with its names unchanged, so the driver calls it exactly as it calls
//! the upstream itself.

use mcp_runtime::Server;
use mcp_runtime::proxy::Upstream;

fn main() -> Result<(), mcp_runtime::Error> {
    let mut args = std::env::args().skip(1);
    let upstream = args.next().ok_or_else(|| mcp_runtime::Error::Launch("usage: bench-proxy UPSTREAM".into()))?;
    let server = Server::empty("bench-proxy", "1.0.0").mount("", Upstream::command(upstream, Vec::<String>::new()));
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => {
            let runtime = tokio::runtime::Runtime::new().map_err(mcp_runtime::Error::Runtime)?;
            runtime.block_on(server.serve_http(addr))
        }
        _ => server.run_stdio(),
    }
}
