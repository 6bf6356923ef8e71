//! What a tool returns: [`IntoToolResult`] turns it into a `CallToolResult`,
//! and [`ToolError`] is the failure whose text the model may see.

use std::borrow::Cow;
use std::fmt;

use mcp_core::{CallToolResult, Content};
use schemars::JsonSchema;
use serde::Serialize;

use super::definition::ToolBuilder;
use crate::request::Rejection;

/// A value a `#[tool]` function can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "not a tool result",
    note = "to return data (a struct, or a list of values as `Json<Vec<T>>`), wrap it in `Json`: structured output, for `T: serde::Serialize + schemars::JsonSchema`",
    note = "a tool also returns text (`String`, `&str`, numbers, `bool`, `char`), `()`, `Content` or `Vec<Content>` (content blocks), `CallToolResult`, or a `Result<T, E>` of those whose error converts into `ToolError`"
)]
pub trait IntoToolResult {
    /// The result sent to the client.
    fn into_tool_result(self) -> CallToolResult;

    /// Add what this type says about the tool's output (its
    /// `outputSchema`) to the definition; nothing by default. `#[tool]`
    /// calls this with the function's return type.
    fn describe_output(builder: &mut ToolBuilder) {
        let _ = builder;
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

// Not recommended in errors: a `-> Vec<String>` that does not compile is
// meant as structured output (`Json<Vec<String>>`, the first note), and
// rustc would otherwise point at this impl as the one to match.
#[diagnostic::do_not_recommend]
impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

/// No output: an empty, successful result.
impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }
}

impl IntoToolResult for Cow<'_, str> {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }
}

macro_rules! display_as_text {
    ($($t:ty)*) => {$(
        /// The value as text.
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> CallToolResult {
                Content::text(self.to_string()).into_tool_result()
            }
        }
    )*};
}

display_as_text!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char);

impl<T: IntoToolResult, E: Into<ToolError>> IntoToolResult for Result<T, E> {
    fn describe_output(builder: &mut ToolBuilder) {
        T::describe_output(builder);
    }

    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => error.into().into_tool_result(),
        }
    }
}

/// How `#[tool]` asks a return type for its output schema without a
/// second error when the type is not a tool result at all (the call site
/// reports that once): the method resolves to [`DescribeOutput`] when
/// `T: IntoToolResult`, and to the no-op [`NoOutput`] otherwise.
#[doc(hidden)]
pub struct OutputOf<T>(std::marker::PhantomData<fn() -> T>);

impl<T> OutputOf<T> {
    #[doc(hidden)]
    pub const fn new() -> Self {
        OutputOf(std::marker::PhantomData)
    }
}

impl<T> Default for OutputOf<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[doc(hidden)]
pub trait DescribeOutput {
    fn describe_output(&self, builder: &mut ToolBuilder);
}

impl<T: IntoToolResult> DescribeOutput for OutputOf<T> {
    fn describe_output(&self, builder: &mut ToolBuilder) {
        T::describe_output(builder);
    }
}

#[doc(hidden)]
pub trait NoOutput {
    fn describe_output(&self, builder: &mut ToolBuilder);
}

impl<T> NoOutput for &OutputOf<T> {
    fn describe_output(&self, _: &mut ToolBuilder) {}
}

/// Structured output: the value goes to the client as `structuredContent`
/// (with its JSON as a text block for clients that read only text), and
/// the tool's `outputSchema` is `T`'s schema. Both come from `T`, so the
/// declared schema and the value cannot drift apart.
///
/// ```
/// use mcp_runtime::prelude::*;
/// # use schemars::JsonSchema;
/// # use serde::Serialize;
///
/// /// Counts of one text.
/// #[derive(Serialize, JsonSchema)]
/// struct Counts {
///     /// Unicode scalar values.
///     characters: usize,
///     /// Runs of non-whitespace.
///     words: usize,
/// }
///
/// /// Count the characters and words of a text.
/// #[tool]
/// fn count(text: String) -> Json<Counts> {
///     Json(Counts { characters: text.chars().count(), words: text.split_whitespace().count() })
/// }
/// # fn main() {}
/// ```
///
/// A value that is not a JSON object (a number, a list) is sent as
/// `{"result": value}` to clients of protocol versions that require an
/// object, and the schema says so; clients from before structured output
/// get only the text.
///
/// `T` needs `serde::Serialize` and `JsonSchema` from schemars 1.x, the
/// version this crate uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// What [`Json<T>`] needs of `T` to be a tool's result: `Serialize` and
/// schemars 1.x's `JsonSchema`. Every such type has it; it exists so that a
/// type without them gets this trait's message rather than a list of every
/// `JsonSchema` type.
#[diagnostic::on_unimplemented(
    message = "`Json<{Self}>` is structured output: `{Self}` needs `serde::Serialize` and `JsonSchema` from schemars 1.x",
    label = "`{Self}` is not structured output",
    note = "derive them: `#[derive(serde::Serialize, schemars::JsonSchema)]`, with schemars 1.x, the version mcp-runtime uses (a `JsonSchema` derived with schemars 0.8 does not count)"
)]
pub trait StructuredOutput: Serialize + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + JsonSchema> StructuredOutput for T {}

