use mcp_runtime::prelude::*;

/// A user's profile.
#[resource("users://{id}/profile")]
fn profile(id: u64, idd: u64) -> String {
    format!("{id} {idd}")
}

fn main() {}
