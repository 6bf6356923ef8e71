//! One connection to the upstream: opened when first needed and again
//! after it ends, and the calls in flight on it, to whose clients the
//! upstream's own requests and log messages go.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use futures_util::StreamExt;
use mcp_core::{ErrorObject, JsonObject, LoggingMessageParams, Notification, methods};
use mcp_runtime_client::{Client, Error as ClientError};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use super::{Link, lock};
use crate::proxy::park::Question;
use crate::request::Context;

/// One connection to the upstream, opened when first needed and again
/// after it ends, and the calls in flight on it (to whose clients the
/// upstream's own requests go).
#[derive(Default)]
pub(crate) struct Conn {
    /// The client, and which of the connection's upstream sessions it is.
    client: tokio::sync::Mutex<Option<(Client, u64)>>,
    /// How many clients it opened.
    generations: AtomicU64,
    callers: Mutex<Vec<Caller>>,
    next: AtomicU64,
    /// It declares the tasks extension, so the upstream may answer a call
    /// with a task (which only [`crate::proxy::tasks`] follows).
    declares_tasks: bool,
}

struct Caller {
    id: u64,
    target: Target,
    /// Set when the call ends, to stop passing on questions for it.
    done: watch::Sender<bool>,
}

/// Where the upstream's questions during a call go.
#[derive(Clone)]
enum Target {
    /// The client of the call's request.
    Live(Context),
    /// A call parked across a 2026-07-28 client's rounds.
    Parked(mpsc::Sender<Question>),
}

/// A call in flight on a connection, until dropped.
pub(crate) struct Entered {
    conn: Arc<Conn>,
    id: u64,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut callers = lock(&self.conn.callers);
        if let Some(i) = callers.iter().position(|c| c.id == self.id) {
            callers.remove(i).done.send_replace(true);
        }
    }
}

impl Conn {
    /// A connection that declares the tasks extension.
    pub(super) fn declaring_tasks() -> Conn {
        Conn { declares_tasks: true, ..Conn::default() }
    }

    /// The connection's client, connecting if there is none (or the last
    /// one ended).
    pub(crate) async fn client(self: &Arc<Self>, link: &Link) -> Result<(Client, u64), ClientError> {
        let mut slot = self.client.lock().await;
        if let Some((client, generation)) = slot.as_ref().filter(|(c, _)| c.closed().is_none()) {
            return Ok((client.clone(), *generation));
        }
        let conn = Arc::downgrade(self);
        let builder = Client::builder()
            .name(format!("mcp-runtime proxy ({})", link.label), env!("CARGO_PKG_VERSION"))
            // Tools for views are mirrored; this server's own clients see
            // them only if they render views.
            .extension(mcp_core::apps::EXTENSION, serde_json::json!({ "mimeTypes": [mcp_core::apps::MIME_TYPE] }))
            .relay(move |method, params| {
                let conn = conn.clone();
                async move {
                    match conn.upgrade() {
                        Some(conn) => conn.ask(&method, params).await,
                        None => Err(ErrorObject::internal_error()),
                    }
                }
            });
        let builder = match link.max_message_bytes {
            Some(max) => builder.max_message_bytes(max),
            None => builder,
        };
        let builder = match self.declares_tasks {
            true => builder.extension(mcp_core::task::EXTENSION, serde_json::json!({})),
            false => builder,
        };
        let client = crate::proxy::connect::telling(link, (link.connect)(builder)).await?;
        tokio::spawn(pass_on_logs(Arc::downgrade(self), client.notifications().boxed()));
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        *slot = Some((client.clone(), generation));
        Ok((client, generation))
    }

    /// Forget the client, so the next request connects again.
    pub(crate) async fn reset(&self) {
        self.client.lock().await.take();
    }

