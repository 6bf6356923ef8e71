//! The tools capability's methods: `tools/list` (pages of definitions
//! serialized once per version) and `tools/call`, the [`Invocable`] whose
//! own checks are its arguments, whose limits are its `rate_limit` and the
//! server's, which may become a task, and whose failures are error results
//! (panics and internal errors masked).

use mcp_core::{CallToolParams, CallToolResult, Content, ErrorObject, JsonObject, methods};
use serde_json::Value;

use std::sync::Arc;

use tracing::Span;

use super::BoxFuture;
use super::arguments::problems_result;
use super::catalog::{Entry, Tools};
use super::limit::Limiter;
use crate::admission::{self, Checked, Invocable, To};
use crate::client::rounds::Retry;
use crate::dispatch::reply::Answer;
use crate::dispatch::table::Capability;
use crate::dispatch::{Action, Incoming, span};
use crate::invoke::{self, Outcome, Steps};
use crate::middleware::{Kind, Reply};
use crate::request::RequestParts;
use crate::tasks::running::Running;
use crate::tasks::{Asked, Flavour, Plan, TaskSupport};
use mcp_core::task::TaskMetadata;

pub(crate) fn list(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    crate::component::list::list(request, params, &request.shared().tools, "tools")
}

/// What `tools/call`'s params hold, moved out of them in one pass (a
/// removal by key would hash its key, several times on every call).
/// Members the method does not know are ignored, as a parse would.
struct Members {
    params: CallToolParams,
    /// Taken out before the rest is read: they are the tool's business,
    /// and a mistake in them is a tool result for the model.
    arguments: Option<Value>,
    /// 2025-11-25's request for a task; no other version has it.
    task: Option<Value>,
}

fn members(params: JsonObject) -> Result<(Members, Retry), ErrorObject> {
    let (mut name, mut meta, mut arguments, mut task, mut retry) = (None, None, None, None, Retry::default());
    for (key, value) in params {
        match key.as_str() {
            "name" => name = Some(value),
            "_meta" => meta = Some(value),
            "arguments" => arguments = Some(value),
            "task" => task = Some(value),
            other => {
                retry.take_member(other, value);
            }
        }
    }
    let name = match name {
        Some(Value::String(name)) => name,
        Some(other) => {
            let kind = mcp_core::jsonrpc::kind_of(&other);
            return Err(ErrorObject::invalid_params(format!("`name` must be the tool's name as a string, not {kind}")));
        }
        None => return Err(ErrorObject::invalid_params("`name` is missing: the name of the tool to call")),
    };
    let meta = match meta {
        None | Some(Value::Null) => None,
        Some(Value::Object(meta)) => Some(meta),
        Some(other) => {
            let kind = mcp_core::jsonrpc::kind_of(&other);
            return Err(ErrorObject::invalid_params(format!("`_meta` must be an object, not {kind}")));
        }
    };
    Ok((Members { params: CallToolParams { name, arguments: None, meta }, arguments, task }, retry))
}

pub(crate) fn call(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    // A resource or prompt method offered as a tool is that method's call.
    if !request.shared().transforms.as_tools.is_empty()
        && let Some(method) = crate::catalog::as_tools::called(request, params.as_ref())
    {
        return crate::catalog::as_tools::answer(request, method, params.unwrap_or_default());
    }
    admission::admit::<Call>(request, params)
}

/// One `tools/call`, admitted.
struct Call {
    name: String,
    /// As sent until checked, then as the handler reads them.
    sent: Option<Value>,
    arguments: JsonObject,
    meta: Option<JsonObject>,
    /// 2025-11-25's request for a task.
    asked_task: Option<Value>,
    entry: Arc<Entry>,
    /// The task it may become, once planned.
    running: Option<Arc<Running>>,
    show_details: bool,
    lenient_arguments: bool,
}

impl Invocable for Call {
    const KIND: Kind = Kind::Tool;
    const SERVER_LIMITED: bool = true;
    type Params = Members;
    type Output = CallToolResult;
    type Future = BoxFuture<'static, CallToolResult>;

