//! The attributes inside a module, with the runtime reached under another
//! name (`crate = "…"`): what a crate that re-exports the runtime writes.

mod framework {
    pub use mcp_runtime as mcp;
}

/// Tools in a module.
pub mod tools {
    use mcp_runtime::tool;

    /// Greet someone.
    #[tool(crate = "crate::in_module_and_renamed_crate::framework::mcp", name = "say.hello", title = "Say hello")]
    pub fn greet(#[arg(rename = "who", description = "Whom to greet")] name: Option<String>) -> String {
        format!("hello {}", name.unwrap_or_default())
    }
}

use tools::greet;

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    assert_eq!(greet(Some("x".into())), "hello x");
    let _ = mcp_runtime::Server::empty("s", "1").tool(greet::Tool);
}
