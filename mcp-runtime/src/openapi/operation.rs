//! One operation of the document as a tool sees it: its parameters by
//! where they go (path, query, header, cookie, body) under the argument
//! names the tool takes, its merged input schema and its output schema.
//!
//! Argument names: path parameters keep theirs, then query, header and
//! cookie parameters, then the body's properties; a name already taken
//! gets its location as a suffix (`id` in the path and in the body: `id`
//! and `id_body`). Names are made of letters, digits, `_`, `-` and `.`
//! (what every model API takes), at most 64 characters.

use mcp_core::JsonObject;
use reqwest::Method;
use serde_json::{Value, json};

use super::OpenApiError;
use super::document::Document;

/// Where a parameter goes in the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Location {
    Path,
    Query,
    Header,
    Cookie,
}

impl Location {
    fn parse(text: &str) -> Option<Location> {
        Some(match text {
            "path" => Location::Path,
            "query" => Location::Query,
            "header" => Location::Header,
            "cookie" => Location::Cookie,
            _ => return None,
        })
    }

    fn suffix(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
            Location::Cookie => "cookie",
        }
    }
}

/// How a query parameter's array or object is written (OpenAPI's `style`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Form,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
    Simple,
}

/// One parameter.
#[derive(Clone, Debug)]
pub(crate) struct Param {
    /// The API's name for it.
    pub(crate) name: String,
    /// The tool's argument.
    pub(crate) argument: String,
    pub(crate) location: Location,
    pub(crate) style: Style,
    pub(crate) explode: bool,
}

/// Where the request body comes from.
#[derive(Clone, Debug)]
pub(crate) enum Body {
    /// One argument is the whole body (an array, a plain value, a
    /// composed schema).
    Whole { argument: String },
    /// The body is an object whose properties are arguments:
    /// (argument, property); sent as JSON, or as a form when `form`.
    Spread { properties: Vec<(String, String)>, form: bool },
    /// One string argument is the body's bytes, sent as `media_type`:
    /// text as it is, anything else given in base64 (`binary`).
    Raw { argument: String, media_type: String, binary: bool },
}

/// An operation, ready to be a tool.
#[derive(Clone, Debug)]
pub(crate) struct Operation {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) operation_id: Option<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) description: Option<String>,
    pub(crate) params: Vec<Param>,
    pub(crate) body: Option<Body>,
    pub(crate) input_schema: JsonObject,
    pub(crate) output_schema: Option<JsonObject>,
    /// The success response's first media type (a resource's MIME type).
    pub(crate) answer_media: Option<String>,
    pub(crate) read_only: bool,
}

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// A document's operations: those that can be served, and why the others
/// cannot.
pub(crate) type Read = (Vec<Operation>, Vec<OpenApiError>);

/// Every operation in the document, in its order, and those that cannot
/// be tools (each error names it and why).
pub(crate) fn operations(document: &Document) -> Result<Read, OpenApiError> {
    let (mut found, mut skipped) = (Vec::new(), Vec::new());
    let Some(paths) = document.root.get("paths").and_then(Value::as_object) else { return Ok((found, skipped)) };
    for (path, item) in paths {
        let item_at = format!("/paths/{}", escape(path));
        let (item, item_at) = document.deref(item, &item_at)?;
        let Some(item) = item.as_object() else {
            return Err(OpenApiError::at(&item_at, "a path item must be an object"));
        };
        for method in METHODS {
            let Some(operation) = item.get(method) else { continue };
            let at = format!("{item_at}/{method}");
            let shared = item.get("parameters").map(|p| (p, format!("{item_at}/parameters")));
            match operation_at(document, method, path, operation, &at, shared) {
                Ok(operation) => found.push(operation),
                Err(error) if error.is_unsupported() => skipped.push(error),
                Err(error) => return Err(error),
            }
        }
    }
    Ok((found, skipped))
}