    fn parse(params: JsonObject) -> Result<(Members, Retry), ErrorObject> {
        members(params)
    }

    fn name(params: &Members) -> &str {
        &params.params.name
    }

    fn span(span: &Span, name: &str) {
        span::tool(span, name);
    }

    fn find(request: &Incoming<'_>, params: Members) -> Result<Call, ErrorObject> {
        let Members { params: CallToolParams { mut name, meta, .. }, mut arguments, task } = params;
        let shared = request.shared();
        shared.transforms.route(&mut name, &mut arguments)?;
        let tools = shared.tools.current();
        let view = request.view();
        // A tool for views is unknown to a client that renders none.
        let entry = tools
            .find(&name, view.as_deref())
            .filter(|e| !e.app_only || crate::apps::declared(&request.peer))
            .ok_or_else(|| {
                let visible = |e: &Entry| {
                    <Tools as crate::component::Kind>::visible(e, request) && tools.on_for(e, view.as_deref())
                };
                tools.unknown("tool", &name, visible)
            })?;
        let entry = match crate::component::versions::named(meta.as_ref()).filter(|_| tools.versioned(&name)) {
            Some(version) => called_version(request, &tools, &name, entry, version?)?,
            None => entry,
        }
        .clone();
        Ok(Call {
            name,
            sent: arguments,
            arguments: JsonObject::new(),
            meta,
            asked_task: task,
            entry,
            running: None,
            show_details: shared.show_internal_errors,
            lenient_arguments: shared.lenient_arguments,
        })
    }

    fn repeatable(&self) -> bool {
        let annotations = self.entry.definition.tool.annotations.as_ref();
        annotations.is_some_and(|a| a.read_only_hint == Some(true) || a.idempotent_hint == Some(true))
    }

    fn scopes(&self) -> (&[String], &'static str, &str) {
        (&self.entry.definition.scopes, "tool", &self.name)
    }

    fn check(&mut self, request: &Incoming<'_>, retry: Retry) -> Result<Checked, ErrorObject> {
        // First, as the transport's own checks come before the request's:
        // the arguments its framing mirrors (HTTP's `Mcp-Param-*`) agree
        // with the body, which only the tool found here can say.
        if let Some(mirrored) = request.mirrored
            && let Some(error) = mirrored.mismatch(&self.entry.param_headers, self.sent.as_ref())
        {
            return Err(error);
        }
        let definition = &self.entry.definition;
        // A first round of a call that nothing can make ask the client (no
        // layer, no injected parameter) has no rounds to keep: most calls.
        let rounds = match definition.reaches_client || request.shared().middleware.is_some() || !retry.is_empty() {
            true => {
                let none = JsonObject::new();
                let sent = self.sent.as_ref().and_then(Value::as_object).unwrap_or(&none);
                retry.begin(request, methods::TOOLS_CALL, &self.name, sent)?
            }
            false => None,
        };
        let refused = |result| Ok(Checked::Now(Reply::Tool(result)));
        self.arguments = if definition.forwarded {
            // A mounted server's tool: its own server checks the arguments.
            match self.sent.take() {
                None | Some(Value::Null) => JsonObject::new(),
                Some(Value::Object(arguments)) => arguments,
                Some(_) => return refused(problems_result(&["`arguments` must be a JSON object".to_owned()])),
            }
        } else {
            match arguments(&self.entry, self.sent.take(), self.lenient_arguments, self.show_details) {
                Ok(arguments) => arguments,
                Err(result) => return refused(*result),
            }
        };
        Ok(Checked::Run(rounds))
    }

    fn limiter(&self) -> Option<&Limiter> {
        self.entry.limiter.as_ref()
    }

    fn take(&mut self) -> (String, JsonObject, Option<JsonObject>) {
        (self.name.clone(), std::mem::take(&mut self.arguments), self.meta.take())
    }

