//! GET operations as resources and resource templates: which can be one
//! (and its URI), and the [`Resource`] that reads it with a GET.

use std::sync::Arc;

use serde_json::Value;

use super::call::Http;
use super::operation::{Location, Operation};
use crate::request::RequestParts;
use crate::resources::template::UriTemplate;
use crate::resources::{Contents, Resource, ResourceDefinition};
use crate::tools::BoxFuture;

/// The URI (template) `operation` is served at under `prefix`
/// (`api://pets/{petId}{?fields}`), and whether it is a template; `Err`
/// says why it cannot be a resource.
pub(crate) fn uri(operation: &Operation, prefix: &str) -> Result<(String, bool), String> {
    if operation.method != reqwest::Method::GET {
        return Err(format!("only a GET can be a resource, and this is a {}", operation.method));
    }
    if operation.body.is_some() {
        return Err("it takes a request body".to_owned());
    }
    let required: Vec<&str> = operation
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut query = Vec::new();
    for param in &operation.params {
        if param.argument != param.name || !param.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "the parameter `{}` cannot be a URI template variable (letters, digits and `_`)",
                param.name
            ));
        }
        match param.location {
            Location::Path => {}
            Location::Query if !required.contains(&param.argument.as_str()) => query.push(param.name.as_str()),
            Location::Query => return Err(format!("the query parameter `{}` is required", param.name)),
            Location::Header | Location::Cookie => {
                return Err(format!("the parameter `{}` goes in a header or cookie", param.name));
            }
        }
    }
    let mut uri = format!("{prefix}{}", operation.path.trim_start_matches('/'));
    if !query.is_empty() {
        uri.push_str(&format!("{{?{}}}", query.join(",")));
    }
    let template = !operation.params.is_empty();
    Ok((uri, template))
}

/// `found` when it is a fixed URI, or a template that no template already
/// served can match a URI of; it joins them. This is the server's own
/// check (two templates that overlap make a read ambiguous, and it refuses
/// both); a fixed URI beside a template is fine, since a read tries fixed
/// URIs first (`GET /pets/count` beside `GET /pets/{petId}`).
pub(crate) fn distinct(
    found: (String, bool),
    served: &mut Vec<(UriTemplate, String)>,
) -> Result<(String, bool), String> {
    if !found.1 {
        return Ok(found);
    }
    let template =
        UriTemplate::parse(&found.0).map_err(|why| format!("its URI `{}` is not a URI template: {why}", found.0))?;
    if let Some((_, other)) = served.iter().find(|(t, _)| t.overlaps(&template)) {
        return Err(format!("its URI `{}` can match the same URIs as `{other}`, served already", found.0));
    }
    served.push((template, found.0.clone()));
    Ok(found)
}

/// One GET operation of the API, served as a resource or a template.
pub(crate) struct OpenApiResource {
    pub(crate) definition: ResourceDefinition,
    pub(crate) operation: Arc<Operation>,
    pub(crate) http: Arc<Http>,
}

impl OpenApiResource {
    /// The resource for `operation` at `uri`, named `name`.
    pub(crate) fn new(name: &str, uri: &str, operation: Operation, http: Arc<Http>) -> OpenApiResource {
        let mut builder = crate::resources::ResourceBuilder::new(uri, "openapi", name);
        builder.name(name).description(operation.description.as_deref());
        if let Some(media) = &operation.answer_media {
            builder.mime_type(media);
        }
        for param in &operation.params {
            builder.variable::<String>(&param.name, param.location == Location::Query);
        }
        OpenApiResource { definition: builder.build(), operation: Arc::new(operation), http }
    }
}

impl Resource for OpenApiResource {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(&self, mut request: RequestParts) -> BoxFuture<'static, Contents> {
        let (operation, http) = (self.operation.clone(), self.http.clone());
        let auth = http.credential(&request);
        let arguments = std::mem::take(&mut request.arguments);
        let uri = request.target().to_owned();
        Box::pin(async move {
            match http.send(&operation, auth.as_ref(), arguments).await {
                Ok(answer) => super::result::resource_contents(answer, &uri, http.max_response),
                Err(why) => Err(crate::resources::ResourceError::new(why)),
            }
        })
    }
}
