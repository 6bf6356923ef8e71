//! A tool definition as a host hands it to its model: OpenAI's function
//! calling, Anthropic's tool use and Gemini's function declarations, each
//! shaped to what that API accepts.
//!
//! - **OpenAI**: `{"type":"function","function":{"name","description",
//!   "parameters","strict"}}`. `strict` is `true` only when the schema can
//!   be made what strict mode demands without changing what the server
//!   accepts: every object closed (`additionalProperties: false`) with every
//!   property required, so an optional argument becomes nullable, which is
//!   safe only at the top level (the runtime reads `null` there as "not
//!   sent"; a nested `#[serde(default)]` field would refuse it). A nested
//!   optional field, a map, a keyword strict mode does not support
//!   (`default`, `uniqueItems`, `oneOf`, …) or a recursive type makes it
//!   `"strict": false` with the schema as given (after the portable
//!   profile's shaping).
//! - **Anthropic**: `{"name","description","input_schema"}`; the input schema
//!   after the portable profile's shaping (Anthropic reads JSON Schema
//!   2020-12).
//! - **Gemini**: `{"name","description","parameters"}`, in Gemini's OpenAPI
//!   subset: the portable shape, then only the keywords Gemini's `Schema`
//!   has, no `additionalProperties`, `$schema` or combinators, `const` as a
//!   one-value `enum`, and the formats Gemini knows.
//!
//! Every provider first applies the portable schema profile (which leaves
//! an already portable schema as it is), so a tool with a strict schema
//! converts too; a recursive schema, which cannot be inlined, is passed on
//! as it is except for Gemini's keyword filter. Extension keys (`x-…`,
//! such as 2026-07-28's `x-mcp-header`) are transport details, left out.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::jsonrpc::JsonObject;
use crate::schema::{self, SCHEMA_ARRAY_KEYS, SCHEMA_KEYS, SCHEMA_MAP_KEYS, SchemaProfile};
use crate::tool::Tool;

/// A model API whose tool format [`convert`] produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// OpenAI's function calling (Chat Completions `tools`).
    OpenAi,
    /// Anthropic's Messages API `tools`.
    Anthropic,
    /// Gemini's `functionDeclarations`.
    Gemini,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 3] = [Provider::OpenAi, Provider::Anthropic, Provider::Gemini];

    /// Its short id, as command lines take it (`openai`, `anthropic`, `gemini`).
    pub fn id(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// Its name, as people write it.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI",
            Provider::Anthropic => "Anthropic",
            Provider::Gemini => "Gemini",
        }
    }

    /// The provider with this [`id`](Self::id).
    pub fn from_id(id: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.id() == id)
    }
}

/// `tool` in `provider`'s format, ready to go into that API's tool list.
pub fn convert(provider: Provider, tool: &Tool) -> Value {
    let input = portable(&tool.input_schema);
    let mut out = Map::new();
    match provider {
        Provider::OpenAi => {
            let mut function = Map::new();
            function.insert("name".into(), tool.name.clone().into());
            if let Some(description) = &tool.description {
                function.insert("description".into(), description.clone().into());
            }
            let (parameters, strict) = match openai_strict(&input) {
                Some(strict) => (strict, true),
                None => (Value::Object(input), false),
            };
            function.insert("parameters".into(), parameters);
            function.insert("strict".into(), strict.into());
            out.insert("type".into(), "function".into());
            out.insert("function".into(), Value::Object(function));
        }
        Provider::Anthropic | Provider::Gemini => {
            out.insert("name".into(), tool.name.clone().into());
            if let Some(description) = &tool.description {
                out.insert("description".into(), description.clone().into());
            }
            match provider {
                Provider::Anthropic => out.insert("input_schema".into(), Value::Object(input)),
                _ => out.insert("parameters".into(), gemini(&Value::Object(input))),
            };
        }
    }
    Value::Object(out)
}

