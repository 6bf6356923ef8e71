use mcp_runtime::prelude::*;

struct Snippet {
    code: String,
}

/// Review a snippet.
#[prompt]
fn review(snippet: Snippet) -> String {
    snippet.code
}

fn main() {}
