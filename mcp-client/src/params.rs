//! A request's params as the session sends them: a map of members, and
//! for a tool call its name and arguments as the caller gave them,
//! serialized once, straight into the request.

use std::borrow::Cow;
use std::sync::Arc;

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
    /// Members the request's era adds to its `_meta` (2026-07-28's
    /// envelope, the same for every request of a session): written into
    /// `_meta` as the request is serialized, where copying them into each
    /// request's map cost a deep clone of the client's capabilities per
    /// request.
    era_meta: Option<Arc<JsonObject>>,
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
        Ok(Params { call: Some((name.to_owned(), arguments)), members: JsonObject::new(), era_meta: None })
    }

    /// Write `meta`'s members into `_meta` too (over members of the same
    /// name); `None`: no more.
    pub(crate) fn set_era_meta(&mut self, meta: Option<Arc<JsonObject>>) {
        self.era_meta = meta;
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
        Params { call: None, members, era_meta: None }
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let call = usize::from(self.call.is_some()) * 2;
        let era = self.era_meta.as_deref();
        // The length is exact: a serializer may write an empty map at once.
        let era_only = usize::from(era.is_some() && !self.members.contains_key("_meta"));
        let mut map = s.serialize_map(Some(call + self.members.len() + era_only))?;
        if let Some((name, arguments)) = &self.call {
            map.serialize_entry("name", name)?;
            map.serialize_entry("arguments", arguments)?;
        }
        for (key, value) in &self.members {
            match (key.as_str(), value, era) {
                ("_meta", Value::Object(own), Some(era)) => map.serialize_entry(key, &Meta { own, era })?,
                _ => map.serialize_entry(key, value)?,
            }
        }
        if let Some(era) = era.filter(|_| era_only == 1) {
            map.serialize_entry("_meta", era)?;
        }
        map.end()
    }
}

/// A request's own `_meta` with its era's members (which win).
struct Meta<'a> {
    own: &'a JsonObject,
    era: &'a JsonObject,
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (key, value) in self.own.iter().filter(|(key, _)| !self.era.contains_key(*key)) {
            map.serialize_entry(key, value)?;
        }
        for (key, value) in self.era {
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
    fn the_era_meta_is_written_into_meta_over_its_own_members() {
        let era: JsonObject = json!({"v": "2026-07-28", "caps": {"x": {}}}).as_object().cloned().unwrap();
        let mut params = Params::tool_call("add", json!({"a": 1})).unwrap();
        params.set_era_meta(Some(Arc::new(era.clone())));
        let written = serde_json::to_value(&params).unwrap();
        assert_eq!(
            written,
            json!({"name": "add", "arguments": {"a": 1}, "_meta": {"v": "2026-07-28", "caps": {"x": {}}}})
        );
        params.members().insert("_meta".into(), json!({"progressToken": "p1", "v": "mine"}));
        let written = serde_json::to_value(&params).unwrap();
        let meta = json!({"progressToken": "p1", "v": "2026-07-28", "caps": {"x": {}}});
        assert_eq!(written, json!({"name": "add", "arguments": {"a": 1}, "_meta": meta}));
        // Written as text too, once per key.
        let text = serde_json::to_string(&params).unwrap();
        assert_eq!(text.matches("\"v\"").count(), 1, "{text}");
        params.set_era_meta(None);
        let written = serde_json::to_value(&params).unwrap();
        assert_eq!(written["_meta"], json!({"progressToken": "p1", "v": "mine"}));
        // A request of no params of its own (`server/discover`) gets the
        // era's as its only member, as text too.
        let mut bare = Params::default();
        bare.set_era_meta(Some(Arc::new(era)));
        let text = serde_json::to_string(&bare).unwrap();
        assert_eq!(text, r#"{"_meta":{"v":"2026-07-28","caps":{"x":{}}}}"#);
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
