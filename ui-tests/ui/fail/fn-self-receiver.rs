use mcp_runtime::tool;

struct Calculator;

impl Calculator {
    #[tool]
    fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

fn main() {}
