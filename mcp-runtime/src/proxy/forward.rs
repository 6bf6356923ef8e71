//! A mounted server's components as this server's: tools, resources,
//! templates and prompts whose definitions are the upstream's (renamed),
//! and whose handlers forward to it, with completions forwarded too.

use std::sync::{Arc, Weak};

use mcp_core::{
    CallToolResult, CompleteResult, GetPromptResult, JsonObject, ReadResourceResult, ResourceContents, codes, methods,
};
use mcp_runtime_client::Error as ClientError;
use serde_json::{Value, json};

use super::ScopeOf;
use super::link::Link;
use crate::completion::{Completing, Completions, completer};
use crate::prompts::{Prompt, PromptDefinition, PromptError, Rendered};
use crate::request::{Needs, RequestParts};
use crate::resources::template::UriTemplate;
use crate::resources::{Contents, Resource, ResourceDefinition, ResourceError, Variable};
use crate::tasks::TaskSupport;
use crate::tools::{BoxFuture, Tool, ToolDefinition};

/// Where definitions of mounted components say they come from.
fn origin(link: &Link, name: &str) -> String {
    format!("mounted `{}`: {name}", link.label)
}

/// The link, or the error for a component that outlived its server.
fn upgrade(link: &Weak<Link>) -> Result<Arc<Link>, String> {
    link.upgrade().ok_or_else(|| "the mounted server is gone".to_owned())
}

/// A mounted server's tool.
pub(crate) struct ProxiedTool {
    link: Weak<Link>,
    upstream: String,
    definition: ToolDefinition,
}

impl ProxiedTool {
    pub(crate) fn new(link: &Arc<Link>, name: String, mut tool: mcp_core::Tool) -> ProxiedTool {
        // Its support as the upstream has it, and as this server lists it
        // (see the `tasks` module for how such calls run).
        let task_support = link.task_support(&tool);
        let upstream = std::mem::replace(&mut tool.name, name);
        tool.execution = match task_support {
            TaskSupport::Never => None,
            TaskSupport::Optional => Some(JsonObject::from_iter([("taskSupport".into(), json!("optional"))])),
            TaskSupport::Required => Some(JsonObject::from_iter([("taskSupport".into(), json!("required"))])),
        };
        link.names.view_of(&mut tool);
        let definition = ToolDefinition {
            rust_path: origin(link, &upstream),
            tool,
            timeout: None,
            rate_limit: None,
            needs: Needs::default(),
            profile: None,
            unknown_header_arguments: Vec::new(),
            blank_version: false,
            scopes: link.scopes(ScopeOf::Tool, &upstream),
            checked_input: None,
            forwarded: true,
            task_support,
            // Its upstream may ask, through this server.
            reaches_client: true,
        };
        ProxiedTool { link: Arc::downgrade(link), upstream, definition }
    }
}

impl Tool for ProxiedTool {
    fn definition(&self) -> ToolDefinition {
        self.definition.clone()
    }

    fn call(&self, request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let (link, name) = (self.link.clone(), self.upstream.clone());
        // The version a call names goes on to its server, which lists only
        // its current one here (a tool without versions ignores it).
        let version = self
            .definition
            .version()
            .and_then(|_| crate::component::versions::named(request.meta())?.ok().map(str::to_owned));
        Box::pin(async move {
            let link = match upgrade(&link) {
                Ok(link) => link,
                Err(why) => return CallToolResult::error_text(why),
            };
            if let Some((child, direct)) = &link.child {
                if let Err(why) = super::direct::routed(&link, child, &name, &request) {
                    return CallToolResult::error_text(why);
                }
                if *direct {
                    return super::direct::call_tool(&link, child, &name, version.as_deref(), request).await;
                }
            }
            let mut request = request;
            let arguments = std::mem::take(&mut request.arguments);
            // Read from the upstream's text straight into a tool result:
            // its `resultType` is not a member of one, and its `_meta` loses
            // the upstream era's members (this server's era puts its own).
            match link.call_tool(request, &name, arguments, version.as_deref()).await {
                Ok(raw) => match serde_json::from_str::<CallToolResult>(raw.get()) {
                    Ok(mut result) => {
                        if let Some(meta) = &mut result.meta {
                            super::link::own_meta(meta);
                            if meta.is_empty() {
                                result.meta = None;
                            }
                        }
                        result
                    }
                    Err(error) => CallToolResult::error_text(format!(
                        "the mounted server `{}` answered with something that is not a tool result: {error}",
                        link.label
                    )),
                },
                Err(error) => CallToolResult::error_text(link.describe(&error)),
            }
        })
    }
}

/// A mounted server's resource or resource template.
pub(crate) struct ProxiedResource {
    link: Weak<Link>,
    /// The upstream's URI; `None` for a template, whose reads carry it.
    upstream: Option<String>,
    definition: ResourceDefinition,
}

impl ProxiedResource {
    pub(crate) fn fixed(link: &Arc<Link>, mut resource: mcp_core::Resource) -> ProxiedResource {
        let upstream = std::mem::take(&mut resource.uri);
        resource.uri = link.names.uri(&upstream);
        let scopes = link.scopes(ScopeOf::Resource, &upstream);
        let definition = definition(link, resource, Vec::new(), scopes);
        ProxiedResource { link: Arc::downgrade(link), upstream: Some(upstream), definition }
    }

