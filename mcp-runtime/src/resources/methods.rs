//! The resources capability's methods: `resources/list`,
//! `resources/templates/list`, `resources/read` (a fixed URI first, then
//! the one template that matches), and `resources/subscribe` /
//! `unsubscribe` (handshake sessions; 2026-07-28 subscribes on
//! `subscriptions/listen`).

use std::sync::Arc;

use mcp_core::{ErrorObject, JsonObject, ProtocolVersion, ReadResourceResult, ResourceUri, codes, methods};
use serde_json::{Value, json};
use tracing::Span;

use super::catalog::Entry;
use super::contents::Failure;
use super::{Contents, ResourceError};
use crate::admission::{self, Checked, Invocable, To};
use crate::client::rounds::Retry;
use crate::dispatch::reply::{Answer, Empty, ResultBody};
use crate::dispatch::{Action, Incoming, parse, span};
use crate::invoke::{self, Outcome, Steps};
use crate::middleware::{Kind, Reply};
use crate::request::RequestParts;
use crate::tools::BoxFuture;

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

/// The entry that serves `uri` to `request`'s caller (as its view shows
/// the catalog), and its variables: a resource with that exact URI wins
/// over any template.
fn resolve(request: &Incoming<'_>, uri: &str) -> Option<(Arc<Entry>, Variables)> {
    let shared = request.shared();
    let view = request.view();
    if let Some(entry) = shared.resources.statics.current().find(uri, view.as_deref()) {
        return Some((entry.clone(), Vec::new()));
    }
    let templates = shared.resources.templates.current();
    templates.seen(view.as_deref()).find_map(|entry| {
        let variables = entry.template.as_ref()?.matches(uri)?;
        Some((entry.clone(), variables))
    })
}

pub(crate) fn read(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    admission::admit::<Read>(request, params)
}

/// One `resources/read`, admitted.
struct Read {
    uri: String,
    /// The template's variables, as the handler's arguments.
    arguments: JsonObject,
    meta: Option<JsonObject>,
    entry: Arc<Entry>,
    version: ProtocolVersion,
    show_details: bool,
}

impl Invocable for Read {
    const KIND: Kind = Kind::Resource;
    // A URI is an attribute, never the span's name.
    const SPAN_BEFORE_LOOKUP: bool = true;
    type Params = ResourceUri;
    type Output = Contents;
    type Future = BoxFuture<'static, Contents>;

    fn parse(mut params: JsonObject) -> Result<(ResourceUri, Retry), ErrorObject> {
        let retry = Retry::take(&mut params);
        Ok((parse(Some(params))?, retry))
    }

    fn name(params: &ResourceUri) -> &str {
        &params.uri
    }

    fn span(span: &Span, uri: &str) {
        span::resource(span, uri);
    }

    fn find(request: &Incoming<'_>, params: ResourceUri) -> Result<Read, ErrorObject> {
        let ResourceUri { uri, meta } = params;
        let shared = request.shared();
        let version = request.version;
        let (entry, variables) = resolve(request, &uri).ok_or_else(|| not_found(&uri, None, version))?;
        let arguments = variables.into_iter().map(|(name, value)| (name, Value::String(value))).collect();
        Ok(Read { uri, arguments, meta, entry, version, show_details: shared.show_internal_errors })
    }

    fn scopes(&self) -> (&[String], &'static str, &str) {
        (&self.entry.definition.scopes, "resource", &self.uri)
    }

    fn check(&mut self, request: &Incoming<'_>, retry: Retry) -> Result<Checked, ErrorObject> {
        Ok(Checked::Run(retry.begin(request, methods::RESOURCES_READ, &self.uri, &JsonObject::new())?))
    }

    fn take(&mut self) -> (String, JsonObject, Option<JsonObject>) {
        (self.uri.clone(), std::mem::take(&mut self.arguments), self.meta.take())
    }

    fn steps(&mut self, _: &Incoming<'_>, _: &RequestParts) -> Result<Steps, ErrorObject> {
        Ok(Steps { timeout: self.entry.definition.timeout, ..Steps::default() })
    }

    fn start(&self, parts: RequestParts) -> BoxFuture<'static, Contents> {
        self.entry.handler.read(parts)
    }

    fn settle(&self, outcome: Outcome<Contents>) -> Result<Reply, ErrorObject> {
        let uri = &self.uri;
        let outcome = match outcome {
            Outcome::Done(outcome) => outcome,
            Outcome::Panicked(message) => Err(ResourceError::internal(format!("resource read panicked: {message}"))),
            Outcome::TimedOut(limit) => {
                Err(ResourceError::new(format!("reading {uri} timed out after {}", invoke::seconds(limit))))
            }
        };
        match outcome {
            Ok(contents) => Ok(Reply::Resource(ReadResourceResult { contents, meta: None })),
            Err(error) => Err(read_error(uri, error, self.version, self.show_details)),
        }
    }

    fn finish(&self, reply: Reply, to: &To, _: &Span) -> Option<Answer> {
        let Reply::Resource(result) = reply else { return None };
        Some(to.projection.answer(to.id.clone(), result.for_version(to.version)))
    }
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
    resolve(request, uri).is_some_and(|(entry, _)| request.may_use(&entry.definition.scopes))
}

pub(crate) fn subscribe(request: &Incoming<'_>, params: Option<JsonObject>) -> Result<Action, ErrorObject> {
    let ResourceUri { uri, .. } = parse(params)?;
    span::resource(request.span, &uri);
    let Some((entry, _)) = resolve(request, &uri) else {
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
