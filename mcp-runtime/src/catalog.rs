//! The server's tools as they change at run time: what was registered,
//! which are disabled, the snapshot requests read, and the connections to
//! tell when it changes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use mcp_core::{RequestId, envelope, methods};
use serde_json::json;

use crate::context::Outgoing;
use crate::error::Error;
use crate::registry::{ToolOptions, ToolSet};
use crate::state::StateMap;
use crate::tool::Tool;

/// Everything a [`ToolSet`] is built from.
pub(crate) struct Sources {
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    pub(crate) disabled: BTreeSet<String>,
    pub(crate) options: ToolOptions,
    pub(crate) states: StateMap,
}

impl Sources {
    fn build(&self) -> Result<ToolSet, Error> {
        ToolSet::build(self.tools.clone(), &self.options, &self.states, &self.disabled)
    }
}

/// The tools of one server, shared by its connections and its
/// [`ToolsHandle`]s.
pub(crate) struct Catalog {
    sources: Mutex<Sources>,
    /// What requests see; `None` until the server starts.
    published: RwLock<Option<Arc<ToolSet>>>,
    /// Where to send `tools/list_changed` (in the order they came), and the subscription (a
    /// `subscriptions/listen` request) each one belongs to, if any.
    listeners: Mutex<BTreeMap<u64, (Outgoing, Option<RequestId>)>>,
    next_listener: AtomicU64,
}

impl Catalog {
    pub(crate) fn new(sources: Sources) -> Self {
        Catalog {
            sources: Mutex::new(sources),
            published: RwLock::new(None),
            listeners: Mutex::new(BTreeMap::new()),
            next_listener: AtomicU64::new(0),
        }
    }

    pub(crate) fn sources(&self) -> MutexGuard<'_, Sources> {
        self.sources.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Build the tools without publishing them (the start-up check).
    pub(crate) fn check(&self) -> Result<ToolSet, Error> {
        self.sources().build()
    }

    /// Build and publish the tools; the server is starting.
    pub(crate) fn publish(&self) -> Result<Arc<ToolSet>, Error> {
        let set = Arc::new(self.sources().build()?);
        *self.published.write().unwrap_or_else(|e| e.into_inner()) = Some(set.clone());
        Ok(set)
    }

    /// The tools requests see now.
    pub(crate) fn current(&self) -> Arc<ToolSet> {
        let published = self.published.read().unwrap_or_else(|e| e.into_inner());
        published.clone().unwrap_or_else(|| Arc::new(ToolSet::empty()))
    }

    /// Apply `change` (which says whether it changed anything) to the
    /// sources. While the server runs, the tools are rebuilt and published
    /// and every connection is told; a change that leaves them unusable (a
    /// duplicate name) is undone and reported. Before it runs, the start-up
    /// check covers everything at once.
    fn change(&self, change: impl FnOnce(&mut Sources) -> bool) -> Result<bool, Error> {
        let mut sources = self.sources();
        let undo = (sources.tools.clone(), sources.disabled.clone());
        let changed = change(&mut sources);
        let running = self.published.read().unwrap_or_else(|e| e.into_inner()).is_some();
        if !changed || !running {
            return Ok(changed);
        }
        match sources.build() {
            Ok(set) => {
                *self.published.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(set));
                drop(sources);
                self.notify_listeners();
                Ok(true)
            }
            Err(error) => {
                (sources.tools, sources.disabled) = undo;
                Err(error)
            }
        }
    }

    /// Tell `outgoing` when the tools change, until [`unlisten`](Self::unlisten);
    /// notifications for a `subscription` carry its id.
    pub(crate) fn listen(&self, outgoing: Outgoing, subscription: Option<RequestId>) -> u64 {
        let id = self.next_listener.fetch_add(1, Ordering::Relaxed);
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).insert(id, (outgoing, subscription));
        id
    }

    pub(crate) fn unlisten(&self, id: u64) {
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }

    fn notify_listeners(&self) {
        let listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        for (outgoing, subscription) in listeners.values() {
            let params = match subscription {
                None => json!({}),
                Some(id) => json!({ "_meta": { envelope::SUBSCRIPTION_ID: id } }),
            };
            outgoing.notify(methods::TOOLS_LIST_CHANGED, &params);
        }
    }
}

/// Changes a server's tools while it runs: add, remove, enable, disable.
/// Each change is checked like the tools at start-up (a duplicate name is
/// refused, and nothing changes), and connected clients get
/// `notifications/tools/list_changed`. Made by [`Server::tools_handle`](crate::Server::tools_handle);
/// clones share one server.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Say hello.
/// #[tool]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::empty("dynamic", "1");
/// let tools = server.tools_handle();
/// tools.add(hello::Tool)?;
/// tools.disable("hello");
/// assert_eq!(tools.names(), ["hello"]);
/// assert!(server.tool_definitions()?.is_empty(), "a disabled tool is not listed");
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ToolsHandle(pub(crate) Arc<Catalog>);

impl ToolsHandle {
    /// Add a tool.
    pub fn add(&self, tool: impl Tool) -> Result<(), Error> {
        self.0.change(|sources| {
            sources.tools.push(Arc::new(tool));
            true
        })?;
        Ok(())
    }

    /// Remove the tool named `name`; `false` if there is none.
    pub fn remove(&self, name: &str) -> bool {
        self.0
            .change(|sources| {
                let before = sources.tools.len();
                sources.tools.retain(|tool| tool.definition().tool.name != name);
                sources.disabled.remove(name);
                sources.tools.len() != before
            })
            .unwrap_or(false)
    }

    /// Stop offering the tool named `name` (it is kept, and can be enabled
    /// again); `false` if it was already disabled.
    pub fn disable(&self, name: &str) -> bool {
        self.0.change(|sources| sources.disabled.insert(name.to_owned())).unwrap_or(false)
    }

    /// Offer the tool named `name` again; `false` if it was not disabled.
    pub fn enable(&self, name: &str) -> bool {
        self.0.change(|sources| sources.disabled.remove(name)).unwrap_or(false)
    }

    /// The names of every registered tool, enabled or not, sorted.
    pub fn names(&self) -> Vec<String> {
        let sources = self.0.sources();
        let names: BTreeSet<String> = sources.tools.iter().map(|t| t.definition().tool.name).collect();
        names.into_iter().collect()
    }
}

impl std::fmt::Debug for ToolsHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ToolsHandle").field(&self.names()).finish()
    }
}
