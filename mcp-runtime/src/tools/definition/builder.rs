//! [`ToolBuilder`]: a tool's definition made from a function's name, docs
//! and parameter types, one call per attribute of `#[tool]` (or of a
//! hand-written tool), the input schema assembled at [`ToolBuilder::build`].

use std::time::Duration;

use mcp_core::schema::SchemaProfile;
use mcp_core::{Icon, JsonObject, ToolAnnotations};
use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{ToolDefinition, title_from_name};
use crate::request::Needs;
use crate::tasks::TaskSupport;
use crate::tools::limit::RateLimit;

/// Builds a [`ToolDefinition`] from a function's name, docs and parameter
/// types. Used by `#[tool]` expansions; hand-written tools may use it too.
pub struct ToolBuilder {
    tool: mcp_core::Tool,
    rust_path: String,
    annotations: ToolAnnotations,
    generator: SchemaGenerator,
    properties: JsonObject,
    required: Vec<Value>,
    timeout: Option<Duration>,
    rate_limit: Option<RateLimit>,
    needs: Needs,
    output_schema_enabled: bool,
    profile: Option<SchemaProfile>,
    /// (argument, header name) from [`ToolBuilder::header`].
    headers: Vec<(String, String)>,
    /// A whole input schema from [`ToolBuilder::input_schema`].
    input_schema: Option<JsonObject>,
    scopes: Vec<String>,
    task_support: TaskSupport,
    /// Set by a `#[tool]` expansion: the handler sees the request only
    /// through its parameters.
    parameters_only: bool,
    /// Whether a parameter is injected ([`needs`](Self::needs) was asked).
    injected: bool,
    /// [`version`](Self::version) was given a blank one.
    blank_version: bool,
}

impl ToolBuilder {
    /// Start a tool named `name`, made from `fn_name` in `module_path`.
    pub fn new(name: &str, module_path: &str, fn_name: &str) -> Self {
        ToolBuilder {
            tool: mcp_core::Tool::new(name, JsonObject::new()),
            rust_path: format!("{module_path}::{fn_name}"),
            annotations: ToolAnnotations::default(),
            generator: SchemaSettings::draft2020_12().into_generator(),
            properties: JsonObject::new(),
            required: Vec::new(),
            timeout: None,
            rate_limit: None,
            needs: Needs::default(),
            output_schema_enabled: true,
            profile: None,
            headers: Vec::new(),
            input_schema: None,
            scopes: Vec::new(),
            task_support: TaskSupport::Never,
            parameters_only: false,
            injected: false,
            blank_version: false,
        }
    }

