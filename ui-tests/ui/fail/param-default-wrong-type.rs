use mcp_runtime::tool;

#[tool]
fn greet(#[arg(default = "world")] name: String) -> String {
    name
}

fn main() {}
