use mcp_runtime::prelude::*;

/// Greet in an ABI the runtime does not call.
#[prompt]
extern "C" fn greet_extern(name: String) -> String {
    name
}

/// Greet, with a bound the runtime cannot see.
#[prompt]
fn greet_where(name: String) -> String
where
    String: Clone,
{
    name
}

/// Greet a hidden generic.
#[prompt]
fn greet_impl(name: impl std::fmt::Display) -> String {
    name.to_string()
}

/// Greet, with settings on the wrong item.
#[prompt]
#[arg(rename = "who")]
fn greet_misplaced(name: String) -> String {
    name
}

/// Greet twice over.
#[prompt]
#[prompt]
fn greet_twice(name: String) -> String {
    name
}

/// Greet with a variadic tail.
#[prompt]
unsafe extern "C" fn greet_variadic(count: usize, _rest: ...) -> String {
    count.to_string()
}

fn main() {}
