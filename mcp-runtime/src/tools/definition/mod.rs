//! What a tool is, before a server shapes it: [`ToolDefinition`], and the
//! [`ToolBuilder`] that `#[tool]` expansions (and hand-written tools) make
//! it with from a function's name, docs and parameter types (`builder`).

use std::time::Duration;

use mcp_core::JsonObject;
use mcp_core::schema::SchemaProfile;
use serde_json::Value;

use super::limit::RateLimit;
use crate::request::Needs;
use crate::tasks::TaskSupport;

mod builder;

pub use builder::ToolBuilder;

/// A tool's definition before a server shapes its schema, plus where it
/// came from (for error messages such as duplicate names).
/// Made by [`ToolBuilder::build`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolDefinition {
    pub(crate) tool: mcp_core::Tool,
    pub(crate) rust_path: String,
    pub(crate) timeout: Option<Duration>,
    pub(crate) rate_limit: Option<RateLimit>,
    /// What its injected parameters need from the server.
    pub(crate) needs: Needs,
    /// Its own schema profile, instead of the server's.
    pub(crate) profile: Option<SchemaProfile>,
    /// A blank version given to [`ToolBuilder::version`] (the server
    /// refuses to start: a version says which one a call reaches).
    pub(crate) blank_version: bool,
    /// Arguments [`ToolBuilder::header`] named that the tool does not have.
    pub(crate) unknown_header_arguments: Vec<String>,
    /// What an access token must grant to see and call it.
    pub(crate) scopes: Vec<String>,
    /// The schema a call's arguments are checked against, where the
    /// portable profile advertises a narrower shape than the type's (see
    /// `mcp_core::schema::checked_input_schema`); set when a server shapes
    /// the definition.
    pub(crate) checked_input: Option<JsonObject>,
    /// A mounted server's tool: its upstream checks the arguments and the
    /// output, so the call passes them on as they are.
    pub(crate) forwarded: bool,
    /// Whether its calls may run as tasks.
    pub(crate) task_support: TaskSupport,
    /// Whether its handler can reach the client (ask it something, keep a
    /// value across a multi-round request's rounds). Only a `#[tool]`
    /// function none of whose parameters is injected cannot: its code sees
    /// nothing of the request but its arguments.
    pub(crate) reaches_client: bool,
}

impl ToolDefinition {
    /// The protocol definition; its `input_schema` is full JSON Schema
    /// 2020-12 until a server shapes it with its [`SchemaProfile`].
    pub fn tool(&self) -> &mcp_core::Tool {
        &self.tool
    }

    /// The Rust item the tool is made from, e.g. `calculator::add`.
    pub fn rust_path(&self) -> &str {
        &self.rust_path
    }

    /// How long one call may run before it is stopped with an error.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// How many calls it accepts per period.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.rate_limit
    }

    /// The schema profile the tool asked for, if it did not leave it to
    /// the server ([`ToolBuilder::schema_profile`]).
    pub fn schema_profile(&self) -> Option<SchemaProfile> {
        self.profile
    }

    /// Whether its calls may run as tasks ([`ToolBuilder::task`]).
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// The scopes an access token must grant to see and call the tool
    /// ([`ToolBuilder::scopes`]).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Its tags ([`ToolBuilder::tags`]).
    pub fn tags(&self) -> Vec<String> {
        crate::component::tags::of(self.tool.meta.as_ref())
    }

    /// Its version ([`ToolBuilder::version`]), if it has one.
    pub fn version(&self) -> Option<String> {
        crate::component::versions::of(self.tool.meta.as_ref())
    }

    /// The schema a call's arguments are checked against: the advertised
    /// input schema unless the profile advertises a narrower shape.
    pub(crate) fn checked_input_schema(&self) -> &JsonObject {
        self.checked_input.as_ref().unwrap_or(&self.tool.input_schema)
    }
}

/// `text_analyzer` → "Text Analyzer".
pub(crate) fn title_from_name(name: &str) -> String {
    name.split(['_', '-', '.'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            let first = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
            first + chars.as_str()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Shape a definition's input and output schemas with `profile`, keeping
/// the schema calls are checked against where it differs from the
/// advertised one. Structured output is checked against the advertised
/// output schema itself (clients validate against that one), which the
/// profile never makes narrower than what serde writes.
pub(crate) fn shape(mut def: ToolDefinition, profile: SchemaProfile) -> Result<ToolDefinition, mcp_core::SchemaError> {
    let raw = Value::Object(std::mem::take(&mut def.tool.input_schema));
    let checked = mcp_core::schema::checked_input_schema(profile, raw.clone())?;
    def.tool.input_schema = mcp_core::schema::input_schema(profile, raw)?;
    def.checked_input = (checked != def.tool.input_schema).then_some(checked);
    if let Some(raw) = def.tool.output_schema.take() {
        def.tool.output_schema = Some(match mcp_core::schema::output_schema(profile, Value::Object(raw))? {
            Value::Object(schema) => schema,
            // `true` (any value: `serde_json::Value`) is the empty schema.
            _ => JsonObject::new(),
        });
    }
    Ok(def)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_derived_from_names() {
        assert_eq!(title_from_name("text_analyzer"), "Text Analyzer");
        assert_eq!(title_from_name("get-user.v2"), "Get User V2");
        assert_eq!(title_from_name("add"), "Add");
    }
}
