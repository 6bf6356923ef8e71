//! Tools as a component kind: each registered tool built once (names
//! checked, schemas shaped, its definition serialized for every protocol
//! version, its rate limiter made), and the [`ToolsHandle`] that changes
//! them at run time.

use std::sync::{Arc, OnceLock};

use mcp_core::headers::ParamHeader;
use mcp_core::{ProtocolVersion, SchemaProfile};
use serde_json::Value;
use serde_json::value::RawValue;

use super::Tool;
use super::arguments::ArgumentCheck;
use super::definition::{ToolDefinition, shape};
use super::limit::Limiter;
use crate::component::announce::ListKind;
use crate::component::{Kind, PerVersion, Snapshot};
use crate::dispatch::Incoming;
use crate::error::Error;
use crate::request::state::StateMap;
use crate::schema_check::Schema;

/// One registered tool, ready to serve.
pub(crate) struct Entry {
    pub(crate) handler: Arc<dyn Tool>,
    pub(crate) definition: ToolDefinition,
    /// The validator of its arguments, built on first use from the checked
    /// schema (the advertised one, unless that is narrower than the type),
    /// so that a server with many tools answers `initialize` without
    /// compiling every schema first.
    check: OnceLock<Result<ArgumentCheck, String>>,
    /// The validator of its structured output, built on first use (none
    /// without an output schema).
    output: OnceLock<Option<Schema>>,
    /// Its own rate limit, if it has one.
    pub(crate) limiter: Option<Limiter>,
    /// Its output schema's root is not an object, so clients that need an
    /// object get schema and value wrapped as `{"result": …}`.
    pub(crate) wraps_output: bool,
    /// The definition as each protocol version lists it (indexed like
    /// `ProtocolVersion::ALL`), serialized once.
    listed: PerVersion,
    /// The arguments a 2026-07-28 client mirrors in `Mcp-Param-*` headers.
    /// Only the HTTP transport reads them (stdio has no headers).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) param_headers: Vec<ParamHeader>,
    /// For views alone (`#[tool(app_only)]`): clients that render no views
    /// neither see nor call it.
    pub(crate) app_only: bool,
    /// Its version (`_meta.version`), if it has one.
    pub(crate) version: Option<String>,
}

impl Entry {
    /// Whether a caller with these claims (none: no token) and this client
    /// may see the tool: its token grants the tool's scopes, and a tool for
    /// views only goes to clients that render them. Lists and tool search
    /// both ask here.
    pub(crate) fn visible_to(
        &self,
        claims: Option<&crate::request::claims::Claims>,
        peer: Option<&crate::client::Peer>,
    ) -> bool {
        let scopes = claims.is_none_or(|claims| claims.missing(&self.definition.scopes).is_empty());
        scopes && (!self.app_only || peer.is_some_and(crate::apps::declared))
    }

    /// The argument validator, built the first time it is needed.
    pub(crate) fn check(&self) -> Result<&ArgumentCheck, &str> {
        self.check
            .get_or_init(|| ArgumentCheck::new(self.definition.checked_input_schema()))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Structured output as clients are sent it: `null`s for fields the
    /// output schema leaves optional are left out (see
    /// `mcp_core::schema::omit_optional_nulls`). Whether anything changed.
    pub(crate) fn shape_output(&self, structured: &mut Value) -> bool {
        match &self.definition.tool.output_schema {
            Some(schema) => mcp_core::schema::omit_optional_nulls(structured, schema),
            None => false,
        }
    }

    /// Why `structured` does not fit the tool's output schema, if it does
    /// not: a server bug (e.g. a NaN or an infinity, which JSON writes as
    /// `null`), caught before a client that validates rejects the result.
    pub(crate) fn output_problem(&self, structured: &Value) -> Option<String> {
        let validator = self.output.get_or_init(|| {
            let schema = Value::Object(self.definition.tool.output_schema.clone()?);
            Schema::compile(&schema)
                .inspect_err(
                    |e| tracing::warn!(tool = %self.definition.tool.name, error = %e, "output schema does not compile"),
                )
                .ok()
        });
        let validator = validator.as_ref()?;
        if validator.is_valid(structured) {
            return None;
        }
        let problems = validator.problems(structured);
        let problem = problems.first()?;
        let hint = if problem.instance.is_null() { " (a NaN or infinite float becomes null in JSON)" } else { "" };
        Some(format!("{problem}{hint}"))
    }
}

/// How a server presents its tools.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ToolOptions {
    pub(crate) profile: SchemaProfile,
    pub(crate) output_schemas: bool,
    pub(crate) default_timeout: Option<std::time::Duration>,
}

impl Default for ToolOptions {
    fn default() -> Self {
        ToolOptions { profile: SchemaProfile::default(), output_schemas: true, default_timeout: None }
    }
}

/// The tool kind.
pub(crate) struct Tools;

impl Kind for Tools {
    type Source = dyn Tool;
    type Entry = Entry;
    type Options = ToolOptions;

    const LIST: ListKind = ListKind::Tools;

    fn source_key(source: &dyn Tool) -> String {
        source.definition().tool.name
    }

