//! The tool search transform's settings ([`ToolSearch`]) and its state in
//! a running server: the index of the tool catalog (rebuilt the first time
//! it is searched after the catalog changes) and what a search may ask.

pub(crate) mod bm25;
pub(crate) mod tools;

use std::sync::{Arc, Mutex, Weak};

use crate::component::{Catalog, Snapshot};
use crate::tools::catalog::{Entry, Tools};
use bm25::{Document, Index};

/// The longest query, in characters: longer is not a query but a
/// document, and is refused with an error saying so.
pub(crate) const MAX_QUERY_CHARS: usize = 1_000;
/// The most results one search returns.
pub(crate) const MAX_RESULTS: usize = 50;
/// The compiled size a regex may take, in bytes: enough for any pattern
/// a model writes, too little for one made to exhaust the server.
pub(crate) const REGEX_SIZE_LIMIT: usize = 256 * 1024;
/// How deeply a regex may nest.
pub(crate) const REGEX_NEST_LIMIT: u32 = 32;

/// Tool search: a `search_tools` tool that finds a server's tools by what
/// they do (BM25 ranking over their names, titles, descriptions and
/// parameters, or a regex), and a `call_tool` tool that calls one by name,
/// for clients that cannot call a tool they did not list. With the catalog
/// hidden (the default), `tools/list` shows only those two (and the tools
/// [`always_list`](Self::always_list) names), so a client with hundreds of
/// tools to choose from sees a handful and finds the rest when it needs
/// them. It covers the server's own tools and mounted ones alike; a caller
/// finds only the tools it may use (its token's scopes, views).
///
/// ```
/// use mcp_runtime::Server;
/// use mcp_runtime::catalog::ToolSearch;
///
/// let server = Server::empty("big", "1").tool_search(ToolSearch::new());
/// ```
#[derive(Clone, Debug)]
pub struct ToolSearch {
    pub(crate) search_name: String,
    pub(crate) call_name: String,
    pub(crate) hide_catalog: bool,
    pub(crate) always_list: Vec<String>,
    pub(crate) default_limit: usize,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch {
            search_name: "search_tools".into(),
            call_name: "call_tool".into(),
            hide_catalog: true,
            always_list: Vec::new(),
            default_limit: 5,
        }
    }
}

impl ToolSearch {
    /// Search with the default names (`search_tools`, `call_tool`), the
    /// catalog hidden from `tools/list`, five results a search.
    pub fn new() -> ToolSearch {
        ToolSearch::default()
    }

    /// Keep every tool in `tools/list` too (`false` by default: only the
    /// search tools and [`always_list`](Self::always_list)'s are listed).
    pub fn hide_catalog(mut self, hide: bool) -> ToolSearch {
        self.hide_catalog = hide;
        self
    }

    /// List these tools even with the catalog hidden (the few every
    /// conversation needs).
    pub fn always_list<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> ToolSearch {
        self.always_list.extend(names.into_iter().map(Into::into));
        self
    }

    /// Name the search tool `name` instead of `search_tools`.
    pub fn search_tool_name(mut self, name: impl Into<String>) -> ToolSearch {
        self.search_name = name.into();
        self
    }

    /// Name the calling tool `name` instead of `call_tool`.
    pub fn call_tool_name(mut self, name: impl Into<String>) -> ToolSearch {
        self.call_name = name.into();
        self
    }

    /// How many tools a search returns when its caller does not say (5;
    /// at most 50).
    pub fn default_limit(mut self, limit: usize) -> ToolSearch {
        self.default_limit = limit.clamp(1, MAX_RESULTS);
        self
    }
}

/// Tool search in a running server.
pub(crate) struct Search {
    pub(crate) options: ToolSearch,
    /// Weak: the catalog holds this transform's own tools, which hold it.
    catalog: Weak<Catalog<Tools>>,
    /// The index of the snapshot it was built from (kept, so a snapshot
    /// is never mistaken for a later one at the same address). Locked only
    /// to read or replace it, never while an index is built.
    index: Mutex<Option<Indexed>>,
}

