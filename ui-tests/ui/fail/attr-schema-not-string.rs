use mcp_runtime::tool;

/// A number where a profile's name goes.
#[tool(schema = 1)]
fn numbered(a: String) -> String {
    a
}

/// A profile's name, unquoted.
#[tool(schema = portable)]
fn unquoted(a: String) -> String {
    a
}

fn main() {}
