//! Compiled with `MCP_REQUIRE_DESCRIPTIONS=1`: a tool must say what it does.

use mcp_runtime::tool;

#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Documented: fine.
#[tool]
fn documented() {}

#[tool(description = "Described by the attribute: fine.")]
fn described() {}

fn main() {}
