use mcp_runtime::prelude::*;

/// Add two numbers.
#[tool]
async fn add(
    /// The left operand
    a: f64,
    /// The right operand
    b: f64,
) -> f64 {
    a + b
}

/// Negate a number.
#[tool]
fn negate(x: i64) -> i64 {
    -x
}

fn main() {
    let _ = Server::new("all", "1.0");
    let _ = Server::empty("subset", "1.0").tool(add::Tool).tool(negate::Tool);
}
