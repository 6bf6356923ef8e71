//! What a prompt function returns: [`IntoPromptResult`] turns it into the
//! messages of a `prompts/get` result, and [`PromptError`] is the failure
//! the client is told about.

use std::fmt;

use mcp_core::{GetPromptResult, PromptMessage};

use crate::request::Rejection;

/// A value a `#[prompt]` function can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "not prompt messages",
    note = "a prompt returns text (`String`, `&str`: one user message), a `PromptMessage`, a `Vec<PromptMessage>`, a `GetPromptResult` (messages with a description), or a `Result<T, E>` of those whose error converts into `PromptError`"
)]
pub trait IntoPromptResult {
    /// The result sent to the client.
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError>;
}

fn messages(messages: Vec<PromptMessage>) -> Result<GetPromptResult, PromptError> {
    Ok(GetPromptResult { description: None, messages, meta: None })
}

/// One user message.
impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        messages(vec![PromptMessage::user(self)])
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        messages(vec![PromptMessage::user(self)])
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        messages(vec![self])
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        messages(self)
    }
}

/// Messages with a description of this rendering.
impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(self)
    }
}

impl<T: IntoPromptResult, E: Into<PromptError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

/// Why a prompt could not be rendered. [`PromptError::new`]'s message is
/// shown to the client (say what to change) as the caller's mistake, the
/// protocol's invalid-params error (`-32602`), as a resource that is not
/// there is; any other error converts with `?` into an internal one
/// (`-32603`), logged in full and shown only as "internal error" with an
/// incident id.
pub struct PromptError {
    pub(crate) message: String,
    pub(crate) internal: Option<Box<dyn std::error::Error + Send + Sync>>,
    pub(crate) fault: Fault,
}

/// Whose fault a failed rendering is, which picks its error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The request, as the prompt says: invalid params, the message shown.
    Request,
    /// The arguments, missing or not of their type: invalid params, the
    /// message shown after the prompt's name.
    Arguments,
    /// The server (an internal error, or a rendering past its time).
    Server,
}

impl PromptError {
    /// An error whose message is shown to the client: the request was at
    /// fault (a topic the prompt cannot take, say), sent as invalid params.
    pub fn new(message: impl Into<String>) -> Self {
        PromptError { message: message.into(), internal: None, fault: Fault::Request }
    }

    /// The arguments are at fault: missing, or not of their type.
    pub(crate) fn arguments(message: String) -> Self {
        PromptError { message, internal: None, fault: Fault::Arguments }
    }

    /// The server is at fault, and the message says how (a time limit).
    pub(crate) fn server(message: String) -> Self {
        PromptError { message, internal: None, fault: Fault::Server }
    }

    /// An error whose details are logged but never shown to the client.
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        PromptError { message: "internal error".into(), internal: Some(error.into()), fault: Fault::Server }
    }

    /// What the client sees.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Any error converts with `?`, as an internal error.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for PromptError {
    fn from(error: E) -> Self {
        PromptError::internal(error)
    }
}

/// An extractor's rejection ends the rendering with the same error.
impl From<Rejection> for PromptError {
    fn from(rejection: Rejection) -> Self {
        match rejection.internal {
            Some(error) => PromptError::internal(error),
            None => PromptError::new(rejection.message),
        }
    }
}

impl fmt::Debug for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptError").field("message", &self.message).field("internal", &self.internal).finish()
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.internal {
            Some(e) => write!(f, "internal error: {e}"),
            None => f.write_str(&self.message),
        }
    }
}
