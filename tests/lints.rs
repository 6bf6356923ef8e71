//! Generated code is clean under clippy's strictest groups: CI runs clippy
//! on this file with `-D warnings`, and every `#[tool]` shape appears here.
//! (`ui-tests/pass/src/hygiene_lints.rs` checks rustc's own lints.)

#![deny(
    missing_docs,
    unused_qualifications,
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    clippy::missing_docs_in_private_items
)]

use mcp_runtime::prelude::*;
use mcp_runtime::request::{FromRequest, Rejection, RequestParts};

/// A value the runtime supplies.
struct Tag(String);

impl FromRequest for Tag {
    fn from_request(call: &mut RequestParts) -> Result<Self, Rejection> {
        Ok(Self(call.request_id().to_string()))
    }
}

/// Add two numbers.
#[tool(read_only, idempotent, timeout = "5s")]
async fn add(
    /// The left operand
    a: f64,
    /// The right operand
    #[arg(default = 1.0)]
    b: f64,
) -> f64 {
    tokio::task::yield_now().await;
    a + b
}

/// Greet someone.
#[tool(
    name = "greet.v2",
    title = "Greet",
    icon = "https://example.com/g.png",
    icon(src = "https://example.com/g.svg", mime_type = "image/svg+xml", sizes = ["any"], theme = "light"),
    meta("com.example/x" = 1)
)]
fn greet(
    #[arg(rename = "who", description = "Whom")] name: Option<String>,
    #[arg(default)] loud: bool,
    tag: Tag,
) -> String {
    let line = format!("hello {} ({})", name.unwrap_or_default(), tag.0);
    if loud { line.to_uppercase() } else { line }
}

/// No parameters, no output.
#[tool]
fn nothing() {}

/// Fails.
#[tool(description = "Always fails.")]
fn fails() -> Result<String, ToolError> {
    Err(ToolError::new("no"))
}

#[test]
fn every_shape_defines_a_tool() {
    let server = Server::empty("lints", "1").tool(add::Tool).tool(greet::Tool).tool(nothing::Tool).tool(fails::Tool);
    let names: Vec<String> = server.tool_definitions().unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["add", "fails", "greet.v2", "nothing"]);
}
