use mcp_runtime::request::{FromRequest, Rejection, RequestParts};
use mcp_runtime::tool;
use schemars::JsonSchema;
use serde::Deserialize;

/// Both a JSON argument and an injected value: which one is meant?
#[derive(Deserialize, JsonSchema)]
struct Session {
    id: String,
}

impl FromRequest for Session {
    fn from_request(call: &mut RequestParts) -> Result<Self, Rejection> {
        Ok(Session { id: call.request_id().to_string() })
    }
}

/// Use a session.
#[tool]
fn use_session(session: Session) -> String {
    session.id
}

fn main() {}
