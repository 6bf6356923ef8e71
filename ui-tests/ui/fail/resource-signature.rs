use mcp_runtime::prelude::*;

/// A note, in an ABI the runtime does not call.
#[resource("notes://{id}")]
extern "C" fn note_extern(id: String) -> String {
    id
}

/// A note, with a bound the runtime cannot see.
#[resource("notes://{id}")]
fn note_where(id: String) -> String
where
    String: Clone,
{
    id
}

/// A note behind a hidden generic.
#[resource("notes://{id}")]
fn note_impl(id: impl std::fmt::Display) -> String {
    id.to_string()
}

/// A note, with settings on the wrong item.
#[resource("notes://{id}")]
#[arg(complete = ids)]
fn note_misplaced(id: String) -> String {
    id
}

/// A note defined twice over.
#[resource("notes://{id}")]
#[resource("notes://{id}")]
fn note_twice(id: String) -> String {
    id
}

/// A note read through a pattern.
#[resource("notes://{id}")]
fn note_pattern((id, _): (String, u8)) -> String {
    id
}

fn main() {}
