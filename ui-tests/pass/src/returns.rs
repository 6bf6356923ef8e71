//! Return types: anything `IntoToolResult` accepts, and `Result`s of them,
//! from sync and async functions alike (no `impl Future` needed).

use std::borrow::Cow;

use crate::support::client::{call, connect, error, text};
use mcp_runtime::prelude::*;
use serde_json::json;

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("disk on fire at /secret")
    }
}

impl std::error::Error for Failure {}

/// Nothing.
#[tool]
async fn unit() {}

/// Owned text.
#[tool]
fn owned() -> String {
    "owned".into()
}

/// Borrowed text.
#[tool]
fn borrowed() -> &'static str {
    "borrowed"
}

/// Maybe-borrowed text.
#[tool]
fn cow() -> Cow<'static, str> {
    Cow::Borrowed("cow")
}

/// A number.
#[tool]
async fn number() -> u64 {
    42
}

/// A flag.
#[tool]
fn flag() -> bool {
    true
}

/// A character.
#[tool]
fn letter() -> char {
    'x'
}

/// One block.
#[tool]
fn block() -> Content {
    Content::text("block")
}

/// Several blocks.
#[tool]
fn blocks() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

/// The whole result.
#[tool]
fn whole() -> CallToolResult {
    CallToolResult::error_text("built by hand")
}

/// A public error.
#[tool]
async fn public_error() -> Result<String, ToolError> {
    Err(ToolError::new("out of stock"))
}

/// A masked error.
#[tool]
fn masked_error(fail: bool) -> Result<&'static str, Failure> {
    if fail { Err(Failure) } else { Ok("fine") }
}

/// `?` on any error.
#[tool]
fn question_mark(number: String) -> Result<i64, ToolError> {
    let parsed: i64 = number.parse()?;
    Ok(parsed * 2)
}

/// A nested `Result`.
#[tool]
fn nested() -> Result<Result<u8, ToolError>, ToolError> {
    Ok(Err(ToolError::new("inner")))
}

/// Runs the case: its checks panic when a shape is not honoured.
#[tokio::main]
pub async fn run() {
    let mut c = connect(
        Server::empty("returns", "1")
            .tool(unit::Tool)
            .tool(owned::Tool)
            .tool(borrowed::Tool)
            .tool(cow::Tool)
            .tool(number::Tool)
            .tool(flag::Tool)
            .tool(letter::Tool)
            .tool(block::Tool)
            .tool(blocks::Tool)
            .tool(whole::Tool)
            .tool(public_error::Tool)
            .tool(masked_error::Tool)
            .tool(question_mark::Tool)
            .tool(nested::Tool),
    )
    .await;
    let unit = call(&mut c, "unit", json!({})).await;
    assert_eq!(unit["content"], json!([]));
    assert_ne!(unit["isError"], json!(true));
    assert_eq!(text(&call(&mut c, "owned", json!({})).await), "owned");
    assert_eq!(text(&call(&mut c, "borrowed", json!({})).await), "borrowed");
    assert_eq!(text(&call(&mut c, "cow", json!({})).await), "cow");
    assert_eq!(text(&call(&mut c, "number", json!({})).await), "42");
    assert_eq!(text(&call(&mut c, "flag", json!({})).await), "true");
    assert_eq!(text(&call(&mut c, "letter", json!({})).await), "x");
    assert_eq!(text(&call(&mut c, "block", json!({})).await), "block");
    assert_eq!(
        call(&mut c, "blocks", json!({})).await["content"],
        json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    );
    assert_eq!(error(&call(&mut c, "whole", json!({})).await), "built by hand");
    assert_eq!(error(&call(&mut c, "public_error", json!({})).await), "out of stock");
    assert!(error(&call(&mut c, "masked_error", json!({"fail": true})).await).starts_with("internal error (incident "));
    assert_eq!(text(&call(&mut c, "masked_error", json!({"fail": false})).await), "fine");
    assert_eq!(text(&call(&mut c, "question_mark", json!({"number": "21"})).await), "42");
    assert!(
        error(&call(&mut c, "question_mark", json!({"number": "x"})).await).starts_with("internal error (incident ")
    );
    assert_eq!(error(&call(&mut c, "nested", json!({})).await), "inner");
}
