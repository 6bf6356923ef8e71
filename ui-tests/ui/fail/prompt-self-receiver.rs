use mcp_runtime::prelude::*;

struct Prompts;

impl Prompts {
    /// Greet.
    #[prompt]
    fn greet(&self, name: String) -> String {
        name
    }
}

fn main() {}
