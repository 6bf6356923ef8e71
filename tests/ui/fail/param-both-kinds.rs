use mcp_runtime::{FromToolCall, ToolCall, ToolError, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// Both a JSON argument and an injected value: which one is meant?
#[derive(Deserialize, JsonSchema)]
struct Session {
    id: String,
}

impl FromToolCall for Session {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(Session { id: call.request_id().to_string() })
    }
}

/// Use a session.
#[tool]
fn use_session(session: Session) -> String {
    session.id
}

fn main() {}
