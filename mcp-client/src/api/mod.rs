//! Every server feature as a typed call: tools, resources and templates,
//! prompts, completion, logging, ping; paged lists gathered or streamed
//! (`paging`); notifications and resource subscriptions as streams
//! (`subscriptions`).

use std::borrow::Cow;

use futures_util::Stream;
use mcp_core::{
    CallToolResult, CompleteRef, CompleteResult, GetPromptResult, JsonObject, LoggingLevel, Notification, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool, methods,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::call::{Call, Forward};
use crate::params::Params;
use crate::session::RequestOptions;
use crate::{Client, Era, Error};

mod cached;
mod paging;
mod subscriptions;

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
        let method = match self.era() {
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
    ///
    /// With a cache ([`ClientBuilder::cache`](crate::ClientBuilder::cache)),
    /// a list the server allowed to be kept is served from it.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        let tools: Vec<Tool> = self.list_all(methods::TOOLS_LIST, "tools").await?;
        Ok(tools.into_iter().filter(|tool| self.remember_headers(tool)).collect())
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
        self.cached_read(uri).await
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
    /// while it runs. A handshake session opened again (after the server
    /// forgot it) is told the level again.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), Error> {
        if self.era() == Era::Handshake {
            self.request(methods::LOGGING_SET_LEVEL, json!({ "level": level })).await?;
        }
        *self.session.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
        Ok(())
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
