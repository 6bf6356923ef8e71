//! Catalog transforms: what a server's tool catalog (its own tools and
//! mounted ones alike) looks like to each request, applied at the two
//! places a catalog meets clients: where `tools/list` is produced
//! (`Transforms::lists`) and where a `tools/call` finds its tool
//! (`Transforms::route`). Tool search ([`ToolSearch`], `search/`) is one;
//! resources and prompts offered as tools (`as_tools`) another, answered
//! where a `tools/call` arrives (`tools::call`); tag rules
//! ([`Server::disable_tagged`]) act on the catalog itself, so every list
//! and call sees them; a caller's own view ([`View`], `views`) is
//! consulted wherever the catalog is read for a request.

pub(crate) mod as_tools;
pub(crate) mod search;
pub(crate) mod views;

use std::sync::{Arc, Weak};

use mcp_core::ErrorObject;
use serde_json::Value;

use crate::Server;
use as_tools::{AsTool, MethodTool};
use search::Search;
pub use search::ToolSearch;
use search::tools::{CallTool, SearchTool};
use views::Target;
pub use views::{MAX_VIEW_BYTES, MAX_VIEW_RULES, MAX_VIEWS, VIEW_IDLE, View, ViewError};

/// The transforms of one server, fixed when it is built.
#[derive(Default)]
pub(crate) struct Transforms {
    pub(crate) search: Option<Arc<Search>>,
    /// The protocol methods offered as tools.
    pub(crate) as_tools: Vec<Arc<AsTool>>,
}

impl Transforms {
    /// Whether `tools/list` shows the tool named `name`.
    pub(crate) fn lists(&self, name: &str) -> bool {
        self.search.as_ref().is_none_or(|search| search.lists(name))
    }

    /// The tool a call of `name` with `arguments` is for: a call of
    /// `call_tool` becomes a call of the tool it names, with that tool's
    /// arguments, so the named tool is admitted, checked and run like any
    /// call of it. A `call_tool` without a `name` string stays itself (its
    /// argument check tells the model what is missing).
    pub(crate) fn route(&self, name: &mut String, arguments: &mut Option<Value>) -> Result<(), ErrorObject> {
        let Some(search) = &self.search else { return Ok(()) };
        if *name != search.options.call_name {
            return Ok(());
        }
        let Some(Value::Object(given)) = arguments else { return Ok(()) };
        let Some(Value::String(target)) = given.get("name") else { return Ok(()) };
        if *target == search.options.call_name {
            return Err(ErrorObject::invalid_params(format!("`{name}` calls another tool, not itself")));
        }
        let target = target.clone();
        let inner = given.remove("arguments");
        *arguments = inner;
        *name = target;
        Ok(())
    }
}

impl Server {
    /// Serve the tool catalog behind search ([`ToolSearch`]): a
    /// `search_tools` tool and a `call_tool` tool, with the catalog hidden
    /// from `tools/list` unless [`ToolSearch::hide_catalog`] says to keep
    /// it listed.
    ///
    /// ```
    /// use mcp_runtime::Server;
    /// use mcp_runtime::catalog::ToolSearch;
    ///
    /// let server = Server::empty("big", "1").tool_search(ToolSearch::new().always_list(["help"]));
    /// ```
    pub fn tool_search(mut self, options: ToolSearch) -> Self {
        let search = Arc::new(Search::new(options, &self.tools));
        {
            let mut sources = self.tools.sources();
            sources.push(Arc::new(SearchTool(search.clone())));
            sources.push(Arc::new(CallTool(search.clone())));
        }
        self.transforms.search = Some(search);
        self
    }

    /// Offer the server's resources as tools too, for clients that only
    /// call tools: `list_resources`, `list_resource_templates` and
    /// `read_resource`. Each call is answered as the protocol's request
    /// would be (the caller sees and reads only what it may, through the
    /// resources' own middleware and limits); a read's text comes back as
    /// text, other contents as embedded resources, a list as structured
    /// content.
    ///
    /// ```
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::empty("docs", "1").resources_as_tools().prompts_as_tools();
    /// ```
    pub fn resources_as_tools(self) -> Self {
        self.methods_as_tools(as_tools::RESOURCES)
    }

    /// Offer the server's prompts as tools too, for clients that only call
    /// tools: `list_prompts` and `get_prompt` (its `name` and `arguments`),
    /// answered as `prompts/list` and `prompts/get` would be.
    pub fn prompts_as_tools(self) -> Self {
        self.methods_as_tools(as_tools::PROMPTS)
    }

    /// Which lists a view's rule touches: those with a component it names
    /// (read from the catalogs as they are when the rule changes).
    pub(crate) fn view_lists(&self) -> views::Lists {
        use crate::component::announce::{Kinds, ListKind};
        fn names<K: crate::component::Kind>(catalog: &Weak<crate::component::Catalog<K>>, target: &Target) -> bool {
            catalog.upgrade().is_some_and(|catalog| catalog.current().names(target))
        }
        let (tools, prompts) = (Arc::downgrade(&self.tools), Arc::downgrade(&self.prompts));
        let statics = Arc::downgrade(&self.resources.statics);
        let templates = Arc::downgrade(&self.resources.templates);
        Box::new(move |target| {
            let mut kinds = Kinds::default();
            if names(&tools, target) {
                kinds = kinds.with(ListKind::Tools);
            }
            if names(&statics, target) || names(&templates, target) {
                kinds = kinds.with(ListKind::Resources);
            }
            if names(&prompts, target) {
                kinds = kinds.with(ListKind::Prompts);
            }
            kinds
        })
    }

    fn methods_as_tools(mut self, methods: &'static [MethodTool]) -> Self {
        for method in methods {
            let tool = Arc::new(AsTool(method));
            self.tools.sources().push(tool.clone());
            self.transforms.as_tools.push(tool);
        }
        self
    }

    /// Offer no tool, resource, template or prompt tagged with one of
    /// `tags` (`#[tool(tags = [..])]`, a builder's `tags`, or a mounted
    /// component's `_meta.tags`) until a handle's `enable_tagged` offers
    /// them again: a whole group of components switched off at once, for
    /// every client (lists and calls alike).
    pub fn disable_tagged<I: IntoIterator<Item = S>, S: Into<String>>(self, tags: I) -> Self {
        for tag in tags {
            let tag = tag.into();
            self.tools.disable_tagged(&tag);
            self.resources.statics.disable_tagged(&tag);
            self.resources.templates.disable_tagged(&tag);
            self.prompts.disable_tagged(&tag);
        }
        self
    }
}
