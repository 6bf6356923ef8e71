use mcp_runtime::tool;

/// Add two numbers.
#[tool(title)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
