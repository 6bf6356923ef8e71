//! [`TestClient`]: drive a [`Server`] in memory from a unit test, with
//! typed results and the notifications a real client would see.

use std::io;

use mcp_core::{
    CallToolResult, Completion, ErrorObject, GetPromptResult, LoggingLevel, LoggingMessageParams, ProgressParams,
    Prompt, ProtocolVersion, ReadResourceResult, RequestId, Resource, ResourceTemplate, ResourceUri, Tool, methods,
};
use serde_json::{Value, json};

use crate::error::Error;
use crate::server::Server;
use crate::transport::memory::InMemoryClient;

/// A client connected in memory to a server, for tests: no subprocess, no
/// pipes, the same protocol a real client speaks.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::TestClient;
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut client = TestClient::connect(Server::empty("calc", "1").tool(add::Tool)).await.unwrap();
/// let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
/// assert_eq!(result.content[0].as_text(), Some("5"));
/// # }
/// ```
///
/// Every call it makes carries a progress token, so tools report progress
/// to it; [`progress`](Self::progress), [`log_messages`](Self::log_messages)
/// and [`list_changes`](Self::list_changes) return what arrived.
pub struct TestClient {
    client: InMemoryClient,
    notifications: Vec<Value>,
}

/// A call started with [`TestClient::start_call`] and not yet answered.
#[derive(Debug)]
#[must_use = "finish or cancel the call"]
pub struct PendingCall {
    id: i64,
}

impl PendingCall {
    /// The call's JSON-RPC id.
    pub fn id(&self) -> i64 {
        self.id
    }
}

impl TestClient {
    /// Start `server` and complete the handshake at the newest protocol
    /// version it negotiates.
    pub async fn connect(server: Server) -> Result<TestClient, Error> {
        Self::connect_as(server, ProtocolVersion::LATEST_HANDSHAKE).await
    }

    /// Start `server` and complete the handshake at `version`.
    pub async fn connect_as(server: Server, version: ProtocolVersion) -> Result<TestClient, Error> {
        let mut client = server.connect_in_memory()?;
        let init = json!({
            "protocolVersion": version.as_str(),
            "capabilities": {},
            "clientInfo": {"name": "test-client", "version": env!("CARGO_PKG_VERSION")}
        });
        let response = client.request(methods::INITIALIZE, init).await?;
        if let Some(error) = response.get("error") {
            return Err(Error::Io(io::Error::other(format!("initialize failed: {error}"))));
        }
        client.notify(methods::INITIALIZED, json!({})).await?;
        Ok(TestClient { client, notifications: Vec::new() })
    }

    /// Every tool, following `tools/list` pages to the end.
    pub async fn list_tools(&mut self) -> Result<Vec<Tool>, ErrorObject> {
        self.list_all(methods::TOOLS_LIST, "tools").await
    }

    /// Every resource with a fixed URI, following `resources/list` pages.
    pub async fn list_resources(&mut self) -> Result<Vec<Resource>, ErrorObject> {
        self.list_all(methods::RESOURCES_LIST, "resources").await
    }

    /// Every resource template, following `resources/templates/list` pages.
    pub async fn list_resource_templates(&mut self) -> Result<Vec<ResourceTemplate>, ErrorObject> {
        self.list_all(methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates").await
    }

    /// Read the resource at `uri`. Failures (no such resource, a read that
    /// failed) are `Err`, with the code the protocol gives them.
    pub async fn read_resource(&mut self, uri: &str) -> Result<ReadResourceResult, ErrorObject> {
        let result = self.request(methods::RESOURCES_READ, json!({ "uri": uri })).await?;
        serde_json::from_value(result).map_err(local_error)
    }

    /// Subscribe to the resource at `uri`: its updates arrive as
    /// notifications ([`resource_updates`](Self::resource_updates)).
    pub async fn subscribe(&mut self, uri: &str) -> Result<(), ErrorObject> {
        self.request(methods::RESOURCES_SUBSCRIBE, json!({ "uri": uri })).await.map(drop)
    }

    /// Stop the updates of the resource at `uri`.
    pub async fn unsubscribe(&mut self, uri: &str) -> Result<(), ErrorObject> {
        self.request(methods::RESOURCES_UNSUBSCRIBE, json!({ "uri": uri })).await.map(drop)
    }

    /// The URIs of `notifications/resources/updated` received so far
    /// (taken out of the queue), in order.
    pub async fn resource_updates(&mut self) -> Vec<String> {
        self.take::<ResourceUri>(methods::RESOURCES_UPDATED).await.into_iter().map(|u| u.uri).collect()
    }

    /// Every prompt, following `prompts/list` pages.
    pub async fn list_prompts(&mut self) -> Result<Vec<Prompt>, ErrorObject> {
        self.list_all(methods::PROMPTS_LIST, "prompts").await
    }

    /// Render the prompt `name` with `arguments` (name → string value).
    /// Unknown prompts and bad arguments are `Err` (invalid params).
    pub async fn get_prompt(&mut self, name: &str, arguments: &[(&str, &str)]) -> Result<GetPromptResult, ErrorObject> {
        let arguments: serde_json::Map<String, Value> =
            arguments.iter().map(|(k, v)| ((*k).to_owned(), Value::from(*v))).collect();
        let result = self.request(methods::PROMPTS_GET, json!({ "name": name, "arguments": arguments })).await?;
        serde_json::from_value(result).map_err(local_error)
    }

    /// Complete the argument `argument` of the prompt `prompt`, typed so
    /// far as `value`.
    pub async fn complete(&mut self, prompt: &str, argument: &str, value: &str) -> Result<Completion, ErrorObject> {
        let params =
            json!({"ref": {"type": "ref/prompt", "name": prompt}, "argument": {"name": argument, "value": value}});
        let result = self.request(methods::COMPLETION_COMPLETE, params).await?;
        serde_json::from_value(result["completion"].clone()).map_err(local_error)
    }

    /// Every item of a paged list, following its cursors to the end.
    async fn list_all<T: serde::de::DeserializeOwned>(
        &mut self,
        method: &str,
        key: &str,
    ) -> Result<Vec<T>, ErrorObject> {
        let mut items = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
            let result = self.request(method, params).await?;
            let page: Vec<T> = serde_json::from_value(result[key].clone()).map_err(local_error)?;
            items.extend(page);
            match result.get("nextCursor") {
                Some(next) => cursor = Some(next.clone()),
                None => return Ok(items),
            }
        }
    }

