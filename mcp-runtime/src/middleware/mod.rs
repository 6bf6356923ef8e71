//! Middleware: code that runs around every handler a request reaches (a
//! tool call, a prompt get, a resource read, a completion), written once
//! as a [tower](https://docs.rs/tower) [`Layer`] and added with
//! [`Server::layer`](crate::Server::layer).
//!
//! A layer sees the typed request ([`Invocation`]: which kind, which
//! component, its arguments and everything a handler's [`Context`](crate::Context) knows)
//! and the typed answer ([`Reply`]), or the protocol error that stands in
//! for one ([`ErrorObject`]). It may run code before and after, answer
//! without calling on (a refusal, a cached reply), change the arguments,
//! or change the reply. [`from_fn`] makes one from an async function,
//! [`when`] limits one to the requests a predicate picks, and
//! [`Logging`], [`Cache`], [`Throttle`], [`Retry`] (repeatable tool calls
//! run again after a failure), [`ResponseLimit`] (replies too large for a
//! client refused with a clear error), `Timing` (a histogram per
//! component, feature `otel`) and [`map_failure`] are ready to use. [`Transform`] shows a
//! tool to clients as another (renamed, reworded, arguments renamed or
//! fixed) without touching its function.
//!
//! ```
//! use mcp_runtime::middleware::{self, ErrorObject, Kind};
//! use mcp_runtime::prelude::*;
//!
//! /// Delete a file.
//! #[tool]
//! fn delete(path: String) -> String {
//!     format!("deleted {path}")
//! }
//!
//! let server = Server::new("files", "1.0.0")
//!     // Every request is logged with its time and outcome.
//!     .layer(middleware::Logging::default())
//!     // A read-only policy: tools whose name starts with `delete` are refused.
//!     .layer(middleware::from_fn(|invocation, next| async move {
//!         if invocation.kind() == Kind::Tool && invocation.name().starts_with("delete") {
//!             return Err(ErrorObject::invalid_params("this server is read-only"));
//!         }
//!         next.run(invocation).await
//!     }));
//! # drop(server);
//! ```
//!
//! ## Where layers run
//! After the request is admitted (its params parsed, the component found,
//! scopes checked; a tool's arguments checked against its schema and its
//! rate limits applied) and around the rest: the handler with its timeout
//! and panic masking (see the runtime's `invoke` module). A layer may ask
//! the client something as a handler does, through the
//! [`Context`](crate::Context) it [extracts](Invocation::extract): in
//! 2026-07-28 a question it waits on ends the round like a handler's, and
//! the client's retry runs the layers again from the start. So a layer sees what the client would see: a tool's failures
//! as error results (`isError`), a prompt's or a resource's as protocol
//! errors, internal errors already masked behind an incident id. The
//! first layer added is the outermost: it runs first and sees the reply
//! last. A panic in a layer is masked like a handler's. Arguments a layer
//! changes are not checked against the schema again; the handler still
//! reads them with serde, and a mistake becomes an error result.

mod cache;
mod invocation;
mod limit;
mod logging;
mod map;
mod retry;
mod throttle;
#[cfg(feature = "otel")]
mod timing;
mod transform;

use std::future::Future;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

pub use cache::Cache;
pub use invocation::{Invocation, Kind, Reply};
pub use limit::ResponseLimit;
pub use logging::Logging;
pub use map::{MapFailure, map_failure};
/// The protocol error a layer answers with instead of a reply.
pub use mcp_core::ErrorObject;
pub use retry::Retry;
pub use throttle::Throttle;
#[cfg(feature = "otel")]
pub use timing::{DURATION, Timing};
pub use tower::Layer;
use tower::{Service, ServiceExt};
pub use transform::Transform;

use crate::tools::BoxFuture;

/// The rest of the pipeline, as a layer made with [`from_fn`] calls it
/// (cloned to run it more than once, as [`Retry`] does).
#[derive(Clone)]
pub struct Next(Pipeline);

impl Next {
    /// Run the rest of the pipeline (the next layers, then the handler):
    /// the next layer is called now, as a tower service's `call` is, and
    /// the future answers when the rest has.
    pub fn run(mut self, invocation: Invocation) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        // A pipeline is always ready: straight to its call. Its future is
        // what a layer awaits, not one more state machine around it.
        self.0.call(invocation)
    }
}

/// The pipeline behind a layer: what each layer wraps. A [`Service`] of
/// invocations that is one reference count to clone, however many layers
/// are behind it: tower clones a service for each call, and a boxed chain
/// would copy every layer after this one on every call, at every layer.
#[derive(Clone)]
pub struct Pipeline(Arc<dyn Fn(Invocation) -> BoxFuture<'static, Result<Reply, ErrorObject>> + Send + Sync>);

impl Pipeline {
    /// `service` as a pipeline; it is cloned for each call, as tower
    /// expects (a layer's service holds the `Pipeline` it wraps, which
    /// clones cheaply).
    pub fn new<S>(service: S) -> Pipeline
    where
        S: Service<Invocation, Response = Reply, Error = ErrorObject> + Clone + Send + Sync + 'static,
        S::Future: Send + 'static,
    {
        Pipeline(Arc::new(move |invocation| Box::pin(service.clone().oneshot(invocation))))
    }
}

impl Service<Invocation> for Pipeline {
    type Response = Reply;
    type Error = ErrorObject;
    type Future = BoxFuture<'static, Result<Reply, ErrorObject>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), ErrorObject>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, invocation: Invocation) -> Self::Future {
        (self.0)(invocation)
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pipeline")
    }
}

