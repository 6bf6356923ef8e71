//! Every server feature as a typed call: tools, resources and templates,
//! prompts, completion, logging, ping; paged lists gathered or streamed;
//! notifications as streams.

use std::borrow::Cow;
use std::collections::HashSet;
use std::time::Duration;

use futures_util::Stream;
use mcp_core::{
    CallToolResult, CompleteRef, CompleteResult, GetPromptResult, JsonObject, LoggingLevel, Notification, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool, envelope, methods,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::call::{Call, Forward};
use crate::params::Params;
use crate::session::RequestOptions;
use crate::{Client, Era, Error};

impl Client {
    /// Send any request and get its raw result: for methods this client
    /// has no typed call for (an extension's, say).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        value(&self.request_text(method, params).await?)
    }

    /// [`request`](Self::request)'s result as its JSON text, for a typed
    /// call to read into its type.
    pub(crate) async fn request_text(&self, method: &str, params: Value) -> Result<Box<RawValue>, Error> {
        let params = match params {
            Value::Object(params) => params,
            Value::Null => JsonObject::new(),
            other => return Err(Error::protocol(format!("params must be an object, not {other}"))),
        };
        self.session.request(method.into(), params.into(), RequestOptions::default()).await
    }

    /// A request sent on behalf of another client (a proxy's): its
    /// progress heard, and a 2026-07-28 server's questions on the way
    /// answered by this request's own handler
    /// ([`on_input`](Forward::on_input)) rather than the client's. Await
    /// it for the raw result; dropped before its answer, it is cancelled.
    pub fn forward(&self, method: &str, params: JsonObject) -> Forward<'_> {
        self.forward_params(Cow::Owned(method.to_owned()), params.into())
    }

    pub(crate) fn forward_params(&self, method: Cow<'static, str>, params: Params) -> Forward<'_> {
        Forward::new(self, method, params)
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Option<JsonObject>) -> Result<(), Error> {
        self.session.notify(method, params).await
    }

    /// Check the server answers: `ping`, or in 2026-07-28 (which has no
    /// `ping`) `server/discover`, the request every such server answers.
    pub async fn ping(&self) -> Result<(), Error> {
        let method = match self.negotiated().era {
            Era::Handshake => methods::PING,
            Era::Stateless => methods::SERVER_DISCOVER,
        };
        self.request(method, Value::Null).await.map(drop)
    }

    /// Every tool, across all pages. Each tool's input schema is kept as
    /// the server sent it.
    ///
    /// A tool whose `x-mcp-header` marks break SEP-2243's rules (a name
    /// that is empty, repeated or not a header token; a mark on a value no
    /// header can carry) is left out, with a warning: its calls could not
    /// be sent as the spec requires.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        futures_util::TryStreamExt::try_collect(self.tools()).await
    }

    /// The tools, one page at a time as the stream is read (without those
    /// [`list_tools`](Self::list_tools) leaves out).
    pub fn tools(&self) -> impl Stream<Item = Result<Tool, Error>> + '_ {
        futures_util::StreamExt::filter(self.pages(methods::TOOLS_LIST, "tools"), |tool| {
            std::future::ready(match tool {
                Ok(tool) => self.remember_headers(tool),
                Err(_) => true,
            })
        })
    }

    /// Call a tool. `arguments` is anything that serializes to an object.
    /// The call can be given a timeout and a progress handler before it is
    /// awaited; dropping it before it ends cancels it. A call a server made
    /// a task (only for a client that declared the tasks extension:
    /// [`ClientBuilder::tasks`](crate::ClientBuilder::tasks)) is followed to
    /// its result.
    pub fn call(&self, name: &str, arguments: impl Serialize) -> Call<'_> {
        let params = Params::tool_call(name, arguments);
        Call::new(params.map(|params| self.forward_params(Cow::Borrowed(methods::TOOLS_CALL), params)))
    }

    /// Call a tool and read its structured result as `T`: from
    /// `structuredContent` (unwrapping the `{"result": …}` older versions
    /// put around a value that is not an object), else from the text. A
    /// result marked `isError` is [`Error::Tool`].
    pub async fn call_structured<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<T, Error> {
        let result = self.call(name, arguments).await?;
        structured(result)
    }

    /// Every resource, across all pages.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, Error> {
        self.list_all(methods::RESOURCES_LIST, "resources").await
    }

    /// Every resource template, across all pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        self.list_all(methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates").await
    }

    /// Read a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        typed(&self.request_text(methods::RESOURCES_READ, json!({ "uri": uri })).await?)
    }

    /// Subscribe to a resource: the stream yields the URI each time the
    /// server says it changed. Handshake era: `resources/subscribe` (ended
    /// by [`unsubscribe`](Self::unsubscribe)); 2026-07-28: a
    /// `subscriptions/listen` request the server has acknowledged, open
    /// while the stream lives.
    pub async fn subscribe(&self, uri: &str) -> Result<impl Stream<Item = String> + use<>, Error> {
        let mut updates = Box::pin(self.notifications());
        let listening = match self.negotiated().era {
            Era::Handshake => {
                self.request(methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri })).await?;
                None
            }
            Era::Stateless => {
                let filter = json!({ "resourceSubscriptions": [uri] });
                Some(self.listen(filter, &mut updates).await?)
            }
        };
        let wanted = uri.to_owned();
        Ok(futures_util::StreamExt::filter_map(updates, move |n| {
            let params = n.params.as_ref();
            // 2026-07-28 tags each update with its subscription.
            let tag = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(envelope::SUBSCRIPTION_ID));
            let ours = match (&listening, tag) {
                (Some(listening), Some(tag)) => *tag == listening.id,
                _ => true,
            };
            let uri = (n.method == methods::RESOURCES_UPDATED && ours)
                .then(|| params.and_then(|p| p.get("uri")).and_then(Value::as_str).map(str::to_owned))
                .flatten()
                .filter(|uri| *uri == wanted);
            std::future::ready(uri)
        }))
    }

    /// Every change the server announces (its lists of tools, resources
    /// and prompts) and the updates of `uris`, as notifications, while the
    /// stream lives: for a client that mirrors the server (a proxy).
    /// Handshake era: each URI is subscribed with `resources/subscribe`
    /// (left subscribed); 2026-07-28: one `subscriptions/listen` for all
    /// of it, open while the stream lives.
    pub async fn watch(&self, uris: &[String]) -> Result<impl Stream<Item = Notification> + use<>, Error> {
        let mut updates = Box::pin(self.notifications());
        let listening = match self.negotiated().era {
            Era::Handshake => {
                for uri in uris {
                    self.request(methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri })).await?;
                }
                None
            }
            Era::Stateless => {
                let filter = json!({
                    "toolsListChanged": true,
                    "resourcesListChanged": true,
                    "promptsListChanged": true,
                    "resourceSubscriptions": uris,
                });
                Some(self.listen(filter, &mut updates).await?)
            }
        };
        Ok(futures_util::StreamExt::filter(updates, move |n| {
            let tag = n.params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(envelope::SUBSCRIPTION_ID));
            let ours = match (&listening, tag) {
                (Some(listening), Some(tag)) => *tag == listening.id,
                _ => true,
            };
            std::future::ready(ours && n.method != methods::SUBSCRIPTIONS_ACKNOWLEDGED)
        }))
    }

    /// Open `subscriptions/listen` for what `filter` names and wait for
    /// the server's acknowledgement (its first message, tagged with the
    /// request's id), or the request's end if it ends first (a server
    /// without it).
    async fn listen(
        &self,
        filter: Value,
        updates: &mut (impl Stream<Item = Notification> + Unpin),
    ) -> Result<Listening, Error> {
        let (ids, mut sent) = mpsc::unbounded_channel();
        let session = self.session.clone();
        let params = json!({ "notifications": filter });
        let params = params.as_object().cloned().unwrap_or_default();
        // It lasts until the stream is dropped: no timeout.
        let options = RequestOptions { timeout: Some(Duration::MAX), ids: Some(ids), ..RequestOptions::default() };
        let mut task =
            tokio::spawn(
                async move { session.request(methods::SUBSCRIPTIONS_LISTEN.into(), params.into(), options).await },
            );
        let task_handle = task.abort_handle();
        let acknowledged = async {
            let id = sent.recv().await.map(|id| json!(id));
            while let Some(id) = &id {
                let notification = futures_util::StreamExt::next(updates).await?;
                let params = notification.params.as_ref();
                let tag = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(envelope::SUBSCRIPTION_ID));
                if notification.method == methods::SUBSCRIPTIONS_ACKNOWLEDGED && tag == Some(id) {
                    return Some(id.clone());
                }
            }
            None
        };
        let timeout = self.session.limits.timeout;
        let outcome = tokio::select! {
            acknowledged = tokio::time::timeout(timeout, acknowledged) => match acknowledged {
                Ok(Some(id)) => Ok(Listening { id, _task: AbortOnDrop(task_handle) }),
                Ok(None) => Err(Error::Closed("the connection ended before the subscription was acknowledged".into())),
                Err(_) => Err(Error::Timeout(timeout)),
            },
            ended = &mut task => Err(match ended {
                Ok(Err(error)) => error,
                Ok(Ok(_)) => Error::protocol("the server ended the subscription before acknowledging it"),
                Err(_) => Error::Closed("the subscription's task ended".into()),
            }),
        };
        if outcome.is_err() {
            task.abort();
        }
        outcome
    }

    /// Stop a subscription (handshake era; in 2026-07-28 drop its stream).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        self.request(methods::RESOURCES_UNSUBSCRIBE, json!({ "uri": uri })).await.map(drop)
    }

    /// Every prompt, across all pages.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, Error> {
        self.list_all(methods::PROMPTS_LIST, "prompts").await
    }

    /// Get a prompt with its arguments (anything that serializes to an
    /// object of strings).
    pub async fn get_prompt(&self, name: &str, arguments: impl Serialize) -> Result<GetPromptResult, Error> {
        let arguments = serde_json::to_value(arguments).map_err(|e| Error::protocol(e.to_string()))?;
        let params = match arguments {
            Value::Null => json!({ "name": name }),
            arguments => json!({ "name": name, "arguments": arguments }),
        };
        typed(&self.request_text(methods::PROMPTS_GET, params).await?)
    }

    /// Complete an argument of a prompt or a template variable, given the
    /// other arguments already chosen.
    pub async fn complete(
        &self,
        reference: CompleteRef,
        argument: &str,
        value: &str,
        context: Option<JsonObject>,
    ) -> Result<CompleteResult, Error> {
        let mut params = json!({ "ref": reference, "argument": { "name": argument, "value": value } });
        if let Some(arguments) = context {
            params["context"] = json!({ "arguments": arguments });
        }
        typed(&self.request_text(methods::COMPLETION_COMPLETE, params).await?)
    }

    /// Ask for log messages of `level` and above: `logging/setLevel` in
    /// the handshake era; in 2026-07-28 (which has no such request) every
    /// later request asks for it in its `_meta`, and its messages come
    /// while it runs.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), Error> {
        match self.negotiated().era {
            Era::Handshake => self.request(methods::LOGGING_SET_LEVEL, json!({ "level": level })).await.map(drop),
            Era::Stateless => {
                *self.session.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
                Ok(())
            }
        }
    }

    /// The server's notifications from now on (log messages, list
    /// changes, resource updates; progress goes to its call). A listener
    /// that falls more than 256 behind misses the oldest.
    pub fn notifications(&self) -> impl Stream<Item = Notification> + use<> {
        let receiver = self.session.subscribe();
        futures_util::stream::unfold(receiver, |mut receiver| async move {
            loop {
                match receiver.recv().await {
                    Ok(notification) => return Some((notification, receiver)),
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "a notification listener fell behind and missed some");
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        })
    }

    /// Keep the tool's header-mirrored arguments for its calls; `false`
    /// if its marks are invalid.
    fn remember_headers(&self, tool: &Tool) -> bool {
        let mut headers = self.session.param_headers.lock().unwrap_or_else(|e| e.into_inner());
        match mcp_core::headers::param_headers(&tool.input_schema) {
            Ok(mirrored) if !mirrored.is_empty() => {
                // A cache, bounded as one list is: a server whose tools'
                // names keep changing starts it afresh (the next list
                // fills it again).
                if headers.len() >= self.session.limits.list_items && !headers.contains_key(&tool.name) {
                    headers.clear();
                }
                headers.insert(tool.name.clone(), mirrored);
                true
            }
            Ok(_) => {
                headers.remove(&tool.name);
                true
            }
            Err(why) => {
                tracing::warn!(tool = %tool.name, %why, "leaving out a tool whose x-mcp-header marks are invalid");
                headers.remove(&tool.name);
                false
            }
        }
    }

    /// Every item of a paged list (`tools/list`, `resources/list`, …) as
    /// the server sent it, `key` naming the array in each page (`"tools"`):
    /// for a list the typed methods do not cover, or to see all that they
    /// leave out. Bounded as every list is
    /// ([`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages)
    /// and the settings beside it), and a page without the array is a
    /// protocol error.
    pub async fn list_values(&self, method: &str, key: &str) -> Result<Vec<Value>, Error> {
        self.list_all(method, key).await
    }

    pub(crate) async fn list_all<T: DeserializeOwned>(&self, method: &str, key: &str) -> Result<Vec<T>, Error> {
        futures_util::TryStreamExt::try_collect(self.pages(method, key)).await
    }

    /// A paged list's items, page by page, within the client's bounds:
    /// its pages, its items, its bytes across pages (a list holds no more
    /// than one message may), the time the server takes to answer them,
    /// and no cursor twice.
    fn pages<'a, T: DeserializeOwned + 'a>(
        &'a self,
        method: &'a str,
        key: &'a str,
    ) -> impl Stream<Item = Result<T, Error>> + 'a {
        let limits = self.session.limits;
        let budget = limits.list_timeout.unwrap_or(limits.timeout);
        let start = Paging {
            items: Vec::new().into_iter(),
            cursor: None,
            due: true,
            seen: HashSet::new(),
            pages: 0,
            items_seen: 0,
            bytes: 0,
            left: budget,
        };
        futures_util::stream::try_unfold(start, move |mut paging| async move {
            loop {
                if let Some(item) = paging.items.next() {
                    return Ok(Some((item, paging)));
                }
                if !paging.due {
                    return Ok(None);
                }
                if paging.pages >= limits.list_pages {
                    return Err(Error::Limit(format!(
                        "`{method}` has more than {} pages (ClientBuilder::max_list_pages)",
                        limits.list_pages
                    )));
                }
                let params = match &paging.cursor {
                    Some(cursor) => json!({ "cursor": cursor }),
                    None => json!({}),
                };
                let started = tokio::time::Instant::now();
                let Ok(page) = tokio::time::timeout(paging.left, self.request_text(method, params)).await else {
                    return Err(Error::Limit(format!(
                        "`{method}` took longer than {budget:?} over {} pages (ClientBuilder::list_timeout)",
                        paging.pages + 1
                    )));
                };
                let page = page?;
                paging.left = paging.left.saturating_sub(started.elapsed());
                paging.pages += 1;
                paging.bytes = paging.bytes.saturating_add(page.get().len());
                if paging.bytes > limits.max_message_bytes {
                    return Err(Error::Limit(format!(
                        "`{method}`'s pages hold more than {} (ClientBuilder::max_message_bytes)",
                        crate::error::bytes(limits.max_message_bytes)
                    )));
                }
                let mut page = value(&page)?;
                let list = page
                    .get_mut(key)
                    .map(Value::take)
                    .ok_or_else(|| Error::protocol(format!("the answer to `{method}` has no `{key}` array")))?;
                paging.items_seen = paging.items_seen.saturating_add(list.as_array().map_or(0, Vec::len));
                if paging.items_seen > limits.list_items {
                    return Err(Error::Limit(format!(
                        "`{method}` has more than {} items (ClientBuilder::max_list_items)",
                        limits.list_items
                    )));
                }
                let list: Vec<T> =
                    serde_json::from_value(list).map_err(|e| Error::protocol(format!("{method}'s {key}: {e}")))?;
                let next = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
                if let Some(next) = &next
                    && !paging.seen.insert(next.clone())
                {
                    return Err(Error::protocol(format!(
                        "`{method}` gave the cursor {next:?} a second time: its pages would never end"
                    )));
                }
                paging.due = next.is_some();
                paging.cursor = next;
                paging.items = list.into_iter();
            }
        })
    }
}

