//! The `#[tool]` attribute. Depend on `mcp-runtime`, which re-exports it;
//! the generated code names only `::mcp_runtime::__private`.

mod ast;
mod attr;
mod doc;
mod errors;
mod expand;
mod suggest;
mod valid;

use proc_macro::TokenStream;

/// Turn a function into an MCP tool.
///
/// ```ignore
/// use mcp_runtime::prelude::*;
///
/// /// Add two numbers.
/// #[tool]
/// async fn add(
///     /// The left operand
///     a: f64,
///     /// The right operand
///     b: f64,
/// ) -> f64 {
///     a + b
/// }
/// ```
///
/// - The tool's name is the function's (`#[tool(name = "…")]` overrides it);
///   it must be 1–128 characters from `A-Za-z0-9_.-`.
/// - Its description is the function's whole doc comment
///   (`#[tool(description = "…")]` overrides it); `#[doc = include_str!(…)]`
///   works.
/// - Each parameter is a JSON argument named after it, described by its own
///   `///` comment. `#[arg(rename = "…")]` and `#[arg(description = "…")]`
///   override both. A parameter whose type can be absent (`Option<T>`) is
///   not required.
/// - `#[tool(title = "…")]` sets the display title, and `read_only`,
///   `destructive`, `idempotent`, `open_world` set the behaviour hints.
/// - `#[tool(crate = "path::to::mcp_runtime")]` is for frameworks that
///   re-export the runtime.
///
/// The function itself is left as written, so tests can call it directly.
/// Next to it the macro defines a module of the same name holding
/// `Tool`, a unit struct that implements the runtime's `Tool` trait; the
/// tool is also registered so that `Server::new` finds it. Register a subset
/// by hand with `Server::empty(..).tool(add::Tool)`.
///
/// Functions with `self`, generics, patterns as parameters, or
/// `const`/`unsafe`/`extern` qualifiers are rejected with a message at the
/// offending token.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = expand::tool(args.into(), item.into());
    // Set `MCP_MACROS_DEBUG` to see what `#[tool]` generates.
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{expanded}");
    }
    expanded.into()
}
