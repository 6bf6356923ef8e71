//! Tool arguments mirrored in HTTP headers (2026-07-28, SEP-2243).
//!
//! A property of a tool's input schema marked `"x-mcp-header": "Region"` is
//! sent by a 2026-07-28 client over Streamable HTTP both in the body and as
//! the header `Mcp-Param-Region`, so that proxies can route on it without
//! reading the body; the server checks that the two agree. The key is
//! allowed only on a property reached from the root through `properties`
//! alone, of type `string`, `integer` or `boolean` (never `number`), and its
//! value is an HTTP field-name token, unique in the schema regardless of
//! case. Older versions do not know the key, so it is left out of what
//! they are sent ([`strip_param_headers`]).

use serde_json::{Map, Value};

use crate::jsonrpc::JsonObject;

/// The input-schema keyword that mirrors a property in a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// What the keyword's value is prefixed with to name the header.
pub const PARAM_HEADER_PREFIX: &str = "Mcp-Param-";

/// The JSON type of a header-mirrored argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `"type": "string"`: the header carries the text.
    String,
    /// `"type": "integer"`: the header carries the decimal number.
    Integer,
    /// `"type": "boolean"`: the header carries `true` or `false`.
    Boolean,
}

/// One argument a client mirrors in a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    /// The `properties` keys from the schema's root to the argument (one
    /// key for a top-level argument).
    pub path: Vec<String>,
    /// The keyword's value: the header is `Mcp-Param-<name>`.
    pub name: String,
    /// The argument's type.
    pub kind: ParamKind,
}

impl ParamHeader {
    /// The header's full name, `Mcp-Param-<name>`.
    pub fn header_name(&self) -> String {
        format!("{PARAM_HEADER_PREFIX}{}", self.name)
    }

    /// The argument's value in `arguments`, if it is there and not `null`.
    pub fn value_in<'a>(&self, arguments: Option<&'a Value>) -> Option<&'a Value> {
        let mut node = arguments?;
        for key in &self.path {
            node = node.as_object()?.get(key)?;
        }
        (!node.is_null()).then_some(node)
    }
}

/// Every `x-mcp-header` of an input schema, or why one of them is not
/// allowed (its place, its type, its name, or a second header of the same
/// name).
pub fn param_headers(schema: &JsonObject) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    let mut problem = None;
    visit(schema, Some(&mut Vec::new()), &mut |path, position| {
        let Some(header) = position.get(X_MCP_HEADER) else { return };
        if problem.is_some() {
            return;
        }
        if let Err(why) = check(path, position, header, &found) {
            problem = Some(why);
        } else if let (Some(path), Some(name), Some(kind)) = (path, header.as_str(), kind_of(position)) {
            found.push(ParamHeader { path: path.to_vec(), name: name.to_owned(), kind });
        }
    });
    match problem {
        Some(problem) => Err(problem),
        None => Ok(found),
    }
}

fn check(path: Option<&[String]>, position: &JsonObject, header: &Value, found: &[ParamHeader]) -> Result<(), String> {
    let path = match path {
        Some(path) if !path.is_empty() => path,
        _ => {
            return Err(format!(
                "`{X_MCP_HEADER}` may only mark a property reached from the root through `properties`"
            ));
        }
    };
    let at = path.join(".");
    let Some(name) = header.as_str() else {
        return Err(format!("property `{at}`: `{X_MCP_HEADER}` must be a string, such as \"Region\""));
    };
    if !is_token(name) {
        return Err(format!(
            "property `{at}`: `{X_MCP_HEADER}` {name:?} is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"
        ));
    }
    if kind_of(position).is_none() {
        return Err(format!(
            "property `{at}`: `{X_MCP_HEADER}` is only allowed on a property of type string, integer or boolean \
             (not number, and not a union), found {}",
            position.get("type").map_or_else(|| "no type".to_owned(), Value::to_string)
        ));
    }
    if let Some(other) = found.iter().find(|h| h.name.eq_ignore_ascii_case(name)) {
        return Err(format!(
            "property `{at}`: `{X_MCP_HEADER}` {name:?} is also the header of `{}` (header names ignore case)",
            other.path.join(".")
        ));
    }
    Ok(())
}

fn kind_of(position: &JsonObject) -> Option<ParamKind> {
    match position.get("type")?.as_str()? {
        "string" => Some(ParamKind::String),
        "integer" => Some(ParamKind::Integer),
        "boolean" => Some(ParamKind::Boolean),
        _ => None,
    }
}

