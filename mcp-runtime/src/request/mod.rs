//! One request's context, the same for every kind of handler (a tool call,
//! a resource read, a prompt get or a completion), and the one
//! extractor trait through which `Context`, `State<T>` and user types
//! reach a handler's parameters.

pub(crate) mod claims;
pub(crate) mod context;
pub(crate) mod state;
pub(crate) mod text;

use std::fmt;
use std::sync::{Arc, OnceLock};

use mcp_core::{JsonObject, ProtocolVersion, RequestId};
use serde_json::Value;

use crate::client::rounds::Rounds;
use crate::client::{Client, Peer};
use crate::dispatch::outgoing::Outgoing;
use crate::tasks::running::Running;
pub use claims::Claims;
use context::Cancellation;
pub use context::Context;
pub use state::State;
use state::StateMap;

/// One request as its handler sees it: what it asks (the tool's name and
/// arguments) and everything known about it. Extractors
/// ([`FromRequest`]) read from it; parameters that are arguments take
/// theirs out of it.
#[derive(Debug)]
pub struct RequestParts {
    /// What is asked for: a tool's name.
    pub(crate) target: String,
    pub(crate) arguments: JsonObject,
    pub(crate) request_id: RequestId,
    pub(crate) meta: Option<JsonObject>,
    pub(crate) protocol_version: ProtocolVersion,
    /// The client (none for a request made by hand).
    pub(crate) peer: Option<Arc<Peer>>,
    /// Where the request's notifications go (none for one made by hand).
    pub(crate) outgoing: Option<Outgoing>,
    /// A client capability the handler found missing.
    pub(crate) missing_capability: Arc<OnceLock<String>>,
    pub(crate) cancellation: Cancellation,
    /// The server's shared values.
    pub(crate) state: Arc<StateMap>,
    /// A 2026-07-28 request's rounds (questions to the client become
    /// input requests).
    pub(crate) rounds: Option<Arc<Rounds>>,
    /// The verified access token's claims (OAuth over HTTP only).
    pub(crate) claims: Option<Claims>,
    /// A call that may become a task: once it is one, questions to the
    /// client are asked through it.
    pub(crate) task: Option<Arc<Running>>,
    /// Tells the caller's session apart in rate limiters (0 for a request
    /// made by hand): a `Throttle` layer, and a mounted server of this
    /// process called directly, count each caller's allowance on its own.
    pub(crate) session_key: u64,
    /// The HTTP session's `Mcp-Session-Id` (none for stdio, memory and
    /// stateless requests): the session's state is found by it (hashed) on
    /// whichever replica takes the session up.
    pub(crate) http_session: Option<Arc<str>>,
    /// Whose view of the catalog the request sees (none for a request
    /// made by hand, or a 2026-07-28 one without a token).
    pub(crate) view_owner: Option<crate::catalog::views::Owner>,
    /// Whether the request's session outlives it (not a stateless
    /// request's, nor the one an endpoint without session ids shares):
    /// only such a session may own per-user state.
    pub(crate) session_lasts: bool,
    /// The views of the server that serves the caller's catalog: kept when
    /// a mounted server's tool is called directly, so a view it changes is
    /// the one the caller's lists are read through.
    pub(crate) views: Option<crate::catalog::views::Views>,
}

impl RequestParts {
    /// A request with these arguments, as a client would make it with
    /// `id`, for calling a handler by hand (in a test).
    pub fn new(request_id: RequestId, arguments: JsonObject) -> Self {
        RequestParts {
            target: String::new(),
            arguments,
            request_id,
            meta: None,
            protocol_version: ProtocolVersion::LATEST_HANDSHAKE,
            peer: None,
            outgoing: None,
            missing_capability: Arc::default(),
            cancellation: Cancellation::default(),
            state: Arc::default(),
            rounds: None,
            claims: None,
            task: None,
            session_key: 0,
            http_session: None,
            view_owner: None,
            session_lasts: false,
            views: None,
        }
    }

    /// The caller's own view of the catalog, if it has one.
    pub(crate) fn view(&self) -> Option<Arc<crate::catalog::views::Rules>> {
        self.views.as_ref()?.of(self.view_owner.as_ref())
    }

    /// A copy of the request, for running its handler once more.
    pub(crate) fn duplicate(&self) -> RequestParts {
        RequestParts {
            target: self.target.clone(),
            arguments: self.arguments.clone(),
            request_id: self.request_id.clone(),
            meta: self.meta.clone(),
            protocol_version: self.protocol_version,
            peer: self.peer.clone(),
            outgoing: self.outgoing.clone(),
            missing_capability: self.missing_capability.clone(),
            cancellation: self.cancellation.clone(),
            state: self.state.clone(),
            rounds: self.rounds.clone(),
            claims: self.claims.clone(),
            task: self.task.clone(),
            session_key: self.session_key,
            http_session: self.http_session.clone(),
            view_owner: self.view_owner.clone(),
            session_lasts: self.session_lasts,
            views: self.views.clone(),
        }
    }

