use mcp_runtime::tool;

/// Add two numbers.
#[tool(read_only)]
#[tool(name = "plus")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
