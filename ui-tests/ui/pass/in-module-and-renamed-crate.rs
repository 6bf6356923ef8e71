mod framework {
    pub use mcp_runtime as mcp;
}

pub mod tools {
    use mcp_runtime::tool;

    /// Greet someone.
    #[tool(crate = "crate::framework::mcp", name = "say.hello", title = "Say hello")]
    pub fn greet(
        #[arg(rename = "who", description = "Whom to greet")] name: Option<String>,
    ) -> String {
        format!("hello {}", name.unwrap_or_default())
    }
}

use tools::greet;

fn main() {
    assert_eq!(greet(Some("x".into())), "hello x");
    let _ = mcp_runtime::Server::empty("s", "1").tool(greet::Tool);
}
