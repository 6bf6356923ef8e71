//! Schema profiles: turn what schemars generates into what clients accept.
//!
//! The **portable** profile (the default) exists because clients and the
//! model APIs behind them accept far less than JSON Schema 2020-12: no
//! `$schema`, every `$ref` inlined and no `$defs`, no non-standard `format`,
//! no `null` unions or `nullable`, enums as `{"type":"string","enum":[…]}`;
//! integer widths become `minimum`/`maximum`, and a `oneOf` whose branches
//! share a type states it. The **strict** profile keeps the full 2020-12
//! schema as schemars generates it.
//!
//! A recursive type (a tree, a linked list) cannot be inlined. Rather than
//! cut it off at some depth, which would advertise a schema that rejects
//! deep but valid values, the portable profile refuses it: the server does
//! not start, and the error names the tool and the type and suggests the
//! strict profile or a `serde_json::Value` field.

use std::fmt;

use serde_json::{Map, Value};

use crate::jsonrpc::JsonObject;

/// How schemas are shaped before they are advertised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SchemaProfile {
    /// What every known client accepts (see the module docs).
    #[default]
    Portable,
    /// Full JSON Schema 2020-12, as generated.
    Strict,
}

/// Why a schema cannot be shaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaError {
    /// The type refers to itself, so it cannot be inlined.
    Recursive {
        /// The definition that refers to itself.
        definition: String,
    },
    /// A `$ref` that does not point into the schema's own definitions.
    UnresolvedRef {
        /// The reference as written.
        reference: String,
    },
    /// An input schema whose root is not an object schema.
    NotAnObject,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::Recursive { definition } => write!(
                f,
                "type `{definition}` is recursive and cannot be inlined by the portable schema profile; \
                 use `SchemaProfile::Strict` or break the recursion (e.g. with `serde_json::Value`)"
            ),
            SchemaError::UnresolvedRef { reference } => {
                write!(f, "schema reference `{reference}` does not point into the schema's own `$defs`")
            }
            SchemaError::NotAnObject => f.write_str("a tool's input schema must be an object schema"),
        }
    }
}

impl std::error::Error for SchemaError {}

/// `format` values defined by JSON Schema; schemars' others (`uint32`,
/// `double`, …) make Ajv-based clients fail or warn.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is one schema.
const SCHEMA_KEYS: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAY_KEYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYS: &[&str] = &["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/// Shape a tool's input schema: apply `profile`, then make sure the root is
/// `{"type": "object", "properties": {…}}` (clients treat a missing
/// `properties` differently; see CLIENTS.md).
pub fn input_schema(profile: SchemaProfile, raw: Value) -> Result<JsonObject, SchemaError> {
    let Value::Object(mut root) = apply(profile, raw)? else {
        return Err(SchemaError::NotAnObject);
    };
    match root.get("type") {
        None => {
            root.insert("type".into(), "object".into());
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(_) => return Err(SchemaError::NotAnObject),
    }
    root.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    Ok(root)
}

/// Apply `profile` to any schema.
pub fn apply(profile: SchemaProfile, raw: Value) -> Result<Value, SchemaError> {
    match profile {
        SchemaProfile::Strict => Ok(raw),
        SchemaProfile::Portable => portable(raw),
    }
}

fn portable(mut raw: Value) -> Result<Value, SchemaError> {
    let mut defs = Map::new();
    if let Value::Object(root) = &mut raw {
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = root.remove(key) {
                defs.extend(d);
            }
        }
    }
    let mut out = inline(raw, &defs, &mut Vec::new())?;
    clean(&mut out);
    Ok(out)
}

/// Replace every `$ref` by its definition; keywords beside a `$ref` (a
/// parameter's `description`) win over the definition's own.
fn inline(value: Value, defs: &JsonObject, stack: &mut Vec<String>) -> Result<Value, SchemaError> {
    match value {
        Value::Object(mut map) => {
            let target = match map.remove("$ref") {
                Some(Value::String(reference)) => Some(resolve(&reference, defs, stack)?),
                Some(other) => return Err(SchemaError::UnresolvedRef { reference: other.to_string() }),
                None => None,
            };
            let mut out = Map::new();
            if let Some((name, def)) = target {
                stack.push(name);
                let inlined = inline(def, defs, stack)?;
                stack.pop();
                match inlined {
                    Value::Object(m) => out = m,
                    Value::Bool(true) => {}
                    other => {
                        // `false` (or a non-schema) cannot take siblings; keep it whole.
                        if map.is_empty() {
                            return Ok(other);
                        }
                        out.insert("allOf".into(), Value::Array(vec![other]));
                    }
                }
            }
            for (key, child) in map {
                let child = if is_data_key(&key) { child } else { inline(child, defs, stack)? };
                out.insert(key, child);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => {
            items.into_iter().map(|v| inline(v, defs, stack)).collect::<Result<_, _>>().map(Value::Array)
        }
        other => Ok(other),
    }
}

fn resolve(reference: &str, defs: &JsonObject, stack: &[String]) -> Result<(String, Value), SchemaError> {
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
        .ok_or_else(|| SchemaError::UnresolvedRef { reference: reference.into() })?;
    if stack.iter().any(|s| s == name) {
        return Err(SchemaError::Recursive { definition: name.into() });
    }
    let def = defs.get(name).ok_or_else(|| SchemaError::UnresolvedRef { reference: reference.into() })?;
    Ok((name.to_owned(), def.clone()))
}

/// Keywords whose values are data, not schemas: never rewritten.
fn is_data_key(key: &str) -> bool {
    matches!(key, "enum" | "const" | "default" | "examples" | "example")
}

/// The range of schemars' fixed-width integer formats.
fn integer_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" => (0.into(), u64::MAX.into()),
        _ => return None,
    })
}

