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
/// shown to the client (say what to change); any other error converts with
/// `?` into an internal one, logged in full and shown only as "internal
/// error" with an incident id.
pub struct PromptError {
    pub(crate) message: String,
    pub(crate) internal: Option<Box<dyn std::error::Error + Send + Sync>>,
    /// The arguments were at fault (the protocol's invalid-params error).
    pub(crate) arguments: bool,
}

impl PromptError {
    /// An error whose message is shown to the client.
    pub fn new(message: impl Into<String>) -> Self {
        PromptError { message: message.into(), internal: None, arguments: false }
    }

    /// The arguments are at fault: missing, or not of their type.
    pub(crate) fn arguments(message: String) -> Self {
        PromptError { message, internal: None, arguments: true }
    }

    /// An error whose details are logged but never shown to the client.
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        PromptError { message: "internal error".into(), internal: Some(error.into()), arguments: false }
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
