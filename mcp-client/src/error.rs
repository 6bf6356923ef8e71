//! What can go wrong between a client and a server, each case with what
//! the caller can do about it.

use std::fmt;
use std::time::Duration;

use mcp_core::ErrorObject;

/// Why a request has no result.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a JSON-RPC error.
    Server(ErrorObject),
    /// No answer within the request's timeout (the request was cancelled).
    Timeout(Duration),
    /// The connection ended (the server exited, closed the stream, or the
    /// client was closed) before the answer came.
    Closed(String),
    /// The transport failed: a spawn, a read or write, an HTTP exchange.
    Transport(String),
    /// An HTTP server refused a request without a JSON-RPC answer.
    Http {
        /// The status.
        status: u16,
        /// The start of the body, for the message.
        body: String,
    },
    /// The server said something the protocol does not allow (a result of
    /// the wrong shape, a version the client does not speak).
    Protocol(String),
    /// A skill's file whose content is not what the skill's entry says (its
    /// size, digest or frontmatter), or that the entry does not list: it
    /// was not used. Refreshing the entry (`skills/get`) may help if the
    /// skill changed.
    Unverified(String),
    /// A tool call the server marked as failed (`isError`), when the
    /// caller asked for the structured result.
    Tool(String),
}

impl Error {
    /// The JSON-RPC error the server answered with, if that is what this is.
    pub fn server_error(&self) -> Option<&ErrorObject> {
        match self {
            Error::Server(error) => Some(error),
            _ => None,
        }
    }

    pub(crate) fn protocol(message: impl Into<String>) -> Error {
        Error::Protocol(message.into())
    }

    pub(crate) fn transport(message: impl fmt::Display) -> Error {
        Error::Transport(message.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Server(error) => write!(f, "the server answered with error {}: {}", error.code, error.message),
            Error::Timeout(after) => write!(f, "no answer within {after:?}; the request was cancelled"),
            Error::Closed(why) => write!(f, "the connection to the server ended: {why}"),
            Error::Transport(why) => write!(f, "transport failure: {why}"),
            Error::Http { status, body } if body.is_empty() => {
                write!(f, "the server refused the request with HTTP {status}")
            }
            Error::Http { status, body } => write!(f, "the server refused the request with HTTP {status}: {body}"),
            Error::Protocol(why) => write!(f, "protocol violation: {why}"),
            Error::Tool(why) => write!(f, "the tool failed: {why}"),
            Error::Unverified(why) => write!(f, "skill content failed verification: {why}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ErrorObject> for Error {
    fn from(error: ErrorObject) -> Self {
        Error::Server(error)
    }
}

/// An error and its causes, as one line: what a transport failure says.
#[cfg(feature = "http")]
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}
