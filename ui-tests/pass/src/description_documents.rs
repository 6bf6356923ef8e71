//! `description = "…"` on any of the three attributes also documents an
//! undocumented function, so a crate that denies `missing_docs` accepts
//! it, and rustdoc shows what clients are sent.

#![deny(missing_docs)]

use mcp_runtime::prompts::Prompt;
use mcp_runtime::resources::Resource;
use mcp_runtime::tools::Tool;

/// Public handlers, each described by its attribute only.
pub mod handlers {
    use mcp_runtime::prelude::*;

    #[tool(description = "Say hi.")]
    pub fn hi() -> String {
        "hi".to_owned()
    }

    #[prompt(description = "Greet someone.")]
    pub fn greet(name: String) -> String {
        format!("Greet {name}.")
    }

    #[resource("notes://all", description = "Every note.")]
    pub fn notes() -> String {
        String::new()
    }
}

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    assert_eq!(handlers::hi::Tool.definition().tool().description.as_deref(), Some("Say hi."));
    assert_eq!(handlers::greet::Prompt.definition().prompt().description.as_deref(), Some("Greet someone."));
    assert_eq!(handlers::notes::Resource.definition().resource().description.as_deref(), Some("Every note."));
}
