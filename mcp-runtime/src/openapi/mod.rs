//! An existing HTTP API as MCP tools, from its OpenAPI document (feature
//! `openapi`).
//!
//! [`OpenApi`] reads an OpenAPI 3.0 or 3.1 document (JSON or YAML, from a
//! string, a file, or with [`OpenApi::load`] a file or URL and the documents
//! it refers to, as [`Sources`] allows) and [`Server::openapi`](crate::Server::openapi) serves its operations as
//! tools that call the API with a `reqwest::Client` of the program's own
//! (its TLS, proxies and connection pool):
//!
//! ```no_run
//! use mcp_runtime::Server;
//! use mcp_runtime::openapi::{Auth, OpenApi, RouteMap};
//!
//! # fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let api = OpenApi::from_file("petstore.yaml")?
//!     .base_url("http://127.0.0.1:8080/v1")
//!     .auth(Auth::bearer(std::env::var("PETSTORE_TOKEN")?))
//!     .route(RouteMap::exclude().methods(["DELETE"]));
//! Server::empty("petstore", "1.0.0").openapi(&api)?.run_stdio()?;
//! # Ok(())
//! # }
//! ```
//!
//! # What each operation becomes
//!
//! [`RouteMap`] rules, tried in order, decide per method, path pattern and
//! tags whether an operation is a tool, a resource (a GET without
//! parameters, `api://health`), a resource template (a GET with path and
//! optional query parameters, `api://pets/{petId}{?fields}`) or left out;
//! one no rule matches is a tool. [`OpenApi::mapping`] says what each
//! became and why, including the operations that cannot be served.
//!
//! [`OpenApi::router`] calls an axum router in this process instead of
//! the network: each request goes through it as a tower service.
//!
//! A tool's name is the `operationId` (or method and path, `get_pets_petId`),
//! with characters outside `[A-Za-z0-9_-]` made `_`, at most 64 characters
//! and unique; its description the summary and description. Its input
//! schema holds the path, query, header and cookie parameters and the JSON
//! body's properties (a body that is not a plain object is one `body`
//! argument); a name two of them share keeps its first holder, in that
//! order, and the others get their location as a suffix (`id_body`). Its
//! output schema is the first success response's JSON schema when that is
//! an object. A union clients refuse (`oneOf` an integer or a string) is
//! left open, its description saying what it was. Every `$ref` inside the
//! document is inlined (where a schema
//! refers to itself, the inner one is left open and says so, as is what
//! lies more than 8 references deep); one to another document is followed by
//! [`OpenApi::load`] and is otherwise an error naming where it is. The schemas then go through the server's
//! schema profile like any tool's, so the portable default gives every
//! known client a schema it accepts (`nullable` and 3.1's `null` types
//! become optional arguments, formats it refuses are dropped).
//!
//! # Calls
//!
//! A call's arguments are checked against the input schema, then sent:
//! path parameters percent-encoded as one segment each, query arrays and
//! objects per `style` (`form`, `spaceDelimited`, `pipeDelimited`,
//! `deepObject`) and `explode`, the body as JSON (or a form). An error status is an
//! error result with the status and the start of the API's answer; a JSON
//! answer is the text (and the structured content, when the tool has an
//! output schema); other text is text, an image an image. Answers are read
//! up to [`OpenApi::max_response_bytes`], each request is bounded by
//! [`OpenApi::timeout`] (and the tool's own timeout, as any tool), and a
//! cancelled call drops its HTTP request.

mod auth;
mod backend;
mod call;
mod document;
mod error;
mod operation;
mod resource;
mod result;
mod routes;
mod serve;
mod sources;
mod unions;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use auth::Auth;
pub use error::OpenApiError;
pub use routes::{MapTo, RouteMap};
pub use sources::Sources;

use crate::request::RequestParts;
use document::Document;

/// An axum router called in process ([`OpenApi::router`]).
#[cfg(feature = "http")]
type InProcess = axum::Router;
#[cfg(not(feature = "http"))]
type InProcess = std::convert::Infallible;

