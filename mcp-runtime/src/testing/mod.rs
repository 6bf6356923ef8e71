//! [`TestClient`]: drive a [`Server`] in memory from a unit test, with
//! typed results and the notifications a real client would see. It is the
//! client crate's [`Client`] (its envelope, its multi-round loop, its
//! paging) over whole messages in memory (`wire`), with what a test needs
//! beside it: every notification kept to be taken in order, and a raw
//! JSON-RPC client on the same connection.

use std::io;
use std::sync::Arc;

use mcp_core::{
    CallToolResult, CompleteRef, Completion, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    ErrorObject, GetPromptResult, LoggingLevel, LoggingMessageParams, ProgressParams, Prompt, ProtocolVersion,
    ReadResourceResult, RequestId, Resource, ResourceTemplate, ResourceUri, Root, Tool, methods,
};
use mcp_runtime_client::{Client, EraChoice, Error as ClientError};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::Error;
use crate::server::Server;
use crate::transport::memory::InMemoryClient;

mod answers;
mod builder;
mod tasks;
mod wire;

use answers::Answers;
pub use builder::TestClientBuilder;
/// How the server answered [`TestClient::call_as_task`]: the task it
/// became, or the direct answer.
pub use mcp_runtime_client::TaskCall;

/// A client connected in memory to a server, for tests: no subprocess, no
/// pipes, the same protocol a real client speaks.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::testing::TestClient;
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
///
/// Internal errors and panics show their details here (`internal error
/// (incident …): …`), unlike on a real server, so a failing test says why;
/// to test what production clients see, build the server with
/// [`show_internal_errors(false)`](Server::show_internal_errors).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::testing::TestClient;
///
/// /// Parse a number.
/// #[tool]
/// fn parse(text: String) -> Result<i64, std::num::ParseIntError> {
///     text.parse()
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = || Server::empty("p", "1").tool(parse::Tool);
/// let mut client = TestClient::connect(server()).await.unwrap();
/// let failed = client.call_tool("parse", serde_json::json!({"text": "x"})).await.unwrap();
/// let shown = failed.content[0].as_text().unwrap();
/// assert!(shown.starts_with("internal error (incident ") && shown.ends_with("): invalid digit found in string"));
///
/// let mut client = TestClient::connect(server().show_internal_errors(false)).await.unwrap();
/// let failed = client.call_tool("parse", serde_json::json!({"text": "x"})).await.unwrap();
/// let masked = failed.content[0].as_text().unwrap();
/// assert!(masked.starts_with("internal error (incident ") && masked.ends_with(')'));
/// # }
/// ```
///
/// A client made with [`TestClient::builder`] also answers the server's
/// questions (elicitation, sampling, roots) with closures, in either era:
/// requests to the client in the handshake versions, and in 2026-07-28 the
/// multi-round results, which it answers and retries until the request
/// completes. One that declares tasks ([`TestClientBuilder::tasks`]) calls
/// tools as tasks and follows them ([`call_as_task`](Self::call_as_task),
/// [`wait_task`](Self::wait_task), [`cancel_task`](Self::cancel_task)).
pub struct TestClient {
    client: Client,
    /// The raw client on the same connection ([`raw`](Self::raw)).
    raw: InMemoryClient,
    /// What the server's writer kept: notifications, and after close
    /// everything.
    tap: Arc<wire::Tap>,
    server: JoinHandle<io::Result<()>>,
    /// Notifications taken from the tap, not yet taken by the test.
    notifications: Vec<Value>,
}

/// A call started with [`TestClient::start_call`] and not yet answered.
#[derive(Debug)]
#[must_use = "finish or cancel the call"]
pub struct PendingCall {
    id: i64,
    /// The ids of its requests as they are sent (a 2026-07-28 call sends
    /// one per round).
    ids: mpsc::UnboundedReceiver<RequestId>,
    call: JoinHandle<Result<Value, ClientError>>,
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

    /// Start `server` and complete the handshake at `version` (or, for
    /// 2026-07-28, speak it statelessly).
    pub async fn connect_as(server: Server, version: ProtocolVersion) -> Result<TestClient, Error> {
        Self::builder(server).version(version).connect().await
    }

    /// Set up a client that answers the server's questions (elicitation,
    /// sampling, roots) and speaks the version of your choice.
    pub fn builder(server: Server) -> TestClientBuilder {
        TestClientBuilder { server, version: ProtocolVersion::LATEST_HANDSHAKE, answers: Answers::default() }
    }

    /// Change the roots this client offers and tell the server
    /// (`notifications/roots/list_changed`); the client must offer roots
    /// ([`TestClientBuilder::roots`]).
    pub async fn set_roots(&mut self, roots: Vec<Root>) -> io::Result<()> {
        self.client.set_roots(roots).await.map_err(io::Error::other)
    }

    /// Every tool, following `tools/list` pages to the end (each as the
    /// server listed it).
    pub async fn list_tools(&mut self) -> Result<Vec<Tool>, ErrorObject> {
        let tools = self.client.list_values(methods::TOOLS_LIST, "tools").await;
        let tools = self.settled(tools)?;
        tools.into_iter().map(|tool| serde_json::from_value(tool).map_err(local_error)).collect()
    }

    /// Every resource with a fixed URI, following `resources/list` pages.
    pub async fn list_resources(&mut self) -> Result<Vec<Resource>, ErrorObject> {
        let listed = self.client.list_resources().await;
        self.settled(listed)
    }

    /// Every resource template, following `resources/templates/list` pages.
    pub async fn list_resource_templates(&mut self) -> Result<Vec<ResourceTemplate>, ErrorObject> {
        let listed = self.client.list_resource_templates().await;
        self.settled(listed)
    }

