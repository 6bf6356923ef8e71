use mcp_runtime::prelude::*;

#[prompt]
struct Greeting;

#[prompt]
impl Greeting {
    fn greet(name: String) -> String {
        name
    }
}

#[prompt]
mod prompts {}

trait Greets {
    #[prompt]
    fn greet(name: String) -> String;
}

fn main() {}
