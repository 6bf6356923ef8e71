//! Resources: the `Resource` trait that `#[resource]` implements, its
//! definition and builder, the link-time registration slot, and the
//! modules that match templates, turn return values into contents, keep
//! the catalog and answer the protocol's methods.

pub(crate) mod catalog;
pub(crate) mod contents;
pub(crate) mod directory;
pub(crate) mod methods;
pub(crate) mod param;
pub(crate) mod template;

use std::time::Duration;

use mcp_core::{Annotations, Icon, JsonObject, ResourceContents};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::Value;

pub use catalog::ResourcesHandle;
pub use contents::{Blob, IntoResourceContents, ResourceError};
pub use directory::{Directory, DirectoryFile};
pub use mcp_core::ResourceLink;

use crate::completion::{Completer, Completions};
use crate::request::{Needs, RequestParts};
use crate::tools::BoxFuture;

/// What reading a resource produces.
pub type Contents = Result<Vec<ResourceContents>, ResourceError>;

/// A resource or a resource template: its definition and how to read it.
///
/// `#[resource]` implements this for the companion type it generates
/// (`app_config::Resource` for `fn app_config`). Implement it by hand for
/// resources known only at run time.
pub trait Resource: Send + Sync + 'static {
    /// The definition. Called once, when a server is built.
    fn definition(&self) -> ResourceDefinition;

    /// Read the resource at the request's URI ([`RequestParts::target`]);
    /// a template's variables are the request's arguments, as text.
    fn read(&self, request: RequestParts) -> BoxFuture<'static, Contents>;
}

/// A resource's definition, made by [`ResourceBuilder::build`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ResourceDefinition {
    /// The protocol fields; `uri` is the URI template for a template.
    pub(crate) resource: mcp_core::Resource,
    pub(crate) rust_path: String,
    pub(crate) timeout: Option<Duration>,
    pub(crate) needs: Needs,
    /// The variables its parameters read.
    pub(crate) variables: Vec<Variable>,
    /// Why it cannot be served, found while it was described.
    pub(crate) problems: Vec<String>,
    /// What an access token must grant to see and read it.
    pub(crate) scopes: Vec<String>,
}

impl ResourceDefinition {
    /// The URI, or the URI template of a template.
    pub fn uri(&self) -> &str {
        &self.resource.uri
    }

    /// Whether it is a template (its URI has `{…}` expressions).
    pub fn is_template(&self) -> bool {
        template::is_template(&self.resource.uri)
    }

    /// The Rust item it is made from.
    pub fn rust_path(&self) -> &str {
        &self.rust_path
    }

    /// The scopes an access token must grant to see and read it
    /// ([`ResourceBuilder::scopes`]).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Its tags ([`ResourceBuilder::tags`]).
    pub fn tags(&self) -> Vec<String> {
        crate::component::tags::of(self.resource.meta.as_ref())
    }

    /// As `resources/list` describes it (a resource with a fixed URI).
    pub fn resource(&self) -> &mcp_core::Resource {
        &self.resource
    }

    /// As `resources/templates/list` describes it.
    pub fn template(&self) -> mcp_core::ResourceTemplate {
        let r = &self.resource;
        mcp_core::ResourceTemplate {
            uri_template: r.uri.clone(),
            name: r.name.clone(),
            title: r.title.clone(),
            description: r.description.clone(),
            mime_type: r.mime_type.clone(),
            annotations: r.annotations.clone(),
            icons: r.icons.clone(),
            meta: r.meta.clone(),
        }
    }
}

/// One template variable a parameter reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Variable {
    pub(crate) name: String,
    /// It may be absent (an `Option`, for a query variable).
    pub(crate) optional: bool,
    /// Its completions: its type's values (an enum's), or a function's.
    pub(crate) completions: Completions,
}

/// Builds a [`ResourceDefinition`]. Used by `#[resource]` expansions;
/// hand-written resources may use it too.
pub struct ResourceBuilder {
    definition: ResourceDefinition,
}

impl ResourceBuilder {
    /// Start a resource at `uri` (a URI template if it has `{…}`), made from
    /// `fn_name` in `module_path`; its name is `fn_name` until set.
    pub fn new(uri: &str, module_path: &str, fn_name: &str) -> Self {
        ResourceBuilder {
            definition: ResourceDefinition {
                resource: mcp_core::Resource::new(uri, fn_name),
                rust_path: format!("{module_path}::{fn_name}"),
                timeout: None,
                needs: Needs::default(),
                variables: Vec::new(),
                problems: Vec::new(),
                scopes: Vec::new(),
            },
        }
    }

    fn resource(&mut self) -> &mut mcp_core::Resource {
        &mut self.definition.resource
    }

    /// The programmatic name.
    pub fn name(&mut self, name: &str) -> &mut Self {
        self.resource().name = name.to_owned();
        self
    }

