use mcp_runtime::tool;

/// Add two numbers.
#[tool(crate = "not a path")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
