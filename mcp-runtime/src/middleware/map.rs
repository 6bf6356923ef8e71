//! The ready layer that translates errors: a protocol error on its way to
//! the client, rewritten by a function of the user's.

use std::task::{Context, Poll};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tower::{Layer, Service};

use super::{ErrorObject, Invocation, Kind, Pipeline, Reply};

/// Rewrite every protocol error a request ends in (a prompt's or a
/// resource's failure, an unknown argument, a layer's refusal) with `f`,
/// which is told the kind and name of what was requested. A tool's
/// failures are results, not errors: change those with
/// [`from_fn`](super::from_fn).
///
/// ```
/// use mcp_runtime::middleware::{self, ErrorObject};
/// use mcp_runtime::Server;
///
/// // Say where to get help, after every error.
/// let server = Server::new("app", "1").layer(middleware::map_failure(|error: ErrorObject, _, _| {
///     ErrorObject { message: format!("{} (see https://example.com/help)", error.message), ..error }
/// }));
/// # drop(server);
/// ```
pub fn map_failure<F>(f: F) -> MapFailure<F>
where
    F: Fn(ErrorObject, Kind, &str) -> ErrorObject + Clone + Send + Sync + 'static,
{
    MapFailure { f }
}

/// The layer [`map_failure`] makes.
#[derive(Clone)]
pub struct MapFailure<F> {
    f: F,
}

impl<F: Clone> Layer<Pipeline> for MapFailure<F> {
    type Service = MapFailureService<F>;

    fn layer(&self, inner: Pipeline) -> Self::Service {
        MapFailureService { f: self.f.clone(), inner }
    }
}

/// The service of a [`MapFailure`] layer.
#[derive(Clone)]
pub struct MapFailureService<F> {
    f: F,
    inner: Pipeline,
}

impl<F> Service<Invocation> for MapFailureService<F>
where
    F: Fn(ErrorObject, Kind, &str) -> ErrorObject + Clone + Send + Sync + 'static,
{
    type Response = Reply;
    type Error = ErrorObject;
    type Future = BoxFuture<'static, Result<Reply, ErrorObject>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ErrorObject>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, invocation: Invocation) -> Self::Future {
        let (kind, name, f) = (invocation.kind(), invocation.name().to_owned(), self.f.clone());
        self.inner.call(invocation).map(move |answer| answer.map_err(|error| f(error, kind, &name))).boxed()
    }
}