    /// Call `name` with `arguments` and wait for its result. Tool failures
    /// (bad arguments, errors, panics, timeouts) are `Ok` results with
    /// `is_error`; protocol errors (an unknown tool) are `Err`.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<CallToolResult, ErrorObject> {
        let call = self.start_call(name, arguments).await;
        self.finish(call).await
    }

    /// Send a call without waiting for it, to cancel it or to run others
    /// meanwhile.
    pub async fn start_call(&mut self, name: &str, arguments: Value) -> PendingCall {
        let id = self.client.next_id();
        let params = json!({"name": name, "arguments": arguments, "_meta": {"progressToken": id}});
        let request = json!({"jsonrpc": "2.0", "id": id, "method": methods::TOOLS_CALL, "params": params});
        // A closed server shows up as an error when the call is finished.
        let _ = self.client.send(&request).await;
        PendingCall { id }
    }

    /// Wait for a started call's result.
    pub async fn finish(&mut self, call: PendingCall) -> Result<CallToolResult, ErrorObject> {
        let response = self.client.response_to(&json!(call.id)).await.map_err(local_error)?;
        self.collect();
        outcome(response).and_then(|result| serde_json::from_value(result).map_err(local_error))
    }

    /// Cancel a started call, as a client does with
    /// `notifications/cancelled`. Its tool stops at its next `.await`, and
    /// no result will come.
    pub async fn cancel(&mut self, call: PendingCall) {
        let params = json!({"requestId": RequestId::Number(call.id), "reason": "cancelled by the test"});
        let _ = self.client.notify(methods::CANCELLED, params).await;
    }

    /// Ask for log messages of `level` and above.
    pub async fn set_log_level(&mut self, level: LoggingLevel) -> Result<(), ErrorObject> {
        self.request(methods::LOGGING_SET_LEVEL, json!({"level": level})).await.map(drop)
    }

    /// Progress notifications received so far (taken out of the queue).
    pub async fn progress(&mut self) -> Vec<ProgressParams> {
        self.take(methods::PROGRESS).await
    }

    /// Log messages received so far (taken out of the queue).
    pub async fn log_messages(&mut self) -> Vec<LoggingMessageParams> {
        self.take(methods::MESSAGE).await
    }

    /// How many `tools/list_changed` notifications arrived so far (taken
    /// out of the queue).
    pub async fn list_changes(&mut self) -> usize {
        self.take::<Value>(methods::TOOLS_LIST_CHANGED).await.len()
    }

    /// How many `resources/list_changed` notifications arrived so far
    /// (taken out of the queue).
    pub async fn resource_list_changes(&mut self) -> usize {
        self.take::<Value>(methods::RESOURCES_LIST_CHANGED).await.len()
    }

    /// Close the connection and wait for the server to finish (running
    /// calls complete within its grace period); returns every message not
    /// yet taken, responses included.
    pub async fn close(mut self) -> io::Result<Vec<Value>> {
        let mut rest = std::mem::take(&mut self.notifications);
        rest.extend(self.client.close().await?);
        Ok(rest)
    }

    /// The raw JSON-RPC client underneath, for anything else.
    pub fn raw(&mut self) -> &mut InMemoryClient {
        &mut self.client
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let response = self.client.request(method, params).await.map_err(local_error)?;
        self.collect();
        outcome(response)
    }

    /// Notifications of one method, after a `ping` has flushed everything
    /// the server sent before it.
    async fn take<T: serde::de::DeserializeOwned>(&mut self, method: &str) -> Vec<T> {
        let _ = self.client.request(methods::PING, json!({})).await;
        self.collect();
        let (wanted, rest): (Vec<Value>, Vec<Value>) =
            std::mem::take(&mut self.notifications).into_iter().partition(|n| n["method"] == method);
        self.notifications = rest;
        wanted.into_iter().filter_map(|n| serde_json::from_value(n["params"].clone()).ok()).collect()
    }

    fn collect(&mut self) {
        self.notifications.extend(self.client.take_notifications());
    }
}

/// A failure on the client's side (the connection, or a reply that does
/// not parse), as an error object like the server's.
fn local_error(error: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, format!("test client: {error}"))
}

fn outcome(response: Value) -> Result<Value, ErrorObject> {
    match response.get("error") {
        Some(error) => Err(serde_json::from_value(error.clone()).unwrap_or_else(local_error)),
        None => Ok(response.get("result").cloned().unwrap_or(Value::Null)),
    }
}

impl std::fmt::Debug for TestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestClient").field("queued_notifications", &self.notifications.len()).finish()
    }
}
