use mcp_runtime::tool;

/// How many times.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Times(u32);

// A string literal converts into a `String` parameter, not into any type.
#[tool]
fn repeat(#[arg(default = "three")] times: Times) -> String {
    "hi".repeat(times.0 as usize)
}

fn main() {}
