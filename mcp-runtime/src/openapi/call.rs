//! An operation's call as an HTTP request: the arguments become path
//! parameters (percent-encoded), query parameters (per `style` and
//! `explode`), headers, cookies and a JSON or form body; and the operation
//! as a [`Tool`] that sends it. Dropping the call (cancelled, timed out)
//! drops the HTTP request.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::{CallToolResult, JsonObject};
use serde_json::{Map, Value};

use super::auth::{Auth, PerRequest};
use super::backend::{Backend, Failure};
use super::operation::{Body, Location, Operation, Style};
use crate::request::RequestParts;
use crate::tools::{BoxFuture, Tool, ToolDefinition};

/// What every tool and resource of one API shares.
pub(crate) struct Http {
    pub(crate) backend: Backend,
    /// The base URL, without a trailing `/`.
    pub(crate) base: String,
    pub(crate) auth: Option<Auth>,
    pub(crate) per_request: Option<PerRequest>,
    pub(crate) timeout: Duration,
    pub(crate) max_response: usize,
}

/// One operation of the API, served as a tool.
pub(crate) struct OpenApiTool {
    pub(crate) definition: ToolDefinition,
    pub(crate) operation: Arc<Operation>,
    pub(crate) http: Arc<Http>,
}

impl Tool for OpenApiTool {
    fn definition(&self) -> ToolDefinition {
        self.definition.clone()
    }

    fn call(&self, mut request: RequestParts) -> BoxFuture<'static, CallToolResult> {
        let (operation, http) = (self.operation.clone(), self.http.clone());
        let auth = http.credential(&request);
        let arguments = std::mem::take(&mut request.arguments);
        let structured = self.definition.tool.output_schema.is_some();
        Box::pin(async move {
            match http.send(&operation, auth.as_ref(), arguments).await {
                Ok(answer) => super::result::tool_result(answer, http.max_response, structured),
                Err(why) => CallToolResult::error_text(why),
            }
        })
    }
}

impl Http {
    /// The credential for a request: the per-request choice, else the
    /// fixed one.
    pub(crate) fn credential(&self, request: &RequestParts) -> Option<Auth> {
        self.per_request.as_ref().and_then(|choose| choose(request)).or_else(|| self.auth.clone())
    }

    /// Call `operation` with `arguments`; `Err` says why no answer came.
    pub(crate) async fn send(
        &self,
        operation: &Operation,
        auth: Option<&Auth>,
        arguments: JsonObject,
    ) -> Result<super::backend::Answer, String> {
        let request = build(operation, self, auth, arguments)?;
        self.backend.send(request, self.timeout, self.max_response).await.map_err(|failure| match failure {
            Failure::Timeout => {
                format!("the API did not answer within {:?}: {} {}", self.timeout, operation.method, operation.path)
            }
            Failure::Broken(why) => why,
        })
    }
}

/// The HTTP request for one call.
fn build(
    operation: &Operation,
    http: &Http,
    auth: Option<&Auth>,
    mut arguments: JsonObject,
) -> Result<reqwest::Request, String> {
    let mut path = operation.path.clone();
    let mut query: Vec<(String, String)> = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut cookies: Vec<String> = Vec::new();
    for param in &operation.params {
        let value = match arguments.remove(&param.argument) {
            None | Some(Value::Null) if param.location == Location::Path => {
                return Err(format!("the argument `{}` is required", param.argument));
            }
            None | Some(Value::Null) => continue,
            Some(value) => value,
        };
        match param.location {
            Location::Path => {
                let text = simple(&value, param.explode);
                path = path.replace(&format!("{{{}}}", param.name), &encode_segment(&text));
            }
            Location::Query => query_pairs(&param.name, &value, param.style, param.explode, &mut query),
            Location::Header => headers.push((param.name.clone(), simple(&value, param.explode))),
            Location::Cookie => cookies.push(format!("{}={}", param.name, simple(&value, false))),
        }
    }
    let mut url = reqwest::Url::parse(&format!("{}{path}", http.base))
        .map_err(|e| format!("the request URL for {} {} is not valid: {e}", operation.method, operation.path))?;
    if !query.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for (name, value) in &query {
            pairs.append_pair(name, value);
        }
    }
    let credential = auth.map(|auth| auth.apply(&mut url)).unwrap_or_default();
    let mut request = reqwest::Request::new(operation.method.clone(), url);
    add(&mut request, "accept", "application/json, */*;q=0.5")?;
    for (name, value) in &headers {
        add(&mut request, name, value)?;
    }
    for (name, value) in &credential.headers {
        add(&mut request, name, value)?;
    }
    cookies.extend(credential.cookies);
    if !cookies.is_empty() {
        add(&mut request, "cookie", &cookies.join("; "))?;
    }
    if let Some(Body::Raw { argument, media_type, binary }) = &operation.body {
        if let Some(value) = arguments.remove(argument) {
            let Value::String(text) = value else { return Err(format!("`{argument}` must be a string")) };
            let bytes = match binary {
                true => base64::Engine::decode(&base64::engine::general_purpose::STANDARD, text.trim())
                    .map_err(|e| format!("`{argument}` must be base64 ({e})"))?,
                false => text.into_bytes(),
            };
            add(&mut request, "content-type", media_type)?;
            *request.body_mut() = Some(reqwest::Body::from(bytes));
        }
        return Ok(request);
    }
    let (body, form) = match &operation.body {
        None | Some(Body::Raw { .. }) => (None, false),
        Some(Body::Whole { argument }) => (arguments.remove(argument), false),
        Some(Body::Spread { properties, form }) => {
            let mut object = Map::new();
            for (argument, property) in properties {
                if let Some(value) = arguments.remove(argument) {
                    object.insert(property.clone(), value);
                }
            }
            (Some(Value::Object(object)), *form)
        }
    };
    if let Some(body) = body {
        let (media, bytes) = match form {
            true => ("application/x-www-form-urlencoded", form_body(&body).into_bytes()),
            false => ("application/json", serde_json::to_vec(&body).map_err(|e| format!("the body is not JSON: {e}"))?),
        };
        add(&mut request, "content-type", media)?;
        *request.body_mut() = Some(reqwest::Body::from(bytes));
    }
    Ok(request)
}

