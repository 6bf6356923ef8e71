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
//!
//! # Where things are
//!
//! The root and [`prelude`] hold what a tool author writes with. The rest
//! is grouped by role:
//!
//! | module | for |
//! |---|---|
//! | [`tools`], [`prompts`], [`resources`], [`completion`] | each kind of component: its trait (for components made at run time), builder, definition and result types |
//! | [`request`] | what a handler can take as a parameter: [`Context`], [`State`], [`Claims`], and [`FromRequest`](request::FromRequest) for extractors of your own |
//! | [`userstate`] | per-user state kept between requests ([`UserState`](userstate::UserState)), by subject, session or handle |
//! | [`client`] | asking the client of the current request: sampling, elicitation, roots |
//! | [`middleware`] | layers around every handler run, and the ready ones |
//! | [`catalog`] | what a large catalog looks like to clients: tool search, tag rules |
//! | `openapi` | (feature `openapi`) an existing HTTP API's operations as tools, from its OpenAPI document |
//! | `proxy` | (feature `proxy`) other servers mounted into this one: [`Server::mount`](Server), upstreams over stdio, HTTP or in process |
//! | [`transport`] | how a server is reached: HTTP options, OAuth, an in-memory client |
//! | [`stores`] | what Streamable HTTP keeps across requests and replicas |
//! | [`testing`] | [`TestClient`](testing::TestClient), for tests through the protocol |
//! | [`clients`] | what each real client accepts, and the check of a whole server against it |
//! | [`logging`] | the logger servers install on stderr, and its level |
//! | [`protocol`], [`providers`] | the protocol as data; tool definitions in model providers' formats |

mod admission;
pub mod apps;
pub mod catalog;
pub mod client;
pub mod completion;
mod component;
mod dispatch;
mod error;
mod glue;
mod incident;
mod invoke;
pub mod logging;
pub mod middleware;
#[cfg(feature = "openapi")]
pub mod openapi;
pub mod prompts;
#[cfg(feature = "proxy")]
pub mod proxy;
mod random;
pub mod request;
pub mod resources;
mod schema_check;
mod server;
pub mod skills;
pub mod tasks;
pub mod testing;
pub mod tools;
pub mod transport;
pub mod userstate;
mod verdict;

// The root holds what a tool author writes with (the prelude's names, the
// attributes, `Error`); everything else lives in the module of its role, so
// each name has one home and one meaning.
pub use error::Error;
pub use mcp_macros::{prompt, resource, tool};
pub use prelude::*;
pub use server::Server;

/// What a tool author needs, in one import.
pub mod prelude {
    pub use crate::client::{Elicited, Sampling};
    pub use crate::prompts::{PromptError, PromptMessage};
    pub use crate::request::{Claims, Context, State};
    pub use crate::resources::{Blob, ResourceError, ResourceLink};
    pub use crate::tools::{Audio, CallToolResult, Content, Embedded, Image, IntoToolResult, Json, ToolError};
    pub use crate::{Server, prompt, resource, tool};
}

/// The web framework the HTTP endpoint is built on, for mounting it with
/// [`Server::http_router`] (the same version this crate uses).
#[cfg(feature = "http")]
pub use axum;
/// The protocol model (JSON-RPC, MCP types, versions, schema profiles).
pub use mcp_core as protocol;
/// A tool definition in OpenAI's, Anthropic's or Gemini's format, for a
/// host handing the server's tools to its model
/// ([`providers::convert`]).
pub use mcp_core::providers;

/// What each real client accepts in a tool definition: the rules
/// ([`KnownClient`](clients::KnownClient), [`Problem`](clients::Problem),
/// [`check_tool`](clients::check_tool)), the schema profiles that satisfy
/// them, and [`check_clients`](clients::check_clients), which runs the rules
/// over a whole server.
pub mod clients {
    pub use crate::verdict::{ClientReport, check_clients};
    pub use mcp_core::SchemaProfile;
    pub use mcp_core::clients::*;
}

/// Where a Streamable HTTP server keeps what outlives one request (resumable
/// events, handshake sessions, the fan-out between replicas): the traits,
/// their in-memory defaults and, with the `redis` feature, one Redis store
/// for all three.
#[cfg(feature = "http")]
pub mod stores {
    #[cfg(feature = "redis")]
    pub use crate::transport::http::RedisStore;
    pub use crate::transport::http::{
        EventStore, Fanout, KeptEvent, LocalFanout, MemoryEventStore, MemorySessionStore, SessionStore, StoreError,
        StoreFuture,
    };
}