    /// Read the resource at `uri`. Failures (no such resource, a read that
    /// failed) are `Err`, with the code the protocol gives them.
    pub async fn read_resource(&mut self, uri: &str) -> Result<ReadResourceResult, ErrorObject> {
        let read = self.client.read_resource(uri).await;
        self.settled(read)
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
        let listed = self.client.list_prompts().await;
        self.settled(listed)
    }

    /// Render the prompt `name` with `arguments` (name → string value).
    /// Unknown prompts and bad arguments are `Err` (invalid params).
    pub async fn get_prompt(&mut self, name: &str, arguments: &[(&str, &str)]) -> Result<GetPromptResult, ErrorObject> {
        let arguments: serde_json::Map<String, Value> =
            arguments.iter().map(|(k, v)| ((*k).to_owned(), Value::from(*v))).collect();
        let got = self.client.get_prompt(name, arguments).await;
        self.settled(got)
    }

    /// Complete the argument `argument` of the prompt `prompt`, typed so
    /// far as `value`.
    pub async fn complete(&mut self, prompt: &str, argument: &str, value: &str) -> Result<Completion, ErrorObject> {
        let reference = CompleteRef::Prompt { name: prompt.to_owned() };
        let completed = self.client.complete(reference, argument, value, None).await;
        self.settled(completed).map(|result| result.completion)
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
        let (sent, mut ids) = mpsc::unbounded_channel();
        let client = self.client.clone();
        let params = json!({"name": name, "arguments": arguments});
        let params = params.as_object().cloned().unwrap_or_default();
        let call = tokio::spawn(async move {
            // A token of its own, so that the tool reports progress (the
            // test takes it from the notifications).
            client.forward(methods::TOOLS_CALL, params).on_progress(drop).report_ids(sent).await
        });
        let id = match ids.recv().await {
            Some(RequestId::Number(id)) => id,
            // The connection is closed: the call fails when it is
            // finished.
            _ => 0,
        };
        PendingCall { id, ids, call }
    }

    /// Wait for a started call's result, answering the server's questions
    /// on the way (and, in 2026-07-28, retrying with the answers).
    pub async fn finish(&mut self, call: PendingCall) -> Result<CallToolResult, ErrorObject> {
        let outcome = match call.call.await {
            Ok(outcome) => self.settled(outcome),
            Err(stopped) => Err(local_error(stopped)),
        };
        serde_json::from_value(outcome?).map_err(local_error)
    }

    /// Cancel a started call, as a client does with
    /// `notifications/cancelled`. Its tool stops at its next `.await`, and
    /// no result will come.
    pub async fn cancel(&mut self, mut call: PendingCall) {
        call.call.abort();
        let _ = (&mut call.call).await;
        // The round being waited for when it stopped.
        let mut id = RequestId::Number(call.id);
        while let Ok(later) = call.ids.try_recv() {
            id = later;
        }
        let params = json!({"requestId": id, "reason": "cancelled by the test"});
        let _ = self.client.notify(methods::CANCELLED, params.as_object().cloned()).await;
    }

    /// Ask for log messages of `level` and above.
    pub async fn set_log_level(&mut self, level: LoggingLevel) -> Result<(), ErrorObject> {
        let set = self.client.set_log_level(level).await;
        self.settled(set)
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
        self.collect();
        // Whatever the server says from now on is the test's.
        self.tap.close();
        self.raw.stop_sending();
        self.client.close().await;
        self.server.await.map_err(io::Error::other)??;
        let mut rest = std::mem::take(&mut self.notifications);
        rest.extend(self.tap.take());
        Ok(rest)
    }

    /// A raw JSON-RPC client on the same connection, for anything else:
    /// hand-written messages, and whole answers to read. The answers to
    /// its requests come to it; the server's notifications go to this
    /// client's queue.
    pub fn raw(&mut self) -> &mut InMemoryClient {
        &mut self.raw
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let answered = self.client.request(method, params).await;
        self.settled(answered)
    }

    /// `outcome` as a test sees it, with what the server sent before it
    /// collected.
    fn settled<T>(&mut self, outcome: Result<T, ClientError>) -> Result<T, ErrorObject> {
        self.collect();
        outcome.map_err(client_error)
    }

    /// Notifications of one method, after a `ping` has flushed everything
    /// the server sent before it.
    async fn take<T: serde::de::DeserializeOwned>(&mut self, method: &str) -> Vec<T> {
        let _ = self.request(methods::PING, json!({})).await;
        let (wanted, rest): (Vec<Value>, Vec<Value>) =
            std::mem::take(&mut self.notifications).into_iter().partition(|n| n["method"] == method);
        self.notifications = rest;
        wanted.into_iter().filter_map(|n| serde_json::from_value(n["params"].clone()).ok()).collect()
    }

    fn collect(&mut self) {
        self.notifications.extend(self.tap.take());
    }
}

/// A failure on the client's side (the connection, or a reply that does
/// not parse), as an error object like the server's.
fn local_error(error: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, format!("test client: {error}"))
}

/// The server's error as it sent it; anything else as a local one.
fn client_error(error: ClientError) -> ErrorObject {
    match error {
        ClientError::Server(error) => error,
        other => local_error(other),
    }
}

impl std::fmt::Debug for TestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let negotiated = self.client.negotiated();
        f.debug_struct("TestClient")
            .field("queued_notifications", &self.notifications.len())
            .field("stateless", &(negotiated.era == mcp_runtime_client::Era::Stateless))
            .finish()
    }
}
