//! Serve the library's tools: stdio by default, `--http ADDR` for
//! Streamable HTTP.

// Naming the library keeps it in the link: without this line the linker
// drops its `#[tool]`s, and the server would serve nothing.
use outside_crate as _;

fn main() -> Result<(), mcp_runtime::Error> {
    mcp_runtime::Server::new("outside", "0.1.0").run_blocking()
}