/// An OpenAPI document and how to serve it: the API's address, its
/// credentials and the route maps. Made with [`from_str`](Self::from_str)
/// or [`from_file`](Self::from_file); served with [`Server::openapi`](crate::Server::openapi).
pub struct OpenApi {
    document: Document,
    /// Every operation, read once when the document is: the route maps
    /// decide what each becomes, which a document's reading does not
    /// depend on.
    operations: std::sync::Arc<operation::Read>,
    base_url: Option<String>,
    client: Option<reqwest::Client>,
    router: Option<InProcess>,
    uri_prefix: String,
    auth: Option<Auth>,
    per_request: Option<auth::PerRequest>,
    routes: Vec<RouteMap>,
    timeout: Duration,
    max_response: usize,
}

/// What one operation became, and why ([`OpenApi::mapping`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mapped {
    /// `GET`, `POST`…
    pub method: String,
    /// The path as the document writes it.
    pub path: String,
    /// What it became ([`MapTo::Exclude`] also for one that cannot be
    /// served, with [`left_out`](Self::left_out) set).
    pub to: MapTo,
    /// The tool's name, when it became one.
    pub tool: Option<String>,
    /// Its name as a tool, resource or template.
    pub name: Option<String>,
    /// Its URI (or URI template), when it became a resource.
    pub uri: Option<String>,
    /// Why: the route map rule that decided, the default, or what made it
    /// impossible to serve.
    pub reason: String,
    /// It cannot be served as the document describes it (a multipart
    /// body, a style no client can send); the reason says why.
    pub left_out: bool,
}

impl OpenApi {
    /// Read a document from its text, JSON or YAML. An error names where
    /// in the document the problem is (a JSON pointer).
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<OpenApi, OpenApiError> {
        OpenApi::of(Document::parse(text)?)
    }

    /// Read a document already parsed into JSON, such as one a library
    /// generates from the routes (`serde_json::to_value(&doc)`).
    pub fn from_value(document: serde_json::Value) -> Result<OpenApi, OpenApiError> {
        OpenApi::of(Document::of(document)?)
    }

    /// `document`, served with the defaults.
    fn of(document: Document) -> Result<OpenApi, OpenApiError> {
        // Every operation is read now, so a malformed one is reported here.
        let operations = std::sync::Arc::new(operation::operations(&document)?);
        Ok(OpenApi {
            document,
            operations,
            base_url: None,
            client: None,
            router: None,
            uri_prefix: "api://".to_owned(),
            auth: None,
            per_request: None,
            routes: Vec::new(),
            timeout: Duration::from_secs(30),
            max_response: 1024 * 1024,
        })
    }

    /// An axum router's routes, described by `document` (anything that
    /// serializes to an OpenAPI document, such as the `utoipa::openapi::OpenApi`
    /// that utoipa's `OpenApiRouter::split_for_parts` returns beside the
    /// router), to be called in process ([`router`](Self::router)).
    #[cfg(feature = "http")]
    pub fn from_router(router: axum::Router, document: &impl serde::Serialize) -> Result<OpenApi, OpenApiError> {
        let document = serde_json::to_value(document)
            .map_err(|e| OpenApiError::config(format!("the document does not serialize to JSON: {e}")))?;
        Ok(OpenApi::from_value(document)?.router(router))
    }

