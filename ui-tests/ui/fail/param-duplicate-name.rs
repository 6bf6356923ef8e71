use mcp_runtime::tool;

#[tool]
fn pair(a: i32, #[arg(rename = "a")] b: i32) -> i32 {
    a + b
}

fn main() {}
