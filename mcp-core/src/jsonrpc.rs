//! JSON-RPC 2.0 envelopes, as MCP uses them: ids, requests, notifications,
//! responses, error objects and their codes, and the classification of one
//! incoming JSON value into one of those.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON object, the shape of every MCP `params`, `result` and `_meta`.
pub type JsonObject = Map<String, Value>;

/// The member `key` of `object`. The objects a request is made of (its
/// `params`, their `_meta`) have a handful of members, and comparing a key
/// with each costs less than SipHash of the one asked for (a map lookup
/// with `preserve_order`): small objects are scanned, large ones looked up.
pub fn member<'a>(object: &'a JsonObject, key: &str) -> Option<&'a Value> {
    entry(object, key).map(|(_, value)| value)
}

/// The member `key` of `object` with its key as stored (see [`member`]).
pub fn entry<'a>(object: &'a JsonObject, key: &str) -> Option<(&'a String, &'a Value)> {
    if object.len() > 8 {
        return object.get_key_value(key);
    }
    object.iter().find(|(k, _)| *k == key)
}

/// A request's `_meta` (in its `params`), if it is an object.
pub fn request_meta(params: Option<&JsonObject>) -> Option<&JsonObject> {
    params.and_then(|p| member(p, "_meta")).and_then(Value::as_object)
}

/// The `"jsonrpc": "2.0"` marker. It serializes as `"2.0"` and refuses any
/// other value when deserialized, so a typed message is always well-formed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JsonRpcVersion;

impl JsonRpcVersion {
    /// The only version string JSON-RPC 2.0 allows.
    pub const STR: &'static str = "2.0";
}

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(Self::STR)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if s == Self::STR {
            Ok(JsonRpcVersion)
        } else {
            Err(de::Error::custom(format!("`jsonrpc` must be \"2.0\", got {s:?}")))
        }
    }
}

/// A request id: MCP allows a string or an integer (never `null`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// A request: a method call that expects exactly one response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// Echoed in the response.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The parameters; MCP always uses an object when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JsonObject>,
}

impl Request {
    /// A request with the given id, method and params.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<JsonObject>) -> Self {
        Request { jsonrpc: JsonRpcVersion, id: id.into(), method: method.into(), params }
    }
}

/// A notification: a method call that gets no response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name, e.g. `notifications/initialized`.
    pub method: String,
    /// The parameters, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JsonObject>,
}

impl Notification {
    /// A notification with the given method and params.
    pub fn new(method: impl Into<String>, params: Option<JsonObject>) -> Self {
        Notification { jsonrpc: JsonRpcVersion, method: method.into(), params }
    }
}

/// The error member of an error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// One of the codes in [`codes`].
    pub code: i64,
    /// A short, human-readable description.
    pub message: String,
    /// Extra structured information, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and a message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }

    /// `-32700`: the input was not JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("parse error: {detail}"))
    }

    /// `-32600`: the JSON was not a valid request.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(codes::INVALID_REQUEST, format!("invalid request: {detail}"))
    }

    /// `-32601`: no such method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(codes::METHOD_NOT_FOUND, format!("method not found: {method}"))
    }

    /// `-32602`: the params were wrong.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(codes::INVALID_PARAMS, format!("invalid params: {detail}"))
    }

    /// `-32603`: the server failed outside any tool.
    pub fn internal_error() -> Self {
        Self::new(codes::INTERNAL_ERROR, "internal error")
    }

    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// JSON-RPC and MCP error codes.
pub mod codes {
    /// The input was not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters: also an unknown tool or an invalid cursor.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A resource was not found (handshake versions only).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// An HTTP `Mcp-*` header disagrees with the body (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The client lacks a capability the request needs (2026-07-28).
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// The request needs URL-mode elicitation (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
}

/// The outcome carried by a [`Response`].
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A successful result.
    Result(Value),
    /// An error.
    Error(ErrorObject),
}

/// A response to a request. `id` is `None` only when the request's id could
/// not be read (a parse error), which serializes as `"id": null`.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The id of the request this answers.
    pub id: Option<RequestId>,
    /// The result or the error.
    pub outcome: Outcome,
}

impl Response {
    /// A successful response.
    pub fn result(id: RequestId, result: Value) -> Self {
        Response { id: Some(id), outcome: Outcome::Result(result) }
    }

    /// An error response; `id` is `None` when the request's id is unknown.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Response { id, outcome: Outcome::Error(error) }
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", &JsonRpcVersion)?;
        map.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Outcome::Result(r) => map.serialize_entry("result", r)?,
            Outcome::Error(e) => map.serialize_entry("error", e)?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            #[allow(dead_code)] // checked by its own Deserialize
            jsonrpc: JsonRpcVersion,
            id: Option<RequestId>,
            #[serde(default)]
            result: Option<Value>,
            #[serde(default)]
            error: Option<ErrorObject>,
        }
        let raw = Raw::deserialize(d)?;
        let outcome = match (raw.result, raw.error) {
            (Some(r), None) => Outcome::Result(r),
            (None, Some(e)) => Outcome::Error(e),
            _ => return Err(de::Error::custom("a response has exactly one of `result` and `error`")),
        };
        Ok(Response { id: raw.id, outcome })
    }
}

/// Any JSON-RPC message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response (to a request this side sent).
    Response(Response),
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(r) => r.serialize(s),
            Message::Notification(n) => n.serialize(s),
            Message::Response(r) => r.serialize(s),
        }
    }
}

