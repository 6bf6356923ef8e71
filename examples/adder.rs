//! The smallest server: an async and a sync tool, using nothing but
//! `mcp_runtime` (no `tokio`, `serde` or `schemars` in sight).
//!
//! ```sh
//! cargo run --example adder
//! ```

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
fn negate(
    /// The number to negate
    x: f64,
) -> f64 {
    -x
}

fn main() -> Result<(), mcp_runtime::Error> {
    Server::new("adder", "1.0.0").run_stdio()
}
