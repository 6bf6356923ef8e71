use mcp_runtime::prelude::*;

struct Draft;

/// Draft a reply.
#[prompt]
fn draft(topic: String) -> Draft {
    let _ = topic;
    Draft
}

fn main() {}
