use mcp_runtime::tool;

struct Calculator;

#[tool]
impl Calculator {
    fn add(a: f64, b: f64) -> f64 {
        a + b
    }
}

fn main() {}
