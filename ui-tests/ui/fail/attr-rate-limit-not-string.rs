use mcp_runtime::tool;

/// A bare number of calls, with no period.
#[tool(rate_limit = 5)]
fn chatty() {}

fn main() {}
