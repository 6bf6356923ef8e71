//! `null` for an optional field means "not sent": the one rule that lets
//! the portable profile advertise `Option<T>` as a plain `T` left out of
//! `required`, in both directions. Arguments lose such `null`s before they
//! are checked (models send them often), and structured output loses them
//! before it is checked and sent (serde writes `None` as `null`, which the
//! advertised schema does not take). Reading the value back with serde
//! gives the same `None`, since a missing `Option` field is `None`.

use serde_json::Value;

use crate::jsonrpc::JsonObject;

/// Leave out of `value`, at any depth `schema` describes, every field that
/// is `null`, not required, and whose own schema does not take `null`.
/// Returns whether anything was left out. A `null` that means something
/// (a list's element, a map's value, a field whose schema takes `null`)
/// stays. Local `$ref`s (the strict profile keeps them) are followed.
pub fn omit_optional_nulls(value: &mut Value, schema: &JsonObject) -> bool {
    // Most values hold no `null`: a plain scan is cheaper than the walk.
    contains_null(value) && Walk { root: schema }.object(value, schema)
}

/// Whether a `null` stands anywhere in `value`.
pub fn contains_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(contains_null),
        Value::Object(fields) => fields.values().any(contains_null),
        _ => false,
    }
}

/// A walk over a value and the schema that describes it.
struct Walk<'a> {
    /// The whole schema, where `$ref`s point.
    root: &'a JsonObject,
}

impl<'a> Walk<'a> {
    /// A subschema with its local `$ref` followed; `None` for `true` or a
    /// reference elsewhere.
    fn resolve(&self, schema: &'a Value) -> Option<&'a JsonObject> {
        let mut schema = schema.as_object()?;
        // Bounded: a definition that is only a reference to itself would loop.
        for _ in 0..32 {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else { return Some(schema) };
            let pointer = reference.strip_prefix('#')?;
            let mut at: &Value = self.root.get(pointer.split('/').nth(1)?)?;
            for part in pointer.split('/').skip(2) {
                at = at.get(part.replace("~1", "/").replace("~0", "~"))?;
            }
            schema = at.as_object()?;
        }
        None
    }

    fn any(&self, value: &mut Value, schema: &'a Value) -> bool {
        self.resolve(schema).is_some_and(|schema| self.object(value, schema))
    }

    fn object(&self, value: &mut Value, schema: &'a JsonObject) -> bool {
        match value {
            Value::Object(fields) => {
                let mut changed = false;
                if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                    let required = schema.get("required").and_then(Value::as_array);
                    let is_required = |name: &str| required.is_some_and(|r| r.iter().any(|n| n == name));
                    let before = fields.len();
                    let refuses =
                        |name: &str| properties.get(name).and_then(|p| self.resolve(p)).is_some_and(refuses_null);
                    fields.retain(|name, field| !(field.is_null() && !is_required(name) && refuses(name)));
                    changed |= fields.len() < before;
                    for (name, field) in fields.iter_mut() {
                        if let Some(property) = properties.get(name) {
                            changed |= self.any(field, property);
                        }
                    }
                }
                changed | self.alternatives(value, schema)
            }
            Value::Array(items) => {
                let prefix = schema.get("prefixItems").and_then(Value::as_array);
                let rest = schema.get("items");
                let mut changed = false;
                for (i, item) in items.iter_mut().enumerate() {
                    if let Some(item_schema) = prefix.and_then(|p| p.get(i)).or(rest) {
                        changed |= self.any(item, item_schema);
                    }
                }
                changed
            }
            _ => false,
        }
    }

    /// `Option<Struct>` is `anyOf: [struct, null]` (the checked and strict
    /// schemas keep the `null`): a value that is not `null` follows the one
    /// other branch.
    fn alternatives(&self, value: &mut Value, schema: &'a JsonObject) -> bool {
        let mut changed = false;
        for key in ["anyOf", "oneOf"] {
            let Some(branches) = schema.get(key).and_then(Value::as_array) else { continue };
            let mut others = branches.iter().filter(|b| !b.get("type").is_some_and(|t| t == "null"));
            if let (Some(only), None) = (others.next(), others.next()) {
                changed |= self.any(value, only);
            }
        }
        changed
    }
}

/// Whether a schema's `type` leaves `null` out.
fn refuses_null(schema: &JsonObject) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t != "null",
        Some(Value::Array(types)) => !types.iter().any(|t| t == "null"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_nulls_go_at_any_depth_and_meaningful_ones_stay() {
        let schema = json!({"type": "object", "properties": {
            "note": {"type": "string"},
            "kept": {"type": ["string", "null"]},
            "must": {"type": "string"},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            "maybe": {"description": "May be null."},
            "inner": {"anyOf": [{"type": "object", "properties": {"y": {"type": "string"}}}, {"type": "null"}]}
        }, "required": ["must"]});
        let mut value = json!({"note": null, "kept": null, "must": null, "list": [{"x": null}, null],
            "maybe": null, "inner": {"y": null}, "unknown": null});
        assert!(omit_optional_nulls(&mut value, schema.as_object().unwrap()));
        assert_eq!(
            value,
            json!({"kept": null, "must": null, "list": [{}, null], "maybe": null, "inner": {}, "unknown": null})
        );
        assert!(!omit_optional_nulls(&mut value, schema.as_object().unwrap()));
    }

    #[test]
    fn tuples_follow_their_prefix_and_local_refs_are_followed() {
        let schema = json!({"type": "array", "prefixItems": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"$ref": "#/$defs/B"},
            {"$ref": "https://example.com/C"}
        ], "$defs": {"B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/S"}, "b": {"type": "string"}}},
            "S": {"type": "string"}}});
        let mut value = json!([{"a": null}, {"a": null, "b": null}, {"a": null}]);
        omit_optional_nulls(&mut value, schema.as_object().unwrap());
        assert_eq!(value, json!([{}, {}, {"a": null}]));
    }
}
