use mcp_runtime::tool;

/// Read something.
#[tool(read_only = "yes")]
fn read() {}

fn main() {}
