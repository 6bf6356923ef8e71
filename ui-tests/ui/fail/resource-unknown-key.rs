use mcp_runtime::prelude::*;

/// The configuration.
#[resource("config://app", mimetype = "application/json", sise = 10)]
fn config() -> String {
    "{}".to_owned()
}

fn main() {}
