//! Each kind of request that runs user code (`tools/call`, `prompts/get`,
//! `resources/read`, `completion/complete`) is one [`Invocable`], as each
//! handler is one `Handler` in axum: the kind supplies only what differs
//! (how its params parse, how its component is found, its own checks, how
//! its handler's outcome settles and how a reply becomes its answer), and
//! [`admit`] writes the admission once, in one order for every kind:
//!
//! 1. parse the params, a retry's members taken out first;
//! 2. find the component (the not-found error of the request's era), the
//!    span named by a name the server has (a resource's by its URI even
//!    before, as an attribute: URIs never name spans);
//! 3. check the token's scopes;
//! 4. the kind's own checks and its rounds, in its order (a tool's
//!    arguments, a prompt's argument names); one may answer now (a tool's
//!    error result, a completion from known values);
//! 5. the rate limits ([`crate::tools::limit`]), after the arguments (a
//!    call that cannot run uses no allowance) and before the rounds, a task
//!    and the layers, none of which a refused call reaches; the `Throttle`
//!    layer shares their limiter and their refusals;
//! 6. the kind's steps (timeout, a tool's task), then [`invoke::call`].
//!
//! Every refusal here runs no user code and no middleware.

use std::future::Future;

use mcp_core::{ErrorObject, JsonObject};
use tracing::Span;

use crate::client::rounds::{Retry, Rounds};
use crate::dispatch::reply::{Answer, Projection};
use crate::dispatch::{Action, Incoming};
use crate::invoke::{self, Outcome, Steps};
use crate::middleware::{Kind, Reply};
use crate::request::RequestParts;
use crate::tools::limit::{self, Limiter};

/// One kind of invocation, its value one admitted request of that kind.
/// Its methods run inside the request's span once admitted.
pub(crate) trait Invocable: Sized + Send + Sync + 'static {
    /// The kind as the middleware sees it.
    const KIND: Kind;
    /// Whether the span is named before the lookup, by any name.
    const SPAN_BEFORE_LOOKUP: bool = false;
    /// Whether the server-wide rate limit applies.
    const SERVER_LIMITED: bool = false;
    /// The params, parsed.
    type Params;
    /// What its handler returns.
    type Output: Send + 'static;
    /// Its handler's run.
    type Future: Future<Output = Self::Output> + Send + 'static;

    /// The params without a retry's members, and those members.
    fn parse(params: JsonObject) -> Result<(Self::Params, Retry), ErrorObject>;
    /// The name (or URI) the params ask for.
    fn name(params: &Self::Params) -> &str;
    /// Name `span` after the component `name`.
    fn span(_span: &Span, _name: &str) {}
    /// The component the params name, or the not-found error of the
    /// request's era.
    fn find(request: &Incoming<'_>, params: Self::Params) -> Result<Self, ErrorObject>;
    /// The scopes it requires, and how a refusal names it ("tool", `add`).
    fn scopes(&self) -> (&[String], &'static str, &str);
    /// Its own checks and its rounds, in its order; a reply if it is
    /// answered now.
    fn check(&mut self, request: &Incoming<'_>, retry: Retry) -> Result<Checked, ErrorObject>;
    /// Its own rate limit.
    fn limiter(&self) -> Option<&Limiter> {
        None
    }
    /// Its handler's target, arguments and `_meta`, taken out.
    fn take(&mut self) -> (String, JsonObject, Option<JsonObject>);
    /// Its timeout, and for a tool its task.
    fn steps(&mut self, request: &Incoming<'_>, parts: &RequestParts) -> Result<Steps, ErrorObject>;
    /// Its handler, started.
    fn start(&self, parts: RequestParts) -> Self::Future;
    /// Whether running it twice does no harm (a tool marked read-only or
    /// idempotent), so a `Retry` layer may.
    fn repeatable(&self) -> bool {
        false
    }
    /// The handler's outcome as the client would see it.
    fn settle(&self, outcome: Outcome<Self::Output>) -> Result<Reply, ErrorObject>;
    /// A reply of its kind as the answer for `to`'s version (`None` for a
    /// reply of another kind); `span` is the request's.
    fn finish(&self, reply: Reply, to: &To, span: &Span) -> Option<Answer>;
}

/// What a kind's own checks decided.
pub(crate) enum Checked {
    /// Run, with these rounds.
    Run(Option<std::sync::Arc<Rounds>>),
    /// Answer now.
    Now(Reply),
}

/// Whom an answer goes to: the request's id, projection and version.
#[derive(Clone)]
pub(crate) struct To {
    pub(crate) id: mcp_core::RequestId,
    pub(crate) projection: Projection,
    pub(crate) version: mcp_core::ProtocolVersion,
}

impl To {
    pub(crate) fn of(request: &Incoming<'_>) -> To {
        To { id: request.id.clone(), projection: request.projection.clone(), version: request.version }
    }
}

/// Admit `request`, a request of kind `K`, and start its call.
pub(crate) fn admit<K: Invocable>(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let (params, retry) = K::parse(params.unwrap_or_default())?;
    if K::SPAN_BEFORE_LOOKUP {
        K::span(request.span, K::name(&params));
    }
    let mut kind = K::find(request, params)?;
    let (scopes, noun, name) = kind.scopes();
    if !K::SPAN_BEFORE_LOOKUP {
        // Only a name the server has names the span: names a client made
        // up would make span names as many as clients' typos.
        K::span(request.span, name);
    }
    request.authorize(scopes, format_args!("{noun} `{name}`"))?;
    let rounds = match kind.check(request, retry)? {
        Checked::Run(rounds) => rounds,
        Checked::Now(reply) => return now(&kind, request, Ok(reply)),
    };
    let shared = request.shared();
    let key = request.session.key;
    let over = |limiter: Option<&Limiter>| limiter.and_then(|l| l.check(key).err());
    let (_, noun, name) = kind.scopes();
    let refusal = over(kind.limiter()).map(|why| format!("{noun} `{name}` {why}")).or_else(|| {
        over(shared.limiter.as_ref().filter(|_| K::SERVER_LIMITED)).map(|why| format!("this server {why}"))
    });
    if let Some(refusal) = refusal {
        return now(&kind, request, limit::refused(K::KIND, refusal));
    }
    let (target, arguments, meta) = kind.take();
    let parts = request.request_parts(target, arguments, meta);
    let mut steps = kind.steps(request, &parts)?;
    steps.rounds = rounds;
    Ok(invoke::call(request, kind, steps, parts))
}

/// An answer now, as the kind would answer it after running.
fn now<K: Invocable>(
    kind: &K,
    request: &Incoming<'_>,
    reply: Result<Reply, ErrorObject>,
) -> Result<Action, ErrorObject> {
    let id = request.id.clone();
    let answer = kind.finish(reply?, &To::of(request), request.span).unwrap_or_else(|| {
        let text = format!("a {} request answered with a reply of another kind", K::KIND.method());
        Answer::error(Some(id), ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, text))
    });
    Ok(Action::Reply(answer))
}
