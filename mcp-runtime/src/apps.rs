//! MCP Apps (the `io.modelcontextprotocol/ui` extension): interactive views
//! that hosts render for a tool's results.
//!
//! A view is a `ui://` resource of HTML ([`View`]); a tool names the view
//! that shows its results with `#[tool(ui = "ui://…")]`
//! ([`ToolBuilder::ui`](crate::tools::ToolBuilder::ui)), and a tool meant
//! only for views (a button's action, a refresh) says
//! `#[tool(app_only)]`. The host renders the view in a sandboxed iframe,
//! hands it the tool's arguments and result, and passes its own tool calls
//! back to this server.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::apps::View;
//!
//! /// Show the numbers as a chart.
//! #[tool(ui = "ui://charts/bars")]
//! fn chart(values: Vec<f64>) -> Json<Vec<f64>> {
//!     Json(values)
//! }
//!
//! fn main() -> Result<(), mcp_runtime::Error> {
//!     Server::new("charts", "1.0.0")
//!         .resource(View::new("ui://charts/bars", "<!doctype html><html>…</html>"))
//!         .run_stdio()
//! }
//! ```
//!
//! The server declares the extension when it has a view or a tool that
//! names one. Clients that do not declare it in their capabilities (hosts
//! that cannot render views) get the tools as plain tools, without the
//! app-only ones, which no model should call. A tool that names a view
//! this server does not serve stops the server at start-up.

use std::path::PathBuf;
use std::sync::Arc;

pub use mcp_core::apps::{Csp, MIME_TYPE, Permission, ViewMeta, Visibility};
use mcp_core::apps::{META_KEY, ToolUi};
use mcp_core::{JsonObject, ResourceContents};

use crate::error::Error;
use crate::request::RequestParts;
use crate::resources::{Contents, Resource, ResourceBuilder, ResourceDefinition, ResourceError};
use crate::tools::BoxFuture;

/// A view: HTML a host renders in a sandboxed iframe, served as the `ui://`
/// resource that tools name. Add it with
/// [`Server::resource`](crate::Server::resource).
///
/// The HTML is one document with its scripts and styles inlined (hosts
/// load nothing else unless [`connect_domains`](Self::connect_domains) and
/// [`resource_domains`](Self::resource_domains) allow it); a bundler's
/// single-file output, or `include_str!` of a hand-written page.
#[derive(Clone, Debug)]
pub struct View {
    uri: String,
    html: Html,
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    meta: ViewMeta,
}

/// Where a view's HTML is.
#[derive(Clone, Debug)]
enum Html {
    /// In the binary (`include_str!`).
    Embedded(Arc<str>),
    /// In a file, read at each read.
    File(PathBuf),
}

impl View {
    /// A view at `uri` (`ui://…`) whose HTML is `html`, usually
    /// `include_str!("view.html")`, so the binary carries it.
    pub fn new(uri: impl Into<String>, html: impl Into<Arc<str>>) -> View {
        View::with(uri.into(), Html::Embedded(html.into()))
    }

    /// A view at `uri` whose HTML is the file at `path`, read each time a
    /// host asks for it: rebuild the page and the next render shows it,
    /// without restarting the server. A file that cannot be read is an
    /// error for that read, with its path.
    pub fn file(uri: impl Into<String>, path: impl Into<PathBuf>) -> View {
        View::with(uri.into(), Html::File(path.into()))
    }

    fn with(uri: String, html: Html) -> View {
        View { uri, html, name: None, title: None, description: None, meta: ViewMeta::default() }
    }

    /// Its programmatic name (by default its URI without `ui://`).
    pub fn name(mut self, name: impl Into<String>) -> View {
        self.name = Some(name.into());
        self
    }

    /// Its display title.
    pub fn title(mut self, title: impl Into<String>) -> View {
        self.title = Some(title.into());
        self
    }

    /// What it shows, for people reviewing the server's views.
    pub fn description(mut self, description: impl Into<String>) -> View {
        self.description = Some(description.into());
        self
    }

