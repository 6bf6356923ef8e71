use mcp_runtime::prelude::*;

/// Scopes as one string, not a list of them.
#[tool(scopes = "notes:write")]
fn write() {}

/// A scope that is not a string literal.
#[prompt(scopes = [notes::READ])]
fn review() -> String {
    String::new()
}

fn main() {}
