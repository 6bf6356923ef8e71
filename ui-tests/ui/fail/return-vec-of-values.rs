use mcp_runtime::tool;

/// A list of values, as a FastMCP user writes `-> list[str]`: structured
/// output is `Json<Vec<String>>`, and the error says so first.
#[tool]
fn names() -> Vec<String> {
    vec!["a".into()]
}

fn main() {}