    /// The description; an empty text counts as none.
    pub fn description(&mut self, description: Option<&str>) -> &mut Self {
        self.resource().description = description.map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned);
        self
    }

    /// The display title (derived from the name when not set).
    pub fn title(&mut self, title: Option<&str>) -> &mut Self {
        self.resource().title = title.map(str::to_owned);
        self
    }

    /// The MIME type of its contents.
    pub fn mime_type(&mut self, mime_type: &str) -> &mut Self {
        self.resource().mime_type = Some(mime_type.to_owned());
        self
    }

    /// Its size in bytes (resources with a fixed URI).
    pub fn size(&mut self, bytes: u64) -> &mut Self {
        self.resource().size = Some(bytes);
        self
    }

    /// Who it is for: `"user"`, `"assistant"`.
    pub fn audience(&mut self, audience: &[&str]) -> &mut Self {
        let annotations = self.resource().annotations.get_or_insert_with(Annotations::default);
        annotations.audience = Some(audience.iter().map(|a| (*a).to_owned()).collect());
        self
    }

    /// How important it is, from 0 (least) to 1 (most).
    pub fn priority(&mut self, priority: f64) -> &mut Self {
        self.resource().annotations.get_or_insert_with(Annotations::default).priority = Some(priority);
        self
    }

    /// When it last changed (ISO 8601).
    pub fn last_modified(&mut self, timestamp: &str) -> &mut Self {
        let annotations = self.resource().annotations.get_or_insert_with(Annotations::default);
        annotations.last_modified = Some(timestamp.to_owned());
        self
    }

    /// Add an icon (sent to 2025-11-25 clients and later).
    pub fn icon(&mut self, icon: Icon) -> &mut Self {
        self.resource().icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Add a `_meta` entry (sent to 2025-06-18 clients and later).
    pub fn meta(&mut self, key: &str, value: &impl Serialize) -> &mut Self {
        match serde_json::to_value(value) {
            Ok(value) => {
                self.resource().meta.get_or_insert_with(JsonObject::new).insert(key.to_owned(), value);
            }
            Err(error) => {
                tracing::error!(resource = %self.definition.resource.uri, key, %error, "`_meta` value is not JSON; left out")
            }
        }
        self
    }

    /// Stop each read after `timeout`, with an error saying so.
    pub fn timeout(&mut self, timeout: Duration) -> &mut Self {
        self.definition.timeout = Some(timeout);
        self
    }

    /// Require an OAuth access token that grants `scopes` (all of them)
    /// to see and use this resource (or template): over HTTP with
    /// [`HttpOptions::oauth`](crate::transport::HttpOptions), lists leave it out for
    /// a token without them, and using it is refused with 403
    /// `insufficient_scope` naming the scopes to ask for. Without a token
    /// (stdio, which is local and trusted) scopes do not apply. A scope
    /// is printable ASCII without spaces, `"` or `\`; otherwise the server
    /// does not start. `#[resource(scopes = ["notes:write"])]` calls this.
    pub fn scopes<I, S>(&mut self, scopes: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.definition.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Label it with `tags` (kept in its `_meta.tags`, so they travel
    /// with its definition): visibility rules
    /// ([`Server::disable_tagged`](crate::Server::disable_tagged)), tool
    /// search and a mount's `Mount::tagged` filter
    /// select by them. `#[resource(tags = ["admin"])]` calls this.
    pub fn tags<I, S>(&mut self, tags: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        crate::component::tags::add(&mut self.resource().meta, tags);
        self
    }

    /// What the resource's injected parameters need from the server.
    pub fn needs(&mut self) -> &mut Needs {
        &mut self.definition.needs
    }

    /// Declare that a parameter reads the template variable `name` as a
    /// `T`, which must be text, a number, a boolean or a unit enum;
    /// `optional` when it may be absent (an `Option`, for a query variable).
    pub fn variable<T: JsonSchema>(&mut self, name: &str, optional: bool) -> &mut Self {
        let schema = Value::from(SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>());
        if let Some(problem) = crate::request::text::not_text(&schema) {
            self.definition.problems.push(format!(
                "the variable `{name}` is read as `{}`, which is {problem}: a URI variable is a string, a number, a \
                 boolean or a unit enum",
                std::any::type_name::<T>()
            ));
        }
        let values = crate::request::text::known_values(&schema);
        let completions = if values.is_empty() { Completions::None } else { Completions::Values(values) };
        self.definition.variables.push(Variable { name: name.to_owned(), optional, completions });
        self
    }

    /// Complete the variable `name` with `completer` (see
    /// [`Completing`](crate::completion::Completing)).
    pub fn complete_with(&mut self, name: &str, completer: Completer) -> &mut Self {
        match self.definition.variables.iter_mut().find(|v| v.name == name) {
            Some(variable) => variable.completions = Completions::With(completer),
            None => {
                self.definition.problems.push(format!("`complete` is set for `{name}`, which is no template variable"))
            }
        }
        self
    }

    /// The finished definition.
    pub fn build(mut self) -> ResourceDefinition {
        if self.definition.resource.title.is_none() {
            self.definition.resource.title =
                Some(crate::tools::definition::title_from_name(&self.definition.resource.name));
        }
        self.definition
    }
}

/// Every resource registered with `#[resource]` anywhere in the binary.
pub(crate) fn collected() -> impl Iterator<Item = std::sync::Arc<dyn Resource>> {
    crate::glue::collected::<dyn Resource>()
        .map(|resource| std::sync::Arc::new(Collected(resource)) as std::sync::Arc<dyn Resource>)
}

/// A resource found by link-time collection.
struct Collected(&'static dyn Resource);

impl Resource for Collected {
    fn definition(&self) -> ResourceDefinition {
        self.0.definition()
    }

    fn read(&self, request: RequestParts) -> BoxFuture<'static, Contents> {
        self.0.read(request)
    }
}
