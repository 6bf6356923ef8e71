//! How a parameter of a `#[prompt]` function gets its value: an argument,
//! read from the string the client sent, or a value the runtime supplies.
//! Traits decide, as for tools.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::PromptBuilder;
use crate::request::text::from_text;
use crate::request::{FromRequest, RequestParts};
use crate::tools::param::{ArgumentError, ParamError, ViaArgument, ViaRequest, accepts_absent, from_absent};

/// A value a `#[prompt]` function can take as a parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt parameter",
    label = "neither an argument read from text nor an injected value",
    note = "a prompt argument arrives as a string, read as `String`, a number, `bool`, `char`, an `Option` of those, or an enum deriving `serde::Deserialize` and schemars 1.x's `JsonSchema` (1.x is the version mcp-runtime uses; a `JsonSchema` derived with schemars 0.8 does not count)",
    note = "to have the runtime supply it, implement `mcp_runtime::request::FromRequest` for it"
)]
pub trait PromptParam<M>: Sized {
    /// Add what this parameter contributes to the definition.
    fn describe(builder: &mut PromptBuilder, name: &'static str, description: Option<&'static str>);

    /// Produce the value for one rendering.
    fn extract(request: &mut RequestParts, name: &'static str) -> Result<Self, ParamError>;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> PromptParam<ViaArgument> for T {
    fn describe(builder: &mut PromptBuilder, name: &'static str, description: Option<&'static str>) {
        builder.argument::<T>(name, description, !accepts_absent::<T>());
    }

    fn extract(request: &mut RequestParts, name: &'static str) -> Result<Self, ParamError> {
        match request.take_argument(name) {
            Some(Value::String(text)) => from_text(&text).map_err(|e| ArgumentError::invalid(name, &e).into()),
            None | Some(Value::Null) => from_absent::<T>().ok_or_else(|| ArgumentError::missing(name).into()),
            Some(other) => Err(ArgumentError::invalid(name, &format_args!("expected a string, got {other}")).into()),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<T: FromRequest> PromptParam<ViaRequest> for T {
    fn describe(builder: &mut PromptBuilder, _: &'static str, _: Option<&'static str>) {
        T::describe(builder.needs());
    }

    fn extract(request: &mut RequestParts, _: &'static str) -> Result<Self, ParamError> {
        T::from_request(request).map_err(ParamError::Failed)
    }
}
