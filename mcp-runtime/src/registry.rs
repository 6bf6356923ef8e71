//! A server's tools, built once: names checked for duplicates, schemas
//! shaped, and each definition projected for every protocol version, so
//! no request recomputes any of it.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use mcp_core::{ProtocolVersion, SchemaProfile};
use serde_json::Value;

use crate::arguments::ArgumentCheck;
use crate::error::Error;
use crate::limit::Limiter;
use crate::state::StateMap;
use crate::tool::{Tool, ToolDefinition, shape};

/// One registered tool.
pub(crate) struct Entry {
    pub(crate) handler: Arc<dyn Tool>,
    pub(crate) definition: ToolDefinition,
    /// The validator of its arguments, built from the advertised schema on
    /// first use: the first validator of a process costs milliseconds (the
    /// meta-schema is loaded then), which a server should not spend before
    /// it answers `initialize`.
    check: OnceLock<Result<ArgumentCheck, String>>,
    /// Its own rate limit, if it has one.
    pub(crate) limiter: Option<Limiter>,
    /// Its output schema's root is not an object, so clients that need an
    /// object get schema and value wrapped as `{"result": …}`.
    pub(crate) wraps_output: bool,
    /// The definition as JSON, per protocol version (indexed like
    /// `ProtocolVersion::ALL`).
    listed: Vec<Value>,
}

impl Entry {
    /// The argument validator, built the first time it is needed.
    pub(crate) fn check(&self) -> Result<&ArgumentCheck, &str> {
        self.check
            .get_or_init(|| ArgumentCheck::new(&self.definition.tool.input_schema))
            .as_ref()
            .map_err(String::as_str)
    }

    pub(crate) fn listed(&self, version: ProtocolVersion) -> &Value {
        let index = ProtocolVersion::ALL.iter().position(|v| *v == version).unwrap_or(0);
        &self.listed[index]
    }
}

/// How a server presents its tools.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ToolOptions {
    pub(crate) profile: SchemaProfile,
    pub(crate) output_schemas: bool,
    pub(crate) default_timeout: Option<std::time::Duration>,
}

/// The tools of one server, sorted by name (so `tools/list` is the same on
/// every connection and every run).
pub(crate) struct ToolSet {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
}

impl ToolSet {
    pub(crate) fn empty() -> ToolSet {
        ToolSet { entries: Vec::new(), index: HashMap::new() }
    }

    pub(crate) fn build(
        handlers: Vec<Arc<dyn Tool>>,
        options: &ToolOptions,
        states: &StateMap,
        disabled: &std::collections::BTreeSet<String>,
    ) -> Result<ToolSet, Error> {
        let mut entries = Vec::with_capacity(handlers.len());
        for handler in handlers {
            let mut raw = handler.definition();
            if disabled.contains(&raw.tool.name) {
                continue;
            }
            if let Some((_, state)) = raw.states.iter().find(|(id, _)| !states.contains(*id)) {
                return Err(Error::MissingState { tool: raw.tool.name, rust_path: raw.rust_path, state });
            }
            if !options.output_schemas {
                raw.tool.output_schema = None;
            }
            raw.timeout = raw.timeout.or(options.default_timeout);
            let profile = options.profile;
            let (tool, rust_path) = (raw.tool.name.clone(), raw.rust_path.clone());
            let definition = shape(raw, profile).map_err(|source| Error::Schema { tool, rust_path, source })?;
            let listed = ProtocolVersion::ALL
                .iter()
                .map(|v| serde_json::to_value(definition.tool.for_version(*v)).expect("a tool definition is JSON"))
                .collect();
            let wraps_output = definition
                .tool
                .output_schema
                .as_ref()
                .is_some_and(|s| s.get("type").and_then(Value::as_str) != Some("object"));
            let limiter =
                definition.rate_limit.map(|limit| Limiter::new(limit, Some(&definition.tool.name))).transpose()?;
            entries.push(Entry { handler, definition, check: OnceLock::new(), limiter, wraps_output, listed });
        }
        entries.sort_by(|a, b| a.definition.tool.name.cmp(&b.definition.tool.name));
        for pair in entries.windows(2) {
            let (a, b) = (&pair[0].definition, &pair[1].definition);
            if a.tool.name == b.tool.name {
                let (mut first, mut second) = (a.rust_path.clone(), b.rust_path.clone());
                if first > second {
                    std::mem::swap(&mut first, &mut second);
                }
                return Err(Error::DuplicateTool { name: a.tool.name.clone(), first, second });
            }
        }
        let index = entries.iter().enumerate().map(|(i, e)| (e.definition.tool.name.clone(), i)).collect();
        Ok(ToolSet { entries, index })
    }

    /// Build every argument validator now, reporting the first schema that
    /// cannot be compiled (the explicit start-up check in tests).
    pub(crate) fn compile_all(&self) -> Result<(), Error> {
        for entry in &self.entries {
            entry.check().map_err(|reason| Error::InvalidSchema {
                tool: entry.definition.tool.name.clone(),
                rust_path: entry.definition.rust_path.clone(),
                reason: reason.to_owned(),
            })?;
        }
        Ok(())
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Entry> {
        self.index.get(name).map(|&i| &self.entries[i])
    }

    /// Let the tools' rate limiters drop allowances that are full again.
    pub(crate) fn forget_idle_allowances(&self) {
        self.entries.iter().filter_map(|e| e.limiter.as_ref()).for_each(Limiter::forget_idle);
    }

    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }
}
