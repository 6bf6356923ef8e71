//! Tools, a resource and a prompt in a library, as a real crate keeps
//! them; `main.rs` serves them.

pub mod catalog;

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An item, whose optional parts may be empty.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Item {
    /// Its number.
    pub id: u64,
    /// A note, if any.
    pub note: Option<String>,
    /// Tags, some unknown.
    pub tags: Vec<Option<String>>,
    /// More detail, if any.
    pub inner: Option<Inner>,
}

/// Detail of an item.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Inner {
    /// A label, if any.
    pub label: Option<String>,
    /// How many.
    pub count: u32,
}

/// Greet someone, by title if one is given.
#[tool]
fn greet(
    /// Who
    name: String,
    /// How to address them, e.g. `Dr`
    title: Option<String>,
) -> String {
    match title {
        Some(title) => format!("Hello, {title} {name}"),
        None => format!("Hello, {name}"),
    }
}

/// An item whose optional parts are all empty.
#[tool]
fn item(
    /// Its number
    id: u64,
) -> Json<Item> {
    Json(Item { id, note: None, tags: vec![None, Some("x".into())], inner: Some(Inner { label: None, count: 0 }) })
}

/// What this server is.
#[resource("outside://about", mime_type = "text/plain")]
fn about() -> String {
    "a server made outside the workspace".into()
}

/// Ask for a review of some code.
#[prompt]
fn review(
    /// The code
    code: String,
    /// What to look at, if anything in particular
    focus: Option<String>,
) -> String {
    format!("Review this{}:\n{code}", focus.map(|f| format!(" for {f}")).unwrap_or_default())
}
