//! The server builder (what a server offers, and how it is served) and
//! the built server its connections share. What it offers is registered
//! here; its settings are in `handling` (how requests are handled) and
//! `limits` (bounds and lifetimes); serving it is in `serve` and `launch`
//! (the command line); the built server is `shared`.

mod handling;
mod launch;
mod limits;
mod serve;
mod shared;

use std::sync::Arc;
use std::time::Duration;

use mcp_core::Implementation;

use crate::client::seal::Keys;
use crate::component::Catalog;
use crate::component::announce::Announcer;
use crate::error::Error;
use crate::prompts::catalog::Prompts;
use crate::prompts::{Prompt, PromptsHandle};
use crate::request::state::StateMap;
use crate::resources::catalog::ResourceCatalogs;
use crate::resources::{Resource, ResourcesHandle};
use crate::tasks::{MemoryTaskStore, TaskStore, Tasks};
use crate::tools::catalog::{ToolOptions, Tools};
use crate::tools::limit::{Limiter, RateLimit};
use crate::tools::{Tool, ToolsHandle, collected};
use crate::transport::connection::Limits;
pub(crate) use shared::Shared;

/// How often clients are told to poll a task: often enough that a short
/// task's result is seen soon, rarely enough not to load the store.
const TASK_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// An MCP server: its identity, its tools and its limits.
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_runtime::Error> {
/// mcp_runtime::Server::new("calculator", "1.0.0").serve_stdio().await
/// # }
/// ```
pub struct Server {
    pub(crate) info: Implementation,
    instructions: Option<String>,
    announcer: Arc<Announcer>,
    pub(crate) tools: Arc<Catalog<Tools>>,
    pub(crate) resources: ResourceCatalogs,
    pub(crate) prompts: Arc<Catalog<Prompts>>,
    pub(crate) states: StateMap,
    page_size: Option<usize>,
    lenient_arguments: bool,
    /// `None` until [`show_internal_errors`](Self::show_internal_errors):
    /// masked on a real server, shown under a `TestClient`.
    show_internal_errors: Option<bool>,
    /// Made by [`new`](Self::new), which collects the binary's items: an
    /// empty result is then most likely a library the linker left out.
    collected: bool,
    rate_limit: Option<RateLimit>,
    cache_ttl: Duration,
    client_request_timeout: Duration,
    request_state_keys: Option<Vec<Vec<u8>>>,
    request_state_lifetime: Duration,
    limits: Limits,
    /// The user's middleware, the first added the outermost.
    layers: Vec<crate::middleware::Wrap>,
    /// Other servers mounted into this one.
    #[cfg(feature = "proxy")]
    pub(crate) mounts: Vec<crate::proxy::Mount>,
    task_store: Option<Arc<dyn TaskStore>>,
    task_ttl: Duration,
    tasks_per_requestor: usize,
    /// Where its skills come from, read when it starts.
    skills: Option<crate::skills::Sources>,
    /// The command line `run` reads, when not the process's ([`args`](Self::args)).
    args: Option<Vec<std::ffi::OsString>>,
    /// What the catalog looks like to each request (`catalog`).
    pub(crate) transforms: crate::catalog::Transforms,
    /// The stderr logger's level when the environment sets none.
    pub(crate) log_level: crate::logging::LevelFilter,
    /// What `run` serves Streamable HTTP with ([`http_options`](Self::http_options)).
    #[cfg(feature = "http")]
    http_options: Option<crate::transport::HttpOptions>,
}

impl Server {
    /// A server offering every `#[tool]`, `#[resource]` and `#[prompt]` in
    /// the binary. Those of the package's library are in it only if the
    /// binary names the library (`use my_crate as _;` in `src/main.rs`), or
    /// the linker leaves them out; a server that finds nothing to offer
    /// warns of this on stderr as it starts.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        let mut server = Server::empty(name, version);
        server.collected = true;
        collected().for_each(|tool| server.tools.sources().push(tool));
        crate::resources::collected().for_each(|resource| server.resources.push(resource));
        crate::prompts::collected().for_each(|prompt| server.prompts.sources().push(prompt));
        server
    }

    /// A server offering only the tools added with [`tool`](Self::tool):
    /// for two servers in one binary, or where link-time collection is not
    /// available.
    pub fn empty(name: impl Into<String>, version: impl Into<String>) -> Self {
        let announcer = Arc::new(Announcer::default());
        Server {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Arc::new(Catalog::new(ToolOptions::default(), announcer.clone())),
            resources: ResourceCatalogs::new(&announcer),
            prompts: Arc::new(Catalog::new((), announcer.clone())),
            announcer,
            states: StateMap::default(),
            page_size: None,
            lenient_arguments: true,
            show_internal_errors: None,
            collected: false,
            rate_limit: None,
            cache_ttl: Duration::ZERO,
            client_request_timeout: Duration::from_secs(60),
            request_state_keys: None,
            request_state_lifetime: Duration::from_secs(15 * 60),
            limits: Limits {
                max_message_size: 16 * 1024 * 1024,
                shutdown_grace: Duration::from_secs(5),
                max_running_calls: 256,
                max_queued_output: 16 * 1024 * 1024,
                keep_alive: None,
            },
            layers: Vec::new(),
            #[cfg(feature = "proxy")]
            mounts: Vec::new(),
            task_store: None,
            task_ttl: Duration::from_secs(60 * 60),
            tasks_per_requestor: 1000,
            skills: None,
            args: None,
            transforms: Default::default(),
            log_level: crate::logging::LevelFilter::INFO,
            #[cfg(feature = "http")]
            http_options: None,
        }
    }

    /// Add a tool: `server.tool(add::Tool)` for a `#[tool] fn add`.
    pub fn tool(self, tool: impl Tool) -> Self {
        self.tools.sources().push(Arc::new(tool));
        self
    }

    /// Add a resource or resource template: `server.resource(app_config::Resource)`
    /// for a `#[resource] fn app_config`.
    pub fn resource(self, resource: impl Resource) -> Self {
        self.resources.push(Arc::new(resource));
        self
    }

    /// Serve every skill under `folder`, read-only: each directory in it
    /// that holds a `SKILL.md` is a skill, its path under the folder its
    /// skill path (`./skills/pdf-processing` is
    /// `skill://pdf-processing/SKILL.md`), each of its files a resource.
    /// The server declares the skills extension (`skills/list`,
    /// `skills/get`, `resources/directory/read`).
    ///
    /// The skills are read, checked and hashed when the server starts,
    /// which fails with [`Error::InvalidSkill`] for a skill the extension
    /// does not allow (see [`skills`](crate::skills)). Reads stay inside the
    /// folder, under the rules of [`Directory`](crate::resources::Directory).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_runtime::Error> {
    /// mcp_runtime::Server::new("docs", "1.0.0").skills("./skills").serve_stdio().await
    /// # }
    /// ```
    pub fn skills(mut self, folder: impl Into<std::path::PathBuf>) -> Self {
        self.skills
            .get_or_insert_with(crate::skills::Sources::new)
            .list
            .push(crate::skills::Source::Folder(folder.into()));
        self
    }

    /// Serve a skill made in code ([`Skill`](crate::skills::Skill)), as
    /// [`skills`](Self::skills) serves a folder's.
    pub fn skill(mut self, skill: crate::skills::Skill) -> Self {
        self.skills.get_or_insert_with(crate::skills::Sources::new).list.push(crate::skills::Source::Code(skill));
        self
    }

    /// Add a prompt: `server.prompt(code_review::Prompt)` for a
    /// `#[prompt] fn code_review`.
    pub fn prompt(self, prompt: impl Prompt) -> Self {
        self.prompts.sources().push(Arc::new(prompt));
        self
    }

    /// A handle that adds, removes, enables and disables prompts while the
    /// server runs (connected clients are told each time).
    pub fn prompts_handle(&self) -> PromptsHandle {
        self.prompts.make_dynamic();
        PromptsHandle(self.prompts.clone())
    }

    /// The prompts, sorted by name: the start-up check of prompts. Call it
    /// in a test.
    pub fn prompt_definitions(&self) -> Result<Vec<crate::prompts::PromptDefinition>, Error> {
        let prompts = self.prompts.check(&self.states)?;
        Ok(prompts.entries().iter().map(|e| e.definition.clone()).collect())
    }

    /// A handle that adds, removes, enables and disables resources while
    /// the server runs, and tells subscribed clients when one changes
    /// ([`ResourcesHandle::updated`]).
    pub fn resources_handle(&self) -> ResourcesHandle {
        self.resources.statics.make_dynamic();
        self.resources.templates.make_dynamic();
        ResourcesHandle { catalogs: self.resources.clone(), announcer: self.announcer.clone() }
    }

    /// A handle that adds, removes, enables and disables tools while the
    /// server runs (connected clients are told each time).
    pub fn tools_handle(&self) -> ToolsHandle {
        self.tools.make_dynamic();
        ToolsHandle(self.tools.clone())
    }

    /// Make `version` of the tool `name` its current one, instead of the
    /// newest: the one `tools/list` shows and a call without
    /// `_meta.version` runs (a call may still name another version). A
    /// server whose tool `name` has no such version does not start (the
    /// error names the versions it has); while it runs,
    /// [`ToolsHandle::pin_version`] changes the pin.
    pub fn pin_version(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.tools.sources().pin(&name.into(), &version.into());
        self
    }

    /// Whether tools may come from other servers after start-up, so a pin
    /// may name one not registered yet.
    fn mounted(&self) -> bool {
        #[cfg(feature = "proxy")]
        return !self.mounts.is_empty();
        #[cfg(not(feature = "proxy"))]
        false
    }

    /// Share `value` with every tool that takes a `State<T>` of its type
    /// (one value per type; a second call replaces the first).
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(value);
        self
    }

    /// Keep per-user state in `store`, for handlers that take a
    /// [`UserState<T>`](crate::userstate::UserState) (a server whose handlers
    /// take one without it does not start).
    pub fn user_state(self, store: crate::userstate::UserStore) -> Self {
        self.with_state(store)
    }

    /// A display title for the server (sent to 2025-06-18 clients and later).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Instructions for the model on how to use this server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The tool definitions as clients of the newest protocol version see
    /// them, in `tools/list` order. This is also the start-up check
    /// (duplicate names, unusable schemas): call it in a test.
    pub fn tool_definitions(&self) -> Result<Vec<mcp_core::Tool>, Error> {
        if let Some(limit) = self.rate_limit {
            Limiter::new(limit, None)?;
        }
        let tools = self.tools.check(&self.states)?;
        self.tools.check_pins(self.mounted())?;
        tools.compile_all()?;
        Ok(tools.entries().iter().map(|e| e.definition.tool.clone()).collect())
    }

    /// The resources and templates, sorted by URI: the start-up check of
    /// resources (duplicate URIs, malformed templates, templates that can
    /// match one URI, missing state). Call it in a test.
    pub fn resource_definitions(&self) -> Result<Vec<crate::resources::ResourceDefinition>, Error> {
        let statics = self.resources.statics.check(&self.states)?;
        let templates = self.resources.templates.check(&self.states)?;
        let all = statics.entries().iter().chain(templates.entries());
        Ok(all.map(|e| e.definition.clone()).collect())
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.info
    }

    pub(crate) fn build(self) -> Result<(Arc<Shared>, Limits), Error> {
        let mounted = self.mounted();
        #[cfg(feature = "proxy")]
        let links = self.links();
        let limiter = self.rate_limit.map(|limit| Limiter::new(limit, None)).transpose()?;
        let views = crate::catalog::views::Views::new(self.announcer.clone(), self.view_lists());
        let state = Arc::new(self.states);
        let skills = match &self.skills {
            None => None,
            Some(sources) => {
                let (served, files) = (sources.load)(&sources.list)?;
                files.into_iter().for_each(|file| self.resources.statics.sources().push(file));
                Some(Arc::new(served))
            }
        };
        self.tools.publish(state.clone())?;
        self.tools.check_pins(mounted)?;
        self.resources.statics.publish(state.clone())?;
        self.resources.templates.publish(state.clone())?;
        self.prompts.publish(state.clone())?;
        let statics = self.resources.statics.current();
        crate::apps::check_views(self.tools.current().entries().iter().map(|e| &e.definition), &|uri| {
            statics.get(uri).is_some()
        })?;
        if self.collected && !self.tools.offered() && !self.resources.offered() && !self.prompts.offered() {
            warn_nothing_collected(&self.info.name);
        }
        let modern_info = serde_json::value::to_raw_value(&self.info.for_version(mcp_core::ProtocolVersion::LATEST))
            .expect("an Implementation serializes")
            .into();
        let request_state = match self.request_state_keys {
            Some(keys) => Keys::given(keys, self.request_state_lifetime).map_err(Error::InvalidRequestStateKeys)?,
            None => Keys::random(self.request_state_lifetime),
        };
        let shared = Shared {
            #[cfg(feature = "proxy")]
            links,
            info: self.info,
            modern_info,
            instructions: self.instructions,
            announcer: self.announcer,
            tools: self.tools,
            resources: self.resources,
            prompts: self.prompts,
            page_size: self.page_size,
            lenient_arguments: self.lenient_arguments,
            show_internal_errors: self.show_internal_errors.unwrap_or(false),
            limiter,
            state,
            cache_ttl: self.cache_ttl,
            client_request_timeout: self.client_request_timeout,
            request_state: Arc::new(request_state),
            middleware: crate::middleware::build(&self.layers),
            tasks: Arc::new(Tasks::new(
                self.task_store.unwrap_or_else(|| Arc::new(MemoryTaskStore::default())),
                self.task_ttl,
                TASK_POLL_INTERVAL,
                self.tasks_per_requestor,
            )),
            skills,
            transforms: self.transforms,
            views,
        };
        #[cfg(feature = "proxy")]
        if tokio::runtime::Handle::try_current().is_ok() {
            shared.links.iter().for_each(|link| link.start());
        }
        Ok((Arc::new(shared), self.limits))
    }
}

