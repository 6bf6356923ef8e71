use mcp_runtime::tool;

#[tool]
fn echo<T: serde::de::DeserializeOwned>(value: T) -> String {
    let _ = value;
    String::new()
}

#[tool]
fn bounded(value: String) -> String
where
    String: Clone,
{
    value
}

fn main() {}
