//! How a parameter of a `#[tool]` function gets its value.
//!
//! Traits decide, never the spelling of a type: every parameter goes through
//! [`ToolParam<M>`], whose marker `M` tells the implementations apart
//! (axum's pattern). JSON arguments (`Deserialize + JsonSchema`) use
//! [`ViaArgument`]; values the runtime supplies ([`FromToolCall`]) use
//! [`ViaCall`].

use std::fmt;

use mcp_core::{CallToolResult, JsonObject, ProtocolVersion, RequestId};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

use crate::response::{IntoToolResult, ToolError};
use crate::tool::ToolBuilder;

/// One call of a tool: its arguments and what is known about the request.
#[derive(Debug)]
pub struct ToolCall {
    pub(crate) tool: String,
    pub(crate) arguments: JsonObject,
    pub(crate) request_id: RequestId,
    pub(crate) meta: Option<JsonObject>,
    pub(crate) protocol_version: ProtocolVersion,
    /// The connection it came in on (none for a call made by hand).
    pub(crate) peer: Option<std::sync::Arc<crate::context::Peer>>,
    /// Where the call's notifications go (none for a call made by hand).
    pub(crate) outgoing: Option<crate::context::Outgoing>,
    /// A client capability the tool found missing (`Context::require_client_capability`).
    pub(crate) missing_capability: std::sync::Arc<std::sync::OnceLock<String>>,
    pub(crate) cancellation: crate::context::Cancellation,
    /// The server's shared values.
    pub(crate) state: std::sync::Arc<crate::state::StateMap>,
}

impl ToolCall {
    /// A call with these arguments, as a client would make it with `id`.
    pub fn new(request_id: RequestId, arguments: JsonObject) -> Self {
        ToolCall {
            tool: String::new(),
            arguments,
            request_id,
            meta: None,
            protocol_version: ProtocolVersion::LATEST_HANDSHAKE,
            peer: None,
            outgoing: None,
            missing_capability: std::sync::Arc::default(),
            cancellation: crate::context::Cancellation::default(),
            state: std::sync::Arc::default(),
        }
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
///
/// Never implemented directly: a JSON argument gets it from
/// `Deserialize + JsonSchema`, and an injected value from [`FromToolCall`].
/// A type with both is ambiguous, and the compiler says so.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "neither a JSON argument nor an injected value",
    note = "to take it as a JSON argument, derive `serde::Deserialize` and `schemars::JsonSchema` for it",
    note = "to have the runtime supply it, implement `mcp_runtime::FromToolCall` for it"
)]
pub trait ToolParam<M>: Sized {
    /// Add what this parameter contributes to the tool's definition.
    fn describe(builder: &mut ToolBuilder, name: &'static str, description: Option<&'static str>);

    /// Produce the value for one call.
    fn extract(call: &mut ToolCall, name: &'static str) -> Result<Self, ParamError>;
}

/// Marker: the parameter is a JSON argument.
#[derive(Debug)]
pub enum ViaArgument {}

/// Marker: the parameter is supplied by the runtime ([`FromToolCall`]).
#[derive(Debug)]
pub enum ViaCall {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolParam<ViaArgument> for T {
    fn describe(builder: &mut ToolBuilder, name: &'static str, description: Option<&'static str>) {
        builder.argument::<T>(name, description, !accepts_absent::<T>());
    }

    fn extract(call: &mut ToolCall, name: &'static str) -> Result<Self, ParamError> {
        match call.take_argument(name) {
            None => T::deserialize(Absent).map_err(|_| ArgumentError::missing(name).into()),
            Some(value) => T::deserialize(value).map_err(|e| ArgumentError::invalid(name, &e).into()),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<T: FromToolCall> ToolParam<ViaCall> for T {
    fn describe(builder: &mut ToolBuilder, _: &'static str, _: Option<&'static str>) {
        T::describe(builder);
    }

    fn extract(call: &mut ToolCall, _: &'static str) -> Result<Self, ParamError> {
        T::from_tool_call(call).map_err(ParamError::Failed)
    }
}

/// A parameter the runtime supplies from the call itself instead of from
/// the client's arguments; it never appears in the input schema.
///
/// Implement it to inject your own values into tools:
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::{FromToolCall, ToolCall};
///
/// /// The id of the request being served, as text.
/// struct RequestTag(String);
///
/// impl FromToolCall for RequestTag {
///     fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
///         Ok(RequestTag(call.request_id().to_string()))
///     }
/// }
///
/// /// Echo a message, tagged with the request that asked for it.
/// #[tool]
/// fn echo(message: String, tag: RequestTag) -> String {
///     format!("[{}] {message}", tag.0)
/// }
/// # fn main() {}
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be supplied by the runtime",
    note = "implement `mcp_runtime::FromToolCall` for it, or take it as a JSON argument"
)]
pub trait FromToolCall: Sized {
    /// Add what this parameter needs to the tool's definition (nothing by
    /// default). Called once, when a server is built.
    fn describe(builder: &mut ToolBuilder) {
        let _ = builder;
    }

