//! Reading an OpenAPI document: JSON or YAML text into one JSON value, its
//! version checked, and `$ref`s followed (local ones: the documents a
//! document refers to are placed inside it first, by `sources`) with
//! cycles and sizes bounded.

use serde_json::{Map, Value};

use super::OpenApiError;

/// How deep schemas nest through `$ref`s before the rest is left open (a
/// schema that refers to itself is left open where it recurs).
const MAX_REF_DEPTH: usize = 8;

/// How many schema nodes one inlined schema may have: a document whose
/// `$ref`s fan out would otherwise grow exponentially as it is inlined.
const MAX_NODES: usize = 20_000;

/// How many `$ref`s in a row a parameter, body or response may go through.
const MAX_REF_CHAIN: usize = 16;

/// Which OpenAPI the document is: 3.0 marks nulls with `nullable` and
/// bounds with boolean `exclusiveMinimum`; 3.1's schemas are JSON Schema
/// 2020-12.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    V30,
    V31,
}

/// A parsed document.
#[derive(Debug)]
pub(crate) struct Document {
    pub(crate) root: Value,
    pub(crate) version: Version,
}

impl Document {
    /// Parse `text`: JSON when it starts with `{`, YAML otherwise.
    pub(crate) fn parse(text: &str) -> Result<Document, OpenApiError> {
        Document::of(parse_text(text)?)
    }

    /// `root`, if it is an OpenAPI document this loader reads.
    pub(crate) fn of(root: Value) -> Result<Document, OpenApiError> {
        let Some(object) = root.as_object() else {
            return Err(OpenApiError::at("", "an OpenAPI document is a JSON object"));
        };
        let version = match object.get("openapi").and_then(Value::as_str) {
            Some(v) if v.starts_with("3.0") => Version::V30,
            Some(v) if v.starts_with("3.1") => Version::V31,
            Some(v) => {
                return Err(OpenApiError::at("/openapi", format!("OpenAPI {v} is not supported (3.0 and 3.1 are)")));
            }
            None if object.contains_key("swagger") => {
                return Err(OpenApiError::at("/swagger", "Swagger 2.0 is not supported: convert it to OpenAPI 3"));
            }
            None => return Err(OpenApiError::at("/openapi", "missing: the document names no OpenAPI version")),
        };
        match object.get("paths") {
            Some(Value::Object(_)) | None => {}
            Some(_) => return Err(OpenApiError::at("/paths", "must be an object of path items")),
        }
        Ok(Document { root, version })
    }

    /// The object a (possibly `$ref`) value at `pointer` stands for, and
    /// where it really is.
    pub(crate) fn deref<'a>(&'a self, value: &'a Value, pointer: &str) -> Result<(&'a Value, String), OpenApiError> {
        let (mut value, mut at) = (value, pointer.to_owned());
        for _ in 0..MAX_REF_CHAIN {
            let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
                return Ok((value, at));
            };
            let target = local_pointer(reference, &format!("{at}/$ref"))?;
            value = self.root.pointer(&target).ok_or_else(|| {
                OpenApiError::at(&format!("{at}/$ref"), format!("`{reference}` points at nothing in the document"))
            })?;
            at = target;
        }
        Err(OpenApiError::at(pointer, "too many `$ref`s in a row (a cycle?)"))
    }

    /// The schema at `pointer` as one JSON Schema with every `$ref`
    /// inlined, OpenAPI's own keywords turned into JSON Schema's, and
    /// unions clients refuse opened ([`super::unions`]).
    pub(crate) fn schema(&self, schema: &Value, pointer: &str) -> Result<Value, OpenApiError> {
        let mut inliner = Inliner { document: self, stack: Vec::new(), nodes: 0 };
        let mut schema = inliner.inline(schema, pointer)?;
        super::unions::open_unions(&mut schema);
        Ok(schema)
    }
}

/// JSON or YAML text as one JSON value: JSON when it starts with `{`.
pub(crate) fn parse_text(text: &str) -> Result<Value, OpenApiError> {
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| {
            OpenApiError::at("", format!("not valid JSON (line {}, column {}): {e}", e.line(), e.column()))
        })
    } else {
        serde_norway::from_str(text).map_err(|e| OpenApiError::at("", format!("not valid YAML or JSON: {e}")))
    }
}

