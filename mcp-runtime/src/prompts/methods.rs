//! The prompts capability's methods: `prompts/list` (pages of definitions
//! serialized once per version) and `prompts/get` (arguments read from
//! their strings, the prompt rendered, failures as the protocol's errors).

use mcp_core::{ErrorObject, GetPromptParams, GetPromptResult, JsonObject, codes, methods};
use serde_json::json;

use super::PromptError;
use super::messages::Fault;
use crate::client::rounds::Retry;
use crate::dispatch::reply::ResultBody;
use crate::dispatch::{Action, Incoming, parse, span};
use crate::invoke::{self, Outcome, Steps};
use crate::middleware::{Kind, Reply};

impl ResultBody for GetPromptResult {
    fn take_meta(&mut self) -> Option<JsonObject> {
        self.meta.take()
    }
}

pub(crate) fn list(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    crate::component::list::list(request, params, &request.shared().prompts, "prompts")
}

pub(crate) fn get(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let mut params = params.unwrap_or_default();
    let retry = Retry::take(&mut params);
    let GetPromptParams { name, arguments, meta } = parse(Some(params))?;
    let shared = request.shared();
    let prompts = shared.prompts.current();
    let entry = prompts
        .get(&name)
        .ok_or_else(|| prompts.unknown("prompt", &name, |e| request.may_use(&e.definition.scopes)))?
        .clone();
    span::prompt(request.span, &name);
    request.authorize(&entry.definition.scopes, format_args!("prompt `{name}`"))?;
    let arguments = arguments.unwrap_or_default();
    if let Some(unknown) = arguments
        .keys()
        .find(|key| !entry.definition.prompt.arguments.iter().flatten().any(|argument| argument.name == **key))
    {
        return Err(ErrorObject::invalid_params(format!("prompt `{name}` has no argument `{unknown}`")));
    }
    let rounds = retry.begin(request, methods::PROMPTS_GET, &name, &arguments)?;
    let parts = request.request_parts(name.clone(), arguments, meta);
    let show_details = shared.show_internal_errors;
    let (id, projection, version) = (request.id.clone(), request.projection.clone(), request.version);
    let handler = entry.handler.clone();
    let settle = move |outcome| match outcome {
        Outcome::Done(Ok(result)) => Ok(Reply::Prompt(result)),
        Outcome::Done(Err(error)) => Err(get_error(&name, error, show_details)),
        Outcome::Panicked(message) => {
            Err(get_error(&name, PromptError::internal(format!("prompt panicked: {message}")), show_details))
        }
        Outcome::TimedOut(limit) => Err(get_error(
            &name,
            PromptError::server(format!("rendering timed out after {}", invoke::seconds(limit))),
            show_details,
        )),
    };
    let finish = move |reply| match reply {
        Reply::Prompt(result) => Some(projection.answer(id, result.for_version(version))),
        _ => None,
    };
    let steps = Steps { rounds, timeout: entry.definition.timeout, task: None };
    Ok(invoke::call(request, Kind::Prompt, steps, parts, move |parts| handler.get(parts), settle, finish))
}

/// A failed rendering as the client sees it.
fn get_error(name: &str, error: PromptError, show_details: bool) -> ErrorObject {
    match (&error.internal, error.fault) {
        (None, Fault::Arguments) => ErrorObject::invalid_params(format!("prompt `{name}`: {}", error.message)),
        (None, Fault::Request) => {
            ErrorObject::new(codes::INVALID_PARAMS, error.message).with_data(json!({ "prompt": name }))
        }
        (None, Fault::Server) => {
            ErrorObject::new(codes::INTERNAL_ERROR, error.message).with_data(json!({ "prompt": name }))
        }
        (Some(internal), _) => {
            let text = crate::incident::masked("a prompt failed", &internal.to_string(), &error, show_details);
            ErrorObject::new(codes::INTERNAL_ERROR, text)
        }
    }
}
