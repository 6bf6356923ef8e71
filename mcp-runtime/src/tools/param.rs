//! How a parameter of a `#[tool]` function gets its value.
//!
//! Traits decide, never the spelling of a type: every parameter goes through
//! [`ToolParam<M>`], whose marker `M` tells the implementations apart
//! (axum's pattern). JSON arguments (`Deserialize + JsonSchema`) use
//! [`ViaArgument`]; values the runtime supplies ([`FromRequest`]) use
//! [`ViaRequest`].

use std::fmt;

use mcp_core::CallToolResult;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

use super::definition::ToolBuilder;
use super::result::{IntoToolResult, ToolError};
use crate::request::{FromRequest, Rejection, RequestParts};

/// A value a `#[tool]` function can take as a parameter.
///
/// Never implemented directly: a JSON argument gets it from
/// `Deserialize + JsonSchema`, and an injected value from [`FromRequest`].
/// A type with both is ambiguous, and the compiler says so.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "neither a JSON argument nor an injected value",
    note = "to take it as a JSON argument, derive `serde::Deserialize` and schemars 1.x's `JsonSchema` for it (1.x is the version mcp-runtime uses; a `JsonSchema` derived with schemars 0.8 does not count)",
    note = "to have the runtime supply it, implement `mcp_runtime::request::FromRequest` for it"
)]
pub trait ToolParam<M>: Sized {
    /// Add what this parameter contributes to the tool's definition.
    fn describe(builder: &mut ToolBuilder, name: &'static str, description: Option<&'static str>);

    /// Produce the value for one call.
    fn extract(call: &mut RequestParts, name: &'static str) -> Result<Self, ParamError>;
}

/// Marker: the parameter is a JSON argument.
#[derive(Debug)]
pub enum ViaArgument {}

/// Marker: the parameter is supplied by the runtime ([`FromRequest`]).
#[derive(Debug)]
pub enum ViaRequest {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolParam<ViaArgument> for T {
    fn describe(builder: &mut ToolBuilder, name: &'static str, description: Option<&'static str>) {
        builder.parameter::<T>(name, description);
    }

    fn extract(call: &mut RequestParts, name: &'static str) -> Result<Self, ParamError> {
        match call.take_argument(name) {
            None => T::deserialize(Absent).map_err(|_| ArgumentError::missing(name).into()),
            Some(value) => T::deserialize(value).map_err(|e| ArgumentError::invalid(name, &e).into()),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<T: FromRequest> ToolParam<ViaRequest> for T {
    fn describe(builder: &mut ToolBuilder, _: &'static str, _: Option<&'static str>) {
        T::describe(builder.needs());
    }

    fn extract(call: &mut RequestParts, _: &'static str) -> Result<Self, ParamError> {
        T::from_request(call).map_err(ParamError::Failed)
    }
}

/// The parameter of a `#[tool]` function with `#[arg(default = …)]`: a JSON
/// argument that may be left out, and whose default the schema shows.
#[diagnostic::on_unimplemented(
    message = "`#[arg(default)]` needs `{Self}` to be a JSON argument that implements `serde::Serialize`",
    label = "no default for this type",
    note = "the default is shown in the input schema, so the type must implement `serde::Serialize`, `serde::Deserialize` and schemars 1.x's `JsonSchema` (1.x is the version mcp-runtime uses; a `JsonSchema` derived with schemars 0.8 does not count)"
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
        call: &mut RequestParts,
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
        call: &mut RequestParts,
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
pub(crate) fn accepts_absent<T: DeserializeOwned>() -> bool {
    T::deserialize(Absent).is_ok()
}

/// The value of a parameter whose argument is absent: only `Option`-like
/// types have one.
pub(crate) fn from_absent<T: DeserializeOwned>() -> Option<T> {
    T::deserialize(Absent).ok()
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
    Failed(Rejection),
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
    failed: Option<Rejection>,
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
            return ToolError::from(failed).into_tool_result();
        }
        let lines: Vec<String> = self.arguments.iter().map(ToString::to_string).collect();
        super::arguments::problems_result(&lines)
    }
}

impl ParamErrors {
    /// The error of a prompt rendering: the first injected value that
    /// failed, else every argument problem.
    pub fn into_prompt_error(self) -> crate::prompts::PromptError {
        if let Some(failed) = self.failed {
            return failed.into();
        }
        let lines: Vec<String> = self.arguments.iter().map(ToString::to_string).collect();
        crate::prompts::PromptError::arguments(lines.join("; "))
    }

    /// The error of a resource read: the first injected value that failed,
    /// else no resource at this URI (its variables do not fit).
    pub fn into_resource_error(self) -> crate::resources::ResourceError {
        if let Some(failed) = self.failed {
            return failed.into();
        }
        let lines: Vec<String> = self.arguments.iter().map(ToString::to_string).collect();
        crate::resources::ResourceError::not_found(lines.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::RequestId;
    use serde_json::json;

    fn call(args: Value) -> RequestParts {
        RequestParts::new(RequestId::Number(1), args.as_object().unwrap().clone())
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

    fn extract<T: ToolParam<M>, M>(call: &mut RequestParts, name: &'static str) -> Result<T, String> {
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
        let take = |c: &mut RequestParts, name| <u32 as DefaultArgument>::extract_or_else(c, name, || 7);
        assert!(matches!(take(&mut c, "n"), Ok(3)));
        assert!(matches!(take(&mut c, "z"), Ok(7)));
        assert!(matches!(take(&mut c, "absent"), Ok(7)));
        assert!(matches!(take(&mut c, "bad"), Err(ParamError::Argument(_))));
    }

    struct Tag(String);

    impl FromRequest for Tag {
        fn from_request(call: &mut RequestParts) -> Result<Self, Rejection> {
            match call.request_id() {
                RequestId::Number(n) => Ok(Tag(n.to_string())),
                RequestId::String(_) => Err(Rejection::new("string ids are not tagged")),
            }
        }
    }

    #[test]
    fn injected_values_come_from_the_call_and_leave_arguments_alone() {
        let mut c = call(json!({"tag": "client's"}));
        assert_eq!(extract::<Tag, _>(&mut c, "tag").map(|t| t.0), Ok("1".to_owned()));
        assert!(c.arguments().contains_key("tag"));
        let mut c = RequestParts::new(RequestId::String("x".into()), mcp_core::JsonObject::new());
        assert_eq!(extract::<Tag, _>(&mut c, "tag").map(|t| t.0), Err("failed: string ids are not tagged".to_owned()));
    }
}
