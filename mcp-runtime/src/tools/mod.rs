//! Tools: the `Tool` trait that `#[tool]` implements, the link-time
//! registration slot, and the modules that define, check, call and list
//! them.

pub(crate) mod arguments;
pub(crate) mod call;
pub(crate) mod catalog;
pub(crate) mod definition;
pub(crate) mod limit;
pub(crate) mod media;
pub(crate) mod param;
pub(crate) mod result;

use std::future::Future;
use std::pin::Pin;

pub use catalog::ToolsHandle;
pub use definition::{ToolBuilder, ToolDefinition};
pub use limit::RateLimit;
pub use mcp_core::{CallToolResult, Content};
pub use media::{Audio, Embedded, Image};
pub use result::{IntoToolResult, Json, StructuredOutput, ToolError};

use crate::request::RequestParts;

/// A boxed, sendable future, as tools return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool: its definition and how to call it.
///
/// `#[tool]` implements this for the companion type it generates
/// (`add::Tool` for `fn add`). Implement it by hand for tools whose shape is
/// only known at run time.
pub trait Tool: Send + Sync + 'static {
    /// The tool's definition. Called once, when a server is built.
    fn definition(&self) -> ToolDefinition;

    /// Run the tool. Argument failures are part of the result (`isError`),
    /// so a model can correct itself.
    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult>;
}

/// Every tool registered with `#[tool]` anywhere in the binary.
pub(crate) fn collected() -> impl Iterator<Item = std::sync::Arc<dyn Tool>> {
    crate::glue::collected::<dyn Tool>().map(|tool| std::sync::Arc::new(Collected(tool)) as std::sync::Arc<dyn Tool>)
}

/// A tool found by link-time collection.
struct Collected(&'static dyn Tool);

impl Tool for Collected {
    fn definition(&self) -> ToolDefinition {
        self.0.definition()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        self.0.call(request)
    }
}