    fn steps(&mut self, request: &Incoming<'_>, parts: &RequestParts) -> Result<Steps, ErrorObject> {
        let (version, wraps_output) = (request.version, self.entry.wraps_output);
        let shape = move |result: CallToolResult| result.for_version_of_schema(version, wraps_output);
        let task = task_plan(request, &self.entry, self.asked_task.take(), parts, shape)?;
        self.running = task.as_ref().map(|plan| plan.running.clone());
        Ok(Steps { rounds: None, timeout: self.entry.definition.timeout, task })
    }

    fn start(&self, parts: RequestParts) -> BoxFuture<'static, CallToolResult> {
        self.entry.handler.call(parts)
    }

    fn settle(&self, outcome: Outcome<CallToolResult>) -> Result<Reply, ErrorObject> {
        let (entry, show_details) = (&self.entry, self.show_details);
        Ok(Reply::Tool(match outcome {
            Outcome::Done(result) if entry.definition.forwarded => result,
            Outcome::Done(result) => checked_output(entry, result, show_details),
            Outcome::Panicked(message) => {
                let result = crate::incident::report("tool panicked", &message, &message, show_details);
                // A task that panicked failed (a protocol-level error), where
                // a direct call answers with an error result.
                if let (Some(running), Some(Content::Text(text))) = (&self.running, result.content.first()) {
                    let _ = running.failure.set(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, text.text.clone()));
                }
                result
            }
            Outcome::TimedOut(limit) => timed_out(&self.name, limit),
        }))
    }

    /// A tool's failure is a result the JSON-RPC answer does not show as
    /// one: the span says so.
    fn finish(&self, reply: Reply, to: &To, span: &Span) -> Option<Answer> {
        let Reply::Tool(result) = reply else { return None };
        if result.is_error() {
            span::tool_error(span);
        }
        Some(to.projection.answer(to.id.clone(), result.for_version_of_schema(to.version, self.entry.wraps_output)))
    }
}

/// The version `version` of the tool `name` (whose current entry, the one
/// the caller sees listed, is `current`): itself when it is that version,
/// else the other version, if the caller may reach it; an unknown one is
/// refused naming those it may. A mounted server's tool lists only its
/// current version, so a version unknown here is its server's to find.
fn called_version<'a>(
    request: &Incoming<'_>,
    tools: &'a crate::component::Snapshot<Tools>,
    name: &str,
    current: &'a Arc<Entry>,
    version: &str,
) -> Result<&'a Arc<Entry>, ErrorObject> {
    if current.version.as_deref() == Some(version) {
        return Ok(current);
    }
    let view = request.view();
    let reachable = |e: &Entry| !e.app_only || crate::apps::declared(&request.peer);
    match tools.version(name, version, view.as_deref()) {
        Ok(entry) if reachable(entry) => Ok(entry),
        Err(_) if current.definition.forwarded => Ok(current),
        Ok(_) => Err(ErrorObject::invalid_params(crate::component::versions::unknown("tool", name, version, &[]))),
        Err(versions) => {
            Err(ErrorObject::invalid_params(crate::component::versions::unknown("tool", name, version, &versions)))
        }
    }
}

/// The arguments `sent` to `entry`'s tool as its handler reads them, or
/// the error result that tells the model what is wrong with them (boxed:
/// the good case is the one to keep small).
pub(crate) fn arguments(
    entry: &Entry,
    sent: Option<Value>,
    lenient: bool,
    show_details: bool,
) -> Result<JsonObject, Box<CallToolResult>> {
    let check = entry.check().map_err(|reason| {
        Box::new(crate::incident::report(
            "a tool's input schema cannot be compiled",
            &reason,
            &entry.definition.rust_path,
            show_details,
        ))
    })?;
    check.prepare(sent, lenient).map_err(|problems| Box::new(problems_result(&problems)))
}

