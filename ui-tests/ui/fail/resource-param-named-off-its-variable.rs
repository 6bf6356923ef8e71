use mcp_runtime::prelude::*;

/// A user's profile.
#[resource("users://{id}/profile")]
fn profile(idd: u64) -> String {
    idd.to_string()
}

fn main() {}
