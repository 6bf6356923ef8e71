//! Unions no portable shape exists for, opened: a `oneOf`/`anyOf` whose
//! branches are not all objects ("an integer or a string", "a label's
//! name or the label") is what Gemini refuses outright and what Codex
//! turns into a string, and the schema profile can merge only a union of
//! objects. Such a union becomes a schema open to any value whose
//! description says what the branches were; the API, which checks its own
//! input, remains the judge of the value. In a union of objects, a
//! property the branches declare differently is opened the same way (so
//! the merged object keeps no branch's narrower shape), each branch is
//! marked an object, and `additionalProperties: false`, which Gemini
//! refuses, is dropped everywhere.

use serde_json::{Map, Value};

/// Open every union in `schema` that is not a union of objects.
pub(crate) fn open_unions(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if map.get("additionalProperties") == Some(&Value::Bool(false)) {
        map.remove("additionalProperties");
    }
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = map.get_mut(key) else { continue };
        if branches.iter().all(is_object) {
            objects(branches);
            continue;
        }
        let kinds: Vec<String> = branches.iter().map(kind).collect();
        map.remove(key);
        map.remove("type");
        let said = format!("One of: {}.", dedup(kinds).join("; "));
        let description = match map.get("description").and_then(Value::as_str) {
            Some(own) => format!("{own}\n\n{said}"),
            None => said,
        };
        map.insert("description".into(), description.into());
    }
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" => {
                if let Value::Object(children) = value {
                    children.values_mut().for_each(open_unions);
                }
            }
            "items" | "additionalProperties" | "not" => open_unions(value),
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(items) = value {
                    items.iter_mut().for_each(open_unions);
                }
            }
            _ => {}
        }
    }
}

/// A union of objects made ready to merge: each branch typed `object`,
/// and a property declared differently by two branches opened in all.
fn objects(branches: &mut [Value]) {
    let mut seen: Map<String, Value> = Map::new();
    let mut differ = Vec::new();
    for branch in branches.iter_mut() {
        if let Value::Object(branch) = branch {
            branch.insert("type".into(), "object".into());
        }
        for (name, property) in branch.get("properties").and_then(Value::as_object).into_iter().flatten() {
            match seen.get(name) {
                Some(first) if first != property => differ.push(name.clone()),
                Some(_) => {}
                None => {
                    seen.insert(name.clone(), property.clone());
                }
            }
        }
    }
    for name in differ {
        let kinds: Vec<String> = branches
            .iter()
            .filter_map(|b| b.get("properties").and_then(|p| p.get(&name)))
            .map(|property| {
                let mut copy = property.clone();
                if let Value::Object(copy) = &mut copy {
                    copy.remove("description");
                }
                kind(&copy)
            })
            .collect();
        let said = format!("One of: {}.", dedup(kinds).join("; "));
        for branch in branches.iter_mut() {
            if let Some(Value::Object(property)) = branch.get_mut("properties").and_then(|p| p.get_mut(&name)) {
                let description = match property.get("description").and_then(Value::as_str) {
                    Some(own) => format!("{own}\n\n{said}"),
                    None => said.clone(),
                };
                property.clear();
                property.insert("description".into(), description.into());
            }
        }
    }
}

/// A branch the schema profile can merge into one object.
fn is_object(branch: &Value) -> bool {
    branch.get("type").is_some_and(|t| t == "object")
        || (branch.get("type").is_none() && branch.get("properties").is_some())
}

/// A branch in a few words: its type, and what an array holds or an
/// object's properties are.
fn kind(branch: &Value) -> String {
    let empty = Map::new();
    let map = branch.as_object().unwrap_or(&empty);
    let base = match map.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ if map.contains_key("properties") => "object".to_owned(),
        _ => "any value".to_owned(),
    };
    match base.as_str() {
        "array" => match map.get("items") {
            Some(items) => format!("an array of {}", kind(items)),
            None => "an array".to_owned(),
        },
        "object" => match map.get("properties").and_then(Value::as_object) {
            Some(properties) if !properties.is_empty() => {
                let names: Vec<&str> = properties.keys().map(String::as_str).take(8).collect();
                format!("an object with {}", names.join(", "))
            }
            _ => "an object".to_owned(),
        },
        _ => match map.get("enum").and_then(Value::as_array) {
            Some(values) => format!("{base} ({})", values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")),
            None => base,
        },
    }
}

fn dedup(mut kinds: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    kinds.retain(|k| seen.insert(k.clone()));
    kinds
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unions_of_plain_types_open_and_say_what_they_were() {
        let mut schema = json!({"type": "object", "properties": {
            "id": {"description": "The workflow.", "oneOf": [{"type": "integer"}, {"type": "string"}]},
            "labels": {"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "object", "properties": {"name": {"type": "string"}}}]}},
            "shape": {"oneOf": [{"type": "object", "properties": {"r": {"type": "number"}}}, {"properties": {"w": {}}}]}
        }});
        open_unions(&mut schema);
        assert_eq!(schema["properties"]["id"], json!({"description": "The workflow.\n\nOne of: integer; string."}));
        assert_eq!(
            schema["properties"]["labels"]["items"],
            json!({"description": "One of: string; an object with name."})
        );
        // A union of objects is left to the schema profile, which merges it.
        assert_eq!(schema["properties"]["shape"]["oneOf"][1]["type"], "object");
        let mut labels = json!({"oneOf": [
            {"type": "object", "additionalProperties": false, "properties": {"labels": {"type": "array", "items": {"type": "string"}}}},
            {"type": "object", "properties": {"labels": {"type": "array", "items": {"type": "object", "properties": {"name": {}}}}}}
        ]});
        open_unions(&mut labels);
        let opened = json!({"description": "One of: an array of string; an array of an object with name."});
        assert_eq!(labels["oneOf"][0], json!({"type": "object", "properties": {"labels": opened}}));
        assert_eq!(labels["oneOf"][1]["properties"]["labels"], opened);
    }
}