    fn build(handler: &Arc<dyn Tool>, options: &ToolOptions, states: &StateMap) -> Result<Entry, Error> {
        let mut raw = handler.definition();
        raw.needs.check(states, "tool", &raw.tool.name, &raw.rust_path)?;
        crate::request::claims::check_scopes(&raw.scopes, "tool", &raw.tool.name, &raw.rust_path)?;
        if !options.output_schemas {
            raw.tool.output_schema = None;
        }
        raw.timeout = raw.timeout.or(options.default_timeout);
        let (tool, rust_path) = (raw.tool.name.clone(), raw.rust_path.clone());
        if raw.blank_version {
            return Err(Error::InvalidVersion { tool, rust_path });
        }
        if let Some(argument) = raw.unknown_header_arguments.first() {
            let reason = format!(
                "it has no argument `{argument}` to mirror (a value the runtime supplies, such as `Context`, has no header)"
            );
            return Err(Error::InvalidParamHeader { tool, rust_path, reason });
        }
        let profile = raw.profile.unwrap_or(options.profile);
        let definition = shape(raw, profile).map_err(|source| Error::Schema {
            tool: tool.clone(),
            rust_path: rust_path.clone(),
            source,
        })?;
        let param_headers = mcp_core::headers::param_headers(&definition.tool.input_schema)
            .map_err(|reason| Error::InvalidParamHeader { tool, rust_path, reason })?;
        let wraps_output = definition
            .tool
            .output_schema
            .as_ref()
            .is_some_and(|s| s.get("type").and_then(Value::as_str) != Some("object"));
        let limiter =
            definition.rate_limit.map(|limit| Limiter::new(limit, Some(&definition.tool.name))).transpose()?;
        let app_only = crate::apps::tool_ui(&definition.tool).is_some_and(|ui| ui.app_only());
        let version = definition.version();
        Ok(Entry {
            version,
            app_only,
            handler: handler.clone(),
            definition,
            check: OnceLock::new(),
            output: OnceLock::new(),
            limiter,
            wraps_output,
            listed: PerVersion::default(),
            param_headers,
        })
    }

    fn key(entry: &Entry) -> &str {
        &entry.definition.tool.name
    }

    fn version(entry: &Entry) -> Option<&str> {
        entry.version.as_deref()
    }

    fn source_version(source: &dyn Tool) -> Option<String> {
        source.definition().version()
    }

    fn listed(entry: &Entry, version: ProtocolVersion) -> &RawValue {
        entry.listed.get(version, |v| entry.definition.tool.for_version(v))
    }

    fn scopes(entry: &Entry) -> &[String] {
        &entry.definition.scopes
    }

    fn tags(entry: &Entry) -> Vec<String> {
        entry.definition.tags()
    }

    fn visible(entry: &Entry, request: &Incoming<'_>) -> bool {
        entry.visible_to(request.claims.as_ref(), Some(&*request.peer))
    }

    fn listed_to(entry: &Entry, request: &Incoming<'_>) -> bool {
        Self::visible(entry, request) && request.shared().transforms.lists(&entry.definition.tool.name)
    }

    fn duplicate(a: &Entry, b: &Entry) -> Error {
        let (first, second) = crate::component::in_order(&a.definition.rust_path, &b.definition.rust_path);
        Error::DuplicateTool { name: a.definition.tool.name.clone(), first, second }
    }
}

impl Snapshot<Tools> {
    /// Build every argument validator now, reporting the first schema that
    /// cannot be compiled (the explicit start-up check in tests).
    pub(crate) fn compile_all(&self) -> Result<(), Error> {
        for entry in self.every_version() {
            entry.check().map_err(|reason| Error::InvalidSchema {
                tool: entry.definition.tool.name.clone(),
                rust_path: entry.definition.rust_path.clone(),
                reason: reason.to_owned(),
            })?;
        }
        Ok(())
    }

    /// Let the tools' rate limiters drop allowances that are full again.
    pub(crate) fn forget_idle_allowances(&self) {
        self.every_version().filter_map(|e| e.limiter.as_ref()).for_each(Limiter::forget_idle);
    }
}

crate::component::catalog_handle!(
    /// Changes a server's tools while it runs: add, remove, enable, disable.
    /// Each change is checked like the tools at start-up (a duplicate name is
    /// refused, and nothing changes), touches only the tool it names (the
    /// others keep their rate-limit allowances), and connected clients get
    /// `notifications/tools/list_changed`. Made by
    /// [`Server::tools_handle`](crate::Server::tools_handle); clones share one
    /// server.
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
    ToolsHandle,
    Tools,
    Tool,
    "tool"
);

impl ToolsHandle {
    /// Make `version` of the tool `name` its current one: the one
    /// `tools/list` shows and a call without `_meta.version` runs, instead
    /// of the newest. `false` if no tool `name` has that version, or it
    /// was already pinned. A pin outlives the version it names: if that
    /// version is removed, the newest is current until it is back.
    pub fn pin_version(&self, name: &str, version: &str) -> bool {
        self.0.pin_version(name, version)
    }

    /// Make the newest version of the tool `name` current again; `false`
    /// if it was not pinned.
    pub fn unpin_version(&self, name: &str) -> bool {
        self.0.unpin_version(name)
    }

    /// The versions of the tool `name`, enabled or not, oldest first
    /// (`#[tool(version = "…")]`); none for a tool without versions.
    pub fn versions(&self, name: &str) -> Vec<String> {
        self.0.versions(name)
    }
}
