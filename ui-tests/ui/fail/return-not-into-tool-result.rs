use mcp_runtime::{ToolError, tool};

struct Report;

/// Async, returning a type that is not a tool result.
#[tool]
async fn report() -> Report {
    Report
}

/// Sync, with the same type inside a `Result`.
#[tool]
fn try_report() -> Result<Report, ToolError> {
    Ok(Report)
}

fn main() {}
