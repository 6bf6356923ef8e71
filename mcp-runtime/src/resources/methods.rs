//! The resources capability's methods: `resources/list`,
//! `resources/templates/list`, `resources/read` (a fixed URI first, then
//! the one template that matches), and `resources/subscribe` /
//! `unsubscribe` (handshake sessions; 2026-07-28 subscribes on
//! `subscriptions/listen`).

use std::sync::Arc;

use mcp_core::{ErrorObject, JsonObject, ProtocolVersion, ReadResourceResult, ResourceUri, codes, methods};
use serde_json::{Value, json};

use super::catalog::Entry;
use super::contents::Failure;
use super::{Contents, ResourceError};
use crate::client::rounds::Retry;
use crate::dispatch::reply::{Empty, ResultBody};
use crate::dispatch::{Action, Incoming, parse, span};
use crate::invoke::{self, Outcome, Steps};
use crate::middleware::{Kind, Reply};
use crate::server::Shared;

impl ResultBody for ReadResourceResult {
    fn take_meta(&mut self) -> Option<JsonObject> {
        self.meta.take()
    }
}

pub(crate) fn list(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    crate::component::list::list(request, params, &request.shared().resources.statics, "resources")
}

pub(crate) fn templates(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    crate::component::list::list(request, params, &request.shared().resources.templates, "resourceTemplates")
}

/// The spec's resource-not-found error in `version`.
fn not_found(uri: &str, detail: Option<&str>, version: ProtocolVersion) -> ErrorObject {
    let code = if version.uses_handshake() { codes::RESOURCE_NOT_FOUND } else { codes::INVALID_PARAMS };
    let message = match detail {
        Some(detail) => format!("resource not found: {uri} ({detail})"),
        None => format!("resource not found: {uri}"),
    };
    ErrorObject::new(code, message).with_data(json!({ "uri": uri }))
}

/// A template's variables in a URI, by name, percent-decoded.
type Variables = Vec<(String, String)>;

/// The entry that serves `uri`, and its variables: a resource with that
/// exact URI wins over any template.
fn resolve(shared: &Shared, uri: &str) -> Option<(Arc<Entry>, Variables)> {
    if let Some(entry) = shared.resources.statics.current().get(uri) {
        return Some((entry.clone(), Vec::new()));
    }
    let templates = shared.resources.templates.current();
    templates.entries().iter().find_map(|entry| {
        let variables = entry.template.as_ref()?.matches(uri)?;
        Some((entry.clone(), variables))
    })
}

pub(crate) fn read(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let mut params = params.unwrap_or_default();
    let retry = Retry::take(&mut params);
    let ResourceUri { uri, meta } = parse(Some(params))?;
    span::resource(request.span, &uri);
    let shared = request.shared();
    let version = request.version;
    let (entry, variables) = resolve(shared, &uri).ok_or_else(|| not_found(&uri, None, version))?;
    request.authorize(&entry.definition.scopes, format_args!("resource `{uri}`"))?;
    let arguments = variables.into_iter().map(|(name, value)| (name, Value::String(value))).collect();
    let rounds = retry.begin(request, methods::RESOURCES_READ, &uri, &JsonObject::new())?;
    let parts = request.request_parts(uri.clone(), arguments, meta);
    let show_details = shared.show_internal_errors;
    let steps = Steps { rounds, timeout: entry.definition.timeout, task: None };
    let (id, projection) = (request.id.clone(), request.projection.clone());
    let handler = entry.handler.clone();
    let settle = move |outcome| {
        let outcome: Contents = match outcome {
            Outcome::Done(outcome) => outcome,
            Outcome::Panicked(message) => Err(ResourceError::internal(format!("resource read panicked: {message}"))),
            Outcome::TimedOut(limit) => {
                Err(ResourceError::new(format!("reading {uri} timed out after {}", invoke::seconds(limit))))
            }
        };
        match outcome {
            Ok(contents) => Ok(Reply::Resource(ReadResourceResult { contents, meta: None })),
            Err(error) => Err(read_error(&uri, error, version, show_details)),
        }
    };
    let finish = move |reply| match reply {
        Reply::Resource(result) => Some(projection.answer(id, result.for_version(version))),
        _ => None,
    };
    Ok(invoke::call_closures(request, Kind::Resource, steps, parts, move |parts| handler.read(parts), settle, finish))
}

/// A failed read as the client sees it: not found, the handler's own
/// message, or an internal error masked behind an incident id.
fn read_error(uri: &str, error: ResourceError, version: ProtocolVersion, show_details: bool) -> ErrorObject {
    match error.kind {
        Failure::NotFound => not_found(uri, Some(&error.message), version),
        Failure::Shown => ErrorObject::new(codes::INTERNAL_ERROR, error.message).with_data(json!({ "uri": uri })),
        Failure::Internal => {
            let summary = error.internal.as_ref().map_or_else(|| error.message.clone(), ToString::to_string);
            let text = crate::incident::masked("a resource read failed", &summary, &error, show_details);
            ErrorObject::new(codes::INTERNAL_ERROR, text).with_data(json!({ "uri": uri }))
        }
    }
}

/// Whether a resource (or a template's) is at `uri` that `request` may
/// read.
pub(crate) fn readable(request: &Incoming<'_>, uri: &str) -> bool {
    resolve(request.shared(), uri).is_some_and(|(entry, _)| request.may_use(&entry.definition.scopes))
}

pub(crate) fn subscribe(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let ResourceUri { uri, .. } = parse(params)?;
    span::resource(request.span, &uri);
    let Some((entry, _)) = resolve(request.shared(), &uri) else {
        return Err(not_found(&uri, None, request.version));
    };
    request.authorize(&entry.definition.scopes, format_args!("resource `{uri}`"))?;
    let mut subscribed = request.session.resource_subscriptions.lock().unwrap_or_else(|e| e.into_inner());
    if subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains(&uri) {
        return Err(ErrorObject::new(
            codes::INVALID_REQUEST,
            format!(
                "a session subscribes to at most {MAX_SUBSCRIPTIONS} resources at once; unsubscribe from one first"
            ),
        ));
    }
    subscribed.insert(uri);
    drop(subscribed);
    Ok(request.reply(Empty {}))
}

/// How many resources one session may be subscribed to, and one
/// `subscriptions/listen` stream follow: a template matches any number of
/// URIs, and each is kept (and copied into the session's record for other
/// replicas).
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1_024;

pub(crate) fn unsubscribe(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let ResourceUri { uri, .. } = parse(params)?;
    span::resource(request.span, &uri);
    request.session.resource_subscriptions.lock().unwrap_or_else(|e| e.into_inner()).remove(&uri);
    Ok(request.reply(Empty {}))
}
