//! A manifest with `schemars = "0.8"` derives 0.8's `JsonSchema`, which is
//! another trait than the 1.x one the runtime uses. (Here 0.8 is renamed
//! `schemars08`, so the derive is told where it is.)

use mcp_runtime::prelude::*;
use serde::{Deserialize, Serialize};

/// A parameter with 0.8's schema.
#[derive(Deserialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
struct Query {
    text: String,
}

/// Structured output with 0.8's schema.
#[derive(Serialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
struct Counts {
    words: usize,
}

/// Count the words of a text.
#[tool]
fn count(query: Query) -> Json<Counts> {
    Json(Counts { words: query.text.split_whitespace().count() })
}

fn main() {}
