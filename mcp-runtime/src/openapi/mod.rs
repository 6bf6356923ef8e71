//! An existing HTTP API as MCP tools, from its OpenAPI document (feature
//! `openapi`).
//!
//! [`OpenApi`] reads an OpenAPI 3.0 or 3.1 document (JSON or YAML, from a
//! string or a file) and [`Server::openapi`] serves its operations as
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
//! tags whether an operation is a tool or left out; one no rule matches is
//! a tool. [`OpenApi::mapping`] says what each became and why. Resources
//! and resource templates from GET operations are not made yet.
//!
//! A tool's name is the `operationId` (or method and path, `get_pets_petId`),
//! with characters outside `[A-Za-z0-9_-]` made `_`, at most 64 characters
//! and unique; its description the summary and description. Its input
//! schema holds the path, query, header and cookie parameters and the JSON
//! body's properties (a body that is not a plain object is one `body`
//! argument); a name two of them share keeps its first holder, in that
//! order, and the others get their location as a suffix (`id_body`). Its
//! output schema is the first success response's JSON schema when that is
//! an object. Every `$ref` inside the document is inlined (where a schema
//! refers to itself, the inner one is left open and says so, as is what
//! lies more than 8 references deep); one outside the document is an error
//! naming where it is. The schemas then go through the server's
//! schema profile like any tool's, so the portable default gives every
//! known client a schema it accepts (`nullable` and 3.1's `null` types
//! become optional arguments, formats it refuses are dropped).
//!
//! # Calls
//!
//! A call's arguments are checked against the input schema, then sent:
//! path parameters percent-encoded as one segment each, query arrays and
//! objects per `style` (`form`, `spaceDelimited`, `pipeDelimited`,
//! `deepObject`) and `explode`, the body as JSON. An error status is an
//! error result with the status and the start of the API's answer; a JSON
//! answer is the text (and the structured content, when the tool has an
//! output schema); other text is text, an image an image. Answers are read
//! up to [`OpenApi::max_response_bytes`], each request is bounded by
//! [`OpenApi::timeout`] (and the tool's own timeout, as any tool), and a
//! cancelled call drops its HTTP request.

mod auth;
mod call;
mod document;
mod error;
mod operation;
mod routes;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use auth::Auth;
pub use error::OpenApiError;
pub use routes::{MapTo, RouteMap};

use crate::Server;
use crate::request::RequestParts;
use crate::tools::ToolBuilder;
use call::{Http, OpenApiTool};
use document::Document;

/// An OpenAPI document and how to serve it: the API's address, its
/// credentials and the route maps. Made with [`from_str`](Self::from_str)
/// or [`from_file`](Self::from_file); served with [`Server::openapi`].
pub struct OpenApi {
    document: Document,
    base_url: Option<String>,
    client: Option<reqwest::Client>,
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
    /// The tool's name, when it became one.
    pub tool: Option<String>,
    /// Why: the route map rule that decided, the default, or what made it
    /// impossible to serve.
    pub reason: String,
}

impl OpenApi {
    /// Read a document from its text, JSON or YAML. An error names where
    /// in the document the problem is (a JSON pointer).
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<OpenApi, OpenApiError> {
        let document = Document::parse(text)?;
        // Every operation is read now, so a malformed one is reported here.
        operation::operations(&document)?;
        Ok(OpenApi {
            document,
            base_url: None,
            client: None,
            auth: None,
            per_request: None,
            routes: Vec::new(),
            timeout: Duration::from_secs(30),
            max_response: 1024 * 1024,
        })
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
    /// document's order.
    pub fn mapping(&self) -> Result<Vec<Mapped>, OpenApiError> {
        Ok(self.plan()?.into_iter().map(|(mapped, _)| mapped).collect())
    }

    /// Each operation's mapping, with the operation when it is a tool;
    /// `Err` for one that cannot be served.
    #[allow(clippy::type_complexity)]
    fn plan(&self) -> Result<Vec<(Mapped, Result<Option<operation::Operation>, ()>)>, OpenApiError> {
        let rules = routes::Rules::new(&self.routes)?;
        let (operations, skipped) = operation::operations(&self.document)?;
        let mut names = routes::Names::default();
        let mut plan = Vec::new();
        for operation in operations {
            let (to, rule) = rules.decide(&operation);
            let reason = match rule {
                Some(i) => format!("route map rule {i}"),
                None => "no rule matched: a tool by default".to_owned(),
            };
            let mapped = Mapped {
                method: operation.method.to_string(),
                path: operation.path.clone(),
                tool: (to == MapTo::Tool).then(|| names.name(&operation)),
                reason,
            };
            plan.push((mapped, Ok((to == MapTo::Tool).then_some(operation))));
        }
        for error in skipped {
            let (method, path) = error.operation();
            plan.push((Mapped { method, path, tool: None, reason: error.to_string() }, Err(())));
        }
        Ok(plan)
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

impl Server {
    /// Serve `api`'s operations as tools, each as the route maps decide
    /// (see [`openapi`](crate::openapi)). Fails when the route maps are
    /// invalid or no base URL is known; operations that cannot be served
    /// (a body that is not JSON) are left out with a warning naming them.
    pub fn openapi(mut self, api: &OpenApi) -> Result<Self, OpenApiError> {
        let http = Arc::new(Http {
            client: api.client.clone().unwrap_or_default(),
            base: api.base()?,
            auth: api.auth.clone(),
            per_request: api.per_request.clone(),
            timeout: api.timeout,
            max_response: api.max_response,
        });
        for (mapped, operation) in api.plan()? {
            let operation = match operation {
                Ok(operation) => operation,
                Err(()) => {
                    tracing::warn!(method = %mapped.method, path = %mapped.path, reason = %mapped.reason, "operation left out");
                    continue;
                }
            };
            let (Some(name), Some(operation)) = (&mapped.tool, operation) else { continue };
            let mut builder = ToolBuilder::new(name, "openapi", &format!("{} {}", operation.method, operation.path));
            builder.description(operation.description.as_deref()).input_schema(operation.input_schema.clone());
            if operation.read_only {
                builder.read_only(true);
            }
            builder.open_world(true);
            let mut definition = builder.build();
            definition.tool.output_schema = operation.output_schema.clone();
            self = self.tool(OpenApiTool { definition, operation: Arc::new(operation), http: http.clone() });
        }
        Ok(self)
    }

    /// A server named after the document's `info` serving `api` (see
    /// [`openapi`](Self::openapi)).
    pub fn from_openapi(api: &OpenApi) -> Result<Server, OpenApiError> {
        let (title, version) = api.info();
        Server::empty(title, version).openapi(api)
    }
}