/// The JSON pointer a local `$ref` names, percent-decoded; an error for a
/// remote one, which this loader does not fetch.
fn local_pointer(reference: &str, at: &str) -> Result<String, OpenApiError> {
    match reference.strip_prefix('#') {
        Some(fragment) => Ok(crate::schema_check::percent_decode(fragment)),
        None => Err(OpenApiError::at(
            at,
            format!(
                "`{reference}` is a reference to another document: `OpenApi::load` follows those (`from_str` and \
                 `from_file` read one document)"
            ),
        )),
    }
}

/// Keywords that mean something to OpenAPI tooling and nothing to a JSON
/// Schema validator or a model.
const OPENAPI_ONLY: &[&str] = &["discriminator", "xml", "externalDocs", "example"];

struct Inliner<'a> {
    document: &'a Document,
    /// The `$ref`s being expanded, outermost first.
    stack: Vec<String>,
    nodes: usize,
}

impl Inliner<'_> {
    fn inline(&mut self, value: &Value, at: &str) -> Result<Value, OpenApiError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Ok(open("the rest of this schema is too large to show"));
        }
        let map = match value {
            Value::Object(map) => map,
            Value::Bool(_) => return Ok(value.clone()),
            _ => return Err(OpenApiError::at(at, "a schema must be an object")),
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target = local_pointer(reference, &format!("{at}/$ref"))?;
            if self.stack.contains(&target) || self.stack.len() >= MAX_REF_DEPTH {
                let name = target.rsplit('/').next().unwrap_or(&target);
                return Ok(open(&format!("a {name} (recursive; any value of that shape)")));
            }
            let found = self.document.root.pointer(&target).ok_or_else(|| {
                OpenApiError::at(&format!("{at}/$ref"), format!("`{reference}` points at nothing in the document"))
            })?;
            self.stack.push(target.clone());
            let mut inlined = self.inline(found, &target);
            self.stack.pop();
            // 3.1 lets siblings of `$ref` refine it (a description, most often).
            if let Ok(Value::Object(inlined)) = &mut inlined {
                for (key, value) in map.iter().filter(|(k, _)| *k != "$ref") {
                    if !OPENAPI_ONLY.contains(&key.as_str()) && !key.starts_with("x-") {
                        inlined.insert(key.clone(), value.clone());
                    }
                }
            }
            return inlined;
        }
        let mut out = Map::new();
        for (key, value) in map {
            if OPENAPI_ONLY.contains(&key.as_str()) || key.starts_with("x-") {
                continue;
            }
            let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
            let value = match key.as_str() {
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => match value {
                    Value::Object(children) => {
                        let mut inlined = Map::new();
                        for (name, child) in children {
                            let child_at = format!("{here}/{}", name.replace('~', "~0").replace('/', "~1"));
                            inlined.insert(name.clone(), self.inline(child, &child_at)?);
                        }
                        Value::Object(inlined)
                    }
                    _ => return Err(OpenApiError::at(&here, "must be an object of schemas")),
                },
                "items"
                | "additionalProperties"
                | "not"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else"
                | "unevaluatedProperties"
                | "unevaluatedItems" => match value {
                    Value::Array(items) => Value::Array(self.all(items, &here)?),
                    other => self.inline(other, &here)?,
                },
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value {
                    Value::Array(items) => Value::Array(self.all(items, &here)?),
                    _ => return Err(OpenApiError::at(&here, "must be an array of schemas")),
                },
                _ => value.clone(),
            };
            out.insert(key.clone(), value);
        }
        if self.document.version == Version::V30 {
            from_30(&mut out);
        }
        merge_all_of(&mut out);
        Ok(Value::Object(out))
    }

    fn all(&mut self, items: &[Value], at: &str) -> Result<Vec<Value>, OpenApiError> {
        items.iter().enumerate().map(|(i, item)| self.inline(item, &format!("{at}/{i}"))).collect()
    }
}

/// OpenAPI 3.0's schema dialect into JSON Schema: `nullable: true` is a
/// `null` type, and boolean `exclusiveMinimum`/`exclusiveMaximum` turn
/// their bound exclusive.
fn from_30(schema: &mut Map<String, Value>) {
    if schema.remove("nullable") == Some(Value::Bool(true))
        && let Some(Value::String(kind)) = schema.get("type").cloned()
    {
        schema.insert("type".into(), Value::Array(vec![kind.into(), "null".into()]));
    }
    for (flag, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        match schema.get(flag) {
            Some(Value::Bool(true)) => {
                if let Some(limit) = schema.remove(bound) {
                    schema.insert(flag.into(), limit);
                } else {
                    schema.remove(flag);
                }
            }
            Some(Value::Bool(false)) => {
                schema.remove(flag);
            }
            _ => {}
        }
    }
}

