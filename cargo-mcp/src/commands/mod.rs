//! One module per command.

pub mod call;
pub mod inspect;
pub mod install;
pub mod new;
pub mod prompt;
pub mod publish;
pub mod read;
pub mod run;
pub mod serve;

use mcp_core::JsonObject;
use serde_json::Value;

use crate::failure::Failure;

/// `KEY=VALUE` arguments as an object. With `json`, a value that parses as
/// JSON is that JSON (`n=3`, `ok=true`, `tags=["a"]`), anything else a
/// string; without, every value is a string (prompt arguments).
pub fn pairs(pairs: &[String], json: bool) -> Result<JsonObject, Failure> {
    let mut object = JsonObject::new();
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=').filter(|(key, _)| !key.is_empty()) else {
            return Err(Failure::usage(format!("`{pair}` is not an argument: write KEY=VALUE")));
        };
        let value = match serde_json::from_str::<Value>(value) {
            Ok(parsed) if json => parsed,
            _ => Value::String(value.to_owned()),
        };
        object.insert(key.to_owned(), value);
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_json_when_they_parse_and_strings_otherwise() {
        let given: Vec<String> =
            ["n=3", "ok=true", "name=Ada", "tags=[\"a\"]", "quoted=\"42\"", "empty=", "eq=a=b", "x=null"]
                .map(String::from)
                .to_vec();
        let object = pairs(&given, true).unwrap();
        assert_eq!(
            Value::Object(object),
            json!({"n": 3, "ok": true, "name": "Ada", "tags": ["a"], "quoted": "42", "empty": "", "eq": "a=b", "x": null})
        );
        let strings = pairs(&given[..2], false).unwrap();
        assert_eq!(Value::Object(strings), json!({"n": "3", "ok": "true"}));
    }

    #[test]
    fn a_pair_without_a_key_is_refused() {
        for bad in ["novalue", "=3"] {
            let failure = pairs(&[bad.to_owned()], true).unwrap_err();
            assert!(failure.message().contains("KEY=VALUE"), "{}", failure.message());
        }
    }
}