// Used by generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::completion::completer;
    pub use crate::glue::{Registration, boxed, ready};
    pub use crate::prompts::param::PromptParam;
    pub use crate::prompts::{IntoPromptResult, Prompt, PromptBuilder, PromptDefinition, Rendered};
    pub use crate::request::RequestParts;
    pub use crate::resources::param::{Injected, TemplateVariable};
    pub use crate::resources::{Contents, IntoResourceContents, Resource, ResourceBuilder, ResourceDefinition};
    pub use crate::tasks::TaskSupport;
    pub use crate::tools::param::{DefaultArgument, ParamErrors, ToolParam, ViaArgument, ViaRequest};
    pub use crate::tools::result::{DescribeOutput, NoOutput, OutputOf};
    pub use crate::tools::{BoxFuture, IntoToolResult, Tool, ToolBuilder, ToolDefinition};
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
/// README. The repository's shows `Server::mount`, so it is checked with the
/// `proxy` feature, as `cargo test --workspace` builds this crate (the
/// suite turns it on); `cargo test --doc -p mcp-runtime` alone checks this
/// crate's README.
#[cfg(doctest)]
#[cfg_attr(feature = "proxy", doc = include_str!("../../README.md"))]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

/// The guide's chapters (`docs/src`, an mdBook), one item each, so that
/// their Rust examples compile as doc tests too, as the README's do. The
/// chapter on composing servers mounts them, so it needs the `proxy`
/// feature, like the README. Only under `cfg(doctest)`.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../docs/src/introduction.md")]
    struct Introduction;
    #[doc = include_str!("../../docs/src/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../../docs/src/tools.md")]
    struct Tools;
    #[doc = include_str!("../../docs/src/resources.md")]
    struct Resources;
    #[doc = include_str!("../../docs/src/prompts.md")]
    struct Prompts;
    #[doc = include_str!("../../docs/src/asking-the-client.md")]
    struct AskingTheClient;
    #[doc = include_str!("../../docs/src/tasks.md")]
    struct Tasks;
    #[doc = include_str!("../../docs/src/skills.md")]
    struct Skills;
    #[doc = include_str!("../../docs/src/apps.md")]
    struct Apps;
    #[doc = include_str!("../../docs/src/middleware.md")]
    struct Middleware;
    #[cfg_attr(feature = "redis", doc = include_str!("../../docs/src/state.md"))]
    struct UserState;
    #[cfg_attr(feature = "proxy", doc = include_str!("../../docs/src/composing.md"))]
    struct Composing;
    #[doc = include_str!("../../docs/src/large-catalogs.md")]
    struct LargeCatalogs;
    #[cfg_attr(feature = "openapi", doc = include_str!("../../docs/src/existing-api.md"))]
    struct ExistingApi;
    #[doc = include_str!("../../docs/src/client.md")]
    struct Client;
    #[doc = include_str!("../../docs/src/protocol-versions.md")]
    struct ProtocolVersions;
    #[doc = include_str!("../../docs/src/running.md")]
    struct Running;
    #[doc = include_str!("../../docs/src/deploying.md")]
    struct Deploying;
    #[doc = include_str!("../../docs/src/testing.md")]
    struct Testing;
    #[doc = include_str!("../../docs/src/cli.md")]
    struct Cli;
    #[doc = include_str!("../../docs/src/publishing.md")]
    struct Publishing;
    #[doc = include_str!("../../docs/src/limits.md")]
    struct Limits;
    #[doc = include_str!("../../docs/src/project.md")]
    struct Project;
}

/// The attributes' examples (their documentation, in `mcp-macros/docs`):
/// they are written through this crate, so they run as its doc tests, and
/// the macro crate's own tests need no build of the runtime. Also only
/// under `cfg(doctest)`.
#[cfg(doctest)]
mod attribute_docs {
    #[doc = include_str!("../../mcp-macros/docs/tool.md")]
    struct Tool;
    #[doc = include_str!("../../mcp-macros/docs/resource.md")]
    struct Resource;
    #[doc = include_str!("../../mcp-macros/docs/prompt.md")]
    struct Prompt;
}
