//! The ready layer that translates errors: a protocol error on its way to
//! the client, rewritten by a function of the user's.

use futures_util::FutureExt;

use super::{Around, ErrorObject, Invocation, Kind, Next, Reply};
use crate::tools::BoxFuture;

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

impl<F> Around for MapFailure<F>
where
    F: Fn(ErrorObject, Kind, &str) -> ErrorObject + Clone + Send + Sync + 'static,
{
    fn around(&self, invocation: Invocation, next: Next) -> BoxFuture<'static, Result<Reply, ErrorObject>> {
        let (kind, name, f) = (invocation.kind(), invocation.name().to_owned(), self.f.clone());
        Box::pin(next.run(invocation).map(move |answer| answer.map_err(|error| f(error, kind, &name))))
    }
}
