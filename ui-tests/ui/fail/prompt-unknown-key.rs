use mcp_runtime::prelude::*;

/// Greet someone.
#[prompt(tittle = "Greeting", descripton = "Say hello")]
fn greet(name: String) -> String {
    format!("Say hello to {name}.")
}

fn main() {}
