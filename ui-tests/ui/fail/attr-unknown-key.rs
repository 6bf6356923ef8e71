use mcp_runtime::tool;

/// Add two numbers.
#[tool(nmae = "add", readOnlyHint, colour = "red")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
