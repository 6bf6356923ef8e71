//! Write MCP servers from plain Rust functions.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Add two numbers.
//! #[tool]
//! async fn add(
//!     /// The left operand
//!     a: f64,
//!     /// The right operand
//!     b: f64,
//! ) -> f64 {
//!     a + b
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), mcp_runtime::Error> {
//!     Server::new("adder", "1.0.0").serve_stdio().await
//! }
//! ```
//!
//! [`#[tool]`](macro@tool) turns a function and its doc comments into a tool
//! whose input schema comes from the parameter types (via schemars), shaped
//! so every client accepts it. [`Server::new`] finds every `#[tool]` in the
//! binary; [`Server::empty`] with [`Server::tool`] picks a subset. Failures
//! of one request never stop the server: protocol mistakes get JSON-RPC
//! errors, tool failures and bad arguments get `isError` results the model
//! can act on.

mod arguments;
mod catalog;
mod context;
mod dispatch;
mod error;
#[cfg(feature = "http")]
mod http;
mod incident;
mod limit;
pub mod logging;
mod media;
mod param;
mod registry;
mod response;
mod server;
mod state;
mod testing;
mod tool;
pub mod transport;

/// The web framework the HTTP endpoint is built on, for mounting it with
/// [`Server::http_router`] (the same version this crate uses).
#[cfg(feature = "http")]
pub use axum;
pub use catalog::ToolsHandle;
pub use context::Context;
pub use error::Error;
#[cfg(feature = "http")]
pub use http::HttpOptions;
pub use limit::RateLimit;
/// The protocol model (JSON-RPC, MCP types, versions, schema profiles).
pub use mcp_core as protocol;
pub use mcp_core::ResourceLink;
pub use mcp_core::{CallToolResult, Content, SchemaProfile};
pub use mcp_macros::tool;
pub use media::{Audio, Image, Resource};
pub use param::{ArgumentError, DefaultArgument, FromToolCall, ParamError, ToolCall, ToolParam, ViaArgument, ViaCall};
pub use response::{IntoToolResult, Json, ToolError};
pub use server::Server;
pub use state::State;
pub use testing::{PendingCall, TestClient};
pub use tool::{BoxFuture, Registration, Tool, ToolBuilder, ToolDefinition};
pub use transport::memory::InMemoryClient;

/// What a tool author needs, in one import.
pub mod prelude {
    pub use crate::{
        Audio, CallToolResult, Content, Context, Image, IntoToolResult, Json, Resource, ResourceLink, Server,
        ToolError, tool,
    };
}

// Used by generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::param::{DefaultArgument, ParamErrors, ToolCall, ToolParam};
    pub use crate::response::{DescribeOutput, IntoToolResult, NoOutput, OutputOf};
    pub use crate::tool::{BoxFuture, Registration, Tool, ToolBuilder, ToolDefinition, boxed_call, ready};
    pub use ::core::default::Default;
    pub use ::core::option::Option::{None, Some};
    pub use ::core::time::Duration;
    pub use ::std::boxed::Box;
    pub use inventory;
    pub use mcp_core::CallToolResult;
    pub use mcp_core::Icon;
}

/// The README's Rust examples compile as doc tests, so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
