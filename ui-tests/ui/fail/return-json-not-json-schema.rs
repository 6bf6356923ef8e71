use mcp_runtime::prelude::*;
use serde::Serialize;

/// Serializes, but has no schema, so it cannot be structured output.
#[derive(Serialize)]
struct Counts {
    words: usize,
}

/// Count the words of a text.
#[tool]
fn count(text: String) -> Json<Counts> {
    Json(Counts { words: text.split_whitespace().count() })
}

/// The same, through a `Result`.
#[tool]
fn try_count(text: String) -> Result<Json<Counts>, ToolError> {
    Ok(Json(Counts { words: text.split_whitespace().count() }))
}

fn main() {}
