//! The ready layer that refuses replies larger than a bound, with an
//! answer that says so, instead of sending a client more than it can use.

use super::{Around, ErrorObject, Invocation, Next, Reply};
use crate::tools::{BoxFuture, CallToolResult};

/// Replies larger than `max_bytes` (as JSON) do not reach the client: a
/// tool's becomes an error result that names the tool, the size and the
/// bound, so a model can ask for less; a prompt's or a resource's becomes
/// a protocol error saying the same. Counts the reply before the era's
/// projection, so what is sent may be a little smaller.
///
/// ```
/// use mcp_runtime::middleware::ResponseLimit;
/// use mcp_runtime::Server;
///
/// // Nothing larger than 256 KiB goes back to a model.
/// let server = Server::new("search", "1").layer(ResponseLimit::new(256 * 1024));
/// # drop(server);
/// ```
#[derive(Clone, Debug)]
pub struct ResponseLimit {
    max_bytes: usize,
}

impl ResponseLimit {
    /// Replies of at most `max_bytes`.
    pub fn new(max_bytes: usize) -> Self {
        ResponseLimit { max_bytes }
    }
}

/// How many bytes `reply` takes as JSON (without building the text).
fn size(reply: &Reply) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let written = match reply {
        Reply::Tool(result) => serde_json::to_writer(&mut count, result),
        Reply::Prompt(result) => serde_json::to_writer(&mut count, result),
        Reply::Resource(result) => serde_json::to_writer(&mut count, result),
        Reply::Completion(result) => serde_json::to_writer(&mut count, result),
        Reply::InputRequired(result) => serde_json::to_writer(&mut count, result),
    };
    if written.is_err() { 0 } else { count.0 }
}

impl Around for ResponseLimit {
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        let (max, kind, name) = (self.max_bytes, invocation.kind(), invocation.name().to_owned());
        let answer = next.run(invocation);
        Box::pin(async move {
            let reply = answer.await?;
            let size = size(&reply);
            if size <= max {
                return Ok(reply);
            }
            let what = match kind {
                super::Kind::Tool => "the result of tool",
                super::Kind::Prompt => "prompt",
                super::Kind::Resource => "resource",
                super::Kind::Completion => "the completions of",
            };
            let text = format!(
                "{what} `{name}` is {size} bytes, more than this server sends ({max} bytes at most); ask for less"
            );
            tracing::warn!(%name, size, max, "a reply over the size limit was not sent");
            match reply {
                Reply::Tool(_) => Ok(Reply::Tool(CallToolResult::error_text(text))),
                _ => Err(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, text)),
            }
        })
    }
}
