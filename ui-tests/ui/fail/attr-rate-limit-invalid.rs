use mcp_runtime::tool;

/// Not calls per period.
#[tool(rate_limit = "ten per second")]
fn chatty() {}

/// Allows nothing.
#[tool(rate_limit = "0/s")]
fn silent() {}

fn main() {}