    /// The same request, authorized by a token with these claims (for
    /// calling a handler that takes [`Claims`] by hand, in a test).
    pub fn with_claims(mut self, claims: Claims) -> Self {
        self.claims = Some(claims);
        self
    }

    /// The claims of the access token that authorized the request, if one
    /// did.
    pub fn claims(&self) -> Option<&Claims> {
        self.claims.as_ref()
    }

    /// What is asked for: the tool's name, or the URI being read.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The arguments not yet taken by a parameter.
    pub fn arguments(&self) -> &JsonObject {
        &self.arguments
    }

    /// Take the argument `name` out of the request.
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        self.arguments.remove(name)
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// The request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.meta.as_ref()
    }

    /// The protocol version the request speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }

    /// The client that made the request.
    pub fn client(&self) -> Client {
        Client {
            peer: self.peer.clone(),
            stream: self.outgoing.clone(),
            missing_capability: self.missing_capability.clone(),
            rounds: self.rounds.clone(),
            task: self.task.clone(),
        }
    }
}

/// A value the runtime supplies to a handler from the request itself
/// instead of from the client's arguments; it never appears in an input
/// schema. [`Context`] and [`State<T>`](State)
/// implement it.
///
/// Implement it to inject values of your own:
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::request::{FromRequest, Rejection, RequestParts};
///
/// /// The id of the request being served, as text.
/// struct RequestTag(String);
///
/// impl FromRequest for RequestTag {
///     fn from_request(request: &mut RequestParts) -> Result<Self, Rejection> {
///         Ok(RequestTag(request.request_id().to_string()))
///     }
/// }
///
/// /// Echo a message, tagged with the request that asked for it.
/// #[tool]
/// fn echo(message: String, tag: RequestTag) -> String {
///     format!("[{}] {message}", tag.0)
/// }
/// # fn main() {}
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be supplied by the runtime",
    note = "implement `mcp_runtime::request::FromRequest` for it, or take it as a JSON argument"
)]
pub trait FromRequest: Sized {
    /// Say what this parameter needs from the server (nothing by default):
    /// a server without it refuses to start. Called once, when a server is
    /// built.
    fn describe(needs: &mut Needs) {
        let _ = needs;
    }

    /// Produce the value for one request. An error ends the request with
    /// that error, before the handler runs.
    fn from_request(request: &mut RequestParts) -> Result<Self, Rejection>;
}

/// Why an extractor could not produce its value. [`Rejection::new`]'s
/// message is shown to the client; any other error converts with `?` into
/// an internal one, logged in full and shown only as "internal error".
pub struct Rejection {
    pub(crate) message: String,
    pub(crate) internal: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl Rejection {
    /// A rejection whose message is shown to the client.
    pub fn new(message: impl Into<String>) -> Self {
        Rejection { message: message.into(), internal: None }
    }

    /// A rejection whose details are logged but never shown to the client.
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Rejection { message: "internal error".into(), internal: Some(error.into()) }
    }
}

/// Any error converts with `?`, as an internal rejection (`Rejection`
/// does not implement `std::error::Error`, which makes this possible).
impl<E: std::error::Error + Send + Sync + 'static> From<E> for Rejection {
    fn from(error: E) -> Self {
        Rejection::internal(error)
    }
}

impl fmt::Debug for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rejection").field("message", &self.message).field("internal", &self.internal).finish()
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.internal {
            Some(e) => write!(f, "internal error: {e}"),
            None => f.write_str(&self.message),
        }
    }
}

/// What a handler's injected parameters need from the server, checked when
/// the server starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Needs {
    pub(crate) states: Vec<(std::any::TypeId, &'static str)>,
}

impl Needs {
    /// A [`State<T>`](crate::State) registered with
    /// [`Server::with_state`](crate::Server::with_state).
    pub fn state<T: 'static>(&mut self) -> &mut Self {
        self.states.push((std::any::TypeId::of::<T>(), std::any::type_name::<T>()));
        self
    }

    /// Fail, naming the handler (`kind` `name`, made from `rust_path`) and
    /// the type, unless the server has every state this asks for.
    pub(crate) fn check(
        &self,
        states: &StateMap,
        kind: &'static str,
        name: &str,
        rust_path: &str,
    ) -> Result<(), crate::Error> {
        match self.states.iter().find(|(id, _)| !states.contains(*id)) {
            None => Ok(()),
            Some((_, state)) => {
                Err(crate::Error::MissingState { kind, name: name.to_owned(), rust_path: rust_path.to_owned(), state })
            }
        }
    }
}
