//! The expansion names everything by absolute path: it compiles where the
//! prelude is gone, and next to user types that shadow prelude names.

#![no_implicit_prelude]

#[allow(dead_code)]
struct Result;
#[allow(dead_code)]
struct Option;
#[allow(dead_code)]
struct Box;
#[allow(dead_code)]
struct Some;
#[allow(dead_code)]
struct None;
#[allow(dead_code)]
struct String;
#[allow(dead_code)]
struct Vec;
#[allow(dead_code)]
struct Default;
#[allow(dead_code)]
struct Duration;

mod tools {
    /// Add two numbers.
    #[::mcp_runtime::tool(timeout = "10s", icon = "https://example.com/a.png", meta("k" = 1))]
    pub async fn add(a: f64, b: ::std::option::Option<f64>) -> f64 {
        a + b.unwrap_or(0.0)
    }

    /// Count, with a default.
    #[::mcp_runtime::tool]
    pub fn count(#[arg(default = 3)] n: u32, #[arg(default)] label: ::std::string::String) -> ::std::string::String {
        ::std::format!("{label}{n}")
    }

    /// Fail sometimes.
    #[::mcp_runtime::tool]
    pub fn fails(fail: bool) -> ::std::result::Result<u8, ::mcp_runtime::ToolError> {
        if fail {
            ::std::result::Result::Err(::mcp_runtime::ToolError::new("no"))
        } else {
            ::std::result::Result::Ok(1)
        }
    }
}

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    let _server = ::mcp_runtime::Server::empty("hygiene", "1")
        .tool(tools::add::Tool)
        .tool(tools::count::Tool)
        .tool(tools::fails::Tool);
    let definitions = _server.tool_definitions().unwrap();
    ::std::assert_eq!(definitions.len(), 3);
}
