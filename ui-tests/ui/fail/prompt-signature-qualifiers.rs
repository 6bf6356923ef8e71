use mcp_runtime::prelude::*;

/// Greet at compile time.
#[prompt]
const fn greet_const() -> &'static str {
    "hello"
}

/// Greet without the compiler's checks.
#[prompt]
unsafe fn greet_unsafe(name: String) -> String {
    name
}

/// Greet any type.
#[prompt]
fn greet_generic<T: std::fmt::Display>(name: String) -> String {
    name
}

/// Greet through a pattern.
#[prompt]
fn greet_pattern((name, _): (String, u8)) -> String {
    name
}

fn main() {}
