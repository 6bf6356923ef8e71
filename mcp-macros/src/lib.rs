//! The `#[tool]`, `#[resource]` and `#[prompt]` attributes. Depend on
//! `mcp-runtime`, which re-exports them; the generated code names only
//! `::mcp_runtime::__private`.
//!
//! The three share their internals (`internals`: the function and
//! parameter model, the signature checks, key parsing) and the tokens they
//! emit alike (`emit`); `tool`, `resource` and `prompt` each add their own
//! keys, checks and generator on top.

mod emit;
mod internals;
mod prompt;
mod resource;
mod tool;

use proc_macro::TokenStream;

#[doc = include_str!("../docs/tool.md")]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = tool::tool(args.into(), item.into());
    // Set `MCP_MACROS_DEBUG` to see what `#[tool]` generates.
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{expanded}");
    }
    expanded.into()
}

#[doc = include_str!("../docs/resource.md")]
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = resource::resource(args.into(), item.into());
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{expanded}");
    }
    expanded.into()
}

#[doc = include_str!("../docs/prompt.md")]
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = prompt::prompt(args.into(), item.into());
    if std::env::var_os("MCP_MACROS_DEBUG").is_some() {
        eprintln!("{expanded}");
    }
    expanded.into()
}
