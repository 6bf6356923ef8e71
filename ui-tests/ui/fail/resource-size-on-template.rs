use mcp_runtime::prelude::*;

/// A user's avatar.
#[resource("users://{id}/avatar", size = 1024, annotations(priority = 2, audience = ["robot"]))]
fn avatar(id: u64) -> Vec<u8> {
    id.to_be_bytes().to_vec()
}

fn main() {}
