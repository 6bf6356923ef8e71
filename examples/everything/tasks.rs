//! The fixtures of the conformance suite's `tasks-*` scenarios (the
//! `io.modelcontextprotocol/tasks` extension): a plain tool, tools that run
//! as tasks when the client supports them, one that only such clients may
//! call, and tasks that ask the client something on the way.

use std::time::Duration;

use mcp_runtime::prelude::*;

/// Greet someone (never a task).
#[tool]
pub fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Compute slowly: sleep `seconds`, then answer. A task for clients that
/// support tasks.
#[tool(task = "optional")]
pub async fn slow_compute(
    /// How long to work, in seconds
    seconds: u64,
    /// A label echoed in the result
    #[arg(default = String::new())]
    label: String,
) -> String {
    if seconds > 0 {
        tokio::time::sleep(Duration::from_secs(seconds)).await;
    }
    format!("computed '{label}' in {seconds} s")
}

/// A job that fails as tools fail (an error result) after a second; only
/// clients that support tasks may run it.
#[tool(task = "required")]
pub async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed"))
}

/// A job that crashes (a protocol-level failure: the task fails).
#[tool(task = "optional")]
pub async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("the job crashed")
}

/// A confirmation.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    #[serde(default)]
    confirm: bool,
}

/// Delete a file once the user confirms. It looks the file up first, so
/// the call is a task by the time it asks, and the question goes through
/// the task.
#[tool(task = "optional")]
pub async fn confirm_delete(
    /// The file to delete
    filename: String,
    ctx: Context,
) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let answer = ctx.elicit::<Confirmation>(format!("Delete {filename}?")).await?;
    Ok(match answer.accepted() {
        Some(Confirmation { confirm: true }) => format!("deleted {filename}"),
        _ => format!("kept {filename}"),
    })
}

/// Two values, as `multi_input` asks for them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Value {
    #[serde(default)]
    name: String,
}

/// Ask two questions at once, through the task.
#[tool(task = "optional")]
pub async fn multi_input(ctx: Context) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (first, second) = tokio::join!(
        ctx.elicit::<Value>("First value?").key("first"),
        ctx.elicit::<Value>("Second value?").key("second")
    );
    let name = |v: Elicited<Value>| v.accepted().map_or_else(|| "nothing".to_owned(), |v| v.name);
    Ok(format!("Got {} and {}", name(first?), name(second?)))
}

/// A name.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct UserName {
    name: String,
}

/// Ask for the user's name before any work (a multi-round request: no
/// task yet), then work as a task and greet them.
#[tool(task = "required")]
pub async fn test_tool_with_task(ctx: Context) -> Result<String, ToolError> {
    let name = ctx.elicit::<UserName>("What is your name?").key("user_name").await?;
    let name = name.accepted().map_or_else(|| "stranger".to_owned(), |n| n.name);
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}! Your task is done."))
}
