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
//! What ordinary Rust types produce and some client refuses, the portable
//! profile reshapes (`mcp_core::clients` has the rules and their sources):
//!
//! - **A data enum** (schemars: a `oneOf` of objects) becomes one object.
//!   Internally or adjacently tagged (`#[serde(tag = "kind")]`): the tag is
//!   a required `{"type":"string","enum":[…]}` and every variant's fields
//!   are optional properties whose descriptions say which kind needs them
//!   ("Required when kind is \"circle\"."). Externally tagged (serde's
//!   default): one optional property per variant, and the description says
//!   to send exactly one (and which plain strings the unit variants are).
//!   Untagged, when every variant is a struct: the fields of all of them,
//!   the description listing the forms; an untagged enum of different
//!   plain types keeps its `anyOf` (no portable shape exists for "an
//!   integer or a string"), and the client rules name it. A field two
//!   variants declare with different types keeps the first variant's
//!   schema and says in its description what the others take.
//! - **A map** (`HashMap<String, T>`, `BTreeMap`: an object with only
//!   `additionalProperties`) gets `"properties": {}` (OpenAI refuses an
//!   object without) and loses `additionalProperties` (Gemini refuses any
//!   value but `true`); the description says what each value is.
//!   `additionalProperties: false` (`deny_unknown_fields`) is left out too.
//! - **64-bit and wider integer bounds** are clamped to ±(2^53 − 1), what a
//!   JavaScript number holds exactly: a `u64` is advertised as at most
//!   9007199254740991.
//! - **An array without `items`** (a tuple, `Vec<Value>`) gets one.
//!
//! One type has three shapes, one for each use:
//!
//! - **Advertised input** ([`input_schema`]): what clients and models are
//!   shown. `Option<T>` is the plain `T`, left out of `required`; where the
//!   portable shape is narrower than the type (a clamped bound, the first
//!   variant's type for a field whose type depends on the variant), the
//!   server still takes what serde reads.
//! - **Checked input** ([`checked_input_schema`]): what a call's arguments
//!   are validated against, never narrower than what serde reads. It keeps
//!   `null` wherever serde takes it, the type's own bounds, map values and
//!   `additionalProperties: false`, and states what each variant of a
//!   tagged enum needs (`if` the tag is its value, `then` its fields, with
//!   their own types), so that a call missing a variant's field or sending
//!   it with the wrong type is told so at the field's place.
//! - **Output** ([`output_schema`]): advertised and validated by clients
//!   against `structuredContent`, so clear for their rules like the input
//!   and never narrower than what serde writes. A `None` field is an
//!   optional plain `T` and the runtime leaves it out of the value
//!   ([`omit_optional_nulls`]); a `null` that cannot be left out (an
//!   element of `Vec<Option<T>>`, a map's value) keeps its schema open to
//!   `null` by dropping `type` and saying "May be null.", since type lists
//!   and `anyOf` are what Cursor and Gemini refuse. Bounds beyond
//!   ±(2^53 − 1) are left out rather than clamped.
//!
//! The same [`omit_optional_nulls`] applies to arguments: `null` for a field
//! that is not required means "not sent", at any depth, so a field with a
//! default (`#[serde(default)]`) gets its default. A client that validates
//! against the advertised input schema may refuse an integer above
//! 2^53 − 1 that the server would take; a JavaScript client cannot send
//! one exactly anyway. `tests/ordinary_types.rs` holds all of this as a
//! property over a corpus of ordinary types.
//!
//! A recursive type (a tree, a linked list) cannot be inlined. Rather than
//! cut it off at some depth, which would advertise a schema that rejects
//! deep but valid values, the portable profile refuses it: the server does
//! not start, and the error names the tool and the type and suggests the
//! strict profile or a `serde_json::Value` field.

use std::fmt;

use serde_json::{Map, Value};

use crate::jsonrpc::JsonObject;

mod merge;
mod nulls;

pub use nulls::{contains_null, omit_optional_nulls};