    pub(crate) fn template(link: &Arc<Link>, template: mcp_core::ResourceTemplate) -> ProxiedResource {
        let upstream = template.uri_template.clone();
        let variables = match UriTemplate::parse(&upstream) {
            Ok(parsed) => {
                let query = parsed.query_variables();
                let variables = parsed.variables();
                variables
                    .into_iter()
                    .map(|name| Variable {
                        name: name.to_owned(),
                        optional: query.contains(&name),
                        completions: completions(link, json!({ "type": "ref/resource", "uri": upstream }), name),
                    })
                    .collect()
            }
            // The catalog refuses it, with the reason, when it is built.
            Err(_) => Vec::new(),
        };
        let resource = mcp_core::Resource {
            uri: link.names.uri(&template.uri_template),
            name: template.name,
            title: template.title,
            description: template.description,
            mime_type: template.mime_type,
            size: None,
            annotations: template.annotations,
            icons: template.icons,
            meta: template.meta,
        };
        let scopes = link.scopes(ScopeOf::Template, &upstream);
        let definition = definition(link, resource, variables, scopes);
        ProxiedResource { link: Arc::downgrade(link), upstream: None, definition }
    }
}

fn definition(
    link: &Link,
    resource: mcp_core::Resource,
    variables: Vec<Variable>,
    scopes: Vec<String>,
) -> ResourceDefinition {
    ResourceDefinition {
        rust_path: origin(link, &resource.uri),
        resource,
        timeout: None,
        needs: Needs::default(),
        variables,
        problems: Vec::new(),
        scopes,
    }
}

impl Resource for ProxiedResource {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(&self, request: RequestParts) -> BoxFuture<'static, Contents> {
        let (link, upstream) = (self.link.clone(), self.upstream.clone());
        Box::pin(async move {
            let link = upgrade(&link).map_err(ResourceError::new)?;
            let ours = request.target.clone();
            let uri = match upstream.or_else(|| link.names.upstream_uri(&ours)) {
                Some(uri) => uri,
                None => return Err(ResourceError::not_found(format!("no resource at {ours}"))),
            };
            let mut params = JsonObject::new();
            params.insert("uri".into(), json!(uri));
            let result =
                link.forward(request, methods::RESOURCES_READ, params).await.map_err(|error| match &error {
                    ClientError::Server(e) if e.code == codes::RESOURCE_NOT_FOUND => {
                        ResourceError::not_found(&e.message)
                    }
                    _ => ResourceError::new(link.describe(&error)),
                })?;
            let read: ReadResourceResult = serde_json::from_value(result).map_err(|error| {
                ResourceError::new(format!("the mounted server `{}` answered with no contents: {error}", link.label))
            })?;
            // Contents name the URI the client read, as this server lists it.
            Ok(read
                .contents
                .into_iter()
                .map(|mut contents| {
                    let uri = match &mut contents {
                        ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
                    };
                    *uri = link.names.uri(uri);
                    contents
                })
                .collect())
        })
    }
}

/// A mounted server's prompt.
pub(crate) struct ProxiedPrompt {
    link: Weak<Link>,
    upstream: String,
    definition: PromptDefinition,
}

impl ProxiedPrompt {
    pub(crate) fn new(link: &Arc<Link>, name: String, mut prompt: mcp_core::Prompt) -> ProxiedPrompt {
        let upstream = std::mem::replace(&mut prompt.name, name);
        let reference = json!({ "type": "ref/prompt", "name": upstream });
        let completions = prompt
            .arguments
            .iter()
            .flatten()
            .map(|argument| (argument.name.clone(), completions(link, reference.clone(), &argument.name)))
            .collect();
        let definition = PromptDefinition {
            rust_path: origin(link, &upstream),
            prompt,
            needs: Needs::default(),
            completions,
            problems: Vec::new(),
            scopes: link.scopes(ScopeOf::Prompt, &upstream),
            timeout: None,
        };
        ProxiedPrompt { link: Arc::downgrade(link), upstream, definition }
    }
}

impl Prompt for ProxiedPrompt {
    fn definition(&self) -> PromptDefinition {
        self.definition.clone()
    }

    fn get(&self, request: RequestParts) -> BoxFuture<'static, Rendered> {
        let (link, name) = (self.link.clone(), self.upstream.clone());
        Box::pin(async move {
            let link = upgrade(&link).map_err(PromptError::server)?;
            let mut params = JsonObject::new();
            params.insert("name".into(), json!(name));
            params.insert("arguments".into(), Value::Object(request.arguments.clone()));
            let result = link.forward(request, methods::PROMPTS_GET, params).await.map_err(|error| match &error {
                ClientError::Server(e) if e.code == codes::INVALID_PARAMS => PromptError::arguments(e.message.clone()),
                _ => PromptError::server(link.describe(&error)),
            })?;
            serde_json::from_value::<GetPromptResult>(result).map_err(|error| {
                PromptError::server(format!("the mounted server `{}` answered with no prompt: {error}", link.label))
            })
        })
    }
}

/// An argument's completions: asked of the upstream (`reference` names
/// its prompt or template), when it offers completions.
fn completions(link: &Arc<Link>, reference: Value, argument: &str) -> Completions {
    if !link.completes.load(std::sync::atomic::Ordering::Relaxed) {
        return Completions::None;
    }
    let (link, argument) = (Arc::downgrade(link), argument.to_owned());
    Completions::With(completer(move |completing: Completing| {
        let (link, reference, argument) = (link.clone(), reference.clone(), argument.clone());
        async move {
            let Some(link) = link.upgrade() else { return Vec::new() };
            let mut params = JsonObject::new();
            params.insert("ref".into(), reference);
            params.insert("argument".into(), json!({ "name": argument, "value": completing.value() }));
            if !completing.arguments().is_empty() {
                params.insert("context".into(), json!({ "arguments": completing.arguments() }));
            }
            match link.request(methods::COMPLETION_COMPLETE, params).await.map(serde_json::from_value) {
                Ok(Ok(CompleteResult { completion, .. })) => completion.values,
                _ => Vec::new(),
            }
        }
    }))
}
