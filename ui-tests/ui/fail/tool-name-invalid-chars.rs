use mcp_runtime::tool;

#[tool(name = "add numbers")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