    /// The description; surrounding blank lines are trimmed, and an empty
    /// text counts as none.
    pub fn description(&mut self, description: Option<&str>) -> &mut Self {
        self.tool.description = description.map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned);
        self
    }

    /// The display title. Without one, a title is derived from the name
    /// (`text_analyzer` → "Text Analyzer"), since some clients drop tools
    /// that have none.
    pub fn title(&mut self, title: Option<&str>) -> &mut Self {
        self.tool.title = title.map(str::to_owned);
        self
    }

    /// The `readOnlyHint`.
    pub fn read_only(&mut self, hint: bool) -> &mut Self {
        self.annotations.read_only_hint = Some(hint);
        self
    }

    /// The `destructiveHint`.
    pub fn destructive(&mut self, hint: bool) -> &mut Self {
        self.annotations.destructive_hint = Some(hint);
        self
    }

    /// The `idempotentHint`.
    pub fn idempotent(&mut self, hint: bool) -> &mut Self {
        self.annotations.idempotent_hint = Some(hint);
        self
    }

    /// The `openWorldHint`.
    pub fn open_world(&mut self, hint: bool) -> &mut Self {
        self.annotations.open_world_hint = Some(hint);
        self
    }

    /// Stop each call after `timeout`, with an error result saying so.
    pub fn timeout(&mut self, timeout: Duration) -> &mut Self {
        self.timeout = Some(timeout);
        self
    }

    /// Let calls run as tasks (the tasks extension, see
    /// [`tasks`](crate::tasks)): with [`TaskSupport::Optional`] a call from a
    /// client that declared the extension becomes a task once it has to
    /// wait; with [`TaskSupport::Required`] only such clients may call it.
    /// The handler is the same function either way.
    pub fn task(&mut self, support: TaskSupport) -> &mut Self {
        self.task_support = support;
        self
    }

    /// Accept at most `calls` calls per `period` (a burst of `calls`, then an
    /// even refill); more get an error result saying when to retry.
    pub fn rate_limit(&mut self, calls: u32, period: Duration) -> &mut Self {
        self.rate_limit = Some(RateLimit::new(calls, period));
        self
    }

    /// Declare that the tool takes a `State<T>`, so a server without one
    /// refuses to start.
    pub fn requires_state<T: 'static>(&mut self) -> &mut Self {
        self.needs.state::<T>();
        self
    }

    /// What the tool's injected parameters need from the server.
    pub fn needs(&mut self) -> &mut Needs {
        self.injected = true;
        &mut self.needs
    }

    /// For `#[tool]` expansions: the handler sees the request only through
    /// its parameters, so unless one is injected (asks for
    /// [`needs`](Self::needs)) it cannot reach the client, and a
    /// 2026-07-28 call of it keeps nothing for later rounds.
    #[doc(hidden)]
    pub fn handler_sees_only_parameters(&mut self) -> &mut Self {
        self.parameters_only = true;
        self
    }

    /// Add an icon (sent to 2025-11-25 clients and later).
    pub fn icon(&mut self, icon: Icon) -> &mut Self {
        self.tool.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Show the tool's results in the view at `uri` (a `ui://` resource the
    /// server serves, see [`apps`](crate::apps)) in hosts that render MCP
    /// Apps; others get the tool as it is. `#[tool(ui = "ui://…")]` calls
    /// this.
    pub fn ui(&mut self, uri: &str) -> &mut Self {
        self.ui_entry("resourceUri", uri.into());
        // Hosts that predate the nested key read the flat one.
        self.meta(mcp_core::apps::LEGACY_RESOURCE_URI_KEY, &uri)
    }

    /// Make the tool callable by views alone: hosts keep it from the model,
    /// and clients that render no views do not see it. `#[tool(app_only)]`
    /// calls this.
    pub fn app_only(&mut self) -> &mut Self {
        self.ui_entry("visibility", serde_json::json!([mcp_core::apps::Visibility::App]))
    }

    /// Set one key of `_meta.ui`, keeping the others.
    fn ui_entry(&mut self, key: &str, value: Value) -> &mut Self {
        let meta = self.tool.meta.get_or_insert_with(JsonObject::new);
        let ui = meta.entry(mcp_core::apps::META_KEY).or_insert_with(|| Value::Object(Map::new()));
        if !ui.is_object() {
            // MCP Apps reads `_meta.ui` as an object; a host would ignore
            // the tool's interface behind anything else.
            let name = &self.tool.name;
            tracing::warn!(tool = %name, replaced = %ui, "`_meta.ui` was not an object; replaced by one");
            *ui = Value::Object(Map::new());
        }
        if let Value::Object(ui) = ui {
            ui.insert(key.to_owned(), value);
        }
        self
    }

    /// Add a `_meta` entry (sent to 2025-06-18 clients and later). A value
    /// that cannot be JSON is left out and logged.
    pub fn meta(&mut self, key: &str, value: &impl Serialize) -> &mut Self {
        match serde_json::to_value(value) {
            Ok(value) => {
                self.tool.meta.get_or_insert_with(JsonObject::new).insert(key.to_owned(), value);
            }
            Err(error) => tracing::error!(tool = %self.tool.name, key, %error, "`_meta` value is not JSON; left out"),
        }
        self
    }

    /// Declare that the tool's structured output is a `T`: its schema becomes
    /// the tool's `outputSchema` (shaped by the server's profile, and wrapped
    /// as `{"result": …}` for clients that need an object).
    pub fn output<T: JsonSchema>(&mut self) -> &mut Self {
        let root = SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
        let mut schema = match Value::from(root) {
            Value::Object(map) => map,
            // `true`: any JSON value.
            _ => Map::new(),
        };
        // Clients differ on the dialect URL; an absent `$schema` means 2020-12.
        schema.remove("$schema");
        self.tool.output_schema = Some(schema);
        self
    }

    /// Leave the `outputSchema` out even if the output type has one (some
    /// clients treat tools that declare one differently).
    pub fn without_output_schema(&mut self) -> &mut Self {
        self.output_schema_enabled = false;
        self
    }

    /// Add a JSON argument of type `T`, required unless `T` can be left out
    /// (`Option<T>`), exactly as `#[tool]` decides for a parameter.
    pub fn parameter<T: serde::de::DeserializeOwned + JsonSchema>(
        &mut self,
        name: &str,
        description: Option<&str>,
    ) -> &mut Self {
        self.argument::<T>(name, description, !crate::tools::param::accepts_absent::<T>())
    }

    /// Add a JSON argument of type `T`.
    pub fn argument<T: JsonSchema>(&mut self, name: &str, description: Option<&str>, required: bool) -> &mut Self {
        let schema = self.argument_schema::<T>(description);
        self.properties.insert(name.to_owned(), Value::Object(schema));
        if required {
            self.required.push(name.into());
        }
        self
    }

    /// Add a JSON argument of type `T` that clients may leave out, with
    /// `default` shown in its schema.
    pub fn argument_with_default<T: JsonSchema + Serialize>(
        &mut self,
        name: &str,
        description: Option<&str>,
        default: &T,
    ) -> &mut Self {
        let mut schema = self.argument_schema::<T>(description);
        match serde_json::to_value(default) {
            Ok(value) => {
                schema.insert("default".into(), value);
            }
            Err(error) => {
                tracing::error!(tool = %self.tool.name, argument = name, %error, "default is not JSON; left out of the schema")
            }
        }
        self.properties.insert(name.to_owned(), Value::Object(schema));
        self
    }

    fn argument_schema<T: JsonSchema>(&mut self, description: Option<&str>) -> JsonObject {
        let mut schema = match Value::from(self.generator.subschema_for::<T>()) {
            Value::Object(map) => map,
            // `true` (any value, e.g. `serde_json::Value`) as an object, so
            // it can carry a description.
            _ => Map::new(),
        };
        if let Some(description) = description.map(str::trim).filter(|d| !d.is_empty()) {
            schema.insert("description".into(), description.into());
        }
        schema
    }

    /// Have 2026-07-28 clients mirror the argument `argument` in the HTTP
    /// header `Mcp-Param-<header>` (SEP-2243), so that proxies can route on
    /// it; the input schema marks the property with `"x-mcp-header":
    /// header` (never sent to older versions), and the server refuses a
    /// call whose header and argument disagree (`-32020`, HTTP 400). The
    /// argument must be a string, integer or boolean (an `Option` of one
    /// under the portable profile), and `header` a header name unique in
    /// the tool regardless of case; otherwise the server does not start.
    /// `#[arg(header = "Region")]` on a `#[tool]` parameter calls this.
    pub fn header(&mut self, argument: &str, header: &str) -> &mut Self {
        self.headers.push((argument.to_owned(), header.to_owned()));
        self
    }

    /// Require an OAuth access token that grants `scopes` (all of them)
    /// to see and use this tool: over HTTP with
    /// [`HttpOptions::oauth`](crate::transport::HttpOptions), lists leave it out for
    /// a token without them, and using it is refused with 403
    /// `insufficient_scope` naming the scopes to ask for. Without a token
    /// (stdio, which is local and trusted) scopes do not apply. A scope
    /// is printable ASCII without spaces, `"` or `\`; otherwise the server
    /// does not start. `#[tool(scopes = ["notes:write"])]` calls this.
    pub fn scopes<I, S>(&mut self, scopes: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Label it with `tags` (kept in its `_meta.tags`, so they travel
    /// with its definition): visibility rules
    /// ([`Server::disable_tagged`](crate::Server::disable_tagged)), tool
    /// search and a mount's `Mount::tagged` filter
    /// select by them. `#[tool(tags = ["admin"])]` calls this.
    pub fn tags<I, S>(&mut self, tags: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        crate::component::tags::add(&mut self.tool.meta, tags);
        self
    }

    /// Make this version `version` of the tool (kept in its
    /// `_meta.version`, so it travels with its definition). Tools with one
    /// name and different versions are served side by side: `tools/list`
    /// shows the newest (dotted numbers compare as numbers, so "10" is
    /// newer than "9"; a tool without a version is older than any), unless
    /// [`Server::pin_version`](crate::Server::pin_version) names another,
    /// and a call reaches another by naming it in `params._meta.version`.
    /// A blank version stops the server from starting.
    /// `#[tool(version = "2")]` calls this.
    pub fn version(&mut self, version: &str) -> &mut Self {
        self.blank_version = version.trim().is_empty();
        if self.blank_version {
            if let Some(meta) = &mut self.tool.meta {
                meta.remove(crate::component::versions::META_KEY);
            }
        } else {
            crate::component::versions::set(&mut self.tool.meta, version);
        }
        self
    }

    /// Shape this tool's schemas with `profile` instead of the server's
    /// ([`Server::schema_profile`](crate::Server::schema_profile)):
    /// [`SchemaProfile::Strict`] keeps a JSON Schema 2020-12 input schema
    /// whole (`$schema`, `$defs` and `$ref`, `$anchor`, composition and
    /// conditionals) for clients that take it, while the server's other
    /// tools stay portable. `#[tool(schema = "strict")]` calls this.
    pub fn schema_profile(&mut self, profile: SchemaProfile) -> &mut Self {
        self.profile = Some(profile);
        self
    }

    /// Use `schema` as the whole input schema, instead of one made from the
    /// arguments added with [`argument`](Self::argument) and its kin (a
    /// hand-written tool whose schema is data). Its root must be an object
    /// schema; it is shaped by the tool's schema profile like any other,
    /// so keep keywords the portable profile removes with
    /// [`schema_profile`](Self::schema_profile)`(SchemaProfile::Strict)`.
    pub fn input_schema(&mut self, schema: JsonObject) -> &mut Self {
        self.input_schema = Some(schema);
        self
    }

    /// The finished definition, with a raw 2020-12 input schema.
    pub fn build(mut self) -> ToolDefinition {
        let mut unknown_header_arguments = Vec::new();
        for (argument, header) in std::mem::take(&mut self.headers) {
            let property = match &mut self.input_schema {
                Some(schema) => schema.get_mut("properties").and_then(Value::as_object_mut),
                None => Some(&mut self.properties),
            }
            .and_then(|properties| properties.get_mut(&argument))
            .and_then(Value::as_object_mut);
            match property {
                Some(property) => {
                    property.insert(mcp_core::headers::X_MCP_HEADER.into(), header.into());
                }
                None => unknown_header_arguments.push(argument),
            }
        }
        let schema = match self.input_schema.take() {
            Some(schema) => schema,
            None => {
                let mut schema = JsonObject::new();
                schema.insert("type".into(), "object".into());
                schema.insert("properties".into(), Value::Object(self.properties));
                if !self.required.is_empty() {
                    schema.insert("required".into(), Value::Array(self.required));
                }
                let definitions = self.generator.take_definitions(true);
                if !definitions.is_empty() {
                    schema.insert("$defs".into(), Value::Object(definitions));
                }
                schema
            }
        };
        self.tool.input_schema = schema;
        if !self.output_schema_enabled {
            self.tool.output_schema = None;
        }
        if self.tool.title.is_none() {
            self.tool.title = Some(title_from_name(&self.tool.name));
        }
        if !self.annotations.is_empty() {
            self.tool.annotations = Some(self.annotations);
        }
        // 2025-11-25 clients learn from this which tools they may (or
        // must) call as tasks; `Tool::for_version` drops it elsewhere.
        let task_support = match self.task_support {
            TaskSupport::Never => None,
            TaskSupport::Optional => Some("optional"),
            TaskSupport::Required => Some("required"),
        };
        if let Some(support) = task_support {
            let mut execution = JsonObject::new();
            execution.insert("taskSupport".into(), support.into());
            self.tool.execution = Some(execution);
        }
        ToolDefinition {
            tool: self.tool,
            rust_path: self.rust_path,
            timeout: self.timeout,
            rate_limit: self.rate_limit,
            needs: self.needs,
            profile: self.profile,
            unknown_header_arguments,
            blank_version: self.blank_version,
            scopes: self.scopes,
            checked_input: None,
            forwarded: false,
            task_support: self.task_support,
            reaches_client: !self.parameters_only || self.injected,
        }
    }
}
