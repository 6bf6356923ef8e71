//! The keyword rules of the portable profile: one schema's `format`,
//! bounds, `null` branches, enums, object `properties` and array `items`
//! made what clients accept, then the same for each subschema.

use serde_json::{Map, Value};

use super::{MAX_SAFE_INTEGER, Purpose, SCHEMA_ARRAY_KEYS, SCHEMA_KEYS, SCHEMA_MAP_KEYS, STANDARD_FORMATS, merge};
use crate::jsonrpc::JsonObject;

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
/// keyword). `omittable`: the schema is of a property that is not
/// required, so a `null` there can be left out instead of sent.
pub(super) fn clean(schema: &mut Value, purpose: Purpose, omittable: bool) {
    let Value::Object(map) = schema else { return };
    // First merge a lone non-null branch into this schema, so the keyword
    // rules below also see what it brought in. The checked schema keeps
    // `null` wherever serde reads it.
    let nullable = purpose != Purpose::Check && strip_null(map);
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
    match purpose {
        Purpose::Advertise => clamp_to_safe_integers(map),
        Purpose::Output => drop_unsafe_integer_bounds(map),
        Purpose::Check => {}
    }
    let required = required_names(map);
    for (key, child) in map.iter_mut() {
        let key = key.as_str();
        if key == "properties" {
            if let Value::Object(named) = child {
                for (name, s) in named.iter_mut() {
                    clean(s, purpose, !required.contains(name));
                }
            }
        } else if SCHEMA_MAP_KEYS.contains(&key) {
            if let Value::Object(named) = child {
                named.values_mut().for_each(|s| clean(s, purpose, false));
            }
        } else if SCHEMA_ARRAY_KEYS.contains(&key) && child.is_array() {
            if let Value::Array(items) = child {
                items.iter_mut().for_each(|s| clean(s, purpose, false));
            }
        } else if SCHEMA_KEYS.contains(&key) {
            clean(child, purpose, false);
        }
    }
    // The branches are shaped by now, so a data enum's variants merge as
    // clients will see them.
    merge::variants(map, purpose);
    object_properties(map, purpose);
    array_items(map);
    shared_branch_type(map);
    if nullable && purpose == Purpose::Output && !omittable {
        may_be_null(map);
    }
}

/// The names in a schema's `required`.
fn required_names(map: &JsonObject) -> Vec<String> {
    let names = map.get("required").and_then(Value::as_array).into_iter().flatten();
    names.filter_map(Value::as_str).map(str::to_owned).collect()
}

/// An output schema whose `null` cannot be left out of the value: open it
/// to `null` without a type list or an `anyOf` (Cursor and Gemini refuse
/// both). Every keyword left applies to one JSON type only, so dropping
/// `type` lets `null` through; an `enum` or alternatives take it as one
/// more choice.
fn may_be_null(map: &mut JsonObject) {
    map.remove("type");
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![value, Value::Null]));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            branches.push(serde_json::json!({"type": "null"}));
        }
    }
    merge::append_description(map, "May be null.");
}

/// Bounds of an output integer beyond ±(2^53 − 1) are left out: clamped,
/// they would refuse values serde writes; as they are, a JavaScript
/// client reads them rounded.
fn drop_unsafe_integer_bounds(map: &mut JsonObject) {
    if map.get("type").and_then(Value::as_str) != Some("integer") {
        return;
    }
    let limit = MAX_SAFE_INTEGER as f64;
    map.retain(|key, bound| {
        !matches!(key.as_str(), "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum")
            || bound.as_f64().is_none_or(|b| b.abs() <= limit)
    });
}

/// Bounds of an integer beyond ±(2^53 − 1) come back to it: a JavaScript
/// client reads a larger bound as a rounded number (CLIENTS.md §1, the
/// `u64` case). Serde still checks the real range.
fn clamp_to_safe_integers(map: &mut JsonObject) {
    if map.get("type").and_then(Value::as_str) != Some("integer") {
        return;
    }
    let limit = MAX_SAFE_INTEGER as f64;
    for (key, beyond, safe) in [
        ("minimum", -limit, -MAX_SAFE_INTEGER),
        ("exclusiveMinimum", -limit, -MAX_SAFE_INTEGER),
        ("maximum", limit, MAX_SAFE_INTEGER),
        ("exclusiveMaximum", limit, MAX_SAFE_INTEGER),
    ] {
        let Some(bound) = map.get(key).and_then(Value::as_f64) else { continue };
        if (beyond < 0.0 && bound < beyond) || (beyond > 0.0 && bound > beyond) {
            map.insert(key.into(), safe.into());
        }
    }
}

/// Every object schema gets `properties` (OpenAI and Codex refuse an object
/// without, and a map is nothing but `additionalProperties`); the
/// advertised schema leaves `additionalProperties` out (Gemini refuses a
/// schema or `false` there) and says in words what a map's values are.
fn object_properties(map: &mut JsonObject, purpose: Purpose) {
    if map.get("type").and_then(Value::as_str) != Some("object") {
        return;
    }
    let had_properties = map.contains_key("properties");
    if !had_properties {
        map.insert("properties".into(), Value::Object(Map::new()));
    }
    if purpose == Purpose::Check {
        return;
    }
    match map.remove("additionalProperties") {
        Some(Value::Bool(false)) => {}
        Some(values) => {
            let which = if had_properties { "Fields other than these may be sent too" } else { "Any field names" };
            let text = match merge::summary(&values) {
                Some(what) => format!("{which}; each value is {what}."),
                None => format!("{which}, with any values."),
            };
            merge::append_description(map, &text);
        }
        None => {}
    }
}

/// An array gets an object `items` if it has none (Copilot refuses it; a
/// tuple has only `prefixItems`, `Vec<Value>` has `items: true`): the
/// elements' common schema if they share one, else any value.
fn array_items(map: &mut JsonObject) {
    if map.get("type").and_then(Value::as_str) != Some("array") || map.get("items").is_some_and(Value::is_object) {
        return;
    }
    let items = match map.get("prefixItems").and_then(Value::as_array) {
        Some(prefix) if !prefix.is_empty() && prefix.iter().all(|p| merge::same_schema(p, &prefix[0])) => {
            let mut common = prefix[0].clone();
            if let Value::Object(common) = &mut common {
                common.remove("description");
            }
            common
        }
        _ => Value::Object(Map::new()),
    };
    map.insert("items".into(), items);
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
/// (optionality is expressed by `required` alone). Whether there was one.
/// A schema that is only `null` (a unit struct) keeps it.
fn strip_null(map: &mut JsonObject) -> bool {
    let mut stripped = false;
    if let Some(Value::Array(types)) = map.get_mut("type")
        && types.iter().any(|t| t != "null")
    {
        let before = types.len();
        types.retain(|t| t != "null");
        stripped |= types.len() < before;
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        let before = values.len();
        values.retain(|v| !v.is_null());
        stripped |= values.len() < before;
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get_mut(key) else { continue };
        if branches.iter().all(is_null_schema) {
            continue;
        }
        let before = branches.len();
        branches.retain(|b| !is_null_schema(b));
        stripped |= branches.len() < before;
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
    stripped
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
