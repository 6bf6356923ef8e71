//! A request's params as the session sends them: a map of members, and
//! for a tool call its name and arguments as the caller gave them,
//! serialized once, straight into the request.

use std::borrow::Cow;

use mcp_core::JsonObject;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::Error;

/// The params of one request. A tool call's arguments are written as the
/// JSON text they were serialized to: no map of them is built, hashed and
/// walked again to write the request; the few readers of them (headers
/// mirroring an argument) read the text when they need it.
#[derive(Debug, Default)]
pub(crate) struct Params {
    /// A tool call's `name` and `arguments` (an object's text).
    call: Option<(String, Box<RawValue>)>,
    /// Every other member (all of them, for any other request).
    members: JsonObject,
}

impl Params {
    /// `tools/call`'s params: `name`, and `arguments` serialized from the
    /// caller's value, which must serialize to an object (or to nothing).
    pub(crate) fn tool_call(name: &str, arguments: impl Serialize) -> Result<Params, Error> {
        let arguments = serde_json::value::to_raw_value(&arguments)
            .map_err(|e| Error::protocol(format!("the arguments cannot be serialized: {e}")))?;
        // Serialized compactly: the first byte says what it is.
        let arguments = match arguments.get().as_bytes().first() {
            Some(b'{') => arguments,
            _ if arguments.get() == "null" => RawValue::from_string("{}".to_owned()).expect("`{}` is JSON"),
            _ => return Err(Error::protocol(format!("tool arguments must be an object, not {arguments}"))),
        };
        Ok(Params { call: Some((name.to_owned(), arguments)), members: JsonObject::new() })
    }

    /// The members other than a tool call's name and arguments, to add
    /// to (`_meta`, a retry's `inputResponses`).
    pub(crate) fn members(&mut self) -> &mut JsonObject {
        &mut self.members
    }

    /// The string member `key` (a name a header mirrors).
    pub(crate) fn string(&self, key: &str) -> Option<&str> {
        match &self.call {
            Some((name, _)) if key == "name" => Some(name),
            _ => self.members.get(key).and_then(Value::as_str),
        }
    }

    /// The `arguments` member, read from its text for a tool call.
    pub(crate) fn arguments(&self) -> Option<Cow<'_, Value>> {
        match &self.call {
            Some((_, arguments)) => serde_json::from_str(arguments.get()).ok().map(Cow::Owned),
            None => self.members.get("arguments").map(Cow::Borrowed),
        }
    }
}

impl From<JsonObject> for Params {
    fn from(members: JsonObject) -> Params {
        Params { call: None, members }
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let call = usize::from(self.call.is_some()) * 2;
        let mut map = s.serialize_map(Some(call + self.members.len()))?;
        if let Some((name, arguments)) = &self.call {
            map.serialize_entry("name", name)?;
            map.serialize_entry("arguments", arguments)?;
        }
        for (key, value) in &self.members {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_call_is_written_as_its_map_would_be() {
        let mut params = Params::tool_call("add", json!({"a": 1, "b": [2, {"c": null}]})).unwrap();
        params.members().insert("_meta".into(), json!({"progressToken": "p1"}));
        let written = serde_json::to_value(&params).unwrap();
        let expected =
            json!({"name": "add", "arguments": {"a": 1, "b": [2, {"c": null}]}, "_meta": {"progressToken": "p1"}});
        assert_eq!(written, expected);
        assert_eq!(params.string("name"), Some("add"));
        assert_eq!(params.arguments().as_deref(), Some(&json!({"a": 1, "b": [2, {"c": null}]})));
    }

    #[test]
    fn arguments_must_serialize_to_an_object_or_to_nothing() {
        let none = Params::tool_call("t", ()).unwrap();
        assert_eq!(serde_json::to_value(&none).unwrap(), json!({"name": "t", "arguments": {}}));
        let error = Params::tool_call("t", [1, 2]).unwrap_err();
        assert_eq!(error.to_string(), Error::protocol("tool arguments must be an object, not [1,2]").to_string());
        let error = Params::tool_call("t", json!("x")).unwrap_err();
        assert!(error.to_string().contains(r#"tool arguments must be an object, not "x""#), "{error}");
        let map: std::collections::BTreeMap<(), i32> = [((), 1)].into();
        let error = Params::tool_call("t", map).unwrap_err();
        assert!(error.to_string().contains("the arguments cannot be serialized"), "{error}");
    }

    #[test]
    fn other_params_are_their_members() {
        let members = json!({"uri": "a://b", "arguments": {"x": 1}}).as_object().cloned().unwrap();
        let params = Params::from(members.clone());
        assert_eq!(serde_json::to_value(&params).unwrap(), Value::Object(members));
        assert_eq!(params.string("uri"), Some("a://b"));
        assert_eq!(params.arguments().as_deref(), Some(&json!({"x": 1})));
    }
}
