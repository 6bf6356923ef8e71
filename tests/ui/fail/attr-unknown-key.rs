use mcp_runtime::tool;

#[tool(nmae = "add", read_only)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
