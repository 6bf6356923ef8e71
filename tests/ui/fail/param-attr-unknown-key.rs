use mcp_runtime::tool;

/// Greet someone.
#[tool]
fn greet(#[arg(name = "who")] name: String, #[arg(colour = "red")] shade: String) -> String {
    format!("{name} {shade}")
}

fn main() {}