/// Why an incoming JSON value is not a valid message; answered with
/// `-32600`, echoing `id` when one could be read.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidMessage {
    /// The id, when the value carried a usable one.
    pub id: Option<RequestId>,
    /// What is wrong, for the error message.
    pub reason: String,
    /// It was a notification (a method and no id) with bad params: it is
    /// never answered, as no notification is.
    pub notification: bool,
}

impl InvalidMessage {
    /// The error response this deserves.
    pub fn into_response(self) -> Response {
        Response::error(self.id, ErrorObject::invalid_request(self.reason))
    }
}

/// What one JSON text holds, read by [`Message::parse`].
#[derive(Debug)]
pub enum Text {
    /// One message.
    Message(Message),
    /// An array: a batch's items, for the caller to take or refuse.
    Batch(Vec<Value>),
    /// JSON, but not a JSON-RPC 2.0 message.
    Invalid(InvalidMessage),
    /// Not JSON at all.
    NotJson(serde_json::Error),
}

/// A message's members as they came, each `None` when absent (and
/// `Some(Value::Null)` when `null`, which `id` and `result` tell apart).
#[derive(Deserialize)]
struct Members {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// A member that is there, `null` included.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Message {
    /// Read one JSON text. A message is read straight into its members,
    /// with no map built for the envelope (the common case, on every
    /// request); anything else (an array, a scalar, duplicate keys, which
    /// a struct refuses) goes through a `Value`, and gets the same answer
    /// [`Message::from_value`] gives.
    pub fn parse(text: &[u8]) -> Text {
        if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
            && let Ok(members) = serde_json::from_slice::<Members>(text)
        {
            return match members.classify() {
                Ok(message) => Text::Message(message),
                Err(invalid) => Text::Invalid(invalid),
            };
        }
        match serde_json::from_slice(text) {
            Err(e) => Text::NotJson(e),
            Ok(Value::Array(items)) => Text::Batch(items),
            Ok(value) => match Message::from_value(value) {
                Ok(message) => Text::Message(message),
                Err(invalid) => Text::Invalid(invalid),
            },
        }
    }

    /// Classify one JSON value, explaining precisely what is wrong when it
    /// is not a JSON-RPC 2.0 message. (A batch array is not handled here.)
    pub fn from_value(value: Value) -> Result<Message, InvalidMessage> {
        let Value::Object(mut obj) = value else {
            return Err(InvalidMessage {
                id: None,
                reason: format!("expected a JSON object, got {}", kind_of(&value)),
                notification: false,
            });
        };
        let members = Members {
            id: obj.remove("id"),
            jsonrpc: obj.remove("jsonrpc"),
            method: obj.remove("method"),
            params: obj.remove("params"),
            result: obj.remove("result"),
            error: obj.remove("error"),
        };
        members.classify()
    }
}

impl Members {
    fn classify(self) -> Result<Message, InvalidMessage> {
        // `"id": null` is how an error answers a message whose id could not
        // be read; anything else needs a real id or none.
        let null_id = self.id.as_ref().is_some_and(Value::is_null);
        let id = match self.id {
            None | Some(Value::Null) => None,
            Some(raw) => match RequestId::deserialize(&raw) {
                Ok(id) => Some(id),
                Err(_) => {
                    return Err(InvalidMessage {
                        id: None,
                        reason: format!("`id` must be a string or an integer, got {}", kind_of(&raw)),
                        notification: false,
                    });
                }
            },
        };
        let invalid = |reason: String| InvalidMessage { id: id.clone(), reason, notification: false };
        match &self.jsonrpc {
            Some(Value::String(v)) if v == JsonRpcVersion::STR => {}
            Some(other) => return Err(invalid(format!("`jsonrpc` must be \"2.0\", got {other}"))),
            None => return Err(invalid("missing `\"jsonrpc\": \"2.0\"`".into())),
        }
        if let Some(method) = self.method {
            if null_id {
                return Err(invalid("`id` must be a string or an integer, got null".into()));
            }
            let Value::String(method) = method else {
                return Err(invalid("`method` must be a string".into()));
            };
            let params = match self.params {
                None => None,
                Some(Value::Object(p)) => Some(p),
                Some(other) => {
                    let reason = format!("`params` must be an object, got {}", kind_of(&other));
                    return Err(InvalidMessage { notification: id.is_none(), ..invalid(reason) });
                }
            };
            return Ok(match id {
                Some(id) => Message::Request(Request { jsonrpc: JsonRpcVersion, id, method, params }),
                None => Message::Notification(Notification { jsonrpc: JsonRpcVersion, method, params }),
            });
        }
        let outcome = match (self.result, self.error) {
            (Some(r), None) => Outcome::Result(r),
            (None, Some(e)) => match ErrorObject::deserialize(&e) {
                Ok(e) => Outcome::Error(e),
                Err(err) => return Err(invalid(format!("malformed `error`: {err}"))),
            },
            (None, None) => return Err(invalid("missing `method` (or `result`/`error` for a response)".into())),
            (Some(_), Some(_)) => return Err(invalid("a response cannot carry both `result` and `error`".into())),
        };
        match (id.clone(), outcome) {
            (Some(id), outcome) => Ok(Message::Response(Response { id: Some(id), outcome })),
            (None, Outcome::Error(error)) if null_id => {
                Ok(Message::Response(Response { id: None, outcome: Outcome::Error(error) }))
            }
            (None, _) => Err(invalid("a response needs an `id`".into())),
        }
    }
}

/// "a string", "an array", …: how a JSON value is named in error messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
