use mcp_runtime::prelude::*;

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failure")
    }
}

impl std::error::Error for Failure {}

/// Nothing in, nothing out.
#[tool]
async fn nothing() {}

/// Fails with an internal error.
#[tool]
fn fallible(fail: bool) -> Result<&'static str, Failure> {
    if fail { Err(Failure) } else { Ok("fine") }
}

/// Several blocks.
#[tool]
fn blocks() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

fn main() {}
