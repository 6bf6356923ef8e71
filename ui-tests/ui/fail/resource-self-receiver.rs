use mcp_runtime::prelude::*;

struct Store;

impl Store {
    /// The configuration.
    #[resource("config://app")]
    fn config(&self) -> String {
        "{}".to_owned()
    }
}

fn main() {}
