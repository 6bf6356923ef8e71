//! A call's arguments, checked against the input schema the tool advertises
//! before the tool runs, with failures described so that a model can
//! correct its next call.
//!
//! The schema is the contract: bounds it declares (`minimum`, `maxLength`,
//! `pattern`, `enum`, `required`, `additionalProperties`) are enforced here,
//! by a validator built once per tool.

use std::collections::HashSet;
use std::fmt::Write;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use mcp_core::JsonObject;
use serde_json::Value;

/// One tool's argument check.
pub(crate) struct ArgumentCheck {
    validator: Validator,
    /// Arguments whose schema is an object or an array: a string sent for
    /// one of these is decoded as JSON once (models often send them so).
    structural: HashSet<String>,
    /// The arguments the tool declares, for "unknown argument" messages.
    declared: Vec<String>,
    /// The schema, for leaving out `null`s that mean "not sent".
    schema: JsonObject,
}

impl ArgumentCheck {
    /// The check for a tool with this (shaped) input schema.
    pub(crate) fn new(schema: &JsonObject) -> Result<Self, String> {
        let schema = Value::Object(schema.clone());
        let validator = jsonschema::draft202012::new(&schema).map_err(|e| e.to_string())?;
        let properties = schema.get("properties").and_then(Value::as_object);
        let declared: Vec<String> = properties.map(|p| p.keys().cloned().collect()).unwrap_or_default();
        let structural = properties
            .into_iter()
            .flatten()
            .filter(|(_, property)| is_structural(property, &schema))
            .map(|(name, _)| name.clone())
            .collect();
        let Value::Object(schema) = schema else { unreachable!("built as an object above") };
        Ok(ArgumentCheck { validator, structural, declared, schema })
    }

    /// The arguments as the tool should see them, or every problem with
    /// them. `lenient` allows the decoding of JSON sent as a string.
    pub(crate) fn prepare(&self, arguments: Option<Value>, lenient: bool) -> Result<JsonObject, Vec<String>> {
        let mut arguments = match arguments {
            None | Some(Value::Null) => JsonObject::new(),
            Some(Value::Object(map)) => map,
            Some(Value::String(text)) if lenient => match serde_json::from_str(&text) {
                Ok(Value::Object(map)) => map,
                _ => {
                    return Err(vec![format!(
                        "`arguments` must be a JSON object, got {}",
                        describe(&Value::String(text))
                    )]);
                }
            },
            Some(other) => return Err(vec![format!("`arguments` must be a JSON object, got {}", describe(&other))]),
        };
        if lenient {
            for name in &self.structural {
                if let Some(value @ Value::String(_)) = arguments.get_mut(name)
                    && let Some(decoded) = value.as_str().and_then(|s| serde_json::from_str::<Value>(s).ok())
                    && (decoded.is_object() || decoded.is_array())
                {
                    *value = decoded;
                }
            }
        }
        let mut instance = Value::Object(arguments);
        // `null` for a field that is not required means "not sent", at any
        // depth: models send it for fields they leave empty, and a type
        // with a default (`#[serde(default)]`) must get it.
        mcp_core::schema::omit_optional_nulls(&mut instance, &self.schema);
        // The common case, valid arguments, takes the validator's fast path.
        if self.validator.is_valid(&instance) {
            let Value::Object(arguments) = instance else { unreachable!("built as an object above") };
            return Ok(arguments);
        }
        let errors: Vec<ValidationError<'_>> = self.validator.iter_errors(&instance).collect();
        // A value of the wrong type also breaks every other rule at its
        // place (an `enum`, a bound); the type is what to fix, so say only it.
        let mistyped: HashSet<&str> = errors
            .iter()
            .filter(|e| matches!(e.kind(), ValidationErrorKind::Type { .. }))
            .map(|e| e.instance_path().as_str())
            .collect();
        let problems: Vec<String> = errors
            .iter()
            .filter(|e| {
                matches!(e.kind(), ValidationErrorKind::Type { .. }) || !mistyped.contains(e.instance_path().as_str())
            })
            .map(|e| self.explain(e))
            .collect();
        let Value::Object(arguments) = instance else { unreachable!("built as an object above") };
        if problems.is_empty() { Ok(arguments) } else { Err(problems) }
    }