/// `tools` in `provider`'s format, in order.
pub fn convert_all<'a>(provider: Provider, tools: impl IntoIterator<Item = &'a Tool>) -> Vec<Value> {
    tools.into_iter().map(|t| convert(provider, t)).collect()
}

/// The input schema in the portable shape (itself if it cannot be inlined),
/// without extension keys.
fn portable(input: &JsonObject) -> JsonObject {
    let mut shaped =
        schema::input_schema(SchemaProfile::Portable, Value::Object(input.clone())).unwrap_or_else(|_| input.clone());
    without_extensions(&mut shaped);
    shaped
}

fn without_extensions(schema: &mut JsonObject) {
    schema.retain(|key, _| !key.starts_with("x-"));
    for_each_subschema(schema, &mut |child| without_extensions(child));
}

/// Call `f` on every direct subschema of `schema`.
fn for_each_subschema(schema: &mut JsonObject, f: &mut dyn FnMut(&mut JsonObject)) {
    for (key, child) in schema.iter_mut() {
        let key = key.as_str();
        if SCHEMA_MAP_KEYS.contains(&key) {
            child
                .as_object_mut()
                .into_iter()
                .flat_map(|m| m.values_mut())
                .filter_map(Value::as_object_mut)
                .for_each(&mut *f);
        } else if SCHEMA_ARRAY_KEYS.contains(&key) && child.is_array() {
            child.as_array_mut().into_iter().flatten().filter_map(Value::as_object_mut).for_each(&mut *f);
        } else if SCHEMA_KEYS.contains(&key)
            && let Value::Object(child) = child
        {
            f(child);
        }
    }
}

/// The keywords OpenAI's strict mode supports.
const OPENAI_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// The string formats OpenAI's strict mode supports.
const OPENAI_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// The parameters in strict mode's form, if that form accepts exactly what
/// the server does.
fn openai_strict(input: &JsonObject) -> Option<Value> {
    if !strict_compatible(input, true) {
        return None;
    }
    let mut strict = input.clone();
    let required: Vec<String> = strict
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(String::from))
        .collect();
    if let Some(Value::Object(properties)) = strict.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                *property = nullable(std::mem::take(property));
            }
        }
    }
    close_objects(&mut strict);
    let names: Vec<Value> = strict
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys().cloned())
        .map(Value::from)
        .collect();
    strict.insert("required".into(), Value::Array(names));
    Some(Value::Object(strict))
}

/// Whether strict mode can take `schema` as it is, apart from closing its
/// objects and making the top level's optional properties nullable.
fn strict_compatible(schema: &JsonObject, root: bool) -> bool {
    if schema.keys().any(|k| !OPENAI_STRICT_KEYWORDS.contains(&k.as_str())) {
        return false;
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str)
        && !OPENAI_STRICT_FORMATS.contains(&format)
    {
        return false;
    }
    if matches!(schema.get("additionalProperties"), Some(v) if v != &Value::Bool(false)) {
        return false;
    }
    let kind = schema.get("type");
    let typed =
        kind.is_some() || schema.contains_key("enum") || schema.contains_key("const") || schema.contains_key("anyOf");
    if !typed {
        // Any JSON value: strict mode has no schema for it.
        return false;
    }
    if kind.and_then(Value::as_str) == Some("object") {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return false };
        let required = schema.get("required").and_then(Value::as_array).map_or(0, Vec::len);
        // Nested: every field required (a nested optional field would need a
        // `null` serde may refuse) and at least one (an empty one is a map).
        if !root && (properties.is_empty() || required != properties.len()) {
            return false;
        }
    }
    let mut compatible = true;
    let mut copy = schema.clone();
    for_each_subschema(&mut copy, &mut |child| compatible &= strict_compatible(child, false));
    compatible
}

