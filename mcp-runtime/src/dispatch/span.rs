//! The one span of every request, shaped as OpenTelemetry's semantic
//! conventions for MCP server spans say (`docs/gen-ai/mcp.md`, status
//! Development), so that `tracing-opentelemetry` exports it as it is: its
//! name (`otel.name`), kind and status, and the `mcp.*`, `jsonrpc.*`,
//! `gen_ai.*` and `error.type` attributes.
//!
//! It is a DEBUG span: the default stderr logger is at INFO, so a server
//! that only logs never builds one, and the level check is all it costs.
//! A subscriber that wants the spans enables DEBUG for `mcp_runtime`.
//!
//! A method names the span's target while it routes the request, before
//! the call's future first enters the span: `tracing-opentelemetry` fixes
//! an OpenTelemetry span's name when it starts it, on that first entry.

use std::fmt;

use mcp_core::{ErrorObject, RequestId, codes, methods};
use tracing::Instrument;
use tracing::Span;
use tracing::field::{Empty, display};

use super::Action;
use super::reply::Answer;
use crate::tools::BoxFuture;

/// The span of request `id` of `method`, arrived over `transport`
/// (`network.transport`); fields known later are recorded as they become
/// known: the era's version and the session when the request is routed,
/// the target by the method's own code, the outcome by [`finish`].
pub(crate) fn start(method: &str, id: &RequestId, transport: Option<&'static str>) -> Span {
    tracing::debug_span!(
        "request",
        otel.name = method,
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        jsonrpc.request.id = %IdText(id),
        mcp.protocol.version = Empty,
        mcp.session.id = Empty,
        network.transport = transport,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        mcp.resource.uri = Empty,
        rpc.response.status_code = Empty,
        error.type = Empty,
    )
}

/// A request id as the conventions write it: a string id without quotes.
struct IdText<'a>(&'a RequestId);

impl fmt::Display for IdText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(s),
        }
    }
}

/// A `tools/call` of the server's tool `name`: the span is named after it
/// (`tools/call add`), and is a GenAI `execute_tool` operation.
pub(crate) fn tool(span: &Span, name: &str) {
    if span.is_disabled() {
        return;
    }
    span.record("otel.name", display(format_args!("{} {name}", methods::TOOLS_CALL)));
    span.record("gen_ai.tool.name", name);
    span.record("gen_ai.operation.name", "execute_tool");
}

/// A `prompts/get` of the server's prompt `name`.
pub(crate) fn prompt(span: &Span, name: &str) {
    if span.is_disabled() {
        return;
    }
    span.record("otel.name", display(format_args!("{} {name}", methods::PROMPTS_GET)));
    span.record("gen_ai.prompt.name", name);
}

/// A request about the resource at `uri`. Not in the span's name: URIs are
/// too many for span names (the conventions advise against it).
pub(crate) fn resource(span: &Span, uri: &str) {
    span.record("mcp.resource.uri", uri);
}

/// A tool call whose result has `isError: true`: a failure the JSON-RPC
/// answer does not show, so the tools code says so where it builds the
/// result.
pub(crate) fn tool_error(span: &Span) {
    span.record("error.type", "tool_error");
    span.record("otel.status_code", "error");
}

/// The span `action` runs in: an answer now is recorded at once; a call's
/// or subscription's future runs inside the span and records its answer
/// when it has one. A disabled span leaves the action as it is (no extra
/// box, no wrapper).
pub(crate) fn finish(span: Span, action: Action) -> Action {
    if span.is_disabled() {
        return action;
    }
    match action {
        Action::Reply(answer) => {
            outcome(&span, &answer);
            Action::Reply(answer)
        }
        Action::Call(id, future, cancellation) => Action::Call(id, within(span, future), cancellation),
        Action::Listen(id, future, cancellation) => Action::Listen(id, within(span, future), cancellation),
        action @ (Action::None | Action::Cancel(_)) => action,
    }
}

fn within(span: Span, future: BoxFuture<'static, Answer>) -> BoxFuture<'static, Answer> {
    let recorder = span.clone();
    let future = async move {
        let answer = future.await;
        outcome(&recorder, &answer);
        answer
    };
    Box::pin(future.instrument(span))
}

/// An error answer's code (`rpc.response.status_code`) and, when it is the
/// server's failure rather than the caller's, `error.type` and the error
/// status with the error's message.
fn outcome(span: &Span, answer: &Answer) {
    let Some(error) = answer.error_object() else { return };
    span.record("rpc.response.status_code", display(error.code));
    if is_failure(error) {
        span.record("error.type", display(error.code));
        span.record("otel.status_code", "error");
        span.record("otel.status_description", error.message.as_str());
    }
}

/// The conventions' server status: these codes say the caller sent a
/// request the server could not serve (a typo in a method name, an unknown
/// tool, a missing resource), which a server's error rate should not count;
/// every other code is the server's failure.
pub(crate) fn is_failure(error: &ErrorObject) -> bool {
    !matches!(
        error.code,
        codes::PARSE_ERROR
            | codes::INVALID_REQUEST
            | codes::METHOD_NOT_FOUND
            | codes::INVALID_PARAMS
            | codes::RESOURCE_NOT_FOUND
    )
}
