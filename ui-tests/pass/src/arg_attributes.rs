//! Per-parameter attributes: `///` docs, `rename`, `description`, and
//! `default` (an expression or the type's `Default`), seen in the schema and
//! honoured in calls.

use crate::support::client::{call, connect, find, list, text};
use mcp_runtime::prelude::*;
use serde_json::json;

const GREETING: &str = "hello";

/// Greet someone, a number of times.
#[tool]
fn greet(
    /// Whom to greet
    #[arg(rename = "who")]
    name: String,
    /// How many times
    #[arg(default = 1)]
    times: u32,
    /// Overridden below
    #[arg(description = "The greeting word", default = GREETING.to_owned())]
    greeting: String,
    /// Whether to shout
    #[arg(default)]
    loud: bool,
    #[arg(rename = "type")] r#kind: Option<String>,
) -> String {
    let line = format!("{greeting} {name}{}", kind.map(|k| format!(" ({k})")).unwrap_or_default());
    let line = if loud { line.to_uppercase() } else { line };
    vec![line; times as usize].join(", ")
}

/// Runs the case: its checks panic when a shape is not honoured.
#[tokio::main]
pub async fn run() {
    let mut client = connect(Server::empty("args", "1").tool(greet::Tool)).await;
    let tools = list(&mut client).await;
    assert_eq!(
        find(&tools, "greet")["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "who": {"type": "string", "description": "Whom to greet"},
                "times": {"type": "integer", "minimum": 0, "maximum": 4294967295u32, "description": "How many times", "default": 1},
                "greeting": {"type": "string", "description": "The greeting word", "default": "hello"},
                "loud": {"type": "boolean", "description": "Whether to shout", "default": false},
                "type": {"type": "string"}
            },
            "required": ["who"]
        })
    );

    assert_eq!(text(&call(&mut client, "greet", json!({"who": "Ada"})).await), "hello Ada");
    let out =
        call(&mut client, "greet", json!({"who": "Ada", "times": 2, "greeting": "hi", "loud": true, "type": "friend"}))
            .await;
    assert_eq!(text(&out), "HI ADA (FRIEND), HI ADA (FRIEND)");
    // `null` means "use the default", like leaving the argument out.
    assert_eq!(text(&call(&mut client, "greet", json!({"who": "Bo", "times": null})).await), "hello Bo");
}
