//! The prompts capability's methods: `prompts/list` (pages of definitions
//! serialized once per version) and `prompts/get` (arguments read from
//! their strings, the prompt rendered, failures as the protocol's errors).

use mcp_core::{ErrorObject, GetPromptParams, GetPromptResult, JsonObject, codes, methods};
use serde_json::json;

use std::sync::Arc;

use tracing::Span;

use super::catalog::Entry;
use super::messages::Fault;
use super::{PromptError, Rendered};
use crate::admission::{self, Checked, Invocable, To};
use crate::client::rounds::Retry;
use crate::dispatch::reply::{Answer, ResultBody};
use crate::dispatch::{Action, Incoming, parse, span};
use crate::invoke::{self, Outcome, Steps};
use crate::middleware::{Kind, Reply};
use crate::request::RequestParts;
use crate::tools::BoxFuture;

impl ResultBody for GetPromptResult {
    fn take_meta(&mut self) -> Option<JsonObject> {
        self.meta.take()
    }
}

pub(crate) fn list(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    crate::component::list::list(request, params, &request.shared().prompts, "prompts")
}

pub(crate) fn get(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    admission::admit::<Get>(request, params)
}

/// One `prompts/get`, admitted.
struct Get {
    name: String,
    arguments: JsonObject,
    meta: Option<JsonObject>,
    entry: Arc<Entry>,
    show_details: bool,
}

impl Invocable for Get {
    const KIND: Kind = Kind::Prompt;
    type Params = GetPromptParams;
    type Output = Rendered;
    type Future = BoxFuture<'static, Rendered>;

    fn parse(mut params: JsonObject) -> Result<(GetPromptParams, Retry), ErrorObject> {
        let retry = Retry::take(&mut params);
        Ok((parse(Some(params))?, retry))
    }

    fn name(params: &GetPromptParams) -> &str {
        &params.name
    }

    fn span(span: &Span, name: &str) {
        span::prompt(span, name);
    }

    fn find(request: &Incoming<'_>, params: GetPromptParams) -> Result<Get, ErrorObject> {
        let GetPromptParams { name, arguments, meta } = params;
        let shared = request.shared();
        let prompts = shared.prompts.current();
        let view = request.view();
        let entry = prompts
            .find(&name, view.as_deref())
            .ok_or_else(|| {
                let visible = |e: &Entry| request.may_use(&e.definition.scopes) && prompts.on_for(e, view.as_deref());
                prompts.unknown("prompt", &name, visible)
            })?
            .clone();
        let arguments = arguments.unwrap_or_default();
        Ok(Get { name, arguments, meta, entry, show_details: shared.show_internal_errors })
    }

    fn scopes(&self) -> (&[String], &'static str, &str) {
        (&self.entry.definition.scopes, "prompt", &self.name)
    }

    fn check(&mut self, request: &Incoming<'_>, retry: Retry) -> Result<Checked, ErrorObject> {
        let declared = &self.entry.definition.prompt.arguments;
        if let Some(unknown) =
            self.arguments.keys().find(|key| !declared.iter().flatten().any(|argument| argument.name == **key))
        {
            let name = &self.name;
            return Err(ErrorObject::invalid_params(format!("prompt `{name}` has no argument `{unknown}`")));
        }
        Ok(Checked::Run(retry.begin(request, methods::PROMPTS_GET, &self.name, &self.arguments)?))
    }

    fn take(&mut self) -> (String, JsonObject, Option<JsonObject>) {
        (self.name.clone(), std::mem::take(&mut self.arguments), self.meta.take())
    }

    fn steps(&mut self, _: &Incoming<'_>, _: &RequestParts) -> Result<Steps, ErrorObject> {
        Ok(Steps { timeout: self.entry.definition.timeout, ..Steps::default() })
    }

    fn start(&self, parts: RequestParts) -> BoxFuture<'static, Rendered> {
        self.entry.handler.get(parts)
    }

    fn settle(&self, outcome: Outcome<Rendered>) -> Result<Reply, ErrorObject> {
        let (name, show_details) = (&self.name, self.show_details);
        match outcome {
            Outcome::Done(Ok(result)) => Ok(Reply::Prompt(result)),
            Outcome::Done(Err(error)) => Err(get_error(name, error, show_details)),
            Outcome::Panicked(message) => {
                Err(get_error(name, PromptError::internal(format!("prompt panicked: {message}")), show_details))
            }
            Outcome::TimedOut(limit) => Err(get_error(
                name,
                PromptError::server(format!("rendering timed out after {}", invoke::seconds(limit))),
                show_details,
            )),
        }
    }

    fn finish(&self, reply: Reply, to: &To, _: &Span) -> Option<Answer> {
        let Reply::Prompt(result) = reply else { return None };
        Some(to.projection.answer(to.id.clone(), result.for_version(to.version)))
    }
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
