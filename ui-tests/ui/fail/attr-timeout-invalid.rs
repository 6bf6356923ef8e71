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

/// No value.
#[tool(timeout)]
async fn unset() {}

/// Not a duration.
#[tool(timeout = true)]
async fn flagged() {}

/// Finer than a millisecond.
#[tool(timeout = "1.5ms")]
async fn fine() {}

fn main() {}
