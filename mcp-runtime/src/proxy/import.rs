//! [`Server::import`]: another server's components copied into this one
//! once, renamed as a mount renames them, and called directly (no
//! connection between the two).

use std::sync::Arc;

use super::names::Names;
use crate::Server;
use crate::prompts::{Prompt, PromptDefinition, Rendered};
use crate::request::RequestParts;
use crate::resources::{Contents, Resource, ResourceDefinition};
use crate::tools::{BoxFuture, CallToolResult, Tool, ToolDefinition};

impl Server {
    /// Copy `other`'s tools, resources, templates and prompts into this
    /// server, named as [`mount`](Self::mount) names them (`prefix` empty:
    /// as they are). Unlike a mount it is a copy, made now: calls run in
    /// this server with nothing in between (the cheapest composition),
    /// under this server's middleware, limits and schema profile; `other`'s
    /// shared values (`with_state`) come along for the types this server
    /// has none of; `other`'s own middleware, tool search and later
    /// changes do not (what its tag rules switch off stays off).
    pub fn import(mut self, prefix: &str, other: Server) -> Self {
        let names = Names::new(prefix);
        // `other`'s tool search answers from `other`'s catalog, which is not
        // served: its two tools stay behind (this server may search its own).
        let own_search = |name: &str| other.transforms.search.as_ref().is_some_and(|s| s.is_own(name));
        for tool in other.tools.registered(|t| t.definition().tags()) {
            let definition = tool.definition();
            if own_search(&definition.tool.name) {
                continue;
            }
            let name = names.name(&definition.tool.name);
            self.tools.sources().push(Arc::new(Renamed { inner: tool, name, names: names.clone() }));
        }
        let resources = other.resources.statics.registered(|r| r.definition().tags()).into_iter();
        for resource in resources.chain(other.resources.templates.registered(|r| r.definition().tags())) {
            let uri = names.uri(resource.definition().uri());
            self.resources.push(Arc::new(Renamed { inner: resource, name: uri, names: names.clone() }));
        }
        for prompt in other.prompts.registered(|p| p.definition().tags()) {
            let name = names.name(&prompt.definition().prompt.name);
            self.prompts.sources().push(Arc::new(Renamed { inner: prompt, name, names: names.clone() }));
        }
        self.states.absorb(other.states);
        self
    }
}

/// A component under another name (a resource: URI).
struct Renamed<T: ?Sized> {
    inner: Arc<T>,
    name: String,
    /// The renaming, for the names inside (a tool's view).
    names: Names,
}

impl Tool for Renamed<dyn Tool> {
    fn definition(&self) -> ToolDefinition {
        let mut definition = self.inner.definition();
        definition.tool.name.clone_from(&self.name);
        self.names.view_of(&mut definition.tool);
        definition
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        self.inner.call(request)
    }
}

impl Resource for Renamed<dyn Resource> {
    fn definition(&self) -> ResourceDefinition {
        let mut definition = self.inner.definition();
        definition.resource.uri.clone_from(&self.name);
        definition
    }

    fn read(&self, request: RequestParts) -> BoxFuture<'static, Contents> {
        self.inner.read(request)
    }
}

impl Prompt for Renamed<dyn Prompt> {
    fn definition(&self) -> PromptDefinition {
        let mut definition = self.inner.definition();
        definition.prompt.name.clone_from(&self.name);
        definition
    }

    fn get(&self, request: RequestParts) -> BoxFuture<'static, Rendered> {
        self.inner.get(request)
    }
}
