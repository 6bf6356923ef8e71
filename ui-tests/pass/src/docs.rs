//! Doc comments become descriptions: every paragraph, with indentation and
//! code blocks kept, `include_str!` included, and `///` on parameters.

use crate::support::client::{connect, find, list};
use mcp_runtime::prelude::*;
use serde_json::json;

/// Search the catalogue.
///
/// Matches are case-insensitive. Results come best first:
///
/// ```text
/// {"title": "…", "score": 0.93}
/// ```
///
///   - at most `limit` results
#[tool]
fn search(
    /// What to look for.
    ///
    /// Several words match any of them.
    query: String,
    /** The most results to return */
    limit: Option<u32>,
) -> String {
    format!("{query} {limit:?}")
}

#[doc = include_str!("support/convert.md")]
#[tool]
fn convert(#[doc = "The value to convert"] value: f64) -> f64 {
    value
}

/// Documented
#[doc = "across attributes"]
#[tool]
fn mixed() {}

/// Runs the case: its checks panic when a shape is not honoured.
#[tokio::main]
pub async fn run() {
    let mut client = connect(Server::empty("docs", "1").tool(search::Tool).tool(convert::Tool).tool(mixed::Tool)).await;
    let tools = list(&mut client).await;

    let search = find(&tools, "search");
    assert_eq!(
        search["description"],
        "Search the catalogue.\n\nMatches are case-insensitive. Results come best first:\n\n```text\n{\"title\": \"…\", \"score\": 0.93}\n```\n\n  - at most `limit` results"
    );
    assert_eq!(
        search["inputSchema"]["properties"]["query"]["description"],
        "What to look for.\n\nSeveral words match any of them."
    );
    assert_eq!(search["inputSchema"]["properties"]["limit"]["description"], "The most results to return");

    let convert = find(&tools, "convert");
    assert_eq!(
        convert["description"],
        "Convert a temperature between units.\n\nUnits are `\"C\"`, `\"F\"` and `\"K\"`."
    );
    assert_eq!(
        convert["inputSchema"]["properties"]["value"],
        json!({"type": "number", "description": "The value to convert"})
    );
    assert_eq!(find(&tools, "mixed")["description"], "Documented\nacross attributes");
}
