//! A parameter the runtime supplies (`FromRequest`) sits beside JSON
//! arguments: it is left out of the schema and filled on every call. What a
//! parameter is comes from its type's traits, so an alias works too.

use crate::support::client::{call, connect, error, find, list, text};
use mcp_runtime::prelude::*;
use mcp_runtime::request::{FromRequest, Rejection, RequestParts};
use serde_json::json;

/// The request's id, as the runtime knows it.
struct RequestTag(String);

impl FromRequest for RequestTag {
    fn from_request(call: &mut RequestParts) -> Result<Self, Rejection> {
        Ok(RequestTag(call.request_id().to_string()))
    }
}

/// Refuses to be made.
struct Unavailable;

impl FromRequest for Unavailable {
    fn from_request(_: &mut RequestParts) -> Result<Self, Rejection> {
        Err(Rejection::new("the database is down"))
    }
}

type Tag = RequestTag;

/// Echo a message with the request's tag.
#[tool]
fn echo(before: String, tag: Tag, after: Option<String>) -> String {
    format!("{before} [{}] {}", tag.0, after.unwrap_or_default())
}

/// Needs something that is not there.
#[tool]
fn needs_db(query: String, _db: Unavailable) -> String {
    query
}

/// Runs the case: its checks panic when a shape is not honoured.
#[tokio::main]
pub async fn run() {
    let mut client = connect(Server::empty("injected", "1").tool(echo::Tool).tool(needs_db::Tool)).await;
    let tools = list(&mut client).await;
    assert_eq!(
        find(&tools, "echo")["inputSchema"],
        json!({"type": "object", "properties": {"before": {"type": "string"}, "after": {"type": "string"}}, "required": ["before"]})
    );
    // The in-memory client numbers requests from 1: initialize, tools/list, then this.
    assert_eq!(text(&call(&mut client, "echo", json!({"before": "hi", "after": "there"})).await), "hi [3] there");
    assert_eq!(error(&call(&mut client, "needs_db", json!({"query": "x"})).await), "the database is down");
}