/// `schema` or `null`.
fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else { return schema };
    match map.get("type").cloned() {
        Some(Value::String(kind)) if !map.contains_key("enum") => {
            map.insert("type".into(), json!([kind, "null"]));
            Value::Object(map)
        }
        _ => json!({"anyOf": [Value::Object(map), {"type": "null"}]}),
    }
}

fn close_objects(schema: &mut JsonObject) {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        schema.insert("additionalProperties".into(), false.into());
    }
    for_each_subschema(schema, &mut close_objects);
}

/// The keywords of Gemini's `Schema` that a portable schema can carry.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
];

/// The formats Gemini knows, by type.
fn gemini_format(kind: &str, format: &str) -> bool {
    matches!(
        (kind, format),
        ("string", "date-time" | "enum") | ("integer", "int32" | "int64") | ("number", "float" | "double")
    )
}

/// A schema in Gemini's subset.
fn gemini(schema: &Value) -> Value {
    let Value::Object(map) = schema else { return json!({}) };
    let mut map = map.clone();
    collapse_alternatives(&mut map);
    if let Some(Value::Array(kinds)) = map.get("type") {
        // `["T", "null"]`: Gemini has one type per schema.
        let kind = kinds.iter().find(|k| *k != "null").cloned().unwrap_or_else(|| "string".into());
        map.insert("type".into(), kind);
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![value]));
    }
    let kind = map.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut out = Map::new();
    for (key, value) in map {
        if !GEMINI_KEYWORDS.contains(&key.as_str()) {
            continue;
        }
        let value = match key.as_str() {
            "format" if !value.as_str().is_some_and(|f| gemini_format(&kind, f)) => continue,
            "items" => gemini(&value),
            "properties" => {
                let properties = value.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), gemini(v)));
                Value::Object(properties.collect())
            }
            _ => value,
        };
        out.insert(key, value);
    }
    Value::Object(out)
}

