//! How a parameter of a `#[tool]` function gets its value.
//!
//! Traits decide, never the spelling of a type: every parameter goes through
//! [`ToolParam<M>`], whose marker `M` tells the implementations apart
//! (axum's pattern). JSON arguments (`Deserialize + JsonSchema`) use
//! [`ViaArgument`]; context extractors will use a marker of their own.

use std::fmt;

use mcp_core::{CallToolResult, JsonObject, ProtocolVersion, RequestId};
use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

use crate::tool::ToolBuilder;

/// One call of a tool: its arguments and what is known about the request.
#[derive(Debug)]
pub struct ToolCall {
    pub(crate) arguments: JsonObject,
    pub(crate) request_id: RequestId,
    pub(crate) meta: Option<JsonObject>,
    pub(crate) protocol_version: ProtocolVersion,
}

impl ToolCall {
    /// A call with these arguments, as a client would make it with `id`.
    pub fn new(request_id: RequestId, arguments: JsonObject) -> Self {
        ToolCall { arguments, request_id, meta: None, protocol_version: ProtocolVersion::LATEST_HANDSHAKE }
    }

    /// The arguments not yet taken by a parameter.
    pub fn arguments(&self) -> &JsonObject {
        &self.arguments
    }

    /// Take the argument `name` out of the call.
    pub fn take_argument(&mut self, name: &str) -> Option<Value> {
        self.arguments.remove(name)
    }

    /// The JSON-RPC id of the `tools/call` request.
    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// The request's `_meta`, if it had one.
    pub fn meta(&self) -> Option<&JsonObject> {
        self.meta.as_ref()
    }

    /// The protocol version of the session.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }
}

/// A value a `#[tool]` function can take as a parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "not a JSON argument",
    note = "a tool parameter is a JSON argument: its type implements `serde::Deserialize` and `schemars::JsonSchema` (`#[derive(Deserialize, JsonSchema)]`)"
)]
pub trait ToolParam<M>: Sized {
    /// Add what this parameter contributes to the tool's definition.
    fn describe(builder: &mut ToolBuilder, name: &'static str, description: Option<&'static str>);

    /// Produce the value for one call.
    fn extract(call: &mut ToolCall, name: &'static str) -> Result<Self, ArgumentError>;
}

/// Marker: the parameter is a JSON argument.
#[derive(Debug)]
pub enum ViaArgument {}

impl<T: DeserializeOwned + JsonSchema> ToolParam<ViaArgument> for T {
    fn describe(builder: &mut ToolBuilder, name: &'static str, description: Option<&'static str>) {
        builder.argument::<T>(name, description, !accepts_absent::<T>());
    }

    fn extract(call: &mut ToolCall, name: &'static str) -> Result<Self, ArgumentError> {
        match call.take_argument(name) {
            None => T::deserialize(Absent).map_err(|_| ArgumentError::missing(name)),
            Some(value) => T::deserialize(value).map_err(|e| ArgumentError::invalid(name, &e)),
        }
    }
}

/// Whether `T` can be built from an absent argument; this is what makes a
/// parameter optional, exactly as serde decides for a missing field
/// (`Option<T>` can, `f64` cannot), without looking at the type's name.
fn accepts_absent<T: DeserializeOwned>() -> bool {
    T::deserialize(Absent).is_ok()
}

/// A deserializer for a missing argument: only `Option`-like types accept it.
struct Absent;

impl<'de> Deserializer<'de> for Absent {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("missing"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Why one argument could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentError {
    name: String,
    message: String,
}

impl ArgumentError {
    /// A required argument was not sent.
    pub fn missing(name: &str) -> Self {
        ArgumentError { name: name.into(), message: "required but not sent".into() }
    }

    /// An argument was sent but does not fit its type.
    pub fn invalid(name: &str, error: &dyn fmt::Display) -> Self {
        ArgumentError { name: name.into(), message: error.to_string() }
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "argument `{}`: {}", self.name, self.message)
    }
}

/// Gathers every argument failure of one call, so the model sees all of
/// them at once.
#[derive(Debug, Default)]
pub struct ArgumentErrors {
    errors: Vec<ArgumentError>,
}

impl ArgumentErrors {
    /// No errors yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value, or `None` after recording its error.
    pub fn take<T>(&mut self, result: Result<T, ArgumentError>) -> Option<T> {
        result.map_err(|e| self.errors.push(e)).ok()
    }

    /// The `isError` result listing every failure.
    pub fn into_result(self) -> CallToolResult {
        let lines: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
        CallToolResult::error_text(format!("invalid arguments: {}", lines.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(args: Value) -> ToolCall {
        ToolCall::new(RequestId::Number(1), args.as_object().unwrap().clone())
    }

    #[test]
    fn optionality_comes_from_the_type_not_its_name() {
        type Maybe<T> = Option<T>;
        assert!(accepts_absent::<Option<f64>>());
        assert!(accepts_absent::<Maybe<String>>());
        assert!(!accepts_absent::<f64>());
        assert!(!accepts_absent::<Vec<u8>>());
        assert!(!accepts_absent::<Value>());
    }

    #[test]
    fn extraction_reports_missing_and_mistyped_arguments() {
        let mut c = call(json!({"a": 1, "b": "two"}));
        assert_eq!(<f64 as ToolParam<_>>::extract(&mut c, "a"), Ok(1.0));
        let err = <f64 as ToolParam<_>>::extract(&mut c, "b").unwrap_err();
        assert_eq!(err.to_string(), "argument `b`: invalid type: string \"two\", expected f64");
        let err = <f64 as ToolParam<_>>::extract(&mut c, "c").unwrap_err();
        assert_eq!(err.to_string(), "argument `c`: required but not sent");
        assert_eq!(<Option<f64> as ToolParam<_>>::extract(&mut c, "c"), Ok(None));
        let mut c = call(json!({"x": null}));
        assert_eq!(<Option<f64> as ToolParam<_>>::extract(&mut c, "x"), Ok(None));
    }
}