fn operation_at(
    document: &Document,
    method: &str,
    path: &str,
    operation: &Value,
    at: &str,
    shared: Option<(&Value, String)>,
) -> Result<Operation, OpenApiError> {
    let Some(object) = operation.as_object() else {
        return Err(OpenApiError::at(at, "an operation must be an object"));
    };
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    let description = match (text("summary"), text("description")) {
        (Some(summary), Some(description)) if summary != description => Some(format!("{summary}\n\n{description}")),
        (Some(one), _) | (None, Some(one)) => Some(one.to_owned()),
        (None, None) => None,
    };
    let mut raw = Vec::new();
    for (list, list_at) in shared.into_iter().chain(object.get("parameters").map(|p| (p, format!("{at}/parameters")))) {
        let Some(list) = list.as_array() else {
            return Err(OpenApiError::at(&list_at, "must be an array of parameters"));
        };
        for (i, param) in list.iter().enumerate() {
            let (param, param_at) = document.deref(param, &format!("{list_at}/{i}"))?;
            let parsed = parameter(param, &param_at)?;
            // An operation's parameter replaces the path item's of the same name and place.
            raw.retain(|(p, _, _): &(RawParam, _, _)| !(p.name == parsed.name && p.location == parsed.location));
            raw.push((parsed, param, param_at));
        }
    }
    raw.sort_by_key(|(p, _, _)| p.location as u8);
    let mut properties = JsonObject::new();
    let mut required = Vec::new();
    let mut params = Vec::new();
    for (param, source, param_at) in raw {
        let argument = unique_argument(&properties, &param.name, param.location.suffix());
        let mut schema = match source.get("schema") {
            Some(schema) => document.schema(schema, &format!("{param_at}/schema"))?,
            None => match source.get("content").and_then(Value::as_object).and_then(|c| c.values().next()) {
                Some(media) => match media.get("schema") {
                    Some(schema) => document.schema(schema, &format!("{param_at}/content"))?,
                    None => json!({"type": "string"}),
                },
                None => json!({"type": "string"}),
            },
        };
        if let (Some(text), Value::Object(schema)) = (source.get("description").and_then(Value::as_str), &mut schema) {
            schema.entry("description").or_insert_with(|| text.trim().into());
        }
        if param.required {
            required.push(Value::from(argument.clone()));
        }
        properties.insert(argument.clone(), schema);
        params.push(Param {
            name: param.name,
            argument,
            location: param.location,
            style: param.style,
            explode: param.explode,
        });
    }
    let body = match object.get("requestBody") {
        Some(body) => {
            let (body, body_at) = document.deref(body, &format!("{at}/requestBody"))?;
            request_body(document, body, &body_at, &mut properties, &mut required)?
        }
        None => None,
    };
    let mut input_schema = JsonObject::new();
    input_schema.insert("type".into(), "object".into());
    input_schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        input_schema.insert("required".into(), Value::Array(required));
    }
    let (output_schema, answer_media) = match object.get("responses") {
        Some(responses) => success_schema(document, responses, &format!("{at}/responses"))?,
        None => (None, None),
    };
    Ok(Operation {
        method: Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap_or(Method::GET),
        path: path.to_owned(),
        operation_id: text("operationId").map(str::to_owned),
        tags: object
            .get("tags")
            .and_then(Value::as_array)
            .map(|tags| tags.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        description,
        params,
        body,
        input_schema,
        output_schema,
        answer_media,
        read_only: matches!(method, "get" | "head" | "options"),
    })
}

struct RawParam {
    name: String,
    location: Location,
    required: bool,
    style: Style,
    explode: bool,
}

fn parameter(param: &Value, at: &str) -> Result<RawParam, OpenApiError> {
    let name = param
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| OpenApiError::at(at, "a parameter needs a name"))?;
    let location = param
        .get("in")
        .and_then(Value::as_str)
        .and_then(Location::parse)
        .ok_or_else(|| OpenApiError::at(at, "a parameter's `in` must be path, query, header or cookie"))?;
    let style = match param.get("style").and_then(Value::as_str) {
        None if matches!(location, Location::Query | Location::Cookie) => Style::Form,
        None => Style::Simple,
        Some("form") => Style::Form,
        Some("spaceDelimited") => Style::SpaceDelimited,
        Some("pipeDelimited") => Style::PipeDelimited,
        Some("deepObject") => Style::DeepObject,
        Some("simple") => Style::Simple,
        Some(other) => {
            return Err(OpenApiError::at(&format!("{at}/style"), format!("style `{other}` is not supported")));
        }
    };
    Ok(RawParam {
        name: name.to_owned(),
        location,
        // Path parameters are always required, whatever the document says.
        required: location == Location::Path || param.get("required").and_then(Value::as_bool).unwrap_or(false),
        style,
        explode: param.get("explode").and_then(Value::as_bool).unwrap_or(style == Style::Form),
    })
}

/// The body's JSON schema as arguments: its properties when it is a
/// plain object, else one `body` argument.
fn request_body(
    document: &Document,
    body: &Value,
    at: &str,
    properties: &mut JsonObject,
    required: &mut Vec<Value>,
) -> Result<Option<Body>, OpenApiError> {
    let Some(content) = body.get("content").and_then(Value::as_object) else {
        return Err(OpenApiError::at(at, "a request body needs `content`"));
    };
    // JSON first; a form (`application/x-www-form-urlencoded`) when it is
    // all there is; else the bytes of the first media type a request can
    // name (multipart is not sent).
    let json = content.iter().find(|(media, _)| is_json(media));
    let form_body = content.iter().find(|(media, _)| is_form(media));
    let Some(((media_type, media), form)) = json.map(|m| (m, false)).or(form_body.map(|m| (m, true))) else {
        let raw = content.keys().find(|media| !media.trim().to_ascii_lowercase().starts_with("multipart/"));
        let Some(raw) = raw else {
            let types: Vec<&str> = content.keys().map(String::as_str).collect();
            return Err(OpenApiError::unsupported(
                at,
                format!("multipart bodies are not sent, and this one is {types:?}"),
            ));
        };
        return Ok(Some(raw_body(raw, body, properties, required)));
    };
    let schema_at = format!("{at}/content/{}/schema", escape(media_type));
    let body_required = body.get("required").and_then(Value::as_bool).unwrap_or(false);
    let schema = match media.get("schema") {
        Some(schema) => document.schema(schema, &schema_at)?,
        None => json!({}),
    };
    // `additionalProperties: false` was dropped with the unions: only
    // declared properties are arguments anyway.
    let spreadable = schema.get("properties").is_some_and(Value::is_object)
        && !["allOf", "anyOf", "oneOf", "additionalProperties"].iter().any(|k| schema.get(k).is_some());
    if !spreadable && form {
        return Err(OpenApiError::unsupported(at, "a form body needs an object schema with properties"));
    }
    if !spreadable {
        let argument = unique_argument(properties, "body", "body");
        properties.insert(argument.clone(), schema);
        if body_required {
            required.push(Value::from(argument.clone()));
        }
        return Ok(Some(Body::Whole { argument }));
    }
    let needed: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut spread = Vec::new();
    for (name, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        // The server sets read-only properties; a request does not send them.
        if property.get("readOnly") == Some(&Value::Bool(true)) {
            continue;
        }
        let argument = unique_argument(properties, name, "body");
        if body_required && needed.contains(&name.as_str()) {
            required.push(Value::from(argument.clone()));
        }
        properties.insert(argument.clone(), property.clone());
        spread.push((argument, name.clone()));
    }
    Ok(Some(Body::Spread { properties: spread, form }))
}

