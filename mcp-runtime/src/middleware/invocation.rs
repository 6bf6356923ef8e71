//! What a layer sees: the request on its way to its handler
//! ([`Invocation`], of a [`Kind`]), holding the handler it runs once
//! consumed, and the handler's typed answer ([`Reply`]).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use mcp_core::{
    CallToolResult, CompleteResult, ErrorObject, GetPromptResult, InputRequiredResult, JsonObject, ProtocolVersion,
    ReadResourceResult, RequestId,
};
use serde_json::Value;

use crate::request::{FromRequest, Rejection, RequestParts};
use crate::tools::BoxFuture;

/// Which kind of handler a request reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// `tools/call`: [`Invocation::name`] is the tool's name.
    Tool,
    /// `prompts/get`: the prompt's name; the arguments are strings.
    Prompt,
    /// `resources/read`: the resource's URI; the arguments are a
    /// template's variables.
    Resource,
    /// `completion/complete`: the prompt's name or the template's URI.
    Completion,
}

impl Kind {
    /// The protocol method (`tools/call`, …).
    pub fn method(self) -> &'static str {
        match self {
            Kind::Tool => mcp_core::methods::TOOLS_CALL,
            Kind::Prompt => mcp_core::methods::PROMPTS_GET,
            Kind::Resource => mcp_core::methods::RESOURCES_READ,
            Kind::Completion => mcp_core::methods::COMPLETION_COMPLETE,
        }
    }
}

/// One request on its way to its handler, as a layer sees it.
pub struct Invocation {
    kind: Kind,
    /// How many changes the server had announced when the request came.
    changes: u64,
    /// The request and the rest of the way (the handler, run through the
    /// pipeline's steps), in one allocation that the handler's future then
    /// takes over: a call through layers allocates once for its handler,
    /// and each layer moves the invocation for the price of a pointer.
    stage: Pin<Box<dyn Stage>>,
    /// Whether the stage may be run again for a copy of the request: a
    /// tool whose calls may be repeated (marked read-only or idempotent).
    repeatable: bool,
}

/// The handler's side of an invocation: the request and the handler until
/// the innermost service starts it, then the handler's future.
trait Stage: Future<Output = Result<Reply, ErrorObject>> + Send {
    fn parts(&self) -> &RequestParts;
    fn parts_mut(self: Pin<&mut Self>) -> &mut RequestParts;
    /// A fresh stage of the same handler for `parts` (made only for a
    /// repeatable request, so it costs nothing to the others).
    fn again(&self, parts: RequestParts) -> Pin<Box<dyn Stage>>;
}

pin_project_lite::pin_project! {
    #[project = HandlerProj]
    #[project_replace = HandlerOwn]
    enum Handler<H, F> {
        Waiting { parts: RequestParts, handler: H },
        Running { #[pin] future: F },
        // Only while the first poll swaps the one for the other.
        Starting,
    }
}

/// Only an [`Invocation`] holds a stage, and it starts once the invocation
/// is consumed: while anything can ask for the request, it is waiting.
const WAITING: &str = "an invocation's handler starts only once the invocation is consumed";

impl<H, F> Future for Handler<H, F>
where
    H: FnOnce(RequestParts) -> F,
    F: Future<Output = Result<Reply, ErrorObject>>,
{
    type Output = Result<Reply, ErrorObject>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        // Started on the first poll, as an async function's body is: the
        // innermost service then only hands the allocation on, and the
        // handler's code runs where the last layer awaits it.
        if let HandlerProj::Waiting { .. } = self.as_mut().project()
            && let HandlerOwn::Waiting { parts, handler } = self.as_mut().project_replace(Handler::Starting)
        {
            self.set(Handler::Running { future: handler(parts) });
        }
        match self.project() {
            HandlerProj::Running { future } => future.poll(cx),
            _ => Poll::Ready(Err(ErrorObject::internal_error())),
        }
    }
}

impl<H, F> Stage for Handler<H, F>
where
    H: Fn(RequestParts) -> F + Clone + Send + 'static,
    F: Future<Output = Result<Reply, ErrorObject>> + Send + 'static,
{
    fn parts(&self) -> &RequestParts {
        match self {
            Handler::Waiting { parts, .. } => parts,
            _ => unreachable!("{WAITING}"),
        }
    }

    fn parts_mut(self: Pin<&mut Self>) -> &mut RequestParts {
        match self.project() {
            HandlerProj::Waiting { parts, .. } => parts,
            _ => unreachable!("{WAITING}"),
        }
    }

    fn again(&self, parts: RequestParts) -> Pin<Box<dyn Stage>> {
        match self {
            Handler::Waiting { handler, .. } => Box::pin(Handler::Waiting { parts, handler: handler.clone() }),
            _ => unreachable!("{WAITING}"),
        }
    }
}

