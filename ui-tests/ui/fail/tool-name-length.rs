use mcp_runtime::tool;

/// Empty name.
#[tool(name = "")]
fn empty() {}

/// Over 128 characters.
#[tool(name = "long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_long_")]
fn long() {}

fn main() {}
