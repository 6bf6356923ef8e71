use mcp_runtime::tool;

#[tool]
fn sum((a, b): (f64, f64)) -> f64 {
    a + b
}

fn main() {}
