use mcp_runtime::prelude::*;

/// Tags not in a list.
#[tool(tags = "admin")]
fn one() {}

/// An empty tag, one with spaces around it, and one named twice.
#[tool(tags = ["", " admin", "ops", "ops"])]
fn two() {}

/// A tag that is not a string.
#[prompt(tags = [admin])]
fn three() -> String {
    String::new()
}

fn main() {}
