//! The built server: what every connection shares, and what it offers,
//! derived from what is registered.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::{
    Implementation, JsonObject, PromptsCapability, ResourcesCapability, ServerCapabilities, ToolsCapability,
};

use crate::client::seal::Keys;
use crate::completion::Completions;
use crate::component::Catalog;
use crate::component::announce::{Announcer, Kinds, ListKind};
use crate::dispatch::table::Capability;
use crate::prompts::catalog::Prompts;
use crate::request::state::StateMap;
use crate::resources::catalog::ResourceCatalogs;
use crate::skills::Served;
use crate::tasks::{TaskSupport, Tasks};
use crate::tools::catalog::Tools;
use crate::tools::limit::Limiter;

/// What a server is, shared by all its connections.
pub(crate) struct Shared {
    pub(crate) info: Implementation,
    /// `info` as 2026-07-28 results name the server, serialized once
    /// (every one of their results carries it).
    pub(crate) modern_info: Arc<serde_json::value::RawValue>,
    pub(crate) instructions: Option<String>,
    /// Who is told when a list changes.
    pub(crate) announcer: Arc<Announcer>,
    pub(crate) tools: Arc<Catalog<Tools>>,
    pub(crate) resources: ResourceCatalogs,
    pub(crate) prompts: Arc<Catalog<Prompts>>,
    pub(crate) page_size: Option<usize>,
    /// Decode JSON that models send as strings (`Server::strict_arguments`).
    pub(crate) lenient_arguments: bool,
    /// Show internal error details to clients (`Server::show_internal_errors`).
    pub(crate) show_internal_errors: bool,
    /// Values shared by all requests (`Server::with_state`).
    pub(crate) state: Arc<StateMap>,
    /// The limit on calls to all tools together (`Server::rate_limit`).
    pub(crate) limiter: Option<Limiter>,
    /// How long 2026-07-28 clients may cache lists (`Server::cache_ttl`).
    pub(crate) cache_ttl: Duration,
    /// How long a request to the client waits (`Server::client_request_timeout`).
    pub(crate) client_request_timeout: Duration,
    /// What signs multi-round requests' state (`Server::request_state_keys`).
    pub(crate) request_state: Arc<Keys>,
    /// The user's middleware as one service (`Server::layer`); `None`
    /// without any.
    pub(crate) middleware: Option<crate::middleware::Pipeline>,
    /// The servers mounted into this one (`Server::mount`).
    #[cfg(feature = "proxy")]
    pub(crate) links: Vec<Arc<crate::proxy::Link>>,
    /// The tasks of tools that support them.
    pub(crate) tasks: Arc<Tasks>,
    /// The skills it serves (`Server::skills`, `Server::skill`).
    pub(crate) skills: Option<Arc<Served>>,
    /// What the catalog looks like to each request (`Server::tool_search`).
    pub(crate) transforms: crate::catalog::Transforms,
    /// Each caller's own view of the catalog (`catalog::View`).
    pub(crate) views: crate::catalog::views::Views,
}

/// How long serving waits for mounted servers to be reached.
#[cfg(feature = "proxy")]
pub(crate) const MOUNTS_AWAITED: std::time::Duration = std::time::Duration::from_secs(10);

impl Shared {
    /// Resolves once every mounted server was reached (or failed to be)
    /// and its lists mirrored, so the first client sees them, or after
    /// [`MOUNTS_AWAITED`] at most: the mounts are reached at once, each
    /// attempt bounded by its mount's connect timeout, and one that is
    /// slower joins later (its clients told the lists changed), so a slow
    /// upstream never holds the others' first answer.
    pub(crate) async fn ready(&self) {
        #[cfg(feature = "proxy")]
        {
            self.links.iter().for_each(|link| link.start());
            let all = futures_util::future::join_all(self.links.iter().map(|link| link.ready()));
            if tokio::time::timeout(MOUNTS_AWAITED, all).await.is_err() {
                tracing::warn!(
                    "serving before every mounted server was reached: the others' components join when they are"
                );
            }
        }
    }

    /// Whether the methods of `capability` are served.
    pub(crate) fn serves(&self, capability: Capability) -> bool {
        match capability {
            Capability::Core | Capability::Logging => true,
            Capability::Tools => self.tools.offered(),
            // Skill files are resources, read with `resources/read`.
            Capability::Resources => self.resources.offered() || self.skills.is_some(),
            Capability::Prompts => self.prompts.offered(),
            Capability::Skills => self.skills.is_some(),
            Capability::Tasks => {
                self.tools.current().entries().iter().any(|e| e.definition.task_support != TaskSupport::Never)
            }
            Capability::Completions => {
                self.prompts.current().completes()
                    || self
                        .resources
                        .templates
                        .current()
                        .entries()
                        .iter()
                        .any(|e| e.definition.variables.iter().any(|v| v.completions != Completions::None))
            }
        }
    }

    /// The lists this server offers; each can change at run time.
    pub(crate) fn changing_lists(&self) -> Kinds {
        let mut kinds = Kinds::default();
        if self.serves(Capability::Tools) {
            kinds = kinds.with(ListKind::Tools);
        }
        if self.serves(Capability::Resources) {
            kinds = kinds.with(ListKind::Resources);
        }
        if self.serves(Capability::Prompts) {
            kinds = kinds.with(ListKind::Prompts);
        }
        kinds
    }

    /// Whether it has a view, or a tool that names one (its own or a
    /// mounted server's).
    fn shows_views(&self) -> bool {
        self.resources
            .statics
            .current()
            .entries()
            .iter()
            .any(|e| e.definition.resource().mime_type.as_deref().is_some_and(|m| m == crate::apps::MIME_TYPE))
            || self.tools.current().entries().iter().any(|e| crate::apps::tool_ui(&e.definition.tool).is_some())
    }

    /// What this server can do, the same in every era: exactly what it
    /// serves.
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let mut extensions = JsonObject::new();
        if self.serves(Capability::Tasks) {
            extensions.insert(mcp_core::task::EXTENSION.into(), JsonObject::new().into());
        }
        if self.serves(Capability::Skills) {
            extensions.insert(mcp_core::skills::EXTENSION.into(), mcp_core::skills::capability(true));
        }
        if self.shows_views() {
            extensions.insert(mcp_core::apps::EXTENSION.into(), JsonObject::new().into());
        }
        let mut other = JsonObject::new();
        if !extensions.is_empty() {
            other.insert("extensions".into(), extensions.into());
        }
        ServerCapabilities {
            tools: self.serves(Capability::Tools).then_some(ToolsCapability { list_changed: Some(true) }),
            resources: self
                .serves(Capability::Resources)
                .then_some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            prompts: self.serves(Capability::Prompts).then_some(PromptsCapability { list_changed: Some(true) }),
            completions: self.serves(Capability::Completions).then(JsonObject::new),
            logging: self.serves(Capability::Logging).then(JsonObject::new),
            other,
            ..Default::default()
        }
    }
}
