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
    /// A bound of the client's was reached: a message from the server
    /// larger than [`ClientBuilder::max_message_bytes`](crate::ClientBuilder::max_message_bytes),
    /// or a paged list longer or slower than its bounds
    /// ([`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages) and the settings beside it),
    /// or more resource subscriptions than a session keeps.
    /// The message names the bound, its value and the setting that raises
    /// it. The connection stays usable.
    Limit(String),
    /// A task ended cancelled, so it has no result
    /// ([`Client::finish_task`](crate::Client::finish_task) and the calls
    /// that wait for one).
    Cancelled(String),
    /// An HTTP server answered 404 to a request in its session: the
    /// session expired or was ended. The client opens a new session and
    /// sends the request again once by itself; this is what is left when
    /// that failed too, or when the new session another request was
    /// opening could not be opened (the next request tries again).
    SessionExpired,
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

    /// A message of `size` bytes (or more, when `size` is the part read
    /// before giving up) over `limit`.
    pub(crate) fn too_large(what: &str, size: usize, limit: usize) -> Error {
        Error::Limit(format!(
            "{what} is larger than the client's limit of {} ({size} bytes or more; ClientBuilder::max_message_bytes)",
            bytes(limit)
        ))
    }
}

/// A size as people read it: `64 MiB`, `1500 bytes`.
pub(crate) fn bytes(size: usize) -> String {
    const MIB: usize = 1 << 20;
    const KIB: usize = 1 << 10;
    match size {
        size if size >= MIB && size % MIB == 0 => format!("{} MiB", size / MIB),
        size if size >= KIB && size % KIB == 0 => format!("{} KiB", size / KIB),
        size => format!("{size} bytes"),
    }
}

/// `url` without what may be a secret: the userinfo (`user:password@`),
/// the query (`?token=…`) and the fragment. The client's errors carry the
/// result, and a gateway names its upstreams this way to its own callers,
/// who must not learn what is in its configuration.
pub fn redact_url(url: &str) -> String {
    let url = &url[..url.find(['?', '#']).unwrap_or(url.len())];
    let Some(scheme_end) = url.find("://") else { return url.to_owned() };
    let rest = &url[scheme_end + 3..];
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    match authority.rfind('@') {
        Some(at) => format!("{}{}", &url[..scheme_end + 3], &rest[at + 1..]),
        None => url.to_owned(),
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
            Error::Limit(why) => write!(f, "limit reached: {why}"),
            Error::SessionExpired => f.write_str("the server no longer knows this session (HTTP 404)"),
            Error::Cancelled(why) => write!(f, "cancelled: {why}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ErrorObject> for Error {
    fn from(error: ErrorObject) -> Self {
        Error::Server(error)
    }
}

/// A failed HTTP exchange as one line, without its URL: reqwest's own
/// message names the URL, query and credentials included (its causes,
/// from hyper and the OS, name none).
#[cfg(feature = "http")]
pub(crate) fn http_failure(error: reqwest::Error) -> String {
    chain(&error.without_url())
}

/// An error and its causes, as one line: what a transport failure says.
#[cfg(feature = "http")]
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_credentials_query_and_fragment() {
        let cases = [
            ("http://user:pw@host:8080/mcp?token=s#f", "http://host:8080/mcp"),
            ("https://host/mcp?key=s", "https://host/mcp"),
            ("http://a@b@host/p", "http://host/p"),
            ("http://host/p@q", "http://host/p@q"),
            ("http://host", "http://host"),
            ("not a url?x", "not a url"),
        ];
        for (url, redacted) in cases {
            assert_eq!(redact_url(url), redacted, "{url}");
        }
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(64 << 20), "64 MiB");
        assert_eq!(bytes(2048), "2 KiB");
        assert_eq!(bytes(1500), "1500 bytes");
    }
}