/// An `allOf` of plain object schemas (OpenAPI's way to extend a type) as
/// one object, which clients and models read where many refuse `allOf`:
/// exact when no property is declared twice, so otherwise it stays.
fn merge_all_of(schema: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = schema.get("allOf") else { return };
    let plain = |branch: &Value| {
        branch.as_object().is_some_and(|b| {
            b.keys().all(|k| matches!(k.as_str(), "type" | "properties" | "required" | "description" | "title"))
                && b.get("type").is_none_or(|t| t == "object")
        })
    };
    if !branches.iter().all(plain) || schema.get("type").is_some_and(|t| t != "object") {
        return;
    }
    let mut properties = match schema.get("properties") {
        Some(Value::Object(own)) => own.clone(),
        _ => Map::new(),
    };
    let mut required: Vec<Value> = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    for branch in branches {
        for (name, property) in branch.get("properties").and_then(Value::as_object).into_iter().flatten() {
            if properties.insert(name.clone(), property.clone()).is_some() {
                return;
            }
        }
        for name in branch.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
    }
    if schema.get("description").is_none()
        && let Some(description) = branches.iter().find_map(|b| b.get("description")).cloned()
    {
        schema.insert("description".into(), description);
    }
    schema.remove("allOf");
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
}

/// A schema that takes any value, saying why it is left open.
fn open(why: &str) -> Value {
    let mut schema = Map::new();
    schema.insert("description".into(), why.into());
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn doc(value: Value) -> Document {
        Document::parse(&value.to_string()).unwrap()
    }

    #[test]
    fn cycles_are_bounded_and_refs_inlined() {
        let d = doc(json!({"openapi": "3.0.3", "paths": {}, "components": {"schemas": {
            "Node": {"type": "object", "nullable": true, "properties": {
                "child": {"$ref": "#/components/schemas/Node"}, "n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}
            }}
        }}}));
        let schema = d.schema(&json!({"$ref": "#/components/schemas/Node"}), "/x").unwrap();
        assert_eq!(schema["type"], json!(["object", "null"]));
        assert_eq!(schema["properties"]["n"], json!({"type": "integer", "exclusiveMinimum": 0}));
        assert!(schema["properties"]["child"]["description"].as_str().unwrap().contains("recursive"));
    }

    #[test]
    fn all_of_plain_objects_is_one_object() {
        let d = doc(json!({"openapi": "3.1.0", "paths": {}, "components": {"schemas": {
            "Base": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
        }}}));
        let extended = json!({"allOf": [{"$ref": "#/components/schemas/Base"},
            {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}]});
        let schema = d.schema(&extended, "/x").unwrap();
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {"name": {"type": "string"}, "id": {"type": "integer"}},
            "required": ["name", "id"]})
        );
        // A property declared twice keeps the `allOf`: merging would lose one constraint.
        let twice = json!({"allOf": [{"$ref": "#/components/schemas/Base"},
            {"properties": {"name": {"maxLength": 3}}}]});
        assert!(d.schema(&twice, "/x").unwrap().get("allOf").is_some());
    }

    #[test]
    fn bad_references_name_where_they_are() {
        let d = doc(json!({"openapi": "3.1.0", "paths": {}}));
        let error = d.schema(&json!({"$ref": "#/components/schemas/Missing"}), "/paths/~1a/get").unwrap_err();
        assert_eq!(error.pointer(), Some("/paths/~1a/get/$ref"));
        let error = d.schema(&json!({"$ref": "https://example.com/s.json"}), "/p").unwrap_err();
        assert!(
            error.to_string().contains("another document") && error.to_string().contains("OpenApi::load"),
            "{error}"
        );
    }

    #[test]
    fn versions_and_shapes_are_checked() {
        assert!(Document::parse("openapi: 3.1.0\npaths: {}\n").is_ok());
        let error = Document::parse(r#"{"swagger": "2.0"}"#).unwrap_err();
        assert_eq!(error.pointer(), Some("/swagger"));
        let error = Document::parse(r#"{"openapi": "3.0.0", "paths": []}"#).unwrap_err();
        assert_eq!(error.pointer(), Some("/paths"));
        let error = Document::parse("{\"openapi\": ").unwrap_err();
        assert!(error.to_string().contains("line 1"), "{error}");
    }
}