/// An index and the snapshot it was built from.
type Indexed = (Arc<Snapshot<Tools>>, Arc<Built>);

/// An index and the entries it ranks, in its order: every tool, enabled
/// or not, since a caller's view may turn on what the server disabled.
pub(crate) struct Built {
    pub(crate) index: Index,
    pub(crate) entries: Vec<Arc<Entry>>,
    /// Whether each entry is enabled server-wide.
    pub(crate) enabled: Vec<bool>,
}

impl Built {
    /// Whether a caller with `view` sees the entry at `at` (as far as the
    /// catalog's settings go; scopes are the caller's own check).
    pub(crate) fn on_for(&self, at: usize, view: Option<&crate::catalog::views::Rules>) -> bool {
        crate::catalog::views::Rules::sees::<Tools>(view, &self.entries[at], self.enabled[at])
    }
}

impl Search {
    pub(crate) fn new(options: ToolSearch, catalog: &Arc<Catalog<Tools>>) -> Search {
        Search { options, catalog: Arc::downgrade(catalog), index: Mutex::new(None) }
    }

    /// Whether `name` is one of this transform's own tools.
    pub(crate) fn is_own(&self, name: &str) -> bool {
        name == self.options.search_name || name == self.options.call_name
    }

    /// Whether `tools/list` shows the tool named `name`.
    pub(crate) fn lists(&self, name: &str) -> bool {
        !self.options.hide_catalog || self.is_own(name) || self.options.always_list.iter().any(|n| n == name)
    }

    /// The index of the catalog as it is now, if it is built already.
    pub(crate) fn cached(&self) -> Option<Arc<Built>> {
        let snapshot = self.catalog.upgrade()?.current();
        let cached = self.index.lock().unwrap_or_else(|e| e.into_inner());
        cached.as_ref().filter(|(at, _)| Arc::ptr_eq(at, &snapshot)).map(|(_, built)| built.clone())
    }

    /// The index of the catalog as it is now, built if it is not.
    pub(crate) fn built(&self) -> Arc<Built> {
        if let Some(built) = self.cached() {
            return built;
        }
        let Some(catalog) = self.catalog.upgrade() else {
            // The server is gone: nothing to find.
            return Arc::new(Built { index: Index::new(std::iter::empty()), entries: Vec::new(), enabled: Vec::new() });
        };
        let snapshot = catalog.current();
        let entries: Vec<Arc<Entry>> =
            snapshot.all().filter(|e| !self.is_own(&e.definition.tool.name)).cloned().collect();
        let enabled = entries.iter().map(|e| snapshot.on_for(e, None)).collect();
        let index = Index::new(entries.iter().map(|e| document(e)));
        let built = Arc::new(Built { index, entries, enabled });
        *self.index.lock().unwrap_or_else(|e| e.into_inner()) = Some((snapshot, built.clone()));
        built
    }
}

/// What a tool is searched by: its name, title, description, and each
/// parameter's name and description.
fn document(entry: &Entry) -> Document<'_> {
    let tool = &entry.definition.tool;
    let mut text: Vec<&str> = tool.description.as_deref().into_iter().collect();
    if let Some(properties) = tool.input_schema.get("properties").and_then(|p| p.as_object()) {
        for (name, property) in properties {
            text.push(name);
            if let Some(description) = property.get("description").and_then(|d| d.as_str()) {
                text.push(description);
            }
        }
    }
    Document { name: &tool.name, title: tool.title.as_deref(), text }
}

/// Whether `pattern` matches one of the fields a tool is searched by
/// (each alone, so `^` and `$` anchor at a name's ends).
pub(crate) fn regex_matches(entry: &Entry, pattern: &regex_lite::Regex) -> bool {
    let document = document(entry);
    std::iter::once(document.name).chain(document.title).chain(document.text).any(|field| pattern.is_match(field))
}
