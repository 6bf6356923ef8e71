//! Generated code is lint-clean: a crate that denies these lints compiles.

#![deny(
    missing_docs,
    unused_qualifications,
    unreachable_pub,
    missing_debug_implementations,
    missing_copy_implementations,
    unused_results,
    unused_extern_crates,
    unused_import_braces,
    trivial_casts,
    trivial_numeric_casts,
    single_use_lifetimes,
    elided_lifetimes_in_paths,
    let_underscore_drop,
    unsafe_code,
    variant_size_differences,
    warnings
)]
//! A documented crate.

use mcp_runtime::prelude::*;

/// Public tools.
pub mod tools {
    use mcp_runtime::prelude::*;

    /// Add two numbers.
    #[tool(read_only, timeout = "5s")]
    pub async fn add(
        /// The left operand
        a: f64,
        /// The right operand
        #[arg(default = 0.0)]
        b: f64,
    ) -> f64 {
        a + b
    }

    /// Described by the attribute only.
    #[tool(description = "Say hi.")]
    pub fn hi(name: Option<String>) -> Result<String, ToolError> {
        Ok(format!("hi {}", name.unwrap_or_default()))
    }
}

/// A private tool.
#[tool]
fn private_tool() {}

/// Runs the case: its checks panic when a shape is not honoured.
pub fn run() {
    let server = Server::empty("lints", "1").tool(tools::add::Tool).tool(tools::hi::Tool).tool(private_tool::Tool);
    assert_eq!(server.tool_definitions().map(|d| d.len()).ok(), Some(3));
}
