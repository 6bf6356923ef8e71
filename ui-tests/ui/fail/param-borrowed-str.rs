use mcp_runtime::tool;

/// Greet someone.
#[tool]
fn greet(name: &str) -> String {
    format!("hello {name}")
}


/// Sum numbers.
#[tool]
fn sum(values: &[f64]) -> f64 {
    values.iter().sum()
}
fn main() {}
