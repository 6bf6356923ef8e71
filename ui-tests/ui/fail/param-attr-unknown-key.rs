use mcp_runtime::tool;

/// Greet someone.
#[tool]
fn greet(#[arg(name = "who")] name: String, #[arg(colour = "red")] shade: String) -> String {
    format!("{name} {shade}")
}

fn main() {}

/// The same key twice.
#[tool]
fn twice(#[arg(rename = "a")] #[arg(rename = "b")] x: u8) -> u8 {
    x
}