    /// Read a document from a file, JSON or YAML.
    pub fn from_file(path: impl AsRef<Path>) -> Result<OpenApi, OpenApiError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| OpenApiError::config(format!("cannot read {}: {e}", path.display())))?;
        OpenApi::from_str(&text).map_err(|e| e.in_file(path))
    }

    /// Where the API is (`https://api.example.com/v1`); paths are appended
    /// to it. Without it, the document's first `servers` URL, which must
    /// then be absolute.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The HTTP client calls go through (its TLS, proxies, pool and
    /// default headers). Without it, a plain `reqwest::Client`. HTTPS needs
    /// one of reqwest's TLS features turned on in the program.
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Call the operations in this axum router, in this process, instead
    /// of over the network: each request goes through the router as a
    /// tower service (`oneshot`), with no socket and no HTTP encoding, so
    /// a service gets an MCP endpoint beside its REST one. The paths are
    /// the document's, under the path of [`base_url`](Self::base_url) or
    /// of the document's first `servers` URL, if any.
    #[cfg(feature = "http")]
    pub fn router(mut self, router: axum::Router) -> Self {
        self.router = Some(router);
        self
    }

    /// What resources' URIs start with (`api://` unless set): a GET of
    /// `/pets/{petId}` made a resource template is `api://pets/{petId}`.
    pub fn uri_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.uri_prefix = prefix.into();
        self
    }

    /// Send this credential with every request.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Choose the credential per MCP request, e.g. one the caller's
    /// [`Claims`](crate::Claims) (from `request.claims()`) name: a token
    /// exchanged for the user, a per-tenant key. `None` falls back to
    /// [`auth`](Self::auth).
    pub fn auth_per_request(mut self, choose: impl Fn(&RequestParts) -> Option<Auth> + Send + Sync + 'static) -> Self {
        self.per_request = Some(Arc::new(choose));
        self
    }

    /// Add a route map rule (tried after those added before).
    pub fn route(mut self, rule: RouteMap) -> Self {
        self.routes.push(rule);
        self
    }

    /// How long one request to the API may take (30 s unless set).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most of an answer a call reads (1 MiB unless set); a larger
    /// answer is an error result saying so.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response = bytes;
        self
    }

    /// The document's `info.title` and `info.version`.
    pub fn info(&self) -> (String, String) {
        let info = self.document.root.get("info");
        let text = |key| info.and_then(|i| i.get(key)).and_then(serde_json::Value::as_str).unwrap_or("");
        let title = match text("title") {
            "" => "openapi".to_owned(),
            title => title.to_owned(),
        };
        let version = match text("version") {
            "" => "0.0.0".to_owned(),
            version => version.to_owned(),
        };
        (title, version)
    }

    /// What each operation becomes under the route maps, and why, in the
    /// document's order; the operations that cannot be served are last,
    /// each with why.
    pub fn mapping(&self) -> Result<Vec<Mapped>, OpenApiError> {
        Ok(serve::plan(self)?.into_iter().map(|(mapped, _)| mapped).collect())
    }

    /// The base URL calls go to, without a trailing `/`.
    fn base(&self) -> Result<String, OpenApiError> {
        let base = match &self.base_url {
            Some(url) => url.clone(),
            None => {
                let server = self.document.root.pointer("/servers/0");
                let mut url =
                    server.and_then(|s| s.get("url")).and_then(serde_json::Value::as_str).unwrap_or("").to_owned();
                // Server variables take their defaults.
                if let Some(variables) = server.and_then(|s| s.get("variables")).and_then(serde_json::Value::as_object)
                {
                    for (name, variable) in variables {
                        if let Some(default) = variable.get("default").and_then(serde_json::Value::as_str) {
                            url = url.replace(&format!("{{{name}}}"), default);
                        }
                    }
                }
                url
            }
        };
        if self.router.is_some() {
            // In process only the path counts: the document's server may
            // be absolute (`https://api.example.com/v1`) or a path (`/v1`).
            let path = match reqwest::Url::parse(&base) {
                Ok(url) => url.path().to_owned(),
                Err(_) => base.split(['?', '#']).next().unwrap_or("").to_owned(),
            };
            let path = path.trim_end_matches('/');
            let sep = if path.is_empty() || path.starts_with('/') { "" } else { "/" };
            return Ok(format!("http://localhost{sep}{path}"));
        }
        match reqwest::Url::parse(&base) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(base.trim_end_matches('/').to_owned()),
            _ if self.base_url.is_none() => Err(OpenApiError::at(
                "/servers",
                format!(
                    "no absolute http(s) URL to call the API at (found `{base}`): give one with `OpenApi::base_url`"
                ),
            )),
            _ => Err(OpenApiError::config(format!("the base URL `{base}` is not an absolute http(s) URL"))),
        }
    }
}
