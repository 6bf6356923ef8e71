use mcp_runtime::prelude::*;

/// The configuration, for one section.
#[resource("config://app")]
fn config(section: String) -> String {
    section
}

fn main() {}