/// Where the reading of a paged list is.
struct Paging<T> {
    /// What is left of the last page.
    items: std::vec::IntoIter<T>,
    /// The cursor of the next page.
    cursor: Option<String>,
    /// Whether a next page is due.
    due: bool,
    /// Every cursor given so far.
    seen: HashSet<String>,
    pages: usize,
    items_seen: usize,
    bytes: usize,
    /// What is left of the list's time.
    left: Duration,
}

/// An open `subscriptions/listen`: its id, and its request, cancelled when
/// this is dropped.
struct Listening {
    id: Value,
    _task: AbortOnDrop,
}

struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A result read into its type.
pub(crate) fn typed<T: DeserializeOwned>(result: &RawValue) -> Result<T, Error> {
    serde_json::from_str(result.get()).map_err(|e| Error::protocol(format!("the result has the wrong shape: {e}")))
}

/// A result as a value.
pub(crate) fn value(result: &RawValue) -> Result<Value, Error> {
    typed(result)
}

fn structured<T: DeserializeOwned>(result: CallToolResult) -> Result<T, Error> {
    let text = || {
        result.content.iter().find_map(|c| match c {
            mcp_core::Content::Text(text) => Some(text.text.clone()),
            _ => None,
        })
    };
    if result.is_error == Some(true) {
        return Err(Error::Tool(text().unwrap_or_else(|| "the tool reported an error".into())));
    }
    if let Some(value) = result.structured_content.clone() {
        let unwrapped = match &value {
            Value::Object(map) if map.len() == 1 && map.contains_key("result") => map.get("result").cloned(),
            _ => None,
        };
        match serde_json::from_value(value) {
            Ok(typed) => return Ok(typed),
            Err(error) => match unwrapped.map(serde_json::from_value) {
                Some(Ok(typed)) => return Ok(typed),
                _ => return Err(Error::protocol(format!("the structured result is not the type asked for: {error}"))),
            },
        }
    }
    let text = text().ok_or_else(|| Error::protocol("the result has neither structured content nor text"))?;
    serde_json::from_str(&text)
        .or_else(|_| serde_json::from_value(Value::String(text.clone())))
        .map_err(|e| Error::protocol(format!("the result's text is not the type asked for: {e}")))
}
