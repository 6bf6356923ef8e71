//! A crate that requires documentation, and so requires descriptions.
#![deny(missing_docs, clippy::missing_docs_in_private_items)]

use mcp_runtime::tool;

#[tool]
pub fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
