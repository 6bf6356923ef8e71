use mcp_runtime::prelude::*;

/// A user.
#[resource("users://{id/profile")]
fn unclosed(id: u64) -> String {
    id.to_string()
}

/// A fragment.
#[resource("users://{#section}")]
fn operator(section: String) -> String {
    section
}

/// Twice.
#[resource("pairs://{a}/{a}")]
fn twice(a: String) -> String {
    a
}

fn main() {}
