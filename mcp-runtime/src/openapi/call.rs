//! An operation as a [`Tool`]: a call's arguments become an HTTP request
//! (path parameters percent-encoded, query parameters per `style` and
//! `explode`, headers, cookies, a JSON body), and the API's answer becomes
//! the result (JSON as structured content when the tool declares an
//! output schema, other text as text, images as images; an error status
//! as an error result the model can read). The answer is read up to a
//! bound; dropping the call (cancelled, timed out) drops the HTTP request.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::content::MediaContent;
use mcp_core::{CallToolResult, Content, JsonObject};
use serde_json::{Map, Value};

use super::auth::{Auth, PerRequest};
use super::operation::{Body, Location, Operation, Style};
use crate::request::RequestParts;
use crate::tools::{BoxFuture, Tool, ToolDefinition};

/// What every tool of one API shares.
pub(crate) struct Http {
    pub(crate) client: reqwest::Client,
    /// The base URL, without a trailing `/`.
    pub(crate) base: String,
    pub(crate) auth: Option<Auth>,
    pub(crate) per_request: Option<PerRequest>,
    pub(crate) timeout: Duration,
    pub(crate) max_response: usize,
}

/// How much of an error answer's body the model is shown.
const MAX_ERROR_TEXT: usize = 2_000;

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
        let auth = http.per_request.as_ref().and_then(|choose| choose(&request)).or_else(|| http.auth.clone());
        let arguments = std::mem::take(&mut request.arguments);
        let structured = self.definition.tool.output_schema.is_some();
        Box::pin(async move {
            let built = match build(&operation, &http, auth.as_ref(), arguments) {
                Ok(built) => built,
                Err(why) => return CallToolResult::error_text(why),
            };
            let response = match built.timeout(http.timeout).send().await {
                Ok(response) => response,
                Err(error) if error.is_timeout() => {
                    return CallToolResult::error_text(format!(
                        "the API did not answer within {:?}: {} {}",
                        http.timeout, operation.method, operation.path
                    ));
                }
                // reqwest's errors name the URL, which may carry a query key.
                Err(error) => {
                    return CallToolResult::error_text(format!(
                        "the API could not be reached: {}",
                        error.without_url()
                    ));
                }
            };
            answer(response, http.max_response, structured).await
        })
    }
}

/// The HTTP request for one call.
fn build(
    operation: &Operation,
    http: &Http,
    auth: Option<&Auth>,
    mut arguments: JsonObject,
) -> Result<reqwest::RequestBuilder, String> {
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
    let credential = auth.and_then(|auth| auth.apply(&mut url));
    let mut request =
        http.client.request(operation.method.clone(), url).header("accept", "application/json, */*;q=0.5");
    for (name, value) in headers.into_iter().chain(credential) {
        request = request.header(name, value);
    }
    if !cookies.is_empty() {
        request = request.header("cookie", cookies.join("; "));
    }
    let body = match &operation.body {
        None => None,
        Some(Body::Whole { argument }) => arguments.remove(argument),
        Some(Body::Spread { properties }) => {
            let mut object = Map::new();
            for (argument, property) in properties {
                if let Some(value) = arguments.remove(argument) {
                    object.insert(property.clone(), value);
                }
            }
            Some(Value::Object(object))
        }
    };
    if let Some(body) = body {
        let bytes = serde_json::to_vec(&body).map_err(|e| format!("the body is not JSON: {e}"))?;
        request = request.header("content-type", "application/json").body(bytes);
    }
    Ok(request)
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

/// The result for the API's answer.
async fn answer(mut response: reqwest::Response, max: usize, structured: bool) -> CallToolResult {
    let status = response.status();
    let media =
        response.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let mut body = Vec::new();
    let mut cut = false;
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > max {
                    body.extend_from_slice(&chunk[..max - body.len()]);
                    cut = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(error) => {
                return CallToolResult::error_text(format!("the API's answer broke off: {}", error.without_url()));
            }
        }
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body);
        let mut shown: String = text.trim().chars().take(MAX_ERROR_TEXT).collect();
        if shown.len() < text.trim().len() {
            shown.push_str(" …");
        }
        let reason = status.canonical_reason().unwrap_or("");
        let text = match shown.is_empty() {
            true => format!("the API answered {} {reason}", status.as_u16()),
            false => format!("the API answered {} {reason}: {shown}", status.as_u16()),
        };
        return CallToolResult::error_text(text);
    }
    if cut {
        return CallToolResult::error_text(format!(
            "the API's answer is larger than {max} bytes, the most this tool reads; ask for less (a filter, a page)"
        ));
    }
    if (super::operation::is_json(&media) || media.is_empty())
        && let Ok(value) = serde_json::from_slice::<Value>(&body)
    {
        let text = String::from_utf8_lossy(&body).into_owned();
        let mut result = CallToolResult::success(vec![Content::text(text)]);
        if structured && value.is_object() {
            result.structured_content = Some(value);
        }
        return result;
    }
    if media.starts_with("image/") {
        use base64::Engine;
        let mime_type = media.split(';').next().unwrap_or(&media).trim().to_owned();
        let data = base64::engine::general_purpose::STANDARD.encode(&body);
        return CallToolResult::success(vec![Content::Image(MediaContent {
            data,
            mime_type,
            annotations: None,
            meta: None,
        })]);
    }
    match String::from_utf8(body) {
        Ok(text) => CallToolResult::success(vec![Content::text(text)]),
        Err(error) => CallToolResult::success(vec![Content::text(format!(
            "the API answered with {} bytes of binary data ({})",
            error.as_bytes().len(),
            if media.is_empty() { "no content type" } else { media.as_str() }
        ))]),
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
