use mcp_runtime::prelude::*;

/// A note made at compile time.
#[resource("notes://const")]
const fn note_const() -> &'static str {
    "note"
}

/// A note read without the compiler's checks.
#[resource("notes://unsafe")]
unsafe fn note_unsafe() -> String {
    String::new()
}

/// A note of any type.
#[resource("notes://{id}")]
fn note_generic<T: std::fmt::Display>(id: String) -> String {
    id
}

/// A note with a variadic tail.
#[resource("notes://{count}")]
unsafe extern "C" fn note_variadic(count: usize, _rest: ...) -> String {
    count.to_string()
}

fn main() {}
