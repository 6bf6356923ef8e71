//! The two tools tool search adds: `search_tools`, which ranks the
//! catalog against a query (or matches a regex) and answers with the
//! found tools' definitions as `tools/list` would give them, and
//! `call_tool`, whose calls are routed to the tool they name before
//! admission (`catalog::route`), so its handler runs only for a call that
//! could not be routed.

use std::sync::Arc;

use mcp_core::{CallToolResult, Content};
use serde_json::{Value, json};

use super::{MAX_QUERY_CHARS, MAX_RESULTS, REGEX_NEST_LIMIT, REGEX_SIZE_LIMIT, Search, regex_matches};
use crate::component::Kind;
use crate::request::RequestParts;
use crate::tools::catalog::{Entry, Tools};
use crate::tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition};

/// `search_tools`.
pub(crate) struct SearchTool(pub(crate) Arc<Search>);

impl Tool for SearchTool {
    fn definition(&self) -> ToolDefinition {
        let options = &self.0.options;
        let mut builder = ToolBuilder::new(&options.search_name, module_path!(), "search_tools");
        let description = format!(
            "Find this server's tools by what they do. Give a few words (or a regex with `regex: true`); the \
             answer lists the best matches' definitions. Call one directly, or through `{}` with its name and \
             arguments.",
            options.call_name
        );
        builder
            .description(Some(&description))
            .title(Some("Search tools"))
            .read_only(true)
            .idempotent(true)
            .open_world(false)
            .argument::<String>("query", Some("What the tool should do, in a few words, or a regex."), true)
            .argument::<bool>("regex", Some("Read `query` as a regular expression (case-insensitive), matched against each tool's name, title, description and parameters."), false)
            .argument::<u32>("limit", Some("How many tools to return at most (1 to 50)."), false);
        builder.build()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let search_state = self.0.clone();
        Box::pin(async move {
            // Building the index takes milliseconds for a large catalog:
            // off the connection's task, so other requests are read meanwhile.
            let answer = if search_state.cached().is_some() {
                search(&search_state, &request)
            } else {
                tokio::task::spawn_blocking(move || search(&search_state, &request))
                    .await
                    .unwrap_or_else(|_| Err("the search failed; try again".to_owned()))
            };
            match answer {
                Ok(found) => {
                    let text = serde_json::to_string(&found).unwrap_or_default();
                    CallToolResult {
                        structured_content: Some(found),
                        ..CallToolResult::success(vec![Content::text(text)])
                    }
                }
                Err(problem) => CallToolResult::error_text(problem),
            }
        })
    }
}

/// Answer one search: `{"tools": [definition, …]}`, or why the query
/// cannot be answered.
fn search(search: &Search, request: &RequestParts) -> Result<Value, String> {
    let arguments = request.arguments();
    let query = arguments.get("query").and_then(Value::as_str).unwrap_or_default().trim();
    let regex = arguments.get("regex").and_then(Value::as_bool).unwrap_or(false);
    let limit = match arguments.get("limit").and_then(Value::as_u64) {
        Some(limit) if (1..=MAX_RESULTS as u64).contains(&limit) => limit as usize,
        Some(limit) => return Err(format!("`limit` must be between 1 and {MAX_RESULTS}, not {limit}")),
        None => search.options.default_limit,
    };
    if query.is_empty() {
        return Err("`query` is empty: say in a few words what the tool should do, e.g. \"read a file\"".into());
    }
    let chars = query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(format!("`query` is {chars} characters long; at most {MAX_QUERY_CHARS}: say it in a few words"));
    }
    let built = search.built();
    let view = request.view();
    let sees = |at: usize| built.on_for(at, view.as_deref()) && caller_sees(&built.entries[at], request);
    let found: Vec<&Arc<Entry>> = if regex {
        let pattern = regex_lite::RegexBuilder::new(query)
            .case_insensitive(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .nest_limit(REGEX_NEST_LIMIT)
            .build()
            .map_err(|e| format!("`query` is not a regex this server takes: {e}"))?;
        let matching = (0..built.entries.len()).filter(|at| sees(*at) && regex_matches(&built.entries[*at], &pattern));
        matching.take(limit).map(|at| &built.entries[at]).collect()
    } else {
        // Rank more than asked for, since the caller may not see them all.
        let ranked = built.index.search(query, built.entries.len());
        ranked.into_iter().map(|(at, _)| at).filter(|at| sees(*at)).take(limit).map(|at| &built.entries[at]).collect()
    };
    let version = request.protocol_version();
    let tools: Vec<&serde_json::value::RawValue> = found.iter().map(|e| Tools::listed(e, version)).collect();
    serde_json::to_value(json!({ "tools": tools })).map_err(|e| e.to_string())
}

/// Whether the caller may see `entry` in a list, as `tools/list` decides.
fn caller_sees(entry: &Entry, request: &RequestParts) -> bool {
    entry.visible_to(request.claims(), request.peer.as_deref())
}

/// `call_tool`.
pub(crate) struct CallTool(pub(crate) Arc<Search>);

impl Tool for CallTool {
    fn definition(&self) -> ToolDefinition {
        let options = &self.0.options;
        let mut builder = ToolBuilder::new(&options.call_name, module_path!(), "call_tool");
        let description = format!(
            "Call one of this server's tools by name, for tools found with `{}` that are not listed.",
            options.search_name
        );
        builder
            .description(Some(&description))
            .title(Some("Call a tool"))
            .argument::<String>("name", Some("The tool's name, as the search gave it."), true)
            .argument::<serde_json::Map<String, Value>>("arguments", Some("The tool's arguments."), false);
        builder.build()
    }

    fn call(&self, _request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        // Calls with a `name` are routed to that tool before they get here.
        let text = format!("`{}` needs `name`: the name of the tool to call", self.0.options.call_name);
        Box::pin(async move { CallToolResult::error_text(text) })
    }
}
