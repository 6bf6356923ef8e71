//! A call's arguments, checked against the input schema the tool advertises
//! before the tool runs, with failures described so that a model can
//! correct its next call.
//!
//! The schema is the contract: bounds it declares (`minimum`, `maxLength`,
//! `pattern`, `enum`, `required`, `additionalProperties`) are enforced here,
//! by a validator built once per tool.

use std::collections::HashSet;
use std::fmt::Write;

use mcp_core::JsonObject;
use serde_json::Value;

use crate::schema_check::{Kind, Path, Problem, Schema, describe, quoted};

/// One tool's argument check.
pub(crate) struct ArgumentCheck {
    validator: Schema,
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
        let validator = Schema::compile(&schema)?;
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
        // The common case, valid arguments, stops at no problem and
        // records nothing.
        if self.validator.is_valid(&instance) {
            // Models send `5.0` for an integer; serde would refuse it.
            self.validator.make_integral(&mut instance);
            let Value::Object(arguments) = instance else { unreachable!("built as an object above") };
            return Ok(arguments);
        }
        let errors = self.validator.problems(&instance);
        // A value of the wrong type also breaks every other rule at its
        // place (an `enum`, a bound, another branch of an `allOf`); the
        // type is what to fix, so say only it.
        let mistyped: Vec<&Path<'_>> =
            errors.iter().filter(|e| matches!(e.kind, Kind::Type(_))).map(|e| &e.path).collect();
        let mut problems: Vec<String> = Vec::new();
        for error in errors.iter().filter(|e| matches!(e.kind, Kind::Type(_)) || !mistyped.contains(&&e.path)) {
            // Two rules can say one thing (a tagged enum's merged field and
            // its variant's own, in the portable profile): say it once.
            let problem = self.explain(error);
            if !problems.contains(&problem) {
                problems.push(problem);
            }
        }
        drop(errors);
        let Value::Object(arguments) = instance else { unreachable!("built as an object above") };
        if problems.is_empty() { Ok(arguments) } else { Err(problems) }
    }

    /// One problem in words: where, what was expected, what came.
    fn explain(&self, problem: &Problem<'_, '_>) -> String {
        let raw = problem.path.to_string();
        if let Some(name) = problem.missing() {
            let full = if raw.is_empty() { name.to_owned() } else { format!("{raw}.{name}") };
            return format!("argument `{full}`: {}", problem.expected());
        }
        if let Kind::Unknown(names) = &problem.kind
            && raw.is_empty()
        {
            let known = if self.declared.is_empty() { "no arguments".to_owned() } else { quoted(&self.declared) };
            return format!("unknown argument {}; this tool takes {known}", quoted(names));
        }
        let at = if raw.is_empty() { "`arguments`".to_owned() } else { format!("argument `{raw}`") };
        if problem.is_about_fields() {
            return format!("{at}: {}", problem.expected());
        }
        format!("{at}: {}, got {}{}", problem.expected(), describe(problem.instance), json_in_string_hint(problem))
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
fn json_in_string_hint(problem: &Problem<'_, '_>) -> &'static str {
    let Kind::Type(types) = problem.kind else { return "" };
    let Some(text) = problem.instance.as_str() else { return "" };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) if types.contains("object") => " (it holds JSON: send the object itself, not a string)",
        Ok(Value::Array(_)) if types.contains("array") => " (it holds JSON: send the array itself, not a string)",
        _ => "",
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
