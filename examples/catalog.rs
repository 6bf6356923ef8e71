//! Any list of tools behind tool search, to try a large catalog without
//! writing code: give it a `tools/list` result's JSON (`{"tools": [...]}`,
//! or the array alone) and it serves those tools over stdio (or Streamable
//! HTTP with `--http ADDR`), listing only `search_tools` and `call_tool`.
//! Each tool answers with the arguments it was called with, once they pass
//! its input schema.
//!
//! ```sh
//! cargo run --example catalog -- --tools tests/fixtures/catalog/reference-tools.json
//! ```
//!
//! `--visible` keeps every tool in `tools/list` too.

use std::sync::Arc;

use mcp_runtime::catalog::ToolSearch;
use mcp_runtime::prelude::*;
use mcp_runtime::request::RequestParts;
use mcp_runtime::tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition};
use serde_json::Value;

/// One tool of the file: its definition as given, answering with its
/// arguments.
struct Listed(Arc<mcp_runtime::protocol::Tool>);

impl Tool for Listed {
    fn definition(&self) -> ToolDefinition {
        let tool = &self.0;
        let mut builder = ToolBuilder::new(&tool.name, module_path!(), "listed");
        builder.description(tool.description.as_deref()).title(tool.title.as_deref());
        builder.input_schema(tool.input_schema.clone());
        if let Some(annotations) = &tool.annotations {
            if let Some(hint) = annotations.read_only_hint {
                builder.read_only(hint);
            }
            if let Some(hint) = annotations.destructive_hint {
                builder.destructive(hint);
            }
            if let Some(hint) = annotations.idempotent_hint {
                builder.idempotent(hint);
            }
            if let Some(hint) = annotations.open_world_hint {
                builder.open_world(hint);
            }
        }
        if let Some(tags) = tool.meta.as_ref().and_then(|m| m.get("tags")).and_then(Value::as_array) {
            builder.tags(tags.iter().filter_map(Value::as_str));
        }
        builder.build()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let arguments = Value::Object(request.arguments().clone());
        Box::pin(async move {
            let text = arguments.to_string();
            CallToolResult { structured_content: Some(arguments), ..CallToolResult::success(vec![Content::text(text)]) }
        })
    }
}

/// The tools of a `tools/list` result, or of its array alone.
fn read_tools(path: &str) -> Result<Vec<mcp_runtime::protocol::Tool>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("{path} is not JSON: {e}"))?;
    let list = match value {
        Value::Object(mut result) => result.remove("tools").ok_or_else(|| format!("{path} has no `tools`"))?,
        list => list,
    };
    serde_json::from_value(list).map_err(|e| format!("{path}: its tools are not tool definitions: {e}"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut file, mut visible, mut rest) = (None, false, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tools" => file = args.next(),
            "--visible" => visible = true,
            _ => rest.push(arg),
        }
    }
    let Some(file) = file else {
        return Err("usage: catalog --tools FILE [--visible] [--http ADDR] (FILE: a tools/list result's JSON)".into());
    };
    let tools = read_tools(&file)?;
    let count = tools.len();
    let mut server = Server::empty("catalog", env!("CARGO_PKG_VERSION"))
        .instructions("Many tools are served here: find the one you need with `search_tools`.")
        .tool_search(ToolSearch::new().hide_catalog(!visible));
    for tool in tools {
        server = server.tool(Listed(Arc::new(tool)));
    }
    eprintln!("serving {count} tools from {file} behind search");
    Ok(server.args(rest).run_blocking()?)
}
