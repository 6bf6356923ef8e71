use mcp_runtime::tool;

#[tool]
trait Calculator {
    fn add(a: f64, b: f64) -> f64;
}

trait Adder {
    #[tool]
    fn add(a: f64, b: f64) -> f64;
}

fn main() {}
