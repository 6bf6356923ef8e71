//! Serving a document: the plan (what each operation becomes under the
//! route maps, and why) and [`Server::openapi`], which registers its tools,
//! resources and resource templates.

use std::sync::Arc;

use super::backend::Backend;
use super::call::{Http, OpenApiTool};
use super::operation::Operation;
use super::resource::{self, OpenApiResource};
use super::routes::{self, MapTo};
use super::{Mapped, OpenApi, OpenApiError};
use crate::Server;
use crate::tools::ToolBuilder;

/// Each operation's mapping, with the operation when it is served.
pub(crate) fn plan(api: &OpenApi) -> Result<Vec<(Mapped, Option<Operation>)>, OpenApiError> {
    let rules = routes::Rules::new(&api.routes)?;
    let (operations, skipped) = &*api.operations;
    let mut names = routes::Names::default();
    let mut templates: Vec<(crate::resources::template::UriTemplate, String)> = Vec::new();
    let mut plan = Vec::new();
    for operation in operations.iter().cloned() {
        let (mut to, rule) = rules.decide(&operation);
        let mut reason = match rule {
            Some(i) => format!("route map rule {i}"),
            None => "no rule matched: a tool by default".to_owned(),
        };
        let mut uri = None;
        if to == MapTo::Resource {
            match resource::uri(&operation, &api.uri_prefix).and_then(|found| resource::distinct(found, &mut templates))
            {
                Ok((found, template)) => {
                    uri = Some(found);
                    if template {
                        to = MapTo::ResourceTemplate;
                    }
                }
                Err(why) => {
                    to = MapTo::Tool;
                    reason = format!("{reason} asks for a resource, but {why}: a tool");
                }
            }
        }
        let name = (to != MapTo::Exclude).then(|| names.name(&operation));
        let mapped = Mapped {
            method: operation.method.to_string(),
            path: operation.path.clone(),
            to,
            tool: name.clone().filter(|_| to == MapTo::Tool),
            name,
            uri,
            reason,
            left_out: false,
        };
        plan.push((mapped, (to != MapTo::Exclude).then_some(operation)));
    }
    for error in skipped {
        let (method, path) = error.operation();
        let mapped = Mapped {
            method,
            path,
            to: MapTo::Exclude,
            tool: None,
            name: None,
            uri: None,
            reason: error.to_string(),
            left_out: true,
        };
        plan.push((mapped, None));
    }
    Ok(plan)
}

impl Server {
    /// Serve `api`'s operations, each as the route maps decide (see
    /// [`openapi`](crate::openapi)): a tool, a resource, a resource
    /// template or nothing. Fails when the route maps are invalid or no
    /// base URL is known; operations that cannot be served (a multipart
    /// body) are left out with a warning naming them, and
    /// [`OpenApi::mapping`] lists them with why.
    pub fn openapi(mut self, api: &OpenApi) -> Result<Self, OpenApiError> {
        let backend = match &api.router {
            #[cfg(feature = "http")]
            Some(router) => Backend::Router(router.clone()),
            #[cfg(not(feature = "http"))]
            Some(never) => match *never {},
            None => Backend::Client(api.client.clone().unwrap_or_default()),
        };
        let http = Arc::new(Http {
            backend,
            base: api.base()?,
            auth: api.auth.clone(),
            per_request: api.per_request.clone(),
            timeout: api.timeout,
            max_response: api.max_response,
        });
        for (mapped, operation) in plan(api)? {
            if mapped.left_out {
                tracing::warn!(method = %mapped.method, path = %mapped.path, reason = %mapped.reason, "operation left out");
            }
            let (Some(name), Some(operation)) = (&mapped.name, operation) else { continue };
            if let Some(uri) = &mapped.uri {
                self = self.resource(OpenApiResource::new(name, uri, operation, http.clone()));
                continue;
            }
            let mut builder = ToolBuilder::new(name, "openapi", &format!("{} {}", operation.method, operation.path));
            builder.description(operation.description.as_deref()).input_schema(operation.input_schema.clone());
            if operation.read_only {
                builder.read_only(true);
            }
            builder.open_world(true);
            let mut definition = builder.build();
            definition.tool.output_schema = operation.output_schema.clone();
            self = self.tool(OpenApiTool { definition, operation: Arc::new(operation), http: http.clone() });
        }
        Ok(self)
    }

    /// A server named after the document's `info` serving `api` (see
    /// [`openapi`](Self::openapi)).
    pub fn from_openapi(api: &OpenApi) -> Result<Server, OpenApiError> {
        let (title, version) = api.info();
        Server::empty(title, version).openapi(api)
    }
}