/// Add a header, or say why it cannot be one.
fn add(request: &mut reqwest::Request, name: &str, value: &str) -> Result<(), String> {
    let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("`{name}` is not a valid header name"))?;
    let value = reqwest::header::HeaderValue::from_str(value)
        .map_err(|_| format!("the value for the header `{name}` is not valid in a header"))?;
    request.headers_mut().append(name, value);
    Ok(())
}

/// An object as `application/x-www-form-urlencoded`: arrays as one pair
/// per item, objects as JSON text.
fn form_body(body: &Value) -> String {
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (name, value) in body.as_object().into_iter().flatten() {
        match value {
            Value::Array(items) => {
                for item in items {
                    form.append_pair(name, &scalar(item));
                }
            }
            Value::Null => {}
            other => {
                form.append_pair(name, &scalar(other));
            }
        }
    }
    form.finish()
}

/// A value as OpenAPI's `simple` style writes it (path, header).
fn simple(value: &Value, explode: bool) -> String {
    match value {
        Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(","),
        Value::Object(map) => {
            let pairs = map
                .iter()
                .map(|(k, v)| if explode { format!("{k}={}", scalar(v)) } else { format!("{k},{}", scalar(v)) });
            pairs.collect::<Vec<_>>().join(",")
        }
        other => scalar(other),
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A query parameter's pairs, per its style and explode.
fn query_pairs(name: &str, value: &Value, style: Style, explode: bool, out: &mut Vec<(String, String)>) {
    match value {
        Value::Array(items) => {
            let delimiter = match style {
                Style::SpaceDelimited => " ",
                Style::PipeDelimited => "|",
                _ => ",",
            };
            if explode {
                out.extend(items.iter().map(|item| (name.to_owned(), scalar(item))));
            } else {
                out.push((name.to_owned(), items.iter().map(scalar).collect::<Vec<_>>().join(delimiter)));
            }
        }
        Value::Object(map) => match style {
            Style::DeepObject => out.extend(map.iter().map(|(k, v)| (format!("{name}[{k}]"), scalar(v)))),
            _ if explode => out.extend(map.iter().map(|(k, v)| (k.clone(), scalar(v)))),
            _ => out.push((name.to_owned(), simple(value, false))),
        },
        other => out.push((name.to_owned(), scalar(other))),
    }
}

/// `text` as one path segment: every byte but RFC 3986's unreserved ones
/// percent-encoded, so a value cannot add segments (`a/../b`) or a query.
fn encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    // `.` and `..` alone would still move up the path.
    match out.as_str() {
        "." => "%2E".to_owned(),
        ".." => "%2E%2E".to_owned(),
        _ => out,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn path_values_stay_one_segment() {
        assert_eq!(encode_segment("a/../b c?d#e"), "a%2F..%2Fb%20c%3Fd%23e");
        assert_eq!(encode_segment(".."), "%2E%2E");
        assert_eq!(encode_segment("héllo"), "h%C3%A9llo");
    }

    #[test]
    fn query_styles() {
        let mut out = Vec::new();
        query_pairs("t", &json!(["a", "b"]), Style::Form, true, &mut out);
        query_pairs("u", &json!(["a", "b"]), Style::Form, false, &mut out);
        query_pairs("p", &json!([1, 2]), Style::PipeDelimited, false, &mut out);
        query_pairs("f", &json!({"x": 1}), Style::DeepObject, true, &mut out);
        let pairs: Vec<(&str, &str)> = out.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(pairs, [("t", "a"), ("t", "b"), ("u", "a,b"), ("p", "1|2"), ("f[x]", "1")]);
    }
}
