use mcp_runtime::tool;

/// Reserved prefix, bad name, repeated key.
#[tool(meta("io.modelcontextprotocol/ui" = 1, "com.example/-x" = 2, "com.example/a" = 3, "com.example/a" = 4))]
fn tagged() {}

/// Not entries.
#[tool(meta = 1)]
fn flat() {}

/// A key that is not a string.
#[tool(meta(priority = 1))]
fn bare_key() {}

/// A prefix label that starts with a digit.
#[tool(meta("1com.example/x" = 1))]
fn bad_prefix() {}

fn main() {}
