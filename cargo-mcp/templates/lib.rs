//! The tools of {{name}}: each `#[tool]` function here is served by
//! `src/main.rs` and tested by `tests/tools.rs`. Add yours beside them.

use mcp_runtime::prelude::*;

/// The server's name in the MCP Registry: the README's `mcp-name:` line
/// and `[package.metadata.mcp] name` in Cargo.toml say the same.
pub const MCP_NAME: &str = "{{mcp_name}}";

/// The server as clients see it: its name, its version (the crate's), and
/// every `#[tool]` of this library.
pub fn server() -> Server {
    Server::new("{{name}}", env!("CARGO_PKG_VERSION")).instructions(env!("CARGO_PKG_DESCRIPTION"))
}

/// Add two numbers.
#[tool]
fn add(
    /// The first number
    a: f64,
    /// The second number
    b: f64,
) -> f64 {
    a + b
}

/// Greet someone by name.
#[tool]
fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}
