//! A tool in a module of the library: collected like the others.

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Inner, Item};

/// What to look up.
#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// A name.
    pub name: String,
    /// A note, if any.
    pub note: Option<String>,
    /// Counts, some unknown.
    pub counts: Vec<Option<u32>>,
    /// A filter, if any.
    pub filter: Option<Filter>,
}

/// A filter.
#[derive(Deserialize, JsonSchema)]
pub struct Filter {
    /// The least count, if any.
    pub min: Option<u32>,
}

/// Look an item up: its id is the sum of the known counts.
#[tool]
fn lookup(
    /// What to look up
    query: Query,
) -> Json<Item> {
    let id = query.counts.iter().flatten().map(|&c| u64::from(c)).sum();
    let tags = query.counts.iter().map(|c| c.map(|c| c.to_string())).collect();
    let inner = query.filter.map(|f| Inner { label: f.min.map(|m| format!("at least {m}")), count: 1 });
    Json(Item { id, note: query.note.map(|n| format!("{} ({n})", query.name)), tags, inner })
}
