//! Prompts: the `Prompt` trait that `#[prompt]` implements, its definition
//! and builder, the link-time registration slot, and the modules that read
//! arguments from text, turn return values into messages, keep the catalog,
//! answer `prompts/*` and complete arguments.

pub(crate) mod catalog;
pub(crate) mod messages;
pub(crate) mod methods;
pub(crate) mod param;

use std::sync::Arc;
use std::time::Duration;

use mcp_core::{Icon, JsonObject, PromptArgument};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

pub use catalog::PromptsHandle;
pub use mcp_core::{GetPromptResult, PromptMessage, Role};
pub use messages::{IntoPromptResult, PromptError};

use crate::completion::{Completer, Completions};
use crate::request::{Needs, RequestParts};
use crate::tools::BoxFuture;

/// What rendering a prompt produces.
pub type Rendered = Result<GetPromptResult, PromptError>;

/// A prompt: its definition and how to render it.
///
/// `#[prompt]` implements this for the companion type it generates
/// (`code_review::Prompt` for `fn code_review`).
pub trait Prompt: Send + Sync + 'static {
    /// The definition. Called once, when a server is built.
    fn definition(&self) -> PromptDefinition;

    /// Render the prompt; its arguments are the request's, as strings.
    fn get(&self, request: RequestParts) -> BoxFuture<'static, Rendered>;
}

/// A prompt's definition, made by [`PromptBuilder::build`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PromptDefinition {
    pub(crate) prompt: mcp_core::Prompt,
    pub(crate) rust_path: String,
    pub(crate) needs: Needs,
    /// Each argument's completions, by name.
    pub(crate) completions: Vec<(String, Completions)>,
    /// Why it cannot be served, found while it was described.
    pub(crate) problems: Vec<String>,
    /// What an access token must grant to see and get it.
    pub(crate) scopes: Vec<String>,
    /// How long a rendering may run before it is stopped.
    pub(crate) timeout: Option<Duration>,
}

impl PromptDefinition {
    /// The protocol definition.
    pub fn prompt(&self) -> &mcp_core::Prompt {
        &self.prompt
    }

    /// The Rust item it is made from.
    pub fn rust_path(&self) -> &str {
        &self.rust_path
    }

    /// The scopes an access token must grant to see and get the prompt
    /// ([`PromptBuilder::scopes`]).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Its tags ([`PromptBuilder::tags`]).
    pub fn tags(&self) -> Vec<String> {
        crate::component::tags::of(self.prompt.meta.as_ref())
    }

    /// How long a rendering may run before it is stopped
    /// ([`PromptBuilder::timeout`]).
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }
}

/// Builds a [`PromptDefinition`]. Used by `#[prompt]` expansions;
/// hand-written prompts may use it too.
pub struct PromptBuilder {
    definition: PromptDefinition,
}

impl PromptBuilder {
    /// Start a prompt named `name`, made from `fn_name` in `module_path`.
    pub fn new(name: &str, module_path: &str, fn_name: &str) -> Self {
        PromptBuilder {
            definition: PromptDefinition {
                prompt: mcp_core::Prompt::new(name),
                rust_path: format!("{module_path}::{fn_name}"),
                needs: Needs::default(),
                completions: Vec::new(),
                problems: Vec::new(),
                scopes: Vec::new(),
                timeout: None,
            },
        }
    }

