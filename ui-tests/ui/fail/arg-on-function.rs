use mcp_runtime::tool;

/// Greet someone.
#[tool]
#[arg(rename = "who")]
fn greet(name: String) -> String {
    name
}

fn main() {}