impl Server {
    /// The links of this server's mounts (started when it is served, or
    /// at once if it is built inside a Tokio runtime).
    #[cfg(feature = "proxy")]
    fn links(&self) -> Vec<Arc<crate::proxy::Link>> {
        let links: Vec<_> = self
            .mounts
            .iter()
            .cloned()
            .enumerate()
            .map(|(rank, mount)| {
                let targets = crate::proxy::Targets {
                    tools: self.tools.clone(),
                    statics: self.resources.statics.clone(),
                    templates: self.resources.templates.clone(),
                    prompts: self.prompts.clone(),
                    announcer: self.announcer.clone(),
                };
                crate::proxy::Link::new(mount, rank, targets)
            })
            .collect();
        links
    }
}

/// Warn that a server made by [`Server::new`] found nothing to serve: most
/// likely its `#[tool]`s are in the package's library, which `src/main.rs`
/// never names, so the linker dropped them with their registrations.
fn warn_nothing_collected(server: &str) {
    let exe = std::env::current_exe().ok();
    let guess = exe.as_deref().and_then(crate_of_binary);
    let krate = guess.as_deref().unwrap_or("my_crate");
    tracing::warn!(
        "server `{server}` offers no tools, resources or prompts: `Server::new` serves the `#[tool]`, \
         `#[resource]` and `#[prompt]` items linked into this binary, and found none. If they are in this \
         package's library (src/lib.rs), src/main.rs never names it, so the linker left it out; \
         add `use {krate} as _;` to src/main.rs (with the library's name, if it is not `{krate}`). \
         (A server meant to start with nothing is made by `Server::empty`.)"
    );
}

/// The crate a binary most likely belongs to: its file name without the
/// extension and the hash cargo gives test binaries, `-` as `_`.
fn crate_of_binary(exe: &std::path::Path) -> Option<String> {
    let stem = exe.file_stem()?.to_str()?;
    let stem = match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => name,
        _ => stem,
    };
    (!stem.is_empty()).then(|| stem.replace('-', "_"))
}

#[cfg(test)]
mod tests;