impl Invocation {
    pub(crate) fn new<H, F>(kind: Kind, parts: RequestParts, changes: u64, repeatable: bool, handler: H) -> Self
    where
        H: Fn(RequestParts) -> F + Clone + Send + 'static,
        F: Future<Output = Result<Reply, ErrorObject>> + Send + 'static,
    {
        Invocation { kind, changes, stage: Box::pin(Handler::Waiting { parts, handler }), repeatable }
    }

    /// Whether the request may run more than once: a call of a tool marked
    /// read-only or idempotent (its own, or a mounted server's).
    pub fn repeatable(&self) -> bool {
        self.repeatable
    }

    /// The same request once more, to run again if this one fails (see
    /// [`Retry`](super::Retry)); `None` unless it is
    /// [`repeatable`](Self::repeatable), and `None` for a call that may
    /// become a task: a task settles once, from the first attempt's outcome
    /// (a panic there fails it), so a later attempt could not change how it
    /// ends. Take it before running this one.
    pub fn again(&self) -> Option<Invocation> {
        if self.parts().task.is_some() {
            return None;
        }
        if !self.repeatable {
            return None;
        }
        let stage = self.stage.again(self.parts().duplicate());
        Some(Invocation { kind: self.kind, changes: self.changes, stage, repeatable: true })
    }

    /// How many changes (list changes and resource updates, on this
    /// replica or another) the server had announced when the request came:
    /// a reply kept from before a later change may be stale.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Which kind of handler it reaches.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The tool's or prompt's name, or the resource's URI.
    pub fn name(&self) -> &str {
        self.parts().target()
    }

    /// The arguments (see [`Kind`] for what they are for each kind).
    pub fn arguments(&self) -> &JsonObject {
        self.parts().arguments()
    }

    /// The arguments, to change before the handler reads them.
    pub fn arguments_mut(&mut self) -> &mut JsonObject {
        &mut self.stage.as_mut().parts_mut().arguments
    }

    /// One argument, if it was sent.
    pub fn argument(&self, name: &str) -> Option<&Value> {
        self.parts().arguments().get(name)
    }

    /// The request's id.
    pub fn request_id(&self) -> &RequestId {
        self.parts().request_id()
    }

    /// The protocol version the request speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.parts().protocol_version()
    }

    /// The request's `_meta`.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.parts().meta()
    }

    /// Anything a handler can take as a parameter that the runtime
    /// supplies: [`Context`](crate::Context) (to log to the client or
    /// report progress), [`State<T>`](crate::State), `Claims`, the client.
    pub fn extract<T: FromRequest>(&mut self) -> Result<T, Rejection> {
        T::from_request(self.stage.as_mut().parts_mut())
    }

    /// The request as handlers see it.
    pub fn parts(&self) -> &RequestParts {
        self.stage.parts()
    }

    /// Run the handler (what the innermost service does): its future
    /// takes the place of the request, in the same allocation.
    pub(super) fn run(self) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        self.stage
    }
}

impl std::fmt::Debug for Invocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invocation")
            .field("kind", &self.kind)
            .field("name", &self.name())
            .field("arguments", self.arguments())
            .finish_non_exhaustive()
    }
}

/// What a handler answered, by kind.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// A tool's result (its failures too, as `isError` results).
    Tool(CallToolResult),
    /// A prompt's messages.
    Prompt(GetPromptResult),
    /// A resource's contents.
    Resource(ReadResourceResult),
    /// Completion values.
    Completion(CompleteResult),
    /// The handler stopped to ask the client something (a 2026-07-28
    /// multi-round request): pass it on; the client will retry with the
    /// answers, and the request runs again.
    InputRequired(InputRequiredResult),
}

impl Reply {
    /// The kind of request this reply answers, if it answers one itself.
    pub fn kind(&self) -> Option<Kind> {
        match self {
            Reply::Tool(_) => Some(Kind::Tool),
            Reply::Prompt(_) => Some(Kind::Prompt),
            Reply::Resource(_) => Some(Kind::Resource),
            Reply::Completion(_) => Some(Kind::Completion),
            Reply::InputRequired(_) => None,
        }
    }
}