/// RFC 9110 §5.6.2: the characters of a field name.
fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Keywords whose value is one subschema.
const SUBSCHEMA: &[&str] = &[
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// Keywords whose value is a list of subschemas.
const SUBSCHEMA_LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas (besides `properties`).
const SUBSCHEMA_MAP: &[&str] = &["patternProperties", "dependentSchemas", "$defs", "definitions"];

/// Call `f` on every schema position, with its `properties` path from the
/// root while there is one (`None` once another keyword was crossed). Data
/// keywords (`const`, `default`, …) are never entered, nor `$ref`s.
fn visit(schema: &JsonObject, path: Option<&mut Vec<String>>, f: &mut dyn FnMut(Option<&[String]>, &JsonObject)) {
    let mut path = path;
    f(path.as_deref().map(Vec::as_slice), schema);
    for (key, value) in schema {
        let key = key.as_str();
        if key == "properties" {
            let Value::Object(properties) = value else { continue };
            for (name, sub) in properties {
                let Value::Object(sub) = sub else { continue };
                match path.as_deref_mut() {
                    Some(path) => {
                        path.push(name.clone());
                        visit(sub, Some(path), f);
                        path.pop();
                    }
                    None => visit(sub, None, f),
                }
            }
        } else if SUBSCHEMA.contains(&key) {
            if let Value::Object(sub) = value {
                visit(sub, None, f);
            }
        } else if SUBSCHEMA_LIST.contains(&key) {
            if let Value::Array(subs) = value {
                subs.iter().filter_map(Value::as_object).for_each(|sub| visit(sub, None, f));
            }
        } else if SUBSCHEMA_MAP.contains(&key)
            && let Value::Object(subs) = value
        {
            subs.values().filter_map(Value::as_object).for_each(|sub| visit(sub, None, f));
        }
    }
}

/// Remove every `x-mcp-header` along the `properties` paths (the only
/// places [`param_headers`] allows it), for versions that do not know it.
pub fn strip_param_headers(schema: &mut JsonObject) {
    schema.remove(X_MCP_HEADER);
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.values_mut().filter_map(Value::as_object_mut).for_each(strip_param_headers);
    }
}

/// Whether an input schema marks any property with `x-mcp-header`.
pub fn has_param_headers(schema: &Map<String, Value>) -> bool {
    schema.contains_key(X_MCP_HEADER)
        || schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().filter_map(Value::as_object).any(has_param_headers))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn headers(schema: Value) -> Result<Vec<ParamHeader>, String> {
        param_headers(schema.as_object().unwrap())
    }

    #[test]
    fn marked_properties_are_found_along_properties_paths() {
        let found = headers(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "retries": {"type": "integer", "x-mcp-header": "Retries"},
            "where": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}},
            "plain": {"type": "string"}
        }}))
        .unwrap();
        let found: Vec<(String, &str, ParamKind)> =
            found.iter().map(|h| (h.path.join("."), h.name.as_str(), h.kind)).collect();
        assert_eq!(
            found,
            [
                ("region".to_owned(), "Region", ParamKind::String),
                ("retries".to_owned(), "Retries", ParamKind::Integer),
                ("where.dry".to_owned(), "Dry-Run", ParamKind::Boolean)
            ]
        );
    }

    #[test]
    fn misplaced_mistyped_misnamed_and_repeated_headers_are_refused() {
        let refused = [
            (json!({"x-mcp-header": "Root", "properties": {}}), "reached from the root"),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "reached from the root",
            ),
            (json!({"$defs": {"a": {"type": "string", "x-mcp-header": "A"}}}), "reached from the root"),
            (json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}), "string, integer or boolean"),
            (
                json!({"properties": {"a": {"type": ["string", "null"], "x-mcp-header": "A"}}}),
                "string, integer or boolean",
            ),
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": "Two Words"}}}), "not an HTTP header name"),
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}), "not an HTTP header name"),
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": 1}}}), "must be a string"),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "Region"},
                    "b": {"type": "string", "x-mcp-header": "REGION"}}}),
                "also the header of `a`",
            ),
        ];
        for (schema, why) in refused {
            let error = headers(schema.clone()).expect_err(&schema.to_string());
            assert!(error.contains(why), "{schema}: {error}");
        }
        // Data is not a schema: a `const` or `default` may hold the keyword.
        assert_eq!(headers(json!({"properties": {"a": {"const": {"x-mcp-header": 1}}}})), Ok(vec![]));
    }

    #[test]
    fn values_are_read_at_their_path_and_null_is_absent() {
        let header = ParamHeader { path: vec!["a".into(), "b".into()], name: "B".into(), kind: ParamKind::String };
        assert_eq!(header.value_in(Some(&json!({"a": {"b": "x"}}))), Some(&json!("x")));
        assert_eq!(header.value_in(Some(&json!({"a": {"b": null}}))), None);
        assert_eq!(header.value_in(Some(&json!({"a": "b"}))), None);
        assert_eq!(header.value_in(None), None);
        assert_eq!(header.header_name(), "Mcp-Param-B");
    }

    #[test]
    fn stripping_removes_every_marker() {
        let mut schema = json!({"properties": {"a": {"type": "string", "x-mcp-header": "A"},
            "o": {"properties": {"b": {"type": "string", "x-mcp-header": "B"}}}}});
        let schema = schema.as_object_mut().unwrap();
        assert!(has_param_headers(schema));
        strip_param_headers(schema);
        assert!(!has_param_headers(schema));
        assert_eq!(
            Value::Object(schema.clone()),
            json!({"properties": {"a": {"type": "string"},
            "o": {"properties": {"b": {"type": "string"}}}}})
        );
    }
}
