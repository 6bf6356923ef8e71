use mcp_runtime::tool;

#[tool(name = add)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// A number where text belongs.
#[tool(description = 5)]
fn five() {}

fn main() {}