/// The keyword-level rules of the portable profile, applied to one schema
/// and then to each of its subschemas (never to a property *named* like a
/// keyword).
fn clean(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    // First merge a lone non-null branch into this schema, so the keyword
    // rules below also see what it brought in.
    strip_null(map);
    string_enum(map);
    map.remove("$schema");
    map.remove("nullable");
    if let Some(Value::String(format)) = map.get("format")
        && !STANDARD_FORMATS.contains(&format.as_str())
    {
        // An integer width is a bound a validator and a model can use; keep
        // it as one before the format goes.
        if let Some((min, max)) = integer_bounds(format) {
            map.entry("minimum").or_insert(min);
            map.entry("maximum").or_insert(max);
        }
        map.remove("format");
    }
    for (key, child) in map.iter_mut() {
        let key = key.as_str();
        if SCHEMA_MAP_KEYS.contains(&key) {
            if let Value::Object(named) = child {
                named.values_mut().for_each(clean);
            }
        } else if SCHEMA_ARRAY_KEYS.contains(&key) && child.is_array() {
            if let Value::Array(items) = child {
                items.iter_mut().for_each(clean);
            }
        } else if SCHEMA_KEYS.contains(&key) {
            clean(child);
        }
    }
    shared_branch_type(map);
}

/// A `oneOf`/`anyOf` whose branches all have one type gets that type too:
/// some clients reject a property without a `type`.
fn shared_branch_type(map: &mut JsonObject) {
    if map.contains_key("type") {
        return;
    }
    let shared = ["oneOf", "anyOf"].iter().find_map(|key| {
        let branches = map.get(*key)?.as_array()?;
        let first = branches.first()?.get("type")?.as_str()?;
        branches.iter().all(|b| b.get("type").and_then(Value::as_str) == Some(first)).then(|| first.to_owned())
    });
    if let Some(kind) = shared {
        map.insert("type".into(), Value::String(kind));
    }
}

