//! `completion/complete`: values for a prompt's argument or a resource
//! template's variable. An enum's values and a `bool`'s come by themselves
//! (filtered by the typed prefix, case-insensitively); any other argument
//! completes with a function named in `#[arg(complete = …)]`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcp_core::{CompleteParams, CompleteRef, CompleteResult, Completion, ErrorObject, JsonObject};

use tracing::Span;

use crate::admission::{self, Checked, Invocable, To};
use crate::client::rounds::Retry;
use crate::dispatch::reply::{Answer, ResultBody};
use crate::dispatch::{Action, Incoming, parse};
use crate::invoke::{self, Outcome, Steps};
use crate::middleware::{Kind, Reply};
use crate::request::{FromRequest, Rejection, RequestParts};
use crate::tools::BoxFuture;

/// One argument's completions.
#[derive(Clone)]
pub(crate) enum Completions {
    /// None known.
    None,
    /// A fixed set: an enum's values, a `bool`'s.
    Values(Vec<String>),
    /// A function's.
    With(Completer),
}

impl std::fmt::Debug for Completions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Completions::None => f.write_str("None"),
            Completions::Values(values) => f.debug_tuple("Values").field(values).finish(),
            Completions::With(_) => f.write_str("With(..)"),
        }
    }
}

impl PartialEq for Completions {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Completions::None, Completions::None) => true,
            (Completions::Values(a), Completions::Values(b)) => a == b,
            (Completions::With(a), Completions::With(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// The most values one completion carries (the spec's limit).
const MAX_VALUES: usize = 100;

/// A completion function, as [`PromptBuilder::complete_with`](crate::prompts::PromptBuilder::complete_with)
/// takes it. Make one from an `async fn(Completing) -> Vec<String>` with
/// [`completer`].
pub type Completer = Arc<dyn Fn(Completing) -> BoxFuture<'static, Vec<String>> + Send + Sync>;

/// Make a [`Completer`] from an async function.
pub fn completer<F, Fut>(function: F) -> Completer
where
    F: Fn(Completing) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Vec<String>> + Send + 'static,
{
    Arc::new(move |completing| Box::pin(function(completing)))
}

/// What a completion function is asked: the value typed so far, the other
/// arguments already filled in, and the request (for `Context`, `State<T>`
/// and your own extractors, through [`Completing::extract`]).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::completion::Completing;
///
/// /// Cities starting with what was typed.
/// async fn cities(completing: Completing) -> Vec<String> {
///     let typed = completing.value().to_lowercase();
///     ["Paris", "Prague", "Porto"].into_iter().filter(|c| c.to_lowercase().starts_with(&typed)).map(String::from).collect()
/// }
///
/// /// Plan a trip.
/// #[prompt]
/// fn trip(#[arg(complete = cities)] city: String) -> String {
///     format!("Plan three days in {city}.")
/// }
/// # fn main() {}
/// ```
pub struct Completing {
    value: String,
    arguments: BTreeMap<String, String>,
    parts: RequestParts,
}

impl Completing {
    /// What the user typed so far.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Another argument's value, if the client sent it (2025-06-18 and
    /// later send them).
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// Every other argument already filled in.
    pub fn arguments(&self) -> &BTreeMap<String, String> {
        &self.arguments
    }

    /// A value the runtime supplies: `Context`, `State<T>`, or a type of
    /// your own implementing [`FromRequest`].
    pub fn extract<T: FromRequest>(&mut self) -> Result<T, Rejection> {
        T::from_request(&mut self.parts)
    }
}

impl ResultBody for CompleteResult {
    fn take_meta(&mut self) -> Option<JsonObject> {
        self.meta.take()
    }
}

/// `values` cut to the spec's limit, with the total and whether more exist.
fn completion(values: Vec<String>) -> Completion {
    let total = values.len();
    let mut values = values;
    values.truncate(MAX_VALUES);
    Completion { values, total: Some(total as u64), has_more: Some(total > MAX_VALUES) }
}

/// The values of `known` that start with `typed`, ignoring case.
fn filtered(known: &[String], typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    known.iter().filter(|v| v.to_lowercase().starts_with(&typed)).cloned().collect()
}

pub(crate) fn complete(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    admission::admit::<Complete>(request, params)
}

/// What a completion is for.
enum Subject {
    Prompt(Arc<crate::prompts::catalog::Entry>),
    Template(Arc<crate::resources::catalog::Entry>),
    /// A resource with a fixed URI: nothing to complete.
    Fixed,
}

/// One `completion/complete`, admitted.
struct Complete {
    subject: Subject,
    /// The prompt's name or the template's URI.
    target: String,
    argument: String,
    value: String,
    arguments: BTreeMap<String, String>,
    meta: Option<JsonObject>,
    /// Its function, once the argument is known to have one.
    completer: Option<Completer>,
    show_details: bool,
}

/// `values` as a completion result.
fn answer(values: Vec<String>) -> CompleteResult {
    CompleteResult { completion: completion(values), meta: None }
}

impl Invocable for Complete {
    const KIND: Kind = Kind::Completion;
    type Params = CompleteParams;
    type Output = Vec<String>;
    type Future = BoxFuture<'static, Vec<String>>;

    /// Its params, a retry's members among them: a completion has no rounds.
    fn parse(params: JsonObject) -> Result<(CompleteParams, Retry), ErrorObject> {
        Ok((parse(Some(params))?, Retry::default()))
    }

    fn name(params: &CompleteParams) -> &str {
        match &params.reference {
            CompleteRef::Prompt { name } => name,
            CompleteRef::Resource { uri } => uri,
        }
    }

    fn find(request: &Incoming<'_>, params: CompleteParams) -> Result<Complete, ErrorObject> {
        let CompleteParams { reference, argument, context, meta } = params;
        let shared = request.shared();
        let view = request.view();
        let (subject, target) = match reference {
            CompleteRef::Prompt { name } => {
                let prompts = shared.prompts.current();
                let entry = prompts
                    .find(&name, view.as_deref())
                    .ok_or_else(|| prompts.unknown("prompt", &name, |e| request.may_use(&e.definition.scopes)))?;
                (Subject::Prompt(entry.clone()), name)
            }
            CompleteRef::Resource { uri } => {
                let templates = shared.resources.templates.current();
                match templates.find(&uri, view.as_deref()) {
                    Some(entry) => (Subject::Template(entry.clone()), uri),
                    None if shared.resources.statics.current().find(&uri, view.as_deref()).is_some() => {
                        (Subject::Fixed, uri)
                    }
                    None => {
                        let visible = |e: &crate::resources::catalog::Entry| request.may_use(&e.definition.scopes);
                        return Err(templates.unknown("resource template", &uri, visible));
                    }
                }
            }
        };
        Ok(Complete {
            subject,
            target,
            argument: argument.name,
            value: argument.value,
            arguments: context.and_then(|c| c.arguments).unwrap_or_default(),
            meta,
            completer: None,
            show_details: shared.show_internal_errors,
        })
    }

    fn scopes(&self) -> (&[String], &'static str, &str) {
        match &self.subject {
            Subject::Prompt(entry) => (&entry.definition.scopes, "prompt", &self.target),
            Subject::Template(entry) => (&entry.definition.scopes, "resource template", &self.target),
            Subject::Fixed => (&[], "resource", &self.target),
        }
    }

    fn check(&mut self, _: &Incoming<'_>, _: Retry) -> Result<Checked, ErrorObject> {
        let (target, argument) = (&self.target, &self.argument);
        let completions = match &self.subject {
            Subject::Prompt(entry) => {
                let found = entry.definition.completions.iter().find(|(n, _)| n == argument);
                found.map(|(_, c)| c.clone()).ok_or_else(|| {
                    ErrorObject::invalid_params(format!("prompt `{target}` has no argument `{argument}`"))
                })?
            }
            Subject::Template(entry) => {
                let found = entry.definition.variables.iter().find(|v| v.name == *argument);
                let variable = found.ok_or_else(|| {
                    ErrorObject::invalid_params(format!("template `{target}` has no variable `{argument}`"))
                })?;
                variable.completions.clone()
            }
            Subject::Fixed => Completions::None,
        };
        match completions {
            Completions::None => Ok(Checked::Now(Reply::Completion(answer(Vec::new())))),
            Completions::Values(known) => Ok(Checked::Now(Reply::Completion(answer(filtered(&known, &self.value))))),
            Completions::With(completer) => {
                self.completer = Some(completer);
                Ok(Checked::Run(None))
            }
        }
    }

    fn take(&mut self) -> (String, JsonObject, Option<JsonObject>) {
        (self.target.clone(), JsonObject::new(), self.meta.take())
    }

    fn steps(&mut self, _: &Incoming<'_>, _: &RequestParts) -> Result<Steps, ErrorObject> {
        Ok(Steps::default())
    }

    fn start(&self, parts: RequestParts) -> BoxFuture<'static, Vec<String>> {
        let Some(completer) = &self.completer else { return Box::pin(std::future::ready(Vec::new())) };
        completer(Completing { value: self.value.clone(), arguments: self.arguments.clone(), parts })
    }

    fn settle(&self, outcome: Outcome<Vec<String>>) -> Result<Reply, ErrorObject> {
        let summary = match outcome {
            Outcome::Done(values) => return Ok(Reply::Completion(answer(values))),
            Outcome::Panicked(message) => format!("completion function panicked: {message}"),
            Outcome::TimedOut(limit) => format!("completion function timed out after {}", invoke::seconds(limit)),
        };
        let text = crate::incident::masked("a completion function failed", &summary, &summary, self.show_details);
        Err(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, text))
    }

    fn finish(&self, reply: Reply, to: &To, _: &Span) -> Option<Answer> {
        let Reply::Completion(result) = reply else { return None };
        Some(to.projection.answer(to.id.clone(), result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_filter_by_prefix_ignoring_case_and_stop_at_a_hundred() {
        let known: Vec<String> = ["Rust", "Ruby", "Python"].map(String::from).to_vec();
        assert_eq!(filtered(&known, "ru"), ["Rust", "Ruby"]);
        assert_eq!(filtered(&known, ""), known);
        let many: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let cut = completion(many);
        assert_eq!((cut.values.len(), cut.total, cut.has_more), (100, Some(150), Some(true)));
    }
}
