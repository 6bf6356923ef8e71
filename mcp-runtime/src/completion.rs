//! `completion/complete`: values for a prompt's argument or a resource
//! template's variable. An enum's values and a `bool`'s come by themselves
//! (filtered by the typed prefix, case-insensitively); any other argument
//! completes with a function named in `#[arg(complete = …)]`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcp_core::{CompleteParams, CompleteRef, CompleteResult, Completion, ErrorObject, JsonObject};

use crate::dispatch::reply::ResultBody;
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
    let CompleteParams { reference, argument, context, meta } = parse(params)?;
    let shared = request.shared();
    let completions = match &reference {
        CompleteRef::Prompt { name } => {
            let prompts = shared.prompts.current();
            let entry = prompts
                .get(name)
                .ok_or_else(|| prompts.unknown("prompt", name, |e| request.may_use(&e.definition.scopes)))?;
            request.authorize(&entry.definition.scopes, format_args!("prompt `{name}`"))?;
            let found = entry.definition.completions.iter().find(|(n, _)| *n == argument.name);
            found.map(|(_, c)| c.clone()).ok_or_else(|| {
                ErrorObject::invalid_params(format!("prompt `{name}` has no argument `{}`", argument.name))
            })?
        }
        CompleteRef::Resource { uri } => {
            let templates = shared.resources.templates.current();
            match templates.get(uri) {
                Some(entry) => {
                    request.authorize(&entry.definition.scopes, format_args!("resource template `{uri}`"))?;
                    let found = entry.definition.variables.iter().find(|v| v.name == argument.name);
                    let variable = found.ok_or_else(|| {
                        ErrorObject::invalid_params(format!("template `{uri}` has no variable `{}`", argument.name))
                    })?;
                    variable.completions.clone()
                }
                // A resource with a fixed URI has nothing to complete.
                None if shared.resources.statics.current().get(uri).is_some() => Completions::None,
                None => {
                    return Err(templates.unknown("resource template", uri, |e| request.may_use(&e.definition.scopes)));
                }
            }
        }
    };
    let answer = |values: Vec<String>| CompleteResult { completion: completion(values), meta: None };
    let completer = match completions {
        Completions::None => return Ok(request.reply(answer(Vec::new()))),
        Completions::Values(known) => return Ok(request.reply(answer(filtered(&known, &argument.value)))),
        Completions::With(completer) => completer,
    };
    let target = match &reference {
        CompleteRef::Prompt { name } => name.clone(),
        CompleteRef::Resource { uri } => uri.clone(),
    };
    let parts = request.request_parts(target, JsonObject::new(), meta);
    let (id, projection, show) = (request.id.clone(), request.projection.clone(), shared.show_internal_errors);
    let (value, arguments) = (argument.value, context.and_then(|c| c.arguments).unwrap_or_default());
    let start = move |parts| completer(Completing { value, arguments, parts });
    let settle = move |outcome| {
        let summary = match outcome {
            Outcome::Done(values) => return Ok(Reply::Completion(answer(values))),
            Outcome::Panicked(message) => format!("completion function panicked: {message}"),
            Outcome::TimedOut(limit) => format!("completion function timed out after {}", invoke::seconds(limit)),
        };
        let text = crate::incident::masked("a completion function failed", &summary, &summary, show);
        Err(ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, text))
    };
    let finish = move |reply| match reply {
        Reply::Completion(result) => Some(projection.answer(id, result)),
        _ => None,
    };
    Ok(invoke::call_closures(request, Kind::Completion, Steps::default(), parts, start, settle, finish))
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