/// `Option<T>`: drop the `null` alternative, leaving the plain `T` schema
/// (optionality is expressed by `required` alone).
fn strip_null(map: &mut JsonObject) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get_mut(key) else { continue };
        branches.retain(|b| !is_null_schema(b));
        if branches.len() == 1 {
            let Some(Value::Array(mut branches)) = map.remove(key) else { unreachable!() };
            if let Value::Object(only) = branches.remove(0) {
                for (k, v) in only {
                    // The outer schema's own keywords (its description) win.
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
}

fn is_null_schema(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => m.get("type").is_some_and(|t| t == "null") || m.get("const").is_some_and(Value::is_null),
        _ => false,
    }
}

/// A `oneOf`/`anyOf` of string constants (schemars' shape for documented
/// enum variants) becomes `{"type": "string", "enum": […]}`, which every
/// client renders as a choice.
fn string_enum(map: &mut JsonObject) {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = map.get(key) else { continue };
        let values: Option<Vec<Value>> = branches
            .iter()
            .map(|b| {
                let b = b.as_object()?;
                let only_const = b.keys().all(|k| matches!(k.as_str(), "const" | "type" | "description" | "title"));
                match b.get("const") {
                    Some(Value::String(s)) if only_const => Some(Value::String(s.clone())),
                    _ => None,
                }
            })
            .collect();
        if let Some(values) = values.filter(|v| !v.is_empty()) {
            // What each value means (its variant's doc) would be lost with the
            // branches; it goes into the description, where models read it.
            let meanings: Vec<String> = branches
                .iter()
                .filter_map(|b| Some(format!("- {}: {}", b.get("const")?.as_str()?, b.get("description")?.as_str()?)))
                .collect();
            if !meanings.is_empty() {
                let described = match map.get("description").and_then(Value::as_str) {
                    Some(d) => format!("{d}\n{}", meanings.join("\n")),
                    None => meanings.join("\n"),
                };
                map.insert("description".into(), described.into());
            }
            map.remove(key);
            map.insert("type".into(), "string".into());
            map.insert("enum".into(), Value::Array(values));
        }
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && !map.contains_key("type")
        && !values.is_empty()
        && values.iter().all(Value::is_string)
    {
        map.insert("type".into(), "string".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn portable(v: Value) -> Value {
        apply(SchemaProfile::Portable, v).unwrap()
    }

    #[test]
    fn refs_are_inlined_and_siblings_win() {
        let raw = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"op": {"$ref": "#/$defs/Op", "description": "which one"}},
            "required": ["op"],
            "$defs": {"Op": {"type": "string", "enum": ["add", "sub"], "description": "an op"}}
        });
        assert_eq!(
            portable(raw),
            json!({
                "type": "object",
                "properties": {"op": {"type": "string", "enum": ["add", "sub"], "description": "which one"}},
                "required": ["op"]
            })
        );
    }

    #[test]
    fn recursion_and_dangling_refs_are_errors() {
        let raw = json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object",
            "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
        assert_eq!(apply(SchemaProfile::Portable, raw), Err(SchemaError::Recursive { definition: "Node".into() }));
        let raw = json!({"properties": {"x": {"$ref": "https://example.com/x"}}});
        assert!(matches!(apply(SchemaProfile::Portable, raw), Err(SchemaError::UnresolvedRef { .. })));
    }

    #[test]
    fn formats_nulls_and_nullable_are_dropped_but_bounds_kept() {
        let raw = json!({"type": "object", "properties": {
            "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
            "when": {"type": "string", "format": "date-time"},
            "x": {"anyOf": [{"type": "number", "format": "double"}, {"type": "null"}], "description": "d"},
            "y": {"type": "string", "nullable": true}
        }});
        assert_eq!(
            portable(raw),
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                "when": {"type": "string", "format": "date-time"},
                "x": {"description": "d", "type": "number"},
                "y": {"type": "string"}
            }})
        );
    }

    #[test]
    fn properties_named_like_keywords_are_left_alone() {
        let raw = json!({"type": "object", "properties": {
            "format": {"type": "string"}, "nullable": {"type": "boolean"}, "$schema": {"type": "string"}
        }, "default": {"nullable": true}});
        assert_eq!(portable(raw.clone()), raw);
    }

    #[test]
    fn documented_variants_become_a_string_enum_whose_description_keeps_their_docs() {
        let raw = json!({"oneOf": [
            {"type": "string", "const": "add", "description": "Add them"},
            {"type": "string", "const": "sub", "description": "Subtract"}
        ], "description": "op"});
        assert_eq!(
            portable(raw),
            json!({"description": "op\n- add: Add them\n- sub: Subtract", "type": "string", "enum": ["add", "sub"]})
        );
        assert_eq!(portable(json!({"enum": ["a", "b"]})), json!({"enum": ["a", "b"], "type": "string"}));
    }

    #[test]
    fn input_schema_always_has_object_type_and_properties() {
        let s = input_schema(SchemaProfile::Portable, json!({})).unwrap();
        assert_eq!(Value::Object(s), json!({"type": "object", "properties": {}}));
        assert_eq!(input_schema(SchemaProfile::Strict, json!({"type": "string"})), Err(SchemaError::NotAnObject));
        let strict = json!({"type": "object", "properties": {"a": {"type": ["integer", "null"]}}, "$defs": {}});
        assert_eq!(Value::Object(input_schema(SchemaProfile::Strict, strict.clone()).unwrap()), strict);
    }
}
