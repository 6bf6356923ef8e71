use mcp_runtime::prelude::*;

/// The configuration.
#[resource("app-config")]
fn config() -> String {
    "{}".to_owned()
}

fn main() {}
