//! The code `#[tool]` generates, expanded against a runtime that speaks
//! another interface version (here, a crate path with none): one error that
//! says what is wrong, not one per generated path.

mod other_runtime {
    pub mod __private {}
}

/// Add two numbers.
#[mcp_runtime::tool(crate = "crate::other_runtime")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    let _ = add(1.0, 2.0);
}
