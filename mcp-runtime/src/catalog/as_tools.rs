//! Resources and prompts as tools, for clients that only call tools: each
//! tool is a protocol method (`resources/read`, `prompts/get`, a list)
//! under a tool's name, its arguments the method's params. A call is
//! answered by the method's own handler, so it gets what a request of that
//! method would (the caller's scopes and view, the component's middleware,
//! limits and questions to the client), and its answer becomes the tool's
//! result.

use std::sync::Arc;

use mcp_core::{CallToolResult, Content, ErrorObject, JsonObject, RequestId};
use serde_json::{Value, json};

use crate::component::Kind;
use crate::dispatch::reply::{Answer, Projection};
use crate::dispatch::{Action, Incoming, table};
use crate::request::RequestParts;
use crate::tools::catalog::{Entry, Tools};
use crate::tools::{BoxFuture, Tool, ToolBuilder, ToolDefinition};

/// One method offered as a tool.
pub(crate) struct MethodTool {
    name: &'static str,
    method: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: fn(&mut ToolBuilder),
}

fn cursor(builder: &mut ToolBuilder) {
    builder.argument::<String>("cursor", Some("Where the previous page ended (its `nextCursor`)."), false);
}

/// `list_resources`, `list_resource_templates` and `read_resource`.
pub(crate) const RESOURCES: &[MethodTool] = &[
    MethodTool {
        name: "list_resources",
        method: mcp_core::methods::RESOURCES_LIST,
        title: "List resources",
        description: "List the resources this server can read (one page; pass `nextCursor` back for the next).",
        arguments: cursor,
    },
    MethodTool {
        name: "list_resource_templates",
        method: mcp_core::methods::RESOURCES_TEMPLATES_LIST,
        title: "List resource templates",
        description: "List the URI templates of resources this server can read: fill one in and read it with \
                      `read_resource`.",
        arguments: cursor,
    },
    MethodTool {
        name: "read_resource",
        method: mcp_core::methods::RESOURCES_READ,
        title: "Read a resource",
        description: "Read one of this server's resources by its URI (from `list_resources`, or a template \
                      filled in).",
        arguments: |builder| {
            builder.argument::<String>("uri", Some("The resource's URI."), true);
        },
    },
];

/// `list_prompts` and `get_prompt`.
pub(crate) const PROMPTS: &[MethodTool] = &[
    MethodTool {
        name: "list_prompts",
        method: mcp_core::methods::PROMPTS_LIST,
        title: "List prompts",
        description: "List this server's prompts and their arguments (one page; pass `nextCursor` back for the \
                      next).",
        arguments: cursor,
    },
    MethodTool {
        name: "get_prompt",
        method: mcp_core::methods::PROMPTS_GET,
        title: "Get a prompt",
        description: "Get one of this server's prompts by name, filled in with its arguments.",
        arguments: |builder| {
            builder.argument::<String>("name", Some("The prompt's name."), true).argument::<std::collections::BTreeMap<
                String,
                String,
            >>(
                "arguments",
                Some("The prompt's arguments, by name."),
                false,
            );
        },
    },
];

/// A [`MethodTool`] in a server's tool catalog.
pub(crate) struct AsTool(pub(crate) &'static MethodTool);

impl AsTool {
    /// Its tool's name (a mount asks, to refuse it through a filter).
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn name(&self) -> &'static str {
        self.0.name
    }
}

impl Tool for AsTool {
    fn definition(&self) -> ToolDefinition {
        let spec = self.0;
        let mut builder = ToolBuilder::new(spec.name, module_path!(), spec.name);
        builder.description(Some(spec.description)).title(Some(spec.title)).read_only(true).open_world(false);
        (spec.arguments)(&mut builder);
        builder.build()
    }

    fn call(&self, _request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        // Calls are answered by the method before they get here; one that
        // gets here came another way (a mount calling it directly).
        let text = format!("`{}` is answered by this server's `{}` alone", self.0.name, self.0.method);
        Box::pin(async move { CallToolResult::error_text(text) })
    }
}

/// If `params` call one of these tools that the caller sees (by its name,
/// or through tool search's `call_tool`): which, and its catalog entry.
pub(crate) fn called(request: &Incoming<'_>, params: Option<&JsonObject>) -> Option<Called> {
    let shared = request.shared();
    let params = params?;
    let mut name = params.get("name")?.as_str()?;
    if let Some(search) = &shared.transforms.search
        && name == search.options.call_name
    {
        name = params.get("arguments")?.get("name")?.as_str()?;
    }
    let ours = shared.transforms.as_tools.iter().find(|tool| tool.0.name == name)?;
    // Still this server's tool (not removed, disabled, or replaced), and
    // one the caller may see.
    let tools = shared.tools.current();
    let entry = tools.find(name, request.view().as_deref())?;
    let ours_still = std::ptr::addr_eq(Arc::as_ptr(&entry.handler), Arc::as_ptr(ours));
    (ours_still && Tools::visible(entry, request)).then(|| (ours.0, entry.clone()))
}