/// An `anyOf`/`oneOf`/`allOf` left by the portable profile (an untagged
/// enum of different plain types) becomes its first branch, the others
/// named in the description.
fn collapse_alternatives(map: &mut JsonObject) {
    for key in ["anyOf", "oneOf", "allOf"] {
        let Some(Value::Array(branches)) = map.remove(key) else { continue };
        let Some(Value::Object(first)) = branches.first().cloned() else { continue };
        let others: Vec<String> = branches[1..]
            .iter()
            .filter_map(|b| b.get("type").and_then(Value::as_str))
            .map(|t| format!("a {t}"))
            .collect();
        for (k, v) in first {
            map.entry(k).or_insert(v);
        }
        if key != "allOf" && !others.is_empty() {
            let note = format!("May also be {}.", others.join(" or "));
            let described = match map.get("description").and_then(Value::as_str) {
                Some(d) => format!("{d}\n{note}"),
                None => note,
            };
            map.insert("description".into(), described.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str, input: Value) -> Tool {
        let mut tool = Tool::new(name, input.as_object().unwrap().clone());
        tool.description = Some(description.into());
        tool
    }

    fn plain() -> Tool {
        tool(
            "add",
            "Add two numbers.",
            json!({"type": "object", "properties": {
            "a": {"type": "number", "description": "The left operand"},
            "b": {"type": "number", "x-mcp-header": "B"},
            "unit": {"type": "string", "enum": ["m", "ft"]},
            "round": {"type": "boolean"}
        }, "required": ["a", "b", "unit"]}),
        )
    }

    #[test]
    fn ids_round_trip() {
        for provider in Provider::ALL {
            assert_eq!(Provider::from_id(provider.id()), Some(provider));
        }
        assert_eq!(Provider::from_id("cohere"), None);
    }

    #[test]
    fn openai_strict_when_only_top_level_arguments_are_optional() {
        assert_eq!(
            convert(Provider::OpenAi, &plain()),
            json!({"type": "function", "function": {"name": "add", "description": "Add two numbers.",
                "parameters": {"type": "object", "properties": {
                    "a": {"type": "number", "description": "The left operand"},
                    "b": {"type": "number"},
                    "unit": {"type": "string", "enum": ["m", "ft"]},
                    "round": {"type": ["boolean", "null"]}
                }, "required": ["a", "b", "unit", "round"], "additionalProperties": false},
                "strict": true}})
        );
        let nested = tool(
            "place",
            "Place an order.",
            json!({"type": "object", "properties": {
            "order": {"type": "object", "properties": {"sku": {"type": "string"}, "gift": {"type": "boolean"}},
                "required": ["sku"]},
            "speed": {"type": "string", "enum": ["slow", "fast"]}
        }, "required": ["order"]}),
        );
        let strict = convert(
            Provider::OpenAi,
            &tool(
                "place",
                "Place an order.",
                json!({"type": "object",
            "properties": {"order": {"type": "object", "properties": {"sku": {"type": "string"}},
                "required": ["sku"]}, "speed": {"type": "string", "enum": ["slow", "fast"]}},
            "required": ["order"]}),
            ),
        );
        assert_eq!(
            strict["function"]["parameters"],
            json!({"type": "object", "properties": {
                "order": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"],
                    "additionalProperties": false},
                "speed": {"anyOf": [{"type": "string", "enum": ["slow", "fast"]}, {"type": "null"}]}
            }, "required": ["order", "speed"], "additionalProperties": false})
        );
        // A nested optional field would need a `null` serde may refuse.
        let loose = convert(Provider::OpenAi, &nested);
        assert_eq!(loose["function"]["strict"], false);
        assert_eq!(loose["function"]["parameters"], Value::Object(nested.input_schema.clone()));
    }

    #[test]
    fn openai_falls_back_to_non_strict_for_maps_defaults_and_any_values() {
        for property in [
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"type": "integer", "default": 3}),
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
            json!({"description": "any JSON value"}),
            json!({"type": "string", "format": "uri"}),
        ] {
            let t = tool("t", "T.", json!({"type": "object", "properties": {"p": property}}));
            assert_eq!(convert(Provider::OpenAi, &t)["function"]["strict"], false, "{property}");
        }
    }

    #[test]
    fn anthropic_takes_the_portable_schema() {
        let strict = tool(
            "find",
            "Find.",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "properties": {"when": {"$ref": "#/$defs/When"},
            "n": {"type": ["integer", "null"], "format": "uint32"}},
            "$defs": {"When": {"type": "string", "enum": ["now", "later"]}}}),
        );
        assert_eq!(
            convert(Provider::Anthropic, &strict),
            json!({"name": "find", "description": "Find.", "input_schema": {"type": "object", "properties": {
                "when": {"type": "string", "enum": ["now", "later"]},
                "n": {"type": "integer", "minimum": 0, "maximum": 4294967295u32}
            }}})
        );
        assert_eq!(
            convert(Provider::Anthropic, &plain())["input_schema"]["properties"]["b"],
            json!({"type": "number"})
        );
    }

    #[test]
    fn gemini_gets_its_openapi_subset() {
        let t = tool(
            "pick",
            "Pick.",
            json!({"type": "object", "properties": {
            "id": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}], "description": "Which"},
            "kind": {"type": "string", "const": "x"},
            "when": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri", "default": "a"},
            "ratio": {"type": "number", "exclusiveMinimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}
        }, "required": ["id"]}),
        );
        assert_eq!(
            convert(Provider::Gemini, &t),
            json!({"name": "pick", "description": "Pick.", "parameters": {"type": "object", "properties": {
                "id": {"description": "Which\nMay also be a string.", "type": "integer", "minimum": 0},
                "kind": {"type": "string", "enum": ["x"]},
                "when": {"type": "string", "format": "date-time"},
                "site": {"type": "string"},
                "ratio": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "closed": {"type": "object", "properties": {"a": {"type": "string"}}}
            }, "required": ["id"]}})
        );
    }
}
