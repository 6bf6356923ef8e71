//! A request in the making: a tool call ([`Call`]) or any request sent on
//! another client's behalf ([`Forward`]), given its timeout, progress
//! handler or answers before it is awaited.

use std::borrow::Cow;
use std::future::IntoFuture;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Either};
use mcp_core::{CallToolResult, JsonObject, ProgressParams};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::api::value;
use crate::params::Params;
use crate::session::RequestOptions;
use crate::{Client, Error, TaskCall};

/// A tool call, to be awaited; set its timeout or progress handler first.
/// A [`Forward`] of `tools/call` whose result is read as a tool's (its
/// arguments' mistakes kept for the await).
#[must_use = "a call does nothing until it is awaited"]
pub struct Call<'a> {
    request: Result<Forward<'a>, Error>,
}

impl<'a> Call<'a> {
    pub(crate) fn new(request: Result<Forward<'a>, Error>) -> Call<'a> {
        Call { request }
    }

    /// How long this call waits for its answer (the client's timeout
    /// unless set); past it the call is cancelled.
    pub fn timeout(self, timeout: Duration) -> Self {
        Call { request: self.request.map(|r| r.timeout(timeout)) }
    }

    /// Hear the call's progress notifications, in order. Every update the
    /// server sent before its answer has been heard when the call's
    /// `.await` returns (unless the handler is still busy a whole timeout
    /// after the answer came).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime_client::Client) -> Result<(), mcp_runtime_client::Error> {
    /// use std::sync::{Arc, Mutex};
    ///
    /// let bar = Arc::new(Mutex::new(0.0));
    /// let shown = bar.clone();
    /// let result = client
    ///     .call("index", serde_json::json!({ "path": "." }))
    ///     .on_progress(move |p| *shown.lock().unwrap() = p.progress / p.total.unwrap_or(1.0))
    ///     .await?;
    /// // The last update the server sent before its result is shown.
    /// println!("{:.0}% done: {:?}", *bar.lock().unwrap() * 100.0, result.content);
    /// # Ok(()) }
    /// ```
    pub fn on_progress(self, f: impl FnMut(ProgressParams) + Send + 'static) -> Self {
        Call { request: self.request.map(|r| r.on_progress(f)) }
    }
}

impl<'a> IntoFuture for Call<'a> {
    type Output = Result<CallToolResult, Error>;
    type IntoFuture = BoxFuture<'a, Result<CallToolResult, Error>>;

    fn into_future(self) -> Self::IntoFuture {
        match self.request {
            // Chained, not awaited in an `async` block, which would hold the
            // request's future twice (as its capture and as what it awaits).
            Ok(forward) => {
                let client = forward.client;
                let within = forward.timeout.unwrap_or(client.session.limits.timeout);
                Box::pin(forward.send().then(move |sent| async move {
                    match crate::tasks::created(&sent?)? {
                        TaskCall::Done(result) => Ok(result),
                        // Only a client that declared the tasks extension
                        // gets one unasked: the call is its result, within
                        // the call's time.
                        TaskCall::Task(task) => tokio::time::timeout(within, client.follow(&task.task_id))
                            .await
                            .unwrap_or(Err(Error::Timeout(within))),
                    }
                }))
            }
            Err(error) => Box::pin(std::future::ready(Err(error))),
        }
    }
}

/// A request on behalf of another client, to be awaited (see
/// [`Client::forward`]).
#[must_use = "a request does nothing until it is awaited"]
pub struct Forward<'a> {
    client: &'a Client,
    method: Cow<'static, str>,
    params: Params,
    timeout: Option<Duration>,
    progress: Option<Box<dyn FnMut(ProgressParams) + Send>>,
    answers: Option<crate::handlers::Fallback>,
    ids: Option<tokio::sync::mpsc::UnboundedSender<mcp_core::RequestId>>,
}

impl<'a> Forward<'a> {
    pub(crate) fn new(client: &'a Client, method: Cow<'static, str>, params: Params) -> Forward<'a> {
        Forward { client, method, params, timeout: None, progress: None, answers: None, ids: None }
    }

    /// How long this request waits for its answer (the client's timeout
    /// unless set); past it the request is cancelled.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Hear the request's progress notifications (the request gets a
    /// progress token of this client's), in order: those the server sent
    /// before its answer are all heard before the request resolves, as for
    /// [`Call::on_progress`].
    pub fn on_progress(mut self, f: impl FnMut(ProgressParams) + Send + 'static) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Answer the input requests of a 2026-07-28 server's multi-round
    /// result with `f` (the method and params of each), for this request
    /// only. A handshake server's requests are not tied to one request:
    /// the client's handlers answer those.
    pub fn on_input<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String, Option<JsonObject>) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Value, mcp_core::ErrorObject>> + Send + 'static,
    {
        self.answers = Some(crate::handlers::boxed(f));
        self
    }

    /// Be told the JSON-RPC id of each request this sends, as it is sent
    /// (one per round of a 2026-07-28 multi-round request): to match what
    /// the server says about it, or to cancel it by its id.
    pub fn report_ids(mut self, ids: tokio::sync::mpsc::UnboundedSender<mcp_core::RequestId>) -> Self {
        self.ids = Some(ids);
        self
    }
}

impl<'a> Forward<'a> {
    /// Send it; its result as JSON text, once the progress that came
    /// before it is heard (see [`crate::progress`]). The session's future
    /// is the whole of it: nothing of the request is kept twice across its
    /// wait.
    pub(crate) fn send(self) -> impl Future<Output = Result<Box<RawValue>, Error>> + Send + 'a {
        let (progress, heard) = self.progress.map(crate::progress::channel).unzip();
        let within = self.timeout.unwrap_or(self.client.session.limits.timeout);
        let options = RequestOptions { timeout: self.timeout, progress, answers: self.answers, ids: self.ids };
        // The request's future ends holding no queue of its updates (its
        // options and its token are dropped with it), so the handler's
        // task ends once it has heard them all.
        let request = self.client.session.request(self.method, self.params, options);
        match heard {
            None => Either::Left(request),
            Some(heard) => Either::Right(request.then(move |answer| heard.all(within).map(move |()| answer))),
        }
    }
}

impl<'a> Forward<'a> {
    /// The result as the server's JSON text, unread: for a proxy that
    /// hands it on, or reads it straight into a type of its own, rather
    /// than through a [`Value`] (awaiting the `Forward` itself gives that).
    pub fn raw(self) -> BoxFuture<'a, Result<Box<RawValue>, Error>> {
        Box::pin(self.send())
    }
}

impl<'a> IntoFuture for Forward<'a> {
    type Output = Result<Value, Error>;
    type IntoFuture = BoxFuture<'a, Result<Value, Error>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send().map(|sent| value(&sent?)))
    }
}
