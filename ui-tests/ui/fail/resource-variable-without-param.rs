use mcp_runtime::prelude::*;

/// A user's profile.
#[resource("users://{user_id}/profile")]
fn profile(user: u64) -> String {
    user.to_string()
}

/// Search results.
#[resource("search://{query}{?page}")]
fn search(query: String) -> String {
    query
}

fn main() {}
