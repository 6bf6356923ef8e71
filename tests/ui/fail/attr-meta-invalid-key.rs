use mcp_runtime::tool;

/// Reserved prefix, bad name, repeated key.
#[tool(meta("io.modelcontextprotocol/ui" = 1, "com.example/-x" = 2, "com.example/a" = 3, "com.example/a" = 4))]
fn tagged() {}

fn main() {}
