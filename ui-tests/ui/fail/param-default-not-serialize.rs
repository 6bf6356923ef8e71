use mcp_runtime::tool;
use schemars::JsonSchema;
use serde::Deserialize;

/// Has no `Serialize`, so its default cannot be shown in the schema.
#[derive(Default, Deserialize, JsonSchema)]
struct Options {
    verbose: bool,
}

/// No `Default`.
#[derive(serde::Serialize, Deserialize, JsonSchema)]
struct Limits {
    max: u32,
}

/// Run with options.
#[tool]
fn run(#[arg(default)] options: Options, #[arg(default)] limits: Limits) -> bool {
    options.verbose && limits.max > 0
}

fn main() {}