/// One of these tools, called, and its catalog entry.
pub(crate) type Called = (&'static MethodTool, Arc<Entry>);

/// Answer a `tools/call` of a tool [`called`] found with its method's
/// handler, once the arguments passed the tool's own check.
pub(crate) fn answer(request: &Incoming<'_>, (tool, entry): Called, params: JsonObject) -> Result<Action, ErrorObject> {
    let Some(method) = table::find(tool.method) else {
        let text = format!("this server does not answer `{}`", tool.method);
        return Ok(request.reply(CallToolResult::error_text(text)));
    };
    // The call's own members (its `_meta`, a retry's answers) stay; its
    // name and arguments give way to the method's params.
    let (mut arguments, mut direct) = (None, true);
    let mut routed = JsonObject::new();
    for (key, value) in params {
        match key.as_str() {
            "name" => direct = value.as_str() == Some(tool.name),
            "task" => {}
            "arguments" => arguments = Some(value),
            _ => {
                routed.insert(key, value);
            }
        }
    }
    if !direct && let Some(Value::Object(through)) = &mut arguments {
        // `call_tool`'s arguments, naming this tool: its own are inside.
        arguments = through.remove("arguments");
    }
    let shared = request.shared();
    match crate::tools::call::arguments(&entry, arguments, shared.lenient_arguments, shared.show_internal_errors) {
        Ok(checked) => routed.extend(checked),
        Err(problems) => return Ok(request.reply(*problems)),
    }
    let (id, projection, name) = (request.id.clone(), request.projection.clone(), tool.method);
    let shape = move |answer: Answer| as_result(name, &projection, id, answer);
    Ok(match (method.handler)(request, Some(routed)) {
        Ok(Action::Reply(answer)) => Action::Reply(shape(answer)),
        Ok(Action::Call(id, run, cancel)) => Action::Call(id, Box::pin(async move { shape(run.await) }), cancel),
        Ok(other) => other,
        Err(error) => Action::Reply(shape(Answer::error(Some(request.id.clone()), error))),
    })
}

/// The method's answer as a tool's: its result as structured content (and
/// text), a read's contents as content blocks, its error as the tool's.
/// A result that waits for the client's answers stays one (the client
/// answers and calls the tool again), and so does an error for missing
/// scopes.
fn as_result(method: &str, projection: &Projection, id: RequestId, answer: Answer) -> Answer {
    let result = match answer.outcome() {
        // Missing scopes stay the protocol's error, which the HTTP
        // transport turns into a challenge to ask for them.
        Err(error) if error.code == crate::request::claims::INSUFFICIENT_SCOPE => return answer,
        Err(error) => CallToolResult::error_text(error.message.clone()),
        Ok(raw) => {
            let Ok(mut result) = serde_json::from_str::<JsonObject>(raw.get()) else {
                return Answer::error(Some(id), ErrorObject::internal_error());
            };
            if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
                return answer;
            }
            // The projection stamps the tool's result as it stamped this.
            for stamped in ["resultType", "ttlMs", "cacheScope", "_meta"] {
                result.remove(stamped);
            }
            if method == mcp_core::methods::RESOURCES_READ {
                read_result(result)
            } else {
                let text = serde_json::to_string(&result).unwrap_or_default();
                CallToolResult {
                    structured_content: Some(Value::Object(result)),
                    ..CallToolResult::success(vec![Content::text(text)])
                }
            }
        }
    };
    projection.answer(id, result)
}

/// A read's contents as content blocks: text as text (what every client
/// shows its model), anything else as an embedded resource.
fn read_result(mut result: JsonObject) -> CallToolResult {
    let contents = match result.remove("contents") {
        Some(Value::Array(contents)) => contents,
        _ => Vec::new(),
    };
    let blocks = contents
        .into_iter()
        .filter_map(|item| match item.get("text").and_then(Value::as_str) {
            Some(text) => Some(Content::text(text)),
            None => serde_json::from_value(json!({ "type": "resource", "resource": item })).ok(),
        })
        .collect();
    CallToolResult::success(blocks)
}