impl<T: StructuredOutput> IntoToolResult for Json<T> {
    fn describe_output(builder: &mut ToolBuilder) {
        builder.output::<T>();
    }

    fn into_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => {
                let text = value.to_string();
                CallToolResult { structured_content: Some(value), ..CallToolResult::success(vec![Content::text(text)]) }
            }
            Err(error) => ToolError::internal(error).into_tool_result(),
        }
    }
}

/// A tool failure, reported to the client as a result with `isError: true`.
///
/// [`ToolError::new`] makes an error whose message the model sees (say what
/// went wrong and how to fix it). Any other error converts with `?` into an
/// *internal* error: the client sees only "internal error", and the full
/// error is logged on stderr, so internals never leak.
pub struct ToolError {
    message: String,
    internal: Option<Box<dyn std::error::Error + Send + Sync>>,
    /// Where an internal error was made (captured when `RUST_BACKTRACE` or
    /// `RUST_LIB_BACKTRACE` asks for it), for the log.
    backtrace: Option<std::backtrace::Backtrace>,
}

impl ToolError {
    /// An error whose message is shown to the client.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError { message: message.into(), internal: None, backtrace: None }
    }

    /// An error whose details are logged but never shown to the client.
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        let backtrace = std::backtrace::Backtrace::capture();
        let backtrace = (backtrace.status() == std::backtrace::BacktraceStatus::Captured).then_some(backtrace);
        ToolError { message: "internal error".into(), internal: Some(error.into()), backtrace }
    }

    /// What the client sees.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the details are hidden from the client.
    pub fn is_internal(&self) -> bool {
        self.internal.is_some()
    }
}

impl IntoToolResult for ToolError {
    fn into_tool_result(self) -> CallToolResult {
        match &self.internal {
            Some(error) => crate::incident::report(
                "tool failed with an internal error",
                error,
                &(error, &self.backtrace),
                crate::incident::showing_details(),
            ),
            None => CallToolResult::error_text(self.message),
        }
    }
}

/// Any error converts with `?`, as an internal (masked) error. `ToolError`
/// deliberately does not implement `std::error::Error`, which is what makes
/// this blanket conversion possible.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::internal(error)
    }
}

/// An extractor's rejection ends the call with the same error.
impl From<Rejection> for ToolError {
    fn from(rejection: Rejection) -> Self {
        match rejection.internal {
            Some(error) => ToolError::internal(error),
            None => ToolError::new(rejection.message),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.internal {
            Some(e) => write!(f, "internal error: {e}"),
            None => f.write_str(&self.message),
        }
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolError").field("message", &self.message).field("internal", &self.internal).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(r: &CallToolResult) -> &str {
        r.content[0].as_text().unwrap()
    }

    #[test]
    fn values_become_text() {
        assert_eq!(text(&8.0_f64.into_tool_result()), "8");
        assert_eq!(text(&"hi".into_tool_result()), "hi");
        assert!(().into_tool_result().content.is_empty());
        assert!(!42_u8.into_tool_result().is_error());
    }

    #[test]
    fn public_errors_show_and_others_are_masked() {
        let r: Result<String, ToolError> = Err(ToolError::new("division by zero"));
        let r = r.into_tool_result();
        assert!(r.is_error());
        assert_eq!(text(&r), "division by zero");
        let io: Result<String, std::io::Error> = Err(std::io::Error::other("secret path /etc/x"));
        let r = io.into_tool_result();
        assert!(r.is_error());
        assert!(text(&r).starts_with("internal error (incident "), "{}", text(&r));
        assert!(!text(&r).contains("secret"));
    }
}
