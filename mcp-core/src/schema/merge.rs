//! A data enum as one object. schemars describes an enum whose variants
//! carry data as a `oneOf` (untagged: `anyOf`) of object schemas, which
//! Gemini and OpenAI refuse; the portable profile lists every variant's
//! fields in one object instead, and says in descriptions which variant
//! needs which field.

use serde_json::{Map, Value, json};

use super::Purpose;
use crate::jsonrpc::JsonObject;

/// One variant: an object branch of the `oneOf`.
struct Variant<'a> {
    properties: &'a JsonObject,
    required: Vec<&'a str>,
    /// `additionalProperties: false` (an externally tagged variant,
    /// `deny_unknown_fields`); only the checked schema still has it.
    closed: bool,
    /// The variant's doc comment, which would be lost with its branch.
    description: Option<&'a str>,
}

/// Which variant a field belongs to: the tag's name and that variant's value.
#[derive(Clone, Copy)]
struct Condition<'a> {
    tag: &'a str,
    value: &'a Value,
}

/// Merge the object branches of `map`'s `oneOf`/`anyOf` into `map` itself.
/// Unit variants of an externally tagged enum (plain strings) may sit beside
/// them; anything else (an untagged enum of an integer and a string) is
/// left as it is, for want of a portable shape.
pub(super) fn variants(map: &mut JsonObject, purpose: Purpose) {
    let Some(key) = ["oneOf", "anyOf"].into_iter().find(|k| map.get(*k).is_some_and(Value::is_array)) else {
        return;
    };
    if map.get("type").is_some_and(|t| t != "object") {
        return;
    }
    let Some(Value::Array(branches)) = map.remove(key) else { return };
    let mut variants = Vec::new();
    let mut strings = Vec::new();
    for branch in &branches {
        if let Some(variant) = variant(branch) {
            variants.push(variant);
        } else if let Some(values) = string_values(branch) {
            strings.extend(values);
        } else {
            variants.clear();
            break;
        }
    }
    if variants.is_empty() {
        map.insert(key.into(), Value::Array(branches));
        return;
    }
    let tag = tag(&variants);
    let conditions: Vec<Option<Condition<'_>>> = match &tag {
        Some((tag, values)) => values.iter().map(|value| Some(Condition { tag, value })).collect(),
        None => vec![None; variants.len()],
    };
    let merged = merge_objects(&variants, &conditions, tag.as_ref(), purpose);
    let note = match &tag {
        Some(_) => None,
        None => forms_note(&variants, &strings),
    };
    absorb(map, merged);
    if let Some(note) = note {
        append_description(map, &note);
    }
    if !strings.is_empty() && purpose == Purpose::Check {
        // A unit variant is a plain string, one of those named.
        map.insert("type".into(), json!(["object", "string"]));
        let names = json!({"if": {"type": "string"}, "then": {"enum": strings}});
        match map.get_mut("allOf") {
            Some(Value::Array(rules)) => rules.push(names),
            _ => {
                map.insert("allOf".into(), json!([names]));
            }
        }
    } else if !strings.is_empty() && purpose.loose() {
        // A unit variant is a plain string, which an object type would
        // refuse; clients refuse a type list.
        map.remove("type");
    }
}

/// An object branch, if `branch` is one without alternatives of its own.
fn variant(branch: &Value) -> Option<Variant<'_>> {
    let branch = branch.as_object()?;
    if branch.get("type").and_then(Value::as_str) != Some("object")
        || ["oneOf", "anyOf", "allOf", "not", "if"].iter().any(|k| branch.contains_key(*k))
    {
        return None;
    }
    let properties = branch.get("properties")?.as_object()?;
    Some(Variant {
        properties,
        required: required(branch),
        closed: branch.get("additionalProperties") == Some(&false.into()),
        description: branch.get("description").and_then(Value::as_str).map(str::trim).filter(|d| !d.is_empty()),
    })
}

