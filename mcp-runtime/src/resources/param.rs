//! How a parameter of a `#[resource]` function gets its value: the macro
//! decides by name (a parameter named after a template variable reads it),
//! and these traits check the type, each with a message at the type.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ResourceBuilder;
use crate::request::text::from_text;
use crate::request::{FromRequest, RequestParts};
use crate::tools::param::{ArgumentError, ParamError, accepts_absent, from_absent};

/// A parameter that reads a URI template variable from its text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a URI template variable",
    label = "not readable from text",
    note = "a template variable is read as `String`, a number, `bool`, `char`, an `Option` of those, or an enum deriving `serde::Deserialize` and schemars 1.x's `JsonSchema` (1.x is the version mcp-runtime uses; a `JsonSchema` derived with schemars 0.8 does not count)"
)]
pub trait TemplateVariable: Sized {
    /// Declare the variable (checked when the server starts).
    fn describe(builder: &mut ResourceBuilder, name: &'static str);

    /// The variable's value for one read.
    fn extract(request: &mut RequestParts, name: &'static str) -> Result<Self, ParamError>;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> TemplateVariable for T {
    fn describe(builder: &mut ResourceBuilder, name: &'static str) {
        builder.variable::<T>(name, accepts_absent::<T>());
    }

    fn extract(request: &mut RequestParts, name: &'static str) -> Result<Self, ParamError> {
        match request.take_argument(name) {
            Some(Value::String(text)) => from_text(&text).map_err(|e| ArgumentError::invalid(name, &e).into()),
            Some(other) => T::deserialize(other).map_err(|e| ArgumentError::invalid(name, &e).into()),
            None => from_absent::<T>().ok_or_else(|| ArgumentError::missing(name).into()),
        }
    }
}

/// A parameter the runtime supplies ([`FromRequest`]): any parameter of a
/// `#[resource]` not named after a template variable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not supplied by the runtime, and this parameter is no variable of the URI",
    label = "neither a template variable nor an injected value",
    note = "name the parameter after a variable of the URI template (`{{name}}` in the URI) to read it from the URI",
    note = "or take a value the runtime supplies: `Context`, `State<T>`, or a type implementing `mcp_runtime::request::FromRequest`"
)]
pub trait Injected: Sized {
    /// Say what it needs from the server.
    fn describe(builder: &mut ResourceBuilder);

    /// Its value for one read.
    fn extract(request: &mut RequestParts) -> Result<Self, ParamError>;
}

#[diagnostic::do_not_recommend]
impl<T: FromRequest> Injected for T {
    fn describe(builder: &mut ResourceBuilder) {
        T::describe(builder.needs());
    }

    fn extract(request: &mut RequestParts) -> Result<Self, ParamError> {
        T::from_request(request).map_err(ParamError::Failed)
    }
}