/// A body of bytes as one string argument: text for a text media type,
/// base64 for anything else (a wildcard such as `image/*` is sent as
/// `application/octet-stream`; `*/*` is read as JSON, as a response's is).
fn raw_body(media_type: &str, body: &Value, properties: &mut JsonObject, required: &mut Vec<Value>) -> Body {
    let essence = media_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let text = essence.starts_with("text/")
        || essence.ends_with("+xml")
        || essence.ends_with("/xml")
        || essence == "application/x-ndjson";
    let media_type = if media_type.contains('*') { "application/octet-stream" } else { media_type };
    let argument = unique_argument(properties, "body", "body");
    let mut schema = json!({ "type": "string" });
    let said = body.get("description").and_then(Value::as_str).map(|d| format!("{d} ")).unwrap_or_default();
    if text {
        schema["description"] = json!(format!("{said}(sent as `{media_type}`)"));
    } else {
        schema["contentEncoding"] = json!("base64");
        schema["description"] = json!(format!("{said}(the bytes in base64, sent as `{media_type}`)"));
    }
    properties.insert(argument.clone(), schema);
    if body.get("required").and_then(Value::as_bool).unwrap_or(false) {
        required.push(Value::from(argument.clone()));
    }
    Body::Raw { argument, media_type: media_type.to_owned(), binary: !text }
}

/// The first success response's JSON schema, when it describes an
/// object, and its first media type.
#[allow(clippy::type_complexity)]
fn success_schema(
    document: &Document,
    responses: &Value,
    at: &str,
) -> Result<(Option<JsonObject>, Option<String>), OpenApiError> {
    let Some(responses) = responses.as_object() else {
        return Err(OpenApiError::at(at, "`responses` must be an object"));
    };
    let mut codes: Vec<&String> = responses.keys().filter(|code| code.starts_with('2')).collect();
    codes.sort();
    let Some(code) = codes.first() else { return Ok((None, None)) };
    let (response, response_at) = document.deref(&responses[code.as_str()], &format!("{at}/{code}"))?;
    let Some(content) = response.get("content").and_then(Value::as_object) else { return Ok((None, None)) };
    let first = content.keys().next().filter(|media| !media.contains('*')).cloned();
    let Some((media, schema)) = content.iter().find(|(media, _)| is_json(media)) else { return Ok((None, first)) };
    let Some(schema) = schema.get("schema") else { return Ok((None, first)) };
    let schema = document.schema(schema, &format!("{response_at}/content/{}/schema", escape(media)))?;
    let is_object = schema.get("type").is_some_and(|t| t == "object") && schema.get("properties").is_some();
    let schema = match schema {
        Value::Object(mut schema) if is_object => {
            // The client sends write-only properties; an answer leaves them out.
            if let Some(Value::Object(properties)) = schema.get_mut("properties") {
                properties.retain(|_, p| p.get("writeOnly") != Some(&Value::Bool(true)));
            }
            Some(schema)
        }
        _ => None,
    };
    Ok((schema, first))
}

fn is_form(media: &str) -> bool {
    media.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/x-www-form-urlencoded")
}

pub(crate) fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json") || essence == "*/*"
}

/// `name` as an argument name not yet in `taken`: characters models take,
/// and `_{location}` (then a number) added while it clashes.
fn unique_argument(taken: &JsonObject, name: &str, location: &str) -> String {
    let mut base: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).collect();
    base.truncate(56);
    if base.is_empty() {
        base.push_str("arg");
    }
    if !taken.contains_key(&base) {
        return base;
    }
    let with_location = format!("{base}_{location}");
    if !taken.contains_key(&with_location) {
        return with_location;
    }
    (2..).map(|n| format!("{with_location}{n}")).find(|name| !taken.contains_key(name)).unwrap_or(base)
}

/// A JSON pointer segment for `key`.
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