fn required(schema: &JsonObject) -> Vec<&str> {
    schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

/// The values of a string-constant branch (a unit variant, externally tagged).
fn string_values(branch: &Value) -> Option<Vec<Value>> {
    let branch = branch.as_object()?;
    if branch.get("type").and_then(Value::as_str) != Some("string") {
        return None;
    }
    match (branch.get("const"), branch.get("enum")) {
        (Some(value @ Value::String(_)), _) => Some(vec![value.clone()]),
        (None, Some(Value::Array(values))) if values.iter().all(Value::is_string) => Some(values.clone()),
        _ => None,
    }
}

/// The field every variant requires with a distinct string constant: the
/// tag of an internally or adjacently tagged enum, with each variant's value.
fn tag<'a>(variants: &[Variant<'a>]) -> Option<(&'a str, Vec<Value>)> {
    'names: for name in variants[0].properties.keys() {
        let mut values: Vec<Value> = Vec::new();
        for variant in variants {
            let Some(value) = variant.properties.get(name).and_then(constant) else { continue 'names };
            if !variant.required.contains(&name.as_str()) || values.contains(value) {
                continue 'names;
            }
            values.push(value.clone());
        }
        return Some((name.as_str(), values));
    }
    None
}

/// The one string a schema allows, if it allows one.
fn constant(schema: &Value) -> Option<&Value> {
    match (schema.get("const"), schema.get("enum").and_then(Value::as_array)) {
        (Some(value @ Value::String(_)), _) => Some(value),
        (None, Some(values)) if values.len() == 1 && values[0].is_string() => Some(&values[0]),
        _ => None,
    }
}