    /// The description; an empty text counts as none.
    pub fn description(&mut self, description: Option<&str>) -> &mut Self {
        self.definition.prompt.description = description.map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned);
        self
    }

    /// The display title (derived from the name when not set).
    pub fn title(&mut self, title: Option<&str>) -> &mut Self {
        self.definition.prompt.title = title.map(str::to_owned);
        self
    }

    /// Stop each rendering after `timeout`, with an error saying so.
    pub fn timeout(&mut self, timeout: Duration) -> &mut Self {
        self.definition.timeout = Some(timeout);
        self
    }

    /// Add an icon (sent to 2025-11-25 clients and later).
    pub fn icon(&mut self, icon: Icon) -> &mut Self {
        self.definition.prompt.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Add a `_meta` entry (sent to 2025-06-18 clients and later).
    pub fn meta(&mut self, key: &str, value: &impl Serialize) -> &mut Self {
        match serde_json::to_value(value) {
            Ok(value) => {
                self.definition.prompt.meta.get_or_insert_with(JsonObject::new).insert(key.to_owned(), value);
            }
            Err(error) => {
                tracing::error!(prompt = %self.definition.prompt.name, key, %error, "`_meta` value is not JSON; left out")
            }
        }
        self
    }

    /// Require an OAuth access token that grants `scopes` (all of them)
    /// to see and use this prompt: over HTTP with
    /// [`HttpOptions::oauth`](crate::transport::HttpOptions), lists leave it out for
    /// a token without them, and using it is refused with 403
    /// `insufficient_scope` naming the scopes to ask for. Without a token
    /// (stdio, which is local and trusted) scopes do not apply. A scope
    /// is printable ASCII without spaces, `"` or `\`; otherwise the server
    /// does not start. `#[prompt(scopes = ["notes:write"])]` calls this.
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
    /// select by them. `#[prompt(tags = ["admin"])]` calls this.
    pub fn tags<I, S>(&mut self, tags: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        crate::component::tags::add(&mut self.definition.prompt.meta, tags);
        self
    }

    /// What the prompt's injected parameters need from the server.
    pub fn needs(&mut self) -> &mut Needs {
        &mut self.definition.needs
    }

    /// Add an argument read from its text as a `T` (a string, a number, a
    /// boolean or a unit enum), required unless `T` can be left out. An
    /// enum's values and a `bool`'s complete by themselves.
    pub fn argument<T: JsonSchema>(&mut self, name: &str, description: Option<&str>, required: bool) -> &mut Self {
        let schema = Value::from(
            schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>(),
        );
        if let Some(problem) = crate::request::text::not_text(&schema) {
            self.definition.problems.push(format!(
                "the argument `{name}` is read as `{}`, which is {problem}: a prompt argument arrives as a string, \
                 read as text, a number, a boolean or a unit enum",
                std::any::type_name::<T>()
            ));
        }
        let arguments = self.definition.prompt.arguments.get_or_insert_with(Vec::new);
        arguments.push(PromptArgument {
            name: name.to_owned(),
            title: None,
            description: description.map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned),
            required: Some(required),
        });
        let values = crate::request::text::known_values(&schema);
        let completions = if values.is_empty() { Completions::None } else { Completions::Values(values) };
        self.definition.completions.push((name.to_owned(), completions));
        self
    }

    /// Complete the argument `name` with `completer` (see [`Completing`](crate::completion::Completing)).
    pub fn complete_with(&mut self, name: &str, completer: Completer) -> &mut Self {
        match self.definition.completions.iter_mut().find(|(n, _)| n == name) {
            Some((_, slot)) => *slot = Completions::With(completer),
            None => self.definition.problems.push(format!("`complete` is set for `{name}`, which is no argument")),
        }
        self
    }

    /// The finished definition.
    pub fn build(mut self) -> PromptDefinition {
        if self.definition.prompt.title.is_none() {
            self.definition.prompt.title =
                Some(crate::tools::definition::title_from_name(&self.definition.prompt.name));
        }
        self.definition
    }
}

/// Every prompt registered with `#[prompt]` anywhere in the binary.
pub(crate) fn collected() -> impl Iterator<Item = Arc<dyn Prompt>> {
    crate::glue::collected::<dyn Prompt>().map(|prompt| Arc::new(Collected(prompt)) as Arc<dyn Prompt>)
}

/// A prompt found by link-time collection.
struct Collected(&'static dyn Prompt);

impl Prompt for Collected {
    fn definition(&self) -> PromptDefinition {
        self.0.definition()
    }

    fn get(&self, request: RequestParts) -> BoxFuture<'static, Rendered> {
        self.0.get(request)
    }
}