    /// One validation error in words: where, what was expected, what came.
    fn explain(&self, error: &ValidationError<'_>) -> String {
        let raw = path(error);
        let at = if raw.is_empty() { raw.clone() } else { format!("argument `{raw}`") };
        let sent = describe(error.instance());
        let expected = match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                let full = if raw.is_empty() { name.to_owned() } else { format!("{raw}.{name}") };
                return format!("argument `{full}`: required but not sent");
            }
            ValidationErrorKind::AdditionalProperties { unexpected } if at.is_empty() => {
                let names = unexpected.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
                let known = self.declared.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
                let known = if known.is_empty() { "no arguments".to_owned() } else { known };
                return format!("unknown argument {names}; this tool takes {known}");
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let names = unexpected.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
                return format!("{at}: unknown field {names}");
            }
            ValidationErrorKind::Type { kind } => format!("expected {}", type_names(kind)),
            ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
            ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
            ValidationErrorKind::ExclusiveMinimum { limit } => format!("must be greater than {limit}"),
            ValidationErrorKind::ExclusiveMaximum { limit } => format!("must be less than {limit}"),
            ValidationErrorKind::MultipleOf { multiple_of, .. } => format!("must be a multiple of {multiple_of}"),
            ValidationErrorKind::MinLength { limit } => {
                format!("must be at least {} long", plural(*limit, "character"))
            }
            ValidationErrorKind::MaxLength { limit } => format!("must be at most {} long", plural(*limit, "character")),
            ValidationErrorKind::Pattern { pattern } => format!("must match the pattern `{pattern}`"),
            ValidationErrorKind::MinItems { limit } => format!("must have at least {}", plural(*limit, "item")),
            ValidationErrorKind::MaxItems { limit } => format!("must have at most {}", plural(*limit, "item")),
            ValidationErrorKind::UniqueItems => "must not repeat items".to_owned(),
            ValidationErrorKind::MinProperties { limit } => format!("must have at least {}", plural(*limit, "field")),
            ValidationErrorKind::MaxProperties { limit } => format!("must have at most {}", plural(*limit, "field")),
            ValidationErrorKind::Enum { options } => format!("expected one of {}", list(options)),
            ValidationErrorKind::Constant { expected_value } => format!("expected exactly {expected_value}"),
            ValidationErrorKind::Format { format } => format!("expected a {format}"),
            ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
                "does not match any of the accepted shapes".to_owned()
            }
            ValidationErrorKind::OneOfMultipleValid { .. } => "matches more than one accepted shape".to_owned(),
            _ => error.to_string(),
        };
        let at = if at.is_empty() { "`arguments`".to_owned() } else { at };
        format!("{at}: {expected}, got {sent}{}", json_in_string_hint(error))
    }
}

/// The `isError` result for argument problems: one line for one problem,
/// a list for several.
pub(crate) fn problems_result(problems: &[String]) -> mcp_core::CallToolResult {
    let text = match problems {
        [one] => one.clone(),
        many => {
            let mut text = format!("{} problems with the arguments:", many.len());
            for problem in many {
                let _ = write!(text, "\n- {problem}");
            }
            text
        }
    };
    mcp_core::CallToolResult::error_text(text)
}

/// When an object or array was expected and a string holding one arrived
/// (a strict server does not decode it), say so.
fn json_in_string_hint(error: &ValidationError<'_>) -> &'static str {
    let ValidationErrorKind::Type { kind } = error.kind() else { return "" };
    let Some(text) = error.instance().as_str() else { return "" };
    let wanted = |name: &str| match kind {
        TypeKind::Single(t) => t.to_string() == name,
        TypeKind::Multiple(set) => set.iter().any(|t| t.to_string() == name),
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) if wanted("object") => " (it holds JSON: send the object itself, not a string)",
        Ok(Value::Array(_)) if wanted("array") => " (it holds JSON: send the array itself, not a string)",
        _ => "",
    }
}

/// `3 items`, `1 item`.
fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// `route.stops[2].x`, or empty for the arguments object itself.
fn path(error: &ValidationError<'_>) -> String {
    let mut out = String::new();
    for (i, segment) in error.instance_path().segments().enumerate() {
        match segment {
            jsonschema::paths::LocationSegment::Property(name) if i == 0 => out.push_str(&name),
            jsonschema::paths::LocationSegment::Property(name) => {
                let _ = write!(out, ".{name}");
            }
            jsonschema::paths::LocationSegment::Index(index) => {
                let _ = write!(out, "[{index}]");
            }
        }
    }
    out
}

