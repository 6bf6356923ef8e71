use mcp_runtime::tool;

#[tool(name = "add", name = "plus")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
