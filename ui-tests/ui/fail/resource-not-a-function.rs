use mcp_runtime::prelude::*;

#[resource("notes://all")]
enum Notes {
    All,
}

#[resource("notes://{id}")]
impl Notes {
    fn note(id: String) -> String {
        id
    }
}

#[resource("notes://config")]
const CONFIG: &str = "{}";

fn main() {}
