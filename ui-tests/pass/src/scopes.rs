//! `scopes = [...]` on each attribute reaches the definition, and the
//! builder takes the same for tools made at run time.

use mcp_runtime::Claims;
use mcp_runtime::prelude::*;
use mcp_runtime::prompts::Prompt;
use mcp_runtime::resources::Resource;
use mcp_runtime::tools::{Tool, ToolBuilder};

/// Write a note.
#[tool(scopes = ["notes:write", "notes:read"])]
fn write(text: String, claims: Option<Claims>) -> String {
    format!("{text} by {:?}", claims.as_ref().and_then(Claims::subject))
}

/// Every note.
#[resource("notes://all", scopes = ["notes:read"])]
fn all(claims: Claims) -> String {
    claims.scopes().join(" ")
}

/// Review the notes.
#[prompt(scopes = ["notes:read"])]
fn review() -> String {
    "Review my notes.".to_owned()
}

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    assert_eq!(write::Tool.definition().scopes(), ["notes:write", "notes:read"]);
    assert_eq!(all::Resource.definition().scopes(), ["notes:read"]);
    assert_eq!(review::Prompt.definition().scopes(), ["notes:read"]);
    let mut builder = ToolBuilder::new("dynamic", module_path!(), "dynamic");
    builder.scopes(vec![String::from("admin")]);
    assert_eq!(builder.build().scopes(), ["admin"]);
}
