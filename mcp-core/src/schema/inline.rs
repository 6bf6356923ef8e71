//! `$ref` inlining: the portable profile has no `$defs`, so every
//! reference is replaced by its definition, and a recursive type (which
//! cannot be inlined) is refused.

use serde_json::{Map, Value};

use super::SchemaError;
use crate::jsonrpc::JsonObject;

/// Replace every `$ref` by its definition; keywords beside a `$ref` (a
/// parameter's `description`) win over the definition's own.
pub(super) fn inline(value: Value, defs: &JsonObject, stack: &mut Vec<String>) -> Result<Value, SchemaError> {
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