    /// Produce the value for one call. An error ends the call with that
    /// error as its result, before the tool runs.
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError>;
}

/// The parameter of a `#[tool]` function with `#[arg(default = …)]`: a JSON
/// argument that may be left out, and whose default the schema shows.
#[diagnostic::on_unimplemented(
    message = "`#[arg(default)]` needs `{Self}` to be a JSON argument that implements `serde::Serialize`",
    label = "no default for this type",
    note = "the default is shown in the input schema, so the type must implement `Serialize`, `Deserialize` and `JsonSchema`"
)]
pub trait DefaultArgument: Sized {
    /// Add the argument, with `default` in its schema and not required.
    fn describe_with_default(
        builder: &mut ToolBuilder,
        name: &'static str,
        description: Option<&'static str>,
        default: &Self,
    );

    /// The argument, or `default()` when the client left it out (or sent
    /// `null`).
    fn extract_or_else(
        call: &mut ToolCall,
        name: &'static str,
        default: impl FnOnce() -> Self,
    ) -> Result<Self, ParamError>;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Serialize> DefaultArgument for T {
    fn describe_with_default(
        builder: &mut ToolBuilder,
        name: &'static str,
        description: Option<&'static str>,
        default: &Self,
    ) {
        builder.argument_with_default::<T>(name, description, default);
    }

    fn extract_or_else(
        call: &mut ToolCall,
        name: &'static str,
        default: impl FnOnce() -> Self,
    ) -> Result<Self, ParamError> {
        match call.take_argument(name) {
            None | Some(Value::Null) => Ok(default()),
            Some(value) => T::deserialize(value).map_err(|e| ArgumentError::invalid(name, &e).into()),
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

/// Why a parameter got no value.
#[derive(Debug)]
pub enum ParamError {
    /// The client's argument is missing or does not fit; the model can fix
    /// this, so every such error of a call is reported together.
    Argument(ArgumentError),
    /// An injected value could not be produced; this ends the call.
    Failed(ToolError),
}

impl From<ArgumentError> for ParamError {
    fn from(error: ArgumentError) -> Self {
        ParamError::Argument(error)
    }
}

/// Gathers every parameter failure of one call, so the model sees all of
/// them at once.
#[derive(Debug, Default)]
pub struct ParamErrors {
    arguments: Vec<ArgumentError>,
    failed: Option<ToolError>,
}

impl ParamErrors {
    /// No errors yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value, or `None` after recording its error.
    pub fn take<T>(&mut self, result: Result<T, ParamError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(ParamError::Argument(e)) => {
                self.arguments.push(e);
                None
            }
            Err(ParamError::Failed(e)) => {
                self.failed.get_or_insert(e);
                None
            }
        }
    }

    /// The `isError` result: the first injected value that failed, else
    /// every argument failure.
    pub fn into_result(self) -> CallToolResult {
        if let Some(failed) = self.failed {
            return failed.into_tool_result();
        }
        let lines: Vec<String> = self.arguments.iter().map(ToString::to_string).collect();
        crate::arguments::problems_result(&lines)
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

    fn extract<T: ToolParam<M>, M>(call: &mut ToolCall, name: &'static str) -> Result<T, String> {
        T::extract(call, name).map_err(|e| match e {
            ParamError::Argument(e) => e.to_string(),
            ParamError::Failed(e) => format!("failed: {e}"),
        })
    }

    #[test]
    fn extraction_reports_missing_and_mistyped_arguments() {
        let mut c = call(json!({"a": 1, "b": "two"}));
        assert_eq!(extract::<f64, _>(&mut c, "a"), Ok(1.0));
        let err = extract::<f64, _>(&mut c, "b").unwrap_err();
        assert_eq!(err, "argument `b`: invalid type: string \"two\", expected f64");
        let err = extract::<f64, _>(&mut c, "c").unwrap_err();
        assert_eq!(err, "argument `c`: required but not sent");
        assert_eq!(extract::<Option<f64>, _>(&mut c, "c"), Ok(None));
        let mut c = call(json!({"x": null}));
        assert_eq!(extract::<Option<f64>, _>(&mut c, "x"), Ok(None));
    }

    #[test]
    fn defaults_fill_absent_and_null_arguments_only() {
        let mut c = call(json!({"n": 3, "z": null, "bad": "x"}));
        let take = |c: &mut ToolCall, name| <u32 as DefaultArgument>::extract_or_else(c, name, || 7);
        assert!(matches!(take(&mut c, "n"), Ok(3)));
        assert!(matches!(take(&mut c, "z"), Ok(7)));
        assert!(matches!(take(&mut c, "absent"), Ok(7)));
        assert!(matches!(take(&mut c, "bad"), Err(ParamError::Argument(_))));
    }

    struct Tag(String);

    impl FromToolCall for Tag {
        fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
            match call.request_id() {
                RequestId::Number(n) => Ok(Tag(n.to_string())),
                RequestId::String(_) => Err(ToolError::new("string ids are not tagged")),
            }
        }
    }

    #[test]
    fn injected_values_come_from_the_call_and_leave_arguments_alone() {
        let mut c = call(json!({"tag": "client's"}));
        assert_eq!(extract::<Tag, _>(&mut c, "tag").map(|t| t.0), Ok("1".to_owned()));
        assert!(c.arguments().contains_key("tag"));
        let mut c = ToolCall::new(RequestId::String("x".into()), JsonObject::new());
        assert_eq!(extract::<Tag, _>(&mut c, "tag").map(|t| t.0), Err("failed: string ids are not tagged".to_owned()));
    }
}
