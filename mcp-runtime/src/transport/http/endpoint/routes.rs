//! The program's own routes beside the endpoint ([`HttpOptions::route`]):
//! checked when the server starts, reached only where the server's own
//! paths are not, and behind the same `Host` and `Origin` checks.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;

use crate::error::Error;
use crate::transport::http::HttpOptions;
use crate::transport::http::guard::{self, AllowList, Refusal};

impl HttpOptions {
    /// Serve `route` at `path` on the same server as the endpoint: a
    /// health check, a status page or a webhook, without leaving
    /// [`Server::serve_http_with`](crate::Server::serve_http_with) (and
    /// its accept loop, connection limits and logger) for a router you
    /// serve yourself. [`Server::http_router`](crate::Server::http_router)
    /// has them too.
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, axum::routing::get, transport::HttpOptions};
    ///
    /// # async fn run() -> Result<(), mcp_runtime::Error> {
    /// let options = HttpOptions::new().route("/health", get(|| async { "ok" }));
    /// Server::new("app", "1.0.0").serve_http_with("127.0.0.1:8080", options).await
    /// # }
    /// ```
    ///
    /// The server's own paths come first and cannot be taken: the endpoint,
    /// and the server card's and OAuth's when those are on. A route at one
    /// of them, a path added twice (give one `MethodRouter` every method:
    /// `get(a).post(b)`), or paths axum cannot tell apart make
    /// [`Error::InvalidRoute`] when the server starts. The routes answer
    /// only the hosts and origins the endpoint does
    /// ([`allowed_hosts`](Self::allowed_hosts), [`allowed_origins`](Self::allowed_origins)),
    /// so no web page reaches them through DNS rebinding; others get 403.
    /// They ask for no token (a load balancer's health check has none):
    /// check one in the handler of a route that needs it. The connection
    /// limits apply to them; the endpoint's request limits (body size and
    /// read time) do not: axum's body extractors cap a body at 2 MB. In
    /// [`Server::http_router`](crate::Server::http_router)'s router they are
    /// its fallback: merge it into a router that has none.
    pub fn route(mut self, path: impl Into<String>, route: MethodRouter) -> Self {
        let path = path.into();
        let path = if path.starts_with('/') { path } else { format!("/{path}") };
        self.routes.push((path, route));
        self
    }
}

/// The program's routes as one router, or why they cannot be served:
/// each path as axum would take it (axum panics where this says why),
/// and none at a path the server serves itself (`taken`, each with what
/// it is), where it would never be reached.
pub(super) fn router(options: &HttpOptions, taken: &[(String, &str)]) -> Result<Option<Router>, Error> {
    if options.routes.is_empty() {
        return Ok(None);
    }
    let invalid = |path: &str, reason: String| Error::InvalidRoute { path: path.to_owned(), reason };
    // axum routes with matchit, at the version this one is: what it
    // refuses here, axum would have refused with a panic.
    let mut paths = matchit::Router::new();
    let mut router = Router::new();
    for (at, (path, route)) in options.routes.iter().enumerate() {
        if let Some((_, what)) = taken.iter().find(|(taken, _)| taken == path) {
            return Err(invalid(path, format!("the server serves {what} there; pick another path")));
        }
        if let Some(segment) = path.split('/').find(|s| s.starts_with([':', '*'])) {
            return Err(invalid(path, format!("`{segment}`: a capture is written `{{name}}`, a wildcard `{{*name}}`")));
        }
        if options.routes[..at].iter().any(|(earlier, _)| earlier == path) {
            let reason = "it is added twice; give one MethodRouter every method: `get(a).post(b)`";
            return Err(invalid(path, reason.to_owned()));
        }
        if let Err(error) = paths.insert(path.as_str(), ()) {
            return Err(invalid(path, error.to_string()));
        }
        router = router.route(path, route.clone());
    }
    let checks = Arc::new((options.hosts.clone(), options.origins.clone()));
    Ok(Some(router.layer(axum::middleware::from_fn_with_state(checks, checked))))
}

/// The endpoint's `Host` and `Origin` checks, before any route of the
/// program's (no token: that is the route's to ask for).
async fn checked(State(checks): State<Arc<(AllowList, AllowList)>>, request: Request, next: Next) -> Response {
    let (hosts, origins) = &*checks;
    if let Err(Refusal::Forbidden(why)) = guard::check(request.headers(), hosts, origins, None) {
        return (StatusCode::FORBIDDEN, why).into_response();
    }
    next.run(request).await
}
