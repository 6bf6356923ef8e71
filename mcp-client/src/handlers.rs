//! What the client does when a server asks it something: sampling,
//! elicitation and roots, each answered by a closure the user gave (and
//! declared as a capability only when given). The same answers serve
//! handshake-era requests from the server and 2026-07-28 input requests.

use std::future::Future;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use mcp_core::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    ErrorObject, JsonObject, ListRootsResult, Root, methods,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

type Answer<T> = BoxFuture<'static, Result<T, ErrorObject>>;
type Handler<P, R> = Arc<dyn Fn(P) -> Answer<R> + Send + Sync>;
/// An answer to any request: the method and its params.
pub(crate) type Fallback = Arc<dyn Fn(String, Option<JsonObject>) -> Answer<Value> + Send + Sync>;

/// The client's answers to a server's questions.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    sampling: Option<Handler<CreateMessageParams, CreateMessageResult>>,
    elicitation: Option<Handler<ElicitParams, ElicitResult>>,
    /// Whether elicitation in URL mode is declared too.
    elicitation_url: bool,
    roots: Option<Arc<Mutex<Vec<Root>>>>,
    /// The answer to requests no handler above answers.
    other: Option<Fallback>,
    /// The answer to every request (a proxy's, passing them on), which
    /// declares every capability a server may ask of.
    relay: Option<Fallback>,
    /// The extensions declared, with their settings.
    extensions: JsonObject,
}

impl Handlers {
    pub(crate) fn on_sampling<F, Fut>(&mut self, f: F)
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |params| Box::pin(f(params))));
    }

    pub(crate) fn on_elicitation<F, Fut>(&mut self, url: bool, f: F)
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.elicitation = Some(Arc::new(move |params| Box::pin(f(params))));
        self.elicitation_url = url;
    }

    pub(crate) fn on_other<F, Fut>(&mut self, f: F)
    where
        F: Fn(String, Option<JsonObject>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.other = Some(boxed(f));
    }

    pub(crate) fn relay<F, Fut>(&mut self, f: F)
    where
        F: Fn(String, Option<JsonObject>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.relay = Some(boxed(f));
    }

    pub(crate) fn extension(&mut self, name: String, settings: Value) {
        self.extensions.insert(name, settings);
    }

    pub(crate) fn roots(&mut self, roots: Vec<Root>) {
        self.roots = Some(Arc::new(Mutex::new(roots)));
    }

    /// Replace the roots; `false` if the client declared none.
    pub(crate) fn set_roots(&self, roots: Vec<Root>) -> bool {
        match &self.roots {
            Some(held) => {
                *held.lock().unwrap_or_else(|e| e.into_inner()) = roots;
                true
            }
            None => false,
        }
    }

    /// The capabilities these answers make.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let mut capabilities = self.handled();
        if !self.extensions.is_empty() {
            capabilities.other.insert("extensions".into(), Value::Object(self.extensions.clone()));
        }
        capabilities
    }

    /// The capabilities the handlers make.
    fn handled(&self) -> ClientCapabilities {
        let object = |value: Value| value.as_object().cloned();
        if self.relay.is_some() {
            return ClientCapabilities {
                sampling: object(json!({})),
                elicitation: object(json!({ "form": {}, "url": {} })),
                roots: object(json!({ "listChanged": true })),
                ..ClientCapabilities::default()
            };
        }
        ClientCapabilities {
            sampling: self.sampling.as_ref().and_then(|_| object(json!({}))),
            elicitation: self.elicitation.as_ref().and_then(|_| {
                object(if self.elicitation_url { json!({ "form": {}, "url": {} }) } else { json!({ "form": {} }) })
            }),
            roots: self.roots.as_ref().and_then(|_| object(json!({ "listChanged": true }))),
            ..ClientCapabilities::default()
        }
    }

    /// Answer one question by its method: its handler's answer, else the
    /// fallback's ([`on_other`](Self::on_other)), else `method not found`.
    pub(crate) async fn answer(&self, method: &str, params: Option<JsonObject>) -> Result<Value, ErrorObject> {
        if let (Some(relay), false) = (&self.relay, method == methods::PING) {
            return relay(method.to_owned(), params).await;
        }
        match method {
            methods::PING => return Ok(json!({})),
            methods::SAMPLING_CREATE_MESSAGE => {
                if let Some(sampling) = &self.sampling {
                    return reply(sampling(parse(params)?).await?);
                }
            }
            methods::ELICITATION_CREATE => {
                if let Some(elicitation) = &self.elicitation {
                    let params: ElicitParams = parse(params)?;
                    let schema = params.requested_schema.clone();
                    let mut answer = elicitation(params).await?;
                    if answer.action == ElicitAction::Accept
                        && let Some(schema) = &schema
                    {
                        fill_defaults(answer.content.get_or_insert_with(JsonObject::new), schema);
                    }
                    return reply(answer);
                }
            }
            methods::ROOTS_LIST => {
                if let Some(roots) = &self.roots {
                    let roots = roots.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    return reply(ListRootsResult { roots });
                }
            }
            _ => {}
        }
        match &self.other {
            Some(other) => other(method.to_owned(), params).await,
            None => Err(ErrorObject::method_not_found(method)),
        }
    }
}

/// `f` as a [`Fallback`].
pub(crate) fn boxed<F, Fut>(f: F) -> Fallback
where
    F: Fn(String, Option<JsonObject>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
{
    Arc::new(move |method, params| Box::pin(f(method, params)))
}

/// A form accepted without some of its fields takes their defaults, as a
/// form pre-filled with them would have (SEP-1034).
fn fill_defaults(content: &mut JsonObject, schema: &JsonObject) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

fn parse<P: DeserializeOwned>(params: Option<JsonObject>) -> Result<P, ErrorObject> {
    serde_json::from_value(Value::Object(params.unwrap_or_default())).map_err(ErrorObject::invalid_params)
}

fn reply(result: impl Serialize) -> Result<Value, ErrorObject> {
    serde_json::to_value(result).map_err(|_| ErrorObject::internal_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn requests_without_a_handler_go_to_the_fallback_which_declares_nothing() {
        let mut handlers = Handlers::default();
        let refused = handlers.answer(methods::ELICITATION_CREATE, None).await.unwrap_err();
        assert_eq!(refused.code, mcp_core::codes::METHOD_NOT_FOUND);
        handlers.on_other(|method, params| async move {
            match params {
                Some(params) => Ok(json!({ "echo": method, "params": params })),
                None => Err(ErrorObject::new(-1, format!("`{method}` is not for this client"))),
            }
        });
        assert_eq!(handlers.capabilities(), ClientCapabilities::default());
        let refused = handlers.answer(methods::ELICITATION_CREATE, None).await.unwrap_err();
        assert_eq!(refused.message, "`elicitation/create` is not for this client");
        let params = json!({ "a": 1 }).as_object().cloned();
        let echoed = handlers.answer("x/custom", params).await.unwrap();
        assert_eq!(echoed, json!({ "echo": "x/custom", "params": { "a": 1 } }));
        // Handlers given, and ping, still answer first.
        assert_eq!(handlers.answer(methods::PING, None).await.unwrap(), json!({}));
        handlers.roots(Vec::new());
        assert_eq!(handlers.answer(methods::ROOTS_LIST, None).await.unwrap(), json!({ "roots": [] }));
    }
}
