use mcp_runtime::tool;

#[tool]
struct Calculator;

fn main() {}