/// One object with the fields of all `variants`: required are the tag and
/// what every variant requires; the other fields say when they are needed.
fn merge_objects(
    variants: &[Variant<'_>],
    conditions: &[Option<Condition<'_>>],
    tag: Option<&(&str, Vec<Value>)>,
    purpose: Purpose,
) -> JsonObject {
    let mut fields: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, variant) in variants.iter().enumerate() {
        for name in variant.properties.keys() {
            match fields.iter_mut().find(|(n, _)| n == name) {
                Some((_, users)) => users.push(i),
                None => fields.push((name, vec![i])),
            }
        }
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    if let Some((name, values)) = tag {
        let mut schema = Map::new();
        schema.insert("type".into(), "string".into());
        schema.insert("enum".into(), Value::Array(values.clone()));
        if let Some(description) = variants[0].properties[*name].get("description") {
            schema.insert("description".into(), description.clone());
        }
        // What each kind means (its variant's doc), where models read it, as
        // a documented unit enum's values are described.
        let meanings: Vec<String> = variants
            .iter()
            .zip(values)
            .filter_map(|(variant, value)| Some(format!("- {}: {}", value.as_str()?, variant.description?)))
            .collect();
        if !meanings.is_empty() {
            append_description(&mut schema, &meanings.join("\n"));
        }
        properties.insert((*name).to_owned(), Value::Object(schema));
        required.push(Value::from(*name));
    }
    for (name, users) in fields {
        if tag.is_some_and(|(t, _)| *t == name) {
            continue;
        }
        let schemas: Vec<&Value> = users.iter().map(|&i| &variants[i].properties[name]).collect();
        let whens: Vec<Option<Condition<'_>>> = users.iter().map(|&i| conditions[i]).collect();
        let mut schema = merge_field(&schemas, &whens, purpose);
        // A field of one variant only, which has no other (an externally
        // tagged variant: `{"circle": {…}}`), carries that variant's doc.
        if let ([only], Value::Object(schema)) = (users.as_slice(), &mut schema)
            && tag.is_none()
            && variants[*only].properties.len() == 1
            && let Some(description) = variants[*only].description
            && schema.get("description").and_then(Value::as_str) != Some(description)
        {
            append_description(schema, description);
        }
        let required_by: Vec<usize> = users.iter().copied().filter(|&i| variants[i].required.contains(&name)).collect();
        if required_by.len() == variants.len() {
            required.push(Value::from(name));
        } else if let (Value::Object(schema), Some(note)) =
            (&mut schema, requirement_note(&users, &required_by, conditions))
        {
            append_description(schema, &note);
        }
        properties.insert(name.to_owned(), schema);
    }
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    if purpose == Purpose::Check && variants.iter().all(|v| v.closed) {
        out.insert("additionalProperties".into(), false.into());
    }
    if purpose == Purpose::Check
        && let Some((name, values)) = tag
    {
        let rules: Vec<Value> =
            variants.iter().zip(values).filter_map(|(variant, value)| variant_rule(name, value, variant)).collect();
        if !rules.is_empty() {
            out.insert("allOf".into(), Value::Array(rules));
        }
    }
    out
}

/// What one variant of a tagged enum asks of its fields, for the checked
/// schema: `{"if": <the tag is its value>, "then": <its fields>}`. The
/// merged object cannot say which fields a variant needs or which type a
/// field has in it; with this, a call that gets them wrong is told so at
/// the field's place instead of by serde without one.
fn variant_rule(tag: &str, value: &Value, variant: &Variant<'_>) -> Option<Value> {
    let mut properties = variant.properties.clone();
    properties.remove(tag);
    let required: Vec<&str> = variant.required.iter().copied().filter(|name| *name != tag).collect();
    if properties.is_empty() && required.is_empty() {
        return None;
    }
    Some(json!({
        "if": {"properties": {tag: {"const": value}}, "required": [tag]},
        "then": {"properties": properties, "required": required}
    }))
}

/// One schema for a field several variants declare. The same schema stays;
/// objects merge field by field; one type keeps what all agree on; different
/// types keep the first variant's schema for clients (a field needs a type)
/// and constrain nothing in the checked schema, where serde decides.
fn merge_field(schemas: &[&Value], whens: &[Option<Condition<'_>>], purpose: Purpose) -> Value {
    let first = schemas[0];
    let description = schemas.iter().find_map(|s| s.get("description")).cloned();
    let with_description = |mut schema: JsonObject| {
        if let Some(description) = &description {
            schema.insert("description".into(), description.clone());
        }
        Value::Object(schema)
    };
    if schemas.iter().all(|s| same_schema(s, first)) {
        let mut schema = first.clone();
        if let (Value::Object(schema), Some(description)) = (&mut schema, &description) {
            schema.entry("description").or_insert_with(|| description.clone());
        }
        return schema;
    }
    let variants: Option<Vec<Variant<'_>>> = schemas.iter().map(|s| variant(s)).collect();
    if let Some(variants) = variants {
        return with_description(merge_objects(&variants, whens, None, purpose));
    }
    let kind = |s: &Value| s.get("type").and_then(Value::as_str).map(str::to_owned);
    let first_kind = kind(first);
    if first_kind.is_some() && schemas.iter().all(|s| kind(s) == first_kind) {
        let Value::Object(first) = first else { unreachable!("it has a type") };
        let mut common: JsonObject = first
            .iter()
            .filter(|(key, value)| {
                key.as_str() != "description" && schemas.iter().all(|s| s.get(key.as_str()) == Some(value))
            })
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let enums: Option<Vec<&Vec<Value>>> = schemas.iter().map(|s| s.get("enum").and_then(Value::as_array)).collect();
        if let Some(enums) = enums {
            let mut all: Vec<Value> = Vec::new();
            for value in enums.into_iter().flatten() {
                if !all.contains(value) {
                    all.push(value.clone());
                }
            }
            common.insert("enum".into(), Value::Array(all));
        }
        return with_description(common);
    }
    let parts: Vec<String> = schemas
        .iter()
        .zip(whens)
        .map(|(schema, when)| {
            let what = summary(schema).unwrap_or_else(|| "any value".into());
            match when {
                Some(when) => format!("{what} when {} is {}", when.tag, when.value),
                None => what,
            }
        })
        .collect();
    let note = format!("Its type depends on the variant: {}.", parts.join("; "));
    let mut schema = match purpose {
        Purpose::Advertise => first.as_object().cloned().unwrap_or_default(),
        Purpose::Check | Purpose::Output => Map::new(),
    };
    schema.remove("description");
    let mut schema = match with_description(schema) {
        Value::Object(schema) => schema,
        _ => unreachable!("built as an object"),
    };
    append_description(&mut schema, &note);
    Value::Object(schema)
}

/// "Required when kind is "circle" or "rect"." for a field some variants
/// declare; nothing without a tag to name them by.
fn requirement_note(users: &[usize], required_by: &[usize], conditions: &[Option<Condition<'_>>]) -> Option<String> {
    let when = |ids: &[usize]| -> Option<String> {
        let values: Vec<String> =
            ids.iter().map(|&i| conditions[i].map(|c| c.value.to_string())).collect::<Option<_>>()?;
        let tag = conditions[*ids.first()?]?.tag;
        Some(format!("{tag} is {}", or_list(&values)))
    };
    let optional: Vec<usize> = users.iter().copied().filter(|i| !required_by.contains(i)).collect();
    Some(match (when(required_by), when(&optional)) {
        (Some(required), None) => format!("Required when {required}."),
        (Some(required), Some(optional)) => format!("Required when {required}; optional when {optional}."),
        (None, Some(optional)) => format!("Optional; used when {optional}."),
        (None, None) => return None,
    })
}

/// What to send, for an enum without a tag: "Exactly one of the fields
/// `circle`, `pair` (or, instead of an object, the string "empty")." for an
/// externally tagged one, the forms for an untagged one.
fn forms_note(variants: &[Variant<'_>], strings: &[Value]) -> Option<String> {
    if variants.len() + strings.len() < 2 {
        return None;
    }
    let strings = match strings {
        [] => String::new(),
        [one] => format!(" (or, instead of an object, the string {one})"),
        many => {
            let many: Vec<String> = many.iter().map(Value::to_string).collect();
            format!(" (or, instead of an object, one of the strings {})", or_list(&many))
        }
    };
    let external = variants.iter().all(|v| v.properties.len() == 1 && v.required.len() == 1);
    if external {
        let names: Vec<String> = variants.iter().flat_map(|v| v.properties.keys()).map(|k| format!("`{k}`")).collect();
        return Some(format!("Exactly one of the fields {}{strings}.", names.join(", ")));
    }
    let forms: Vec<String> = variants
        .iter()
        .map(|v| {
            let names: Vec<String> = v.properties.keys().map(|k| format!("`{k}`")).collect();
            format!("{{{}}}", names.join(", "))
        })
        .collect();
    Some(format!("The fields of exactly one of these forms: {}{strings}.", forms.join(", ")))
}

/// Put the merged object into the enum's own schema: fields the schema
/// already has (a struct that flattens the enum) come first and stay as
/// they are.
fn absorb(map: &mut JsonObject, merged: JsonObject) {
    for (key, value) in merged {
        match (key.as_str(), map.get_mut(&key), value) {
            ("properties", Some(Value::Object(own)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    own.entry(name).or_insert(schema);
                }
            }
            ("required", Some(Value::Array(own)), Value::Array(theirs)) => {
                for name in theirs {
                    if !own.contains(&name) {
                        own.push(name);
                    }
                }
            }
            ("allOf", Some(Value::Array(own)), Value::Array(theirs)) => own.extend(theirs),
            (_, Some(_), _) => {}
            (_, None, value) => {
                map.insert(key, value);
            }
        }
    }
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Whether two schemas say the same, descriptions aside.
pub(super) fn same_schema(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| match v {
        Value::Object(map) => Value::Object(
            map.iter().filter(|(k, _)| *k != "description").map(|(k, v)| (k.clone(), v.clone())).collect(),
        ),
        other => other.clone(),
    };
    strip(a) == strip(b)
}

/// A schema in words, for a description: "an integer", "one of "a", "b"",
/// or the schema itself as JSON; `None` for any value.
pub(super) fn summary(schema: &Value) -> Option<String> {
    let Value::Object(map) = schema else { return None };
    let rest: JsonObject =
        map.iter().filter(|(k, _)| *k != "description").map(|(k, v)| (k.clone(), v.clone())).collect();
    if rest.is_empty() {
        return None;
    }
    if let Some(Value::Array(values)) = rest.get("enum") {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        return Some(format!("one of {}", or_list(&values)));
    }
    let plain =
        |kind: &str| rest.keys().all(|k| k == "type" || (kind == "integer" && (k == "minimum" || k == "maximum")));
    let text = match rest.get("type").and_then(Value::as_str) {
        Some(kind @ "integer") if plain(kind) => match (rest.get("minimum"), rest.get("maximum")) {
            (Some(min), Some(max)) => format!("an integer from {min} to {max}"),
            (Some(min), None) => format!("an integer of at least {min}"),
            (None, Some(max)) => format!("an integer of at most {max}"),
            (None, None) => "an integer".into(),
        },
        Some(kind @ "number") if plain(kind) => "a number".into(),
        Some(kind @ "string") if plain(kind) => "a string".into(),
        Some(kind @ "boolean") if plain(kind) => "a boolean".into(),
        // The whole schema, its own description (a struct's doc) included.
        _ => format!("a value of the JSON Schema {}", Value::Object(map.clone())),
    };
    Some(text)
}

/// Add a sentence to a schema's description, on a line of its own.
pub(super) fn append_description(map: &mut JsonObject, text: &str) {
    let joined = match map.get("description").and_then(Value::as_str).map(str::trim_end) {
        Some(own) if !own.is_empty() => format!("{own}\n{text}"),
        _ => text.to_owned(),
    };
    map.insert("description".into(), joined.into());
}
