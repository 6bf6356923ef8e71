use mcp_runtime::prelude::*;

/// The configuration.
#[resource(mime_type = "application/json")]
fn config() -> String {
    "{}".to_owned()
}

fn main() {}
