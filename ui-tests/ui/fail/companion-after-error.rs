//! A prompt or resource with a mistake still has its companion, with a
//! stub impl of its trait, so using it adds no error of its own.

use mcp_runtime::prelude::*;

/// Greet someone.
#[prompt(name = "greet someone")]
fn greet(name: String) -> String {
    name
}

/// A note.
#[resource("notes://{id}")]
fn note(key: String) -> String {
    key
}

fn main() {
    let _server = Server::empty("companions", "1").prompt(greet::Prompt).resource(note::Resource);
}