/// The largest integer a JavaScript number holds exactly, 2^53 − 1
/// (`Number.MAX_SAFE_INTEGER`): the portable profile's widest integer bound.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// What a shaped schema is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// An input schema shown to clients.
    Advertise,
    /// Checked against a call's arguments: never narrower than the type.
    Check,
    /// An output schema: shown to clients (so clear for their rules) and
    /// checked by them against what the server sends, so never narrower
    /// than what serde writes once [`omit_optional_nulls`] has shaped it.
    Output,
}

impl Purpose {
    /// Whether every value of the type must pass (nothing narrowed).
    fn loose(self) -> bool {
        self != Purpose::Advertise
    }
}

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
pub(crate) const STANDARD_FORMATS: &[&str] = &[
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
pub(crate) const SCHEMA_KEYS: &[&str] = &[
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
pub(crate) const SCHEMA_ARRAY_KEYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to schemas.
pub(crate) const SCHEMA_MAP_KEYS: &[&str] =
    &["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/// Shape a tool's input schema: apply `profile`, then make sure the root is
/// `{"type": "object", "properties": {…}}` (clients treat a missing
/// `properties` differently; see CLIENTS.md).
pub fn input_schema(profile: SchemaProfile, raw: Value) -> Result<JsonObject, SchemaError> {
    input(profile, raw, Purpose::Advertise)
}

/// The schema a server checks a call's arguments against, for the tool
/// whose [`input_schema`] is shaped from the same `raw` schema: the same
/// except where the advertised shape is narrower than the type (see the
/// module docs), so that nothing the type accepts is refused before serde
/// reads it.
pub fn checked_input_schema(profile: SchemaProfile, raw: Value) -> Result<JsonObject, SchemaError> {
    input(profile, raw, Purpose::Check)
}

fn input(profile: SchemaProfile, raw: Value, purpose: Purpose) -> Result<JsonObject, SchemaError> {
    let Value::Object(mut root) = shape(profile, raw, purpose)? else {
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
    shape(profile, raw, Purpose::Advertise)
}

/// Apply `profile` to any schema, for checking values against it (an
/// output schema, say): like [`apply`], but never narrower than the type
/// (see [`checked_input_schema`]).
pub fn apply_checked(profile: SchemaProfile, raw: Value) -> Result<Value, SchemaError> {
    shape(profile, raw, Purpose::Check)
}

/// Shape a tool's output schema (the schema of `T` in `Json<T>`) with
/// `profile`: clear for every client rule, like an input schema, yet
/// never narrower than what serde writes, because clients validate
/// `structuredContent` against it. Send values through
/// [`omit_optional_nulls`] with this schema first: a `None` field is
/// advertised as an optional plain `T` and must be left out, not sent as
/// `null`; a `null` that cannot be left out (an element of
/// `Vec<Option<T>>`, a map's value, a required field) keeps its schema
/// open to `null` (no `type`, "May be null." in the description) rather
/// than take a type list or an `anyOf` that clients refuse. Integer
/// bounds beyond ±(2^53 − 1) are left out rather than clamped, and a
/// field whose type depends on an enum's variant constrains nothing.
pub fn output_schema(profile: SchemaProfile, raw: Value) -> Result<Value, SchemaError> {
    shape(profile, raw, Purpose::Output)
}

fn shape(profile: SchemaProfile, raw: Value, purpose: Purpose) -> Result<Value, SchemaError> {
    match profile {
        SchemaProfile::Strict => Ok(raw),
        SchemaProfile::Portable => portable(raw, purpose),
    }
}

fn portable(mut raw: Value, purpose: Purpose) -> Result<Value, SchemaError> {
    let mut defs = Map::new();
    if let Value::Object(root) = &mut raw {
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = root.remove(key) {
                defs.extend(d);
            }
        }
    }
    let mut out = inline(raw, &defs, &mut Vec::new())?;
    clean(&mut out, purpose, false);
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
                match (key.as_str(), out.get_mut(&key), child) {
                    // Beside a `$ref` (schemars' internally tagged newtype
                    // variant: the tag's property next to the struct's
                    // `$ref`) both apply, so fields and requirements add up.
                    ("properties", Some(Value::Object(theirs)), Value::Object(ours)) => theirs.extend(ours),
                    ("required", Some(Value::Array(theirs)), Value::Array(ours)) => {
                        for name in ours {
                            if !theirs.contains(&name) {
                                theirs.push(name);
                            }
                        }
                    }
                    (_, _, child) => {
                        out.insert(key, child);
                    }
                }
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
/// keyword). `omittable`: the schema is of a property that is not
/// required, so a `null` there can be left out instead of sent.
fn clean(schema: &mut Value, purpose: Purpose, omittable: bool) {
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
    fn the_checked_schema_keeps_null_wherever_serde_reads_it() {
        let raw = json!({"type": "object", "properties": {
            "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
            "x": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
            "list": {"type": "array", "items": {"type": ["string", "null"]}}
        }, "$defs": {"P": {"type": "object", "properties": {"a": {"type": "string"}}}}});
        assert_eq!(
            checked(raw),
            json!({"type": "object", "properties": {
                "n": {"type": ["integer", "null"], "minimum": 0, "maximum": 4294967295u32},
                "x": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]},
                "list": {"type": "array", "items": {"type": ["string", "null"]}}
            }})
        );
    }

    #[test]
    fn output_schemas_leave_optional_nulls_out_and_open_the_others_without_type_lists() {
        let raw = json!({"type": "object", "properties": {
            "note": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": ["string", "null"]}},
            "kind": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]},
            "big": {"type": "integer", "format": "uint64", "minimum": 0},
            "unit": {"type": "null"}
        }, "required": ["kind", "big", "unit"]});
        let output = output_schema(SchemaProfile::Portable, raw).unwrap();
        assert_eq!(
            output,
            json!({"type": "object", "properties": {
                "note": {"type": "string"},
                "tags": {"type": "array", "items": {"description": "May be null."}},
                "kind": {"enum": ["a", "b", null], "description": "May be null."},
                "big": {"minimum": 0, "type": "integer"},
                "unit": {"type": "null"}
            }, "required": ["kind", "big", "unit"]})
        );
        let tool = crate::Tool { output_schema: output.as_object().cloned(), ..crate::Tool::new("t", Map::new()) };
        let problems = crate::clients::check_tool(&tool);
        // Only the standing note that Claude Desktop has greyed out tools
        // with any output schema.
        assert!(problems.iter().all(|p| p.client.id() == "claude-desktop"), "{problems:?}");
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

    fn checked(v: Value) -> Value {
        apply_checked(SchemaProfile::Portable, v).unwrap()
    }

    /// schemars' `#[serde(tag = "kind")] enum Shape { Circle { r: f64 }, Rect { w: f64, h: f64 }, At(Point), None }`.
    fn internally_tagged() -> Value {
        json!({"oneOf": [
            {"description": "A circle.", "type": "object", "properties": {"kind": {"type": "string", "const": "circle"},
                "r": {"description": "The radius.", "type": "number", "format": "double"}}, "required": ["kind", "r"]},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "rect"},
                "w": {"type": "number", "format": "double"}, "h": {"type": "number", "format": "double"}},
                "required": ["kind", "w", "h"]},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "at"}}, "$ref": "#/$defs/Point",
                "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "none"}}, "required": ["kind"]}
        ], "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"]}}})
    }

    #[test]
    fn an_internally_tagged_enum_is_one_object_whose_fields_say_which_kind_needs_them() {
        let expected = json!({"type": "object", "properties": {
            "kind": {"type": "string", "enum": ["circle", "rect", "at", "none"], "description": "- circle: A circle."},
            "r": {"description": "The radius.\nRequired when kind is \"circle\".", "type": "number"},
            "w": {"type": "number", "description": "Required when kind is \"rect\"."},
            "h": {"type": "number", "description": "Required when kind is \"rect\"."},
            "x": {"type": "number", "description": "Required when kind is \"at\"."},
            "y": {"type": "number", "description": "Required when kind is \"at\"."}
        }, "required": ["kind"]});
        assert_eq!(portable(internally_tagged()), expected);
        // The checked schema adds what each kind needs, so that a call
        // missing one of its fields is told which, at the field's place.
        let when = |kind: &str, then: Value| json!({"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]}, "then": then});
        let mut expected = expected;
        expected["allOf"] = json!([
            when(
                "circle",
                json!({"properties": {"r": {"description": "The radius.", "type": "number"}}, "required": ["r"]})
            ),
            when(
                "rect",
                json!({"properties": {"w": {"type": "number"}, "h": {"type": "number"}}, "required": ["w", "h"]})
            ),
            when(
                "at",
                json!({"properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]})
            ),
        ]);
        assert_eq!(checked(internally_tagged()), expected);
    }

    #[test]
    fn an_externally_tagged_enum_is_one_object_of_optional_variants() {
        let raw = json!({"oneOf": [
            {"type": "string", "enum": ["Empty"]},
            {"type": "object", "properties": {"Circle": {"type": "object", "properties": {"r": {"type": "number"}},
                "required": ["r"]}}, "required": ["Circle"], "additionalProperties": false,
                "description": "A round shape."},
            {"type": "object", "properties": {"Pair": {"type": "array", "prefixItems": [
                {"type": "integer", "format": "int32"}, {"type": "integer", "format": "int32"}],
                "minItems": 2, "maxItems": 2}}, "required": ["Pair"], "additionalProperties": false}
        ], "description": "A shape."});
        let int32 = json!({"type": "integer", "maximum": 2147483647, "minimum": -2147483648});
        let properties = json!({
            "Circle": {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"],
                "description": "A round shape."},
            "Pair": {"type": "array", "prefixItems": [int32, int32], "minItems": 2, "maxItems": 2, "items": int32}
        });
        let description =
            "A shape.\nExactly one of the fields `Circle`, `Pair` (or, instead of an object, the string \"Empty\").";
        assert_eq!(
            portable(raw.clone()),
            json!({"description": description, "type": "object", "properties": properties})
        );
        // The string is a valid value too: the checked schema takes the
        // unit variants' names as strings.
        assert_eq!(
            checked(raw),
            json!({"description": description, "type": ["object", "string"], "properties": properties,
                "additionalProperties": false, "allOf": [{"if": {"type": "string"}, "then": {"enum": ["Empty"]}}]})
        );
    }

    #[test]
    fn an_adjacently_tagged_enum_merges_its_contents() {
        let raw = json!({"oneOf": [
            {"type": "object", "properties": {"t": {"type": "string", "const": "Circle"},
                "c": {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]}},
                "required": ["t", "c"]},
            {"type": "object", "properties": {"t": {"type": "string", "const": "Rect"},
                "c": {"type": "object", "properties": {"w": {"type": "number"}, "h": {"type": "number"}},
                "required": ["w", "h"]}}, "required": ["t", "c"]},
            {"type": "object", "properties": {"t": {"type": "string", "const": "Empty"}}, "required": ["t"]}
        ]});
        assert_eq!(
            portable(raw),
            json!({"type": "object", "properties": {
                "t": {"type": "string", "enum": ["Circle", "Rect", "Empty"]},
                "c": {"type": "object", "properties": {
                    "r": {"type": "number", "description": "Required when t is \"Circle\"."},
                    "w": {"type": "number", "description": "Required when t is \"Rect\"."},
                    "h": {"type": "number", "description": "Required when t is \"Rect\"."}
                }, "description": "Required when t is \"Circle\" or \"Rect\"."}
            }, "required": ["t"]})
        );
    }

    #[test]
    fn a_field_whose_type_depends_on_the_variant_is_advertised_as_the_first_and_checked_per_variant() {
        let raw = json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"type": "string", "const": "a"},
                "x": {"type": "integer", "format": "uint8"}}, "required": ["kind", "x"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}, "x": {"type": "string"}},
                "required": ["kind", "x"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "c"},
                "x": {"type": "integer", "format": "uint16"}}, "required": ["kind"], "additionalProperties": false}
        ]});
        let note = "Its type depends on the variant: an integer from 0 to 255 when kind is \"a\"; a string when kind \
                    is \"b\"; an integer from 0 to 65535 when kind is \"c\".\nRequired when kind is \"a\" or \"b\"; \
                    optional when kind is \"c\".";
        let advertised = portable(raw.clone());
        assert_eq!(
            advertised["properties"]["x"],
            json!({"type": "integer", "minimum": 0, "maximum": 255, "description": note})
        );
        assert_eq!(advertised["required"], json!(["kind"]));
        assert_eq!(advertised.get("additionalProperties"), None);
        let checked = checked(raw);
        assert_eq!(checked["properties"]["x"], json!({"description": note}));
        assert_eq!(checked["additionalProperties"], false);
        // Each kind's own type for it is checked when that kind is sent.
        assert_eq!(checked["allOf"][1]["then"]["properties"]["x"], json!({"type": "string"}));
        assert_eq!(
            checked["allOf"][2]["then"]["properties"]["x"],
            json!({"type": "integer", "minimum": 0, "maximum": 65535})
        );
    }

    #[test]
    fn fields_of_one_type_keep_what_the_variants_agree_on() {
        let raw = json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a", "type": "string"},
                "n": {"type": "integer", "minimum": 0, "maximum": 9}, "m": {"type": "string", "enum": ["x"]}},
                "required": ["k", "n", "m"]},
            {"type": "object", "properties": {"k": {"const": "b", "type": "string"},
                "n": {"type": "integer", "minimum": 0, "maximum": 99}, "m": {"type": "string", "enum": ["y"]}},
                "required": ["k", "n", "m"]}
        ]});
        assert_eq!(
            portable(raw),
            json!({"type": "object", "properties": {
                "k": {"type": "string", "enum": ["a", "b"]},
                "n": {"type": "integer", "minimum": 0},
                "m": {"type": "string", "enum": ["x", "y"]}
            }, "required": ["k", "n", "m"]})
        );
    }

    #[test]
    fn untagged_structs_merge_and_untagged_plain_types_stay() {
        let structs = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer", "format": "uint32", "minimum": 0}},
                "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "string"}, "c": {"type": ["boolean", "null"]}},
                "required": ["b"]}
        ]});
        assert_eq!(
            portable(structs),
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                "b": {"type": "string"},
                "c": {"type": "boolean"}
            }, "description": "The fields of exactly one of these forms: {`a`}, {`b`, `c`}."})
        );
        let plain = json!({"anyOf": [{"type": "integer", "format": "uint64", "minimum": 0}, {"type": "string"}]});
        assert_eq!(
            portable(plain),
            json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER}, {"type": "string"}]})
        );
    }

    #[test]
    fn an_optional_tagged_enum_and_a_struct_flattening_one_merge_too() {
        let optional = json!({"anyOf": [{"$ref": "#/$defs/E"}, {"type": "null"}], "description": "maybe",
        "$defs": {"E": {"oneOf": [
            {"type": "object", "properties": {"k": {"type": "string", "const": "a"}, "x": {"type": "number"}},
                "required": ["k", "x"]},
            {"type": "object", "properties": {"k": {"type": "string", "const": "b"}}, "required": ["k"]}
        ]}}});
        assert_eq!(
            portable(optional),
            json!({"description": "maybe", "type": "object", "properties": {
                "k": {"type": "string", "enum": ["a", "b"]},
                "x": {"type": "number", "description": "Required when k is \"a\"."}
            }, "required": ["k"]})
        );
        let flattened = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
        "oneOf": [
            {"type": "object", "properties": {"k": {"type": "string", "const": "a"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"type": "string", "const": "b"}}, "required": ["k"]}
        ]});
        assert_eq!(
            portable(flattened),
            json!({"type": "object", "properties": {"name": {"type": "string"},
                "k": {"type": "string", "enum": ["a", "b"]}}, "required": ["name", "k"]})
        );
    }

    #[test]
    fn maps_get_properties_and_describe_their_values() {
        let raw = json!({"type": "object", "properties": {
            "scores": {"type": "object", "additionalProperties": {"type": "integer", "format": "uint64",
                "minimum": 0}, "description": "Scores by name."},
            "points": {"type": "object", "additionalProperties": {"type": "object",
                "properties": {"x": {"type": "number"}}, "required": ["x"]}},
            "any": {"type": "object", "additionalProperties": true},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}
        }});
        assert_eq!(
            portable(raw.clone()),
            json!({"type": "object", "properties": {
                "scores": {"type": "object", "description": "Scores by name.\nAny field names; each value is an \
                    integer from 0 to 9007199254740991.", "properties": {}},
                "points": {"type": "object", "properties": {}, "description": "Any field names; each value is a \
                    value of the JSON Schema {\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}},\
                    \"required\":[\"x\"]}."},
                "any": {"type": "object", "properties": {}, "description": "Any field names, with any values."},
                "closed": {"type": "object", "properties": {"a": {"type": "string"}}}
            }})
        );
        let checked = checked(raw);
        assert_eq!(
            checked["properties"]["scores"],
            json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0,
                "maximum": 18446744073709551615u64}, "description": "Scores by name.", "properties": {}})
        );
        assert_eq!(checked["properties"]["closed"]["additionalProperties"], false);
    }

    #[test]
    fn integer_bounds_are_clamped_to_what_javascript_holds_only_when_advertised() {
        let raw = json!({"type": "object", "properties": {
            "u": {"type": "integer", "format": "uint64", "minimum": 0},
            "i": {"type": "integer", "format": "int64"},
            "x": {"type": "integer", "exclusiveMaximum": 1e20},
            "f": {"type": "number", "maximum": 1e20}
        }});
        assert_eq!(
            portable(raw.clone())["properties"],
            json!({
                "u": {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER},
                "i": {"type": "integer", "minimum": -MAX_SAFE_INTEGER, "maximum": MAX_SAFE_INTEGER},
                "x": {"type": "integer", "exclusiveMaximum": MAX_SAFE_INTEGER},
                "f": {"type": "number", "maximum": 1e20}
            })
        );
        assert_eq!(
            checked(raw)["properties"]["i"],
            json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})
        );
    }

    #[test]
    fn arrays_always_have_items() {
        let raw = json!({"type": "object", "properties": {
            "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string", "description": "b"}]},
            "mixed": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
            "any": {"type": "array", "items": true}
        }});
        assert_eq!(
            portable(raw)["properties"],
            json!({
                "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string", "description": "b"}],
                    "items": {"type": "string"}},
                "mixed": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": {}},
                "any": {"type": "array", "items": {}}
            })
        );
    }

    #[test]
    fn the_portable_shapes_of_ordinary_types_pass_every_client_and_the_strict_ones_do_not() {
        let tool = |schema: Value| crate::Tool::new("t", input_schema(SchemaProfile::Portable, schema).unwrap());
        let mut shape = internally_tagged();
        let defs = shape.as_object_mut().unwrap().remove("$defs").unwrap();
        let raw = json!({"type": "object", "$defs": defs, "properties": {"shape": shape,
            "map": {"type": "object", "additionalProperties": {"type": "integer", "format": "uint64", "minimum": 0}},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}}});
        assert_eq!(crate::clients::check_tool(&tool(raw.clone())), []);
        let strict = crate::Tool::new("t", input_schema(SchemaProfile::Strict, raw).unwrap());
        let clients: std::collections::BTreeSet<_> =
            crate::clients::check_tool(&strict).into_iter().map(|p| p.client.id()).collect();
        // Claude Code minds `$defs` only in output schemas, and schemars
        // gives a `u64` no `maximum`.
        let expected = ["claude-desktop", "codex", "cursor", "gemini-cli", "visual-studio", "vscode"];
        assert_eq!(clients, expected.into_iter().collect());
    }
}
