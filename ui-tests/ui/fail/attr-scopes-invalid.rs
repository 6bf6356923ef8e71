use mcp_runtime::prelude::*;

/// An empty scope, and two scopes in one string.
#[tool(scopes = ["", "notes:read notes:write"])]
fn write() {}

/// A scope with a quote in it.
#[resource("notes://all", scopes = ["notes\"all"])]
fn all() -> String {
    String::new()
}

fn main() {}
