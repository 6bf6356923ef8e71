//! Tool transformation: the same function, shown to clients as another
//! tool (a new name or description, arguments renamed, reworded or fixed
//! to a value), without touching the function.

use std::collections::BTreeMap;

use mcp_core::CallToolResult;
use serde_json::{Map, Value};

use crate::request::RequestParts;
use crate::tools::{BoxFuture, Tool, ToolDefinition};

/// A tool shown as another: add it in the original's place.
///
/// ```
/// use mcp_runtime::middleware::Transform;
/// use mcp_runtime::prelude::*;
/// use serde_json::json;
///
/// /// Search the web.
/// #[tool]
/// fn search(query: String, engine: String, limit: u32) -> String {
///     format!("{limit} results for {query} on {engine}")
/// }
///
/// let server = Server::empty("docs", "1").tool(
///     Transform::new(search::Tool)
///         .name("search_docs")
///         .description("Search this project's documentation.")
///         .rename_argument("query", "question")
///         .describe_argument("question", "What to look for, in plain words")
///         // Models no longer see these: every call gets these values.
///         .fix("engine", json!("docs"))
///         .fix("limit", json!(5)),
/// );
/// # drop(server);
/// ```
pub struct Transform<T> {
    tool: T,
    name: Option<String>,
    description: Option<String>,
    /// Shown name → the function's name.
    renamed: BTreeMap<String, String>,
    /// Shown name → its new description.
    described: BTreeMap<String, String>,
    /// The function's name → the value every call gets.
    fixed: Map<String, Value>,
}

impl<T: Tool> Transform<T> {
    /// `tool`, unchanged until the methods below say otherwise.
    pub fn new(tool: T) -> Self {
        Transform {
            tool,
            name: None,
            description: None,
            renamed: BTreeMap::new(),
            described: BTreeMap::new(),
            fixed: Map::new(),
        }
    }

    /// Its name as clients see it (its title follows unless it had one of
    /// its own).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Its description as clients see it.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Show the argument `from` as `to`.
    pub fn rename_argument(mut self, from: &str, to: &str) -> Self {
        self.renamed.insert(to.to_owned(), from.to_owned());
        self
    }

    /// Describe the argument `name` (as clients see it) anew.
    pub fn describe_argument(mut self, name: &str, description: impl Into<String>) -> Self {
        self.described.insert(name.to_owned(), description.into());
        self
    }

    /// Hide the argument `name` (the function's own name for it) and give
    /// every call `value` for it: a value a client sends for it anyway is
    /// replaced.
    pub fn fix(mut self, name: &str, value: Value) -> Self {
        self.fixed.insert(name.to_owned(), value);
        self
    }
}

impl<T: Tool> Tool for Transform<T> {
    fn definition(&self) -> ToolDefinition {
        let mut definition = self.tool.definition();
        let tool = &mut definition.tool;
        if let Some(name) = &self.name {
            if tool.title.as_deref() == Some(crate::tools::definition::title_from_name(&tool.name).as_str()) {
                tool.title = Some(crate::tools::definition::title_from_name(name));
            }
            tool.name.clone_from(name);
        }
        if let Some(description) = &self.description {
            tool.description = Some(description.clone());
        }
        let schema = &mut tool.input_schema;
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            for name in self.fixed.keys() {
                properties.remove(name);
            }
            // Renamed in place: the order of the arguments is the function's.
            *properties = std::mem::take(properties)
                .into_iter()
                .map(|(name, property)| {
                    let shown = self.renamed.iter().find(|(_, own)| **own == name).map(|(shown, _)| shown.clone());
                    (shown.unwrap_or(name), property)
                })
                .collect();
            for (shown, description) in &self.described {
                if let Some(Value::Object(property)) = properties.get_mut(shown) {
                    property.insert("description".into(), Value::String(description.clone()));
                }
            }
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|name| name.as_str().is_none_or(|n| !self.fixed.contains_key(n)));
            for name in required.iter_mut() {
                let shown = self.renamed.iter().find(|(_, own)| name.as_str() == Some(own.as_str()));
                if let Some((shown, _)) = shown {
                    *name = Value::String(shown.clone());
                }
            }
        }
        definition
    }

    fn call(&self, mut request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        for (shown, own) in &self.renamed {
            if let Some(value) = request.arguments.remove(shown) {
                request.arguments.insert(own.clone(), value);
            }
        }
        for (name, value) in &self.fixed {
            request.arguments.insert(name.clone(), value.clone());
        }
        self.tool.call(request)
    }
}
