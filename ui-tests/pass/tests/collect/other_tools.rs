//! Tools in a second file, collected with the first's.

use mcp_runtime::prelude::*;

/// Multiply two integers.
#[tool]
pub fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

/// Negate a number.
#[tool]
pub(crate) async fn negate(x: f64) -> f64 {
    -x
}
