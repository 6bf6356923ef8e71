use mcp_runtime::tool;

/// A header name with a space, and one that is not a string.
#[tool]
fn spaced(#[arg(header = "Two Words")] a: String, #[arg(header = 1)] b: String) -> String {
    a + &b
}

/// A schema profile that does not exist.
#[tool(schema = "loose")]
fn loose(a: String) -> String {
    a
}

fn main() {}
