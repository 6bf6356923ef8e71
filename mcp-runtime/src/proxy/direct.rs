//! A mounted [`Server`](crate::Server) of this process, its tools called
//! with nothing in between: no request encoded, no second connection's
//! dispatch, no answer read back. The mount still mirrors its lists (and
//! their changes) through the in-memory connection; only calls take this
//! path, and only where the mounted server has no middleware of its own
//! (which sees the protocol's requests, so it gets them).
//!
//! What the mounted server's pipeline would check still is: the tool's
//! arguments against its schema, its rate limit and the server's (each
//! caller's allowance counted apart), its timeout, its output against its
//! output schema, its internal errors masked as it masks them. The handler
//! runs with the mounted server's shared values and the caller's request:
//! its progress, log messages and questions go straight to the caller's
//! client (a 2026-07-28 caller's questions as input-required results, the
//! handler run again with the answers, as this server's own tools are),
//! and the caller's cancellation stops it. The caller's token does not
//! cross (this server enforced the mounted server's scopes).

use std::sync::Arc;

use mcp_core::{CallToolResult, ProtocolVersion};
use serde_json::Value;

use super::link::Link;
use crate::request::RequestParts;
use crate::server::Shared;
use crate::tools::call::{arguments, checked_output, timed_out};

/// Whether the call of `child`'s tool `name` for `parts` may go on: a
/// call of `child`'s `call_tool` (its tool search) names another of its
/// tools, which must be one this mount serves and the caller's token may
/// use, as a call of it by name would be (the mounted `call_tool` itself
/// has neither the filter nor the scopes of what it calls). Its resources
/// and prompts offered as tools read all of them, so a mount that serves
/// only some does not call them.
pub(crate) fn routed(link: &Link, child: &Shared, name: &str, parts: &RequestParts) -> Result<(), String> {
    if !link.filter.keeps_all() && child.transforms.as_tools.iter().any(|tool| tool.name() == name) {
        return Err(format!(
            "`{name}` of the mounted server `{}` reads all its resources and prompts, and this mount serves only \
             some: offer them as tools on this server instead",
            link.label
        ));
    }
    if child.transforms.search.is_none() {
        return Ok(());
    }
    let (mut target, mut sent) = (name.to_owned(), Some(Value::Object(parts.arguments.clone())));
    if child.transforms.route(&mut target, &mut sent).is_err() || target == name {
        // Not routed: what the mounted server says of it stands.
        return Ok(());
    }
    let Some(entry) = child.tools.current().get(&target).cloned() else { return Ok(()) };
    if !link.filter.keeps(&[&target], entry.definition.tool.meta.as_ref()) {
        return Err(format!("unknown tool: {target}"));
    }
    if let Some(claims) = &parts.claims {
        let missing = claims.missing(&entry.definition.scopes);
        if !missing.is_empty() {
            let named: Vec<String> = missing.iter().map(|s| format!("`{s}`")).collect();
            return Err(format!("insufficient scope: tool `{target}` needs {}", named.join(" and ")));
        }
    }
    Ok(())
}

/// Call `child`'s tool `name` (its own name there; the `version` the call
/// names, if any) for `parts`, the request this server admitted for its
/// mounted copy, within the mount's timeouts.
pub(crate) async fn call_tool(
    link: &Link,
    child: &Arc<Shared>,
    name: &str,
    version: Option<&str>,
    mut parts: RequestParts,
) -> CallToolResult {
    // As its own server finds it: a `call_tool` of its tool search is a
    // call of the tool it names.
    let (mut name, mut sent) = (name.to_owned(), Some(Value::Object(std::mem::take(&mut parts.arguments))));
    if let Err(error) = child.transforms.route(&mut name, &mut sent) {
        return CallToolResult::error_text(format!("the mounted server `{}` refused: {}", link.label, error.message));
    }
    let name = name.as_str();
    let tools = child.tools.current();
    let Some(entry) = tools.get(name).cloned() else {
        return CallToolResult::error_text(format!("the mounted server `{}` has no tool `{name}` now", link.label));
    };
    let entry = match version.filter(|v| entry.version.as_deref() != Some(v) && tools.versioned(name)) {
        None => entry,
        Some(version) => match tools.version(name, version, None) {
            Ok(entry) => entry.clone(),
            Err(versions) => {
                let why = crate::component::versions::unknown("tool", name, version, &versions);
                return CallToolResult::error_text(format!("the mounted server `{}` refused: {why}", link.label));
            }
        },
    };
    drop(tools);
    let show_details = child.show_internal_errors;
    parts.arguments = match arguments(&entry, sent, child.lenient_arguments, show_details) {
        Ok(arguments) => arguments,
        Err(result) => return *result,
    };
    let over = |limiter: Option<&crate::tools::limit::Limiter>| limiter.and_then(|l| l.check(parts.session_key).err());
    if let Some(why) = over(entry.limiter.as_ref()) {
        return CallToolResult::error_text(format!("tool `{name}` {why}"));
    }
    if let Some(why) = over(child.limiter.as_ref()) {
        return CallToolResult::error_text(format!("the mounted server `{}` {why}", link.label));
    }
    parts.state = child.state.clone();
    // The caller's token stays with this server, which enforced the
    // mounted server's scopes: as over its connection, none crosses.
    parts.claims = None;
    parts.target = name.to_owned();
    let running = parts.task.clone();
    let run = entry.handler.call(parts);
    let run = async {
        Ok::<_, mcp_runtime_client::Error>(match entry.definition.timeout {
            Some(limit) => tokio::time::timeout(limit, run).await.unwrap_or_else(|_| timed_out(name, limit)),
            None => run.await,
        })
    };
    let result = match link.bounded_for(running.as_deref(), run).await {
        Ok(result) => checked_output(&entry, result, show_details),
        Err(error) => return CallToolResult::error_text(link.describe(&error)),
    };
    // As its server would have sent it in the version this server read its
    // lists in, whose output schemas this server lists.
    let version = (*link.listed.lock().unwrap_or_else(|e| e.into_inner())).unwrap_or(ProtocolVersion::LATEST);
    result.for_version_of_schema(version, entry.wraps_output)
}
