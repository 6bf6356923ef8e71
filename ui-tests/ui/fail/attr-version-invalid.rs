use mcp_runtime::tool;

const V2: &str = "2";

/// A number where the version's string goes.
#[tool(name = "search", version = 2)]
fn number(a: String) -> String {
    a
}

/// A dotted number.
#[tool(name = "search", version = 1.5)]
fn dotted(a: String) -> String {
    a
}

/// A constant where a literal goes.
#[tool(name = "search", version = V2)]
fn constant(a: String) -> String {
    a
}

/// An empty version.
#[tool(name = "search", version = "")]
fn empty(a: String) -> String {
    a
}

/// Spaces around it.
#[tool(name = "search", version = " 3 ")]
fn spaced(a: String) -> String {
    a
}

/// Said twice.
#[tool(name = "search", version = "1", version = "2")]
fn twice(a: String) -> String {
    a
}

fn main() {}
