//! The form an elicitation asks the user to fill in: the flat subset of
//! JSON Schema the spec allows for `requestedSchema` (an object whose
//! properties are strings, numbers, integers, booleans, single-select
//! enums and multi-select enums, with their titles, bounds, formats and
//! defaults), made from a generated schema or refused with the field that
//! does not fit.

use serde_json::{Map, Value};

use crate::jsonrpc::JsonObject;
use crate::schema::{SchemaProfile, apply};

/// The string formats a form field may declare.
const FORM_FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// The keywords kept for each kind of field; anything else is dropped, as
/// clients render only these.
const COMMON: &[&str] = &["type", "title", "description", "default"];
const STRING: &[&str] = &["minLength", "maxLength", "format", "enum", "oneOf", "enumNames"];
const NUMBER: &[&str] = &["minimum", "maximum"];
const ARRAY: &[&str] = &["items", "minItems", "maxItems"];

/// The `requestedSchema` for a type whose generated schema is `raw`, or
/// why it cannot be a form (naming the field). `type_name` is used in the
/// message.
pub fn requested_schema(type_name: &str, raw: Value) -> Result<JsonObject, String> {
    let shaped = apply(SchemaProfile::Portable, raw).map_err(|e| format!("`{type_name}`: {e}"))?;
    let Value::Object(root) = shaped else {
        return Err(format!("`{type_name}` cannot be an elicitation form: its schema is not an object"));
    };
    let is_object = root.get("type").and_then(Value::as_str) == Some("object");
    let Some(Value::Object(properties)) = root.get("properties").filter(|_| is_object) else {
        return Err(format!(
            "`{type_name}` cannot be an elicitation form: a form is a struct with named fields (one per question)"
        ));
    };
    let mut fields = Map::new();
    for (name, field) in properties {
        let shaped =
            form_field(field).map_err(|what| format!("field `{name}` of `{type_name}` {what}; {}", ALLOWED))?;
        fields.insert(name.clone(), Value::Object(shaped));
    }
    let mut form = Map::new();
    form.insert("type".into(), "object".into());
    form.insert("properties".into(), Value::Object(fields));
    if let Some(required) = root.get("required").filter(|r| r.as_array().is_some_and(|r| !r.is_empty())) {
        form.insert("required".into(), required.clone());
    }
    Ok(form)
}

const ALLOWED: &str = "an elicitation form takes only strings, numbers, integers, booleans and enums of strings \
                       (one value, or a list of them); ask for the rest in another elicitation or another field";

/// One field in the form's shape, or what it is instead.
fn form_field(field: &Value) -> Result<JsonObject, String> {
    let Value::Object(field) = field else { return Err("has no schema".into()) };
    let kind = field.get("type").and_then(Value::as_str).unwrap_or_default();
    let allowed: &[&str] = match kind {
        "string" => STRING,
        "number" | "integer" => NUMBER,
        "boolean" => &[],
        "array" if enum_items(field.get("items")) => ARRAY,
        "array" => return Err("is a list of values other than enum strings".into()),
        "object" => return Err("is an object (a nested struct or a map)".into()),
        "" => return Err("has no single type (an untagged enum, a data-carrying enum or `Value`)".into()),
        other => return Err(format!("is of type `{other}`")),
    };
    let mut shaped: JsonObject = field
        .iter()
        .filter(|(k, _)| COMMON.contains(&k.as_str()) || allowed.contains(&k.as_str()))
        .map(clone)
        .collect();
    if let Some(format) = shaped.get("format").and_then(Value::as_str)
        && !FORM_FORMATS.contains(&format)
    {
        shaped.remove("format");
    }
    Ok(shaped)
}

fn clone((k, v): (&String, &Value)) -> (String, Value) {
    (k.clone(), v.clone())
}

/// Whether an array's items are enum strings (a multi-select).
fn enum_items(items: Option<&Value>) -> bool {
    let Some(Value::Object(items)) = items else { return false };
    let strings = items.get("type").and_then(Value::as_str) == Some("string");
    strings && (items.contains_key("enum") || items.contains_key("oneOf") || items.contains_key("anyOf"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_flat_struct_keeps_its_fields_bounds_formats_and_defaults() {
        let raw = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Who", "maxLength": 40, "pattern": "x"},
                "email": {"type": "string", "format": "email"},
                "id": {"type": "string", "format": "uuid"},
                "people": {"type": "integer", "format": "uint32", "minimum": 0, "default": 2},
                "vip": {"type": ["boolean", "null"]},
                "size": {"$ref": "#/$defs/Size"},
                "extras": {"type": "array", "items": {"$ref": "#/$defs/Size"}}
            },
            "required": ["name", "people"],
            "$defs": {"Size": {"type": "string", "enum": ["small", "large"]}}
        });
        let form = requested_schema("Booking", raw).unwrap();
        assert_eq!(
            Value::Object(form),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Who", "maxLength": 40},
                    "email": {"type": "string", "format": "email"},
                    "id": {"type": "string"},
                    "people": {"type": "integer", "minimum": 0, "maximum": 4294967295_u64, "default": 2},
                    "vip": {"type": "boolean"},
                    "size": {"type": "string", "enum": ["small", "large"]},
                    "extras": {"type": "array", "items": {"type": "string", "enum": ["small", "large"]}}
                },
                "required": ["name", "people"]
            })
        );
    }

    #[test]
    fn what_a_form_cannot_hold_is_refused_naming_the_field() {
        let nested = json!({"type": "object", "properties": {"address": {"type": "object", "properties": {}}}});
        let error = requested_schema("Order", nested).unwrap_err();
        assert!(error.starts_with("field `address` of `Order` is an object"), "{error}");
        let list = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}});
        assert!(requested_schema("Order", list).unwrap_err().contains("field `tags`"));
        let not_struct = json!({"type": "string"});
        assert!(requested_schema("String", not_struct).unwrap_err().contains("struct with named fields"));
    }
}