/// A value, as "the string \"two\"" or "the number 5": enough to see what
/// was sent without repeating a large payload.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 60 => {
            format!("the string {:?}… ({} characters)", s.chars().take(60).collect::<String>(), s.chars().count())
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(items) => format!("an array of {}", plural(items.len() as u64, "item")),
        Value::Object(_) => "an object".to_owned(),
    }
}

fn type_names(kind: &TypeKind) -> String {
    let article = |t: &str| match t {
        "null" => "null".to_owned(),
        "integer" | "object" | "array" => format!("an {t}"),
        "boolean" => "a boolean (true or false)".to_owned(),
        _ => format!("a {t}"),
    };
    match kind {
        TypeKind::Single(t) => article(&t.to_string()),
        TypeKind::Multiple(set) => {
            // `null` is there for an `Option`, which may be left out: the
            // type is what the caller needs to hear.
            let names: Vec<String> = set.iter().map(|t| t.to_string()).filter(|t| t != "null").collect();
            let names = if names.is_empty() { vec!["null".to_owned()] } else { names };
            names.iter().map(|t| article(t)).collect::<Vec<_>>().join(" or ")
        }
    }
}

fn list(options: &Value) -> String {
    match options {
        Value::Array(items) => items.iter().map(Value::to_string).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// Whether `schema` (a property of `root`) describes an object or array,
/// maybe `null` too (`Option<T>`: a type list, or an `anyOf` with a `null`
/// branch), following one local `$ref` (the strict profile keeps them).
fn is_structural(schema: &Value, root: &Value) -> bool {
    let resolved = match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/")) {
        Some(pointer) => root.pointer(&format!("/{pointer}")).unwrap_or(schema),
        None => schema,
    };
    let structural = |t: &Value| matches!(t.as_str(), Some("object" | "array"));
    match resolved.get("type") {
        Some(Value::Array(types)) => types.iter().any(structural) && !types.iter().any(|t| t == "string"),
        Some(t) => structural(t),
        None => {
            let branches = ["anyOf", "oneOf"].iter().filter_map(|k| resolved.get(*k)?.as_array()).flatten();
            let (null, others): (Vec<&Value>, Vec<&Value>) =
                branches.partition(|b| b.get("type").is_some_and(|t| t == "null"));
            !null.is_empty() && others.len() == 1 && is_structural(others[0], root)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: Value) -> ArgumentCheck {
        ArgumentCheck::new(schema.as_object().unwrap()).unwrap()
    }

    #[test]
    fn structural_arguments_sent_as_strings_are_decoded_once_and_strings_never() {
        let c = check(json!({"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "integer"}},
            "text": {"type": "string"}
        }}));
        let args = c.prepare(Some(json!({"list": "[1, 2]", "text": "[1, 2]"})), true).unwrap();
        assert_eq!(Value::Object(args), json!({"list": [1, 2], "text": "[1, 2]"}));
        let problems = c.prepare(Some(json!({"list": "[1, 2]"})), false).unwrap_err();
        assert_eq!(
            problems,
            [
                "argument `list`: expected an array, got the string \"[1, 2]\" (it holds JSON: send the array itself, not a string)"
            ]
        );
        // Decoded once: a string holding a string holding JSON stays a string.
        let problems = c.prepare(Some(json!({"list": "\"[1]\""})), true).unwrap_err();
        assert_eq!(problems, ["argument `list`: expected an array, got the string \"\\\"[1]\\\"\""]);
    }

    #[test]
    fn arguments_sent_as_a_string_are_decoded_when_lenient() {
        let c = check(json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}));
        assert_eq!(Value::Object(c.prepare(Some(json!("{\"a\": 1}")), true).unwrap()), json!({"a": 1}));
        assert_eq!(
            c.prepare(Some(json!("{\"a\": 1}")), false).unwrap_err(),
            ["`arguments` must be a JSON object, got the string \"{\\\"a\\\": 1}\""]
        );
        assert_eq!(
            c.prepare(Some(json!([1])), true).unwrap_err(),
            ["`arguments` must be a JSON object, got an array of 1 item"]
        );
    }
}
