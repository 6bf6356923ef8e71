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
//! fn main() -> Result<(), mcp_runtime::Error> {
//!     Server::new("adder", "1.0.0").run_stdio()
//! }
//! ```
//!
//! That server names nothing but `mcp_runtime`, so `mcp-runtime` is its
//! only dependency: [`Server::run_stdio`] starts a runtime of its own and
//! serves stdio; [`Server::run_blocking`] also serves Streamable HTTP when
//! the command line says `--http ADDR`. Inside an async `main` of your own,
//! call [`Server::run`] or [`Server::serve_stdio`] and `.await` it. Add
//! `serde` (with `derive`) and `schemars` 1.x when a parameter is a type of
//! your own (`#[derive(Deserialize, JsonSchema)]`).
//!
//! [`#[tool]`](macro@tool) turns a function and its doc comments into a tool
//! whose input schema comes from the parameter types (via schemars), shaped
//! so every client accepts it. [`Server::new`] finds every `#[tool]` in the
//! binary; [`Server::empty`] with [`Server::tool`] picks a subset. Failures
//! of one request never stop the server: protocol mistakes get JSON-RPC
//! errors, tool failures and bad arguments get `isError` results the model
//! can act on.

mod client;
mod completion;
mod component;
mod dispatch;
mod error;
mod incident;
mod invoke;
pub mod logging;
pub mod middleware;
mod prompts;
mod request;
mod resources;
mod server;
mod testing;
mod tools;
pub mod transport;
mod verdict;

/// The web framework the HTTP endpoint is built on, for mounting it with
/// [`Server::http_router`] (the same version this crate uses).
#[cfg(feature = "http")]
pub use axum;
pub use client::ask::{Elicit, ElicitUrl, Elicited, ListRoots, Sample, Sampling};
pub use client::{Client, ClientError};
pub use completion::{Completer, Completing, completer};
pub use error::Error;
/// The protocol model (JSON-RPC, MCP types, versions, schema profiles).
pub use mcp_core as protocol;
/// What each real client rejects in a tool definition ([`clients::Client`],
/// [`clients::Problem`], [`clients::check_tool`]); [`check_clients`] runs
/// the rules over a whole server.
pub use mcp_core::clients;
/// A tool definition in OpenAI's, Anthropic's or Gemini's format, for a
/// host handing the server's tools to its model
/// ([`providers::convert`]).
pub use mcp_core::providers;
pub use mcp_core::{CallToolResult, Content, ResourceLink, SchemaProfile};
pub use mcp_core::{GetPromptResult, PromptMessage, Role};
pub use mcp_macros::{prompt, resource, tool};
pub use prompts::{IntoPromptResult, Prompt, PromptBuilder, PromptDefinition, PromptError, PromptsHandle, Rendered};
pub use request::claims::Claims;
pub use request::context::Context;
pub use request::state::State;
pub use request::{FromRequest, Needs, Rejection, RequestParts};
pub use resources::{
    Blob, Contents, Directory, DirectoryFile, IntoResourceContents, Resource, ResourceBuilder, ResourceDefinition,
    ResourceError, ResourcesHandle,
};
pub use server::Server;
pub use testing::{PendingCall, TestClient, TestClientBuilder};
pub use tools::media::{Audio, Embedded, Image};
pub use tools::{
    BoxFuture, IntoToolResult, Json, RateLimit, StructuredOutput, Tool, ToolBuilder, ToolDefinition, ToolError,
    ToolsHandle,
};
#[cfg(feature = "oauth")]
pub use transport::http::OAuth;
#[cfg(feature = "redis")]
pub use transport::http::RedisStore;
#[cfg(feature = "http")]
pub use transport::http::{
    EventStore, Fanout, HttpOptions, KeptEvent, LocalFanout, MemoryEventStore, MemorySessionStore, SessionStore,
    StoreError, StoreFuture,
};
pub use transport::memory::InMemoryClient;
pub use verdict::{ClientReport, check_clients};

/// What a tool author needs, in one import.
pub mod prelude {
    pub use crate::{
        Audio, Blob, CallToolResult, Claims, Content, Context, Elicited, Embedded, Image, IntoToolResult, Json,
        PromptError, PromptMessage, ResourceError, ResourceLink, Sampling, Server, State, ToolError, prompt, resource,
        tool,
    };
}

// Used by generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::completion::completer;
    pub use crate::prompts::param::PromptParam;
    pub use crate::prompts::{
        IntoPromptResult, Prompt, PromptBuilder, PromptDefinition, PromptRegistration, Rendered, boxed_get,
    };
    pub use crate::request::RequestParts;
    pub use crate::resources::param::{Injected, TemplateVariable};
    pub use crate::resources::{
        Contents, IntoResourceContents, Resource, ResourceBuilder, ResourceDefinition, ResourceRegistration, boxed_read,
    };
    pub use crate::tools::param::{DefaultArgument, ParamErrors, ToolParam, ViaArgument, ViaRequest};
    pub use crate::tools::result::{DescribeOutput, NoOutput, OutputOf};
    pub use crate::tools::{
        BoxFuture, IntoToolResult, Registration, Tool, ToolBuilder, ToolDefinition, boxed_call, ready,
    };
    pub use ::core::default::Default;
    pub use ::core::option::Option::{None, Some};
    pub use ::core::time::Duration;
    pub use ::std::boxed::Box;
    pub use inventory;
    pub use mcp_core::CallToolResult;
    pub use mcp_core::Icon;
    pub use mcp_core::SchemaProfile;

    /// Expands what `#[tool]` generated. Its name carries the interface
    /// version the macro and this crate agree on: a `mcp-macros` of another
    /// version names another macro, and the one error is this name missing.
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __tool_expansion_v1_needs_matching_mcp_macros_and_mcp_runtime {
        ($($generated:tt)*) => { $($generated)* };
    }
    pub use __tool_expansion_v1_needs_matching_mcp_macros_and_mcp_runtime as expand_tool_v1_needs_mcp_runtime_matching_mcp_macros;
    pub use __tool_expansion_v1_needs_matching_mcp_macros_and_mcp_runtime as expand_resource_v1_needs_mcp_runtime_matching_mcp_macros;
    pub use __tool_expansion_v1_needs_matching_mcp_macros_and_mcp_runtime as expand_prompt_v1_needs_mcp_runtime_matching_mcp_macros;
}

/// The Rust examples of both READMEs (the repository's and this crate's)
/// compile as doc tests, so they stay true. Only under `cfg(doctest)`: a
/// normal build, and so the published package, never reads the repository's
/// README.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