/// How this call may become a task. With the extension: when it must
/// wait, if the tool supports tasks. In 2025-11-25: when the client asked
/// (`asked`, its `params.task`), which it must for a tool that requires
/// tasks and may not for one without task support (`-32601` both, as
/// that version says). Otherwise not at all, and a tool that requires
/// tasks is refused with `-32021` naming the extension. `shape` makes the
/// result as a direct call would send it.
fn task_plan(
    request: &Incoming<'_>,
    entry: &Entry,
    asked: Option<serde_json::Value>,
    parts: &crate::request::RequestParts,
    shape: impl FnOnce(CallToolResult) -> CallToolResult + Send + 'static,
) -> Result<Option<Plan>, ErrorObject> {
    let support = entry.definition.task_support;
    let name = &entry.definition.tool.name;
    let flavour = Flavour::of(request);
    // A server without task tools does not declare 2025-11-25's tasks, and
    // must then ignore `params.task`.
    let asked = asked.filter(|_| flavour == Some(Flavour::Core) && request.shared().serves(Capability::Tasks));
    let asked = match asked.map(serde_json::from_value::<TaskMetadata>).transpose() {
        Ok(asked) => asked,
        Err(e) => return Err(ErrorObject::invalid_params(format!("`task` is not task metadata: {e}"))),
    };
    let asked = match (support, asked) {
        (TaskSupport::Never, None) => return Ok(None),
        (TaskSupport::Never, Some(_)) => {
            let message = format!("tool `{name}` does not run as a task (its taskSupport is forbidden)");
            return Err(ErrorObject::new(mcp_core::codes::METHOD_NOT_FOUND, message));
        }
        (TaskSupport::Required, None) if flavour == Some(Flavour::Core) => {
            let message = format!("tool `{name}` requires task augmentation: call it with `task` in its params");
            return Err(ErrorObject::new(mcp_core::codes::METHOD_NOT_FOUND, message));
        }
        (TaskSupport::Required, None) if flavour.is_none() => {
            return Err(mcp_core::envelope::missing_capability(mcp_core::task::required_capabilities()));
        }
        (_, None) if flavour != Some(Flavour::Extension) => return Ok(None),
        (_, asked) => asked.map(|metadata| Asked { ttl: metadata.ttl, owner: request.session.owner() }),
    };
    let result = move |reply| {
        let Reply::Tool(result) = reply else { return None };
        serde_json::to_value(shape(result)).ok()
    };
    let session = asked.as_ref().map(|_| request.session.outgoing.clone());
    Ok(Some(Plan {
        tasks: request.shared().tasks.clone(),
        running: Running::new(parts.cancellation.clone(), session),
        result: Box::new(result),
        asked,
        binding: crate::tasks::Binding::of(request),
    }))
}

/// The result as clients are sent it: structured content shaped to the
/// advertised output schema (`null`s of optional fields left out, and its
/// text mirror with it), unless it still breaks that schema: then an error
/// result (a client that validates would reject the result anyway),
/// logged as the server bug it is.
pub(crate) fn checked_output(entry: &Entry, mut result: CallToolResult, show_details: bool) -> CallToolResult {
    if result.is_error == Some(true) {
        return result;
    }
    let Some(structured) = result.structured_content.as_mut() else {
        return result;
    };
    if mcp_core::schema::contains_null(structured) {
        let before = structured.to_string();
        if entry.shape_output(structured) {
            let after = structured.to_string();
            for content in &mut result.content {
                if let Content::Text(text) = content
                    && text.text == before
                {
                    text.text.clone_from(&after);
                }
            }
        }
    }
    let Some(problem) = result.structured_content.as_ref().and_then(|s| entry.output_problem(s)) else {
        return result;
    };
    let name = &entry.definition.tool.name;
    let detail = format!("tool `{name}` returned structured content that does not match its outputSchema {problem}");
    crate::incident::report(
        "a tool's output broke its output schema",
        &detail,
        &entry.definition.rust_path,
        show_details,
    )
}

/// A call ran past its tool's timeout and was stopped.
pub(crate) fn timed_out(tool: &str, limit: std::time::Duration) -> CallToolResult {
    tracing::warn!(tool, timeout = ?limit, "tool call timed out and was stopped");
    CallToolResult::error_text(format!("tool `{tool}` timed out after {} and was stopped", invoke::seconds(limit)))
}