    /// Origins it may `fetch`, XHR or open WebSockets to
    /// (`https://api.example.com`); none by default.
    pub fn connect_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> View {
        self.meta.csp.connect_domains.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Origins its images, scripts, styles, fonts and media may come from
    /// (`https://cdn.example.com`, `https://*.example.com`); none by
    /// default, so everything is inlined.
    pub fn resource_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> View {
        self.meta.csp.resource_domains.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Origins it may show in frames of its own; none by default.
    pub fn frame_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> View {
        self.meta.csp.frame_domains.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Base URIs the document may set; its own origin by default.
    pub fn base_uri_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> View {
        self.meta.csp.base_uri_domains.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Ask the host to allow a browser feature (the camera, the clipboard);
    /// hosts may refuse, so the view should check before it uses one.
    pub fn permission(mut self, permission: Permission) -> View {
        if !self.meta.permissions.contains(&permission) {
            self.meta.permissions.push(permission);
        }
        self
    }

    /// A dedicated sandbox origin, in the form the host documents (for OAuth
    /// callbacks or API key allow-lists).
    pub fn domain(mut self, domain: impl Into<String>) -> View {
        self.meta.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background around it
    /// (hosts differ when this is not said).
    pub fn prefers_border(mut self, border: bool) -> View {
        self.meta.prefers_border = Some(border);
        self
    }

    /// The `_meta` its listing and its contents carry.
    fn meta(&self) -> JsonObject {
        JsonObject::from_iter([(META_KEY.to_owned(), self.meta.to_json())])
    }
}

impl Resource for View {
    fn definition(&self) -> ResourceDefinition {
        let path = self.uri.strip_prefix(mcp_core::apps::SCHEME).unwrap_or(&self.uri);
        let name = self.name.as_deref().unwrap_or(path);
        let mut builder = ResourceBuilder::new(&self.uri, "mcp_runtime::apps::View", name);
        builder.mime_type(MIME_TYPE).title(self.title.as_deref()).description(self.description.as_deref());
        builder.meta(META_KEY, &self.meta.to_json());
        if let Html::Embedded(html) = &self.html {
            builder.size(html.len() as u64);
        }
        let mut definition = builder.build();
        if !mcp_core::apps::is_view_uri(&self.uri) {
            definition.problems.push(format!(
                "`{}` cannot name a view: a view's URI is `ui://` and a path, such as `ui://notes/editor`",
                self.uri
            ));
        }
        definition
    }

    fn read(&self, request: RequestParts) -> BoxFuture<'static, Contents> {
        let (html, meta, uri) = (self.html.clone(), self.meta(), request.target().to_owned());
        Box::pin(async move {
            let text = match html {
                Html::Embedded(html) => html.to_string(),
                Html::File(path) => tokio::fs::read_to_string(&path).await.map_err(|error| {
                    tracing::error!(view = %uri, path = %path.display(), %error, "a view's HTML cannot be read");
                    ResourceError::internal(format!("the view's HTML ({}) cannot be read: {error}", path.display()))
                })?,
            };
            Ok(vec![ResourceContents::Text { uri, mime_type: Some(MIME_TYPE.to_owned()), text, meta: Some(meta) }])
        })
    }
}

/// What `_meta.ui` a tool carries, if any.
pub(crate) fn tool_ui(tool: &mcp_core::Tool) -> Option<ToolUi> {
    ToolUi::of(tool.meta.as_ref())
}

/// Whether a client declared the extension, so it renders views and keeps
/// app-only tools from its model.
pub(crate) fn declared(peer: &crate::client::Peer) -> bool {
    peer.declares_extension(mcp_core::apps::EXTENSION)
}

/// Refuse to start when a tool of this server names a view it does not
/// serve: the host would find nothing to render.
pub(crate) fn check_views<'a>(
    tools: impl Iterator<Item = &'a crate::tools::ToolDefinition>,
    served: &dyn Fn(&str) -> bool,
) -> Result<(), Error> {
    for definition in tools.filter(|d| !d.forwarded) {
        let Some(uri) = tool_ui(&definition.tool).and_then(|ui| ui.resource_uri) else { continue };
        if !served(&uri) {
            return Err(Error::MissingView {
                tool: definition.tool.name.clone(),
                rust_path: definition.rust_path.clone(),
                uri,
            });
        }
    }
    Ok(())
}