/// The innermost service: runs the handler.
pub(crate) fn handler() -> Pipeline {
    Pipeline(Arc::new(Invocation::run))
}

/// A layer as the server keeps it: wraps a pipeline in one more step.
pub(crate) type Wrap = Arc<dyn Fn(Pipeline) -> Pipeline + Send + Sync>;

/// Keep `layer` as a [`Wrap`].
pub(crate) fn wrap<L>(layer: L) -> Wrap
where
    L: Layer<Pipeline> + Send + Sync + 'static,
    L::Service: Service<Invocation, Response = Reply, Error = ErrorObject> + Clone + Send + Sync + 'static,
    <L::Service as Service<Invocation>>::Future: Send + 'static,
{
    Arc::new(move |inner| {
        // A layer whose service is already a pipeline (every `Around`
        // layer's) is kept as it is, not wrapped in one more.
        let service: Box<dyn std::any::Any> = Box::new(layer.layer(inner));
        match service.downcast::<Pipeline>() {
            Ok(pipeline) => *pipeline,
            Err(service) => Pipeline::new(*service.downcast::<L::Service>().expect("the layer's own service")),
        }
    })
}

/// The pipeline of `wraps`, the first the outermost; `None` without any,
/// so that a server without middleware boxes nothing.
pub(crate) fn build(wraps: &[Wrap]) -> Option<Pipeline> {
    if wraps.is_empty() {
        return None;
    }
    Some(wraps.iter().rev().fold(handler(), |inner, wrap| wrap(inner)))
}

/// A layer written as one function of the invocation and the rest of the
/// pipeline: what [`from_fn`] makes of a closure, and what the ready
/// layers are. Implement it (with `Clone`) and
/// [`Layer`]`<`[`Pipeline`]`>` returning [`Pipeline::around`] to write a
/// reusable layer of your own.
pub trait Around: Clone + Send + Sync + 'static {
    /// Answer `invocation`, calling `next.run(invocation)` for the rest
    /// of the pipeline, or not.
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>>;
}

impl Pipeline {
    /// `around` in front of `inner`, called directly: no service to
    /// clone, and no readiness to wait for, on each call.
    pub fn around<A: Around>(around: A, inner: Pipeline) -> Pipeline {
        Pipeline(Arc::new(move |invocation| around.around(invocation, Next(inner.clone()))))
    }
}

/// `Layer<Pipeline>` for layers that are an [`Around`].
macro_rules! around_layer {
    ($($layer:ident $(<$param:ident>)?),* $(,)?) => {$(
        impl$(<$param>)? Layer<Pipeline> for $layer$(<$param>)? where Self: Around {
            type Service = Pipeline;

            fn layer(&self, inner: Pipeline) -> Pipeline {
                Pipeline::around(self.clone(), inner)
            }
        }
    )*};
}
around_layer!(FromFn<F>, Logging, Cache, Throttle, MapFailure<F>, Retry, ResponseLimit);
#[cfg(feature = "otel")]
around_layer!(Timing);

/// A layer from an async function of the invocation and the rest of the
/// pipeline; see the [module docs](self).
pub fn from_fn<F, Fut>(f: F) -> FromFn<F>
where
    F: Fn(Invocation, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, ErrorObject>> + Send + 'static,
{
    FromFn { f }
}

/// The layer [`from_fn`] makes.
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
}

impl<F, Fut> Around for FromFn<F>
where
    F: Fn(Invocation, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, ErrorObject>> + Send + 'static,
{
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        Box::pin((self.f)(invocation, next))
    }
}

/// `layer`, only for the requests `applies` picks; the others go straight
/// on. E.g. `when(|i| i.kind() == Kind::Tool && i.name() == "deploy", …)`.
pub fn when<P, L>(applies: P, layer: L) -> When<P, L>
where
    P: Fn(&Invocation) -> bool + Clone + Send + Sync + 'static,
{
    When { applies, layer }
}

/// The layer [`when`] makes.
#[derive(Clone)]
pub struct When<P, L> {
    applies: P,
    layer: L,
}

impl<P, L> Layer<Pipeline> for When<P, L>
where
    P: Fn(&Invocation) -> bool + Clone + Send + Sync + 'static,
    L: Layer<Pipeline>,
    L::Service: Service<Invocation, Response = Reply, Error = ErrorObject> + Clone + Send + Sync + 'static,
    <L::Service as Service<Invocation>>::Future: Send + 'static,
{
    type Service = WhenService<P>;

    fn layer(&self, inner: Pipeline) -> Self::Service {
        let wrapped = Pipeline::new(self.layer.layer(inner.clone()));
        WhenService { applies: self.applies.clone(), wrapped, inner }
    }
}

/// The service of a [`When`] layer.
#[derive(Clone)]
pub struct WhenService<P> {
    applies: P,
    wrapped: Pipeline,
    inner: Pipeline,
}

impl<P: Fn(&Invocation) -> bool> Service<Invocation> for WhenService<P> {
    type Response = Reply;
    type Error = ErrorObject;
    type Future = BoxFuture<'static, Result<Reply, ErrorObject>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), ErrorObject>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, invocation: Invocation) -> Self::Future {
        // A pipeline is always ready: no clone, no `oneshot`.
        if (self.applies)(&invocation) { self.wrapped.call(invocation) } else { self.inner.call(invocation) }
    }
}
