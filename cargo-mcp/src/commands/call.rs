//! `cargo mcp call TOOL`: one `tools/call`, its result printed.

use std::process::ExitCode;

use mcp_core::{CallToolResult, Content, JsonObject, methods};
use mcp_runtime_client::Era;
use serde_json::{Value, json};

use crate::cli::CallArgs;
use crate::connect::{Connection, ServerLog};
use crate::failure::Failure;
use crate::incident;
use crate::output::{self, Style};

pub async fn run(args: CallArgs) -> Result<ExitCode, Failure> {
    let arguments = arguments(args.arguments.as_deref(), &args.pairs)?;
    let connection = Connection::open(&args.connect).await?;
    // A 2026-07-28 call over HTTP mirrors the arguments its tool marks
    // with `x-mcp-header` in `Mcp-Param-*` headers: the client learns
    // which from `tools/list`. If that fails the call goes without, and
    // the server says what is missing.
    if connection.is_http() && connection.negotiated.era == Era::Stateless {
        let _ = connection.client.list_tools().await;
    }
    let answer = connection.request(methods::TOOLS_CALL, json!({"name": args.tool, "arguments": arguments})).await;
    let log = connection.server_log();
    connection.close().await;
    let result = answer.map_err(|failure| incident::annotate(failure, log.as_ref()))?;
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let explained = if is_error { explain(&result, log.as_ref()) } else { None };
    if args.json {
        println!("{}", output::pretty(&result, 0));
        // The server's log lines of an internal error, on stderr; stdout
        // stays one JSON document.
        if let Some(detail) = explained.and_then(|e| e.detail) {
            let lines = incident::Explained { detail: Some(detail), hint: None };
            eprintln!("{}", incident::render(&lines, &Style::stderr()));
        }
        return Ok(if is_error { ExitCode::FAILURE } else { ExitCode::SUCCESS });
    }
    let result: CallToolResult = serde_json::from_value(result.clone()).map_err(|e| {
        Failure::new(format!("the result of `{}` is not a tool result: {e}", args.tool))
            .detail(output::pretty(&result, 0))
    })?;
    if result.is_error() {
        let style = Style::stderr();
        eprintln!("{} the tool `{}` reported an error:", style.red_bold("error:"), args.tool);
        eprintln!("{}", render(&result, &style));
        if let Some(explained) = &explained {
            eprintln!("{}", incident::render(explained, &style));
        }
        return Err(Failure::silent(1));
    }
    let rendered = render(&result, &Style::stdout());
    if !rendered.is_empty() {
        println!("{rendered}");
    }
    Ok(ExitCode::SUCCESS)
}

/// What to add to a tool error that names an incident (in its first
/// text block that names one).
fn explain(result: &Value, log: Option<&ServerLog>) -> Option<incident::Explained> {
    let content = result.get("content").and_then(Value::as_array)?;
    content
        .iter()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .find_map(|text| incident::explain(text, log))
}

/// `--args` with the `KEY=VALUE` pairs set on top.
fn arguments(json: Option<&str>, pairs: &[String]) -> Result<JsonObject, Failure> {
    let mut arguments = match json {
        None => JsonObject::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            Ok(other) => {
                return Err(Failure::usage(format!(
                    "--args must be a JSON object, not {}",
                    mcp_core::jsonrpc::kind_of(&other)
                )));
            }
            Err(e) => return Err(Failure::usage(format!("--args is not valid JSON: {e}"))),
        },
    };
    arguments.extend(super::pairs(pairs, true)?);
    Ok(arguments)
}

/// The content blocks, then the structured content unless a text block
/// already says the same JSON. When both are shown, each is headed by its
/// name, so a reader knows which is which (a model reads the content; a
/// program, the structured content).
fn render(result: &CallToolResult, style: &Style) -> String {
    let mut parts = Vec::new();
    for block in &result.content {
        if let (Content::Text(text), Some(structured)) = (block, &result.structured_content)
            && serde_json::from_str::<Value>(&text.text).is_ok_and(|v| v == *structured)
        {
            continue;
        }
        parts.push(output::content(block, style));
    }
    let Some(structured) = &result.structured_content else { return parts.join("\n") };
    let structured = output::pretty(structured, 0);
    if parts.is_empty() {
        return structured;
    }
    format!("{}\n{}\n{}\n{structured}", style.dim("content:"), parts.join("\n"), style.dim("structured content:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_override_the_json_arguments() {
        let args = arguments(Some(r#"{"a": 1, "b": 2}"#), &["b=3".to_owned()]).unwrap();
        assert_eq!(Value::Object(args), json!({"a": 1, "b": 3}));
        assert!(arguments(Some("[1]"), &[]).unwrap_err().message().contains("JSON object"));
        assert!(arguments(Some("{"), &[]).unwrap_err().message().contains("not valid JSON"));
    }

    #[test]
    fn a_text_block_mirroring_the_structured_content_is_shown_once() {
        let result = CallToolResult {
            content: vec![Content::text(r#"{"n": 1}"#), Content::text("note")],
            structured_content: Some(json!({"n": 1})),
            ..Default::default()
        };
        let shown = render(&result, &Style::plain());
        assert_eq!(shown, "content:\nnote\nstructured content:\n{\n  \"n\": 1\n}");
        let alone = CallToolResult { content: vec![Content::text(r#"{"n": 1}"#)], ..result };
        assert_eq!(render(&alone, &Style::plain()), "{\n  \"n\": 1\n}");
    }
}
