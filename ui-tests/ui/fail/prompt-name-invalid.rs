use mcp_runtime::prelude::*;

/// Greet someone.
#[prompt(name = "greet someone")]
fn greet(name: String) -> String {
    format!("Say hello to {name}.")
}

/// Greet again.
#[prompt("greet_again")]
fn greet_again(name: String) -> String {
    format!("Say hello again to {name}.")
}

fn main() {}