    /// End the client (of `generation` only, if given): its upstream
    /// session closes and its process, if any, exits. Whether one was.
    pub(super) async fn close(&self, generation: Option<u64>) -> bool {
        let taken = {
            let mut slot = self.client.lock().await;
            match &*slot {
                Some((_, current)) if generation.is_none_or(|g| g == *current) => slot.take(),
                _ => None,
            }
        };
        match taken {
            Some((client, _)) => {
                client.close().await;
                true
            }
            None => false,
        }
    }

    /// Note a call in flight for `ctx`'s client.
    pub(crate) fn enter(self: &Arc<Self>, ctx: Context) -> Entered {
        self.enter_as(Target::Live(ctx))
    }

    /// Note a parked call in flight, whose questions go to `asking`.
    pub(crate) fn enter_parked(self: &Arc<Self>, asking: mpsc::Sender<Question>) -> Entered {
        self.enter_as(Target::Parked(asking))
    }

    fn enter_as(self: &Arc<Self>, target: Target) -> Entered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.callers).push(Caller { id, target, done: watch::channel(false).0 });
        Entered { conn: self.clone(), id }
    }

    /// The latest call in flight: whose client the upstream's requests,
    /// which name no call, go to.
    fn current(&self) -> Option<(Target, watch::Receiver<bool>)> {
        lock(&self.callers).last().map(|c| (c.target.clone(), c.done.subscribe()))
    }

    /// The client of the latest live call, for log messages.
    fn current_client(&self) -> Option<Context> {
        lock(&self.callers).iter().rev().find_map(|c| match &c.target {
            Target::Live(ctx) => Some(ctx.clone()),
            Target::Parked(_) => None,
        })
    }

    /// Pass one of the upstream's requests on to the client of the latest
    /// call, for as long as that call lasts.
    async fn ask(&self, method: &str, params: Option<JsonObject>) -> Result<Value, ErrorObject> {
        let Some((target, mut done)) = self.current() else {
            return Err(ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                format!("`{method}` cannot be passed on: no client is waiting on this server now"),
            ));
        };
        let answer = async {
            match target {
                Target::Live(ctx) => ask(&ctx, method, params).await,
                Target::Parked(asking) => {
                    let (reply, answer) = oneshot::channel();
                    let question = Question { method: method.to_owned(), params, reply };
                    if asking.send(question).await.is_err() {
                        return Err(ErrorObject::internal_error());
                    }
                    answer.await.unwrap_or_else(|_| Err(ErrorObject::internal_error()))
                }
            }
        };
        tokio::select! {
            answer = answer => answer,
            _ = done.wait_for(|d| *d) => Err(ErrorObject::new(
                mcp_core::codes::INTERNAL_ERROR,
                format!("`{method}` was not answered: the call it came with ended"),
            )),
        }
    }
}

/// Ask the client of `ctx` what the upstream asked: a request in the
/// handshake eras, an input request of the call's result in 2026-07-28.
pub(crate) async fn ask(ctx: &Context, method: &str, params: Option<JsonObject>) -> Result<Value, ErrorObject> {
    let params = Value::Object(params.unwrap_or_default());
    ctx.client().request::<Value>(method, params).await.map_err(|error| match error {
        crate::client::ClientError::Rejected(error) => error,
        other => ErrorObject::new(mcp_core::codes::INTERNAL_ERROR, other.to_string()),
    })
}

/// Pass the upstream's log messages on a connection to the client of its
/// latest call.
async fn pass_on_logs(conn: Weak<Conn>, mut notifications: futures_util::stream::BoxStream<'static, Notification>) {
    while let Some(notification) = notifications.next().await {
        if notification.method != methods::MESSAGE {
            continue;
        }
        let Some(conn) = conn.upgrade() else { return };
        let params = notification.params.map(Value::Object).unwrap_or_default();
        if let (Some(ctx), Ok(message)) =
            (conn.current_client(), serde_json::from_value::<LoggingMessageParams>(params))
        {
            ctx.relay_log(&message);
        }
    }
}
