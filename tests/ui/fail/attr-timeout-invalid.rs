use mcp_runtime::tool;

/// Slow.
#[tool(timeout = "3 parsecs")]
async fn slow() {}

/// Slower.
#[tool(timeout = 30)]
async fn slower() {}

/// Too fast to run.
#[tool(timeout = "0s")]
async fn instant() {}

fn main() {}
